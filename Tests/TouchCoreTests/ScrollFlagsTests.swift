import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20, item 8. UIScrollView.isDragging is true while the user's finger moves the
/// content and false once it lifts; isDecelerating is true while the content moves on after
/// the finger lifted and false once it stops — including when a touch stops it ("touching a
/// decelerating scroll view stops it"). touchd's `scroll` message carries both flags; it goes
/// out when the offset changes and also when a flag turns false without the offset changing,
/// so the last message always says how the view is.
@Suite struct ScrollFlagsTests {
    func list() -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 400], "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100]}]}
            """)
    }

    @Test func aDragThatEndsWithoutMotionSaysItIsNoLongerDragging() {
        let r = Rig(list())
        var f = Finger()
        f.down(0, 200, 300); f.syn(after: 10)
        for k in 1...5 { f.move(0, 200, 300 - 20 * Int32(k)); f.syn(after: 10) }
        f.syn(after: 300)                          // held still: no velocity left
        let lifted = f.time
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 5_000_000)
        let all = r.scrolls()
        let dragged = all.dropLast().allSatisfy { $0.dragging }
        #expect(dragged)
        let last = all.last!
        #expect(!last.dragging && !last.decelerating, "\(last)")
        #expect(last.offset == all[all.count - 2].offset)          // the offset did not change
        #expect(last.time == lifted)                                // said when the finger lifted
    }

    @Test func aTouchThatStopsADeceleratingViewSaysItIsNoLongerDecelerating() {
        let r = Rig(list())
        var f = Finger()
        f.down(0, 200, 300); f.syn(after: 10)
        for k in 1...5 { f.move(0, 200, 300 - 20 * Int32(k)); f.syn(after: 10) }   // a flick
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 200_000)
        #expect(r.scrolls().last?.decelerating == true)
        var g = Finger()
        g.time = 200_000
        g.down(0, 200, 200); g.syn(after: 50)
        let start = r.messages.count
        r.feed(g)
        let after = r.scrolls(from: start)
        #expect(after.count == 1)
        let said = after.first
        #expect(said?.dragging == false && said?.decelerating == false && said?.time == 200_000, "\(after)")
        // Nothing more follows: not when the finger lifts, not later.
        g.up(0); g.syn()
        let more = r.messages.count
        r.feed(g)
        r.advance(to: 5_000_000)
        #expect(r.scrolls(from: more).isEmpty)
    }
}
