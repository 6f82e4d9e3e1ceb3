import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 46, the daemon's side of speech: `clients.speakers` (who may claim the speaker role),
/// checked like an owners entry, each problem at its JSON path.
@Suite struct SpeechConfigTests {
    func errors(_ json: String) -> [String] {
        do { _ = try Config.parse(json); return [] } catch { return error.errors.map { "\($0.path): \($0.message)" } }
    }
    func config(clients: String) -> String { #"{"clients": \#(clients), "windows": []}"# }

    @Test func speakersAreAnOwnersEntry() throws {
        let c = try Config.parse(config(clients: #"{"speakers": {"users": ["kiosk", "1001"], "groups": ["audio"]}}"#))
        #expect(c.clients.speakers == OwnersPolicy.Entry(users: ["kiosk", "1001"], groups: ["audio"]))
        // Without the key nobody is a speaker.
        #expect(try Config.parse(#"{"windows": []}"#).clients.speakers == nil)
        // Matched as an owners entry: the uid or the user's name, a group's id or name.
        let e = try #require(c.clients.speakers)
        #expect(e.names(uid: 1001, userName: nil, groups: []))
        #expect(e.names(uid: 7, userName: "kiosk", groups: []))
        #expect(e.names(uid: 7, userName: "web", groups: [(29, "audio")]))
        #expect(!e.names(uid: 7, userName: "web", groups: [(29, "video")]))
    }

    @Test func speakersErrorsNameTheirPath() {
        #expect(errors(config(clients: #"{"speakers": {"users": ["kiosk"], "levels": [0, 1]}}"#)) == [#"$.clients.speakers.levels: unknown key "levels" (expected one of: users, groups)"#])
        #expect(errors(config(clients: #"{"speakers": {"users": [""]}}"#)) == ["$.clients.speakers.users[0]: a name must not be empty"])
        #expect(errors(config(clients: #"{"speakers": {"groups": "audio"}}"#)).map { $0.prefix(26) } == ["$.clients.speakers.groups:"])
        #expect(errors(config(clients: #"{"speakers": {}}"#)) == ["$.clients.speakers: names no user and no group: leave the key out for no speaker, or name the kiosk's user"])
        #expect(errors(config(clients: #"{"speakers": ["kiosk"]}"#)).map { $0.prefix(19) } == ["$.clients.speakers:"])
    }
}

/// `speech.rate`, an element's `rate` and language in each `speech` message, the two-finger
/// tap's `control`, and `"screenReader": "headphones"`: on at a plug, off at a pull, saying so.
@Suite struct SpeechFieldsTests {
    func errors(_ json: String) -> [String] {
        do { _ = try Config.parse(json); return [] } catch { return error.errors.map { "\($0.path): \($0.message)" } }
    }
    static let screen = """
        "windows": [{"id": "main", "frame": [0, 0, 800, 480],
          "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
            {"id": "ok", "frame": [20, 20, 120, 60], "control": "button", "accessibility": {"label": "OK"}},
            {"id": "gruss", "frame": [20, 100, 300, 60], "accessibility": {"label": "Grüezi", "language": "de-CH", "rate": -40}}]}}]
        """
    func encoded(_ r: Rig) -> [String] {
        let h = SceneHistory(scene: r.scene)
        return r.messages.filter { $0.type == .speech }.map { String(decoding: h.encode($0).dropLast(), as: UTF8.self) }
    }

    @Test func ratesOutOfRangeAreRefusedWithTheirPaths() {
        let bad = errors(#"{"speech": {"rate": 101}, "windows": [{"id": "w", "frame": [0, 0, 10, 10], "view": {"id": "v", "frame": [0, 0, 10, 10], "accessibility": {"label": "x", "rate": 2.5}}}]}"#)
        #expect(bad == ["$.windows[0].view.accessibility.rate: expected an integer from -100 (slowest) to 100 (fastest), 0 the voice's normal rate",
                        "$.speech.rate: expected an integer from -100 (slowest) to 100 (fastest), 0 the voice's normal rate"])
        #expect(errors(#"{"speech": {"rate": -100, "language": "de"}, "windows": []}"#) == [])
        #expect(errors(#"{"speech": {"rate": "fast"}, "windows": []}"#).count == 1)
    }

    @Test func eachMessageCarriesItsLanguageAndRate() throws {
        let r = Rig(try Config.parse(#"{"screen": {"width": 800, "height": 480, "screenReader": true}, "speech": {"rate": 20}, "# + Self.screen + "}"))
        r.finger.time = 1_000_000; r.down(80, 50); r.finger.time = 1_400_000; r.up()
        r.finger.time = 2_000_000; r.down(100, 130); r.finger.time = 2_400_000; r.up()
        #expect(encoded(r).map { $0.drop { $0 != "o" }.description } == [
            #"output":"screen","text":"OK, button","interrupt":true,"language":"en","rate":20}"#,
            #"output":"screen","text":"Grüezi","interrupt":true,"language":"de-CH","rate":-40}"#])
    }

    /// The two-finger tap stays part 1's `"control": "pause"` / `"resume"`, the form both
    /// client libraries and touchd speak read (messages.md `speech`, `control`).
    @Test func theTwoFingerTapIsControlPauseThenResume() throws {
        let r = Rig(try Config.parse(#"{"screen": {"width": 800, "height": 480, "screenReader": true}, "# + Self.screen + "}"))
        for t in [Int64(1_000_000), 2_000_000] {
            r.finger.time = t; r.finger.down(0, 300, 300); r.finger.down(1, 400, 300); r.frame()
            r.finger.time = t + 80_000; r.finger.up(0); r.finger.up(1); r.frame()
            r.advance(to: t + 400_000)
        }
        r.advance(to: 3_000_000)
        #expect(encoded(r).map { $0.drop { $0 != "o" }.description } == [#"output":"screen","control":"pause"}"#, #"output":"screen","control":"resume"}"#])
    }

    @Test func headphonesTurnTheReaderOnAndOffAndSaySo() throws {
        let r = Rig(try Config.parse(#"{"outputs": [{"id": "main", "width": 800, "height": 480, "screenReader": "headphones"}], "# + Self.screen + "}"))
        #expect(!r.engine.isScreenReaderOn(output: "main"))
        r.engine.headphones(source: "jack", output: nil, plugged: true, time: 1_000_000)
        r.collect()
        #expect(r.engine.isScreenReaderOn(output: "main"))
        // Said first; the first element is queued after it, not cutting it off.
        #expect(r.take() == ["say Screen reader on", "focus ok", "say OK, button (queued)"])
        r.engine.headphones(source: "jack", output: nil, plugged: false, time: 2_000_000)
        r.collect()
        #expect(!r.engine.isScreenReaderOn(output: "main"))
        #expect(r.take() == ["say Screen reader off"])
        #expect(SpokenWords.tables.values.allSatisfy { !$0.readerOn.isEmpty && !$0.readerOff.isEmpty })
        // A reader turned on by `true` is not turned off by a pull.
        let on = Rig(try Config.parse(#"{"outputs": [{"id": "main", "width": 800, "height": 480, "screenReader": true}], "# + Self.screen + "}"))
        on.engine.headphones(source: "jack", output: nil, plugged: true, time: 1_000_000)
        on.engine.headphones(source: "jack", output: nil, plugged: false, time: 2_000_000)
        on.collect()
        #expect(on.engine.isScreenReaderOn(output: "main"))
    }
}
