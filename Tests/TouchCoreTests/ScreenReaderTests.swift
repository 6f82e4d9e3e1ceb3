import Testing
@testable import TouchCore
import TouchTestSupport

/// The screen reader in the engine: the stage takes its output's contacts, the gestures of
/// interface.md's table do what it says, an activation is a tap through the normal pipeline
/// (marked synthesized), turning it on or off cancels the touches down. Expectations from the
/// table, the reading order (title; coffee and tea on one row; size) and ReaderTimings.
@Suite struct ScreenReaderTests {
    static let menu = menu(reader: true)
    static func menu(reader: Bool) -> String { """
        {"screen": {"width": 800, "height": 480, "screenReader": \(reader)},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
           {"id": "title", "frame": [20, 10, 400, 40], "accessibility": {"label": "Menu", "traits": ["header"]}},
           {"id": "coffee", "frame": [20, 60, 320, 100], "control": "button", "accessibility": {"label": "Coffee", "value": "large", "hint": "Orders a coffee"}},
           {"id": "tea", "frame": [400, 60, 320, 100], "control": "button", "accessibility": {"label": "Tea"}},
           {"id": "size", "frame": [20, 200, 320, 60], "accessibility": {"label": "Size", "value": "3", "traits": ["adjustable"]}}]}}]}
        """
    }

    /// A rig on `json` whose clock stands at `seconds`.
    func rig(_ json: String = menu, at seconds: Double = 1) -> Rig {
        let r = Rig(config(json))
        r.finger.time = Int64(seconds * 1e6)
        return r
    }
    func at(_ r: Rig, _ s: Double) { r.finger.time = Int64((s * 1e6).rounded()) }

    /// One finger held still on coffee from `s` seconds: after a tap's 300 ms it explores.
    func focusCoffee(_ r: Rig, at s: Double) {
        at(r, s); r.down(100, 100)
        at(r, s + 0.4); r.up()
    }

    @Test func exploringReadsWhatIsUnderTheFingerAndNoViewSeesIt() {
        let r = rig()
        r.down(100, 100)                           // 1.00 s
        at(r, 1.35)
        r.move(500, 110)                           // the timer at 1.30 explored coffee first
        r.up()
        #expect(r.take() == ["focus coffee", "say Coffee, large, button", "say Orders a coffee (queued)", "focus tea", "say Tea, button"])
        #expect(r.messages.allSatisfy { if case .frame = $0 { return false }; return true })
        #expect(r.engine.accessibilityFocus(output: "screen") == r.engine.scene.viewIndex["tea"])
    }

    @Test func aDoubleTapAnywhereActivatesTheFocusedElementAsATap() {
        let r = rig()
        focusCoffee(r, at: 1)
        _ = r.take()
        at(r, 2.0); r.down(600, 400)              // nothing there; the first tap does not focus
        at(r, 2.05); r.up()
        at(r, 2.15); r.down(602, 401)
        at(r, 2.2); r.up()
        #expect(r.take() == ["activate coffee", "t1 began coffee synthesized", "coffee touchDown",
                             "t1 ended coffee synthesized", "coffee touchUpInside", "coffee primaryActionTriggered"])
        let controls = r.messages.compactMap { if case .control(let c) = $0 { return c.synthesized }; return nil }
        #expect(controls == [true, true, true])
        // The tap went to coffee's activation point, the centre of its frame.
        let began = r.messages.compactMap { m -> Point? in if case .frame(let f) = m { return f.touches.first?.location }; return nil }
        #expect(began.first == Point(180, 110))
        r.advance(to: 3_000_000)
        #expect(r.take().isEmpty)                  // the focus stayed on coffee
    }

    @Test func aSingleTapFocusesOnceTheDoubleTapIntervalIsOver() {
        let r = rig()
        r.down(500, 100)                           // tea, 1.00
        at(r, 1.05); r.up()
        r.advance(to: 1_299_000)
        #expect(r.take().isEmpty)
        r.advance(to: 1_300_000)                   // 250 ms after the lift
        #expect(r.take() == ["focus tea", "say Tea, button"])
    }

    @Test func swipesMoveThroughTheReadingOrderAndAdjust() {
        let r = rig()
        func flick(_ dx: Int32, _ dy: Int32) {
            r.down(400, 300); at(r, Double(r.finger.time) / 1e6 + 0.03)
            r.move(400 + dx, 300 + dy); at(r, Double(r.finger.time) / 1e6 + 0.03)
            r.up(); at(r, Double(r.finger.time) / 1e6 + 0.5)
        }
        flick(80, 0)                               // no focus: the first element
        flick(80, 0)
        flick(-80, 0)
        #expect(r.take() == ["focus title", "say Menu, heading", "focus coffee", "say Coffee, large, button", "say Orders a coffee (queued)",
                             "focus title", "say Menu, heading"])
        flick(-80, 0)                              // none before the first
        flick(0, -80)                              // a heading is not adjustable
        #expect(r.take().isEmpty)
        for _ in 0..<3 { flick(80, 0) }            // coffee, tea, size
        _ = r.take()
        flick(80, 0)                               // none after the last
        flick(0, -80)
        flick(0, 80)
        #expect(r.take() == ["increment size", "decrement size"])
    }

    @Test func twoFingerTapsPauseResumeAndMagicTap() {
        let r = rig()
        func twoTap(_ s: Double) {
            at(r, s); r.finger.down(0, 300, 300); r.finger.down(1, 400, 300); r.frame()
            at(r, s + 0.08); r.finger.up(0); r.finger.up(1); r.frame()
        }
        twoTap(1.0)
        r.advance(to: 1_400_000)
        twoTap(2.0)
        r.advance(to: 2_400_000)
        #expect(r.take() == ["speech pause", "speech resume"])
        focusCoffee(r, at: 3)
        _ = r.take()
        twoTap(4.0)
        twoTap(4.2)                                // within 250 ms of the first's lift
        #expect(r.take() == ["magicTap coffee"])
    }

    @Test func aPassThroughTouchReachesItsViewUntilItLifts() {
        let r = rig()
        at(r, 1.0); r.down(500, 100)
        at(r, 1.05); r.up()
        at(r, 1.15); r.down(500, 100)             // the second touch, held
        at(r, 1.7); r.move(510, 100)              // its hold passed at 1.65
        at(r, 1.8); r.up()
        #expect(r.take() == ["t1 began tea", "tea touchDown", "t1 moved tea", "tea touchDragInside", "t1 ended tea", "tea touchUpInside", "tea primaryActionTriggered"])
    }

    @Test func turningTheReaderCancelsTouchesDownAndTheRequestsFollowTheRule() {
        let r = rig(Self.menu(reader: false))
        r.down(100, 100)
        _ = r.take()
        #expect(r.send(sceneRequest(#"{"screenReader": {"output": "screen", "on": true}}"#), from: 1) == .accessibility(.screenReader(output: "screen", on: true)))
        // The touch down ends for its views (screen-reader); turned on, the reader reads the first element.
        #expect(r.take() == ["t1 cancelled coffee screen-reader", "coffee touchCancel", "focus title", "say Menu, heading"])
        r.move(110, 100)
        r.up()
        #expect(r.take().isEmpty)                  // ignored until it lifts
        r.limits.actsOn = ["elsewhere"]
        let refused = r.send(sceneRequest(#"{"announce": {"output": "screen", "text": "Hello"}}"#), from: 2)
        #expect(refused?.isRefusal == true)
        r.limits.actsOn = nil
        #expect(r.send(sceneRequest(#"{"announce": {"output": "screen", "text": "Card accepted"}}"#), from: 2) == .accessibility(.announced(output: "screen")))
        #expect(r.take() == ["say Card accepted"])
        #expect(r.send(sceneRequest(#"{"screenReader": {"output": "screen", "on": false}}"#), from: 1) == .accessibility(.screenReader(output: "screen", on: false)))
        r.tap(100, 100)
        #expect(r.take() == ["t2 began coffee", "coffee touchDown", "t2 ended coffee", "coffee touchUpInside", "coffee primaryActionTriggered"])
    }

    @Test func threeFingersScrollAPageAndSayWhichPage() {
        let r = rig("""
            {"screen": {"width": 800, "height": 480, "screenReader": true},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
               {"id": "list", "frame": [0, 0, 800, 400], "scroll": {"contentSize": [800, 1000]}, "subviews": [
                 {"id": "r1", "frame": [0, 0, 800, 100], "accessibility": {"label": "One"}},
                 {"id": "r5", "frame": [0, 400, 800, 100], "accessibility": {"label": "Five"}},
                 {"id": "r9", "frame": [0, 900, 800, 100], "accessibility": {"label": "Nine"}}]}]}}]}
            """)
        func swipeUp(_ s: Double) {
            at(r, s); for k in Int32(0)..<3 { r.finger.down(k, 200 + k * 100, 350) }; r.frame()
            at(r, s + 0.05); for k in Int32(0)..<3 { r.finger.move(k, 200 + k * 100, 250) }; r.frame()
            at(r, s + 0.1); for k in Int32(0)..<3 { r.finger.up(k) }; r.frame()
        }
        swipeUp(1.0)
        // 400 points a page: 0 → 400 (page 2 of 3, 1000 / 400 rounded up); r5 is shown first.
        #expect(r.scrolls().map(\.offset) == [Point(0, 400)])
        #expect(r.take() == ["focus r5", "say page 2 of 3"])
        swipeUp(2.0)                               // 400 → 600, the end: the last page
        #expect(r.take() == ["focus r9", "say page 3 of 3"])
        swipeUp(3.0)                               // at the end: nothing
        #expect(r.take().isEmpty)
    }

    @Test func nothingIsReExportedWhileTheReaderIsOn() {
        let r = rig()
        r.engine.exportContacts(device: r.device, true)
        r.down(100, 100)
        r.up()
        #expect(r.takeContacts().isEmpty)
        _ = r.send(sceneRequest(#"{"screenReader": {"output": "screen", "on": false}}"#), from: 1)
        r.down(100, 100)
        r.up()
        #expect(r.takeContacts().count == 2)
    }

    @Test func eachOutputHasItsOwnReader() {
        // The reader is on for DSI-1 only; the rig's device is on HDMI-A-1: its taps are taps.
        var settings = DeviceSettings()
        settings.output = "HDMI-A-1"
        let r = Rig(config("""
            {"outputs": [{"id": "DSI-1", "width": 800, "height": 480, "screenReader": true}, {"id": "HDMI-A-1", "width": 800, "height": 480}],
             "windows": [{"id": "a", "output": "DSI-1", "frame": [0, 0, 800, 480], "view": {"id": "ra", "frame": [0, 0, 800, 480], "subviews": [
                            {"id": "ok", "frame": [0, 0, 200, 100], "control": "button", "accessibility": {"label": "OK"}}]}},
                         {"id": "b", "output": "HDMI-A-1", "frame": [0, 0, 800, 480], "view": {"id": "rb", "frame": [0, 0, 800, 480], "subviews": [
                            {"id": "go", "frame": [0, 0, 200, 100], "control": "button", "accessibility": {"label": "Go"}}]}}]}
            """), settings: settings)
        r.finger.time = 1_000_000
        r.down(50, 50)
        r.finger.time = 1_400_000
        r.up()
        #expect(r.take() == ["t1 began go", "go touchDown", "t1 ended go", "go touchUpInside", "go primaryActionTriggered"])
        #expect(r.engine.isScreenReaderOn(output: "DSI-1") && !r.engine.isScreenReaderOn(output: "HDMI-A-1"))
    }

    @Test func aReloadTurnsTheReaderOnlyWhereTheConfigChangedIt() {
        let r = rig()
        focusCoffee(r, at: 1)
        _ = r.take()
        // The same config again: still on, the focus follows coffee into the new scene by id.
        r.replaceScene(config(Self.menu).scene, time: 2_000_000)
        #expect(r.engine.isScreenReaderOn(output: "screen"))
        #expect(r.engine.accessibilityFocus(output: "screen") == r.engine.scene.viewIndex["coffee"])
        // A client turns it off; a reload that does not change the config leaves it off.
        _ = r.send(sceneRequest(#"{"screenReader": {"output": "screen", "on": false}}"#), from: 1)
        r.replaceScene(config(Self.menu).scene, time: 3_000_000)
        #expect(!r.engine.isScreenReaderOn(output: "screen"))
        // A config that turns it off, then on again: on (it reads the first element).
        r.replaceScene(config(Self.menu(reader: false)).scene, time: 4_000_000)
        #expect(!r.engine.isScreenReaderOn(output: "screen"))
        _ = r.take()
        r.replaceScene(config(Self.menu).scene, time: 5_000_000)
        #expect(r.engine.isScreenReaderOn(output: "screen"))
        #expect(r.take() == ["focus title", "say Menu, heading"])
    }

    @Test func turningItOffCancelsATouchPassingThrough() {
        let r = rig()
        at(r, 1.0); r.down(500, 100)
        at(r, 1.05); r.up()
        at(r, 1.15); r.down(500, 100)
        r.advance(to: 1_700_000)                    // passing through since 1.65
        #expect(r.take() == ["t1 began tea", "tea touchDown"])
        at(r, 1.75)
        _ = r.send(sceneRequest(#"{"screenReader": {"output": "screen", "on": false}}"#), from: 1)
        #expect(r.take() == ["t1 cancelled tea screen-reader", "tea touchCancel"])
        r.up()
        #expect(r.take().isEmpty)
    }
}
