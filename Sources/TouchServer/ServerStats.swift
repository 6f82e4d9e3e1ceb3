import TouchCore

/// The loop's scheduling as `stats` reports it (`"scheduling":{"realtime":…,"policy":…,"priority":…}`):
/// `realtime` is "on" (running at the policy asked for), "off" (not asked: the config or
/// --realtime), "refused" (the system said no: normal priority) or "demoted" (the real-time
/// guard put it back to normal after it ran too long without blocking); `policy` what it runs at
/// now ("fifo", "rr" or "other"), `priority` its real-time priority (0 for other).
public struct SchedulingReport: Sendable, Equatable {
    public enum State: String, Sendable { case on, off, refused, demoted }
    public var realtime: State
    public var policy: String
    public var priority: Int
    public init(realtime: State = .off, policy: String = "other", priority: Int = 0) {
        self.realtime = realtime
        self.policy = policy
        self.priority = priority
    }

    func appendJSON(to out: inout [UInt8]) {
        JSONWriter.appendRaw("{\"realtime\":", to: &out)
        JSONWriter.appendString(realtime.rawValue, to: &out)
        JSONWriter.appendRaw(",\"policy\":", to: &out)
        JSONWriter.appendString(policy, to: &out)
        JSONWriter.appendRaw(",\"priority\":", to: &out)
        JSONWriter.appendInt(priority, to: &out)
        JSONWriter.appendRaw("}", to: &out)
    }
}

/// Counters of the server's life and the latency of its writes.
public struct ServerStats: Sendable {
    public var messagesPublished = 0
    public var clientsAccepted = 0
    public var clientsRefused = 0
    public var messagesDropped = 0
    public var errorsSent = 0
    /// Times accepting stopped for want of descriptors.
    public var acceptPauses = 0
    /// Per written message: time from publication to the complete write to a client (µs).
    public var latency = LatencyRecorder()
    /// Per written frame or control message: from its input's timestamp (the kernel's, or a
    /// paced replay's due time, on CLOCK_MONOTONIC) to the complete write to a client (µs).
    public var inputLatency = LatencyRecorder()

    /// The `stats` reply.
    func line(clients: Int, peakRSSKiB: Int, liveTouches: Int, outputs: [Output] = [], scheduling: SchedulingReport = SchedulingReport()) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"stats\",\"clients\":", to: &out)
        JSONWriter.appendInt(clients, to: &out)
        JSONWriter.appendRaw(",\"published\":", to: &out)
        JSONWriter.appendInt(messagesPublished, to: &out)
        JSONWriter.appendRaw(",\"dropped\":", to: &out)
        JSONWriter.appendInt(messagesDropped, to: &out)
        JSONWriter.appendRaw(",\"accepted\":", to: &out)
        JSONWriter.appendInt(clientsAccepted, to: &out)
        JSONWriter.appendRaw(",\"refused\":", to: &out)
        JSONWriter.appendInt(clientsRefused, to: &out)
        JSONWriter.appendRaw(",\"latencyMicros\":", to: &out)
        latency.appendJSON(to: &out)
        JSONWriter.appendRaw(",\"inputLatencyMicros\":", to: &out)
        inputLatency.appendJSON(to: &out)
        JSONWriter.appendRaw(",\"peakRSSKiB\":", to: &out)
        JSONWriter.appendInt(peakRSSKiB, to: &out)
        JSONWriter.appendRaw(",\"liveTouches\":", to: &out)
        JSONWriter.appendInt(liveTouches, to: &out)
        JSONWriter.appendRaw(",\"scheduling\":", to: &out)
        scheduling.appendJSON(to: &out)
        WireProtocol.appendOutputs(outputs, to: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }
}

/// Latencies (µs) in a log-linear histogram: exact below 64 µs, then 32 steps per power of
/// two (within 3 %); percentiles need no sorting and memory is fixed (a few KiB). Two windows
/// of `window` samples each: the figures are those of the most recent 100,000 to 200,000.
public struct LatencyRecorder: Sendable {
    public static let window = 100_000
    static let buckets = 64 + 35 * 32
    private var current = [Int32](repeating: 0, count: LatencyRecorder.buckets)
    private var previous = [Int32](repeating: 0, count: LatencyRecorder.buckets)
    private var currentCount = 0
    private var previousCount = 0
    private var maxCurrent: Int64 = 0
    private var maxPrevious: Int64 = 0

    public init() {}

    static func bucket(_ v: Int64) -> Int {
        if v < 64 { return Int(max(0, v)) }
        let e = 63 - v.leadingZeroBitCount          // floor(log2 v), ≥ 6
        let sub = Int((v >> (e - 5)) & 31)
        return min(buckets - 1, 64 + (e - 6) * 32 + sub)
    }

    /// The smallest value that falls in bucket `b`.
    static func lowerBound(_ b: Int) -> Int64 {
        if b < 64 { return Int64(b) }
        let e = (b - 64) / 32 + 6, sub = (b - 64) % 32
        return (Int64(32 + sub)) << (e - 5)
    }

    public var count: Int { currentCount + previousCount }

    public mutating func record(_ micros: Int64) {
        if currentCount == LatencyRecorder.window {
            swap(&current, &previous)
            for i in current.indices { current[i] = 0 }
            previousCount = currentCount
            maxPrevious = maxCurrent
            currentCount = 0
            maxCurrent = 0
        }
        current[LatencyRecorder.bucket(micros)] += 1
        currentCount += 1
        if micros > maxCurrent { maxCurrent = micros }
    }

    /// `{"samples":N,"p50":…,"p99":…,"max":…}`.
    func appendJSON(to out: inout [UInt8]) {
        let p = percentiles()
        JSONWriter.appendRaw("{\"samples\":", to: &out)
        JSONWriter.appendInt(p.samples, to: &out)
        JSONWriter.appendRaw(",\"p50\":", to: &out)
        JSONWriter.appendInt(Int(p.p50), to: &out)
        JSONWriter.appendRaw(",\"p99\":", to: &out)
        JSONWriter.appendInt(Int(p.p99), to: &out)
        JSONWriter.appendRaw(",\"max\":", to: &out)
        JSONWriter.appendInt(Int(p.max), to: &out)
        JSONWriter.appendRaw("}", to: &out)
    }

    /// p50 and p99 (each the lower bound of its bucket), and the exact maximum.
    public func percentiles() -> (samples: Int, p50: Int64, p99: Int64, max: Int64) {
        let n = count
        guard n > 0 else { return (0, 0, 0, 0) }
        func pct(_ q: Double) -> Int64 {
            let rank = min(n - 1, Int(Double(n) * q))
            var seen = 0
            for b in 0..<LatencyRecorder.buckets {
                seen += Int(current[b]) + Int(previous[b])
                if seen > rank { return LatencyRecorder.lowerBound(b) }
            }
            return Int64.max
        }
        return (n, pct(0.5), pct(0.99), Swift.max(maxCurrent, maxPrevious))
    }
}
