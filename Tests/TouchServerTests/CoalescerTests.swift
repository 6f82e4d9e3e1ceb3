import Testing
import TouchCore
@testable import TouchServer

@Suite struct CoalescerTests {
    func record(_ id: Int, _ phase: Phase, x: Double, t: Int64, previous: Double? = nil) -> TouchRecord {
        TouchRecord(id: id, phase: phase, window: nil, view: nil, location: Point(x, 0), previous: Point(previous ?? x, 0), locationInView: Point(x, 0),
                    timestamp: t, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
    }

    func frame(_ seq: Int, _ t: Int64, _ touches: [TouchRecord], device: String = "d") -> FrameMessage {
        FrameMessage(seq: seq, time: t, device: device, touches: touches,
                     calls: [Call(responder: ResponderIndex(0), phase: touches[0].phase, touches: touches.map(\.id))])
    }

    /// One finger: down at 0, a move every 10 ms for a second, up.
    func drag() -> [FrameMessage] {
        var out = [frame(1, 0, [record(1, .began, x: 0, t: 0)])]
        for k in 1...100 {
            let t = Int64(k) * 10_000
            out.append(frame(k + 1, t, [record(1, .moved, x: Double(k), t: t, previous: Double(k - 1))]))
        }
        out.append(frame(102, 1_010_000, [record(1, .ended, x: 100, t: 1_010_000)]))
        return out
    }

    @Test func atMostTheRateAndEverySkippedSampleInCoalesced() {
        var c = Coalescer(maxRate: 25)   // 40 ms
        var delivered: [(FrameMessage, Int64)] = []
        var out: [FrameMessage] = []
        for f in drag() {
            // Time passes: what is due goes before the next frame arrives.
            out.removeAll()
            c.due(now: f.time, into: &out)
            delivered += out.map { ($0, f.time) }
            out.removeAll()
            c.add(f, now: f.time, into: &out)
            delivered += out.map { ($0, f.time) }
        }
        let phases = delivered.map { $0.0.touches[0].phase }
        #expect(phases.first == .began && phases.last == .ended)
        #expect(phases.filter { $0 == .began }.count == 1 && phases.filter { $0 == .ended }.count == 1)
        // Moves: about one frame every 40 ms over a second, never two closer than that (the
        // end goes at once, with the last moves merged into it).
        let moves = delivered.filter { $0.0.touches[0].phase == .moved }
        #expect(moves.count >= 24 && moves.count <= 26, "\(moves.count)")
        for (a, b) in zip(moves, moves.dropFirst()) { #expect(b.1 - a.1 >= 40_000, "\(moves.map(\.1))") }
        // Every sample exactly once: delivered locations with their coalesced ones, in order.
        var samples: [Double] = []
        for (f, _) in delivered {
            let t = f.touches[0]
            samples += (t.coalesced ?? []).map(\.location.x)
            samples.append(t.location.x)
        }
        let expected: [Double] = [0] + (1...100).map(Double.init) + [100]   // apart: too much for Swift 6.0's type checker inside #expect
        #expect(samples == expected)
        // A delivered move's previous is where the client last saw the touch.
        var seen = 0.0
        for (f, _) in delivered where f.touches[0].phase == .moved {
            #expect(f.touches[0].previous.x == seen)
            seen = f.touches[0].location.x
        }
        // The coalesced samples keep their own timestamps.
        let withSamples = moves.first { $0.0.touches[0].coalesced != nil }!.0.touches[0]
        #expect(withSamples.coalesced!.map(\.timestamp) == withSamples.coalesced!.map { Int64($0.location.x) * 10_000 })
    }

    @Test func aBeganOrEndIsNeverMergedAndWhatIsHeldGoesFirst() {
        var c = Coalescer(maxRate: 10)
        var out: [FrameMessage] = []
        c.add(frame(1, 0, [record(1, .began, x: 0, t: 0)]), now: 0, into: &out)
        #expect(out.map(\.seq) == [1])
        out.removeAll()
        c.add(frame(2, 10_000, [record(1, .moved, x: 1, t: 10_000)]), now: 10_000, into: &out)
        c.add(frame(3, 20_000, [record(1, .moved, x: 2, t: 20_000)]), now: 20_000, into: &out)
        #expect(out.isEmpty)                       // held: 100 ms have not passed
        // A second finger lands: its frame goes at once, the held moves merged into it (the
        // first finger moved, to 2, through 1).
        c.add(frame(4, 30_000, [record(1, .stationary, x: 2, t: 20_000), record(2, .began, x: 50, t: 30_000)]), now: 30_000, into: &out)
        #expect(out.map(\.seq) == [4])
        #expect(out[0].touches.map(\.phase) == [.moved, .began])
        #expect(out[0].touches[0].coalesced?.map(\.location.x) == [1] && out[0].touches[0].location.x == 2)
        // Another message (a control event) releases what is held: the server asks release().
        out.removeAll()
        c.add(frame(5, 40_000, [record(1, .moved, x: 3, t: 40_000), record(2, .stationary, x: 50, t: 30_000)]), now: 40_000, into: &out)
        #expect(out.isEmpty)
        c.release(into: &out)
        #expect(out.map(\.seq) == [5])
    }

    @Test func aTouchThatMovedInAHeldFrameAndNotSinceStillMoved() {
        let held = frame(2, 10_000, [record(1, .moved, x: 5, t: 10_000, previous: 1)])
        let next = frame(3, 20_000, [record(1, .stationary, x: 5, t: 10_000), record(2, .moved, x: 9, t: 20_000, previous: 8)])
        let m = Coalescer.merge(held, next)
        #expect(m.seq == 3)
        #expect(m.touches[0].phase == .moved && m.touches[0].previous.x == 1 && m.touches[0].coalesced == nil)
        #expect(m.touches[1].phase == .moved && m.touches[1].previous.x == 8)
        // Calls of both, each responder and phase once, touches together.
        #expect(m.calls.count == 2)
    }

    /// A held began and the move that follows it in the same delivery (issue 43, item 2;
    /// messages.md): the began goes at once, the move is a move like any other — held, then
    /// merged with the touch's next move (its sample in `coalesced`, `previous` the touch-down's),
    /// or into the end when the finger has lifted.
    @Test func aHeldBeganGoesAtOnceAndItsMoveIsHeldLikeAnyOther() {
        var c = Coalescer(maxRate: 25)   // 40 ms
        var out: [FrameMessage] = []
        c.add(frame(1, 150_000, [record(1, .began, x: 100, t: 0)]), now: 150_000, into: &out)
        c.add(frame(2, 150_000, [record(1, .moved, x: 103, t: 50_000, previous: 100)]), now: 150_000, into: &out)
        #expect(out.map(\.seq) == [1])
        out.removeAll()
        c.add(frame(3, 170_000, [record(1, .moved, x: 104, t: 170_000, previous: 103)]), now: 170_000, into: &out)
        #expect(out.isEmpty)
        c.due(now: 190_000, into: &out)
        #expect(out.map(\.seq) == [3])
        let moved = out.first?.touches.first
        #expect(moved?.location.x == 104)
        #expect(moved?.previous.x == 100)
        #expect(moved?.coalesced?.map(\.location.x) == [103])
        #expect(moved?.coalesced?.first?.timestamp == 50_000)
        // The finger had lifted: the end that follows carries the move in `coalesced`.
        var d = Coalescer(maxRate: 25)
        out.removeAll()
        d.add(frame(1, 150_000, [record(1, .began, x: 100, t: 0)]), now: 150_000, into: &out)
        d.add(frame(2, 150_000, [record(1, .moved, x: 103, t: 120_000, previous: 100)]), now: 150_000, into: &out)
        d.add(frame(3, 150_000, [record(1, .ended, x: 103, t: 120_000)]), now: 150_000, into: &out)
        #expect(out.map(\.seq) == [1, 3])
        #expect(out.last?.touches.first?.phase == .ended)
        #expect(out.last?.touches.first?.coalesced?.map(\.location.x) == [103])
    }
}
