import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct ControlTests {
    // Button at (100, 100) size 100×50 in a parent that handles touches.
    let cfg = scene("""
        {"id": "parent", "frame": [0, 0, 800, 480], "touches": "handle",
         "subviews": [{"id": "ok", "frame": [100, 100, 100, 50], "control": "button"},
                      {"id": "off", "frame": [300, 100, 100, 50], "control": "button", "enabled": false}]}
        """)

    func events(_ body: (inout Finger) -> Void) -> [String] {
        var f = Finger()
        body(&f)
        return run(cfg, f.events).controls.map(\.event.rawValue)
    }

    @Test func tapInsideSendsDownUpInsideAndPrimaryAction() {
        #expect(events { tap(150, 120, into: &$0) } == ["touchDown", "touchUpInside", "primaryActionTriggered"])
    }

    @Test func theParentReceivesNothing() {     // S8
        var f = Finger(); tap(150, 120, into: &f)
        let frames = run(cfg, f.events).frames
        #expect(frames.map { cfg.scene.describe($0.calls) } == [["ok.touchesBegan(1)"], ["ok.touchesEnded(1)"]])
    }

    @Test func dragToleranceIsSeventyPointsAroundTheBounds() {
        // Bounds 0…100 × 0…50 grown by 70: x in [-70, 170), y in [-70, 120).
        #expect(events { f in
            f.down(0, 150, 120); f.syn()
            f.move(0, 269, 120); f.syn()     // local x 169: inside the tolerance
            f.move(0, 270, 120); f.syn()     // local x 170: outside
            f.move(0, 150, 189); f.syn()     // local y 89: back inside
            f.move(0, 150, 190); f.syn()     // local y 90: still inside (< 120)
            f.move(0, 150, 220); f.syn()     // local y 120: outside
            f.up(0); f.syn()
        } == ["touchDown", "touchDragInside", "touchDragExit", "touchDragOutside", "touchDragEnter", "touchDragInside",
              "touchDragInside", "touchDragExit", "touchDragOutside", "touchUpOutside"])
    }

    @Test func liftInsideTheToleranceButOutsideTheBoundsIsStillUpInside() {
        #expect(events { f in
            f.down(0, 150, 120); f.syn()
            f.move(0, 250, 120); f.syn()     // 50 points right of the button
            f.up(0); f.syn()
        } == ["touchDown", "touchDragInside", "touchUpInside", "primaryActionTriggered"])
    }

    @Test func cancelSendsTouchCancel() {
        #expect(events { f in f.down(0, 150, 120); f.syn() } == ["touchDown", "touchCancel"])
    }

    @Test func secondQuickTapSendsTouchDownRepeat() {
        #expect(events { f in
            f.down(0, 150, 120); f.syn(after: 50); f.up(0); f.syn(after: 100)
            f.down(0, 150, 120); f.syn(after: 50); f.up(0); f.syn(after: 100)
        } == ["touchDown", "touchUpInside", "primaryActionTriggered",
              "touchDown", "touchDownRepeat", "touchUpInside", "primaryActionTriggered"])
    }

    @Test func disabledControlFallsThroughToItsParent() {     // S9 (disabled control)
        var f = Finger(); tap(350, 120, into: &f)
        let messages = run(cfg, f.events)
        #expect(messages.controls.isEmpty)
        #expect(messages.frames[0].touches[0].view == cfg.scene.viewIndex["parent"])
        #expect(cfg.scene.describe(messages.frames[0].calls) == ["parent.touchesBegan(1)"])
    }

    @Test func controlEventsNameTheControlAndTouch() {
        var f = Finger(); tap(150, 120, into: &f)
        let c = run(cfg, f.events).controls
        #expect(c.allSatisfy { $0.control == cfg.scene.viewIndex["ok"] && $0.touch == 1 })
        #expect(c.map(\.seq) == c.map(\.seq).sorted())
    }

    @Test func controlTracksOnlyItsFirstTouchUnlessMultipleTouch() {
        #expect(events { f in
            f.down(0, 150, 120); f.syn()
            f.down(1, 160, 130); f.syn()     // second finger on the same button: ignored
            f.up(1); f.syn()
            f.up(0); f.syn()
        } == ["touchDown", "touchUpInside", "primaryActionTriggered"])
    }
}
