import Testing
@testable import TouchCore
import TouchTestSupport

/// Property: over random trees of recognizers and random taps, drags, holds and two-finger
/// gestures, (1) no two recognizers win one touch sequence unless one declares the other in
/// simultaneousWith (UIGestureRecognizerDelegate's default: "no two gestures can be
/// recognized simultaneously"), and (2) the winners do not depend on the order in which the
/// config lists each view's recognizers.
@Suite struct ArbitrationPropertyTests {
    typealias RNG = SplitMix64

    struct Recognizer {
        var id: String
        var json: String
        var simultaneous: [String]
    }

    /// Three nested views, each with 0–3 random recognizers; requireToFail only towards
    /// recognizers made earlier (no cycles); a few simultaneousWith pairs.
    static func recognizers(_ rng: inout RNG) -> [[Recognizer]] {
        var all: [String] = []
        var views: [[Recognizer]] = []
        for v in 0..<3 {
            var list: [Recognizer] = []
            for k in 0..<rng.int(4) {
                let id = "g\(v)\(k)"
                let kinds = ["{\"kind\": \"tap\"", "{\"kind\": \"tap\", \"taps\": 2", "{\"kind\": \"longPress\"", "{\"kind\": \"pan\"",
                             "{\"kind\": \"swipe\", \"directions\": [\"left\", \"right\", \"up\", \"down\"]", "{\"kind\": \"pinch\"",
                             "{\"kind\": \"rotation\"", "{\"kind\": \"tap\", \"touches\": 2"]
                var json = kinds[rng.int(kinds.count)] + ", \"id\": \"\(id)\""
                if !all.isEmpty && rng.int(3) == 0 { json += ", \"requireToFail\": [\"\(all[rng.int(all.count)])\"]" }
                var simultaneous: [String] = []
                if !all.isEmpty && rng.int(4) == 0 {
                    simultaneous = [all[rng.int(all.count)]]
                    json += ", \"simultaneousWith\": [\"\(simultaneous[0])\"]"
                }
                if rng.int(4) == 0 { json += ", \"delaysTouchesBegan\": true" }
                list.append(Recognizer(id: id, json: json + "}", simultaneous: simultaneous))
                all.append(id)
            }
            views.append(list)
        }
        return views
    }

    static func config(_ views: [[Recognizer]]) -> Config {
        func g(_ v: Int) -> String { views[v].map(\.json).joined(separator: ",") }
        return scene("""
            {"id": "v0", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true, "gestures": [\(g(0))],
             "subviews": [{"id": "v1", "frame": [50, 50, 600, 400], "multipleTouch": true, "gestures": [\(g(1))],
               "subviews": [{"id": "v2", "frame": [50, 50, 400, 250], "multipleTouch": true, "gestures": [\(g(2))]}]}]}
            """)
    }

    /// One random gesture per 2-second window, all within the innermost view.
    static func input(_ rng: inout RNG, windows: Int) -> Finger {
        var f = Finger()
        for w in 0..<windows {
            f.time = Int64(w) * 2_000_000
            let x = Int32(150 + rng.int(300)), y = Int32(150 + rng.int(150))
            switch rng.int(6) {
            case 0:      // tap
                f.down(0, x, y); f.syn(after: 60); f.up(0); f.syn()
            case 1:      // double tap
                f.down(0, x, y); f.syn(after: 50); f.up(0); f.syn(after: 100)
                f.down(0, x + 3, y); f.syn(after: 50); f.up(0); f.syn()
            case 2:      // hold
                f.down(0, x, y); f.syn(after: 700); f.up(0); f.syn()
            case 3:      // drag
                let dx = Int32(rng.int(41)) - 20, dy = Int32(rng.int(41)) - 20
                f.down(0, x, y); f.syn(after: 16)
                for k in 1...8 { f.move(0, x + dx * Int32(k), y + dy * Int32(k)); f.syn(after: 16) }
                f.up(0); f.syn()
            case 4:      // pinch apart
                f.down(0, x, y); f.down(1, x + 40, y); f.syn(after: 16)
                for k in 1...6 { f.move(0, x - 8 * Int32(k), y); f.move(1, x + 40 + 8 * Int32(k), y); f.syn(after: 16) }
                f.up(0); f.up(1); f.syn()
            default:     // two-finger turn
                f.down(0, x, y); f.down(1, x + 60, y); f.syn(after: 16)
                for k in 1...6 { f.move(0, x, y - 6 * Int32(k)); f.move(1, x + 60, y + 6 * Int32(k)); f.syn(after: 16) }
                f.up(0); f.up(1); f.syn()
            }
        }
        return f
    }

    /// The recognizers that won (recognized or began) in each 2-second window.
    static func winners(_ cfg: Config, _ f: Finger, windows: Int) -> [Set<String>] {
        let r = Rig(cfg)
        r.feed(f)
        r.advance(to: Int64(windows) * 2_000_000 + 1_000_000)
        var out = Array(repeating: Set<String>(), count: windows)
        for g in r.gestures where g.state == .recognized || g.state == .began {
            out[min(Int(g.time / 2_000_000), windows - 1)].insert(g.recognizer)
        }
        return out
    }

    @Test(arguments: Array(1...40))
    func neverTwoWinnersAndTheSameWinnersInAnyListingOrder(_ seed: Int) {
        var rng = RNG(state: UInt64(seed) &* 104_729)
        let views = ArbitrationPropertyTests.recognizers(&rng)
        let windows = 12
        let f = ArbitrationPropertyTests.input(&rng, windows: windows)
        let won = ArbitrationPropertyTests.winners(ArbitrationPropertyTests.config(views), f, windows: windows)
        let declared = Dictionary(uniqueKeysWithValues: views.flatMap { $0 }.map { ($0.id, Set($0.simultaneous)) })
        for (w, set) in won.enumerated() {
            let list = set.sorted()
            for a in list { for b in list where a < b {
                let together = declared[a]!.contains(b) || declared[b]!.contains(a)
                #expect(together, "seed \(seed) window \(w): \(a) and \(b) both won without simultaneousWith; recognizers \(views.map { $0.map(\.json) })")
            } }
        }
        // The same recognizers listed in other orders on every view.
        for shuffle in 0..<3 {
            var shuffled = views
            for v in shuffled.indices {
                if shuffle == 0 { shuffled[v].reverse(); continue }
                for i in stride(from: shuffled[v].count - 1, to: 0, by: -1) { shuffled[v].swapAt(i, rng.int(i + 1)) }
            }
            #expect(ArbitrationPropertyTests.winners(ArbitrationPropertyTests.config(shuffled), f, windows: windows) == won,
                    "seed \(seed): the winners changed with the listing order")
        }
    }
}
