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
