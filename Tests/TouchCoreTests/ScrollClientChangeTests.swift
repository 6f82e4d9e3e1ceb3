import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 31, items 1–2 and the other keys: a client changes a scroll view while it moves on
/// after a flick. UIKit: a new contentSize does not end a deceleration (a feed that loads more
/// while flung keeps going; only an offset now past the end is clamped); setContentOffset(_:
/// animated: false) stops it, and scrollViewDidScroll tells of the new offset (a `scroll`
/// message); a change of pagingEnabled, bounces or the view's size settles at a valid offset.
@Suite struct ScrollClientChangeTests {
    /// A client's list, 400 × 480, content `height` tall.
    func list(_ height: Int, _ extra: String = "") -> String {
        """
        {"attach": {"id": "feed", "frame": [0, 0, 400, 480], "level": 1,
                    "view": {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, \(height)] \(extra)}}}}
        """
    }

    func set(_ keys: String) -> String {
        #"{"update": {"window": "feed", "changes": [{"view": "list", "set": \#(keys)}]}}"#
    }

    func offset(_ r: Rig) -> Point { r.scene[r.scene.viewIndex["list"]!].boundsOrigin }
    func moving(_ r: Rig) -> Bool { r.engine.scrolls.isMoving(r.scene.viewIndex["list"]!) }

    /// A client's list, flicked upward at 2,000 points a second; 100 ms after the lift, `change`
    /// (if any) is sent; then the motion runs its course. The scroll messages from the change on.
    func flung(_ height: Int, _ extra: String = "", change: String?) -> (rig: Rig, after: [ScrollMessage]) {
        let r = Rig(config(liveBase))
        #expect(r.send(list(height, extra), from: 1) == .attached(window: "feed", version: 1))
        var f = Finger()
        f.time = r.finger.time
        f.down(0, 200, 460); f.syn(after: 10)
        for k in 1...8 { f.move(0, 200, 460 - 20 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: f.time + 100_000)
        #expect(moving(r))
        r.finger.time = f.time + 100_000
        let before = r.scrolls().count
        if let change { #expect(r.send(change, from: 1) == .updated(window: "feed", version: 2)) }
        r.advance(to: f.time + 10_000_000)
        return (r, Array(r.scrolls()[before...]))
    }

    // MARK: 1. Content size

    @Test func moreContentKeepsTheMotionAsIfItHadAlwaysBeenThere() {
        let grown = flung(1500, change: set(#"{"scroll": {"contentSize": [400, 3000]}}"#))
        let long = flung(3000, change: nil)
        #expect(grown.after.first?.decelerating == true)
        #expect(grown.after.map(\.offset) == long.after.map(\.offset))
        #expect(grown.after.map(\.decelerating) == long.after.map(\.decelerating))
        #expect(offset(grown.rig).y > 1020, "\(offset(grown.rig))")   // past the old end, without bouncing there
    }

    @Test func theSameContentSizeAgainChangesNothing() {
        let same = flung(1500, change: set(#"{"scroll": {"contentSize": [400, 1500], "bounces": true}}"#))
        let alone = flung(1500, change: nil)
        #expect(same.after.count > 10)
        #expect(same.after.map(\.offset) == alone.after.map(\.offset))
        #expect(same.after.map(\.decelerating) == alone.after.map(\.decelerating))
    }

    @Test func lessContentStillAheadKeepsTheMotionToTheNewEnd() {
        let r = flung(1500, change: set(#"{"scroll": {"contentSize": [400, 1100]}}"#))
        #expect(r.after.first?.decelerating == true)
        #expect(r.after.last?.offset == Point(0, 620) && r.after.last?.decelerating == false)   // 1,100 − 480
    }

    // MARK: 2. The client's own offset

    @Test func aClientsOffsetStopsTheFlingAndIsPublished() {
        let r = flung(1500, change: set(#"{"boundsOrigin": [0, 0]}"#))
        #expect(r.after.count == 1, "\(r.after.map(\.offset))")
        #expect(r.after.first?.offset == Point(0, 0))
        #expect(r.after.first?.dragging == false && r.after.first?.decelerating == false)
        #expect(offset(r.rig) == Point(0, 0))
        #expect(!moving(r.rig))
    }

    @Test func aClientsOffsetOnAStillScrollViewSaysNothingAsBefore() {
        let r = Rig(config(liveBase))
        r.send(list(1500), from: 1)
        #expect(r.send(set(#"{"boundsOrigin": [0, 300]}"#), from: 1) == .updated(window: "feed", version: 2))
        #expect(offset(r) == Point(0, 300))
        #expect(r.scrolls().isEmpty)
    }

    // MARK: The other keys

    @Test func pagingTurnedOnSettlesOnAPage() {
        let r = flung(3000, change: set(#"{"scroll": {"pagingEnabled": true}}"#))
        let end = r.after.last?.offset.y ?? -1
        #expect(end.truncatingRemainder(dividingBy: 480) == 0, "\(end)")
        #expect(r.after.last?.decelerating == false)
        #expect(!moving(r.rig))
    }

    @Test func pagingTurnedOffDuringASettleDeceleratesFromThere() {
        let r = flung(3000, #", "pagingEnabled": true"#, change: set(#"{"scroll": {"pagingEnabled": false}}"#))
        #expect(r.after.last?.decelerating == false)
        let end = offset(r.rig).y
        #expect(end >= 0 && end <= 2520)
    }

    @Test func bouncesTurnedOffPastTheEndClampsAtTheEnd() {
        // 600 points of content: the flick runs past the end (120) and springs back from there.
        let r = Rig(config(liveBase))
        r.send(list(600), from: 1)
        var f = Finger()
        f.time = r.finger.time
        f.down(0, 200, 460); f.syn(after: 10)
        for k in 1...8 { f.move(0, 200, 460 - 20 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
        var t = f.time
        while offset(r).y <= 120 && t < f.time + 2_000_000 { t += 16_000; r.advance(to: t) }
        #expect(offset(r).y > 120, "\(offset(r))")
        r.finger.time = t
        #expect(r.send(set(#"{"scroll": {"bounces": false}}"#), from: 1) == .updated(window: "feed", version: 2))
        #expect(offset(r) == Point(0, 120))
        #expect(r.scrolls().last?.offset == Point(0, 120) && r.scrolls().last?.decelerating == false)
        r.advance(to: t + 3_000_000)
        #expect(offset(r) == Point(0, 120))
    }

    @Test func aSmallerViewDuringAPageSettleSettlesOnItsPages() {
        let r = flung(3000, #", "pagingEnabled": true"#, change: set(#"{"frame": [0, 0, 400, 300]}"#))
        let end = offset(r.rig).y
        #expect(end.truncatingRemainder(dividingBy: 300) == 0 || end == 2700, "\(end)")
        #expect(r.after.last?.decelerating == false)
        #expect(!moving(r.rig))
    }

    @Test func aTallerViewDuringAFlingEndsWithinTheContent() {
        let r = flung(1500, change: set(#"{"frame": [0, 0, 400, 1400]}"#))
        #expect(offset(r.rig).y >= 0 && offset(r.rig).y <= 100, "\(offset(r.rig))")
        #expect(r.after.last?.decelerating == false)
        #expect(!moving(r.rig))
    }
}
