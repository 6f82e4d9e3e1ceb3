import Testing
@testable import TouchCore

/// An output's session as a transition table (issue 44, item 1): every state — with the data
/// that matters (contacts delivered, swallowed, keepers) — against every kind of input, written
/// from interface.md's "Kiosk session", not from the code's output. Idle after 100 µs here.
@Suite struct SessionTransitionTableTests {
    static let a = ContactKey(device: DeviceIndex(0), slot: 0)
    static let b = ContactKey(device: DeviceIndex(0), slot: 1)
    static let c = ContactKey(device: DeviceIndex(0), slot: 2)
    static let swallow = SessionSettings(idle: 100, wake: .swallow)

    static func m(_ s: SessionState, d: Set<ContactKey> = [], s sw: Set<ContactKey> = [], k: Set<Int> = [],
                  settings: SessionSettings = swallow) -> SessionMachine {
        SessionMachine(settings: settings, state: s, delivered: d, swallowed: sw, keepers: k)
    }

    // The states walked.
    static let A0 = m(.awake(since: 0))
    static let A1 = m(.awake(since: 0), d: [a])
    static let I0 = m(.idle)
    static let I1 = m(.idle, d: [a])
    static let I2 = m(.idle, s: [a])                 // idle asked while a waking touch was down
    static let W1 = m(.waking, s: [a])
    static let W2 = m(.waking, d: [b], s: [a])
    static let K = m(.awake(since: 0), k: [1])
    static let KI = m(.idle, k: [1])

    // The inputs, each kind once: a new finger, the known one moving and lifting, an unknown one
    // lifting, the clock at and before the deadline, the requests, a keeper on and off.
    static let inputs: [SessionInput] = [.down(c, 50), .moved(a, 50), .up(a, 50), .up(c, 50), .timer(100), .timer(99),
                                         .idleRequested, .wakeRequested(50), .keepAwake(client: 1, on: true, 50),
                                         .keepAwake(client: 1, on: false, 50)]

    typealias Row = (SessionMachine, SessionAction)
    /// Per state, the outcome of each input above, in order.
    static let table: [(SessionMachine, [Row])] = [
        (A0, [(m(.awake(since: 50), d: [c]), []), (m(.awake(since: 50)), []), (m(.awake(since: 50)), []), (m(.awake(since: 50)), []),
              (I0, [.idle]), (A0, []), (I0, [.idle]), (m(.awake(since: 50)), []), (m(.awake(since: 0), k: [1]), []), (A0, [])]),
        (A1, [(m(.awake(since: 50), d: [a, c]), []), (m(.awake(since: 50), d: [a]), []), (m(.awake(since: 50)), []), (m(.awake(since: 50), d: [a]), []),
              (A1, []), (A1, []), (I1, [.idle]), (m(.awake(since: 50), d: [a]), []), (m(.awake(since: 0), d: [a], k: [1]), []), (A1, [])]),
        (I0, [(m(.waking, s: [c]), [.wake, .swallow]), (I0, []), (I0, []), (I0, []),
              (I0, []), (I0, []), (I0, []), (m(.awake(since: 50)), [.wake]), (m(.awake(since: 50), k: [1]), [.wake]), (I0, [])]),
        (I1, [(m(.waking, d: [a], s: [c]), [.wake, .swallow]), (I1, []), (I0, []), (I1, []),
              (I1, []), (I1, []), (I1, []), (m(.awake(since: 50), d: [a]), [.wake]), (m(.awake(since: 50), d: [a], k: [1]), [.wake]), (I1, [])]),
        (I2, [(m(.waking, s: [a, c]), [.wake, .swallow]), (I2, [.swallow]), (I0, [.swallow]), (I2, []),
              (I2, []), (I2, []), (I2, []), (W1, [.wake]), (m(.waking, s: [a], k: [1]), [.wake]), (I2, [])]),
        (W1, [(m(.waking, s: [a, c]), [.swallow]), (W1, [.swallow]), (m(.awake(since: 50)), [.swallow]), (W1, []),
              (W1, []), (W1, []), (I2, [.idle]), (W1, []), (m(.waking, s: [a], k: [1]), []), (W1, [])]),
        (W2, [(m(.waking, d: [b], s: [a, c]), [.swallow]), (W2, [.swallow]), (m(.awake(since: 50), d: [b]), [.swallow]), (W2, []),
              (W2, []), (W2, []), (m(.idle, d: [b], s: [a]), [.idle]), (W2, []), (m(.waking, d: [b], s: [a], k: [1]), []), (W2, [])]),
        (K, [(m(.awake(since: 50), d: [c], k: [1]), []), (m(.awake(since: 50), k: [1]), []), (m(.awake(since: 50), k: [1]), []), (m(.awake(since: 50), k: [1]), []),
             (K, []), (K, []), (KI, [.idle]), (m(.awake(since: 50), k: [1]), []), (K, []), (m(.awake(since: 50)), [])]),
        (KI, [(m(.waking, s: [c], k: [1]), [.wake, .swallow]), (KI, []), (KI, []), (KI, []),
              (KI, []), (KI, []), (KI, []), (m(.awake(since: 50), k: [1]), [.wake]), (m(.awake(since: 50), k: [1]), [.wake]), (I0, [])]),
    ]

    @Test func everyStateAgainstEveryInput() {
        var walked = 0
        for (from, rows) in Self.table {
            #expect(rows.count == Self.inputs.count)
            for (input, (to, actions)) in zip(Self.inputs, rows) {
                var s = from
                let got = s.next(input)
                #expect(s == to && got == actions, "\(from) + \(input): \(s), \(got); expected \(to), \(actions)")
                walked += 1
            }
        }
        // Every state of the enum is among those walked.
        #expect(Self.table.contains { $0.0.state == .idle } && Self.table.contains { $0.0.state == .waking }
                && Self.table.contains { if case .awake = $0.0.state { return true }; return false })
        #expect(walked == 90)
    }

    /// `"wake": "deliver"`: the waking touch goes on as usual.
    @Test func deliverWakesWithoutSwallowing() {
        let deliver = SessionSettings(idle: 100, wake: .deliver)
        var s = Self.m(.idle, settings: deliver)
        #expect(s.next(.down(Self.c, 50)) == [.wake])
        #expect(s == Self.m(.awake(since: 50), d: [Self.c], settings: deliver))
    }

    /// No `idle`: only a request makes it idle.
    @Test func noIdleTimeNoDeadline() {
        var s = Self.m(.awake(since: 0), settings: SessionSettings(idle: nil))
        #expect(s.deadline == nil)
        #expect(s.next(.timer(1_000_000_000)) == [])
        #expect(s.next(.idleRequested) == [.idle])
    }

    /// The deadline: since + idle, only while awake with nothing down and no keeper.
    @Test func deadlines() {
        #expect(Self.A0.deadline == 100)
        #expect(Self.A1.deadline == nil && Self.K.deadline == nil && Self.I0.deadline == nil && Self.W1.deadline == nil)
        var gone = Self.W2
        gone.forget(device: DeviceIndex(0), at: 70)
        #expect(gone == Self.m(.awake(since: 70)))
    }
}
