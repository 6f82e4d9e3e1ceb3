import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 30, item 1, as a property: over random captures with no bounce and no ghost in them —
/// taps, double taps, holds around a long press's duration, drags and flicks, two-finger
/// gestures where one finger lifts while the other moves, quick taps elsewhere right after a
/// lift, gestures overlapping — on a scene of recognizers (tap, double tap, long press, pan,
/// requireToFail), buttons, exclusiveTouch keys and a scroll view, every message published with
/// a random `debounce` (and `debounceDistance`), and with a `minimumDuration` and
/// `minimumFrames` no real contact is short of, is the message published without them: the
/// same NDJSON line, seq and times included (a lift or a touch-down may only go out later).
@Suite struct DebounceInvariantPropertyTests {
    typealias RNG = SplitMix64

    static func config(_ rng: inout RNG) -> Config {
        let requireToFail = rng.int(2) == 0 ? ", \"requireToFail\": [\"double\"]" : ""
        let delays = rng.int(3) == 0 ? ", \"delaysTouchesBegan\": true" : ""
        let paging = rng.int(3) == 0 ? ", \"pagingEnabled\": true" : ""
        return TouchCoreTests.config("""
            {"screen": {"width": 800, "height": 480},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
              "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true, "subviews": [
               {"id": "list", "frame": [0, 0, 300, 480], "multipleTouch": true, "scroll": {"contentSize": [300, 2400]\(paging)}, "subviews": [
                 {"id": "row0", "frame": [0, 0, 300, 100], "control": "button"},
                 {"id": "row1", "frame": [0, 120, 300, 100], "control": "button"},
                 {"id": "row2", "frame": [0, 240, 300, 100], "control": "button"},
                 {"id": "row3", "frame": [0, 360, 300, 100], "control": "button"}]},
               {"id": "k1", "frame": [310, 10, 110, 110], "control": "button", "exclusiveTouch": true},
               {"id": "k2", "frame": [430, 10, 110, 110], "control": "button", "exclusiveTouch": true},
               {"id": "k3", "frame": [310, 130, 110, 110], "control": "button", "exclusiveTouch": true},
               {"id": "ok", "frame": [430, 130, 110, 110], "control": "button"},
               {"id": "pad", "frame": [300, 250, 500, 230], "touches": "handle", "multipleTouch": true, "gestures": [
                 {"id": "tap", "kind": "tap"\(requireToFail)\(delays)},
                 {"id": "double", "kind": "tap", "taps": 2},
                 {"id": "hold", "kind": "longPress"},
                 {"id": "pan", "kind": "pan"}]},
               {"id": "side", "frame": [550, 0, 250, 250], "touches": "handle", "gestures": [{"id": "swipe", "kind": "swipe"}, {"id": "pinch", "kind": "pinch"}]}]}}]}
            """)
    }

    /// A contact's frames: (time µs, x, y, kind) with kind 0 down, 1 move, 2 up.
    typealias Step = (time: Int64, x: Int32, y: Int32, kind: Int)

    /// One random gesture from `start` as contacts (each a list of steps).
    static func gesture(_ rng: inout RNG, start: Int64) -> [[Step]] {
        func clampX(_ v: Int32) -> Int32 { min(max(v, 0), 799) }
        func clampY(_ v: Int32) -> Int32 { min(max(v, 0), 479) }
        let x = Int32(rng.int(800)), y = Int32(rng.int(480))
        func stroke(_ x: Int32, _ y: Int32, from t0: Int64, steps: Int, dx: Int32, dy: Int32, every: Int64, restBeforeLift: Int64) -> [Step] {
            var s: [Step] = [(t0, x, y, 0)]
            var t = t0
            for k in 1...max(steps, 1) {
                t += every
                s.append((t, clampX(x + dx * Int32(k)), clampY(y + dy * Int32(k)), 1))
            }
            s.append((t + restBeforeLift, s.last!.x, s.last!.y, 2))
            return s
        }
        switch rng.int(8) {
        case 0:      // a tap
            let d = Int64(30 + rng.int(120)) * 1000
            return [[(start, x, y, 0), (start + d, x, y, 2)]]
        case 1:      // a double tap: the second lands near, well after the first lifted
            let d = Int64(40 + rng.int(60)) * 1000, gap = Int64(100 + rng.int(150)) * 1000
            let second = start + d + gap
            return [[(start, x, y, 0), (start + d, x, y, 2)],
                    [(second, clampX(x + 3), y, 0), (second + d, clampX(x + 3), y, 2)]]
        case 2:      // a hold around the long press's half second
            let d = Int64(400 + rng.int(250)) * 1000
            return [[(start, x, y, 0), (start + d, x, y, 2)]]
        case 3:      // a drag or a flick, lifting soon after its last move or after a rest
            let reach = rng.int(2) == 0 ? 3 : 25
            let dx = Int32(rng.int(2 * reach + 1) - reach), dy = Int32(rng.int(2 * reach + 1) - reach)
            let rest = rng.int(2) == 0 ? Int64(5 + rng.int(15)) * 1000 : Int64(60 + rng.int(100)) * 1000
            return [stroke(x, y, from: start, steps: 3 + rng.int(12), dx: dx, dy: dy, every: Int64(8 + rng.int(10)) * 1000, restBeforeLift: rest)]
        case 4:      // two fingers: one lifts while the other goes on moving
            let dy = Int32(rng.int(21) - 10)
            let a = stroke(x, y, from: start, steps: 6, dx: 0, dy: dy, every: 12_000, restBeforeLift: 12_000)
            let b = stroke(clampX(x + 80), y, from: start + 5_000, steps: 14, dx: 0, dy: dy, every: 12_000, restBeforeLift: Int64(5 + rng.int(40)) * 1000)
            return [a, b]
        case 5:      // a quick tap elsewhere right after a lift (beyond any debounce distance)
            let d = Int64(40 + rng.int(60)) * 1000, gap = Int64(5 + rng.int(40)) * 1000
            let x2 = clampX(x + (x < 400 ? 120 : -120))
            return [[(start, x, y, 0), (start + d, x, y, 2)],
                    [(start + d + gap, x2, y, 0), (start + 2 * d + gap, x2, y, 2)]]
        case 6:      // two fingers down and up together (a two-finger tap or pinch)
            let d = Int64(60 + rng.int(200)) * 1000
            let x2 = clampX(x + 90)
            return [stroke(x, y, from: start, steps: 4, dx: -5, dy: 0, every: 15_000, restBeforeLift: d),
                    stroke(x2, y, from: start, steps: 4, dx: 5, dy: 0, every: 15_000, restBeforeLift: d)]
        default:     // a lift and, later than any debounce, a landing near it
            let d = Int64(50 + rng.int(100)) * 1000, gap = Int64(90 + rng.int(200)) * 1000
            return [[(start, x, y, 0), (start + d, x, y, 2)],
                    [(start + d + gap, clampX(x + Int32(rng.int(11)) - 5), y, 0), (start + 2 * d + gap, x, y, 2)]]
        }
    }

    /// Gestures one after another, each starting before or after the previous ended; each
    /// contact gets a slot free for its whole life. Returns the events and the contacts.
    static func capture(_ rng: inout RNG, gestures: Int) -> ([InputEvent], [[Step]]) {
        var contacts: [[Step]] = []
        var start: Int64 = 10_000
        for _ in 0..<gestures {
            let g = gesture(&rng, start: start)
            contacts += g
            let end = g.map { $0.last!.time }.max()!
            start = rng.int(3) == 0 ? start + Int64(rng.int(Int((end - start) / 1000) + 1)) * 1000 : end + Int64(50 + rng.int(400)) * 1000
        }
        // Slots: the lowest free one for each contact's whole life.
        var busyUntil: [Int64] = Array(repeating: -1, count: 10)
        var steps: [(Step, slot: Int32)] = []
        var kept: [[Step]] = []
        for c in contacts.sorted(by: { $0[0].time < $1[0].time }) {
            guard let slot = busyUntil.firstIndex(where: { $0 < c[0].time }) else { continue }
            busyUntil[slot] = c.last!.time
            steps += c.map { ($0, Int32(slot)) }
            kept.append(c)
        }
        steps.sort { $0.0.time < $1.0.time || ($0.0.time == $1.0.time && $0.slot < $1.slot) }
        var f = Finger()
        var k = 0
        while k < steps.count {
            f.time = steps[k].0.time
            while k < steps.count && steps[k].0.time == f.time {
                let (s, slot) = steps[k]
                switch s.kind {
                case 0: f.down(slot, s.x, s.y)
                case 1: f.move(slot, s.x, s.y)
                default: f.up(slot)
                }
                k += 1
            }
            f.syn(after: 0)
        }
        return (f.events, kept)
    }

    /// The shortest time from a lift to a landing within `distance` points of it (a debounce
    /// below it finds no bounce), and the shortest contact (a minimumDuration below it finds no
    /// ghost) with the fewest frames it was in.
    static func margins(_ contacts: [[Step]], events: [InputEvent], distance: Double) -> (gap: Int64, shortest: Int64, frames: Int) {
        var gap = Int64.max
        for a in contacts { for b in contacts where b[0].time > a.last!.time {
            let dx = Double(a.last!.x - b[0].x), dy = Double(a.last!.y - b[0].y)
            if (dx * dx + dy * dy).squareRoot() <= distance + 1 { gap = min(gap, b[0].time - a.last!.time) }
        } }
        let frameTimes = Set(events.filter { $0.type == EV.SYN }.map(\.time)).sorted()
        var shortest = Int64.max, frames = Int.max
        for c in contacts {
            shortest = min(shortest, c.last!.time - c[0].time)
            frames = min(frames, frameTimes.filter { $0 >= c[0].time && $0 < c.last!.time }.count)
        }
        return (gap, shortest, frames)
    }

    @Test(arguments: Array(1...40))
    func heldLiftsAndCountedTouchDownsChangeNoMessage(_ seed: Int) {
        var rng = RNG(state: UInt64(seed) &* 7_919)
        let cfg = DebounceInvariantPropertyTests.config(&rng)
        let (events, contacts) = DebounceInvariantPropertyTests.capture(&rng, gestures: 14)
        let distance = Double(5 + rng.int(36))
        let m = DebounceInvariantPropertyTests.margins(contacts, events: events, distance: distance)
        var filter = ConditioningSettings()
        // A debounce from 10 ms to 80 ms, short of every lift-to-landing gap near it.
        filter.debounce = Double(max(min(10 + rng.int(71), Int(min(m.gap, 1_000_000) / 1000) - 1), 0)) / 1000
        filter.debounceDistance = distance
        let plain = transcript(cfg, events)
        let debounced = transcript(cfg, events, filter: filter)
        #expect(debounced == plain, "seed \(seed), debounce \(filter.debounce), distance \(distance): \(firstDifference(debounced, plain))")
        // Touch-downs counted before they are delivered: no contact is a ghost.
        if rng.int(2) == 0 { filter.minimumDuration = Double(max(min(5 + rng.int(40), Int(m.shortest / 1000) - 1), 0)) / 1000 }
        if rng.int(2) == 0 { filter.minimumFrames = min(1 + rng.int(3), m.frames) }
        let counted = transcript(cfg, events, filter: filter)
        #expect(counted == plain, "seed \(seed), \(filter): \(firstDifference(counted, plain))")
        #expect(plain.count > 50)
    }
}
