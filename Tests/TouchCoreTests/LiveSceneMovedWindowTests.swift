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
