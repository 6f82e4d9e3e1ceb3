import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct SwipeRecognizerTests {
    func swipe(_ cfg: Config, dx: Int32, dy: Int32, ms: Int64, touches: Int32 = 1) -> Rig {
        let r = Rig(cfg)
        var f = Finger()
        for s in 0..<touches { f.down(s, 200 + s * 40, 200) }
        f.syn(after: ms / 2)
        for s in 0..<touches { f.move(s, 200 + s * 40 + dx / 2, 200 + dy / 2) }
        f.syn(after: ms / 2)
        for s in 0..<touches { f.move(s, 200 + s * 40 + dx, 200 + dy) }
        f.syn(after: 10)
        for s in 0..<touches { f.up(s) }
        f.syn()
        r.feed(f)
        return r
    }

    let right = gestureScene("{\"id\": \"swipe\", \"kind\": \"swipe\"}")

    @Test func recognizedInItsDirection() {
        let r = swipe(right, dx: 80, dy: 5, ms: 100)
        #expect(r.states("swipe") == ["recognized"])
        if case .string(let d)? = r.value(r.gestures[0], "direction") { #expect(d == "right") } else { Issue.record("no direction") }
        let up = swipe(gestureScene("{\"id\": \"swipe\", \"kind\": \"swipe\", \"directions\": [\"up\", \"down\"]}"), dx: 3, dy: -90, ms: 100)
        if case .string(let d)? = up.value(up.gestures[0], "direction") { #expect(d == "up") } else { Issue.record("no direction") }
    }

    @Test func failureCases() {
        #expect(swipe(right, dx: -80, dy: 0, ms: 100).states("swipe") == ["failed"])              // wrong direction
        #expect(swipe(right, dx: 80, dy: 0, ms: 600).states("swipe") == ["failed"])               // too slow
        #expect(swipe(right, dx: 30, dy: 0, ms: 100).states("swipe") == ["failed"])               // too short
        #expect(swipe(right, dx: 80, dy: 0, ms: 100, touches: 2).states("swipe") == ["failed"])   // too many touches
    }
}
