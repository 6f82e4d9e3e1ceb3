import Testing
@testable import TouchCore

/// The system gestures' machines as transition tables (issue 44, item 2): each state of each
/// kind against each kind of input, written from docs/config.md's "Kiosk sessions" rules (a
/// tap's finger may move 45 points, a long press's 10; an edge swipe starts within 20 points of
/// its edge), not from the code's output.
@Suite struct SystemGestureTransitionTableTests {
    static let a = ContactKey(device: DeviceIndex(0), slot: 0)
    static let b = ContactKey(device: DeviceIndex(0), slot: 1)
    static let c = ContactKey(device: DeviceIndex(0), slot: 2)

    // MARK: tap — 2 taps of 1 finger within 1000 µs, in [0, 0, 100, 100]

    static let P = Point(10, 10), Q = Point(500, 300), near = Point(20, 10), far = Point(80, 10)
    static let region = Rect(0, 0, 100, 100)

    static func tap(_ s: TapWatch, _ i: WatchInput) -> (TapWatch, Int64?) {
        var recognized: Int64?
        let next = SystemGestureWatcher.tap(s, i, taps: 2, touches: 1, within: 1000, region: region, into: &recognized)
        return (next, recognized)
    }

    static let tapInputs: [WatchInput] = [.down(b, P, 50), .down(b, Q, 50), .moved(a, near, 50), .moved(a, far, 50),
                                          .up(a, P, 50), .up(a, far, 50), .cancelled(a, 50), .timer(1000), .timer(999)]
    static let T1 = TapWatch.tapping(TapProgress(deadline: 1000, taps: 0, down: [a: P], most: 1))
    static let T2 = TapWatch.tapping(TapProgress(deadline: 1000, taps: 1, down: [:], most: 0))
    static let T3 = TapWatch.failed(down: [a])
    static let tapTable: [(TapWatch, [TapWatch])] = [
        (.ready, [.tapping(TapProgress(deadline: 1050, taps: 0, down: [b: P], most: 1)), .failed(down: [b]), .ready, .ready,
                  .ready, .ready, .ready, .ready, .ready]),
        // A second finger is one too many; outside the region fails; 45 points of travel allowed.
        (T1, [.failed(down: [a, b]), .failed(down: [a, b]), T1, .failed(down: [a]),
              T2, .ready, .ready, .failed(down: [a]), T1]),
        // Between the taps: the next finger starts the second.
        (T2, [.tapping(TapProgress(deadline: 1000, taps: 1, down: [b: P], most: 1)), .failed(down: [b]), T2, T2,
              T2, T2, T2, .ready, T2]),
        (T3, [.failed(down: [a, b]), .failed(down: [a, b]), T3, T3, .ready, .ready, .ready, T3, T3]),
    ]

    @Test func tapTable() {
        for (from, outcomes) in Self.tapTable {
            for (input, to) in zip(Self.tapInputs, outcomes) {
                let (s, recognized) = Self.tap(from, input)
                #expect(s == to && recognized == nil, "\(from) + \(input): \(s) \(String(describing: recognized)); expected \(to)")
            }
        }
        #expect(Self.tapTable.count * Self.tapInputs.count == 36)
    }

    @Test func theLastTapsLiftRecognizes() {
        let second = TapWatch.tapping(TapProgress(deadline: 1000, taps: 1, down: [Self.a: Self.P], most: 1))
        let (s, recognized) = Self.tap(second, .up(Self.a, Self.near, 400))
        #expect(s == .ready && recognized == 400)
        // Too late: the time was up before the lift.
        #expect(Self.tap(second, .up(Self.a, Self.P, 1001)) == (.ready, nil))
        // A tap of two fingers where one is asked for has failed at the second's touch-down;
        // two asked and one given: the tap does not count.
        var actions2: Int64?
        let one = TapWatch.tapping(TapProgress(deadline: 1000, taps: 0, down: [Self.a: Self.P], most: 1))
        #expect(SystemGestureWatcher.tap(one, .up(Self.a, Self.P, 50), taps: 1, touches: 2, within: 1000, region: nil, into: &actions2) == .ready)
        #expect(actions2 == nil)
    }

    // MARK: long press — 2 fingers for 500 µs

    static func press(_ s: PressWatch, _ i: WatchInput) -> (PressWatch, Int64?) {
        var recognized: Int64?
        return (SystemGestureWatcher.press(s, i, touches: 2, duration: 500, into: &recognized), recognized)
    }

    static let pressInputs: [WatchInput] = [.down(c, P, 50), .moved(a, near, 50), .moved(a, far, 50), .up(a, P, 50),
                                            .cancelled(a, 50), .timer(500), .timer(499)]
    static let P1 = PressWatch.gathering([a: P])
    static let P2 = PressWatch.pressing([a: P, b: P], deadline: 500)
    static let P3 = PressWatch.done([a])
    static let pressTable: [(PressWatch, [(PressWatch, Int64?)])] = [
        (.ready, [(.gathering([c: P]), nil), (.ready, nil), (.ready, nil), (.ready, nil), (.ready, nil), (.ready, nil), (.ready, nil)]),
        // 10 points of travel allowed (near is 10 away), 70 not; the second finger starts the time.
        (P1, [(.pressing([a: P, c: P], deadline: 550), nil), (P1, nil), (.done([a]), nil), (.ready, nil), (.ready, nil), (P1, nil), (P1, nil)]),
        (P2, [(.done([a, b, c]), nil), (P2, nil), (.done([a, b]), nil), (.done([b]), nil), (.done([b]), nil),
              (.done([a, b]), 500), (P2, nil)]),
        (P3, [(.done([a, c]), nil), (P3, nil), (P3, nil), (.ready, nil), (.ready, nil), (P3, nil), (P3, nil)]),
    ]

    @Test func longPressTable() {
        for (from, outcomes) in Self.pressTable {
            for (input, (to, recognized)) in zip(Self.pressInputs, outcomes) {
                let (s, got) = Self.press(from, input)
                #expect(s == to && got == recognized, "\(from) + \(input): \(s) \(String(describing: got)); expected \(to) \(String(describing: recognized))")
            }
        }
        #expect(Self.pressTable.count * Self.pressInputs.count == 28)
    }

    // MARK: edge swipe — from the left edge, 100 points, on 800 × 480

    static let L = Point(5, 200), M = Point(300, 200), in99 = Point(104, 200), in100 = Point(105, 200)
    static let bounds = Size(800, 480)

    static func edge(_ s: EdgeWatch, _ i: WatchInput) -> (EdgeWatch, Int64?) {
        var recognized: Int64?
        return (SystemGestureWatcher.edge(s, i, edge: .left, distance: 100, bounds: bounds, into: &recognized), recognized)
    }

    static let edgeInputs: [WatchInput] = [.down(b, L, 50), .down(b, M, 50), .moved(a, in99, 50), .moved(a, in100, 50),
                                           .moved(b, in100, 50), .up(a, L, 50), .cancelled(a, 50), .timer(50)]
    static let E1 = EdgeWatch.tracking(a, start: L)
    static let E2 = EdgeWatch.done([a])
    static let edgeTable: [(EdgeWatch, [(EdgeWatch, Int64?)])] = [
        (.ready, [(.tracking(b, start: L), nil), (.done([b]), nil), (.ready, nil), (.ready, nil), (.ready, nil), (.ready, nil), (.ready, nil), (.ready, nil)]),
        (E1, [(.done([a, b]), nil), (.done([a, b]), nil), (E1, nil), (E2, 50), (E1, nil), (.ready, nil), (.ready, nil), (E1, nil)]),
        (E2, [(.done([a, b]), nil), (.done([a, b]), nil), (E2, nil), (E2, nil), (E2, nil), (.ready, nil), (.ready, nil), (E2, nil)]),
    ]

    @Test func edgeSwipeTable() {
        for (from, outcomes) in Self.edgeTable {
            for (input, (to, recognized)) in zip(Self.edgeInputs, outcomes) {
                let (s, got) = Self.edge(from, input)
                #expect(s == to && got == recognized, "\(from) + \(input): \(s) \(String(describing: got)); expected \(to) \(String(describing: recognized))")
            }
        }
        #expect(Self.edgeTable.count * Self.edgeInputs.count == 24)
    }

    @Test func everyEdgesBandAndDirection() {
        let b = Size(800, 480)
        #expect(SystemGestureWatcher.inward(.left, from: Point(19.9, 100), to: Point(119.9, 100), bounds: b) == 100)
        #expect(SystemGestureWatcher.inward(.left, from: Point(20, 100), to: Point(200, 100), bounds: b) == nil)
        #expect(SystemGestureWatcher.inward(.right, from: Point(780, 100), to: Point(680, 100), bounds: b) == 100)
        #expect(SystemGestureWatcher.inward(.right, from: Point(779.9, 100), to: Point(600, 100), bounds: b) == nil)
        #expect(SystemGestureWatcher.inward(.top, from: Point(300, 0), to: Point(300, 50), bounds: b) == 50)
        #expect(SystemGestureWatcher.inward(.bottom, from: Point(300, 479), to: Point(300, 379), bounds: b) == 100)
        #expect(SystemGestureWatcher.inward(.bottom, from: Point(300, 459.9), to: Point(300, 300), bounds: b) == nil)
    }

    /// An output turning fails what was under way; each fails into waiting for its fingers.
    @Test func abandon() {
        var w = SystemGestureWatcher(name: "x", output: 0, kind: .tap(taps: 2, touches: 1, within: 1000, region: nil), state: .tap(Self.T1))
        w.abandon()
        #expect(w.state == .tap(.failed(down: [Self.a])) && w.deadline == nil)
        var p = SystemGestureWatcher(name: "y", output: 0, kind: .longPress(touches: 2, duration: 500), state: .longPress(Self.P2))
        #expect(p.deadline == 500)
        p.abandon()
        #expect(p.state == .longPress(.done([Self.a, Self.b])) && p.deadline == nil)
        var e = SystemGestureWatcher(name: "z", output: 0, kind: .edgeSwipe(edge: .left, distance: 100), state: .edgeSwipe(Self.E1))
        e.abandon()
        #expect(e.state == .edgeSwipe(Self.E2))
    }
}
