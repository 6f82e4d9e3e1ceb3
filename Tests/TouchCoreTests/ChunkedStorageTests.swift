import Testing
import TouchCore
import TouchTestSupport

/// The scene's tables are shared by its copies a chunk at a time (issue 21: a one-view change
/// copied the whole scene, because the consumers' history held the previous one). Copies must
/// still behave as values, and a change must leave every chunk it did not touch shared.
@Suite struct ChunkedStorageTests {
    /// Random appends, pops and writes to one value while earlier copies are kept: every copy
    /// still holds exactly what a plain array copied at the same moment holds.
    @Test func copiesAreValuesWhateverIsWrittenAfter() {
        var rng = SplitMix64(state: 21)
        var chunked = ChunkedArray<Int>()
        var plain: [Int] = []
        var kept: [(ChunkedArray<Int>, [Int])] = []
        for step in 0..<6_000 {
            let op = rng.next() % 6
            if plain.isEmpty || op < 2 {
                chunked.append(step)
                plain.append(step)
            } else if op == 2 {
                #expect(chunked.popLast() == plain.popLast())
            } else {
                let i = Int(rng.next() % UInt64(plain.count))
                chunked[i] = -step
                plain[i] = -step
            }
            if rng.next() % 97 == 0 { kept.append((chunked, plain)) }
        }
        #expect(Array(chunked) == plain)
        #expect(kept.count > 20)
        for (c, p) in kept { #expect(Array(c) == p) }
    }

    @Test func dictionaryCopiesAreValuesToo() {
        var rng = SplitMix64(state: 22)
        var chunked = ChunkedDictionary<String, Int>()
        var plain: [String: Int] = [:]
        var kept: [(ChunkedDictionary<String, Int>, [String: Int])] = []
        // 5,000 keys: the buckets double twice (64 → 256) while copies are kept.
        for step in 0..<15_000 {
            let key = "k\(rng.next() % 5_000)"
            let value: Int? = rng.next() % 4 == 0 ? nil : step
            chunked[key] = value
            plain[key] = value
            if rng.next() % 97 == 0 { kept.append((chunked, plain)) }
        }
        for (c, p) in kept + [(chunked, plain)] {
            #expect(c.count == p.count)
            #expect(Dictionary(uniqueKeysWithValues: c.pairs.map { ($0.key, $0.value) }) == p)
            for k in 0..<5_000 where c["k\(k)"] != p["k\(k)"] { Issue.record("k\(k): \(String(describing: c["k\(k)"])), expected \(String(describing: p["k\(k)"]))") }
        }
    }

    /// A client adds one view to its window in a scene of 16,000 views: the scene the history
    /// holds (the one before) and the engine's share every table chunk but those the change
    /// wrote; the old scene does not see the new view.
    @Test func aOneViewChangeCopiesOnlyWhatItTouches() throws {
        let r = Rig(config(liveBase))
        r.limits.views = 5_000
        for c in 0..<4 {
            #expect(r.send(#"{"attach": {"id": "w\#(c)", "frame": [0, 0, 100, 100], "view": {"id": "r\#(c)", "frame": [0, 0, 100, 100]}}}"#, from: c + 1)
                    == .attached(window: "w\(c)", version: 1))
            let adds = (0..<4_000).map { #"{"add": {"id": "c\#(c)-\#($0)", "frame": [0, 0, 1, 1]}, "to": "r\#(c)"}"# }.joined(separator: ",")
            #expect(r.send(#"{"update": {"window": "w\#(c)", "changes": [\#(adds)]}}"#, from: c + 1) == .updated(window: "w\(c)", version: 2))
        }
        let before = try #require(r.scenes.last)
        #expect(r.send(#"{"update": {"window": "w0", "changes": [{"add": {"id": "x", "frame": [0, 0, 10, 10]}, "to": "r0"}]}}"#, from: 1)
                == .updated(window: "w0", version: 3))
        let after = try #require(r.scenes.last)
        #expect(before.liveViewCount + 1 == after.liveViewCount)
        #expect(before.viewIndex["x"] == nil && after.viewIndex["x"] != nil)
        // The new view's chunk, its parent's (its subviews) and the window's (its version).
        let views = after.views.sharing(with: before.views)
        #expect(views.chunks > 60 && views.shared >= views.chunks - 3, "views: \(views)")
        let responders = after.responders.sharing(with: before.responders)
        #expect(responders.chunks > 60 && responders.shared >= responders.chunks - 1, "responders: \(responders)")
        let ids = after.viewIndex.sharing(with: before.viewIndex)
        #expect(ids.chunks > 200 && ids.shared >= ids.chunks - 1, "view ids: \(ids)")
    }
}
