import Testing
import TouchCore
@testable import TouchServer

/// The flow control of one client as a pure state machine: queue depths and times are plain
/// values, so every transition of protocol.md's "Limits and fairness" policy is pinned here
/// without a socket (limit 64: behind at 32, release at 16, caught up at 8).
@Suite struct ClientFlowTests {
    let limit = 64

    func record(_ id: Int, _ phase: Phase, x: Double, t: Int64) -> TouchRecord {
        TouchRecord(id: id, phase: phase, window: nil, view: nil, location: Point(x, 0), previous: Point(x - 1, 0), locationInView: Point(x, 0),
                    timestamp: t, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
    }

    func frame(_ t: Int64, _ phase: Phase, x: Double, id: Int = 1) -> Message {
        .frame(FrameMessage(seq: Int(t), time: t, device: "d", touches: [record(id, phase, x: x, t: t)], calls: []))
    }

    func control(_ t: Int64) -> Message {
        .control(ControlMessage(seq: Int(t), time: t, control: ViewIndex(1), event: .touchDragInside, touch: 1))
    }

    func frames(_ ms: [Message]) -> [(Phase, Double)] {
        ms.compactMap { if case .frame(let f) = $0 { return (f.touches[0].phase, f.touches[0].location.x) } else { return nil } }
    }

    @Test func aClientThatKeepsUpGetsEveryMessage() {
        var f = ClientFlow(limit: limit)
        for q in 0..<(limit / 2) {
            let (v, notice) = f.offer(queued: q, now: Int64(q))
            #expect(v == .queue)
            #expect(notice == nil)
        }
        #expect(f.state == .normal)
        #expect(!f.holdsFrames)
    }

    @Test func halfTheLimitStartsCatchingUpWithTheMessageAtHandQueued() {
        var f = ClientFlow(limit: limit)
        let (v, notice) = f.offer(queued: limit / 2, now: 5)
        #expect(v == .queue)
        #expect(notice == .behind(queued: limit / 2))
        #expect(f.state == .catchingUp)
        #expect(f.holdsFrames)
        // Held frames of a client catching up wait for its queue, not for a time.
        var out: [Message] = []
        f.hold(frame(10, .moved, x: 1), now: 10, into: &out)
        #expect(out.isEmpty)
        #expect(f.deadline == nil)
    }

    @Test func theLimitDropsAndCountsUntilTheQueueHasDrainedToHalf() {
        var f = ClientFlow(limit: limit)
        _ = f.offer(queued: limit / 2, now: 0)
        let (v, notice) = f.offer(queued: limit, now: 1)
        #expect(v == .drop)
        #expect(notice == .dropping)
        // Still dropping while the queue drains, and told only once.
        let (v2, n2) = f.offer(queued: limit / 2 + 1, now: 2)
        #expect(v2 == .drop)
        #expect(n2 == nil)
        #expect(f.state == .dropping(2))
        let early = f.resync(queued: limit / 2 + 1)
        #expect(early == nil)
        let count = f.resync(queued: limit / 2)
        #expect(count == 2)
        #expect(f.droppedTotal == 2)
        // After the overflow notice and the snapshot it is still catching up, nothing dropped.
        #expect(f.state == .catchingUp)
        let (v3, _) = f.offer(queued: limit / 2, now: 3)
        #expect(v3 == .queue)
    }

    @Test func theSnapshotSupersedesWhatWasHeldWhileDropping() {
        var f = ClientFlow(limit: limit)
        _ = f.offer(queued: limit / 2, now: 0)
        var out: [Message] = []
        f.hold(frame(10, .moved, x: 1), now: 10, into: &out)
        _ = f.offer(queued: limit, now: 11)
        let count = f.resync(queued: 0)
        #expect(count == 1)
        var held: [FrameMessage] = []
        let released = f.release(queued: 0, into: &held)
        #expect(released)
        #expect(held.isEmpty)
    }

    @Test func catchingUpReleasesAtAQuarterAndEndsAtAnEighth() {
        var f = ClientFlow(limit: limit)
        _ = f.offer(queued: limit / 2, now: 0)
        var out: [Message] = []
        f.hold(frame(10, .moved, x: 1), now: 10, into: &out)
        f.hold(frame(20, .moved, x: 2), now: 20, into: &out)
        #expect(out.isEmpty)
        var held: [FrameMessage] = []
        let early = f.release(queued: limit / 4 + 1, into: &held)
        #expect(!early)
        let released = f.release(queued: limit / 4, into: &held)
        #expect(released)
        // The two moves merged into one frame at the latest place, the first in `coalesced`.
        #expect(held.count == 1)
        #expect(held.first?.touches.first?.location.x == 2)
        #expect(held.first?.touches.first?.coalesced?.map(\.location.x) == [1])
        let notYet = f.caughtUp(queued: limit / 8 + 1)
        #expect(!notYet)
        #expect(f.state == .catchingUp)
        let caught = f.caughtUp(queued: limit / 8)
        #expect(caught)
        #expect(f.state == .normal)
        #expect(!f.holdsFrames)
    }

    @Test func aFrameThatEndsATouchGoesAtOnceWithTheHeldMovesMergedIntoIt() {
        var f = ClientFlow(limit: limit)
        _ = f.offer(queued: limit / 2, now: 0)
        var out: [Message] = []
        f.hold(frame(10, .moved, x: 1), now: 10, into: &out)
        f.hold(frame(20, .ended, x: 2), now: 20, into: &out)
        #expect(frames(out).map(\.0) == [.ended])
        if case .frame(let e) = out.first { #expect(e.touches[0].coalesced?.map(\.location.x) == [1]) }
    }

    @Test func anyOtherMessageReleasesWhatIsHeldFirst() {
        var f = ClientFlow(limit: limit)
        f.setRate(10, was: nil)
        var out: [Message] = []
        f.hold(frame(0, .moved, x: 1), now: 0, into: &out)   // the first goes: nothing delivered yet
        out.removeAll()
        f.hold(frame(10_000, .moved, x: 2), now: 10_000, into: &out)
        #expect(out.isEmpty)
        f.hold(control(20_000), now: 20_000, into: &out)
        #expect(out.count == 2)
        #expect(frames([out[0]]).map(\.1) == [2])
        if case .control = out[1] {} else { Issue.record("the control event after the held frame") }
    }

    @Test func aMaxRateHoldsMovesUntilTheirTimeComes() {
        var f = ClientFlow(limit: limit)
        f.setRate(10, was: nil)   // 100 ms
        #expect(f.state == .paced)
        var out: [Message] = []
        f.hold(frame(0, .moved, x: 1), now: 0, into: &out)
        #expect(frames(out).map(\.1) == [1])
        out.removeAll()
        f.hold(frame(30_000, .moved, x: 2), now: 30_000, into: &out)
        f.hold(frame(60_000, .moved, x: 3), now: 60_000, into: &out)
        #expect(out.isEmpty)
        #expect(f.deadline == 100_000)
        var due: [FrameMessage] = []
        f.due(now: 99_999, into: &due)
        #expect(due.isEmpty)
        f.due(now: 100_000, into: &due)
        #expect(due.map { $0.touches[0].location.x } == [3])
        #expect(f.deadline == nil)
    }

    @Test func anUnchangedRateKeepsWhatIsHeldAndANewOneStartsAfresh() {
        var f = ClientFlow(limit: limit)
        f.setRate(10, was: nil)
        var out: [Message] = []
        f.hold(frame(0, .moved, x: 1), now: 0, into: &out)
        f.hold(frame(30_000, .moved, x: 2), now: 30_000, into: &out)
        f.setRate(10, was: 10)
        #expect(f.deadline == 100_000)
        f.setRate(nil, was: 10)
        #expect(f.state == .normal)
        #expect(f.deadline == nil)
    }

    @Test func aPacedClientThatOverflowsIsPacedAgainAfterItsResync() {
        var f = ClientFlow(limit: limit)
        f.setRate(30, was: nil)
        // A paced client never starts catching up: it already holds its frames.
        let (v1, n1) = f.offer(queued: limit / 2, now: 0)
        #expect(v1 == .queue && n1 == nil)
        let (v2, n2) = f.offer(queued: limit, now: 1)
        #expect(v2 == .drop && n2 == .dropping)
        let count = f.resync(queued: 0)
        #expect(count == 1)
        #expect(f.state == .paced)
        var held: [FrameMessage] = []
        let released = f.release(queued: 0, into: &held)
        #expect(!released)
    }

    @Test func theShutdownResyncsADroppingClientTrimsABehindOneAndSendsHeldFramesOtherwise() {
        var dropping = ClientFlow(limit: limit)
        _ = dropping.offer(queued: limit, now: 0)
        var held: [FrameMessage] = []
        let d = dropping.shutdown(queued: limit, held: &held)
        #expect(d == .resync(dropped: 1))
        #expect(dropping.state != .dropping(1))

        var behind = ClientFlow(limit: limit)
        let b = behind.shutdown(queued: limit / 4 + 1, held: &held)
        #expect(b == .dropStaleMoves)

        var paced = ClientFlow(limit: limit)
        paced.setRate(10, was: nil)
        var out: [Message] = []
        paced.hold(frame(0, .moved, x: 1), now: 0, into: &out)
        paced.hold(frame(10_000, .moved, x: 2), now: 10_000, into: &out)
        held.removeAll()
        let p = paced.shutdown(queued: 1, held: &held)
        #expect(p == .sendHeld)
        #expect(held.map { $0.touches[0].location.x } == [2])
    }
}
