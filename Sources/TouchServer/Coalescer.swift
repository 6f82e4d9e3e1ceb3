import TouchCore

/// One subscriber's `maxRate`: frames that only move touches are held and merged until the
/// client may have its next frame (1/maxRate after the last one it got); each touch then has
/// its latest sample and, in `coalesced`, the samples merged away (UIKit's
/// coalescedTouches(for:)). A frame in which a touch begins, ends or is cancelled goes at once,
/// with what was held for its device merged into it — the began, ended or cancelled phase
/// itself is never merged away. Anything else for the client (a control event, a gesture)
/// first releases what is held, so the order of messages stays the order of events. Pure: the
/// server calls it with the time and writes what it returns.
struct Coalescer {
    /// µs between two frames; nil for a client catching up, whose held frames go when its queue
    /// has room (the server says when).
    let interval: Int64?
    /// Held samples per touch beyond which what is held goes anyway (a client that never reads
    /// is not kept in memory for ever: its queue fills and the overflow policy takes over).
    static let maxSamples = 1024
    /// When the client last got a frame.
    var lastDelivered: Int64 = Int64.min / 2
    /// Held frames, one per device, in the order they came.
    var pending: [FrameMessage] = []

    init(maxRate: Double) {
        interval = max(1, Int64((1_000_000 / maxRate).rounded()))
    }

    /// For a client that fell behind.
    init(catchingUp: Void) { interval = nil }

    /// When what is held may go (nil: nothing held, or only when the server says).
    var deadline: Int64? { pending.isEmpty ? nil : interval.map { lastDelivered + $0 } }

    var holdsTooMuch: Bool {
        pending.contains { f in f.touches.contains { ($0.coalesced?.count ?? 0) > Coalescer.maxSamples } }
    }

    static func mergeable(_ f: FrameMessage) -> Bool {
        f.touches.allSatisfy { $0.phase == .moved || $0.phase == .stationary }
    }

    /// A frame for the client: the frames to deliver now (in order).
    mutating func add(_ f: FrameMessage, now: Int64, into out: inout [FrameMessage]) {
        guard Coalescer.mergeable(f) else {
            var f = f
            if let k = pending.firstIndex(where: { $0.device == f.device }) {
                f = Coalescer.merge(pending.remove(at: k), f)
            }
            release(into: &out)
            out.append(f)
            lastDelivered = now
            return
        }
        if let k = pending.firstIndex(where: { $0.device == f.device }) {
            pending[k] = Coalescer.merge(pending[k], f)
        } else {
            pending.append(f)
        }
        if let interval, now >= lastDelivered + interval { releaseAll(now: now, into: &out) }
        else if holdsTooMuch { releaseAll(now: now, into: &out) }
    }

    /// The held frames whose time has come.
    mutating func due(now: Int64, into out: inout [FrameMessage]) {
        if let d = deadline, now >= d { releaseAll(now: now, into: &out) }
    }

    /// Everything held, now (another message for the client must not overtake it).
    mutating func release(into out: inout [FrameMessage]) {
        out += pending
        pending.removeAll(keepingCapacity: true)
    }

    mutating func releaseAll(now: Int64, into out: inout [FrameMessage]) {
        release(into: &out)
        lastDelivered = now
    }

    /// `held` then `next` as one frame: each touch as `next` has it, its previous location the
    /// one before `held`, and the samples skipped in between in `coalesced`.
    static func merge(_ held: FrameMessage, _ next: FrameMessage) -> FrameMessage {
        var merged = next
        var byID: [Int: TouchRecord] = [:]
        for t in held.touches { byID[t.id] = t }
        for k in merged.touches.indices {
            guard let h = byID.removeValue(forKey: merged.touches[k].id) else { continue }
            var samples = h.coalesced ?? []
            if h.phase == .moved {
                samples.append(CoalescedSample(location: h.location, timestamp: h.timestamp))
                switch merged.touches[k].phase {
                case .moved:
                    merged.touches[k].previous = h.previous
                case .stationary:
                    // It moved in a held frame and not since: it still moved, to where it is.
                    merged.touches[k].phase = .moved
                    merged.touches[k].previous = h.previous
                    merged.touches[k].predicted = h.predicted
                    samples.removeLast()
                default:
                    break   // ended or cancelled there: the moves before are its coalesced samples
                }
            }
            merged.touches[k].coalesced = samples.isEmpty ? nil : samples
        }
        // Touches the held frame had and the next does not list stay as they were.
        for t in held.touches where byID[t.id] != nil { merged.touches.append(t) }
        // Calls: the responders of both, each phase's touches together, in first-seen order.
        var calls = held.calls
        for c in next.calls {
            if let i = calls.firstIndex(where: { $0.responder == c.responder && $0.phase == c.phase }) {
                for t in c.touches where !calls[i].touches.contains(t) { calls[i].touches.append(t) }
            } else {
                calls.append(c)
            }
        }
        merged.calls = calls
        return merged
    }
}
