import Foundation
import Testing

/// S1–S12 and the seed-002 trace (the UIKit rules in docs/touch-semantics.md), each from a real
/// `touchd replay` run on a capture and a config in Tests/Fixtures/scenarios. Every expected
/// value below was worked out by hand from the rules, not copied from touchd's output.
@Suite struct ScenarioTests {
    struct Outcome {
        var hits: [String?]              // hit view per touch, in order
        var calls: [[String]]            // calls per frame
        var controls: [String]           // "control.event"
        var traces: [[[String: Any]]]    // hitTest traces per touch
        var frames: [[String: Any]]
    }

    func replay(_ name: String) throws -> Outcome {
        let r = try touchd("replay", "--trace", "--config", Paths.fixture("scenarios/\(name).json"),
                           "--device-info", Paths.fixture("virtual-800x480.desc"), Paths.fixture("scenarios/\(name).events"))
        #expect(r.status == 0, "\(r.stderr)")
        let m = r.messages
        let frames = m.filter { $0.type == "frame" }
        let began = frames.flatMap { $0.touches.filter { $0["phase"] as? String == "began" } }
        return Outcome(hits: began.map { $0["view"] as? String },
                       calls: frames.map(\.calls),
                       controls: m.filter { $0.type == "control" }.map { "\($0["control"]!).\($0["event"]!)" },
                       traces: m.filter { $0.type == "hitTest" }.map { $0["trace"] as? [[String: Any]] ?? [] },
                       frames: frames)
    }

    func visited(_ trace: [[String: Any]]) -> Set<String> { Set(trace.compactMap { $0["view"] as? String }) }

    @Test func s01ButtonInsideACardIsHitAndTheBackgroundIsNeverAsked() throws {
        let o = try replay("s01-button-in-card")
        #expect(o.hits == ["button"])
        #expect(!visited(o.traces[0]).contains("background"))
        #expect(o.controls == ["button.touchDown", "button.touchUpInside", "button.primaryActionTriggered"])
    }

    @Test func s02ParentGatesMakeChildrenUnreachable() throws {
        let o = try replay("s02-parent-gates")
        #expect(o.hits == ["root", "root", "root"])
        let gates = o.traces.map { t in t.filter { $0["step"] as? String == "gate" }.map { "\($0["view"]!):\($0["result"]!)" } }
        // Subviews are asked last to first, and each gate is checked before pointInside, so
        // every tap meets all three refusing parents, whatever their position.
        let all = ["clearParent:alpha", "hiddenParent:hidden", "offParent:userInteractionDisabled"]
        #expect(gates == [all, all, all])
        for (t, child) in zip(o.traces, ["offChild", "hiddenChild", "clearChild"]) {
            #expect(!visited(t).contains(child))
            // The parent is entered and refused at the gate: no pointInside for it.
            let parent = ["offChild": "offParent", "hiddenChild": "hiddenParent", "clearChild": "clearParent"][child]!
            #expect(!t.contains { $0["view"] as? String == parent && $0["step"] as? String == "pointInside" })
        }
        #expect(o.calls.allSatisfy { $0.allSatisfy { $0.hasPrefix("root.") } })
    }

    @Test func s03ExpandedHitAreaWithoutStealingFromSiblings() throws {
        let o = try replay("s03-expanded-hit-area")
        // (90, 200): 10 left of the button, inside the 16-point ring → button.
        // (150, 250): 50 below its top-left bottom edge? no: 50 below the bottom edge (200) → root.
        // (210, 150): in the ring, but the sibling (added later, on top) covers it → sibling.
        // (300, 300): nowhere near → root.
        #expect(o.hits == ["button", "root", "sibling", "root"])
    }

    @Test func s04OutsetOutsideTheParentMisses() throws {
        let o = try replay("s04-outset-at-parent-edge")
        // (105, 150): inside the parent, inside the button's ring → button.
        // (95, 150): in the ring but left of the parent's bounds: the parent's gate fails → root.
        #expect(o.hits == ["button", "root"])
        #expect(o.traces[1].contains { $0["view"] as? String == "parent" && $0["step"] as? String == "pointInside" && $0["result"] as? Bool == false })
    }

    @Test func s05ChildWithInteractionOffHitsTheParent() throws {
        let o = try replay("s05-child-interaction-off")
        #expect(o.hits == ["parent"])
        #expect(o.calls[0] == ["parent.touchesBegan(1)"])
    }

    @Test func s06PlainChildLetsTheParentReceiveBegan() throws {
        let o = try replay("s06-plain-child-forwards")
        #expect(o.hits == ["child"])
        #expect(o.calls == [["parent.touchesBegan(1)"], ["parent.touchesEnded(1)"]])
    }

    @Test func s07ChildCallingSuperThenParentWithoutSuperOnlyChild() throws {
        let o = try replay("s07-child-calls-super")
        #expect(o.hits == ["child", "childNoSuper"])
        #expect(o.calls == [["child.touchesBegan(1)", "parent.touchesBegan(1)"], ["child.touchesEnded(1)", "parent.touchesEnded(1)"],
                            ["childNoSuper.touchesBegan(2)"], ["childNoSuper.touchesEnded(2)"]])
    }

    @Test func s08ControlKeepsTheTouchFromItsParent() throws {
        let o = try replay("s08-control-in-parent")
        #expect(o.hits == ["button"])
        #expect(o.calls == [["button.touchesBegan(1)"], ["button.touchesEnded(1)"]])
        #expect(o.controls == ["button.touchDown", "button.touchUpInside", "button.primaryActionTriggered"])
    }

    @Test func s09InterceptingViewIsTheFirstResponderAndDisabledControlFallsThrough() throws {
        let o = try replay("s09-intercept")
        #expect(o.hits == ["yellow", "panel"])
        #expect(!visited(o.traces[0]).contains("orange") && !visited(o.traces[0]).contains("blue"))
        #expect(o.calls[0] == ["yellow.touchesBegan(1)"])
        #expect(o.calls[2] == ["panel.touchesBegan(2)"])
        #expect(o.controls.isEmpty)
    }

    @Test func s10RoundButtonCornersMiss() throws {
        let o = try replay("s10-round-button")
        #expect(o.hits == ["round", "root"])
        #expect(o.controls == ["round.touchDown", "round.touchUpInside", "round.primaryActionTriggered"])
    }

    @Test func s11ChildOutsideItsParentNeedsOutsideChildren() throws {
        let o = try replay("s11-child-outside-parent")
        // (260, 120) is 60 right of plainParent's bounds, over plainChild: unreachable.
        // (660, 120) the same against askingParent (hitTest outsideChildren): reachable.
        #expect(o.hits == ["root", "askedChild"])
    }

    @Test func s12TransparentOverlayLetsTheButtonBeHit() throws {
        let o = try replay("s12-transparent-overlay")
        #expect(o.hits == ["button"])
        #expect(o.traces[0].contains { $0["view"] as? String == "overlay" && $0["result"] as? String == "none" })
        #expect(!o.calls.joined().contains { $0.hasPrefix("overlay.") })
    }

    @Test func seed002TraceFromReplayAndFromHitTest() throws {
        let expected = [
            "window hitTest", "window pointInside=1",
            "red hitTest", "red pointInside=1", "yellow hitTest", "yellow pointInside=1",
            "purple hitTest", "purple pointInside=0", "purple->nil",
            "orange hitTest", "orange pointInside=1",
            "cyan hitTest", "cyan gate userInteractionDisabled", "cyan->nil",
            "blue hitTest", "blue pointInside=1", "blue->blue", "orange->blue", "yellow->blue", "red->blue", "window->blue",
        ]
        func text(_ trace: [[String: Any]]) -> [String] {
            trace.map { s in
                let v = s["view"] as! String
                switch s["step"] as! String {
                case "hitTest": return "\(v) hitTest"
                case "gate": return "\(v) gate \(s["result"]!)"
                case "pointInside": return "\(v) pointInside=\((s["result"] as! Bool) ? 1 : 0)"
                default: return "\(v)->\((s["result"] as? String) ?? "nil")"
                }
            }
        }
        let o = try replay("seed-002")
        #expect(o.hits == ["blue"])
        #expect(text(o.traces[0]) == expected)
        let r = try touchd("hit-test", "--config", Paths.fixture("scenarios/seed-002.json"), "--trace", "200", "200")
        #expect(r.status == 0)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(obj["view"] as? String == "blue")
        #expect(obj["chain"] as? [String] == ["blue", "orange", "yellow", "red", "window", "app", "appDelegate"])
        #expect(text(obj["trace"] as! [[String: Any]]) == expected)
        #expect((obj["locationInView"] as? [Double]) == [140, 140])
    }
}
