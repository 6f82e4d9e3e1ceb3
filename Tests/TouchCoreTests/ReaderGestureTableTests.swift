import Testing
@testable import TouchCore

/// The screen reader's gestures as a transition table: every state (each case, with the data
/// that matters: a fresh finger, a flick, the second touch of a double tap, two and three
/// fingers, a split tap's tapper) against every kind of input (a finger landing, moving,
/// lifting, cancelled, a timer). Written from interface.md's gesture table and the figures of
/// ReaderTimings (double tap 250 ms, tap 300 ms and 20 points, flick 50 points in 150 ms, swipe
/// 500 ms, hold 500 ms, fingers within 300 ms, scrub legs of 40 points), not from the code.
@Suite struct ReaderGestureTableTests {
    static let t = ReaderTimings()
    static let A = ContactKey(device: DeviceIndex(0), slot: 0)
    static let B = ContactKey(device: DeviceIndex(0), slot: 1)
    static let C = ContactKey(device: DeviceIndex(0), slot: 2)
    static let D = ContactKey(device: DeviceIndex(0), slot: 3)
    static let T: Int64 = 1_000_000
    static func ms(_ n: Int64) -> Int64 { T + n * 1000 }
    static func p(_ x: Double, _ y: Double) -> Point { Point(x, y) }
    static func finger(_ k: ContactKey, _ start: Point, _ now: Point? = nil, at: Int64 = T) -> ReaderFinger {
        ReaderFinger(key: k, start: start, point: now ?? start, began: at)
    }
    /// A stroke of the fingers down (and lifted), begun at the first one's time.
    static func stroke(_ down: [ReaderFinger], lifted: [ReaderFinger] = [], after: ReaderPending? = nil, flick: Bool = false, legs: Int = 0) -> ReaderGesture {
        var s = ReaderStroke(down.first ?? lifted[0], after: after)
        s.fingers = down
        s.lifted = lifted
        s.began = (down + lifted).map(\.began).min() ?? T
        s.flick = flick
        s.scrub.legs = legs
        return .stroke(s)
    }
    static func exploring(_ k: ContactKey, _ at: Point, tapper: ReaderFinger? = nil) -> ReaderGesture {
        .exploring(ReaderExploring(key: k, point: at, tapper: tapper))
    }

    // Shorthands for the states of the table.
    static let one = stroke([finger(A, p(100, 100))])
    static let flicking = stroke([finger(A, p(100, 100), p(160, 100))], flick: true)
    static let second = stroke([finger(A, p(110, 100), at: ms(400))], after: .tap(p(100, 100), ms(200)))
    static let afterPause = stroke([finger(A, p(100, 100), at: ms(400))], after: .twoFingerTap(ms(200)))
    static let two = stroke([finger(A, p(100, 100)), finger(B, p(200, 100), at: ms(20))])
    static let twoHalf = stroke([finger(B, p(200, 100), at: ms(20))], lifted: [finger(A, p(100, 100))])
    static let twoUp = stroke([finger(B, p(200, 300), p(200, 200), at: ms(20))], lifted: [finger(A, p(100, 300), p(100, 200))])
    static let twoDown = stroke([finger(B, p(200, 100), p(200, 200), at: ms(20))], lifted: [finger(A, p(100, 100), p(100, 200))])
    static let twoScrubbed = stroke([finger(B, p(200, 100), p(230, 100), at: ms(20))], lifted: [finger(A, p(100, 100), p(130, 100))], legs: 3)
    static let twoAgain = stroke([finger(B, p(200, 100), at: ms(420))], lifted: [finger(A, p(100, 100), at: ms(400))], after: .twoFingerTap(ms(200)))
    static let twoAfterTap = stroke([finger(B, p(200, 100), at: ms(420))], lifted: [finger(A, p(100, 100), at: ms(400))], after: .tap(p(50, 50), ms(200)))
    static let three = stroke([finger(A, p(100, 300)), finger(B, p(200, 300), at: ms(10)), finger(C, p(300, 300), at: ms(20))])
    static let threeUp = stroke([finger(C, p(300, 300), p(300, 200), at: ms(20))], lifted: [finger(A, p(100, 300), p(100, 200)), finger(B, p(200, 300), p(200, 200), at: ms(10))])
    static let threeTapped = stroke([finger(C, p(300, 300), at: ms(20))], lifted: [finger(A, p(100, 300)), finger(B, p(200, 300), at: ms(10))])
    static let explorer = exploring(A, p(100, 100))
    static let splitting = exploring(A, p(100, 100), tapper: finger(B, p(300, 300)))

    typealias Row = (String, ReaderGesture, ReaderInput, ReaderGesture, [ReaderAction])
    static let rows: [Row] = [
        // Nothing down: a finger starts a stroke; nothing else means anything.
        ("idle", .idle, .down(A, p(100, 100), T), one, []),
        ("idle", .idle, .move(A, p(100, 100), T), .idle, []),
        ("idle", .idle, .up(A, p(100, 100), T), .idle, []),
        ("idle", .idle, .cancel(A, T), .idle, []),
        ("idle", .idle, .timer(T), .idle, []),
        // A tap waits 250 ms: then it focuses where it was; a finger landing first continues it.
        ("waiting", .waiting(.tap(p(100, 100), T)), .timer(ms(250)), .idle, [.focus(at: p(100, 100))]),
        ("waiting", .waiting(.tap(p(100, 100), T)), .timer(ms(249)), .waiting(.tap(p(100, 100), T)), []),
        ("waiting", .waiting(.tap(p(100, 100), T)), .down(A, p(110, 100), ms(200)), stroke([finger(A, p(110, 100), at: ms(200))], after: .tap(p(100, 100), T)), []),
        ("waiting", .waiting(.twoFingerTap(T)), .timer(ms(250)), .idle, [.toggleSpeech]),
        ("waiting", .waiting(.twoFingerTap(T)), .move(A, p(1, 1), ms(10)), .waiting(.twoFingerTap(T)), []),
        ("waiting", .waiting(.tap(p(100, 100), T)), .up(A, p(1, 1), ms(10)), .waiting(.tap(p(100, 100), T)), []),
        ("waiting", .waiting(.tap(p(100, 100), T)), .cancel(A, ms(10)), .waiting(.tap(p(100, 100), T)), []),
        // One finger, undecided.
        ("stroke", one, .move(A, p(105, 100), ms(50)), stroke([finger(A, p(100, 100), p(105, 100))]), []),
        ("stroke", one, .move(A, p(160, 100), ms(100)), stroke([finger(A, p(100, 100), p(160, 100))], flick: true), []),
        ("stroke", one, .move(A, p(130, 100), ms(100)), stroke([finger(A, p(100, 100), p(130, 100))]), []),   // past the slop, may still flick
        ("stroke", one, .move(A, p(130, 100), ms(200)), exploring(A, p(130, 100)), [.focus(at: p(130, 100))]),
        ("stroke", one, .up(A, p(102, 100), ms(100)), .waiting(.tap(p(102, 100), ms(100))), []),
        ("stroke", one, .up(A, p(160, 100), ms(100)), .idle, [.next]),
        ("stroke", one, .up(A, p(40, 100), ms(100)), .idle, [.previous]),
        ("stroke", one, .up(A, p(100, 40), ms(100)), .idle, [.adjust(up: true)]),
        ("stroke", one, .up(A, p(100, 170), ms(140)), .idle, [.adjust(up: false)]),
        ("stroke", one, .up(A, p(160, 140), ms(100)), .idle, []),                      // diagonal: no swipe
        ("stroke", one, .up(A, p(100, 130), ms(100)), .idle, [.focus(at: p(100, 130))]),  // a short drag reads where it ended
        ("stroke", one, .down(B, p(300, 100), ms(100)), stroke([finger(A, p(100, 100)), finger(B, p(300, 100), at: ms(100))]), []),
        ("stroke", one, .down(B, p(300, 100), ms(301)), .ignoring([A, B]), []),
        ("stroke", one, .cancel(A, ms(10)), .idle, []),
        ("stroke", one, .timer(ms(300)), exploring(A, p(100, 100)), [.focus(at: p(100, 100))]),
        ("stroke", one, .timer(ms(299)), one, []),
        // A flick: a swipe if it lifts within 500 ms, else exploration.
        ("stroke", flicking, .up(A, p(220, 110), ms(200)), .idle, [.next]),
        ("stroke", flicking, .up(A, p(220, 110), ms(600)), .idle, []),
        ("stroke", flicking, .move(A, p(230, 100), ms(501)), exploring(A, p(230, 100)), [.focus(at: p(230, 100))]),
        ("stroke", flicking, .timer(ms(500)), exploring(A, p(160, 100)), [.focus(at: p(160, 100))]),
        // The second touch of a double tap: a tap activates; held 500 ms it passes through.
        ("stroke", second, .up(A, p(112, 100), ms(480)), .idle, [.activate]),
        ("stroke", second, .timer(ms(900)), .passingThrough(A, others: []), [.passThrough(A, p(110, 100))]),
        ("stroke", second, .timer(ms(899)), second, []),
        ("stroke", second, .move(A, p(150, 100), ms(600)), exploring(A, p(150, 100)), [.focus(at: p(150, 100))]),
        ("stroke", second, .up(A, p(170, 100), ms(500)), .idle, [.focus(at: p(100, 100)), .next]),
        ("stroke", second, .down(B, p(200, 100), ms(450)), stroke([finger(A, p(110, 100), at: ms(400)), finger(B, p(200, 100), at: ms(450))], after: .tap(p(100, 100), ms(200))), []),
        ("stroke", second, .cancel(A, ms(450)), .idle, [.focus(at: p(100, 100))]),
        // After a two-finger tap: anything but a second one pauses or resumes first.
        ("stroke", afterPause, .up(A, p(100, 100), ms(450)), .waiting(.tap(p(100, 100), ms(450))), [.toggleSpeech]),
        ("stroke", afterPause, .timer(ms(700)), exploring(A, p(100, 100)), [.toggleSpeech, .focus(at: p(100, 100))]),
        // Two fingers.
        ("stroke", two, .up(A, p(100, 100), ms(100)), twoHalf, []),
        ("stroke", twoHalf, .up(B, p(200, 100), ms(150)), .waiting(.twoFingerTap(ms(150))), []),
        ("stroke", twoHalf, .up(B, p(200, 100), ms(350)), .idle, []),                    // too long for a tap
        ("stroke", twoUp, .up(B, p(200, 200), ms(200)), .idle, [.readAll(fromTop: true)]),
        ("stroke", twoDown, .up(B, p(200, 200), ms(200)), .idle, [.readAll(fromTop: false)]),
        ("stroke", twoScrubbed, .up(B, p(230, 100), ms(900)), .idle, [.escape]),
        ("stroke", twoScrubbed, .up(B, p(230, 100), ms(1600)), .idle, []),               // too slow for a scrub
        ("stroke", twoAgain, .up(B, p(200, 100), ms(480)), .idle, [.magicTap]),
        ("stroke", twoAfterTap, .up(B, p(200, 100), ms(480)), .waiting(.twoFingerTap(ms(480))), [.focus(at: p(50, 50))]),
        ("stroke", two, .down(C, p(300, 100), ms(100)), stroke([finger(A, p(100, 100)), finger(B, p(200, 100), at: ms(20)), finger(C, p(300, 100), at: ms(100))]), []),
        ("stroke", twoHalf, .down(C, p(300, 100), ms(100)), .ignoring([B, C]), []),     // a finger after one lifted
        ("stroke", two, .move(A, p(150, 100), ms(50)), stroke([finger(A, p(100, 100), p(150, 100)), finger(B, p(200, 100), at: ms(20))]), []),
        ("stroke", two, .timer(ms(5000)), two, []),
        ("stroke", two, .cancel(A, ms(50)), .ignoring([B]), []),
        // Three fingers: a swipe scrolls a page; a fourth finger spoils it.
        ("stroke", threeUp, .up(C, p(300, 200), ms(200)), .idle, [.scrollPage(.up)]),
        ("stroke", threeTapped, .up(C, p(300, 300), ms(100)), .idle, []),
        ("stroke", three, .down(D, p(400, 300), ms(50)), .ignoring([A, B, C, D]), []),
        // Exploring: the focus follows; a second finger's tap activates what is under the first.
        ("exploring", explorer, .move(A, p(120, 100), ms(10)), exploring(A, p(120, 100)), [.follow(at: p(120, 100))]),
        ("exploring", explorer, .down(B, p(300, 300), T), splitting, []),
        ("exploring", explorer, .up(A, p(100, 100), ms(10)), .idle, []),
        ("exploring", explorer, .cancel(A, ms(10)), .idle, []),
        ("exploring", explorer, .timer(ms(10_000)), explorer, []),
        ("exploring", splitting, .up(B, p(302, 300), ms(100)), explorer, [.activateUnder(p(100, 100))]),
        ("exploring", splitting, .up(B, p(300, 300), ms(400)), explorer, []),          // held: no tap
        ("exploring", splitting, .move(B, p(310, 300), ms(50)), exploring(A, p(100, 100), tapper: finger(B, p(300, 300), p(310, 300))), []),
        ("exploring", splitting, .up(A, p(100, 100), ms(50)), .ignoring([B]), []),
        ("exploring", splitting, .down(C, p(50, 50), ms(50)), .ignoring([A, B, C]), []),
        ("exploring", splitting, .cancel(B, ms(50)), explorer, []),
        // Passing through: its moves and lift are the view's; others are ignored.
        ("passingThrough", .passingThrough(A, others: []), .move(A, p(1, 1), T), .passingThrough(A, others: []), []),
        ("passingThrough", .passingThrough(A, others: []), .up(A, p(1, 1), T), .idle, []),
        ("passingThrough", .passingThrough(A, others: []), .down(B, p(1, 1), T), .passingThrough(A, others: [B]), []),
        ("passingThrough", .passingThrough(A, others: [B]), .up(A, p(1, 1), T), .ignoring([B]), []),
        ("passingThrough", .passingThrough(A, others: [B]), .cancel(B, T), .passingThrough(A, others: []), []),
        ("passingThrough", .passingThrough(A, others: []), .cancel(A, T), .idle, []),
        ("passingThrough", .passingThrough(A, others: []), .timer(T), .passingThrough(A, others: []), []),
        // Ignoring until every finger lifts.
        ("ignoring", .ignoring([A, B]), .up(A, p(1, 1), T), .ignoring([B]), []),
        ("ignoring", .ignoring([B]), .up(B, p(1, 1), T), .idle, []),
        ("ignoring", .ignoring([A, B]), .down(C, p(1, 1), T), .ignoring([A, B, C]), []),
        ("ignoring", .ignoring([A, B]), .move(A, p(1, 1), T), .ignoring([A, B]), []),
        ("ignoring", .ignoring([A, B]), .cancel(A, T), .ignoring([B]), []),
        ("ignoring", .ignoring([A, B]), .timer(T), .ignoring([A, B]), []),
    ]

    @Test func everyRow() {
        for (_, from, input, to, actions) in Self.rows {
            let (s, a) = ReaderGesture.next(from, input, Self.t)
            #expect(s == to && a == actions, "\(from) + \(input):\n  got \(s), \(a)\n  expected \(to), \(actions)")
        }
    }

    /// Every state meets every kind of input in the table.
    @Test func theTableNamesEveryStateAndInputKind() {
        func kind(_ i: ReaderInput) -> String {
            switch i {
            case .down: return "down"
            case .move: return "move"
            case .up: return "up"
            case .cancel: return "cancel"
            case .timer: return "timer"
            }
        }
        let pairs = Set(Self.rows.map { "\($0.0) \(kind($0.2))" })
        for s in ["idle", "waiting", "stroke", "exploring", "passingThrough", "ignoring"] {
            for k in ["down", "move", "up", "cancel", "timer"] { #expect(pairs.contains("\(s) \(k)"), "no row for \(s) + \(k)") }
        }
    }

    /// The timers each state asks for.
    @Test func deadlines() {
        let t = Self.t
        #expect(ReaderGesture.idle.deadline(t) == nil)
        #expect(ReaderGesture.waiting(.tap(Self.p(0, 0), Self.T)).deadline(t) == Self.ms(250))
        #expect(Self.one.deadline(t) == Self.ms(300))
        #expect(Self.stroke([Self.finger(Self.A, Self.p(100, 100), Self.p(130, 100))]).deadline(t) == Self.ms(150))
        #expect(Self.flicking.deadline(t) == Self.ms(500))
        #expect(Self.second.deadline(t) == Self.ms(900))
        #expect(Self.two.deadline(t) == nil && Self.explorer.deadline(t) == nil && ReaderGesture.ignoring([Self.A]).deadline(t) == nil)
    }

    /// The scrub's legs: the fingers' mean x turning back by 40 points or more.
    @Test func aZIsThreeLegs() {
        var s = ScrubTracker()
        for x in [0.0, 20, 45, 60] { s.track(x, leg: 40) }          // leg 1, right, up to 60
        #expect(s.legs == 1)
        for x in [40.0, 25] { s.track(x, leg: 40) }                 // back 35: not yet
        #expect(s.legs == 1)
        for x in [10.0, -5] { s.track(x, leg: 40) }                 // back 65: leg 2
        #expect(s.legs == 2)
        for x in [20.0, 50] { s.track(x, leg: 40) }                 // forward 55: leg 3
        #expect(s.legs == 3)
    }
}
