import Testing
@testable import TouchDaemon

/// A client's window id with a newline cannot forge a log line (issue 21, item 6).
@Suite struct LogEscapingTests {
    @Test func controlCharactersAndLineSeparatorsAreEscaped() {
        var lines: [String] = []
        let log = StderrLog(threshold: .info, now: { 0 }, emit: { lines.append($0) })
        log(.info, "client 3 attached window \"w\ntouchd: notice: SIGHUP: reloading /etc/x\"")
        log(.info, "tab\there, bell\u{7}, separator\u{2028}end")
        #expect(lines == [
            "touchd: info: client 3 attached window \"w\\u000atouchd: notice: SIGHUP: reloading /etc/x\"\n",
            "touchd: info: tab\\u0009here, bell\\u0007, separator\\u2028end\n",
        ])
        #expect(lines.allSatisfy { $0.filter { $0 == "\n" }.count == 1 })
    }
}
