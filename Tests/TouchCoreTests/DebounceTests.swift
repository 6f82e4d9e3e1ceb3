import Testing
@testable import TouchCore
import TouchTestSupport

/// Every message an engine publishes, as NDJSON lines written with the scene of its time (the
/// whole of what a subscriber reads: seq, times, touches, recognizers' values, controls, scroll
/// offsets), from when it is made on.
final class Transcript {
    private var encoder: MessageEncoder
    private(set) var lines: [String] = []

    init(_ r: Rig) {
        encoder = MessageEncoder(scene: r.scene)
        r.observer = { [unowned self] o in self.take(o) }
    }

    func take(_ o: EngineOutput) {
        switch o {
        case .message(let m):
            var b: [UInt8] = []
            encoder.encode(m, into: &b)
            lines.append(String(decoding: b.dropLast(), as: UTF8.self))
        case .sceneChanged(let s):
            encoder = MessageEncoder(scene: s)
        case .contacts, .reply, .calibration, .notice, .swallowed:
            break
        }
    }
}

/// The lines of `events` through a rig on `cfg` with `filter`, then `quiet` µs with no input
/// (timers run out, scroll views come to rest), then the shutdown.
func transcript(_ cfg: Config, _ events: [InputEvent], filter: ConditioningSettings = ConditioningSettings(),
                quiet: Int64 = 3_000_000, device: DeviceInfo = screenDevice()) -> [String] {
    var s = DeviceSettings()
    s.filter = filter
    let r = Rig(cfg, device: device, settings: s)
    let t = Transcript(r)
    r.feed(events)
    r.advance(to: (events.last?.time ?? 0) + quiet)
    r.shutdown()
    return t.lines
}

func debounce(_ d: Double, distance: Double = 20) -> ConditioningSettings {
    var c = ConditioningSettings()
    c.debounce = d
    c.debounceDistance = distance
    return c
}

/// The first line where two transcripts differ, for a readable failure.
func firstDifference(_ a: [String], _ b: [String]) -> String {
    for (k, (x, y)) in zip(a, b).enumerated() where x != y { return "line \(k):\n  \(x)\n  \(y)" }
    return a.count == b.count ? "none" : "lengths \(a.count) and \(b.count); next: \(a.count > b.count ? a[b.count] : b[a.count])"
}

/// Issue 30, item 1: the debounce keeps UIKit's clock. With `debounce` d and input that has no
/// bounce in it, every message is the one published with 0 — a lift may only go out up to d
/// later, carrying its own time. Each case below is one the held lift used to change (the
/// defect in the comment), checked against the run without the debounce.
@Suite struct DebounceKeepsUIKitsClockTests {
    /// A 2,000 pt/s flick up that lifts 10 ms after its last move.
    func flick(x: Int32 = 200, y: Int32 = 300) -> [InputEvent] {
        var f = Finger()
        f.down(0, x, y); f.syn(after: 10)
        for k in 1...5 { f.move(0, x, y - 20 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        return f.events
    }

    /// Was: the pan ended with velocity [0, 0] (the held lift came after the finger's "rested
    /// before lifting" window) and the list did not move on.
    @Test func aFlickKeepsItsVelocityAndTheListDecelerates() {
        let pan = gestureScene("{\"id\": \"pan\", \"kind\": \"pan\"}")
        let held = transcript(pan, flick(), filter: debounce(0.05))
        #expect(held == transcript(pan, flick()), "\(firstDifference(held, transcript(pan, flick())))")
        let r = Rig(pan, settings: { var s = DeviceSettings(); s.filter = debounce(0.05); return s }())
        r.feed(flick())
        r.advance(to: 1_000_000)
        #expect(r.gestures.last.map { point(r.value($0, "velocity")) } == Point(0, -2000))
        #expect(r.gestures.last?.state.rawValue == "ended")

        let list = scene("""
            {"id": "list", "frame": [0, 0, 400, 400], "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100], "control": "button"}]}
            """)
        let scrolled = transcript(list, flick(), filter: debounce(0.05))
        #expect(scrolled == transcript(list, flick()), "\(firstDifference(scrolled, transcript(list, flick())))")
        #expect(scrolled.filter { $0.contains("\"decelerating\":true") }.count > 10)
    }

    /// A PIN pad of exclusiveTouch keys 120 points apart, each a button.
    let pad = scene("""
        {"id": "k1", "frame": [50, 50, 100, 100], "control": "button", "exclusiveTouch": true},
        {"id": "k2", "frame": [170, 50, 100, 100], "control": "button", "exclusiveTouch": true}
        """)

    /// Was: the key pressed 30 ms after the previous key's finger lifted was `ignored:
    /// exclusiveTouch` (the held lift still counted as down) and its digit was lost.
    @Test func aKeyPressed30msAfterALiftIsNotRefused() {
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 60); f.up(0); f.syn(after: 30)
        f.down(1, 220, 100); f.syn(after: 60); f.up(1); f.syn()
        let held = transcript(pad, f.events, filter: debounce(0.05))
        #expect(held == transcript(pad, f.events), "\(firstDifference(held, transcript(pad, f.events)))")
        #expect(!held.contains { $0.contains("exclusiveTouch\"") })
        #expect(held.filter { $0.contains("\"event\":\"touchUpInside\"") }.count == 2)
        // The new key's touch-down lets the held lift go on at once, at its own time: the
        // first digit is out before the debounce would have let it go (60 + 50 ms).
        let r = Rig(pad, settings: { var s = DeviceSettings(); s.filter = debounce(0.05); return s }())
        var g = Finger()
        g.down(0, 100, 100); g.syn(after: 60); g.up(0); g.syn(after: 30)
        g.down(1, 220, 100); g.syn()
        r.feed(g.events)
        #expect(r.take() == ["t1 began k1", "k1 touchDown", "t1 ended k1", "k1 touchUpInside", "k1 primaryActionTriggered",
                             "t2 began k2", "k2 touchDown"])
        #expect(r.frames.map(\.time) == [0, 60_000, 90_000])
    }

    /// Was: two quick taps 150 points apart on a view with a tap recognizer: the second was
    /// `ignored: multipleTouch` and the recognizer failed it.
    @Test func twoQuickTapsAreTwoTaps() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480], \"touches\": \"handle\", \"gestures\": [{\"id\": \"tap\", \"kind\": \"tap\"}]}")
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 30)
        f.down(0, 250, 100); f.syn(after: 50); f.up(0); f.syn()
        let held = transcript(cfg, f.events, filter: debounce(0.05))
        #expect(held == transcript(cfg, f.events), "\(firstDifference(held, transcript(cfg, f.events)))")
        #expect(held.filter { $0.contains("\"recognizer\":\"tap\"") && $0.contains("\"state\":\"recognized\"") }.count == 2)
        #expect(!held.contains { $0.contains("multipleTouch\"") })
    }

    /// Was: a 470 ms press with a long press (minimumDuration 0.5) and debounce 0.05 began the
    /// long press at 500 ms (the finger still counted as down) and failed the tap.
    @Test func aShortPressDoesNotBecomeALongPress() {
        let cfg = gestureScene("{\"id\": \"hold\", \"kind\": \"longPress\"}, {\"id\": \"tap\", \"kind\": \"tap\"}")
        var f = Finger()
        f.down(0, 300, 300); f.syn(after: 470); f.up(0); f.syn()
        let held = transcript(cfg, f.events, filter: debounce(0.05))
        #expect(held == transcript(cfg, f.events), "\(firstDifference(held, transcript(cfg, f.events)))")
        #expect(!held.contains { $0.contains("\"recognizer\":\"hold\"") && $0.contains("\"began\"") })
        #expect(held.contains { $0.contains("\"recognizer\":\"tap\"") && $0.contains("\"recognized\"") })
        // While the lift is held the long press's timer waits (its finger may have lifted).
        let r = Rig(cfg, settings: { var s = DeviceSettings(); s.filter = debounce(0.05); return s }())
        r.feed(f.events)
        #expect(r.engine.nextDeadline == 520_000)
        r.advance(to: 510_000)
        #expect(r.states("hold").isEmpty)
        r.advance(to: 520_000)
        #expect(r.states("hold") == ["failed"])
    }

    /// A touch on a scroll view's content is held for its content delay (150 ms) by a timer;
    /// that timer falls due while another finger's lift is held, and a frame that changes
    /// nothing comes before the hold ends: the content still gets its touch at 150 ms.
    @Test func aContentDelayDueWhileALiftIsHeldFiresAtItsTime() {
        let cfg = scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100], "control": "button"}]},
            {"id": "pad", "frame": [400, 0, 400, 480], "touches": "handle"}
            """)
        var f = Finger()
        f.down(1, 100, 50); f.syn(after: 10)           // on the row, at 0
        f.down(0, 600, 200); f.syn(after: 110)          // on the pad, at 10
        f.up(0); f.syn(after: 40)                       // lifts at 120: held until 170
        f.move(1, 100, 50); f.syn(after: 100)           // at 160: nothing moved
        f.up(1); f.syn()
        let held = transcript(cfg, f.events, filter: debounce(0.05))
        #expect(held == transcript(cfg, f.events), "\(firstDifference(held, transcript(cfg, f.events)))")
        #expect(held.contains { $0.contains("\"time\":0.150000") && $0.contains("\"began\"") && $0.contains("\"row\"") })
    }

    /// The lift's `ended` carries the lift's time, not the hold's end.
    @Test func aHeldLiftCarriesItsOwnTime() {
        let r = Rig(pad, settings: { var s = DeviceSettings(); s.filter = debounce(0.03); return s }())
        r.down(100, 100)
        r.up()                                   // at 10 ms
        #expect(!r.frames.flatMap(\.touches).contains { $0.phase == .ended })
        #expect(r.engine.nextDeadline == 40_000)   // the lift at 10 ms, held 30 ms
        r.idle(until: 40_000)
        let ended = r.frames.last { $0.touches.contains { $0.phase == .ended } }
        #expect(ended?.time == 10_000)
        #expect(ended?.touches.first?.timestamp == 10_000)
    }
}

/// A bounce merged within the debounce stays one touch whichever hardware slot it comes back
/// on, and a reload that changes the filter lets what it holds go on first.
@Suite struct DebounceSlotsAndReloadTests {
    let buttons = scene("""
        {"id": "buy", "frame": [50, 50, 200, 100], "control": "button"},
        {"id": "other", "frame": [400, 50, 200, 100], "control": "button"}
        """)

    func settings(_ f: ConditioningSettings) -> DeviceSettings {
        var s = DeviceSettings()
        s.filter = f
        return s
    }

    /// The controller renumbers the slot: the contact comes back 10 ms later on slot 1.
    @Test func aBounceOnAnotherSlotIsTheSameTouchAndEnds() {
        let r = Rig(buttons, settings: settings(debounce(0.03)))
        r.down(100, 100, slot: 0)
        for _ in 0..<5 { r.move(101, 100, slot: 0); r.move(100, 100, slot: 0) }
        r.up(slot: 0)
        r.down(102, 100, slot: 1)
        for _ in 0..<5 { r.move(103, 100, slot: 1) }
        r.up(slot: 1)
        r.idle(until: r.finger.time + 1_000_000)
        let lines = r.take()
        #expect(lines.filter { $0.hasSuffix("began buy") || $0.hasSuffix("ended buy") } == ["t1 began buy", "t1 ended buy"])
        #expect(!lines.contains { $0.hasPrefix("t2 ") })
        #expect(lines.filter { $0.hasSuffix("touchUpInside") } == ["buy touchUpInside"])
        // Nothing stays down: the touch ended on the slot it began on.
        #expect(r.engine.liveTouchCount == 0)
        #expect(r.engine.snapshot().touches.isEmpty)
    }

    /// Was: a reload turning the debounce off while a lift was held left it held for ever; the
    /// next finger's lift was applied to the old touch (touchUpOutside on the button) and the
    /// new touch stayed down in snapshots and liveTouches.
    @Test func aReloadThatTurnsTheDebounceOffEndsTheHeldLiftFirst() {
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 10); f.up(0); f.syn(after: 10)
        var rest = Finger()
        rest.time = f.time + 20_000
        rest.down(0, 450, 100); rest.syn(after: 60); rest.up(0); rest.syn()
        let plain = transcript(buttons, f.events + rest.events)
        for turnedOff in [ConditioningSettings(), debounce(0)] {
            let r = Rig(buttons, settings: settings(debounce(0.05)))
            let t = Transcript(r)
            r.feed(f.events)
            #expect(!t.lines.contains { $0.contains("\"phase\":\"ended\"") })
            r.reload(settings(turnedOff))
            // The reload let the held lift go on, at its own time.
            #expect(t.lines.last { $0.contains("\"phase\":\"ended\"") }?.contains("\"time\":0.010000") == true)
            r.feed(rest.events)
            r.advance(to: rest.time + 3_000_000)
            #expect(r.engine.liveTouchCount == 0)
            #expect(r.engine.snapshot().touches.isEmpty)
            r.shutdown()
            #expect(t.lines == plain, "\(firstDifference(t.lines, plain))")
            #expect(!t.lines.contains { $0.contains("touchUpOutside") })
        }
    }

    /// A bounce came back on slot 1 and continues touch 1 (on the engine's slot 0); a reload then
    /// removes the filter: the finger's lift on slot 1 still ends touch 1 (the filter stays in
    /// the path for the contacts it renumbered).
    @Test func aReloadThatRemovesTheFilterKeepsTheSlotsItGave() {
        let r = Rig(buttons, settings: settings(debounce(0.03)))
        r.down(100, 100, slot: 0); r.up(slot: 0)
        r.down(102, 100, slot: 1); r.move(104, 100, slot: 1)
        r.reload(DeviceSettings())
        r.move(106, 100, slot: 1); r.up(slot: 1)
        r.idle(until: 1_000_000)
        #expect(r.take().filter { $0.contains(" began ") || $0.contains(" ended ") } == ["t1 began buy", "t1 ended buy"])
        #expect(r.engine.liveTouchCount == 0)
    }

    /// A finger down while a reload brings the filter in: it stays the touch it was, and ends.
    @Test func aReloadThatAddsAFilterWhileAFingerIsDownKeepsItsTouch() {
        let r = Rig(buttons)
        r.down(100, 100)
        r.reload(settings(debounce(0.03)))
        r.move(110, 100); r.up()
        r.idle(until: 1_000_000)
        #expect(r.take() == ["t1 began buy", "buy touchDown", "t1 moved buy", "buy touchDragInside", "t1 ended buy",
                             "buy touchUpInside", "buy primaryActionTriggered"])
        #expect(r.engine.liveTouchCount == 0)
    }

    /// A reload that keeps the filter as it was leaves its held lift held: a bounce after it
    /// still continues the touch.
    @Test func aReloadThatKeepsTheFilterKeepsTheHold() {
        let r = Rig(buttons, settings: settings(debounce(0.05)))
        r.down(100, 100); r.up()
        r.reload(settings(debounce(0.05)))
        r.down(101, 100); r.up()
        r.idle(until: 1_000_000)
        #expect(r.take().filter { $0.contains(" began ") || $0.contains(" ended ") } == ["t1 began buy", "t1 ended buy"])
    }
}
