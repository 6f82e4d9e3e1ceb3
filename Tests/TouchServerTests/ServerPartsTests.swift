import Testing
import TouchCore
import TouchSystem
@testable import TouchServer

/// The server's pure parts with plain values: framing, queueing, answering, fanning out.

@Suite struct LineFramerTests {
    func feed(_ f: inout LineFramer, _ chunks: [String]) -> [String] {
        var items: [LineFramer.Item] = []
        for c in chunks { f.feed(Array(c.utf8), into: &items) }
        return items.map { item in
            switch item {
            case .line(let b, let n): return "\(n):\(String(decoding: b, as: UTF8.self))"
            case .tooLong(let n): return "\(n):TOO LONG"
            }
        }
    }

    @Test func linesSplitAcrossChunksAndJoinedInOne() {
        var f = LineFramer(maxLine: 100)
        #expect(feed(&f, ["{\"pi", "ng\":1}\n{\"pi", "ng\":2}\n{\"stats\":true}\n"]) == ["1:{\"ping\":1}", "2:{\"ping\":2}", "3:{\"stats\":true}"])
        #expect(feed(&f, ["{\"ping\"", ":4}"]) == [])
        #expect(feed(&f, ["\n"]) == ["4:{\"ping\":4}"])
    }

    /// A line waiting in a backlog holds storage of its own size, not that of the framer's
    /// buffer after a long line: thousands of short requests after one long one cost
    /// thousands of small allocations, not thousands of large ones.
    @Test func eachLineHoldsOnlyItsOwnBytes() {
        var f = LineFramer(maxLine: 65_536)
        var items: [LineFramer.Item] = []
        f.feed(Array(String(repeating: "x", count: 1_500).utf8), into: &items)      // a long line, split
        f.feed(Array("y\n{\"ping\":1}\n{\"ping\":2}\r\n{\"pi".utf8), into: &items)
        f.feed(Array("ng\":3}\n".utf8), into: &items)
        let lines = items.compactMap { if case .line(let b, _) = $0 { return b }; return nil }
        #expect(lines.map(\.count) == [1_501, 10, 10, 10])
        for b in lines.dropFirst() { #expect(b.capacity < 64, "a \(b.count)-byte line holds \(b.capacity) bytes") }
    }

    @Test func crlfIsStrippedAndBlankLinesAreCountedNotReported() {
        var f = LineFramer(maxLine: 100)
        #expect(feed(&f, ["a\r\n\n  \t\nb\n"]) == ["1:a", "4:b"])
        #expect(f.lineNumber == 4)
    }

    @Test func anOversizeLineIsReportedOnceAndSkippedToItsNewline() {
        var f = LineFramer(maxLine: 8)
        // Too long before its newline arrives: reported at once, the rest discarded unbuffered.
        #expect(feed(&f, ["0123456789", "abcdef", "ghij"]) == ["1:TOO LONG"])
        #expect(f.buffer.isEmpty)
        #expect(feed(&f, ["xyz\nok\n"]) == ["2:ok"])
        // Too long within one chunk, newline included.
        #expect(feed(&f, ["0123456789\nfine\n"]) == ["3:TOO LONG", "4:fine"])
        // Exactly the limit is fine.
        #expect(feed(&f, ["12345678\n"]) == ["5:12345678"])
    }

    @Test func theEndOfTheStreamEndsAnUnterminatedLine() {
        var f = LineFramer(maxLine: 100)
        _ = feed(&f, ["{\"ping\":1}"])
        var items: [LineFramer.Item] = []
        f.finish(into: &items)
        #expect(items == [.line(Array("{\"ping\":1}".utf8), number: 1)])
        var g = LineFramer(maxLine: 4)
        _ = feed(&g, ["too long without end"])
        var none: [LineFramer.Item] = []
        g.finish(into: &none)
        #expect(none.isEmpty)
    }
}

@Suite struct OutboundQueueTests {
    func text(_ q: OutboundQueue) -> String? { q.withFront { String(decoding: $0, as: UTF8.self) } }

    @Test func partialWritesCompleteEntriesInOrder() {
        var q = OutboundQueue()
        q.append(Array("hello\n".utf8), enqueuedAt: 0)
        q.append(Array("frame\n".utf8), enqueuedAt: 42)
        #expect(q.count == 2 && q.bytes == 12)
        #expect(q.consume(2) == nil)
        #expect(text(q) == "llo\n")
        #expect(q.bytes == 10)
        let first = q.consume(4)
        #expect(first.map { String(decoding: $0.bytes, as: UTF8.self) } == "hello\n")
        #expect(first?.enqueuedAt == 0)
        #expect(text(q) == "frame\n")
        #expect(q.consume(6)?.enqueuedAt == 42)
        #expect(q.isEmpty && q.bytes == 0 && text(q) == nil && q.consume(1) == nil)
    }

    @Test func theRingGrowsAcrossItsWrapAndShrinksAfterABurst() {
        var q = OutboundQueue()
        for k in 0..<10 { q.append([UInt8(k)], enqueuedAt: Int64(k + 1)) }
        for _ in 0..<7 { _ = q.consume(1) }                 // head moves on
        for k in 10..<40 { q.append([UInt8(k)], enqueuedAt: Int64(k + 1)) }   // wraps, then grows
        var order: [Int64] = []
        while let e = q.consume(1) { order.append(e.enqueuedAt) }
        #expect(order == Array(8...40).map(Int64.init))
        for k in 0..<3000 { q.append([1], enqueuedAt: Int64(k)) }
        #expect(q.capacity >= 3000)
        while q.consume(1) != nil {}
        #expect(q.capacity == 16)
    }

    /// Many lines per send: gathered from the front (the first in part, the last cut at the
    /// buffer's end), then consumed across entries as the socket took them.
    @Test func linesAreGatheredForOneSendAndConsumedAcrossEntries() {
        var q = OutboundQueue()
        q.append(Array("alpha\n".utf8), enqueuedAt: 1)
        q.append([], enqueuedAt: 2)                       // nothing to write: complete when reached
        q.append(Array("beta\n".utf8), enqueuedAt: 3)
        q.append(Array("gamma\n".utf8), enqueuedAt: 4)
        #expect(q.consume(2) == nil)                       // "al" was written before
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 10, alignment: 1)
        defer { buf.deallocate() }
        let n = q.gather(into: buf)
        #expect(n == 10 && String(decoding: buf[0..<n], as: UTF8.self) == "pha\nbeta\ng")
        var done: [Int64] = []
        q.consume(6) { done.append($0.enqueuedAt) }       // "pha\nbe": alpha and the empty one
        #expect(done == [1, 2] && text(q) == "ta\n" && q.bytes == 9)
        q.consume(3) { done.append($0.enqueuedAt) }
        #expect(done == [1, 2, 3] && text(q) == "gamma\n")
        let m = q.gather(into: buf)
        #expect(m == 6 && String(decoding: buf[0..<m], as: UTF8.self) == "gamma\n")
        q.consume(6) { done.append($0.enqueuedAt) }
        #expect(done == [1, 2, 3, 4] && q.isEmpty && q.bytes == 0 && q.gather(into: buf) == 0)
        // Only empty entries left: consuming nothing completes them.
        q.append([], enqueuedAt: 5)
        q.consume(0) { done.append($0.enqueuedAt) }
        #expect(done.last == 5 && q.isEmpty)
    }
}

@Suite struct RequestHandlerTests {
    let scene = try! Config.parse("""
        {"windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "ok", "frame": [0, 0, 10, 10]}}]}
        """).scene

    func respond(_ s: String) -> RequestHandler.Response { RequestHandler.respond(to: Array(s.utf8), scene: scene) }

    @Test func eachRequestGetsItsAnswer() {
        #expect(respond("{\"ping\":7}") == .reply(Array("{\"type\":\"pong\",\"ping\":7}\n".utf8)))
        #expect(respond("{\"stats\":true}") == .stats)
        guard case .subscribe(let f) = respond("{\"subscribe\":{\"types\":[\"control\"],\"views\":[\"ok\"]}}") else {
            Issue.record("a subscription"); return
        }
        #expect(f.types == [.control] && f.views == [scene.viewIndex["ok"]!])
        #expect(respond("{\"subscribe\":{\"windows\":[\"nope\",\"main\"]}}") == .error(RequestError("subscribe: no window or view has id \"nope\"; subscription unchanged")))
        #expect(respond("xyz") == .error(RequestError("invalid JSON: column 1: unexpected 'x', expected a value")))
    }
}

@Suite struct OutboundQueueRemovalTests {
    @Test func staleEntriesGoButAPartlyWrittenFrontStays() {
        var q = OutboundQueue()
        q.append(Array("move-1\n".utf8), enqueuedAt: 1, moveOnly: true)
        q.append(Array("began\n".utf8), enqueuedAt: 1)
        q.append(Array("move-2\n".utf8), enqueuedAt: 1, moveOnly: true)
        q.append(Array("ended\n".utf8), enqueuedAt: 1)
        _ = q.consume(3)   // "mov" of the first is on the wire
        #expect(q.remove { $0.moveOnly } == 1)
        #expect(q.count == 3)
        var rest: [UInt8] = []
        while let b = q.withFront({ Array($0) }) {
            rest += b
            _ = q.consume(b.count)
        }
        #expect(String(decoding: rest, as: UTF8.self) == "e-1\nbegan\nended\n")
        #expect(q.bytes == 0)
    }
}

@Suite struct LatencyRecorderTests {
    @Test func percentilesWithinTheBucketsPrecision() {
        var l = LatencyRecorder()
        #expect(l.percentiles().samples == 0 && l.percentiles().max == 0)
        for v in 1...100 { l.record(Int64(v)) }
        let p = l.percentiles()
        // Exact below 64 µs; a bucket's lower bound above (32 steps per power of two).
        #expect(p.samples == 100 && p.p50 == 51 && p.max == 100)
        #expect(p.p99 >= 96 && p.p99 <= 100)
        var big = LatencyRecorder()
        for v in stride(from: 1_000, through: 1_000_000, by: 1_000) { big.record(Int64(v)) }
        let q = big.percentiles()
        #expect(abs(Double(q.p50) - 501_000) / 501_000 < 0.04, "\(q.p50)")
        #expect(abs(Double(q.p99) - 991_000) / 991_000 < 0.04, "\(q.p99)")
        #expect(q.max == 1_000_000)
        // Negative values (a clock that went back) count as 0.
        var neg = LatencyRecorder()
        neg.record(-5)
        #expect(neg.percentiles().p50 == 0)
    }

    @Test func theFiguresAreThoseOfTheRecentSamples() {
        var l = LatencyRecorder()
        for _ in 0..<LatencyRecorder.window { l.record(5_000) }
        for _ in 0..<LatencyRecorder.window { l.record(7) }
        // Both windows: half and half.
        #expect(l.percentiles().samples == 2 * LatencyRecorder.window)
        for _ in 0..<LatencyRecorder.window { l.record(7) }
        // The 5 ms window has gone.
        let p = l.percentiles()
        #expect(p.p99 == 7 && p.max == 7)
    }

    @Test func bucketsCoverEveryValueInOrder() {
        var last = -1
        for v: Int64 in [0, 1, 63, 64, 65, 100, 1_000, 65_535, 1 << 20, 1 << 30, 1 << 40, Int64.max] {
            let b = LatencyRecorder.bucket(v)
            #expect(b >= last)
            #expect(LatencyRecorder.lowerBound(b) <= v || b == LatencyRecorder.buckets - 1)
            last = b
        }
    }
}

@Suite struct FanOutTests {
    let scene = try! Config.parse("""
        {"windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480],
          "subviews": [{"id": "left", "frame": [0, 0, 400, 480]}, {"id": "right", "frame": [400, 0, 400, 480]}]}}]}
        """).scene

    func connection(_ id: Int, views: [String] = [], types: Set<MessageType>? = nil) throws -> Connection {
        let c = Connection(fd: try FileDescriptor.open("/dev/null", .readOnly), id: id, credentials: nil, maxLine: 100)
        c.filter.viewIDs = views
        if let types { c.filter.types = types }
        c.filter.resolve(in: scene)
        return c
    }

    func frame() -> Message {
        touchFrame(scene, ["left", "right"], phases: [.moved, .moved])
    }

    func storage(_ b: [UInt8]) -> UnsafeRawPointer? { b.withUnsafeBytes { $0.baseAddress } }

    @Test func eachDistinctFormIsEncodedOnceAndShared() throws {
        var all: [Descriptor: Connection] = [:]
        let everything = [try connection(1), try connection(2)]
        let lefts = [try connection(3, views: ["left"]), try connection(4, views: ["left"])]
        let right = try connection(5, views: ["right"])
        let controlsOnly = try connection(6, types: [.control])
        for c in everything + lefts + [right, controlsOnly] { all[Descriptor(rawValue: Int32(1000 + c.id))] = c }
        let forms = FanOut(scene: scene).forms(of: frame(), for: all.values, history: SceneHistory(scene: scene))
        func bytes(_ c: Connection) -> [UInt8]? { forms.first { $0.0 === c }?.1 }
        #expect(bytes(controlsOnly) == nil)                       // its subscription does not want frames
        #expect(forms.count == 5)
        // Each #require on a line of its own: Swift 6.0's Testing cannot nest one in #expect.
        let full = try #require(bytes(everything[0])), full1 = try #require(bytes(everything[1]))
        #expect(storage(full) == storage(full1))       // one encoding, shared
        let left = try #require(bytes(lefts[0])), left1 = try #require(bytes(lefts[1]))
        #expect(storage(left) == storage(left1))
        #expect(String(decoding: full, as: UTF8.self).contains("\"view\":\"right\""))
        #expect(!String(decoding: left, as: UTF8.self).contains("\"view\":\"right\""))
        #expect(String(decoding: try #require(bytes(right)), as: UTF8.self).contains("\"view\":\"right\""))
    }

    /// The config's scene with two client windows: client 7's private "pin" (with "key") and
    /// client 8's public "sheet" (with "page").
    func liveScene() throws -> Scene {
        let engine = Engine(scene: scene)
        for (client, json) in [(7, #"{"id": "pin", "private": true, "frame": [0, 0, 100, 100], "view": {"id": "key", "frame": [0, 0, 10, 10]}}"#),
                               (8, #"{"id": "sheet", "frame": [100, 0, 100, 100], "view": {"id": "page", "frame": [0, 0, 10, 10]}}"#)] {
            let node = try JSONParser.parse(json)
            guard case .success(let r)? = SceneRequest.parse("attach", node) else { throw RequestError("test attach does not parse") }
            guard case .attached = engine.apply(r, from: client, time: 0) else { throw RequestError("test attach refused") }
        }
        return engine.scene
    }

    func touchFrame(_ scene: Scene, _ views: [String], phases: [Phase]? = nil) -> Message {
        .frame(frameMessage(scene, views, phases: phases))
    }

    /// One frame with a touch on each of `views` (ids 1, 2, …), began unless `phases` says.
    func frameMessage(_ scene: Scene, _ views: [String], phases: [Phase]? = nil) -> FrameMessage {
        let touches = views.enumerated().map { k, id -> TouchRecord in
            let v = scene.viewIndex[id]!
            return TouchRecord(id: k + 1, phase: phases?[k] ?? .began, window: scene[v].window, view: v, location: .zero, previous: .zero,
                               locationInView: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
        }
        return FrameMessage(seq: 1, time: 0, device: "d", touches: touches, calls: [])
    }

    /// The byte bound holds whichever limit is larger (review finding: with a message limit
    /// above the byte limit, the depth's per-message bytes were clamped to 1 and the bound
    /// became the message limit's number of bytes).
    @Test func aConnectionsDepthIsTheFullerOfMessagesAndBytes() throws {
        let c = Connection(fd: try FileDescriptor.open("/dev/null", .readOnly), id: 1, credentials: nil, maxLine: 100,
                           queueLimit: 1_000_000, queueBytes: 65_536)
        c.queue.append([UInt8](repeating: 0x41, count: 32_768), enqueuedAt: 0)
        #expect(c.depth == 500_000)              // half the bytes: half full
        c.queue.append([UInt8](repeating: 0x41, count: 32_768), enqueuedAt: 0)
        #expect(c.depth == 1_000_000)            // the byte limit: full, with two messages
        let d = Connection(fd: try FileDescriptor.open("/dev/null", .readOnly), id: 2, credentials: nil, maxLine: 100,
                           queueLimit: 64, queueBytes: 4 << 20)
        for _ in 0..<10 { d.queue.append([0x41], enqueuedAt: 0) }
        #expect(d.depth == 10)                   // few small messages: their count
    }

    /// Issue 21: a subscribe naming a view of another client's private window answered
    /// differently from one naming no view at all, telling the asker the id exists.
    @Test func aPrivateWindowsIdsAreUnknownToOthersFilters() throws {
        let live = try liveScene()
        var f = SubscriptionFilter()
        f.viewIDs = ["key", "page", "nothing"]
        #expect(f.resolve(in: live, client: 9) == ["key", "nothing"])       // private "pin"'s key: unknown
        #expect(f.resolve(in: live, client: 7) == ["nothing"])              // its owner may name it
        f.viewIDs = []
        f.windowIDs = ["pin", "sheet"]
        #expect(f.resolve(in: live, client: 8) == ["pin"])
        let line = Array(#"{"subscribe": {"views": ["key"]}}"#.utf8)
        let other = Array(#"{"subscribe": {"views": ["nothing"]}}"#.utf8)
        func words(_ r: RequestHandler.Response) -> String? { if case .error(let e) = r { return e.message }; return nil }
        #expect(words(RequestHandler.respond(to: line, scene: live, client: 9))?.replacingOccurrences(of: "key", with: "X")
                == words(RequestHandler.respond(to: other, scene: live, client: 9))?.replacingOccurrences(of: "nothing", with: "X"))
        if case .subscribe = RequestHandler.respond(to: line, scene: live, client: 7) {} else { Issue.record("the owner could not subscribe to its view") }
    }

    /// Issue 21: with a TUIO target, the taps on a private PIN pad went out over UDP with their
    /// positions. A private window's touches are its owner's alone.
    @Test func tuioLeavesPrivateWindowsOut() throws {
        let live = try liveScene()
        var e = TuioEncoder(source: "s", output: nil)
        #expect(e.frame(frameMessage(live, ["key"]), scene: live).isEmpty)
        let bundles = e.frame(frameMessage(live, ["key", "page"]), scene: live)
        #expect(bundles.count == 1)
        let text = String(decoding: bundles.first ?? [], as: UTF8.self)
        #expect(e.alive == [2], "only the public sheet's touch: \(e.alive)")
        #expect(!text.isEmpty)
    }

    @Test func ownersSeeTheirWindowsWhateverTheirFilterAndPrivateWindowsOnlyTheirOwner() throws {
        let live = try liveScene()
        func conn(_ id: Int, types: Set<MessageType>? = nil, views: [String] = []) throws -> Connection {
            let c = Connection(fd: try FileDescriptor.open("/dev/null", .readOnly), id: id, credentials: nil, maxLine: 100)
            if let types { c.filter.types = types }
            c.filter.viewIDs = views
            c.filter.resolve(in: live)
            return c
        }
        let pinOwner = try conn(7, types: [.device])          // wants no frames, owns "pin"
        let sheetOwner = try conn(8, views: ["left"])          // filters on the config's "left", owns "sheet"
        let bystander = try conn(9)
        var all: [Descriptor: Connection] = [:]
        for c in [pinOwner, sheetOwner, bystander] { all[Descriptor(rawValue: Int32(2000 + c.id))] = c }
        let forms = FanOut(scene: live).forms(of: touchFrame(live, ["key", "page", "left"]), for: all.values, history: SceneHistory(scene: live))
        func text(_ c: Connection) -> String? { forms.first { $0.0 === c }.map { String(decoding: $0.1, as: UTF8.self) } }
        func views(_ c: Connection) -> [String] {
            guard let t = text(c) else { return [] }
            return ["key", "page", "left"].filter { t.contains("\"view\":\"\($0)\"") }
        }
        #expect(views(pinOwner) == ["key"])
        #expect(views(sheetOwner) == ["page", "left"])
        #expect(views(bystander) == ["page", "left"])
        // The same cut is encoded once: the sheet's owner and the bystander share the bytes.
        let a = try #require(forms.first { $0.0 === sheetOwner }?.1), b = try #require(forms.first { $0.0 === bystander }?.1)
        #expect(storage(a) == storage(b))
        // A frame with only the private window's touch reaches its owner alone.
        let privateOnly = FanOut(scene: live).forms(of: touchFrame(live, ["key"]), for: all.values, history: SceneHistory(scene: live))
        #expect(privateOnly.map { $0.0.id } == [7])
        // A public finger resting while the private window's key is pressed: the frame is cut
        // to the resting touch for the others, which would tell them when the key went down
        // (issue 21) — a cut frame with nothing changed in it is not sent. With the public
        // finger moving it is.
        let resting = FanOut(scene: live).forms(of: touchFrame(live, ["page", "key"], phases: [.stationary, .began]), for: all.values, history: SceneHistory(scene: live))
        #expect(resting.map { $0.0.id } == [7], "the page's owner too would learn when the key went down")
        let moving = FanOut(scene: live).forms(of: touchFrame(live, ["page", "key"], phases: [.moved, .began]), for: all.values, history: SceneHistory(scene: live))
        #expect(moving.map { $0.0.id }.sorted() == [7, 8, 9])
        // Clients with the same filter: those that own nothing share one cut of the message
        // (FanOut keeps it per filter), an owner with that filter still gets its own.
        let sameFilterOwner = try conn(7), twins = [try conn(10), try conn(11)]
        var same: [Descriptor: Connection] = [:]
        for c in [twins[0], sameFilterOwner, twins[1]] { same[Descriptor(rawValue: Int32(3000 + c.id))] = c }
        let shared = FanOut(scene: live).forms(of: touchFrame(live, ["key", "page"]), for: same.values, history: SceneHistory(scene: live))
        func seen(_ c: Connection) -> [String] {
            guard let b = shared.first(where: { $0.0 === c })?.1 else { return [] }
            let t = String(decoding: b, as: UTF8.self)
            return ["key", "page"].filter { t.contains("\"view\":\"\($0)\"") }
        }
        #expect(seen(sameFilterOwner) == ["key", "page"])
        #expect(seen(twins[0]) == ["page"] && seen(twins[1]) == ["page"])
        // Controls and gestures go by their view's window the same way.
        let control = Message.control(ControlMessage(seq: 2, time: 0, control: live.viewIndex["key"]!, event: .touchDown, touch: 1))
        #expect(FanOut(scene: live).forms(of: control, for: all.values, history: SceneHistory(scene: live)).map { $0.0.id } == [7])
    }
}
