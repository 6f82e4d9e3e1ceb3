/// One client's outbound queue: a ring of encoded lines waiting to be written, each with the
/// time it was queued (0 for protocol replies, which are not timed). Entries share the bytes
/// they were given (one encoding serves every client that gets the same form). Pure.
public struct OutboundQueue: Sendable {
    public struct Entry: Sendable {
        public var bytes: [UInt8]
        /// Monotonic µs when it was queued; 0 for replies and notices.
        public var enqueuedAt: Int64
        /// The monotonic timestamp of the input it reports (frames, controls); 0 when none.
        public var inputTime: Int64 = 0
        /// A frame in which touches only moved: stale once newer ones exist.
        public var moveOnly = false
    }

    private var ring: [Entry?]
    private var head = 0
    public private(set) var count = 0
    /// Bytes of the front entry already written.
    public private(set) var frontOffset = 0
    /// Bytes queued and not yet written.
    public private(set) var bytes = 0

    static let initialCapacity = 16

    public init() { ring = Array(repeating: nil, count: OutboundQueue.initialCapacity) }

    public var isEmpty: Bool { count == 0 }
    public var capacity: Int { ring.count }

    public mutating func append(_ b: [UInt8], enqueuedAt: Int64, inputTime: Int64 = 0, moveOnly: Bool = false) {
        if count == ring.count { grow() }
        ring[(head + count) % ring.count] = Entry(bytes: b, enqueuedAt: enqueuedAt, inputTime: inputTime, moveOnly: moveOnly)
        count += 1
        bytes += b.count
    }

    private mutating func grow() {
        var bigger = [Entry?](repeating: nil, count: ring.count * 2)
        for k in 0..<count { bigger[k] = ring[(head + k) % ring.count] }
        ring = bigger
        head = 0
    }

    /// The unwritten bytes of the front entry, nil when empty.
    public func withFront<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard count > 0, let e = ring[head] else { return nil }
        return e.bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[frontOffset...])) }
    }

    /// Copies the queue's unwritten bytes, from the front, into `buffer` as far as they fit
    /// (several entries, the last one possibly in part): one send then writes many lines.
    /// Returns the number of bytes copied.
    public func gather(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        var offset = frontOffset
        var k = 0
        while k < count && filled < buffer.count {
            guard let e = ring[(head + k) % ring.count] else { break }
            filled += e.bytes.withUnsafeBytes { src -> Int in
                let take = min(src.count - offset, buffer.count - filled)
                if take > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + take)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: src[offset..<(offset + take)]))
                }
                return max(take, 0)
            }
            offset = 0
            k += 1
        }
        return filled
    }

    /// `n` bytes from the front were written (as `gather` laid them out): each entry now
    /// complete leaves the queue and goes to `completed`, in order.
    public mutating func consume(_ n: Int, completed: (Entry) -> Void) {
        var left = n
        while left > 0, count > 0, let e = ring[head] {
            let take = min(left, e.bytes.count - frontOffset)
            left -= take
            if let done = consume(take) { completed(done) }
        }
        // Empty entries at the front are complete too (nothing to write).
        while count > 0, let e = ring[head], e.bytes.count == frontOffset, let done = consume(0) { completed(done) }
    }

    /// `n` bytes of the front entry were written. Returns the entry when it is now complete.
    public mutating func consume(_ n: Int) -> Entry? {
        guard count > 0, let e = ring[head] else { return nil }
        frontOffset += n
        bytes -= n
        guard frontOffset >= e.bytes.count else { return nil }
        ring[head] = nil
        head = (head + 1) % ring.count
        count -= 1
        frontOffset = 0
        // A burst is over: give back the memory it needed.
        if count == 0 && ring.count > 1024 {
            ring = Array(repeating: nil, count: OutboundQueue.initialCapacity)
            head = 0
        }
        return e
    }

    /// Drops everything still queued.
    public mutating func removeAll() {
        self = OutboundQueue()
    }

    /// Drops the queued entries that `drop` picks, except a front entry already partly written
    /// (the client must get whole lines). Returns how many went.
    @discardableResult
    public mutating func remove(where drop: (Entry) -> Bool) -> Int {
        var kept: [Entry] = []
        var removed = 0
        for k in 0..<count {
            guard let e = ring[(head + k) % ring.count] else { continue }
            if k == 0 && frontOffset > 0 || !drop(e) { kept.append(e) } else { removed += 1 }
        }
        let offset = kept.first.map { _ in frontOffset } ?? 0
        let partialKept = count > 0 && frontOffset > 0
        var fresh = OutboundQueue()
        for e in kept { fresh.append(e.bytes, enqueuedAt: e.enqueuedAt, inputTime: e.inputTime, moveOnly: e.moveOnly) }
        if partialKept {
            fresh.frontOffset = offset
            fresh.bytes -= offset
        }
        self = fresh
        return removed
    }
}
