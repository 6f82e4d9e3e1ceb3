import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 31, items 4–6: touches and control events that UIKit never sends. A disabled control
/// sends no actions (UIControl.isEnabled, read at each event: a client may disable a button
/// while a finger is on it); a recognizer that delays touchesBegan discards the touches it held
/// once it recognizes ("if the gesture recognizer subsequently recognizes its gesture, these
/// touch objects are discarded"), whatever cancelsTouchesInView says; and the tap that stops a
/// fling reaches no view, an inner scroll view included.
@Suite struct QuietTouchesTests {
    // MARK: 4. A disabled control sends no actions

    func setEnabled(_ on: Bool) -> String {
        #"{"update": {"window": "dialog", "changes": [{"view": "ok", "set": {"enabled": \#(on)}}]}}"#
    }

    @Test func aButtonDisabledUnderTheFingerSendsNoActionAtTheLift() {
        let r = Rig(config(liveBase))
        #expect(r.send(dialog, from: 1) == .attached(window: "dialog", version: 1))
        r.down(200, 170)                                   // on ok (screen 150…250 × 150…200)
        #expect(r.take() == ["t1 began ok", "ok touchDown"])
        #expect(r.send(setEnabled(false), from: 1) == .updated(window: "dialog", version: 2))
        r.move(205, 172)
        r.up()
        // The touch itself goes on to its end (it was bound at touch-down); no control event.
        #expect(r.take() == ["t1 moved ok", "t1 ended ok"])
    }

    @Test func enabledIsReadAtEachEventNotAtTouchDown() {
        let r = Rig(config(liveBase))
        r.send(dialog, from: 1)
        r.down(200, 170)
        r.send(setEnabled(false), from: 1)
        r.move(205, 172)
        r.send(setEnabled(true), from: 1)                 // enabled again before the lift
        _ = r.take()
        r.up()
        #expect(r.take() == ["t1 ended ok", "ok touchUpInside", "ok primaryActionTriggered"])
    }

    @Test func aButtonDisabledUnderACancelledTouchSendsNoCancel() {
        let r = Rig(config(liveBase))
        r.send(dialog, from: 1)
        r.down(200, 170)
        r.send(setEnabled(false), from: 1)
        _ = r.take()
        r.shutdown()                                       // the touch is cancelled
        #expect(!r.take().contains("ok touchCancel"))
    }

    // MARK: 5. delaysTouchesBegan discards the held touches when its recognizer recognizes

    func pad(cancels: Bool) -> Config {
        scene("""
            {"id": "pad", "frame": [0, 0, 400, 480], "touches": "handle",
             "gestures": [{"id": "drag", "kind": "pan", "delaysTouchesBegan": true, "cancelsTouchesInView": \(cancels)}]}
            """)
    }

    func drag(_ r: Rig) {
        var f = Finger()
        f.down(0, 100, 300); f.syn(after: 10)
        for k in 1...8 { f.move(0, 100, 300 - 10 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
    }

    @Test(arguments: [false, true])
    func aRecognizedDragKeepsItsHeldTouchesFromTheView(_ cancels: Bool) {
        let r = Rig(pad(cancels: cancels))
        drag(r)
        let lines = r.take()
        #expect(lines.first == "drag began", "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("t1 ") }, "\(lines)")    // no began, moved or ended on pad
        #expect(r.calls.isEmpty, "\(r.calls)")
        #expect(r.delivered == 0)
    }

    @Test func aFailedRecognizerStillHandsItsHeldTouchOver() {
        let r = Rig(pad(cancels: false))
        var f = Finger()
        f.down(0, 100, 300); f.syn(after: 30)
        f.up(0); f.syn()                                   // a tap: the pan fails
        r.feed(f)
        #expect(r.take() == ["drag failed", "t1 began pad", "t1 ended pad"])
    }

    // MARK: 6. The tap that stops a fling reaches no view

    /// A vertical list holding a sideways strip (a scroll view) and a card that handles touches.
    func nested() -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "strip", "frame": [0, 400, 400, 120], "touches": "handle", "scroll": {"contentSize": [2000, 120]}},
                          {"id": "card", "frame": [0, 520, 400, 120], "touches": "handle"}]}
            """)
    }

    /// Flicks the list upward, lets it decelerate 50 ms, and taps `target` at its middle.
    func tapDuringFling(on target: String) -> (lines: [String], stopped: Bool) {
        let r = Rig(nested())
        var f = Finger()
        f.down(0, 200, 460); f.syn(after: 10)
        for k in 1...8 { f.move(0, 200, 460 - 10 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: f.time + 50_000)
        let list = r.scene.viewIndex["list"]!
        #expect(r.engine.scrolls.isMoving(list))
        let y = r.scene[r.scene.viewIndex[target]!].frame.midY - r.scene[list].boundsOrigin.y
        #expect(y > 0 && y < 480)
        _ = r.take()
        r.finger.time = f.time + 50_000
        r.tap(200, Int32(y.rounded()))
        return (r.take(), !r.engine.scrolls.isMoving(list))
    }

    @Test(arguments: ["card", "strip"])
    func theTapThatStopsAFlingReachesNoView(_ target: String) {
        let (lines, stopped) = tapDuringFling(on: target)
        #expect(stopped)
        #expect(!lines.contains { $0.hasPrefix("t2 ") }, "\(lines)")
    }
}
