import Testing
@testable import TouchCore
import TouchTestSupport

/// Hostile and random input: seeded random event streams (valid and invalid codes, slots out of
/// range, repeated downs, lifts without downs, SYN_DROPPED) through an engine with recognizers
/// and a scroll view. The engine must not crash, and once the stream ends every touch a view was
/// told about must have ended or been cancelled.
@Suite struct RobustnessTests {
    let cfg = scene("""
        {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 2000]},
         "gestures": [{"id": "double", "kind": "tap", "taps": 2}],
         "subviews": [{"id": "row", "frame": [0, 0, 400, 60], "control": "button"},
                      {"id": "card", "frame": [0, 100, 400, 200], "multipleTouch": true, "exclusiveTouch": true, "touches": "handleAndForward",
                       "gestures": [{"id": "single", "kind": "tap", "requireToFail": ["double"]}, {"id": "hold", "kind": "longPress"},
                                    {"id": "pinch", "kind": "pinch", "simultaneousWith": ["turn"]}, {"id": "turn", "kind": "rotation"}]}]},
        {"id": "side", "frame": [400, 0, 400, 480], "touches": "handle",
         "gestures": [{"id": "swipe", "kind": "swipe", "directions": ["left", "up"], "delaysTouchesBegan": true}, {"id": "pan", "kind": "pan"}]}
        """)

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomStreamsNeverCrashOrLeaveATouchOpen(_ seed: Int) {
        var rng = SplitMix64(state: UInt64(seed) &* 7919)
        let r = Rig(cfg, device: screenDevice(slots: 4, pressure: true, major: true))
        var time: Int64 = 0
        for _ in 0..<20_000 {
            time += Int64(rng.int(40_000))
            let roll = rng.int(100)
            let e: InputEvent
            switch roll {
            case 0..<10: e = InputEvent(time: time, type: EV.ABS, code: ABS.MT_SLOT, value: Int32(rng.int(6)) - 1)        // -1…4 of 4 slots
            case 10..<20: e = InputEvent(time: time, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: rng.int(3) == 0 ? -1 : Int32(rng.int(50)))
            case 20..<45: e = InputEvent(time: time, type: EV.ABS, code: ABS.MT_POSITION_X, value: Int32(rng.int(900)) - 50)
            case 45..<70: e = InputEvent(time: time, type: EV.ABS, code: ABS.MT_POSITION_Y, value: Int32(rng.int(600)) - 50)
            case 70..<73: e = InputEvent(time: time, type: EV.ABS, code: ABS.MT_TOOL_TYPE, value: Int32(rng.int(3)))
            case 73..<75: e = InputEvent(time: time, type: EV.ABS, code: ABS.MT_PRESSURE, value: Int32(rng.int(300)))
            case 75..<76: e = InputEvent(time: time, type: EV.SYN, code: SYN.DROPPED, value: 0)
            case 76..<78: e = InputEvent(time: time, type: UInt16(rng.int(32)), code: UInt16(rng.int(0x300)), value: Int32(truncatingIfNeeded: rng.next()))
            default: e = InputEvent(time: time, type: EV.SYN, code: SYN.REPORT, value: 0)
            }
            r.feed([e])
            if rng.int(500) == 0 {   // now and then a reload to a scene without the card
                r.replaceScene(rng.int(2) == 0 ? cfg.scene : scene("{\"id\": \"row\", \"frame\": [0, 0, 400, 60], \"control\": \"button\"}").scene,
                               time: time)
            }
        }
        r.advance(to: time + 1_000_000)
        r.engine.shutdown(time: time + 1_000_000)
        r.collect()
        // Every touch that appeared in a frame was last seen ended or cancelled.
        var last: [Int: Phase] = [:]
        for f in r.frames { for t in f.touches { last[t.id] = t.phase } }
        #expect(!last.isEmpty)
        let open = last.filter { $0.value != .ended && $0.value != .cancelled }
        #expect(open.isEmpty, "touches left open: \(open.keys.sorted())")
        #expect(r.delivered == 0)
        // And no touch is in a frame after its end.
        var ended = Set<Int>()
        for f in r.frames {
            for t in f.touches {
                #expect(!ended.contains(t.id), "touch \(t.id) appears after its end")
                if t.phase == .ended || t.phase == .cancelled { ended.insert(t.id) }
            }
        }
    }
}
