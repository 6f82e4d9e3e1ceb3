import Testing
@testable import TouchCore

/// Each recognizer kind's state machine as a transition table (issue 41): for every state the
/// recognizer can be in (possible, still deciding; began or changed, under way; a terminal one)
/// and every input (a finger landing, moving a little, moving far, lifting, cancelled, a timer),
/// the request it makes of the arbiter. The arbiter moves the phase as the request says (as
/// GestureArbiter does: begin → began, recognize → recognized …), so a row is reached by feeding
/// the recognizer what a real touch sequence would.
@Suite struct GestureTransitionTableTests {
    enum Input: String, CustomStringConvertible {
        case land, nudge, far, lift, cancel, timer
        var description: String { rawValue }
    }

    /// A recognizer of `kind`, driven to `phase` with one finger (two for pinch and rotation)
    /// down at (400, 240), or near the left edge for a screen-edge pan.
    struct Driver {
        var g: GestureRecognizer
        var time: Int64 = 1_000_000
        let two: Bool
        let origin: Point
        var fingers: [Int: Point] = [:]

        init(_ kind: GestureSettings.Kind) {
            var s = GestureSettings(id: "g", kind: kind)
            s.delaysTouchesEnded = false
            g = GestureRecognizer(RecognizerConfig(settings: s, view: ViewIndex(0)))
            switch kind {
            case .pinch, .rotation: two = true
            default: two = false
            }
            if case .screenEdgePan = kind { origin = Point(5, 240) } else { origin = Point(400, 240) }
        }

        /// Feeds touches and moves the phase as the arbiter would for the request.
        mutating func feed(_ t: [GestureTouch]) -> GestureRequest {
            time += 16_000
            for x in t {
                switch x.phase {
                case .began, .moved, .stationary: fingers[x.id] = x.location
                case .ended, .cancelled: fingers[x.id] = nil
                }
            }
            let r = g.update(t, time: time)
            apply(r)
            return r
        }

        /// The recognizer's timer, when it has one (the engine fires only those that are set).
        mutating func fire() -> GestureRequest {
            guard let due = g.state.deadline else { return .none }
            time = max(time, due) + 1
            let r = g.timerFired(time: time)
            apply(r)
            return r
        }

        mutating func apply(_ r: GestureRequest) {
            switch r {
            case .begin: g.state.phase = .began
            case .change: g.state.phase = .changed
            case .end: g.state.phase = .ended
            case .cancel: g.state.phase = .cancelled
            case .fail: g.state.phase = .failed
            case .recognize: g.state.phase = .recognized
            case .none: break
            }
        }

        func touch(_ id: Int, _ phase: Phase, _ p: Point) -> GestureTouch { GestureTouch(id: id, phase: phase, location: p) }

        /// Fingers down (the state `possible`, fingers down).
        mutating func down() {
            _ = feed([touch(1, .began, origin)] + (two ? [touch(2, .began, origin + Point(60, 0))] : []))
        }

        /// Fingers moved far enough, for long enough, that a continuous kind began.
        mutating func underWay() {
            down()
            if case .longPress = g.config.kind { _ = fire(); return }
            for k in 1...4 {
                let d = Double(k) * 12
                _ = feed([touch(1, .moved, origin + Point(d, 0))] + (two ? [touch(2, .moved, origin + Point(60 + 2 * d, 2 * d))] : []))
            }
        }

        /// The input, to whatever fingers are down.
        mutating func send(_ input: Input) -> GestureRequest {
            let ids = fingers.keys.sorted()
            switch input {
            case .land: return feed([touch(9, .began, origin + Point(0, 30))])
            case .nudge: return feed(ids.map { touch($0, .moved, fingers[$0]! + Point(2, 0)) })
            case .far: return feed(ids.map { touch($0, .moved, fingers[$0]! + Point(120, 0)) })
            case .lift: return feed(ids.map { touch($0, .ended, fingers[$0]!) })
            case .cancel: return feed(ids.map { touch($0, .cancelled, fingers[$0]!) })
            case .timer: return fire()
            }
        }
    }

    /// A table's rows: (state, input, request). States: "possible" (fingers down, deciding),
    /// "underWay" (a continuous one began), "failed" (a terminal state).
    typealias Row = (state: String, input: Input, request: GestureRequest)

    func check(_ kind: GestureSettings.Kind, _ rows: [Row], sourceLocation: SourceLocation = #_sourceLocation) {
        for row in rows {
            var d = Driver(kind)
            switch row.state {
            case "possible": d.down()
            case "underWay":
                d.underWay()
                #expect(d.g.active, "\(kind): not under way before \(row.input)", sourceLocation: sourceLocation)
            case "failed":
                d.down()
                d.g.state.phase = .failed
            default: Issue.record("no state \(row.state)", sourceLocation: sourceLocation)
            }
            let got = d.send(row.input)
            #expect(got == row.request, "\(kind) \(row.state) + \(row.input): \(got), expected \(row.request)", sourceLocation: sourceLocation)
        }
    }

    /// Every terminal state ignores every input: it only counts its fingers until they lift.
    static let terminal: [Row] = Input.allCases.map { ("failed", $0, .none) }

    @Test func tap() {
        check(.tap(GestureSettings.Tap()), [
            ("possible", .land, .fail),          // more touches than it takes
            ("possible", .nudge, .none),         // within its movement tolerance
            ("possible", .far, .fail),
            ("possible", .lift, .recognize),
            ("possible", .cancel, .fail),
            ("possible", .timer, .none),         // no deadline while the finger is down
        ] + Self.terminal)
        var double = GestureSettings.Tap()
        double.taps = 2
        var d = Driver(.tap(double))
        d.down()
        #expect(d.send(.lift) == .none)          // the first of two taps
        #expect(d.send(.timer) == .fail)         // no second tap in time
    }

    @Test func longPress() {
        check(.longPress(GestureSettings.LongPress()), [
            ("possible", .land, .fail),
            ("possible", .nudge, .none),
            ("possible", .far, .fail),
            ("possible", .lift, .fail),          // lifted before the press was long enough
            ("possible", .cancel, .fail),
            ("possible", .timer, .begin),        // held for minimumDuration
            ("underWay", .nudge, .change),
            ("underWay", .far, .change),         // once begun, movement is a change
            ("underWay", .lift, .end),
            ("underWay", .cancel, .cancel),
        ] + Self.terminal)
    }

    @Test func pan() {
        check(.pan(GestureSettings.Pan()), [
            ("possible", .land, .none),
            ("possible", .nudge, .none),         // within the hysteresis
            ("possible", .far, .begin),
            ("possible", .lift, .fail),
            ("possible", .cancel, .fail),
            ("possible", .timer, .none),
            ("underWay", .land, .none),          // a finger joining keeps the translation
            ("underWay", .nudge, .change),
            ("underWay", .far, .change),
            ("underWay", .lift, .end),
            ("underWay", .cancel, .cancel),      // cancelled, not ended: a device unplugged mid-pan
            ("underWay", .timer, .none),
        ] + Self.terminal)
    }

    @Test func swipe() {
        check(.swipe(GestureSettings.Swipe()), [
            ("possible", .land, .fail),
            ("possible", .nudge, .none),
            ("possible", .far, .recognize),      // 120 points right in 16 ms
            ("possible", .lift, .fail),
            ("possible", .cancel, .fail),
            ("possible", .timer, .fail),         // maximumDuration passed
        ] + Self.terminal)
        var left = GestureSettings.Swipe()
        left.directions = [.left]
        check(.swipe(left), [("possible", .far, .fail)])   // the wrong direction
    }

    @Test func pinchAndRotation() {
        for kind in [GestureSettings.Kind.pinch, .rotation] {
            check(kind, [
                ("possible", .land, .fail),      // a third finger
                ("possible", .nudge, .none),
                ("possible", .lift, .fail),
                ("possible", .cancel, .fail),
                ("underWay", .far, .change),
                ("underWay", .lift, .end),       // both fingers lifted
                ("underWay", .cancel, .cancel),
                ("underWay", .timer, .none),
            ] + Self.terminal)
        }
        // With one finger of two lifted it holds (UIKit goes on until every finger is up).
        var d = Driver(.pinch)
        d.underWay()
        #expect(d.feed([GestureTouch(id: 2, phase: .ended, location: d.fingers[2]!)]) == .none)
        #expect(d.g.active)
    }

    @Test func screenEdgePan() {
        var s = GestureSettings.ScreenEdgePan()
        s.edges = [.left]
        check(.screenEdgePan(s), [
            ("possible", .far, .begin),          // away from the left edge
            ("possible", .lift, .fail),
            ("possible", .cancel, .fail),
            ("underWay", .nudge, .change),
            ("underWay", .lift, .end),
            ("underWay", .cancel, .cancel),
        ] + Self.terminal)
        // A finger that lands away from every edge it watches fails at once.
        var right = GestureSettings.ScreenEdgePan()
        right.edges = [.right]
        var d = Driver(.screenEdgePan(right))
        #expect(d.feed([GestureTouch(id: 1, phase: .began, location: Point(5, 240))]) == .fail)
    }
}

extension GestureTransitionTableTests.Input: CaseIterable {}
