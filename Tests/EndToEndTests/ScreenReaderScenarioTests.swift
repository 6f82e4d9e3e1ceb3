import Foundation
import Testing

/// Every gesture of interface.md's screen reader table, end to end: `touchd replay` of the
/// captures in Tests/Fixtures/voiceover (written by Tests/Tools/voiceover-captures.py) on the
/// menu of voiceover.json, whose reading order is title; coffee, tea; size, the list's rows 1–10;
/// pay, receipt. Each expectation is worked out by hand from the table and ReaderTimings (a tap
/// explores after 0.3 s held, a single tap focuses 0.25 s after its lift, a double tap and hold
/// passes through after 0.5 s), not copied from touchd's output; the golden digests pin the bytes.
@Suite struct ScreenReaderScenarioTests {
    /// Each message as a short line: "focus coffee", "say Tea, button", "say+ hint" (queued),
    /// "activate coffee", "began coffee synthesized", "coffee touchDown synthesized", …
    func replay(_ name: String, scene: String? = nil) throws -> [String] {
        var args = ["replay", "--config", Paths.fixture("voiceover/voiceover.json"), "--device-info", Paths.fixture("virtual-800x480.desc")]
        if let scene { args += ["--scene", Paths.fixture("voiceover/\(scene)")] }
        let r = try touchd(args + [Paths.fixture("voiceover/\(name).events")])
        #expect(r.status == 0, "\(r.stderr)")
        return r.messages.compactMap { m -> String? in
            let synth = m["synthesized"] as? Bool == true ? " synthesized" : ""
            let at = String(format: "@%.2f", m["time"] as? Double ?? 0)
            switch m.type {
            case "accessibilityFocus": return "focus \(m["view"] as? String ?? "-")\(at)"
            case "speech":
                if let c = m["control"] as? String { return "speech \(c)\(at)" }
                return (m["interrupt"] as? Bool == true ? "say " : "say+ ") + (m["text"] as? String ?? "?")
            case "accessibility": return "\(m["action"]!) \(m["view"] as? String ?? "-")\(at)"
            case "frame": return m.touches.map { "\($0["phase"]!) \($0["view"] as? String ?? "-")" + ($0["synthesized"] as? Bool == true ? " synthesized" : "") }.joined(separator: ", ")
            case "control": return "\(m["control"]!) \(m["event"]!)\(synth)"
            case "gesture": return "\(m["recognizer"]!) \(m["state"]!)\(synth)"
            case "scroll": return "scroll \(m["view"]!) \((m["offset"] as? [Double])?.map { Int($0) } ?? [])"
            case "device": return nil
            default: return m.type
            }
        }
    }

    @Test func exploringReadsTheElementUnderTheFinger() throws {
        // Held still on coffee: it explores at 1.30; slid onto tea at 1.45.
        #expect(try replay("v01-explore") == ["focus coffee@1.30", "say Coffee, large, button", "say+ Orders a coffee",
                                              "focus tea@1.45", "say Tea, button"])
    }

    @Test func aDoubleTapActivatesTheFocusedElementThroughItsControl() throws {
        // The double tap lands on the list; coffee, focused before it, gets a tap at its centre.
        #expect(try replay("v02-double-tap").dropFirst(3) == ["activate coffee@2.20", "began coffee synthesized", "coffee touchDown synthesized",
                                                              "ended coffee synthesized", "coffee touchUpInside synthesized",
                                                              "coffee primaryActionTriggered synthesized"])
    }

    @Test func aSplitTapActivatesTheElementUnderTheFirstFinger() throws {
        #expect(try replay("v03-split-tap") == ["focus tea@1.30", "say Tea, button", "activate tea@1.55", "began tea synthesized",
                                                "tea touchDown synthesized", "ended tea synthesized", "tea touchUpInside synthesized",
                                                "tea primaryActionTriggered synthesized"])
    }

    @Test func swipesMoveThroughTheReadingOrder() throws {
        // Right: the first element (no focus yet), coffee, tea; left: back to coffee.
        #expect(try replay("v04-swipes") == ["focus title@1.12", "say Menu, heading", "focus coffee@1.72", "say Coffee, large, button",
                                             "say+ Orders a coffee", "focus tea@2.32", "say Tea, button", "focus coffee@2.92",
                                             "say Coffee, large, button", "say+ Orders a coffee"])
    }

    @Test func swipesUpAndDownAdjustAnAdjustableElement() throws {
        #expect(try replay("v05-adjustable") == ["focus size@1.30", "say Size, 3, adjustable",
                                                 "say+ Swipe up or down with one finger to adjust the value.",
                                                 "increment size@2.12", "decrement size@2.72"])
    }

    @Test func twoFingerTapsPauseAndResume() throws {
        // Each waits the double-tap interval after its lift (1.08 + 0.25, 2.08 + 0.25).
        #expect(try replay("v06-two-finger-tap") == ["speech pause@1.33", "speech resume@2.33"])
    }

    @Test func aTwoFingerSwipeUpReadsEverything() throws {
        let rows = (1...10).map { "say+ Row \($0)" }
        #expect(try replay("v07-read-all") == ["focus title@1.12", "say Menu, heading", "say+ Coffee, large, button", "say+ Tea, button",
                                               "say+ Size, 3, adjustable"] + rows + ["say+ Pay, button", "say+ Receipt, button"])
    }

    @Test func threeFingerSwipesScrollAPage() throws {
        // The list is 200 points tall over 1,000 of content: five pages; each swipe up shows
        // the next and focuses its first row (row 3 at 200, row 5 at 400).
        #expect(try replay("v08-page-scroll") == ["focus r1@1.30", "say Row 1", "scroll list [0, 200]", "focus r3@2.12", "say page 2 of 5",
                                                  "scroll list [0, 400]", "focus r5@3.12", "say page 3 of 5"])
    }

    @Test func aScrubIsEscape() throws {
        #expect(try replay("v09-scrub").last == "escape coffee@2.40")
    }

    @Test func aTwoFingerDoubleTapIsTheMagicTap() throws {
        // Nothing is paused: the second two-finger tap came 0.10 s after the first's lift.
        #expect(try replay("v10-magic-tap").dropFirst(3) == ["magicTap coffee@2.26"])
    }

    @Test func aDoubleTapAndHoldPassesTheTouchThrough() throws {
        // Not synthesized: the finger's own touch, from 1.65 (0.5 s after it landed) to its lift.
        #expect(try replay("v11-pass-through") == ["began tea", "tea touchDown", "moved tea", "tea touchDragInside", "ended tea",
                                                   "tea touchUpInside", "tea primaryActionTriggered"])
    }

    @Test func anActivationsTapReachesRecognizers() throws {
        // receipt's tap recognizer recognizes the synthesized tap and takes it from the view.
        #expect(try replay("v12-recognizer").dropFirst(2) == ["activate receipt@2.20", "began receipt synthesized",
                                                              "receiptTap recognized synthesized", "cancelled receipt synthesized"])
    }

    @Test func requestsAnnounceChangeTheScreenAndTurnItOff() throws {
        // The dialog's modal panel confines reading: its first element is the message, and
        // coffee may not be focused; once the reader is off, a tap is a tap.
        #expect(try replay("v13-requests", scene: "v13-requests.scene.ndjson").dropFirst(3) == [
            "say Insert your card", "announced", "attached", "focus msg@1.70", "say Card accepted", "accessibilityChanged", "error",
            "focus msg@2.30", "say Card accepted", "detached", "screenReader",
            "began coffee", "coffee touchDown", "ended coffee", "coffee touchUpInside", "coffee primaryActionTriggered"])
    }
}
