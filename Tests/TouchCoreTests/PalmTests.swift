import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct PalmTests {
    @Test func aContactThatTurnsIntoAPalmIsCancelledAndOneThatStartsAsAPalmIsNeverDelivered() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480], \"touches\": \"handle\", \"multipleTouch\": true}")
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.palm); f.syn()
        f.move(0, 120, 100); f.syn()
        f.down(1, 300, 300); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.palm); f.syn()
        f.move(1, 310, 300); f.syn()
        f.up(0); f.up(1); f.syn()
        let frames = run(cfg, f.events).frames
        #expect(frames.count == 2)
        #expect(frames[1].touches.map(\.phase) == [.cancelled])
        #expect(frames[1].touches[0].reason == .palm)
        #expect(frames[1].touches[0].tool == .palm)
        #expect(cfg.scene.describe(frames[1].calls) == ["v.touchesCancelled(1)"])
    }
}
