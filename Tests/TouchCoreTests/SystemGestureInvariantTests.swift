import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 44, item 2, as a property: system gestures only watch. Random captures (taps, bursts of
/// taps in the corner, drags, long presses of one to three fingers, edge swipes, two-finger
/// taps; some seeds through a debounce, some with an idle session) are replayed twice, with and
/// without six system gestures; every message but `systemGesture` — encoded with the ids of its
/// scene, seq and times included — and every re-exported contact frame are the same.
@Suite struct SystemGestureInvariantTests {
    static let gestures = """
        "systemGestures": [
          {"name": "admin", "kind": "tap", "taps": 5, "within": 3.0, "region": [0, 0, 80, 80]},
          {"name": "two", "kind": "tap", "taps": 2, "touches": 2},
          {"name": "exit", "kind": "longPress", "touches": 3, "duration": 2.0},
          {"name": "hold", "kind": "longPress"},
          {"name": "back", "kind": "edgeSwipe", "edge": "left"},
          {"name": "up", "kind": "edgeSwipe", "edge": "bottom", "distance": 50}],
        """

    static func config(gestures: Bool, session: Bool) -> Config {
        try! Config.parse("""
            {"screen": {"width": 800, "height": 480}, \(gestures ? Self.gestures : "")
             \(session ? #""session": {"idle": 1},"# : "")
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
               "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle",
                        "subviews": [
                          {"id": "settings", "frame": [0, 0, 80, 80], "control": "button"},
                          {"id": "card", "frame": [100, 100, 200, 200], "touches": "handle",
                           "gestures": [{"id": "card-pan", "kind": "pan"}, {"id": "card-double", "kind": "tap", "taps": 2},
                                        {"id": "card-press", "kind": "longPress"}]},
                          {"id": "list", "frame": [400, 0, 200, 480], "scroll": {"contentSize": [200, 2000]},
                           "subviews": [{"id": "row0", "frame": [0, 0, 200, 60], "control": "button"},
                                        {"id": "row1", "frame": [0, 60, 200, 60], "control": "button"}]},
                          {"id": "edge", "frame": [0, 100, 60, 380], "touches": "handle",
                           "gestures": [{"id": "edge-pan", "kind": "screenEdgePan", "edges": ["left"]}]}]}}]}
            """)
    }

    struct Ignore: OutputSink { mutating func take(_ m: Message, history: SceneHistory) {} }

    /// Every line a subscriber taking everything would get, the re-exported frames, and the
    /// system gestures recognized.
    static func replay(seed: UInt64, gestures: Bool) -> (lines: [String], contacts: [ScreenContactFrame], recognized: [String]) {
        var rng = SplitMix64(state: seed)
        var settings = DeviceSettings()
        if seed % 3 == 0 { settings.filter.debounce = 0.03 }
        let r = Rig(config(gestures: gestures, session: seed % 4 == 1), settings: settings)
        r.engine.exportContacts(device: r.device, true)
        let history = SceneHistory(scene: r.scene)
        var ignore = Ignore()
        var lines: [String] = [], recognized: [String] = []
        r.observer = { o in
            switch o {
            case .sceneChanged: history.deliver([o], to: &ignore)
            case .message(.systemGesture(let g)): recognized.append(g.name)
            case .message(let m): lines.append(String(decoding: history.encode(m), as: UTF8.self))
            default: break
            }
        }
        var time: Int64 = 1_000_000
        func frame(after micros: Int64, _ body: (inout Finger) -> Void) {
            time += micros
            r.finger.time = time
            body(&r.finger)
            r.frame()
        }
        func point(_ region: Int) -> (Int32, Int32) {
            switch region {
            case 0: return (Int32(5 + rng.int(70)), Int32(5 + rng.int(70)))          // the corner
            case 1: return (Int32(2 + rng.int(15)), Int32(120 + rng.int(300)))       // the left edge
            case 2: return (Int32(300 + rng.int(300)), Int32(465 + rng.int(14)))     // the bottom edge
            default: return (Int32(rng.int(800)), Int32(rng.int(480)))
            }
        }
        for _ in 0..<24 {
            time += [20_000, 150_000, 600_000, 1_500_000, 4_000_000][rng.int(5)]
            switch rng.int(6) {
            case 0:   // one tap, often in the corner
                let (x, y) = point(rng.int(2) == 0 ? 0 : 3)
                frame(after: 0) { $0.down(0, x, y) }
                frame(after: Int64(20_000 + rng.int(200_000))) { $0.up(0) }
            case 1:   // a burst of taps in the corner, some too slow or too far
                for _ in 0..<(3 + rng.int(4)) {
                    let (x, y) = point(rng.int(6) == 0 ? 3 : 0)
                    frame(after: Int64(60_000 + rng.int(500_000))) { $0.down(0, x, y) }
                    frame(after: Int64(30_000 + rng.int(60_000))) { $0.up(0) }
                }
            case 2:   // a drag, from an edge sometimes
                var (x, y) = point(rng.int(4))
                frame(after: 0) { $0.down(0, x, y) }
                let dx = Int32(rng.int(61)) - 20, dy = Int32(rng.int(61)) - 40
                for _ in 0..<(2 + rng.int(10)) {
                    x = max(0, min(799, x + dx)); y = max(0, min(479, y + dy))
                    frame(after: 16_000) { $0.move(0, x, y) }
                }
                frame(after: 16_000) { $0.up(0) }
            case 3:   // one to three fingers held
                let n = 1 + rng.int(3)
                var at: [(Int32, Int32)] = []
                for k in 0..<n {
                    at.append(point(3))
                    frame(after: Int64(rng.int(60_000))) { $0.down(Int32(k), at[k].0, at[k].1) }
                }
                frame(after: Int64(300_000 + rng.int(2_400_000))) { f in
                    if rng.int(3) == 0 { f.move(0, at[0].0 + Int32(rng.int(30)), at[0].1) }
                }
                for k in 0..<n { frame(after: Int64(rng.int(30_000))) { $0.up(Int32(k)) } }
            case 4:   // two fingers tapping, twice at times
                for _ in 0..<(1 + rng.int(2)) {
                    let (x, y) = point(3)
                    frame(after: 80_000) { $0.down(0, x, y); $0.down(1, min(799, x + 40), y) }
                    frame(after: 50_000) { $0.up(0); $0.up(1) }
                }
            default:  // an edge swipe
                let left = rng.int(2) == 0
                var (x, y) = point(left ? 1 : 2)
                frame(after: 0) { $0.down(0, x, y) }
                for _ in 0..<(3 + rng.int(8)) {
                    if left { x = min(799, x + 20) } else { y = max(0, y - 12) }
                    frame(after: 16_000) { $0.move(0, x, y) }
                }
                frame(after: 16_000) { $0.up(0) }
            }
        }
        r.advance(to: time + 5_000_000)
        r.shutdown()
        return (lines, r.takeContacts(), recognized)
    }

    @Test(arguments: Array(1...24) as [UInt64])
    func everyOtherMessageIsTheSame(seed: UInt64) {
        let without = Self.replay(seed: seed, gestures: false)
        let with = Self.replay(seed: seed, gestures: true)
        #expect(without.recognized.isEmpty)
        #expect(without.lines.count > 60, "seed \(seed): too little happened for the property to mean anything")
        if let k = without.lines.indices.first(where: { $0 >= with.lines.count || without.lines[$0] != with.lines[$0] }) ?? (without.lines.count == with.lines.count ? nil : without.lines.count) {
            Issue.record("seed \(seed): line \(k) differs:\n  without: \(k < without.lines.count ? without.lines[k] : "(end)")\n  with:    \(k < with.lines.count ? with.lines[k] : "(end)")")
        }
        let sameExport = without.contacts == with.contacts
        #expect(sameExport, "seed \(seed): the re-export differs (\(without.contacts.count) and \(with.contacts.count) frames)")
    }

    /// The property is not empty: over the seeds, every system gesture was recognized.
    @Test func everyGestureFiresSomewhere() {
        var seen: [String: Int] = [:]
        for seed in 1...24 as ClosedRange<UInt64> { for n in Self.replay(seed: seed, gestures: true).recognized { seen[n, default: 0] += 1 } }
        #expect(Set(seen.keys) == ["admin", "two", "exit", "hold", "back", "up"], "\(seen)")
    }
}
