import Testing
import TouchCore
@testable import TouchServer

/// One client's flow control as a transition table (issue 41): every state against every
/// input, with the state it goes to and what it answers, written from protocol.md's "Limits and
/// fairness" and ClientFlow's rules (limit 64: behind at 32, released at 16, caught up at 8),
/// not from the code's output. A dropping state is named with the state it goes back to.
@Suite struct ClientFlowTableTests {
    enum Start: CustomStringConvertible {
        case normal, paced, catchingUp, droppingCatchingUp, droppingPaced, droppingNormal
        var description: String {
            switch self {
            case .normal: return "normal"
            case .paced: return "paced"
            case .catchingUp: return "catchingUp"
            case .droppingCatchingUp: return "dropping(1) then catchingUp"
            case .droppingPaced: return "dropping(1) then paced"
            case .droppingNormal: return "dropping(1) then normal"
            }
        }
        /// Reached through the flow's own inputs, as a client gets there.
        var flow: ClientFlow {
            var f = ClientFlow(limit: 64)
            switch self {
            case .normal: break
            case .paced: f.setRate(10, was: nil)
            case .catchingUp: _ = f.offer(queued: 32, now: 0)
            case .droppingCatchingUp: _ = f.offer(queued: 32, now: 0); _ = f.offer(queued: 64, now: 0)
            case .droppingPaced: f.setRate(10, was: nil); _ = f.offer(queued: 64, now: 0)
            case .droppingNormal: f.setRate(10, was: nil); _ = f.offer(queued: 64, now: 0); f.setRate(nil, was: 10)
            }
            return f
        }
    }

    enum Input: CustomStringConvertible {
        case offer(Int), rate(Double?, was: Double?), resync(Int), release(Int), caughtUp(Int), shutdown(Int)
        var description: String {
            switch self {
            case .offer(let q): return "offer(queued: \(q))"
            case .rate(let r, let w): return "rate \(w.map { "\($0)" } ?? "none") → \(r.map { "\($0)" } ?? "none")"
            case .resync(let q): return "resync(queued: \(q))"
            case .release(let q): return "release(queued: \(q))"
            case .caughtUp(let q): return "caughtUp(queued: \(q))"
            case .shutdown(let q): return "shutdown(queued: \(q))"
            }
        }
    }

    static func name(_ l: ClientFlow.Life) -> String {
        switch l {
        case .normal: return "normal"
        case .paced: return "paced"
        case .catchingUp: return "catchingUp"
        case .dropping(let n, let after): return "dropping(\(n)) then \(name(after))"
        }
    }

    /// What an input answers, as one string: its verdict and notice, its count, its yes or no,
    /// or the farewell ("-" for setRate, which answers nothing).
    static func apply(_ input: Input, to f: inout ClientFlow) -> String {
        var held: [FrameMessage] = []
        switch input {
        case .offer(let q):
            let (v, n) = f.offer(queued: q, now: 1)
            return "\(v) \(n.map { "\($0)" } ?? "-")"
        case .rate(let r, let w): f.setRate(r, was: w); return "-"
        case .resync(let q): return f.resync(queued: q).map { "\($0)" } ?? "nil"
        case .release(let q): return "\(f.release(queued: q, into: &held))"
        case .caughtUp(let q): return "\(f.caughtUp(queued: q))"
        case .shutdown(let q): return "\(f.shutdown(queued: q, held: &held))"
        }
    }

    static let rows: [(Start, Input, String, String)] = [
        // Keeping up: every message queued; half the limit starts catching up (the message at
        // hand still queued), the limit starts dropping.
        (.normal, .offer(31), "normal", "queue -"),
        (.normal, .offer(32), "catchingUp", "queue behind(queued: 32)"),
        (.normal, .offer(64), "dropping(1) then catchingUp", "drop dropping"),
        (.normal, .rate(10, was: nil), "paced", "-"),
        (.normal, .resync(0), "normal", "nil"),
        (.normal, .release(0), "normal", "false"),
        (.normal, .caughtUp(0), "normal", "false"),
        (.normal, .shutdown(17), "normal", "dropStaleMoves"),
        (.normal, .shutdown(16), "normal", "sendHeld"),
        // Paced (a maxRate): never "catching up" on top; the limit drops.
        (.paced, .offer(32), "paced", "queue -"),
        (.paced, .offer(64), "dropping(1) then paced", "drop dropping"),
        (.paced, .rate(20, was: 10), "paced", "-"),
        (.paced, .rate(nil, was: 10), "normal", "-"),
        (.paced, .rate(10, was: 10), "paced", "-"),
        (.paced, .resync(0), "paced", "nil"),
        (.paced, .release(0), "paced", "false"),
        (.paced, .caughtUp(0), "paced", "false"),
        (.paced, .shutdown(17), "paced", "dropStaleMoves"),
        (.paced, .shutdown(16), "paced", "sendHeld"),
        // Catching up: released at a quarter, every frame again at an eighth.
        (.catchingUp, .offer(40), "catchingUp", "queue -"),
        (.catchingUp, .offer(64), "dropping(1) then catchingUp", "drop dropping"),
        (.catchingUp, .rate(10, was: nil), "paced", "-"),
        (.catchingUp, .resync(0), "catchingUp", "nil"),
        (.catchingUp, .release(17), "catchingUp", "false"),
        (.catchingUp, .release(16), "catchingUp", "true"),
        (.catchingUp, .caughtUp(9), "catchingUp", "false"),
        (.catchingUp, .caughtUp(8), "normal", "true"),
        (.catchingUp, .shutdown(16), "catchingUp", "sendHeld"),
        // Dropping: everything dropped and counted until half the limit, then the overflow
        // notice's count and back; nothing is released or caught up meanwhile (the snapshot
        // the resync brings supersedes what is held).
        (.droppingCatchingUp, .offer(0), "dropping(2) then catchingUp", "drop -"),
        (.droppingCatchingUp, .offer(64), "dropping(2) then catchingUp", "drop -"),
        (.droppingCatchingUp, .rate(10, was: nil), "dropping(1) then paced", "-"),
        (.droppingCatchingUp, .resync(33), "dropping(1) then catchingUp", "nil"),
        (.droppingCatchingUp, .resync(32), "catchingUp", "1"),
        (.droppingCatchingUp, .release(16), "dropping(1) then catchingUp", "false"),
        (.droppingCatchingUp, .caughtUp(8), "dropping(1) then catchingUp", "false"),
        (.droppingCatchingUp, .shutdown(0), "catchingUp", "resync(dropped: 1)"),
        (.droppingPaced, .offer(0), "dropping(2) then paced", "drop -"),
        (.droppingPaced, .rate(nil, was: 10), "dropping(1) then normal", "-"),
        (.droppingPaced, .resync(32), "paced", "1"),
        (.droppingPaced, .shutdown(40), "paced", "resync(dropped: 1)"),
        // Back to normal while dropping (its rate withdrawn): half the limit still means behind.
        (.droppingNormal, .offer(31), "dropping(2) then normal", "drop -"),
        (.droppingNormal, .offer(32), "dropping(2) then catchingUp", "drop behind(queued: 32)"),
        (.droppingNormal, .resync(32), "normal", "1"),
    ]

    @Test func everyRow() {
        for (start, input, to, answer) in Self.rows {
            var f = start.flow
            let a = Self.apply(input, to: &f)
            #expect(Self.name(f.life) == to && a == answer, "\(start) + \(input): \(Self.name(f.life)), \(a); expected \(to), \(answer)")
        }
    }

    /// Every state meets every kind of input in the table.
    @Test func everyStateMeetsEveryInput() {
        let kinds = ["offer", "rate", "resync", "release", "caughtUp", "shutdown"]
        for start in [Start.normal, .paced, .catchingUp, .droppingCatchingUp] {
            let seen = Set(Self.rows.filter { "\($0.0)" == "\(start)" }.map { "\($0.1)".prefix { $0.isLetter } }.map(String.init))
            #expect(seen == Set(kinds), "\(start) lacks \(Set(kinds).subtracting(seen).sorted())")
        }
    }

    /// Every drop is counted in all, whatever the state.
    @Test func droppedTotalCountsEveryDrop() {
        var f = Start.droppingPaced.flow
        _ = f.offer(queued: 64, now: 1)
        _ = f.resync(queued: 0)
        _ = f.offer(queued: 64, now: 2)
        #expect(f.droppedTotal == 3)
        #expect(f.dropped == 1)
    }
}
