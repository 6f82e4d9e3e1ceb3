import Testing
@testable import TouchCore
import TouchTestSupport

/// `update` changes a scroll view's keys without re-adding it (issue 22: `changes[0].set.scroll:
/// unknown key`, so a list whose length changed had to be removed and added again, cancelling
/// its touches). Content that shrinks under an offset past its new end is clamped at once.
@Suite struct LiveSceneScrollUpdateTests {
    /// A list of 1,200 points in a 480-point window; a row at content y 720…780.
    let list = """
    {"attach": {"id": "menu", "frame": [0, 0, 400, 480], "level": 1,
                "view": {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 1200]},
                         "subviews": [{"id": "row", "frame": [0, 720, 400, 60], "touches": "handle"}]}}}
    """

    func set(_ keys: String, on view: String = "list") -> String {
        #"{"update": {"window": "menu", "changes": [{"view": "\#(view)", "set": \#(keys)}]}}"#
    }
    func offset(_ r: Rig) -> Point? { r.scene.viewIndex["list"].map { r.scene[$0].boundsOrigin } }
    func spec(_ r: Rig) -> ScrollSpec? { r.scene.viewIndex["list"].flatMap { r.scene[$0].scroll } }

    @Test func contentSizeShrinksUnderATouchWhichIsKept() {
        let r = Rig(config(liveBase))
        #expect(r.send(list, from: 1) == .attached(window: "menu", version: 1))
        #expect(r.send(set(#"{"boundsOrigin": [0, 700]}"#), from: 1) == .updated(window: "menu", version: 2))
        r.down(100, 50)                        // on the row (content y 750)
        r.advance(to: r.finger.time + 300_000)  // past the content delay: the row has it
        #expect(r.take() == ["t1 began row"])
        // 600 points of content: the end is at 120; the offset (700) comes back to it at once.
        #expect(r.send(set(#"{"scroll": {"contentSize": [400, 600]}}"#), from: 1) == .updated(window: "menu", version: 3))
        #expect(spec(r)?.contentSize == Size(400, 600))
        #expect(offset(r) == Point(0, 120))
        let s = r.scrolls()
        #expect(s.count == 1)
        #expect(s.last?.offset == Point(0, 120) && s.last?.dragging == false && s.last?.decelerating == false)
        r.up()
        #expect(r.take() == ["list.pan failed", "t1 ended row"])   // not cancelled: the view was never re-added
        // Content that still covers the offset leaves it where it is, and says nothing.
        #expect(r.send(set(#"{"scroll": {"contentSize": [400, 5000], "bounces": false, "decelerationRate": "fast"}}"#), from: 1) == .updated(window: "menu", version: 4))
        #expect(offset(r) == Point(0, 120))
        #expect(r.scrolls().count == 1)
        #expect(spec(r)?.bounces == false && spec(r)?.decelerationRate == ScrollSpec.fastRate && spec(r)?.contentSize == Size(400, 5000))
    }

    @Test func aMotionUnderWayStopsWhereTheNewEndIs() {
        let r = Rig(config(liveBase))
        r.send(list, from: 1)
        var f = Finger()
        f.time = r.finger.time
        f.down(0, 100, 400); f.syn(after: 10)
        for y in stride(from: 360, through: 120, by: -40) { f.move(0, 100, Int32(y)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: f.time + 100_000)
        let moving = r.scrolls().last
        #expect(moving?.decelerating == true)
        let before = offset(r) ?? .zero
        #expect(before.y > 100)
        #expect(r.send(set(#"{"scroll": {"contentSize": [400, 500]}}"#), from: 1) == .updated(window: "menu", version: 2))
        #expect(offset(r) == Point(0, 20))   // 500 − 480
        #expect(r.scrolls().last?.offset == Point(0, 20) && r.scrolls().last?.decelerating == false)
        let said = r.scrolls().count
        r.advance(to: f.time + 3_000_000)
        #expect(r.scrolls().count == said)    // the motion is over
        #expect(offset(r) == Point(0, 20))
    }

    @Test func theOtherScrollKeysTakeEffectForTheNextTouches() {
        let r = Rig(config(liveBase))
        r.send(list, from: 1)
        r.send(set(#"{"boundsOrigin": [0, 700]}"#), from: 1)
        #expect(r.send(set(#"{"scroll": {"delaysContentTouches": false}}"#), from: 1) == .updated(window: "menu", version: 3))
        r.down(100, 50)   // no content delay now: the row hears at once
        #expect(r.take() == ["t1 began row"])
        r.up()
        let pan = r.engine.recognizers.first { $0.config.id == "list.pan" }
        #expect(pan?.config.delaysTouchesBegan == false)
    }

    @Test func scrollKeysOnlyOnAScrollViewAndOnlyKnownOnes() {
        let r = Rig(config(liveBase))
        r.send(list, from: 1)
        guard case .refused(_, _, let e) = r.send(set(#"{"scroll": {"contentSize": [1, 1]}}"#, on: "row"), from: 1) else {
            Issue.record("a plain view took scroll keys"); return
        }
        #expect(e.path == "changes[0].set.scroll")
        #expect(e.message.contains("\"row\" is not a scroll view"))
        // One added in the same update with scroll: fine.
        let added = #"{"update": {"window": "menu", "changes": [{"add": {"id": "inner", "frame": [0, 0, 100, 100], "scroll": {"contentSize": [100, 300]}}, "to": "list"}, {"view": "inner", "set": {"scroll": {"contentSize": [100, 50]}}}]}}"#
        #expect(r.send(added, from: 1) == .updated(window: "menu", version: 2))
        #expect(r.scene.viewIndex["inner"].flatMap { r.scene[$0].scroll?.contentSize } == Size(100, 50))
        // An unknown key is named with its path (the request does not parse).
        guard let node = try? JSONParser.parse(set(#"{"scroll": {"contentHeight": 5}}"#)), let m = node.members?.first,
              case .failure(let bad)? = SceneRequest.parse(m.key, m.value) else { Issue.record("an unknown scroll key parsed"); return }
        #expect("\(bad)".contains("changes[0].set.scroll.contentHeight"))
    }
}

/// Issue 28, item 1: one update that adds a scroll view and, in the same update, shrinks its
/// content under its offset. The clamp's `scroll` message names a view the scene before the
/// update does not have (the encoder trapped: SIGILL, every client gone), or — when its slot
/// was a view removed earlier in the update — names that removed view. A message is read with
/// the scene of its time, so the update's structural changes reach the outbox before it.
@Suite struct UpdateMessagesReadWithTheirSceneTests {
    /// Encodes every message with the scene of its time, as the daemon's consumers do.
    struct Lines: OutputSink {
        var lines: [String] = []
        mutating func take(_ m: Message, history: SceneHistory) {
            lines.append(String(decoding: history.encode(m), as: UTF8.self))
        }
    }

    func run(_ r: Rig, _ requests: [String]) -> [String] {
        let history = SceneHistory(scene: r.scene)
        var sink = Lines()
        r.observer = { o in history.deliver([o], to: &sink) }
        for q in requests { _ = r.send(q, from: 1) }
        r.observer = nil
        return sink.lines.filter { $0.contains("\"scroll\"") }
    }

    let window = """
    {"attach": {"id": "w", "frame": [0, 0, 400, 480], "level": 1,
                "view": {"id": "wroot", "frame": [0, 0, 400, 480],
                         "subviews": [{"id": "x3", "frame": [0, 0, 10, 10]}]}}}
    """

    @Test func aScrollViewAddedAndClampedInOneUpdateIsNamed() {
        let r = Rig(config(liveBase))
        #expect(r.send(window, from: 1) == .attached(window: "w", version: 1))
        let lines = run(r, ["""
            {"update": {"window": "w", "changes": [
              {"add": {"id": "list", "frame": [0, 0, 400, 480], "boundsOrigin": [0, 700],
                       "scroll": {"contentSize": [400, 1200]}}, "to": "wroot"},
              {"view": "list", "set": {"scroll": {"contentSize": [400, 600]}}}]}}
            """])
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""view":"list","offset":[0.0,120.0]"#) == true, "\(lines)")
    }

    @Test func aScrollViewTakingARemovedViewsSlotIsNamedNotTheRemovedView() {
        let r = Rig(config(liveBase))
        r.send(window, from: 1)
        // x3 goes and list takes its slot in the same update: the scene before it has x3 there.
        let lines = run(r, ["""
            {"update": {"window": "w", "changes": [
              {"remove": "x3"},
              {"add": {"id": "list", "frame": [0, 0, 400, 480], "boundsOrigin": [0, 700],
                       "scroll": {"contentSize": [400, 1200]}}, "to": "wroot"},
              {"view": "list", "set": {"scroll": {"contentSize": [400, 600]}}}]}}
            """])
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""view":"list""#) == true, "\(lines)")
    }
}
