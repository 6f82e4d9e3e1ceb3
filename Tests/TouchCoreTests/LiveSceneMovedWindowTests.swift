import Testing
import TouchCore
import TouchTestSupport

/// A window a client moves while a finger is on it.
@Suite struct LiveSceneMovedWindowTests {
    /// A touch's window origin follows its window: after the window moves, the touch's
    /// location (and the control's inside/outside) are computed against the new origin, so a
    /// finger that follows the button lifts inside it. (Before the fix the origin cached at
    /// touch-down was used: the same lift was outside.)
    @Test func aMovedWindowMovesTheOriginOfItsTouches() {
        let r = Rig(config(liveBase))
        r.send(dialog, from: 1)
        r.down(200, 180)   // window (100, 80) → ok (50, 30)
        _ = r.take()
        r.send(#"{"update": {"window": "dialog", "changes": [{"window": {"frame": [300, 100, 400, 200]}}]}}"#, from: 1)
        r.move(400, 181)   // window (100, 81): still on the button
        r.up()
        let lines = r.take()
        #expect(lines.contains("ok touchUpInside"), "\(lines)")
    }
}

/// Issue 28, item 8: a window moved by setting its root view's frame (`{"view": WINDOW_ID,
/// "set": {"frame": …}}`, which the daemon accepts as it accepts `{"window": {"frame"}}`) left
/// the consumers with the old window origin: TUIO put a resting finger at x = 0. Whichever way
/// the window moves, every message's touches read with the scene of their time land where the
/// finger is on the screen.
@Suite struct MovedWindowScreenPositionTests {
    @Test(arguments: [#"{"view": "dialog", "set": {"frame": [300, 100, 400, 200]}}"#,
                      #"{"window": {"frame": [300, 100, 400, 200]}}"#])
    func aRestingFingerStaysWhereItIsOnTheScreen(change: String) {
        let r = Rig(config(liveBase))
        let history = SceneHistory(scene: r.scene)
        var screen: [Point] = []
        var ignore = Ignore()
        r.observer = { o in
            switch o {
            case .sceneChanged(let s): history.deliver([.sceneChanged(s)], to: &ignore)
            case .message(.frame(let f)): screen += f.touches.map { history.origin(ofWindow: $0.window) + $0.location }
            case .message, .contacts, .reply, .calibration, .notice, .swallowed: break
            }
        }
        r.send(dialog, from: 1)
        r.down(350, 180)   // on the dialog (its window starts at x 100)
        r.send(#"{"update": {"window": "dialog", "changes": [\#(change)]}}"#, from: 1)
        r.move(352, 180)   // the finger moved 2 points: the window under it did not matter
        #expect(screen == [Point(350, 180), Point(352, 180)], "\(change)")
    }

    struct Ignore: OutputSink {
        mutating func take(_ m: Message, history: SceneHistory) {}
    }
}
