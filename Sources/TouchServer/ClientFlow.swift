import TouchCore

/// One client's flow control, as a pure state machine in swift-nio's manner: the server tells
/// it what happens (a message for the client, time passing, the queue drained, the shutdown)
/// with the client's queue depth, and it answers what to do (queue, drop, hold, release,
/// resynchronise); the server performs that. No I/O, no clock of its own: tested with plain
/// values (Tests/TouchServerTests/ClientFlowTests.swift).
///
/// States (`state`):
/// - `normal`: every message is queued as it comes.
/// - `paced`: the client asked for a maxRate; frames that only move touches are held and merged
///   (Coalescer) and go at most that often.
/// - `catchingUp`: its queue reached half of the limit: its frames of moves are held and merged
///   and go when its queue has drained to a quarter; with an eighth or less queued even then, it
///   is `normal` again.
/// - `dropping(n)`: its queue reached the limit: messages are dropped and counted until its
///   queue has drained to half; then it gets `{"type":"overflow","dropped":n}` and a fresh
///   snapshot (`resync`), and goes back to `paced` or `catchingUp`.
/// Nothing is lost silently: every drop is counted and told; other clients are unaffected.
public struct ClientFlow: Sendable {
    public enum State: Equatable, Sendable {
        case normal
        case paced
        case catchingUp
        case dropping(Int)
    }

    /// What the server should log when a message changed the state.
    public enum Notice: Equatable, Sendable {
        /// Behind (`queued` messages): its moves are coalesced until it catches up.
        case behind(queued: Int)
        /// Its queue is full: its messages are dropped until it catches up.
        case dropping
    }

    public enum Verdict: Equatable, Sendable {
        case queue
        case drop
    }

    /// What the shutdown does with a client's queue (see `shutdown`).
    public enum Farewell: Equatable, Sendable {
        /// It had messages dropped: its queue goes, it gets its overflow notice and a snapshot.
        case resync(dropped: Int)
        /// It is behind: its stale frames of moves go; began, ended and cancellations stay.
        case dropStaleMoves
        /// It is keeping up: what is held goes before the goodbye.
        case sendHeld
    }

    /// The queue limit (messages); a reload may change it.
    public var limit: Int
    /// Held frames: the client's maxRate, or catching up (nil: every frame as it comes).
    var coalescer: Coalescer?
    /// The coalescer was started because the client fell behind, not asked for.
    public private(set) var catchingUp = false
    /// Messages dropped since the last overflow notice.
    public private(set) var dropped = 0
    /// Messages dropped in all.
    public private(set) var droppedTotal = 0

    public init(limit: Int) { self.limit = limit }

    public var state: State {
        if dropped > 0 { return .dropping(dropped) }
        if coalescer == nil { return .normal }
        return catchingUp ? .catchingUp : .paced
    }

    /// Its frames go through the coalescer (and the message at hand must be offered to `hold`
    /// rather than queued as it is). Decided before a message is offered to anyone, so the
    /// message during which a client falls behind is queued once, the ordinary way.
    public var holdsFrames: Bool { coalescer != nil }

    /// When held frames are due (a maxRate), nil when none are held or they wait for the queue.
    public var deadline: Int64? { coalescer?.deadline }

    /// The client asked for at most `maxRate` frames a second (nil: every frame). A change
    /// starts afresh; an unchanged rate keeps what is held.
    public mutating func setRate(_ maxRate: Double?, was old: Double?) {
        guard maxRate != old else { return }
        coalescer = maxRate.map { Coalescer(maxRate: $0) }
        catchingUp = false
    }

    /// A message for the client, with `queued` messages already in its queue: queue it, or drop
    /// it (counted). Half the limit queued starts catching up; the limit starts dropping.
    public mutating func offer(queued: Int, now: Int64) -> (Verdict, Notice?) {
        var notice: Notice?
        if coalescer == nil && queued >= limit / 2 {
            var c = Coalescer(catchingUp: ())
            c.lastDelivered = now
            coalescer = c
            catchingUp = true
            notice = .behind(queued: queued)
        }
        // Once dropping, keep dropping until `drained` resynchronises the client between engine
        // steps (so its snapshot and sequence numbers are consistent).
        if dropped > 0 || queued >= limit {
            if dropped == 0 { notice = .dropping }
            dropped += 1
            droppedTotal += 1
            return (.drop, notice)
        }
        return (.queue, notice)
    }

    /// A message shaped for the client while it holds frames: the messages to offer now, in
    /// order. A frame of moves is held and merged; a frame that begins or ends a touch goes at
    /// once with what was held merged into it; anything else first releases what is held.
    public mutating func hold(_ m: Message, now: Int64, into out: inout [Message]) {
        var frames: [FrameMessage] = []
        if case .frame(let f) = m, coalescer != nil {
            coalescer?.add(f, now: now, into: &frames)
            for f in frames { out.append(.frame(f)) }
        } else {
            coalescer?.release(into: &frames)
            for f in frames { out.append(.frame(f)) }
            out.append(m)
        }
    }

    /// Time passed: the held frames whose time has come (a maxRate).
    public mutating func due(now: Int64, into out: inout [FrameMessage]) {
        coalescer?.due(now: now, into: &out)
    }

    /// Its queue drained to `queued`: when it was dropping and has room again (half the limit),
    /// the number dropped since the last notice — the server sends the overflow notice and a
    /// snapshot, which supersedes anything held. Nil otherwise.
    public mutating func resync(queued: Int) -> Int? {
        guard dropped > 0, queued <= limit / 2 else { return nil }
        let n = dropped
        dropped = 0
        coalescer?.pending.removeAll()
        return n
    }

    /// Catching up with `queued` messages left: once a quarter of the limit or less, what is
    /// held goes (appended to `out`, to be offered). Returns true when it did.
    public mutating func release(queued: Int, into out: inout [FrameMessage]) -> Bool {
        guard catchingUp, queued <= limit / 4 else { return false }
        coalescer?.release(into: &out)
        return true
    }

    /// After a release, with `queued` messages left: an eighth of the limit or less, and it
    /// gets every frame again. Returns true when it caught up.
    public mutating func caughtUp(queued: Int) -> Bool {
        guard catchingUp, queued <= limit / 8 else { return false }
        coalescer = nil
        catchingUp = false
        return true
    }

    /// The shutdown, with `queued` messages in its queue: what to do with them. Held frames are
    /// released into `held` (sent before the goodbye only with `.sendHeld`). No ghost touches:
    /// every began, ended and cancellation reaches the client, or a snapshot replaces them.
    public mutating func shutdown(queued: Int, held: inout [FrameMessage]) -> Farewell {
        coalescer?.release(into: &held)
        if dropped > 0 {
            let n = dropped
            dropped = 0
            return .resync(dropped: n)
        }
        if queued > limit / 4 { return .dropStaleMoves }
        return .sendHeld
    }
}
