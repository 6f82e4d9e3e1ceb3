import Testing
import TouchCore
@testable import TouchServer

func parse(_ s: String) -> Result<ClientRequest, RequestError> { WireProtocol.parse(Array(s.utf8)) }

@Suite struct WireTests {
    @Test func requests() {
        #expect(parse("{\"ping\":7}") == .success(.ping("7")))
        #expect(parse("{\"ping\":\"a\\\"b\"}") == .success(.ping("\"a\\\"b\"")))
        #expect(parse("{\"ping\":1.5}") == .success(.ping("1.5")))
        #expect(parse("{\"stats\":true}") == .success(.stats))
        #expect(parse("{\"subscribe\":{}}") == .success(.subscribe(types: nil, windows: nil, views: nil)))
        #expect(parse("{\"subscribe\":{\"types\":[\"frame\",\"hitTest\"],\"views\":[\"ok\"]}}") ==
                .success(.subscribe(types: [.frame, .hitTest], windows: nil, views: ["ok"])))
    }

    @Test func badRequestsSayWhat() {
        func err(_ s: String) -> String {
            if case .failure(let e) = parse(s) { return e.message }
            return "accepted"
        }
        #expect(err("{\"ping\":") == "invalid JSON: column 9: unexpected end of input, expected a value")
        #expect(err("[1]") == "expected a JSON object such as {\"ping\":1} or {\"subscribe\":{…}}, got an array")
        #expect(err("{\"hello\":1}") == "unknown request \"hello\" (expected: subscribe, ping, stats, systemGestures, attach, update, detach, output, calibrate, session, screenReader, announce, accessibilityChanged)")
        #expect(err("{}") == "empty request: expected one of \"subscribe\", \"ping\", \"stats\", \"systemGestures\", \"attach\", \"update\", \"detach\", \"output\", \"calibrate\", \"session\", \"screenReader\", \"announce\", \"accessibilityChanged\"")
        #expect(err("{\"ping\":1,\"stats\":true}") == "one request per line: got \"ping\", \"stats\"")
        #expect(err("{\"subscribe\":{\"types\":[\"frames\"]}}").hasPrefix("subscribe.types: unknown message type \"frames\""))
        #expect(err("{\"subscribe\":{\"colour\":[]}}") == "subscribe: unknown key \"colour\" (expected: types, windows, views, maxRate, speaker)")
        #expect(err("{\"subscribe\":{\"views\":\"ok\"}}") == "subscribe.views: expected an array of strings")
        // A bad rate is an error (the subscription stays as it was: it is parsed whole first).
        #expect(err("{\"subscribe\":{\"maxRate\":0}}").hasPrefix("subscribe.maxRate:"))
        #expect(err("{\"ping\":null}") == "ping: expected a number or a string, got null")
    }

    let scene: Scene = {
        try! Config.parse("""
            {"windows": [
              {"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
                {"id": "panel", "frame": [0, 0, 400, 480], "subviews": [{"id": "ok", "frame": [0, 0, 100, 40], "control": "button"}]},
                {"id": "canvas", "frame": [400, 0, 400, 480]}]}},
              {"id": "overlay", "frame": [0, 0, 100, 100], "level": 1, "view": {"id": "badge", "frame": [0, 0, 100, 100]}}]}
            """).scene
    }()

    func record(_ id: Int, _ view: String) -> TouchRecord {
        let v = scene.viewIndex[view]!
        return TouchRecord(id: id, phase: .moved, window: scene[v].window, view: v, location: .zero, previous: .zero,
                           locationInView: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
    }

    @Test func viewFilterMatchesDescendantsAndTrimsFrames() {
        var f = SubscriptionFilter()
        f.viewIDs = ["panel"]
        #expect(f.resolve(in: scene).isEmpty)
        let frame = FrameMessage(seq: 1, time: 0, device: "d", touches: [record(1, "ok"), record(2, "canvas"), record(3, "panel")],
                                 calls: [Call(responder: ResponderIndex(0), phase: .moved, touches: [1, 2]), Call(responder: ResponderIndex(1), phase: .moved, touches: [2])])
        guard case .frame(let shaped)? = f.apply(.frame(frame), scene: scene) else { Issue.record("frame expected"); return }
        #expect(shaped.touches.map(\.id) == [1, 3])
        #expect(shaped.calls == [Call(responder: ResponderIndex(0), phase: .moved, touches: [1])])
        let other = FrameMessage(seq: 2, time: 0, device: "d", touches: [record(2, "canvas")], calls: [])
        #expect(f.apply(.frame(other), scene: scene) == nil)
        let control = ControlMessage(seq: 3, time: 0, control: scene.viewIndex["ok"]!, event: .touchDown, touch: 1)
        #expect(f.apply(.control(control), scene: scene) != nil)
    }

    @Test func windowAndTypeFilters() {
        var f = SubscriptionFilter()
        f.windowIDs = ["overlay"]
        f.types = [.frame]
        #expect(f.resolve(in: scene).isEmpty)
        #expect(f.matches(window: scene.viewIndex["overlay"]!, view: scene.viewIndex["badge"]!, scene: scene))
        #expect(!f.matches(window: scene.viewIndex["main"]!, view: scene.viewIndex["ok"]!, scene: scene))
        let control = ControlMessage(seq: 3, time: 0, control: scene.viewIndex["ok"]!, event: .touchDown, touch: 1)
        #expect(f.apply(.control(control), scene: scene) == nil)   // type not wanted
        var g = SubscriptionFilter()
        g.windowIDs = ["panel"]   // a view, not a window
        g.viewIDs = ["nope"]
        #expect(g.resolve(in: scene) == ["panel", "nope"])
        #expect(!SubscriptionFilter().types.contains(.hitTest))
    }

    @Test func daemonLines() {
        #expect(String(decoding: WireProtocol.hello(screen: Size(800, 480), version: "1.2", pid: 42), as: UTF8.self) ==
                "{\"type\":\"hello\",\"protocol\":1,\"version\":\"1.2\",\"screen\":{\"width\":800.0,\"height\":480.0},\"pid\":42}\n")
        // One output: no "outputs" (as before); more: listed, natural sizes and rotations.
        #expect(String(decoding: WireProtocol.hello(screen: Size(800, 480), outputs: [.screen(Size(800, 480))], version: "1.2", pid: 42), as: UTF8.self) ==
                "{\"type\":\"hello\",\"protocol\":1,\"version\":\"1.2\",\"screen\":{\"width\":800.0,\"height\":480.0},\"pid\":42}\n")
        let two = [Output(id: "DSI-1", size: Size(800, 480), rotation: .r90), Output(id: "HDMI-A-1", size: Size(1920, 1080))]
        #expect(String(decoding: WireProtocol.hello(screen: Size(480, 800), outputs: two, version: "1.2", pid: 42), as: UTF8.self) ==
                "{\"type\":\"hello\",\"protocol\":1,\"version\":\"1.2\",\"screen\":{\"width\":480.0,\"height\":800.0},\"outputs\":[{\"id\":\"DSI-1\",\"width\":800.0,\"height\":480.0,\"rotation\":90},{\"id\":\"HDMI-A-1\",\"width\":1920.0,\"height\":1080.0,\"rotation\":0}],\"pid\":42}\n")
        #expect(String(decoding: WireProtocol.error("bad \"x\"", line: 3), as: UTF8.self) == "{\"type\":\"error\",\"error\":\"bad \\\"x\\\"\",\"line\":3}\n")
        #expect(String(decoding: WireProtocol.pong("7"), as: UTF8.self) == "{\"type\":\"pong\",\"ping\":7}\n")
        #expect(String(decoding: WireProtocol.overflow(dropped: 12), as: UTF8.self) == "{\"type\":\"overflow\",\"dropped\":12}\n")
        let state = Snapshot(touches: [(record(4, "ok"), "event5"), (record(5, "badge"), "event5")],
                             devices: [DeviceDescriptor(id: "event5", name: "p", vendor: 1, product: 2, touchProtocol: .b, slots: 10)],
                             time: 1_500_000, seq: 9, liveTouches: 2)
        var mainOnly = SubscriptionFilter()
        mainOnly.windowIDs = ["main"]
        mainOnly.resolve(in: scene)
        let snap = WireProtocol.snapshot(state, filter: mainOnly, scene: scene, encoder: MessageEncoder(scene: scene))
        let text = String(decoding: snap, as: UTF8.self)
        #expect(text.hasPrefix("{\"type\":\"snapshot\",\"seq\":9,\"time\":1.500000,\"clock\":\"capture\",\"devices\":[{\"id\":\"event5\",\"name\":\"p\",\"vendor\":1,\"product\":2,\"protocol\":\"B\",\"slots\":10}],\"touches\":[{\"id\":4,\"phase\":\"moved\",\"window\":\"main\",\"view\":\"ok\""))
        #expect(text.hasSuffix(",\"device\":\"event5\"}]}\n"))
        #expect(!text.contains("badge"))   // the filter keeps the overlay's touch out
        // Without "device" in its types a subscriber's snapshot lists no devices.
        var framesOnly = SubscriptionFilter()
        framesOnly.types = [.frame]
        #expect(String(decoding: WireProtocol.snapshot(state, filter: framesOnly, scene: scene, encoder: MessageEncoder(scene: scene)), as: UTF8.self)
                    .hasPrefix("{\"type\":\"snapshot\",\"seq\":9,\"time\":1.500000,\"clock\":\"capture\",\"devices\":[],"))
        // The daemon's snapshot says which clock its times are on.
        var live = state
        live.clock = .monotonic
        #expect(String(decoding: WireProtocol.snapshot(live, filter: framesOnly, scene: scene, encoder: MessageEncoder(scene: scene)), as: UTF8.self)
                    .contains(",\"clock\":\"monotonic\","))
    }
}
