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

    /// What the client is in, with the data of each case: the state itself (`state` names it).
    /// A held client's coalescer lives in its case; dropping remembers the state it goes back to.
    enum Life: Sendable {
        case normal
        /// Frames of moves held and merged at the client's maxRate.
        case paced(Coalescer)
        /// Frames of moves held and merged until its queue drains (it fell behind).
        case catchingUp(Coalescer)
        /// Messages dropped (`n` since the last overflow notice) until the queue has room; then
        /// back to `after` (never itself dropping).
        indirect case dropping(Int, after: Life)

        var name: State {
            switch self {
            case .normal: return .normal
            case .paced: return .paced
            case .catchingUp: return .catchingUp
            case .dropping(let n, _): return .dropping(n)
            }
        }

        /// What is held, read.
        var coalescer: Coalescer? {
            switch self {
            case .normal: return nil
            case .paced(let c), .catchingUp(let c): return c
            case .dropping(_, let after): return after.coalescer
            }
        }

        /// What is held, changed in place (the case is left for the change, so that the held
        /// frames are not copied).
        mutating func hold<R>(_ body: (inout Coalescer) -> R) -> R? {
            switch self {
            case .normal: return nil
            case .paced(var c):
                self = .normal
                defer { self = .paced(c) }
                return body(&c)
            case .catchingUp(var c):
                self = .normal
                defer { self = .catchingUp(c) }
                return body(&c)
            case .dropping(let n, var after):
                self = .normal
                defer { self = .dropping(n, after: after) }
                return after.hold(body)
            }
        }
    }

    /// The queue limit (messages); a reload may change it.
    public var limit: Int
    /// The state (ClientFlowTableTests: every state against every input).
    private(set) var life = Life.normal
    /// Messages dropped in all.
    public private(set) var droppedTotal = 0

    public init(limit: Int) { self.limit = limit }

    public var state: State { life.name }

    /// Messages dropped since the last overflow notice.
    public var dropped: Int {
        if case .dropping(let n, _) = life { return n }
        return 0
    }

    /// Its frames go through the coalescer (and the message at hand must be offered to `hold`
    /// rather than queued as it is). Decided before a message is offered to anyone, so the
    /// message during which a client falls behind is queued once, the ordinary way.
    public var holdsFrames: Bool { life.coalescer != nil }

    /// When held frames are due (a maxRate), nil when none are held or they wait for the queue.
    public var deadline: Int64? { life.coalescer?.deadline }

    /// The client asked for at most `maxRate` frames a second (nil: every frame). A change
    /// starts afresh (what was held or caught up on goes; dropping goes on); an unchanged rate
    /// keeps what is held.
    public mutating func setRate(_ maxRate: Double?, was old: Double?) {
        guard maxRate != old else { return }
        let fresh = maxRate.map { Life.paced(Coalescer(maxRate: $0)) } ?? .normal
        if case .dropping(let n, _) = life { life = .dropping(n, after: fresh) } else { life = fresh }
    }

    /// A message for the client, with `queued` messages already in its queue: queue it, or drop
    /// it (counted). Half the limit queued starts catching up; the limit starts dropping.
    public mutating func offer(queued: Int, now: Int64) -> (Verdict, Notice?) {
        var notice: Notice?
        if life.coalescer == nil && queued >= limit / 2 {
            var c = Coalescer(catchingUp: ())
            c.lastDelivered = now
            if case .dropping(let n, _) = life { life = .dropping(n, after: .catchingUp(c)) } else { life = .catchingUp(c) }
            notice = .behind(queued: queued)
        }
        // Once dropping, keep dropping until `resync` resynchronises the client between engine
        // steps (so its snapshot and sequence numbers are consistent).
        switch life {
        case .dropping(let n, let after):
            life = .normal
            life = .dropping(n + 1, after: after)
        case _ where queued >= limit:
            notice = .dropping
            life = .dropping(1, after: life)
        default:
            return (.queue, notice)
        }
        droppedTotal += 1
        return (.drop, notice)
    }

    /// A message shaped for the client while it holds frames: the messages to offer now, in
    /// order. A frame of moves is held and merged; a frame that begins or ends a touch goes at
    /// once with what was held merged into it; anything else first releases what is held.
    public mutating func hold(_ m: Message, now: Int64, into out: inout [Message]) {
        var frames: [FrameMessage] = []
        if case .frame(let f) = m, life.coalescer != nil {
            life.hold { $0.add(f, now: now, into: &frames) }
            for f in frames { out.append(.frame(f)) }
        } else {
            life.hold { $0.release(into: &frames) }
            for f in frames { out.append(.frame(f)) }
            out.append(m)
        }
    }

    /// Time passed: the held frames whose time has come (a maxRate).
    public mutating func due(now: Int64, into out: inout [FrameMessage]) {
        life.hold { $0.due(now: now, into: &out) }
    }

    /// Its queue drained to `queued`: when it was dropping and has room again (half the limit),
    /// the number dropped since the last notice — the server sends the overflow notice and a
    /// snapshot, which supersedes anything held. Nil otherwise.
    public mutating func resync(queued: Int) -> Int? {
        guard case .dropping(let n, var after) = life, queued <= limit / 2 else { return nil }
        life = .normal
        after.hold { $0.pending.removeAll() }
        life = after
        return n
    }

    /// Catching up with `queued` messages left: once a quarter of the limit or less, what is
    /// held goes (appended to `out`, to be offered). Returns true when it did.
    public mutating func release(queued: Int, into out: inout [FrameMessage]) -> Bool {
        guard case .catchingUp = life, queued <= limit / 4 else { return false }
        life.hold { $0.release(into: &out) }
        return true
    }

    /// After a release, with `queued` messages left: an eighth of the limit or less, and it
    /// gets every frame again. Returns true when it caught up.
    public mutating func caughtUp(queued: Int) -> Bool {
        guard case .catchingUp = life, queued <= limit / 8 else { return false }
        life = .normal
        return true
    }

    /// The shutdown, with `queued` messages in its queue: what to do with them. Held frames are
    /// released into `held` (sent before the goodbye only with `.sendHeld`). No ghost touches:
    /// every began, ended and cancellation reaches the client, or a snapshot replaces them.
    public mutating func shutdown(queued: Int, held: inout [FrameMessage]) -> Farewell {
        life.hold { $0.release(into: &held) }
        if case .dropping(let n, let after) = life {
            life = after
            return .resync(dropped: n)
        }
        if queued > limit / 4 { return .dropStaleMoves }
        return .sendHeld
    }
}
