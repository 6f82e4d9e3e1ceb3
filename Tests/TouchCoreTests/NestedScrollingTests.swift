import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20, item 2. Apple's Scroll View Programming Guide, "Nesting Scroll Views": "UIKit
/// supports nesting scroll views at right angles automatically" — a horizontal strip inside a
/// vertical list scrolls sideways, and a vertical drag over the strip scrolls the list. A scroll
/// view's pan does not begin along an axis it cannot scroll: one whose content fits that axis
/// (UIScrollView.contentSize), unless it always bounces there (alwaysBounceVertical: "If this
/// property is set to true and bounces is true, vertical dragging is allowed even if the
/// content is smaller than the bounds of the scroll view"; likewise alwaysBounceHorizontal).
@Suite struct NestedScrollingTests {
    /// A vertical list (content 4,000 points tall, as wide as the view) holding a strip 120
    /// points tall at y 100 that scrolls only sideways (content 2,000 points wide).
    func nested() -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "strip", "frame": [0, 100, 400, 120], "scroll": {"contentSize": [2000, 120]}}]}
            """)
    }

    /// One finger from (x0, y0) moving by (dx, dy) per 10 ms step, `steps` times, then lifting.
    func drag(_ r: Rig, from x0: Int32, _ y0: Int32, by dx: Int32, _ dy: Int32, steps: Int32 = 8) {
        var f = Finger()
        f.down(0, x0, y0); f.syn(after: 10)
        for k in 1...steps { f.move(0, x0 + dx * k, y0 + dy * k); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
    }

    @Test func aVerticalDragOverASidewaysStripScrollsTheListAroundIt() {
        let r = Rig(nested())
        drag(r, from: 200, 200, by: 0, -10)                    // up, starting on the strip
        #expect(r.states("strip.pan") == ["failed"], "\(r.states("strip.pan"))")
        #expect(r.states("list.pan").first == "began", "\(r.states("list.pan"))")
        #expect(r.scrolls(of: "strip").isEmpty)
        // The list followed the finger all the way, 80 points (offset = start − translation,
        // the translation counted from where the finger landed).
        #expect(r.scrolls(of: "list").first { $0.dragging }?.offset.x == 0)
        #expect(r.scrolls(of: "list").last { $0.dragging }?.offset.y == 80)
    }

    @Test func aSidewaysDragOverTheStripScrollsTheStripOnly() {
        let r = Rig(nested())
        drag(r, from: 300, 150, by: -10, 0)                    // left, on the strip
        #expect(r.states("strip.pan").first == "began")
        #expect(r.states("list.pan") == ["failed"], "\(r.states("list.pan"))")
        #expect(r.scrolls(of: "list").isEmpty)
        #expect(r.scrolls(of: "strip").last { $0.dragging }?.offset == Point(80, 0))
    }

    @Test func aDragAlongAnAxisWhoseContentFitsLeavesTheTouchToTheContent() {
        // A list that scrolls only vertically, a button row in it: a sideways drag of 40 points
        // (inside the control's 70-point tolerance) is the button's, not the list's.
        let r = Rig(scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "row", "frame": [0, 100, 400, 60], "control": "button"}]}
            """))
        drag(r, from: 100, 130, by: 5, 0)
        #expect(r.states("list.pan") == ["failed"], "\(r.states("list.pan"))")
        let events = r.messages.controls.map(\.event.rawValue)
        #expect(events.first == "touchDown", "\(events)")
        #expect(events.contains("touchUpInside"), "\(events)")
        #expect(r.scrolls(of: "list").isEmpty)
    }

    @Test func alwaysBounceVerticalLetsContentThatFitsBeDraggedAndSpringBack() {
        func short(_ extra: String) -> Config {
            scene("""
                {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 300] \(extra)}}
                """)
        }
        let plain = Rig(short(""))
        drag(plain, from: 200, 100, by: 0, 10)
        #expect(plain.states("list.pan") == ["failed"])
        #expect(plain.scrolls(of: "list").isEmpty)

        let bouncy = Rig(short(", \"alwaysBounceVertical\": true"))
        drag(bouncy, from: 200, 100, by: 0, 10)                // pulled down 80 points
        bouncy.advance(to: 5_000_000)
        #expect(bouncy.states("list.pan").first == "began")
        let s = bouncy.scrolls(of: "list")
        // Stretched by the rubber band while dragged: 80 points past the top show as
        // (1 − 1 / (80 · 0.55 / 480 + 1)) · 480 = 40.3 points.
        let deepest = s.map(\.offset.y).min() ?? 0
        #expect(abs(deepest + 40.30) < 0.01, "\(deepest)")
        #expect(s.allSatisfy { $0.offset.x == 0 })
        #expect(s.last?.offset == Point(0, 0), "springs back: \(s.last.map { "\($0.offset)" } ?? "none")")
        #expect(s.last.map { !$0.dragging && !$0.decelerating } == true)
        // Sideways it still does not drag: only the vertical axis always bounces.
        let sideways = Rig(short(", \"alwaysBounceVertical\": true"))
        drag(sideways, from: 100, 100, by: 10, 0)
        #expect(sideways.states("list.pan") == ["failed"])
    }

    @Test func alwaysBounceNeedsBounces() {
        let r = Rig(scene("""
            {"id": "list", "frame": [0, 0, 400, 480],
             "scroll": {"contentSize": [400, 300], "alwaysBounceVertical": true, "bounces": false}}
            """))
        drag(r, from: 200, 100, by: 0, 10)
        #expect(r.states("list.pan") == ["failed"])
    }

    @Test func theKeysAreBooleans() {
        let errors = problems("""
            {"screen": {"width": 800, "height": 480},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                          "view": {"id": "list", "frame": [0, 0, 400, 480],
                                   "scroll": {"contentSize": [400, 300], "alwaysBounceHorizontal": 1}}}]}
            """)
        #expect(errors.contains { $0.contains("windows[0].view.scroll.alwaysBounceHorizontal") }, "\(errors)")
    }
}
