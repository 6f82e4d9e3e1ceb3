import Testing
import TouchCore
import TouchSystem
@testable import TouchDaemon

/// Log lines carry their syslog priority when stderr is the journal, the time otherwise
/// (issue 22: journald filed every line at one priority, `journalctl -p warning` filtered nothing).
@Suite struct LogFormatTests {
    func lines(_ format: StderrLog.Format) -> [String] {
        var out: [String] = []
        let log = StderrLog(threshold: .debug, now: { 0 }, emit: { out.append($0) })
        log.format = format
        for level in [LogLevel.debug, .info, .notice, .warning, .error] { log(level, "x \(level)") }
        return out
    }

    @Test func journalLinesStartWithTheirPriority() {
        #expect(lines(.journal) == ["<7>touchd: debug: x debug\n", "<6>touchd: info: x info\n", "<5>touchd: notice: x notice\n",
                                    "<4>touchd: warning: x warning\n", "<3>touchd: error: x error\n"])
    }

    @Test func plainLinesStartWithTheTime() {
        let l = lines(.timed)
        #expect(l.count == 5)
        // "2026-12-01 19:08:22.123 touchd: warning: x warning"
        let w = Array(l[3].utf8)
        #expect(w.count > 24 && w[4] == UInt8(ascii: "-") && w[10] == UInt8(ascii: " ") && w[13] == UInt8(ascii: ":") && w[19] == UInt8(ascii: "."))
        #expect(l[3].hasSuffix(" touchd: warning: x warning\n") && l[3].utf8.count == 24 + "touchd: warning: x warning\n".utf8.count)
        #expect(lines(.bare)[3] == "touchd: warning: x warning\n")
    }

    @Test func journalStreamIsBelievedOnlyForStderrItself() {
        #expect(!ThisProcess.standardErrorIsJournal(stream: nil))
        #expect(!ThisProcess.standardErrorIsJournal(stream: "garbage"))
        #expect(!ThisProcess.standardErrorIsJournal(stream: "1:1"))
    }
}
