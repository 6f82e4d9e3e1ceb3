import Testing
@testable import TouchCore
import TouchTestSupport

/// UIScreenEdgePanGestureRecognizer: "looks for panning (dragging) gestures that start near an
/// edge of the screen" (developer.apple.com/documentation/uikit/uiscreenedgepangesturerecognizer).
@Suite struct ScreenEdgePanTests {
    func rig(_ edges: String, rotation: Rotation = .r0) -> Rig {
        var s = DeviceSettings()
        s.rotation = rotation
        return Rig(gestureScene("{\"id\": \"back\", \"kind\": \"screenEdgePan\", \"edges\": [\(edges)]}"), settings: s)
    }

    func drag(_ r: Rig, from: (Int32, Int32), by step: (Int32, Int32)) {
        var f = Finger()
        f.down(0, from.0, from.1); f.syn(after: 20)
        for k in 1...4 { f.move(0, from.0 + step.0 * Int32(k), from.1 + step.1 * Int32(k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
    }

    @Test func beginsOnlyNearItsEdgeMovingIntoTheScreen() {
        let inFromLeft = rig("\"left\"")
        drag(inFromLeft, from: (5, 200), by: (15, 1))
        #expect(inFromLeft.states("back").prefix(2) == ["began", "changed"])
        #expect(inFromLeft.gestures.first.flatMap { g in g.values.fields.first { $0.0 == "edge" } }.map { "\($0.1)" } == "string(\"left\")")
        let fromTheMiddle = rig("\"left\"")
        drag(fromTheMiddle, from: (100, 200), by: (15, 0))
        #expect(fromTheMiddle.states("back") == ["failed"])
        let alongTheEdge = rig("\"left\"")
        drag(alongTheEdge, from: (5, 200), by: (1, 15))          // up the edge, not away from it
        #expect(alongTheEdge.states("back") == ["failed"])
        let otherEdge = rig("\"right\", \"bottom\"")
        drag(otherEdge, from: (795, 200), by: (-15, 0))
        #expect(otherEdge.states("back").first == "began")
    }

    /// A screen-edge pan is a one-finger pan: once it has begun, a second finger is ignored by it
    /// (as a pan at its maximumTouches ignores one more) and reaches the view; the edge pan goes
    /// on with its own finger and ends when that one lifts.
    @Test func aSecondFingerDuringAnEdgePanReachesTheView() {
        let r = rig("\"left\"")
        var f = Finger()
        f.down(0, 5, 200); f.syn(after: 20)
        for k in 1...3 { f.move(0, 5 + 15 * Int32(k), 200); f.syn(after: 20) }   // began
        f.down(1, 400, 300); f.syn(after: 20)
        f.move(0, 70, 200); f.move(1, 420, 300); f.syn(after: 20)
        f.up(0); f.syn(after: 20)
        f.up(1); f.syn()
        r.feed(f)
        let edge = r.gestures.filter { $0.recognizer == "back" }
        #expect(edge.first?.state.rawValue == "began")
        #expect(edge.allSatisfy { $0.touches == [1] }, "\(edge.map(\.touches))")
        #expect(edge.last?.state.rawValue == "ended" && edge.last?.time == 120_000, "\(edge.map { "\($0.state.rawValue)@\($0.time)" })")
        #expect(r.calls.contains("pad.touchesBegan(2)") && r.calls.contains("pad.touchesEnded(2)"), "\(r.calls)")
    }

    /// Edges are the screen's after rotation: on a panel turned a quarter, the device's top edge
    /// is the screen's right edge.
    @Test func edgesFollowTheScreenAfterRotation() {
        let r = rig("\"right\"", rotation: .r90)
        drag(r, from: (400, 3), by: (0, 15))      // device y grows: screen x shrinks (into the screen)
        #expect(r.states("back").first == "began")
        let top = rig("\"top\"", rotation: .r90)
        drag(top, from: (400, 3), by: (0, 15))
        #expect(top.states("back") == ["failed"])
    }

    @Test func edgesAreRequired() {
        do {
            _ = try Config.parse("""
                {"windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1],
                  "gestures": [{"id": "e", "kind": "screenEdgePan"}]}}]}
                """)
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == ["$.windows[0].view.gestures[0].edges: missing: a screen-edge pan needs the edges it starts from (left, right, top, bottom) (line 2)"])
        }
    }
}
