import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 43, item 1: a turn of an output cancels every touch on it for whoever follows it — its
/// views and its recognizers, pending and recognized alike. A touch a recognizer has taken
/// (cancelsTouchesInView) is over for the views, not for the recognizer: it must hear of the
/// turn (`cancelled`), or a pan goes on with the fingers mapped in the new orientation (its
/// translation jumped by hundreds of points and a list was flung from 60 to 894).
@Suite struct TurnCancelsRecognizersTests {
    /// A list on the left half, a card with a pan on the right.
    static let board = scene("""
        {"id": "list", "frame": [0, 0, 400, 480], "touches": "forward", "multipleTouch": true,
         "scroll": {"contentSize": [400, 4000]},
         "subviews": [{"id": "row", "frame": [0, 300, 400, 60], "control": "button", "touches": "handle"}]},
        {"id": "card", "frame": [400, 0, 400, 480], "touches": "handle",
         "gestures": [{"id": "cardPan", "kind": "pan"}]}
        """)

    /// Finger 0 drags the list up from its row, finger 1 pans the card; at `turnAt` the client
    /// turns the output a quarter; both fingers go on moving, then lift.
    static func dragsThenTurn(_ r: Rig, reload: Bool = false) -> Int {
        var f = Finger()
        f.down(0, 200, 330); f.down(1, 600, 300); f.syn(after: 20)
        for k in 1...9 { f.move(0, 200, Int32(330 - 10 * k)); f.move(1, Int32(600 - 8 * k), 300); f.syn(after: 20) }
        r.feed(f)
        f.events.removeAll()
        r.finger.time = f.time
        let turnAt = r.messages.count
        if reload {
            var turned = r.cfg.scene
            turned.setRotation(.r90, ofOutput: 0)
            r.replaceScene(turned, time: f.time)
        } else {
            r.send(#"{"output": {"id": "screen", "rotation": 90}}"#, from: 1)
        }
        for k in 1...6 { f.move(0, Int32(200 + 20 * k), 240); f.move(1, 528, Int32(300 - 20 * k)); f.syn(after: 20) }
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        r.advance(to: f.time + 3_000_000)
        return turnAt
    }

    func check(_ r: Rig, turnAt: Int) {
        let before = Array(r.messages[..<turnAt])
        let after = Array(r.messages[turnAt...])
        func states(_ ms: [Message], _ id: String) -> [String] {
            ms.compactMap { if case .gesture(let g) = $0, g.recognizer == id { return g.state.rawValue }; return nil }
        }
        // Both pans were under way, and the turn cancels both — then neither says a word more.
        #expect(states(before, "list.pan").first == "began")
        #expect(states(before, "cardPan").first == "began")
        #expect(states(after, "list.pan") == ["cancelled"], "\(states(after, "list.pan"))")
        #expect(states(after, "cardPan") == ["cancelled"], "\(states(after, "cardPan"))")
        // The views had seen both touches cancelled by their pans (gesture); nobody sees them again.
        let framesAfter = after.frames.flatMap(\.touches)
        #expect(framesAfter.allSatisfy { $0.id > 2 }, "\(framesAfter.map { "t\($0.id) \($0.phase)" })")
        // The list rests where the drag left it, down its content: nothing flings it.
        let atTurn = before.scrolls.last?.offset
        #expect((atTurn?.y ?? 0) > 40, "\(String(describing: atTurn))")
        let offsetsAfter = r.scrolls(from: turnAt, of: "list").map(\.offset)
        #expect(offsetsAfter.allSatisfy { $0 == atTurn }, "\(offsetsAfter.prefix(4)) … \(offsetsAfter.suffix(2))")
        #expect(r.engine.isMoving == false)
    }

    @Test func aTurnCancelsThePansThatTookTheFingers() {
        let r = Rig(Self.board)
        check(r, turnAt: Self.dragsThenTurn(r))
    }

    @Test func aReloadThatTurnsTheOutputCancelsThemToo() {
        let r = Rig(Self.board)
        check(r, turnAt: Self.dragsThenTurn(r, reload: true))
    }
}

/// Issue 43, item 1, as a property: ScrollPropertyTests' random scroll views (nested, paging,
/// bouncing; a pan on the root) fed its random gestures and scroll motions, with the output
/// turned at a random time in each: the turn's own messages cancel (or fail) every recognizer
/// following a touch that was down, and no recognizer says a word about such a touch after the
/// turn; once the fingers lift and the motions run out, every scroll view rests at a valid offset.
@Suite struct TurnPropertyTests {
    @Test(arguments: Array(1...30))
    func aTurnAtAnyTimeSilencesTheRecognizersOfItsFingersAndLeavesScrollViewsAtRest(_ seed: Int) {
        var rng = SplitMix64(state: UInt64(seed) &* 104_729 &+ 3)
        let (cfg, json) = ScrollPropertyTests.config(&rng)
        let r = Rig(cfg)
        var rotation = Rotation.r0
        for w in 0..<8 {
            let start = Int64(w) * ScrollPropertyTests.window
            var f = Finger()
            f.nextID = Int32(100 + 10 * w)
            _ = ScrollPropertyTests.gesture(&rng, &f, start: start)
            let end = f.events.last?.time ?? start
            let turnAt = start + Int64(rng.int(Int(end - start) + 20_000))
            r.feed(f.events.filter { $0.time < turnAt })
            r.advance(to: turnAt)
            // What was down, and which recognizers followed it, as the turn comes.
            let down = Set(r.engine.touches.all.filter { !$0.fingerDone && $0.phase != .ended && $0.phase != .cancelled }.map(\.id))
            let active = r.engine.recognizers.filter { !$0.removed && $0.active && !down.isDisjoint(with: $0.touches) }.map(\.id)
            let undecided = r.engine.recognizers.filter { !$0.removed && $0.undecided && !down.isDisjoint(with: $0.state.down.keys) }.map(\.id)
            let before = r.messages.count
            var next = [Rotation.r0, .r90, .r180, .r270].filter { $0 != rotation }
            rotation = next.remove(at: rng.int(next.count))
            r.finger.time = turnAt
            r.send(#"{"output": {"id": "screen", "rotation": \#(rotation.rawValue)}}"#, from: 1)
            let turn = Array(r.messages[before...])
            let after = r.messages.count
            r.feed(f.events.filter { $0.time >= turnAt })
            r.advance(to: start + ScrollPropertyTests.window - 1)
            let context = "seed \(seed) window \(w) turn at \(turnAt) to \(rotation.rawValue), down \(down.sorted()); \(json)"
            // The turn's own messages: every recognizer under way with such a touch is cancelled,
            // every one still deciding with one down fails.
            let said = turn.compactMap { m -> (String, GestureState)? in if case .gesture(let g) = m { return (g.recognizer, g.state) }; return nil }
            for id in active { #expect(said.contains { $0 == (id, .cancelled) }, "\(id) was not cancelled: \(said); \(context)") }
            for id in undecided { #expect(said.contains { $0 == (id, .failed) }, "\(id) did not fail: \(said); \(context)") }
            // After it, nothing about those touches.
            for m in r.messages[after...] {
                guard case .gesture(let g) = m, !down.isDisjoint(with: g.touches) else { continue }
                Issue.record("after the turn \(g.recognizer) \(g.state.rawValue) at \(g.time) with \(g.touches); \(context)")
            }
            // At rest, at a valid offset (in bounds, on a page).
            for id in ["outer", "inner"] {
                let v = r.scene.viewIndex[id]!
                let node = r.scene[v]
                guard let spec = node.scroll else { continue }
                #expect(!r.engine.scrolls.isMoving(v), "\(id) still moving; \(context)")
                let m = ScrollPhysics.maxOffset(spec, node.frame.size)
                let o = node.boundsOrigin
                #expect(o.x >= 0 && o.x <= m.x && o.y >= 0 && o.y <= m.y, "\(id) rests at \(o), bounds \(m); \(context)")
                if spec.pagingEnabled {
                    let onPage = (o.x == m.x || o.x.truncatingRemainder(dividingBy: node.frame.size.width) == 0)
                        && (o.y == m.y || o.y.truncatingRemainder(dividingBy: node.frame.size.height) == 0)
                    #expect(onPage, "\(id) rests between pages at \(o); \(context)")
                }
            }
        }
    }
}
