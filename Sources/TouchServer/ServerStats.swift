import TouchCore

/// Counters of the server's life and the latency of its writes.
public struct ServerStats: Sendable {
    public var messagesPublished = 0
    public var clientsAccepted = 0
    public var clientsRefused = 0
    public var messagesDropped = 0
    public var errorsSent = 0
    /// Per written message: time from publication to the complete write to a client (µs).
    public var latency = LatencyRecorder()

    /// The `stats` reply.
    func line(clients: Int, peakRSSKiB: Int, liveTouches: Int) -> [UInt8] {
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
        let p = latency.percentiles()
        JSONWriter.appendRaw(",\"latencyMicros\":{\"samples\":", to: &out)
        JSONWriter.appendInt(p.samples, to: &out)
        JSONWriter.appendRaw(",\"p50\":", to: &out)
        JSONWriter.appendInt(Int(p.p50), to: &out)
        JSONWriter.appendRaw(",\"p99\":", to: &out)
        JSONWriter.appendInt(Int(p.p99), to: &out)
        JSONWriter.appendRaw(",\"max\":", to: &out)
        JSONWriter.appendInt(Int(p.max), to: &out)
        JSONWriter.appendRaw("},\"peakRSSKiB\":", to: &out)
        JSONWriter.appendInt(peakRSSKiB, to: &out)
        JSONWriter.appendRaw(",\"liveTouches\":", to: &out)
        JSONWriter.appendInt(liveTouches, to: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }
}

/// The most recent write latencies (a bounded ring), with percentiles on demand.
public struct LatencyRecorder: Sendable {
    public static let capacity = 100_000
    public private(set) var samples: [Int64] = []
    private var cursor = 0

    public init() {}

    public mutating func record(_ micros: Int64) {
        if samples.count < LatencyRecorder.capacity { samples.append(micros) } else { samples[cursor] = micros }
        cursor = (cursor + 1) % LatencyRecorder.capacity
    }

    public func percentiles() -> (samples: Int, p50: Int64, p99: Int64, max: Int64) {
        let sorted = samples.sorted()
        func pct(_ p: Double) -> Int64 { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return (sorted.count, pct(0.5), pct(0.99), sorted.last ?? 0)
    }
}
