import Testing
import TouchCore
import TouchTestSupport

/// A view that a client's update removes takes with it what referred to it: views added under
/// it, the touches recognizers and scroll views hold on it, its tap count, its pending
/// recognizers, the names other recognizers wait on. (Each was a failing test, or a crash,
/// before its fix.)
@Suite struct LiveSceneRemovedViewTests {
    /// An update that adds "z" under "panel", removes "panel" and adds a new view with the same
    /// id: "z" went with the old "panel", so a later change naming it is refused (before the
    /// fix the checker still took "z" for alive and the apply crashed).
    @Test func aReAddedParentDoesNotBringBackAChildAddedUnderTheOldOne() {
        let r = Rig(config(liveBase))
        r.send(dialog, from: 1)
        let u = """
        {"update": {"window": "dialog", "changes": [
            {"add": {"id": "z", "frame": [0, 0, 1, 1]}, "to": "panel"},
            {"remove": "panel"},
            {"add": {"id": "panel", "frame": [0, 0, 400, 200]}, "to": "dialog"},
            {"view": "z", "set": {"hidden": true}}]}}
        """
        guard case .refused(_, _, let e) = r.send(u, from: 1) else { Issue.record("applied"); return }
        #expect(e.path == "changes[3].view")
        // The same through a grandchild of the removed view (the view added under "ok", which
        // goes with "panel"), with set, add-to and remove after the id comes back.
        for last in [#"{"view": "z", "set": {"hidden": true}}"#, #"{"add": {"id": "y", "frame": [0, 0, 1, 1]}, "to": "z"}"#, #"{"remove": "z"}"#] {
            let v = """
            {"update": {"window": "dialog", "changes": [
                {"add": {"id": "z", "frame": [0, 0, 1, 1]}, "to": "ok"},
                {"remove": "panel"},
                {"add": {"id": "ok", "frame": [0, 0, 1, 1]}, "to": "dialog"},
                \(last)]}}
            """
            guard case .refused(_, _, let e2) = r.send(v, from: 1) else { Issue.record("applied: \(last)"); continue }
            #expect(e2.path.hasPrefix("changes[3]"))
        }
        #expect(r.scene[r.scene.viewIndex["dialog"]!].version == 1)
    }

    /// A recognizer on a surviving ancestor that holds a touch on a removed view hears of that
    /// touch's end and resets: it recognizes the next taps (before the fix it never heard of
    /// the touch again and never reset).
    @Test func anAncestorsRecognizerResetsAfterTheViewUnderItsTouchIsRemoved() {
        let r = Rig(config(liveBase))
        let pad = """
        {"attach": {"id": "pad", "frame": [400, 0, 400, 480],
                    "view": {"id": "pad-view", "frame": [0, 0, 400, 480],
                             "gestures": [{"id": "pad-tap", "kind": "tap"}],
                             "subviews": [{"id": "item", "frame": [0, 0, 100, 100]}]}}}
        """
        r.send(pad, from: 1)
        r.down(450, 50)            // on item; pad-tap sees it
        _ = r.take()
        r.send(#"{"update": {"window": "pad", "changes": [{"remove": "item"}]}}"#, from: 1)
        r.up()
        _ = r.take()
        r.finger.time += 1_000_000
        r.tap(600, 300)            // on pad-view
        r.engine.advance(to: r.finger.time + 1_000_000)
        r.collect()
        let lines = r.take()
        #expect(lines.contains("pad-tap recognized"), "\(lines)")
        r.tap(600, 300)
        r.engine.advance(to: r.finger.time + 1_000_000)
        r.collect()
        let lines2 = r.take()
        #expect(lines2.contains("pad-tap recognized"), "\(lines2)")
        #expect(r.engine.recognizers.first { $0.id == "pad-tap" }?.touches.count ?? 0 <= 1)
    }

    /// The same with a scroll view: the list's pan is dragging when the row under the finger is
    /// removed; the pan still ends with the finger's lift, and the next drag pans again.
    @Test func aScrollViewEndsItsDragAfterTheRowUnderTheFingerIsRemoved() {
        let r = Rig(config(liveBase))
        let list = """
        {"attach": {"id": "w", "frame": [0, 0, 800, 480], "level": 1,
                    "view": {"id": "list", "frame": [0, 0, 800, 480], "scroll": {"contentSize": [800, 4000]},
                             "subviews": [{"id": "row", "frame": [0, 0, 800, 100]}]}}}
        """
        r.send(list, from: 1)
        r.down(400, 50)
        for k in 1...6 { r.move(400, Int32(50 + 0 - k * 5)) }
        var lines = r.take()
        #expect(lines.contains("list.pan began"), "\(lines)")
        r.send(#"{"update": {"window": "w", "changes": [{"remove": "row"}]}}"#, from: 1)
        r.up()
        lines = r.take()
        #expect(lines.contains("list.pan ended") || lines.contains("list.pan cancelled"), "\(lines)")
        r.finger.time += 2_000_000
        r.engine.advance(to: r.finger.time)
        r.collect()
        _ = r.take()
        // A new drag on the (now empty) list.
        r.down(400, 300)
        for k in 1...6 { r.move(400, Int32(300 - k * 5)) }
        r.up()
        lines = r.take()
        #expect(lines.contains("list.pan began"), "\(lines)")
    }

    /// The tap count belongs to the view, not to its slot: a new view reusing the removed
    /// button's slot does not take a tap on it for a second tap of the old button (no
    /// touchDownRepeat).
    @Test func tapCountDoesNotCrossToANewViewInAReusedSlot() {
        let r = Rig(config(liveBase))
        r.send(dialog, from: 1)
        r.tap(200, 180)
        _ = r.take()
        r.send(#"{"update": {"window": "dialog", "changes": [{"remove": "ok"}, {"add": {"id": "other", "frame": [50, 50, 100, 50], "control": "button"}, "to": "panel"}]}}"#, from: 1)
        r.tap(200, 180)
        let lines = r.take()
        #expect(!lines.contains("other touchDownRepeat"), "\(lines)")
    }

    /// Removing a view whose double tap is waiting does not make the single tap that requires
    /// it to fail recognize: the removal itself fires no gesture.
    @Test func removingAViewFiresNoneOfItsPendingTaps() {
        let r = Rig(config(liveBase))
        let pad = """
        {"attach": {"id": "pad", "frame": [400, 0, 400, 480],
                    "view": {"id": "pad-view", "frame": [0, 0, 400, 480],
                             "subviews": [{"id": "item", "frame": [0, 0, 200, 200],
                               "gestures": [{"id": "double", "kind": "tap", "taps": 2},
                                            {"id": "single", "kind": "tap", "requireToFail": ["double"]}]}]}}}
        """
        #expect(r.send(pad, from: 1) == .attached(window: "pad", version: 1))
        r.tap(450, 50)
        _ = r.take()
        r.send(#"{"update": {"window": "pad", "changes": [{"remove": "item"}]}}"#, from: 1)
        let lines = r.take()
        #expect(!lines.contains("single recognized"), "\(lines)")
    }

    /// A requireToFail name that went with a detached window stays gone after a reload (before
    /// the fix it came back, naming a new recognizer with that id, and made a cycle).
    @Test func aReloadDoesNotResurrectStaleReferencesIntoACycle() {
        let r = Rig(config(liveBase))
        let w1 = #"{"attach": {"id": "w1", "frame": [0, 0, 10, 10], "view": {"id": "v1", "frame": [0, 0, 10, 10], "gestures": [{"id": "a", "kind": "tap"}]}}}"#
        #expect(r.send(w1, from: 1) == .attached(window: "w1", version: 1))
        let w2 = """
        {"attach": {"id": "w2", "frame": [400, 0, 400, 480], "level": 2,
                    "view": {"id": "p", "frame": [0, 0, 400, 480], "gestures": [{"id": "b", "kind": "tap", "requireToFail": ["a"]}]}}}
        """
        #expect(r.send(w2, from: 1) == .attached(window: "w2", version: 1))
        #expect(r.send(#"{"detach": {"window": "w1"}}"#, from: 1) == .detached(window: "w1"))
        let add = #"{"update": {"window": "w2", "changes": [{"add": {"id": "c", "frame": [0, 0, 400, 480], "gestures": [{"id": "a", "kind": "tap", "requireToFail": ["b"]}]}, "to": "p"}]}}"#
        #expect(r.send(add, from: 1) == .updated(window: "w2", version: 2))
        r.tap(600, 200)
        r.engine.advance(to: r.finger.time + 1_000_000)
        r.collect()
        let before = r.take()
        // b's requirement went with the first "a": b wins the tap, the new "a" (waiting on b)
        // fails, and the touch ends for c.
        #expect(before == ["t1 began c", "b recognized", "a failed", "t1 cancelled c gesture"], "before reload: \(before)")
        r.engine.replaceScene(config(liveBase).scene, time: r.finger.time)
        r.collect()
        _ = r.take()
        r.finger.time += 1_000_000
        r.tap(600, 200)
        r.engine.advance(to: r.finger.time + 1_000_000)
        r.collect()
        let after = r.take()
        // The reload rebuilds the recognizers from the scene's settings: the same, no cycle
        // (before the fix b required the new "a" again, and both waited for ever).
        #expect(after == ["t2 began c", "b recognized", "a failed", "t2 cancelled c gesture"], "after reload: \(after)")
    }
}
