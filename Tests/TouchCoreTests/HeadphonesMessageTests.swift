import Testing
@testable import TouchCore
import TouchTestSupport

/// The `headphones` message as subscribers read it (messages.md, issue 46): its NDJSON, its
/// place in the numbering, and that it is nobody's private message.
@Suite struct HeadphonesMessageTests {
    @Test func encodedAndNumbered() throws {
        let r = Rig(scene(#"{"id": "ok", "frame": [100, 100, 200, 100], "control": "button"}"#))
        let t = Transcript(r)
        r.engine.headphones(source: "event7", output: nil, plugged: true, time: 500_000)
        r.engine.headphones(source: "event7", output: "nowhere", plugged: false, time: 600_000)
        r.finger.time = 1_000_000
        r.tap(150, 150)
        #expect(Array(t.lines.prefix(3)) == [
            #"{"type":"headphones","seq":2,"time":0.500000,"output":"screen","plugged":true,"source":"event7"}"#,
            #"{"type":"headphones","seq":3,"time":0.600000,"output":"screen","plugged":false,"source":"event7"}"#,
        ] + [t.lines[2]])
        #expect(t.lines[2].hasPrefix(#"{"type":"frame","seq":4,"#), "the numbering goes on after them (the device's own added was 1)")
        #expect(Message.headphones(HeadphonesMessage(seq: 1, time: 0, output: "screen", plugged: true, source: "x")).type == .headphones)
        #expect(!Message.headphones(HeadphonesMessage(seq: 1, time: 0, output: "screen", plugged: true, source: "x")).isPrivate([]))
    }
}
