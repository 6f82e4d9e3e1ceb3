import Testing
@testable import TouchCore

/// A touch's life for the views as a transition table (issue 41): every state against every
/// kind of input, and what the views see. Written from the rules (docs/messages.md, "What frame
/// shows when recognizers are involved"), not from the code's output.
@Suite struct TouchLifeTableTests {
    typealias I = TouchLife.Input
    static func step(_ finger: Phase, taken: Bool = false, holdsBegan: Bool = false, holdsEnded: Bool = false,
                     done: Bool = false, own: Bool = false) -> I {
        .deliver(finger: finger, taken: taken, holdsBegan: holdsBegan, holdsEnded: holdsEnded, fingerDone: done, ownReason: own)
    }

    static let rows: [(TouchLife, I, TouchLife, TouchLife.Action)] = [
        // Not delivered yet: a recognizer that delays began holds it, one that took it hides it.
        (.pending, step(.moved), .active, .deliver(.began)),
        (.pending, step(.moved, holdsBegan: true), .pending, .none),
        (.pending, step(.moved, taken: true), .gone, .none),
        (.pending, step(.ended, done: true), .endHeld, .deliver(.began)),     // its end follows
        (.pending, step(.stationary, done: true), .endHeld, .deliver(.began)),
        (.pending, step(.cancelled), .endHeld, .deliver(.began)),
        // Delivered, finger down.
        (.active, step(.moved), .active, .deliver(.moved)),
        (.active, step(.stationary), .active, .deliver(.stationary)),
        (.active, step(.moved, taken: true), .gone, .cancelByGesture),
        (.active, step(.cancelled), .gone, .cancel),
        (.active, step(.ended), .gone, .deliver(.ended)),
        (.active, step(.ended, holdsEnded: true), .endHeld, .deliver(.stationary)),   // delaysTouchesEnded
        // Finger up, its end held.
        (.endHeld, step(.stationary, holdsEnded: true), .endHeld, .deliver(.stationary)),
        (.endHeld, step(.stationary), .gone, .deliver(.ended)),
        (.endHeld, step(.stationary, taken: true), .gone, .cancelByGesture),
        (.endHeld, step(.stationary, holdsEnded: true, own: true), .gone, .cancel),
        // Over for the views: nothing more.
        (.gone, step(.moved), .gone, .none),
        (.gone, step(.ended, taken: true), .gone, .none),
        // Its view, window or place went: the views were told, or never knew.
        (.pending, .unbound, .gone, .none),
        (.active, .unbound, .gone, .none),
        (.endHeld, .unbound, .gone, .none),
        (.gone, .unbound, .gone, .none),
        // Its device went: a held end is cancelled, a held began of a lifted finger goes quietly.
        (.endHeld, .deviceRemoved(fingerDone: true), .endHeld, .cancelHeldEnd),
        (.pending, .deviceRemoved(fingerDone: true), .gone, .settle),
        (.pending, .deviceRemoved(fingerDone: false), .pending, .none),
        (.active, .deviceRemoved(fingerDone: false), .active, .none),
        (.gone, .deviceRemoved(fingerDone: true), .gone, .none),
        // A began released after its finger lifted: its end at once, unless still held.
        (.endHeld, .beganAfterLift(holdsEnded: false, ownReason: false), .gone, .deliver(.ended)),
        (.endHeld, .beganAfterLift(holdsEnded: false, ownReason: true), .gone, .cancel),
        (.endHeld, .beganAfterLift(holdsEnded: true, ownReason: false), .endHeld, .none),
        (.active, .beganAfterLift(holdsEnded: false, ownReason: false), .active, .none),
        (.pending, .beganAfterLift(holdsEnded: false, ownReason: false), .pending, .none),
        (.gone, .beganAfterLift(holdsEnded: false, ownReason: false), .gone, .none),
    ]

    @Test func everyRow() {
        for (from, input, to, action) in Self.rows {
            let (s, a) = TouchLife.next(from, input)
            #expect(s == to && a == action, "\(from) + \(input): \(s), \(a); expected \(to), \(action)")
        }
    }

    /// Every state meets every kind of input in the table.
    @Test func theTableNamesEveryStateAndInputKind() {
        func kind(_ i: I) -> String {
            switch i {
            case .deliver: return "deliver"
            case .unbound: return "unbound"
            case .deviceRemoved: return "deviceRemoved"
            case .beganAfterLift: return "beganAfterLift"
            }
        }
        let pairs = Set(Self.rows.map { "\($0.0) \(kind($0.1))" })
        for s in TouchLife.allCases {
            for k in ["deliver", "unbound", "deviceRemoved", "beganAfterLift"] { #expect(pairs.contains("\(s) \(k)"), "no row for \(s) + \(k)") }
        }
    }

    /// The touch applies its action's reason: a recognizer's take is reason gesture, a device
    /// gone under a held end device-removed.
    static func fresh() -> LiveTouch {
        LiveTouch(id: 1, device: DeviceIndex(0), slot: 0, window: nil, view: ViewIndex(1), phase: .moved,
                  location: .zero, previous: .zero, start: .zero, tapCount: 1, pressure: nil, major: nil,
                  tool: .finger, windowOrigin: .zero, beganAt: 0, changedAt: 0)
    }

    @Test func reasonsComeWithTheirActions() {
        var t = Self.fresh()
        #expect(t.live(Self.step(.moved)) == .deliver(.began))
        #expect(t.live(Self.step(.moved, taken: true)) == .cancelByGesture)
        #expect(t.reason == .gesture && t.viewState == .gone)
        var u = Self.fresh()
        u.reach(.endHeld)
        #expect(u.live(.deviceRemoved(fingerDone: true)) == .cancelHeldEnd)
        #expect(u.reason == .deviceRemoved)
    }
}
