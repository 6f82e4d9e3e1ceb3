import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20, item 1. UIKit never leaves a scroll view past its edge or between pages once no
/// finger is down: UIScrollView's bounce "returns the content to the edge" after a drag past it,
/// and with isPagingEnabled "the scroll view stops on multiples of the scroll view's bounds when
/// the user scrolls" (Apple, UIScrollView.bounces / isPagingEnabled). A finger that catches the
/// content during the spring back or the page settle holds it where it is (the content stays
/// under the finger, as a touch on a decelerating scroll view stops it), and once it lifts the
/// spring or the settle finishes from there.
@Suite struct ScrollNeverStuckTests {
    func list(_ extra: String = "") -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 400], "scroll": {"contentSize": [400, 4000] \(extra)},
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100]}]}
            """)
    }

    /// Pulls the list down 200 points past its top and lifts at t = 210 ms.
    func pullDown(_ r: Rig) {
        var f = Finger()
        f.down(0, 200, 100); f.syn(after: 10)
        for k in 1...10 { f.move(0, 200, 100 + 20 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
    }

    var listIndex: (Rig) -> ViewIndex { { $0.engine.scene.viewIndex["list"]! } }

    @Test func aTapCatchingTheSpringBackLetsItFinish() {
        let r = Rig(list())
        pullDown(r)
        r.advance(to: 260_000)                              // 50 ms into the spring back
        let caught = r.engine.scene[listIndex(r)].boundsOrigin
        #expect(caught.y < -1, "still past the top when caught: \(caught)")
        var f = Finger()
        f.time = 260_000
        let whileHeld = r.messages.count
        f.down(0, 200, 200); f.syn(after: 80)               // held still for 80 ms
        f.up(0); f.syn()
        r.feed(f)
        // While the finger was down the content stayed under it (the one message then says it
        // no longer decelerates, at the same offset: ScrollFlagsTests).
        let held = r.scrolls(from: whileHeld).filter { $0.time < 340_000 }
        #expect(held.allSatisfy { $0.offset == caught && !$0.decelerating }, "\(held)")
        r.advance(to: 5_000_000)
        let last = r.scrolls().last!
        #expect(last.offset == Point(0, 0), "rests at the top edge, not at \(last.offset)")
        #expect(!last.dragging && !last.decelerating)
        #expect(r.engine.scene[listIndex(r)].boundsOrigin == Point(0, 0))
    }

    @Test func aTapCatchingAPageSettleLetsItSettleOnAPage() {
        let r = Rig(list(", \"pagingEnabled\": true"))
        var f = Finger()
        f.down(0, 200, 300); f.syn(after: 10)
        for k in 1...5 { f.move(0, 200, 300 - 20 * Int32(k)); f.syn(after: 10) }   // a flick up
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 120_000)
        let caught = r.engine.scene[listIndex(r)].boundsOrigin.y
        #expect(caught.truncatingRemainder(dividingBy: 400) != 0, "caught between pages: \(caught)")
        var g = Finger()
        g.time = 120_000
        g.down(0, 200, 200); g.syn(after: 60)
        g.up(0); g.syn()
        r.feed(g)
        r.advance(to: 5_000_000)
        let rest = r.engine.scene[listIndex(r)].boundsOrigin.y
        #expect(rest.truncatingRemainder(dividingBy: 400) == 0, "rests on a page, not at \(rest)")
        #expect(r.scrolls().last?.offset.y == rest)
    }

    @Test func draggingACaughtSpringBackKeepsTheContentUnderTheFinger() {
        let r = Rig(list())
        pullDown(r)
        r.advance(to: 260_000)
        let caught = r.engine.scene[listIndex(r)].boundsOrigin.y
        let start = r.messages.count
        var f = Finger()
        f.time = 260_000
        f.down(0, 200, 200); f.syn(after: 10)
        for k in 1...5 { f.move(0, 200, 200 + 5 * Int32(k)); f.syn(after: 10) }   // 25 points down, slowly
        r.feed(f)
        let dragged = r.scrolls(from: start).filter(\.dragging)
        #expect(!dragged.isEmpty)
        // Past the edge the content follows the finger with the rubber band's resistance: it
        // moves the finger's way by less than the finger's 25 points, and never jumps back
        // toward the edge (the rubber band applied a second time jumped from −60.5 to −26.2).
        for s in dragged {
            #expect(s.offset.y <= caught + 0.001, "\(s.offset.y) vs caught \(caught)")
            #expect(s.offset.y >= caught - 25, "\(s.offset.y) vs caught \(caught)")
        }
    }
}
