import TouchCore
import TouchSystem
import TouchServer

/// `touchd subscribe`: a client of the daemon's socket.
struct SubscribeCommand: Command {
    static let name = "subscribe"
    static let summary = "connect to the daemon and print what it publishes"
    static let operands = ""
    static let about = """
    Connects to the daemon, subscribes, and prints every message: raw NDJSON by default, or one
    readable line per event with --pretty (times in seconds since the first event, after a line
    naming that time and its clock: CLOCK_MONOTONIC for live input and a paced replay). Exits 0
    when the daemon says goodbye, non-zero with a clear message when it is not there or refuses
    the subscription.

    --latency prints no messages: at the end it prints, over every frame received, the latency
    from the frame's time (the kernel's timestamp on CLOCK_MONOTONIC, or a paced replay's due
    time) to its arrival here on the same clock: p50, p99 and max.
    """
    static var options: [Option<SubscribeCommand>] {
        [.string(["--socket"], value: "PATH", help: "the daemon's socket (default /run/touchd/touchd.sock)", \.socket),
         Option(["--types"], value: "a,b", help: "message types: \(MessageType.allCases.map(\.rawValue).joined(separator: ", "))\n(default: all but hitTest)") { c, v throws(UsageError) in
             let t = v.split(separator: ",").map { String($0).trimmingCharacters() }
             if let bad = t.first(where: { MessageType(rawValue: $0) == nil }) {
                 throw UsageError("unknown message type \"\(bad)\" (expected: \(MessageType.allCases.map(\.rawValue).joined(separator: ", ")))")
             }
             c.types = t.compactMap(MessageType.init(rawValue:))
         },
         Option(["--window"], value: "W", help: "only touches in window W (repeatable, or comma-separated)", repeatable: true) { c, v throws(UsageError) in
             c.windows += v.split(separator: ",").map(String.init)
         },
         Option(["--view"], value: "V", help: "only touches bound to view V or its descendants (repeatable)", repeatable: true) { c, v throws(UsageError) in
             c.views += v.split(separator: ",").map(String.init)
         },
         Option(["--wait"], value: "SECONDS", help: "keep trying to connect for up to SECONDS while there is no daemon yet\n(its socket missing or refusing: one starting); default 0") { c, v throws(UsageError) in
             let s = try number(v, for: "--wait")
             guard s >= 0 && s <= 3600 else { throw UsageError("--wait needs seconds from 0 to 3600, got \(v)") }
             c.wait = s
         },
         .flag(["--trace"], help: "add hitTest messages (the full hit-test trace of each touch-down)", \.trace),
         .flag(["--pretty"], help: "one readable line per event instead of JSON", \.pretty),
         .flag(["--latency"], help: "print no messages; at the end, p50/p99/max of (arrival - frame time)", \.latency),
         .count(["--count"], help: "exit after N published messages (hello/snapshot not counted)", range: 1...Int.max, \.count)]
    }

    var socket = "/run/touchd/touchd.sock"
    var types: [MessageType]?
    var windows: [String] = []
    var views: [String] = []
    var trace = false
    var pretty = false
    var latency = false
    var count = Int.max
    var wait = 0.0

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("unexpected argument \(operands[0])") }
    }

    func request() -> [UInt8] {
        var types = (self.types ?? MessageType.subscribedByDefault.sorted { $0.rawValue < $1.rawValue }).map(\.rawValue)
        if trace && !types.contains(MessageType.hitTest.rawValue) { types.append(MessageType.hitTest.rawValue) }
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"subscribe\":{\"types\":[", to: &out)
        for (i, t) in types.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(t, to: &out)
        }
        JSONWriter.appendRaw("]", to: &out)
        for (key, list) in [("windows", windows), ("views", views)] where !list.isEmpty {
            out.append(contentsOf: ",\"\(key)\":[".utf8)
            for (i, v) in list.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(v, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        JSONWriter.appendRaw("}}\n", to: &out)
        return out
    }

    // Not optimized: Swift 6.0.3's optimizer crashes on this function in release builds (signal 6,
    // "All discovered blocks must be live", pass CopyPropagation); its callees still are.
    @_optimize(none)
    func run() throws(CommandFailure) -> Int32 {
        let fd = try connect()
        do { _ = try fd.writeAll(request()) } catch { throw CommandFailure("sending the subscription to \(socket): \(error)") }
        let out = OutputWriter.standardOutput(limit: 0)
        let log = StderrLog(threshold: .warning)
        // A line longer than any the daemon makes is skipped as it streams in, not buffered (a
        // broken or hostile server sending one endless line took 2.3 GB in 6 s).
        var framer = LineFramer(maxLine: SubscribeCommand.maxLine)
        var lines: [LineFramer.Item] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { chunk.deallocate() }
        var published = 0
        var subscribed = false
        var snapshots = 0
        var latencies: [Int64] = []
        var prettyLines = Pretty()
        defer { if latency { out.write(SubscribeCommand.latencySummary(latencies)); out.flush() } }
        while true {
            let r: IOResult
            do { r = try fd.read(into: chunk) } catch { throw CommandFailure("reading \(socket): \(error)") }
            guard case .done(let n) = r else {
                // Closed without a goodbye (killed, or crashed): every touch still down is over.
                throw CommandFailure("the daemon closed the connection without saying goodbye: every touch still down is over")
            }
            let arrival = Clock.monotonicMicros()
            lines.removeAll(keepingCapacity: true)
            framer.feed(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), into: &lines)
            for item in lines {
                guard case .line(let line, _) = item else {
                    if case .tooLong(let n) = item {
                        log(.warning, "line \(n) from the daemon is longer than \(SubscribeCommand.maxLine) bytes; skipped")
                    }
                    continue
                }
                if latency, line.starts(with: SubscribeCommand.framePrefix) {
                    if let t = SubscribeCommand.frameTime(line) { latencies.append(arrival - t) }
                    published += 1
                    if published >= count { return 0 }
                    continue
                }
                // A line that is not JSON has no type: it is printed as it came.
                let node: JSONNode?
                do { node = try JSONParser.parse(line) } catch { node = nil }
                let type = node?["type"]?.string ?? ""
                // The subscription is this connection's only request, line 1: an error about it
                // (an unknown type, window or view) leaves the daemon's default filter in place,
                // so streaming on would print what was not asked for.
                if type == "error" && (!subscribed || node?["line"]?.number == 1) {
                    throw CommandFailure("the daemon refused the subscription: \(node?["error"]?.string ?? String(decoding: line, as: UTF8.self))")
                }
                if type == "snapshot" { subscribed = true; snapshots += 1 }
                if latency {
                    // Only the summary is printed.
                } else if pretty {
                    // The greeting's snapshot is followed at once by the subscription's, the same
                    // state unless a touch moved meanwhile: a reader sees one (issue 32), the newer.
                    if type == "snapshot" && snapshots == 1 { continue }
                    if let text = prettyLines.lines(node, raw: line) { out.write(text + "\n") }
                } else {
                    out.write(line)
                    out.write([0x0A])
                }
                out.flush()
                if out.readerGone { return 0 }
                if type == "bye" { return 0 }
                if !["hello", "snapshot", "pong", "overflow", "stats", "error"].contains(type) {
                    published += 1
                    if published >= count { return 0 }
                }
            }
        }
        return 0
    }
}

extension SubscribeCommand {
    /// Connects to the socket; with --wait, tries again while no daemon listens there yet.
    func connect() throws(CommandFailure) -> FileDescriptor {
        let deadline = Clock.monotonicMicros() + Int64(wait * 1_000_000)
        while true {
            do {
                return try UnixSocket.connect(socket)
            } catch {
                let starting = error.errno == .noSuchFile || error.errno == .connectionRefused
                if !starting || Clock.monotonicMicros() >= deadline {
                    throw CommandFailure("cannot connect to \(socket): \(error.errno) — is touchd running (touchd run), and may you use its socket (group touchd)?")
                }
            }
            Clock.sleep(micros: 20_000)   // --wait: the daemon is not listening yet
        }
    }

    /// The longest line taken from the daemon (its own are far shorter: a hit-test trace is
    /// bounded to 2,048 steps).
    static let maxLine = 8 << 20
    static let framePrefix = Array("{\"type\":\"frame\"".utf8)

    /// The frame's "time" (seconds with six decimals) in µs, read straight from the line.
    static func frameTime(_ line: [UInt8]) -> Int64? {
        let key = Array("\"time\":".utf8)
        guard line.count > key.count else { return nil }
        var i = 0
        while i + key.count <= line.count {
            if line[i] == key[0] && Array(line[i..<i + key.count]) == key { break }
            i += 1
        }
        i += key.count
        guard i < line.count else { return nil }
        var negative = false
        if line[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var whole: Int64 = 0, frac: Int64 = 0, digits = 0
        while i < line.count, line[i] >= 48, line[i] <= 57 { whole = whole * 10 + Int64(line[i] - 48); i += 1 }
        if i < line.count, line[i] == UInt8(ascii: ".") {
            i += 1
            while i < line.count, line[i] >= 48, line[i] <= 57 {
                if digits < 6 { frac = frac * 10 + Int64(line[i] - 48); digits += 1 }
                i += 1
            }
        }
        while digits < 6 { frac *= 10; digits += 1 }
        let t = whole * 1_000_000 + frac
        return negative ? -t : t
    }

    static func latencySummary(_ samples: [Int64]) -> String {
        guard !samples.isEmpty else { return "latency: no frames received\n" }
        let s = samples.sorted()
        func pick(_ q: Int) -> Int64 { s[min(s.count - 1, s.count * q / 100)] }
        return "latency: \(s.count) frames, p50 \(pick(50)) µs, p99 \(pick(99)) µs, max \(s[s.count - 1]) µs (arrival on CLOCK_MONOTONIC - the frame's time)\n"
    }
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
