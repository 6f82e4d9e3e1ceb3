import Testing
import TouchCore
import TouchTestSupport

/// Whole windows and scenes going away (a reload, a detach, a client gone) under fingers and
/// moving scroll views.
@Suite struct LiveSceneRemovalTests {
    let list = """
    {"attach": {"id": "w", "frame": [0, 0, 800, 480], "level": 1,
                "view": {"id": "list", "frame": [0, 0, 800, 480], "scroll": {"contentSize": [800, 4000]},
                         "gestures": [{"id": "dbl", "kind": "tap", "taps": 2}],
                         "subviews": [{"id": "row", "frame": [0, 0, 800, 100], "control": "button"}]}}}
    """

    @Test func aReloadMidDragAndADetachWhileDeceleratingLeaveNothingBehind() {
        let r = Rig(config(liveBase))
        r.send(list, from: 1)
        r.down(400, 50, slot: 0)
        r.down(100, 300, slot: 1)
        for k in 1...6 { r.move(400, Int32(300 - k * 20), slot: 0) }
        _ = r.take()
        r.engine.replaceScene(config(liveBase).scene, time: r.finger.time); r.collect()
        _ = r.take()
        for k in 1...3 { r.move(400, Int32(180 - k * 20), slot: 0) }
        r.up(slot: 0); r.up(slot: 1)
        _ = r.take()
        #expect(r.engine.liveTouchCount == 0)
        // A flick, then a detach while the list decelerates, then the same window again (its
        // slots reused) from another client.
        r.down(400, 400)
        for k in 1...5 { r.move(400, Int32(400 - k * 40)) }
        r.up()
        _ = r.take()
        r.engine.advance(to: r.finger.time + 50_000); r.collect()
        #expect(r.engine.isMoving)
        r.send(#"{"detach": {"window": "w"}}"#, from: 1)
        #expect(!r.engine.isMoving)
        #expect(r.send(list, from: 2) == .attached(window: "w", version: 1))
        r.engine.advance(to: r.finger.time + 3_000_000); r.collect()
        #expect(r.take().isEmpty)   // nothing moves on in the new window
        r.gone(2)
        #expect(r.scene.viewIndex["list"] == nil)
        r.tap(400, 50)
        #expect(r.take().first == "t4 began root")
    }
}
