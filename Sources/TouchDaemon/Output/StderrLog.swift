import TouchCore
import TouchSystem

/// Log lines on stderr ("touchd: warning: …"); journald keeps them when run as a service.
///
/// Repeats are folded within a time window: lines of the same kind (the same text once its
/// numbers are blanked: "client 7 …" and "client 9 …" are one kind) are shown up to
/// `shownPerWindow` times a second; the rest are counted and summed up in one line when the
/// window closes ("… 312 more like this in 1.0 s; the last: …"). Lifecycle lines (level
/// notice) and errors are never folded. The table of kinds is bounded.
///
/// The daemon's log (`StderrLog.nonBlocking`) cannot stall it: a line stderr cannot take at
/// once (journald behind, a pipe nobody reads) is dropped and counted, and the count is said
/// when stderr takes lines again. The offline commands' log waits for stderr instead.
public final class StderrLog {
    /// How a line starts: as it always did (the offline commands, tests), with the local time
    /// (the daemon on a terminal or into a file), or with its syslog priority, `<4>` for a
    /// warning, when stderr is the journal (sd-daemon(3): journald files each line at it, so
    /// `journalctl -p warning` shows warnings and errors only).
    public enum Format: Sendable { case bare, timed, journal }

    public var threshold: LogLevel
    public var format: Format = .bare
    let now: () -> Int64
    let emit: (String) -> Void
    /// The non-blocking output, when it is one: drops to report on the timer.
    let output: NonBlockingLineWriter?

    public static let window: Int64 = 1_000_000
    public static let shownPerWindow = 5
    public static let kindLimit = 128

    struct Kind {
        var level: LogLevel
        var windowStart: Int64
        var shown = 0
        var suppressed = 0
        var last = ""
    }
    var kinds: [String: Kind] = [:]

    /// `now` (monotonic µs) and `emit` (one finished line) are the clock and the output; tests
    /// give their own.
    public init(threshold: LogLevel = .info, now: @escaping () -> Int64 = Clock.monotonicMicros,
                emit: @escaping (String) -> Void = ThisProcess.writeError) {
        self.threshold = threshold
        self.now = now
        self.emit = emit
        self.output = nil
    }

    /// A log whose lines go to `output` (for the daemon: stderr, never waited for).
    public init(threshold: LogLevel = .info, now: @escaping () -> Int64 = Clock.monotonicMicros, output: NonBlockingLineWriter) {
        self.threshold = threshold
        self.now = now
        self.emit = { output.write($0) }
        self.output = output
    }

    /// The daemon's log: stderr through a NonBlockingLineWriter.
    public static func nonBlocking(threshold: LogLevel) -> StderrLog {
        let log = StderrLog(threshold: threshold, output: NonBlockingLineWriter.standardError())
        log.format = ThisProcess.standardErrorIsJournal() ? .journal : .timed
        return log
    }

    /// syslog(3)'s priority of a level (LOG_DEBUG 7 … LOG_ERR 3).
    static func priority(_ level: LogLevel) -> Int {
        switch level {
        case .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        }
    }

    /// Lines dropped because stderr could not take them (0 for a blocking log).
    public var droppedLines: Int { output?.droppedTotal ?? 0 }

    public func callAsFunction(_ level: LogLevel, _ message: String) { write(level, message, folding: level != .notice && level != .error) }

    /// A line a client's request caused, at any level: folded like a warning even when it is a
    /// notice, so that a client repeating a request cannot flood the journal (6,000 "turned
    /// output" notices in 1.4 s made journald's rate limit drop the daemon's later lines).
    public func fromClient(_ level: LogLevel, _ message: String) { write(level, message, folding: true) }

    func write(_ level: LogLevel, _ message: String, folding: Bool) {
        guard level >= threshold else { return }
        let t = now()
        closeWindows(endedBy: t)
        if !folding {
            line(level, message)
            return
        }
        let key = StderrLog.kind(of: message)
        if var k = kinds[key] {
            if k.shown < StderrLog.shownPerWindow {
                k.shown += 1
                line(level, message)
            } else {
                k.suppressed += 1
                k.last = message
            }
            kinds[key] = k
            return
        }
        if kinds.count >= StderrLog.kindLimit { evictOldest() }
        kinds[key] = Kind(level: level, windowStart: t, shown: 1)
        line(level, message)
    }

    /// When a folded summary is due (for the event loop's timer), nil when none is pending.
    /// With dropped lines not yet reported, a window from now: the timer retries the notice.
    public var nextDeadline: Int64? {
        let folded = kinds.values.filter { $0.suppressed > 0 }.map { $0.windowStart + StderrLog.window }.min()
        guard output?.isBacklogged == true else { return folded }
        let retry = now() + StderrLog.window
        return min(folded ?? retry, retry)
    }

    /// Closes the windows that have ended by now (summaries of what they folded), and says
    /// how many lines were dropped when stderr takes lines again.
    public func tick() {
        output?.retry()
        closeWindows(endedBy: now())
    }

    /// Writes every pending summary (at exit).
    public func flush() {
        for (key, k) in kinds.sorted(by: { $0.value.windowStart < $1.value.windowStart }) { close(key, k, at: now()) }
        kinds.removeAll()
    }

    public var function: LogFunction { { [self] level, message in self(level, message) } }

    func line(_ level: LogLevel, _ message: String) {
        let text = "touchd: \(level): \(StderrLog.escaped(message))\n"
        switch format {
        case .bare: emit(text)
        case .timed: emit(Clock.wallClock() + " " + text)
        case .journal: emit("<\(StderrLog.priority(level))>" + text)
        }
    }

    /// A message as one line whatever it quotes: control characters and line separators (from
    /// a client's window id, say) are written as \u escapes, so no one can forge a log line.
    static func escaped(_ message: String) -> String { TerminalText.escaped(message) }

    func closeWindows(endedBy t: Int64) {
        guard !kinds.isEmpty else { return }
        for (key, k) in kinds where t - k.windowStart >= StderrLog.window {
            close(key, k, at: t)
            kinds[key] = nil
        }
    }

    func close(_ key: String, _ k: Kind, at t: Int64) {
        guard k.suppressed > 0 else { return }
        let seconds = Double(min(t - k.windowStart, 10 * StderrLog.window)) / 1e6
        let rounded = (seconds * 10).rounded() / 10
        line(k.level, "… \(k.suppressed) more like this in \(rounded) s; the last: \(k.last)")
    }

    func evictOldest() {
        guard let (key, k) = kinds.min(by: { $0.value.windowStart < $1.value.windowStart }) else { return }
        close(key, k, at: now())
        kinds[key] = nil
    }

    /// A message's kind: its text with every run of digits blanked.
    static func kind(of message: String) -> String {
        var out = ""
        var inDigits = false
        for c in message.unicodeScalars {
            if c.value >= 48 && c.value <= 57 {
                if !inDigits { out.append("#") }
                inDigits = true
            } else {
                out.unicodeScalars.append(c)
                inDigits = false
            }
            if out.utf8.count >= 120 { break }
        }
        return out
    }
}
