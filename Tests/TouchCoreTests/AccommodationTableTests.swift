import Testing
@testable import TouchCore

/// The touch accommodations' per-contact state machine as a transition table (issue 46, item 3):
/// every state against every kind of input, written from iOS's rules (Accommodations.swift,
/// docs/config.md "Touch accommodations"), not from the code's output.
@Suite struct AccommodationTableTests {
    typealias S = AccommodationState
    typealias A = AccommodationAction
    static let h: Int64 = 300_000, g: Int64 = 500_000, r: Int64 = 500_000, t0: Int64 = 1_000
    static let s0 = ContactSample(x: 10, y: 10), s1 = ContactSample(x: 50, y: 50), s2 = ContactSample(x: 90, y: 90)
    static let hold = AccommodationSettings(holdDuration: h)
    static let repeats = AccommodationSettings(ignoreRepeat: r)
    static let tapInitial = AccommodationSettings(tapAssistance: .initial)
    static let tapFinal = AccommodationSettings(tapAssistance: .final)
    static let holdAndTap = AccommodationSettings(holdDuration: h, tapAssistance: .initial)

    static let holding = S.holding(since: t0, first: s0, latest: s1)
    static let assisting = S.assisting(since: t0, first: s0, latest: s1)

    static let rows: [(S, AccommodationInput, AccommodationSettings, S, [A])] = [
        // No contact: one comes down.
        (.up, .down(s0, time: t0, isRepeat: false), hold, .holding(since: t0, first: s0, latest: s0), []),
        (.up, .down(s0, time: t0, isRepeat: false), tapInitial, .assisting(since: t0, first: s0, latest: s0), []),
        (.up, .down(s0, time: t0, isRepeat: false), repeats, .passing, [.begin(s0)]),
        (.up, .down(s0, time: t0, isRepeat: true), repeats, .ignored, []),              // a recoil
        (.up, .down(s0, time: t0, isRepeat: true), hold, .holding(since: t0, first: s0, latest: s0), []),  // no Ignore Repeat
        (.up, .down(s0, time: t0, isRepeat: false), AccommodationSettings(), .passing, [.begin(s0)]),
        (.up, .move(s1), hold, .up, []),
        (.up, .lift(s1), hold, .up, []),
        (.up, .cancel(.palm, s1), hold, .up, []),
        (.up, .due(t0 + h), hold, .up, []),
        // Hold Duration counting: nothing delivered until it has lasted.
        (holding, .move(s2), hold, .holding(since: t0, first: s0, latest: s2), []),
        (holding, .lift(s1), hold, .up, []),                                            // too short: never a touch
        (holding, .cancel(.palm, s1), hold, .up, []),
        (holding, .due(t0 + h - 1), hold, holding, []),
        (holding, .due(t0 + h), hold, .passing, [.begin(s1)]),                          // where the finger is now
        (holding, .due(t0 + h), holdAndTap, .assisting(since: t0 + h, first: s0, latest: s1), []),
        (holding, .down(s2, time: t0 + 5, isRepeat: false), hold, holding, []),
        // Tap Assistance deciding: a tap at one place, or after the delay a touch.
        (assisting, .move(s2), tapInitial, .assisting(since: t0, first: s0, latest: s2), []),
        (assisting, .lift(s2), tapInitial, .up, [.begin(s0), .end(s0), .lifted]),       // where it came down
        (assisting, .lift(s2), tapFinal, .up, [.begin(s2), .end(s2), .lifted]),         // where it lifted
        (assisting, .cancel(.palm, s2), tapInitial, .up, []),
        (assisting, .due(t0 + g - 1), tapInitial, assisting, []),
        (assisting, .due(t0 + g), tapInitial, .passing, [.begin(s1)]),                  // where it is at the delay
        (assisting, .down(s2, time: t0 + 5, isRepeat: false), tapInitial, assisting, []),
        // Delivered: its changes go on.
        (.passing, .move(s2), hold, .passing, [.move(s2)]),
        (.passing, .lift(s2), hold, .up, [.end(s2), .lifted]),
        (.passing, .cancel(.palm, s2), hold, .up, [.cancel(.palm, s2)]),
        (.passing, .down(s2, time: t0, isRepeat: false), hold, .passing, []),
        (.passing, .due(t0 + h), hold, .passing, []),
        // Refused: nothing until it lifts.
        (.ignored, .move(s2), repeats, .ignored, []),
        (.ignored, .lift(s2), repeats, .up, []),                                        // not delivered: no new window
        (.ignored, .cancel(.palm, s2), repeats, .up, []),
        (.ignored, .due(t0 + h), repeats, .ignored, []),
        (.ignored, .down(s2, time: t0, isRepeat: false), repeats, .ignored, []),
    ]

    @Test func everyRow() {
        for (from, input, settings, to, actions) in Self.rows {
            let (s, a) = S.next(from, input, settings)
            #expect(s == to && a == actions, "\(from) + \(input): \(s), \(a); expected \(to), \(actions)")
        }
    }

    static func kind(_ s: S) -> String {
        switch s {
        case .up: "up"
        case .holding: "holding"
        case .assisting: "assisting"
        case .passing: "passing"
        case .ignored: "ignored"
        }
    }

    static func kind(_ i: AccommodationInput) -> String {
        switch i {
        case .down: "down"
        case .move: "move"
        case .lift: "lift"
        case .cancel: "cancel"
        case .due: "due"
        }
    }

    @Test func everyPairHasARow() {
        let states = ["up", "holding", "assisting", "passing", "ignored"]
        let inputs = ["down", "move", "lift", "cancel", "due"]
        let covered = Set(Self.rows.map { Self.kind($0.0) + " " + Self.kind($0.1) })
        for s in states { for i in inputs { #expect(covered.contains(s + " " + i), "no row for \(s) + \(i)") } }
    }

    @Test func deadlinesAndReconfiguring() {
        #expect(Self.holding.deadline(Self.hold) == Self.t0 + Self.h)
        #expect(Self.assisting.deadline(Self.tapInitial) == Self.t0 + AccommodationSettings.defaultTapAssistanceDelay)
        #expect(S.passing.deadline(Self.hold) == nil && S.ignored.deadline(Self.hold) == nil && S.up.deadline(Self.hold) == nil)
        #expect(Self.holding.reconfigured == .ignored && Self.assisting.reconfigured == .ignored)
        #expect(S.passing.reconfigured == .passing && S.ignored.reconfigured == .ignored)
    }
}
