import Testing
@testable import TouchCore
import TouchTestSupport

func problems(_ json: String) -> [String] {
    do {
        _ = try Config.parse(json)
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

@Suite struct ConfigTests {
    @Test func exampleShapeFromTheInterfaceParses() throws {
        let cfg = try Config.parse("""
            {"screen": {"width": 800, "height": 480},
             "socket": {"path": "/run/touchd/touchd.sock", "mode": "0660", "group": "input"},
             "devices": [{"match": {"name": "Goodix*"}, "rotation": 0, "flipX": false, "flipY": false,
                          "swapXY": false, "calibration": [1, 0, 0, 0, 1, 0], "grab": true}],
             "application": {"id": "app", "delegate": "appDelegate", "scene": "scene"},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480], "level": 0,
                          "view": {"id": "root", "controller": "rootVC", "frame": [0, 0, 800, 480],
                                   "subviews": [{"id": "ok", "frame": [20, 20, 120, 44], "control": "button"}]}}],
             "responders": {"rootVC": {"touches": "handle"}}}
            """)
        #expect(cfg.screen == Size(800, 480))
        #expect(cfg.socket.mode == 0o660 && cfg.socket.group == "input")
        // Without one, the socket's group is touchd's own, not input (whose members read every keyboard).
        #expect((try? Config.parse(#"{"windows": []}"#))?.socket.group == "touchd")
        #expect(cfg.devices.count == 1 && cfg.devices[0].settings.grab)
        #expect(cfg.deviceEntry(name: "Goodix Capacitive TouchScreen", vendor: 0, product: 0) != nil)
        #expect(cfg.deviceEntry(name: "ELAN", vendor: 0, product: 0) == nil)
        let s = cfg.scene
        #expect(s[s.responderIndex["rootVC"]!].policy == TouchPolicy(.handle))
        #expect(s[s.viewIndex["ok"]!].control == .button)
        #expect(s[s[s.viewIndex["ok"]!].responder].policy == TouchPolicy(.handle))
    }

    /// `realtime`: SCHED_FIFO 10 by default; true, false, a policy (fifo, rr, off) and a priority
    /// 1…99; anything else a problem naming the path.
    @Test func realtimeDefaultsToFifo10AndIsChecked() throws {
        func realtime(_ value: String) throws -> RealtimeSettings {
            try Config.parse(#"{"windows": [], "realtime": "# + value + "}").realtime
        }
        let byDefault = try Config.parse(#"{"windows": []}"#).realtime
        #expect(byDefault.policy == .fifo && byDefault.priority == 10)
        #expect(try realtime("true") == byDefault)
        #expect(try realtime("false").policy == nil)
        #expect(try realtime(#"{"policy": "off"}"#).policy == nil)
        let rr = try realtime(#"{"policy": "rr", "priority": 20}"#)
        #expect(rr.policy == .rr && rr.priority == 20)
        #expect(try realtime(#"{"priority": 1}"#) == { var r = byDefault; r.priority = 1; return r }())
        func fails(_ value: String) -> [String] { problems(#"{"windows": [], "realtime": "# + value + "}") }
        #expect(fails(#"{"priority": 0}"#) == ["$.realtime.priority: must be at least 1, got 0 (line 1)"])
        #expect(fails(#"{"priority": 100}"#) == ["$.realtime.priority: must be at most 99, got 100 (line 1)"])
        #expect(fails(#"{"priority": 2.5}"#) == ["$.realtime.priority: must be a whole number (line 1)"])
        #expect(fails(#"{"policy": "deadline"}"#) == [#"$.realtime.policy: unknown value "deadline" (expected one of: fifo, rr, off) (line 1)"#])
        #expect(fails(#"{"nice": -10}"#) == [#"$.realtime.nice: unknown key "nice" (expected one of: policy, priority) (line 1)"#])
        #expect(fails("10") == [#"$.realtime: expected true, false or {"policy": "fifo", "priority": 10}, got a number (line 1)"#])
    }

    @Test func everyProblemIsReportedWithPathAndLine() {
        let p = problems("""
            {"screen": {"width": "800", "height": 480},
             "windows": [{"id": "main", "frame": [0, 0, 800],
               "view": {"id": "root", "frame": [0, 0, 800, 480], "colour": "red",
                 "subviews": [{"id": "root", "frame": [0, 0, 10, 10]},
                              {"id": "b", "frame": [0, 0, -1, 10], "hitTest": "sometimes", "alpha": 2}]}}]}
            """)
        #expect(p.contains("$.screen.width: expected a number, got a string (line 1)"))
        #expect(p.contains("$.windows[0].frame: expected [x, y, width, height], got an array of 3 numbers (line 2)"))
        #expect(p.contains("$.windows[0].view.colour: unknown key \"colour\" (expected one of: \(ConfigReader.viewKeys.joined(separator: ", "))) (line 3)"))
        #expect(p.contains("$.windows[0].view.subviews[0]: duplicate id \"root\" (already used at $.windows[0].view) (line 4)"))
        #expect(p.contains("$.windows[0].view.subviews[1].frame: width and height must not be negative (line 5)"))
        #expect(p.contains("$.windows[0].view.subviews[1].hitTest: unknown value \"sometimes\" (expected one of: default, none, passthrough, self, outsideChildren) (line 5)"))
        #expect(p.contains("$.windows[0].view.subviews[1].alpha: must be at most 1, got 2 (line 5)"))
        #expect(p.count == 7)
    }

    @Test func duplicateKeysAndWrongTypes() {
        let p = problems("""
            {"windows": [{"id": "w", "id": "w2", "frame": [0, 0, 1, 1], "hidden": "no"}],
             "devices": {"match": 1}}
            """)
        #expect(p.contains("$.windows[0].id: duplicate key \"id\" (line 1)"))
        #expect(p.contains("$.windows[0].hidden: expected true or false, got a string (line 1)"))
        #expect(p.contains("$.devices: expected an array, got an object (line 2)"))
    }

    @Test func referencesAndResponders() {
        let p = problems("""
            {"application": {"id": "app"},
             "windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1], "controller": "vc",
               "subviews": [{"id": "x", "frame": [0, 0, 1, 1], "controller": "vc", "enabled": false}]}}],
             "responders": {"ghost": {"touches": "handle"}, "v": {"touches": "handle"}, "app": {"touches": "sometimes"}}}
            """)
        #expect(p.contains { $0.hasPrefix("$.windows[0].view.subviews[0].controller: duplicate id \"vc\"") })
        #expect(p.contains("$.windows[0].view.subviews[0].enabled: \"enabled\" applies to controls only (set \"control\") (line 3)"))
        #expect(p.contains("$.responders.ghost: no controller, window, scene, application or delegate has id \"ghost\" (line 4)"))
        #expect(p.contains("$.responders.v: \"v\" is a view: set \"touches\" in its own entry (line 4)"))
        #expect(p.contains("$.responders.app.touches: unknown value \"sometimes\" (expected one of: forward, handle, handleAndForward) (line 4)"))
    }

    @Test func deviceEntries() throws {
        let cfg = try Config.parse("""
            {"windows": [{"id": "w", "frame": [0, 0, 1, 1]}],
             "devices": [{"match": {"vendor": "0x0eef", "product": 1}, "rotation": 270, "axes": {"x": "ABS_Z", "y": "ABS_RX"}},
                         {"match": {"name": "EP04*"}, "ignore": true}]}
            """)
        #expect(cfg.devices[0].settings.rotation == .r270)
        #expect(cfg.devices[0].settings.xAxis == ABS.Z && cfg.devices[0].settings.yAxis == ABS.RX)
        #expect(cfg.deviceEntry(name: "anything", vendor: 0x0eef, product: 1)?.label == "devices[0]")
        #expect(cfg.deviceEntry(name: "EP0430M09", vendor: 0, product: 0)?.settings.ignore == true)
        let p = problems("""
            {"windows": [{"id": "w", "frame": [0, 0, 1, 1]}],
             "devices": [{"rotation": 45, "calibration": [1, 0, 0], "axes": {"x": "ABS_Q"}, "match": {"vendor": "zz"}}]}
            """)
        #expect(p.contains("$.devices[0].rotation: must be 0, 90, 180 or 270 (a right angle), got 45 (line 2)"))
        #expect(p.contains("$.devices[0].calibration: expected an array of 6 numbers [a, b, c, d, e, f], got an array of 3 numbers (line 2)"))
        #expect(p.contains { $0.hasPrefix("$.devices[0].axes.x: unknown axis \"ABS_Q\"") })
        #expect(p.contains("$.devices[0].match.vendor: expected a number 0…65535 or a hex string such as \"0x0eef\" (line 2)"))
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        #expect(problems("{\n  \"windows\": [\n    {\"id\": \"w\",}\n  ]\n}") ==
                ["line 3 column 16: invalid JSON: unexpected '}', expected a string key"])
        #expect(problems("") == ["line 1 column 1: invalid JSON: unexpected end of input, expected a value"])
        #expect(problems("{\"a\": 1} x") == ["line 1 column 10: invalid JSON: unexpected 'x' after the end of the JSON value"])
        #expect(problems(String(repeating: "[", count: 10_000)).first?.contains("nesting deeper than 200 levels") == true)
    }

    @Test func missingWindowsAndGestureReferences() {
        #expect(problems("{}") == ["$.windows: missing: a config needs a list of windows (empty when every window comes from a client) (line 1)"])
        // An empty list is a kiosk whose windows all come from clients (config.md said "at least one").
        #expect(problems(#"{"windows": []}"#) == [])
        let p = problems("""
            {"windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1],
              "gestures": [{"id": "single", "kind": "tap", "requireToFail": ["double"]}, {"id": "g2", "kind": "wave"}]}}]}
            """)
        #expect(p.contains("$.windows[0].view.gestures[0].requireToFail: no gesture recognizer has id \"double\" (line 2)"))
        #expect(p.contains { $0.hasPrefix("$.windows[0].view.gestures[1].kind: unknown kind \"wave\"") })
        // A view whose id is taken still has its subtree checked (its problems went unreported).
        #expect(problems("""
            {"windows": [{"id": "w", "frame": [0, 0, 100, 100], "view": {"id": "v", "frame": [0, 0, 100, 100],
              "subviews": [{"id": "a", "frame": [0, 0, 10, 10]},
                           {"id": "a", "frame": [0, 0, 10, 10], "gestures": [{"id": "single", "kind": "tap", "requireToFail": ["double"]}]}]}}]}
            """) == ["$.windows[0].view.subviews[1]: duplicate id \"a\" (already used at $.windows[0].view.subviews[0]) (line 3)",
                     "$.windows[0].view.subviews[1].gestures[0].requireToFail: no gesture recognizer has id \"double\" (line 3)"])
    }
}

@Suite struct JSONTests {
    @Test func parsesValuesWithPositions() throws {
        let n = try JSONParser.parse("{\n \"a\": [1, -2.5e1, true, null, \"x\\u00e9\\n\\ud83d\\ude00\"]\n}")
        let a = n["a"]!.array!
        #expect(a[0].number == 1 && a[1].number == -25 && a[2].bool == true && a[4].string == "xé\n😀")
        #expect(n["a"]!.line == 2 && n["a"]!.column == 7)
    }

    @Test(arguments: ["01", "1.", "-", "\"\\x\"", "[1,]", "{\"a\" 1}", "\"a\nb\"", "tru", "\"\\ud800\"", "1e999"])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
    }

    @Test func writerFormatsNumbersAndStrings() {
        var out: [UInt8] = []
        JSONWriter.appendDouble(41, to: &out); out.append(32)
        JSONWriter.appendDouble(30.5, to: &out); out.append(32)
        JSONWriter.appendDouble(0.0004, to: &out); out.append(32)
        JSONWriter.appendDouble(-1.25, to: &out); out.append(32)
        JSONWriter.appendDouble(2.0 / 3.0, to: &out); out.append(32)
        JSONWriter.appendDouble(-0.0001, to: &out); out.append(32)
        JSONWriter.appendTime(1_357_751_031_716_015, to: &out); out.append(32)
        JSONWriter.appendTime(1, to: &out); out.append(32)
        JSONWriter.appendString("a\"b\\c\u{1}é", to: &out); out.append(32)
        JSONWriter.appendInt(-42, to: &out)
        #expect(String(decoding: out, as: UTF8.self) ==
                "41.0 30.5 0.0 -1.25 0.667 0.0 1357751031.716015 0.000001 \"a\\\"b\\\\c\\u0001é\" -42")
        // No fraction asked for: a whole number, valid JSON ("80." is not; calibrate printed
        // "touch (80., 48.) points" before).
        var whole: [UInt8] = []
        JSONWriter.appendDouble(80, digits: 0, to: &whole); whole.append(32)
        JSONWriter.appendDouble(47.6, digits: 0, to: &whole); whole.append(32)
        JSONWriter.appendDouble(-3.4, digits: 0, to: &whole)
        #expect(String(decoding: whole, as: UTF8.self) == "80 48 -3")
    }
}

@Suite struct EncoderTests {
    @Test func frameMessageBytesMatchTheInterface() {
        let cfg = scene("{\"id\": \"ok\", \"frame\": [20, 20, 120, 44], \"control\": \"button\"}")
        var f = Finger()
        f.time = 1_250_000
        f.down(0, 41, 30); f.ev(EV.ABS, ABS.MT_PRESSURE, 107); f.syn()
        let messages = run(cfg, f.events, device: screenDevice(pressure: true))
        var out: [UInt8] = []
        MessageEncoder(scene: cfg.scene).encode(messages[1], into: &out)
        // Checked by hand against interface.md: the touch at (41, 30) is (21, 10) in "ok";
        // pressure 107/255 = 0.4196 → 0.42; its timestamp is the touch-down's, 1.25 s.
        #expect(String(decoding: out, as: UTF8.self) == """
            {"type":"frame","seq":2,"time":1.250000,"device":"test","touches":[{"id":1,"phase":"began","window":"main","view":"ok","location":[41.0,30.0],"previous":[41.0,30.0],"locationInView":[21.0,10.0],"timestamp":1.250000,"tapCount":1,"pressure":0.42,"tool":"finger"}],"calls":[{"responder":"ok","method":"touchesBegan","touches":[1]}]}

            """)
        out = []
        MessageEncoder(scene: cfg.scene).encode(messages[2], into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "{\"type\":\"control\",\"seq\":3,\"time\":1.250000,\"control\":\"ok\",\"event\":\"touchDown\",\"touch\":1}\n")
    }
}
