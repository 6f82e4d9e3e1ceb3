/// Storage for the scene's big tables that copies of the scene share a piece at a time. Every
/// scene change reaches the engine's consumers as a copy of the scene (SceneHistory holds the
/// scene of the messages it is reading while the engine goes on changing its own), so with
/// plain arrays and dictionaries the engine's next write copied every view, responder and id
/// of the scene: a one-view add cost what 64,000 views cost (issue 21). Here a copy shares every
/// chunk, and a write copies only the chunk it lands in (at most `ChunkedArray.chunkSize`
/// elements, or one bucket of ids).

/// One chunk, shared by the copies that have not written to it. A chunk is written only while
/// its holder has the one reference to it (isKnownUniquelyReferenced, the test Array's own
/// buffer makes), so a chunk seen by more than one value — on any thread — is never written:
/// that is what makes the `@unchecked Sendable` below true (for Sendable contents).
final class SharedChunk<Storage> {
    var items: Storage
    init(_ items: Storage) { self.items = items }
}

extension SharedChunk: @unchecked Sendable where Storage: Sendable {}

/// An array of chunks of `chunkSize` elements.
public struct ChunkedArray<Element>: RandomAccessCollection {
    static var shift: Int { 8 }
    public static var chunkSize: Int { 1 << shift }
    private var chunks: [SharedChunk<[Element]>] = []
    public private(set) var count = 0

    public init() {}
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        for e in elements { append(e) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(i: Int) -> Element {
        // Out of range traps as an array's index does: past the last chunk in `chunks`, past the
        // last element in its chunk's `items`.
        _read { yield chunks[i &>> Self.shift].items[i & (Self.chunkSize - 1)] }
        _modify {
            let c = i &>> Self.shift
            makeUnique(c)
            yield &chunks[c].items[i & (Self.chunkSize - 1)]
        }
    }

    public mutating func append(_ e: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var items: [Element] = []
            items.reserveCapacity(Self.chunkSize)
            items.append(e)
            chunks.append(SharedChunk(items))
        } else {
            makeUnique(chunks.count - 1)
            chunks[chunks.count - 1].items.append(e)
        }
        count += 1
    }

    /// Removes and returns the last element (nil when empty).
    public mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        let c = (count - 1) &>> Self.shift
        makeUnique(c)
        let e = chunks[c].items.removeLast()
        if chunks[c].items.isEmpty { chunks.removeLast() }
        count -= 1
        return e
    }

    private mutating func makeUnique(_ c: Int) {
        if !isKnownUniquelyReferenced(&chunks[c]) { chunks[c] = SharedChunk(chunks[c].items) }
    }

    /// How many chunks this and `other` share, and how many this has (what a change copied is
    /// the difference).
    public func sharing(with other: Self) -> (shared: Int, chunks: Int) {
        (zip(chunks, other.chunks).filter { $0 === $1 }.count, chunks.count)
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}

extension ChunkedArray: Equatable where Element: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }
}

/// A dictionary in buckets chosen by the key's hash: a write copies one bucket. The buckets
/// double when they hold `perBucket` keys on average (every key moves then, as a Dictionary's
/// own growth moves them), so a bucket stays small whatever the number of keys.
public struct ChunkedDictionary<Key: Hashable, Value> {
    static var initialBuckets: Int { 64 }
    static var perBucket: Int { 32 }
    private var buckets: [SharedChunk<[Key: Value]>?]
    public private(set) var count = 0

    public init() { buckets = Array(repeating: nil, count: Self.initialBuckets) }

    private func bucket(_ k: Key) -> Int { k.hashValue & (buckets.count - 1) }

    private mutating func grow() {
        var larger = [SharedChunk<[Key: Value]>?](repeating: nil, count: buckets.count * 2)
        for b in buckets {
            guard let b else { continue }
            for (k, v) in b.items {
                let i = k.hashValue & (larger.count - 1)
                if let c = larger[i] { c.items[k] = v } else { larger[i] = SharedChunk([k: v]) }
            }
        }
        buckets = larger
    }

    public subscript(k: Key) -> Value? {
        get { buckets[bucket(k)]?.items[k] }
        set {
            let b = bucket(k)
            if buckets[b] == nil {
                guard let newValue else { return }
                buckets[b] = SharedChunk([k: newValue])
                count += 1
                if count > buckets.count * Self.perBucket { grow() }
                return
            }
            if !isKnownUniquelyReferenced(&buckets[b]) { buckets[b] = SharedChunk(buckets[b]!.items) }
            let old: Value?
            if let newValue { old = buckets[b]!.items.updateValue(newValue, forKey: k) } else { old = buckets[b]!.items.removeValue(forKey: k) }
            if old == nil && newValue != nil { count += 1 } else if old != nil && newValue == nil { count -= 1 }
            if count > buckets.count * Self.perBucket { grow() }
        }
    }

    /// Every key and value, in no particular order.
    public var pairs: [(key: Key, value: Value)] { buckets.flatMap { b -> [(key: Key, value: Value)] in b.map { Array($0.items) } ?? [] } }

    /// How many buckets this and `other` share, and how many this has in use.
    public func sharing(with other: Self) -> (shared: Int, chunks: Int) {
        (zip(buckets, other.buckets).filter { $0 != nil && $0 === $1 }.count, buckets.filter { $0 != nil }.count)
    }
}

extension ChunkedDictionary: Sendable where Key: Sendable, Value: Sendable {}
