import Testing
import TouchCore
@testable import TouchDaemon

/// `subscribe --pretty`: times a reader can follow (issue 22). The daemon's times are
/// CLOCK_MONOTONIC's (seconds since boot: 2103.18…); the snapshot said 0.000000 before the
/// first event and nothing said which clock either was on.
@Suite struct PrettyTests {
    func node(_ s: String) throws -> JSONNode { try JSONParser.parse(Array(s.utf8)) }

    @Test func timesAreRelativeToTheFirstMessageAndTheClockIsNamed() throws {
        var p = Pretty()
        let lines = [
            #"{"type":"snapshot","seq":0,"time":2103.170000,"clock":"monotonic","devices":[],"touches":[]}"#,
            #"{"type":"frame","seq":1,"time":2103.180125,"device":"d","touches":[{"id":1,"phase":"began","window":"w","view":"ok","location":[5.0,6.0]}],"calls":[]}"#,
            #"{"type":"control","seq":2,"time":2103.240000,"control":"ok","event":"touchUpInside","touch":1}"#,
        ]
        var out: [String] = []
        for l in lines { out.append(p.lines(try node(l), raw: Array(l.utf8)) ?? "") }
        #expect(out == [
            "snapshot at 2103.170 s on CLOCK_MONOTONIC: no devices; no touches down",
            "times: seconds since 2103.180 on CLOCK_MONOTONIC\n0.000 touch 1 began on ok at (5, 6)",
            "0.060 ok: touchUpInside (touch 1)",
        ])
    }

    @Test func theScreenReadersMessagesReadAsSentences() throws {
        var p = Pretty()
        let lines = [
            #"{"type":"accessibilityFocus","seq":1,"time":1.300000,"output":"screen","window":"main","view":"coffee"}"#,
            #"{"type":"speech","seq":2,"time":1.300000,"output":"screen","text":"Coffee, large, button","interrupt":true,"language":"en"}"#,
            #"{"type":"speech","seq":3,"time":1.300000,"output":"screen","text":"Orders a coffee","interrupt":false,"language":"en"}"#,
            #"{"type":"speech","seq":4,"time":1.400000,"output":"screen","control":"pause"}"#,
            #"{"type":"accessibility","seq":5,"time":2.200000,"output":"screen","action":"activate","view":"coffee"}"#,
            #"{"type":"frame","seq":6,"time":2.200000,"device":"d","touches":[{"id":1,"phase":"began","window":"main","view":"coffee","location":[180.0,110.0],"synthesized":true}],"calls":[]}"#,
        ]
        var out: [String] = []
        for l in lines { out.append(p.lines(try node(l), raw: Array(l.utf8)) ?? "") }
        #expect(out.dropFirst() == ["0.000 says: \"Coffee, large, button\"", "0.000 says next: \"Orders a coffee\"", "0.100 speech: pause",
                                    "0.900 screen reader: activate coffee", "0.900 touch 1 began on coffee at (180, 110) [screen reader's tap]"])
        #expect(out.first?.hasSuffix("0.000 screen reader on coffee (main)") == true)
    }

    @Test func aReplayAsFastAsPossibleIsOnTheCapturesClock() throws {
        var p = Pretty()
        let snap = #"{"type":"snapshot","seq":0,"time":0.000000,"clock":"capture","devices":[],"touches":[]}"#
        let ctl = #"{"type":"control","seq":1,"time":0.600000,"control":"play","event":"touchDown","touch":2}"#
        #expect(p.lines(try node(snap), raw: Array(snap.utf8)) == "snapshot at 0.000 s on the capture's clock: no devices; no touches down")
        #expect(p.lines(try node(ctl), raw: Array(ctl.utf8)) == "times: seconds since 0.600 on the capture's clock\n0.000 play: touchDown (touch 2)")
        #expect(Pretty.time(try node("2.0"), origin: 2.5) == "-0.500")
    }

    /// The kiosk's messages (issue 44, item 4).
    @Test func idleWakeAndSystemGestures() throws {
        var p = Pretty()
        let lines = [
            #"{"type":"frame","seq":1,"time":10.000000,"device":"d","touches":[{"id":1,"phase":"ended","window":"w","view":"ok","location":[5.0,6.0]}],"calls":[]}"#,
            #"{"type":"idle","seq":2,"time":130.000000,"output":"DSI-1"}"#,
            #"{"type":"wake","seq":3,"time":131.250000,"output":"DSI-1"}"#,
            #"{"type":"systemGesture","name":"admin","output":"DSI-1","time":135.500000}"#,
            #"{"type":"session","output":"DSI-1","idle":false,"keepAwake":1,"line":3}"#,
        ]
        var out: [String] = []
        for l in lines { out.append(p.lines(try node(l), raw: Array(l.utf8)) ?? "") }
        #expect(Array(out.dropFirst()) == ["120.000 output DSI-1 idle (backlight off)", "121.250 output DSI-1 awake",
                                           "125.500 system gesture admin on output DSI-1", "session of output DSI-1: awake, kept awake by 1 client(s)"])
    }
}
