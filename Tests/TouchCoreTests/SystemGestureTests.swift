import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 44, item 2's scenario and the rules around it: a 5-tap maintenance corner over the
/// app's settings button — the button gets each of its taps, the gesture fires once, no lift is
/// held (the issue's attempt with a config window's 5-tap recognizer at level 5000 recognized,
/// but took the button's taps and held each lift 450 ms).
@Suite struct SystemGestureTests {
    static func config(_ extra: String = "") -> Config {
        try! Config.parse("""
            {"screen": {"width": 800, "height": 480}\(extra),
             "systemGestures": [
               {"name": "admin", "kind": "tap", "taps": 5, "within": 3.0, "region": [0, 0, 80, 80]},
               {"name": "exit", "kind": "longPress", "touches": 3, "duration": 2.0},
               {"name": "back", "kind": "edgeSwipe", "edge": "left"}],
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
               "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle",
                        "subviews": [{"id": "settings", "frame": [0, 0, 80, 80], "control": "button"},
                                     {"id": "list", "frame": [200, 0, 400, 480], "touches": "handle",
                                      "gestures": [{"id": "list-pan", "kind": "pan"}]}]}}]}
            """)
    }

    /// Five taps 300 ms apart at (40, 40), each 50 ms down; returns the lift times.
    @discardableResult
    func fiveTaps(_ r: Rig, from start: Int64, count: Int = 5) -> [Int64] {
        var lifts: [Int64] = []
        for k in 0..<count {
            r.finger.time = start + Int64(k) * 300_000
            r.down(40, 40)
            r.finger.time += 40_000
            lifts.append(r.finger.time)
            r.up()
        }
        return lifts
    }

    @Test func theCornerOverTheSettingsButton() {
        let r = Rig(Self.config())
        let lifts = fiveTaps(r, from: 1_000_000)
        let lines = r.take()
        // The button: each of its five taps, in full.
        #expect(lines.filter { $0 == "settings touchUpInside" }.count == 5)
        #expect(lines.filter { $0.hasSuffix("ended settings") }.count == 5)
        // The gesture: once, at the fifth lift.
        #expect(lines.filter { $0.hasPrefix("systemGesture") } == ["systemGesture admin screen"])
        let g = r.messages.compactMap { if case .systemGesture(let g) = $0 { return g }; return nil }
        #expect(g.map(\.time) == [lifts[4]])
        // No lift held: every ended reaches the views in the frame of the lift itself.
        let ends = r.frames.filter { $0.touches.contains { $0.phase == .ended } }.map(\.time)
        #expect(ends == lifts)
        // The button's taps counted as taps (tapCount 1, 2, 3 …: 300 ms apart, the same place).
        #expect(r.frames.flatMap(\.touches).filter { $0.phase == .began }.map(\.tapCount) == [1, 2, 3, 4, 5])
        #expect(r.engine.nextDeadline == nil)
    }

    @Test func slowOrStrayTapsDoNotCount() {
        let r = Rig(Self.config())
        // Too slow: five taps over 3.2 s.
        for k in 0..<5 {
            r.finger.time = 1_000_000 + Int64(k) * 800_000
            r.down(40, 40)
            r.finger.time += 40_000
            r.up()
        }
        #expect(!r.take().contains { $0.hasPrefix("systemGesture") })
        // One of five outside the region: the sequence starts again after it.
        r.finger.time = 10_000_000
        r.down(40, 40); r.finger.time += 40_000; r.up()
        r.finger.time += 200_000
        r.down(300, 300); r.finger.time += 40_000; r.up()
        #expect(!r.take().contains { $0.hasPrefix("systemGesture") })
        fiveTaps(r, from: 11_000_000)
        #expect(r.take().filter { $0.hasPrefix("systemGesture") } == ["systemGesture admin screen"])
    }

    /// A swallowed waking touch counts toward no system gesture: after the wake, five more.
    @Test func theWakingTapCountsForNothing() {
        let r = Rig(Self.config(#", "session": {"idle": 60}"#))
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        fiveTaps(r, from: 1_000_000)
        let lines = r.take()
        #expect(lines.first == "idle screen" && lines.contains("wake screen"))
        #expect(!lines.contains { $0.hasPrefix("systemGesture") })
        #expect(lines.filter { $0 == "settings touchUpInside" }.count == 4)
        r.finger.time = 2_300_000
        r.down(40, 40); r.finger.time += 40_000; r.up()
        #expect(r.take().filter { $0.hasPrefix("systemGesture") } == ["systemGesture admin screen"])
    }

    /// Three fingers held two seconds: recognized while they are down, and the views keep them.
    @Test func aLongPressWatchesWithoutCancelling() {
        let r = Rig(Self.config())
        r.finger.time = 1_000_000
        r.down(300, 100, slot: 0)
        r.down(350, 200, slot: 1)
        r.down(400, 300, slot: 2)          // the third at 1.02 s: 2 s from here
        r.advance(to: 3_019_999)
        #expect(!r.take().contains { $0.hasPrefix("systemGesture") })
        r.advance(to: 3_020_000)
        #expect(r.take() == ["systemGesture exit screen"])
        r.finger.time = 3_500_000
        r.up(slot: 0); r.up(slot: 1); r.up(slot: 2)
        #expect(!r.frames.flatMap(\.touches).contains { $0.phase == .cancelled })
        #expect(r.frames.flatMap(\.touches).filter { $0.phase == .ended }.count == 3)
    }

    /// From the left edge 100 points in: recognized mid-drag; the list's pan goes on as usual.
    @Test func anEdgeSwipeDuringADrag() {
        let r = Rig(Self.config())
        r.finger.time = 1_000_000
        r.down(10, 240)
        for x in stride(from: 30, through: 250, by: 20) { r.move(Int32(x), 240) }
        r.up()
        let lines = r.take()
        #expect(lines.filter { $0.hasPrefix("systemGesture") } == ["systemGesture back screen"])
        // Recognized at the move that reached x = 110 (100 points from 10).
        let g = r.messages.compactMap { if case .systemGesture(let g) = $0 { return g }; return nil }
        #expect(g.map(\.time) == [1_050_000])      // down at 1.00 s, then 20 points every 10 ms
        #expect(lines.first == "t1 began root" && lines.last == "t1 ended root")
    }

    /// A gesture on one output watches that output alone.
    @Test func aGestureWatchesItsOutput() {
        let cfg = try! Config.parse("""
            {"outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 800, "height": 480}],
             "systemGestures": [{"name": "b-only", "kind": "tap", "output": "B"}, {"name": "any", "kind": "tap", "taps": 2}],
             "windows": []}
            """)
        var onA = DeviceSettings(); onA.output = "A"
        let r = Rig(cfg, settings: onA)
        r.tap(10, 10)
        r.finger.time += 100_000
        r.tap(10, 10)
        #expect(r.take().filter { $0.hasPrefix("systemGesture") } == ["systemGesture any A"])
    }

    @Test func configErrorsNameTheirPlace() {
        func errors(_ gestures: String) -> [String] {
            do { _ = try Config.parse(#"{"windows": [], "systemGestures": \#(gestures)}"#); return [] } catch { return error.errors.map(\.description) }
        }
        #expect(errors(#"{"name": "x"}"#) == ["$.systemGestures: expected an array of system gestures, got an object (line 1)"])
        #expect(errors(#"[{"name": "x", "kind": "swipe"}]"#) == [#"$.systemGestures[0].kind: unknown system gesture kind "swipe" (expected one of: tap, longPress, edgeSwipe) (line 1)"#])
        #expect(errors(#"[{"kind": "tap"}]"#) == ["$.systemGestures[0].name: missing: the name its messages carry (touchd on-gesture NAME) (line 1)"])
        #expect(errors(#"[{"name": "x", "kind": "tap"}, {"name": "x", "kind": "longPress"}]"#) == [#"$.systemGestures[1].name: duplicate system gesture name "x" (already used at $.systemGestures[0]) (line 1)"#])
        #expect(errors(#"[{"name": "x", "kind": "tap", "duration": 2}]"#).first?.hasPrefix("$.systemGestures[0].duration: unknown key") == true)
        #expect(errors(#"[{"name": "x", "kind": "edgeSwipe"}]"#) == ["$.systemGestures[0].edge: missing: the edge it starts from (left, right, top, bottom) (line 1)"])
        #expect(errors(#"[{"name": "x", "kind": "tap", "taps": 21}]"#).first?.hasPrefix("$.systemGestures[0].taps: must be at most 20") == true)
        #expect(errors(#"[{"name": "x", "kind": "tap", "region": [0, 0, 0, 10]}]"#) == ["$.systemGestures[0].region: width and height must be more than 0 (line 1)"])
        #expect(errors(#"[{"name": "x", "kind": "tap", "output": "HDMI-A-1"}]"#) == [#"$.systemGestures[0].output: no output has id "HDMI-A-1" (outputs: screen) (line 1)"#])
        #expect(errors(#"[{"name": "x", "kind": "tap", "to": {"users": [""]}}]"#) == ["$.systemGestures[0].to.users[0]: a name must not be empty (line 1)"])
        let ok = try! Config.parse(#"{"windows": [], "systemGestures": [{"name": "admin", "kind": "tap", "taps": 5, "to": {"groups": ["touchd-kiosk"]}}]}"#)
        #expect(ok.kiosk.systemGestures == [SystemGestureSettings(name: "admin", kind: .tap(taps: 5, touches: 1, within: 2_500_000, region: nil),
                                                                  to: OwnersPolicy.Entry(groups: ["touchd-kiosk"]))])
    }
}
