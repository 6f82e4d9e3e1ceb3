import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 43, item 4: removing a view cancels the touch for that view's subtree and its own
/// recognizers only. A touch's recognizers are fixed at its touch-down (UIKit): an ancestor's
/// recognizer following it keeps it — a list whose pan took a drag that began on a row keeps
/// following the finger when the client replaces that row (a table view reloading rows under a
/// drag) — and nothing more is sent for views that already had the touch cancelled. It used to
/// cancel the ancestors' recognizers too: the list stopped where the row went.
@Suite struct RemovedRowTests {
    static let rows = (0..<20).map { #"{"id": "row\#($0)", "frame": [0, \#($0 * 60), 400, 60], "touches": "handle"}"# }.joined(separator: ", ")
    static let list = """
        {"attach": {"id": "w", "frame": [0, 0, 400, 480], "level": 1,
                    "view": {"id": "list", "frame": [0, 0, 400, 480], "touches": "forward",
                             "scroll": {"contentSize": [400, 1200]}, "subviews": [\(rows)]}}}
        """

    @Test func theListKeepsFollowingTheFingerWhenTheTouchedRowIsReplaced() {
        let r = Rig(config(liveBase))
        #expect(r.send(Self.list, from: 1) == .attached(window: "w", version: 1))
        // A drag up from row3 (y 200), 10 points every 20 ms.
        r.down(200, 200)
        for k in 1...12 { r.finger.time += 10_000; r.move(200, Int32(200 - 10 * k)) }
        #expect(r.states("list.pan").first == "began")
        let before = r.messages.count
        let offsetAtReplace = r.scene[r.scene.viewIndex["list"]!].boundsOrigin
        // The client replaces the touched row.
        let replace = #"{"update": {"window": "w", "changes": [{"remove": "row3"}, {"add": {"id": "row3b", "frame": [0, 180, 400, 60], "touches": "handle"}, "to": "list"}]}}"#
        #expect(r.send(replace, from: 1) == .updated(window: "w", version: 2))
        for k in 13...20 { r.finger.time += 10_000; r.move(200, Int32(200 - 10 * k)) }
        r.up()
        let after = Array(r.messages[before...])
        let panAfter = after.compactMap { m -> String? in if case .gesture(let g) = m, g.recognizer == "list.pan" { return g.state.rawValue }; return nil }
        // The pan goes on with the finger and ends at its lift: never cancelled.
        #expect(panAfter.prefix(8).allSatisfy { $0 == "changed" } && panAfter.count >= 8, "\(panAfter)")
        #expect(panAfter.last == "ended" && !panAfter.contains("cancelled"), "\(panAfter)")
        // The content follows the finger 80 points further.
        let offsets = r.scrolls(from: before, of: "list").map(\.offset.y)
        #expect(offsets.first.map { $0 > offsetAtReplace.y } == true, "\(offsetAtReplace) then \(offsets)")
        let dragged = after.scrolls.filter(\.dragging).map(\.offset.y)
        #expect(dragged.last == offsetAtReplace.y + 80, "\(offsetAtReplace) then \(dragged)")
        // The touch had been taken from the row by the pan (gesture): the removal sends nothing more for it.
        #expect(after.frames.flatMap(\.touches).filter { $0.id == 1 }.isEmpty, "\(after.frames.flatMap(\.touches))")
    }

    /// A touch the removed view still had (no recognizer took it): that view sees it cancelled
    /// (`view-removed`), and the list's pan, still deciding, keeps following it — a drag that
    /// starts after the removal scrolls the list.
    @Test func aRowRemovedUnderAFingerIsCancelledAndTheListStillTakesTheDrag() {
        let r = Rig(config(liveBase))
        r.send(Self.list, from: 1)
        r.down(200, 200)
        r.finger.time += 200_000
        r.move(200, 201)                                  // past the content delay: row3 has it
        #expect(r.take().contains("t1 began row3"))
        r.send(#"{"update": {"window": "w", "changes": [{"remove": "row3"}]}}"#, from: 1)
        let removal = r.take()
        #expect(removal == ["t1 cancelled row3 view-removed"], "\(removal)")
        for k in 1...6 { r.finger.time += 10_000; r.move(200, Int32(201 - 10 * k)) }
        r.up()
        let drag = r.take()
        #expect(drag.contains("list.pan began") && drag.contains("list.pan ended"), "\(drag)")
        // Nothing more for the row's touch in frames.
        #expect(!drag.contains { $0.hasPrefix("t1 ") }, "\(drag)")
    }

    /// The row goes, then its list's window while the finger is still down, then a new window
    /// takes the freed recognizer slots: the touch follows none of the new recognizers (it
    /// forgot the freed slots) and its lift says nothing.
    @Test func aTouchForgetsTheRecognizersAndWindowThatWentAfterItsRow() {
        let r = Rig(config(liveBase))
        r.send(Self.list, from: 1)
        r.down(200, 200)
        r.send(#"{"update": {"window": "w", "changes": [{"remove": "row3"}]}}"#, from: 1)
        #expect(r.send(#"{"detach": {"window": "w"}}"#, from: 1) == .detached(window: "w"))
        let pad = #"{"attach": {"id": "p", "frame": [0, 0, 400, 480], "level": 1, "view": {"id": "pv", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 2000]}, "gestures": [{"id": "pp", "kind": "pan"}]}}}"#
        #expect(r.send(pad, from: 1) == .attached(window: "p", version: 1))
        _ = r.take()
        for k in 1...6 { r.finger.time += 10_000; r.move(200, Int32(200 - 10 * k)) }
        r.up()
        #expect(r.take().isEmpty)
        #expect(r.engine.liveTouchCount == 0)
    }
}
