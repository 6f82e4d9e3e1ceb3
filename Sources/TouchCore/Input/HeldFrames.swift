/// What the conditioning holds back (`devices[].filter`, docs/config.md "Conditioning"), as one
/// line for every device: the frames the filters passed, in the order they came, waiting behind
/// a hold — a lift the debounce holds (a touch-down near it soon would make it a bounce and
/// continue the touch) or a touch-down not counted yet (`minimumDuration`, `minimumFrames`: it
/// may be a ghost). A frame goes on only when nothing holds it or a frame before it, so the
/// engine gets every frame at its own time and in the order it would without the filter: a
/// hold costs latency, never a different event (the debounce keeps UIKit's clock). Pure.
struct HeldFrames: Sendable {
    struct Frame: Sendable {
        var number: Int
        var device: DeviceIndex
        var time: Int64
        var changes: [ContactChange]
    }

    enum Kind: Sendable {
        /// A lift, its `ended` in the frame: a touch-down near `sample` before `deadline`
        /// takes the lift back (a bounce).
        case lift(sample: ContactSample, deadline: Int64)
        /// A touch-down, its `began` in the frame: delivered once it has lasted until `due`
        /// and `frames` more of its device's frames came, or at `latest` whatever the frames.
        case touchDown(due: Int64, frames: Int, latest: Int64)
    }

    struct Hold: Sendable {
        var device: DeviceIndex
        /// The contact's engine slot.
        var slot: Int
        /// The number of the frame that has its change.
        var frame: Int
        var kind: Kind

        var deadline: Int64 {
            switch kind {
            case .lift(_, let d): return d
            case .touchDown(let due, let frames, let latest): return frames == 0 ? due : latest
            }
        }
        var isLift: Bool { if case .lift = kind { return true }; return false }
    }

    /// At most this many frames wait: past it, everything held goes on (a flood of frames
    /// behind a hold must not grow memory).
    static let limit = 1_024

    private(set) var frames: [Frame] = []
    private var head = 0
    private(set) var holds: [Hold] = []
    /// The number the frame being filtered will have if it joins the line.
    private(set) var nextNumber = 0

    var isEmpty: Bool { head == frames.count }
    var count: Int { frames.count - head }
    var headTime: Int64? { isEmpty ? nil : frames[head].time }
    var nextDeadline: Int64? { holds.map(\.deadline).min() }
    /// The frame being filtered has a hold: it joins the line.
    var holdsNext: Bool { holds.contains { $0.frame == nextNumber } }

    mutating func append(device: DeviceIndex, time: Int64, changes: [ContactChange]) {
        frames.append(Frame(number: nextNumber, device: device, time: time, changes: changes))
        nextNumber += 1
        if count > HeldFrames.limit { settle() }
    }

    /// The first frame, when nothing holds it.
    mutating func popReleasable() -> Frame? {
        guard !isEmpty else { return nil }
        let n = frames[head].number
        if holds.contains(where: { $0.frame <= n }) { return nil }
        let f = frames[head]
        head += 1
        if head == frames.count {
            frames.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256 && head * 2 >= frames.count {
            frames.removeFirst(head)
            head = 0
        }
        return f
    }

    // MARK: Holds, made and settled by the filters

    /// The lift being filtered (its `ended` in the frame being filtered) is held until `deadline`.
    mutating func holdLift(device: DeviceIndex, slot: Int, sample: ContactSample, deadline: Int64) {
        holds.append(Hold(device: device, slot: slot, frame: nextNumber, kind: .lift(sample: sample, deadline: deadline)))
    }

    /// The touch-down being filtered waits until `due` and `frames` more frames (or `latest`).
    mutating func holdTouchDown(device: DeviceIndex, slot: Int, due: Int64, frames: Int, latest: Int64) {
        holds.append(Hold(device: device, slot: slot, frame: nextNumber, kind: .touchDown(due: due, frames: frames, latest: latest)))
    }

    /// The held lift of `device` that a touch-down at `time` near it would continue.
    func lift(of device: DeviceIndex, at time: Int64, near: (ContactSample) -> Bool) -> Int? {
        holds.firstIndex { h in
            guard h.device == device, case .lift(let s, let deadline) = h.kind else { return false }
            return time < deadline && near(s)
        }
    }

    /// A bounce: held lift `k` is taken back, its `ended` removed from its frame (`current`: the
    /// frame being filtered). Returns the contact's engine slot and where it lifted.
    mutating func takeBack(_ k: Int, current: inout [ContactChange]) -> (out: Int, sample: ContactSample) {
        let h = holds.remove(at: k)
        guard case .lift(let sample, _) = h.kind else { return (h.slot, ContactSample()) }
        let isEnd = { (c: ContactChange) in c.slot == h.slot && c.kind == .ended }
        if h.frame == nextNumber {
            if let i = current.firstIndex(where: isEnd) { current.remove(at: i) }
        } else if let f = frameIndex(h.frame), let i = frames[f].changes.firstIndex(where: isEnd) {
            frames[f].changes.remove(at: i)
        }
        return (h.slot, sample)
    }

    /// The contact on `slot` of `device` is a touch-down still waiting to be counted.
    func isWaiting(device: DeviceIndex, slot: Int) -> Bool {
        holds.contains { $0.device == device && $0.slot == slot && !$0.isLift }
    }

    /// A touch-down that ended before it counted (a ghost): its hold goes, and so does every
    /// change of its slot from its `began` on (in the touch-down's frame only the `began`: an
    /// earlier contact's end on the same slot may share it).
    mutating func drop(device: DeviceIndex, slot: Int) {
        guard let k = holds.firstIndex(where: { $0.device == device && $0.slot == slot && !$0.isLift }) else { return }
        let from = holds.remove(at: k).frame
        for f in head..<frames.count where frames[f].number >= from && frames[f].device == device {
            let first = frames[f].number == from
            frames[f].changes.removeAll { $0.slot == slot && (!first || $0.kind == .began) }
        }
    }

    /// Another frame of `device` came at `time` (the contacts waiting are still down): its
    /// touch-downs waiting for frames count it; those done waiting go on.
    mutating func countFrame(device: DeviceIndex, time: Int64) {
        holds.removeAll { h in
            guard h.device == device, h.frame < nextNumber, case .touchDown(let due, let frames, let latest) = h.kind else { return false }
            return frames <= 1 && due <= time || latest <= time
        }
        for k in holds.indices where holds[k].device == device && holds[k].frame < nextNumber {
            if case .touchDown(let due, let frames, let latest) = holds[k].kind, frames > 0 {
                holds[k].kind = .touchDown(due: due, frames: frames - 1, latest: latest)
            }
        }
    }

    /// Held lifts end as they are (a touch-down elsewhere: a bounce would come back near its
    /// lift, and another finger must not wait behind it). `device` nil: every device's.
    mutating func settleLifts(device: DeviceIndex? = nil) {
        holds.removeAll { $0.isLift && (device == nil || $0.device == device) }
    }

    /// Everything held goes on now: lifts end, touch-downs are delivered (a reload that
    /// changes the filter, the line's limit). `device` nil: every device's.
    mutating func settle(device: DeviceIndex? = nil) {
        holds.removeAll { device == nil || $0.device == device }
    }

    /// Holds whose time has come: lifts end, touch-downs that lasted are delivered.
    mutating func expire(now: Int64) {
        holds.removeAll { $0.deadline <= now }
    }

    private func frameIndex(_ number: Int) -> Int? {
        guard !isEmpty, number >= frames[head].number else { return nil }
        let f = head + (number - frames[head].number)
        return f < frames.count && frames[f].number == number ? f : nil
    }
}
