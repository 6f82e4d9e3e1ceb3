import Testing
@testable import TouchCore
import TouchTestSupport

/// A scroll view against its content. UIScrollView.delaysContentTouches: the scroll view
/// "delays the handling of touch-down gestures until it can determine if scrolling is the
/// intent"; touchesShouldCancel(in:) "returns true if view is not a UIControl object;
/// otherwise, it returns false" (developer.apple.com/documentation/uikit/uiscrollview).
@Suite struct ScrollContentTests {
    func list(_ scroll: String, content: String = "\"control\": \"button\"") -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 1200] \(scroll)},
             "subviews": [{"id": "row", "frame": [0, 100, 400, 60], "touches": "handle", \(content)}]}
            """)
    }

    func controls(_ r: Rig) -> [String] {
        r.messages.compactMap { if case .control(let c) = $0 { return c.event.rawValue }; return nil }
    }
    func scrolled(_ r: Rig) -> Bool { r.messages.contains { if case .scroll = $0 { return true }; return false } }

    /// A flick that starts within the content delay: the scroll view's alone, even when it may
    /// not cancel content touches: a scroll or a press, never both.
    @Test func aFlickIsAScrollNotAPressEvenWithoutCancelling() {
        let r = Rig(list(", \"canCancelContentTouches\": false"))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 30)
        f.move(0, 100, 110); f.syn(after: 30)
        f.move(0, 100, 80); f.syn(after: 40)
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 2_000_000)
        #expect(controls(r).isEmpty)
        #expect(r.frames.isEmpty)          // the row never hears of the touch
        #expect(scrolled(r))
        #expect(r.states("list.pan").first == "began")
    }

    /// A button already tracking keeps its touch: the view does not scroll.
    @Test func aTrackingButtonKeepsItsTouchByDefault() {
        let r = Rig(list(""))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 200)            // the content delay (150 ms) passes: touchDown
        for k in 1...5 { f.move(0, 100, Int32(130 - 18 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 2_000_000)
        #expect(controls(r).first == "touchDown")
        #expect(controls(r).suffix(2) == ["touchUpInside", "primaryActionTriggered"])
        #expect(!controls(r).contains("touchCancel"))
        #expect(!scrolled(r))
        #expect(!r.states("list.pan").contains("began"))
    }

    /// cancelsControlTouches: true is touchesShouldCancel(in:) returning true for controls.
    @Test func cancelsControlTouchesLetsTheViewTakeTheButtonsTouch() {
        let r = Rig(list(", \"cancelsControlTouches\": true"))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 200)
        for k in 1...5 { f.move(0, 100, Int32(130 - 18 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        #expect(controls(r) == ["touchDown", "touchCancel"])
        #expect(scrolled(r))
    }

    /// Other content views are cancelled when the drag begins (touchesShouldCancel is true).
    @Test func plainContentIsCancelledWhenTheDragBegins() {
        let r = Rig(list("", content: "\"multipleTouch\": false"))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 200)
        for k in 1...5 { f.move(0, 100, Int32(130 - 18 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.calls.prefix(2) == ["row.touchesBegan(1)", "row.touchesCancelled(1)"])
        #expect(scrolled(r))
    }
}
