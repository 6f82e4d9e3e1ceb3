import Testing
import TouchCore
import TouchTestSupport

/// The engine under live input's troubles, without a kernel: fed the event streams libevdev
/// would deliver after SYN_DROPPED, on a device's removal, and on opening a device with
/// fingers already down.
@Suite struct LiveEngineTests {
    let cfg = try! Config.parse("""
        {"screen": {"width": 800, "height": 480},
         "windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "v", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true}}]}
        """)

    /// The rig: the 800×480 test screen as the kernel's event3.
    func rig() -> Rig { Rig(cfg, device: screenDevice(), id: "event3", name: "panel") }

    func ev(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent { InputEvent(time: t, type: type, code: code, value: value) }

    func phases(_ messages: [Message]) -> [[String]] {
        // (every message the engine published, as frames' "id:phase(reason)" lists)
        messages.compactMap { m -> [String]? in
            guard case .frame(let f) = m else { return nil }
            return f.touches.map { "\($0.id):\($0.phase.name)\($0.reason.map { "(\($0.rawValue))" } ?? "")" }
        }
    }

    @Test func synDroppedResyncCancelsVanishedContactsAndKeepsTheRest() {
        let r = rig()
        let engine = r.engine, d = r.device
        // Two fingers down.
        for e in [ev(1, 3, ABS.MT_SLOT, 0), ev(1, 3, ABS.MT_TRACKING_ID, 10), ev(1, 3, ABS.MT_POSITION_X, 100), ev(1, 3, ABS.MT_POSITION_Y, 100),
                  ev(1, 3, ABS.MT_SLOT, 1), ev(1, 3, ABS.MT_TRACKING_ID, 11), ev(1, 3, ABS.MT_POSITION_X, 300), ev(1, 3, ABS.MT_POSITION_Y, 300),
                  ev(1, 0, SYN.REPORT, 0)] { engine.process(e, device: d) }
        // Part of a frame, then the kernel's buffer overflows: libevdev reports SYN_DROPPED and
        // hands over the state it re-read: slot 1 lifted meanwhile, slot 0 moved, and a new
        // contact appeared in slot 2 (libevdev terminates first, then starts, each in a frame).
        engine.process(ev(2, 3, ABS.MT_SLOT, 0), device: d)
        engine.process(ev(2, 3, ABS.MT_POSITION_X, 110), device: d)
        engine.setResyncing(device: d, true)
        for e in [ev(3, 3, ABS.MT_SLOT, 1), ev(3, 3, ABS.MT_TRACKING_ID, -1), ev(3, 0, SYN.REPORT, 0),
                  ev(3, 3, ABS.MT_SLOT, 0), ev(3, 3, ABS.MT_POSITION_X, 150),
                  ev(3, 3, ABS.MT_SLOT, 2), ev(3, 3, ABS.MT_TRACKING_ID, 12), ev(3, 3, ABS.MT_POSITION_X, 500), ev(3, 3, ABS.MT_POSITION_Y, 200),
                  ev(3, 0, SYN.REPORT, 0)] { engine.process(e, device: d) }
        engine.setResyncing(device: d, false)
        // Back to normal: the lift of slot 0 is an ordinary end.
        for e in [ev(4, 3, ABS.MT_SLOT, 0), ev(4, 3, ABS.MT_TRACKING_ID, -1), ev(4, 0, SYN.REPORT, 0),
                  ev(5, 3, ABS.MT_SLOT, 2), ev(5, 3, ABS.MT_TRACKING_ID, -1), ev(5, 0, SYN.REPORT, 0)] { engine.process(e, device: d) }
        r.collect()
        #expect(phases(r.messages) == [["1:began", "2:began"],
                                       ["1:moved", "2:cancelled(resync)"],
                                       ["1:moved", "3:began"],
                                       ["1:ended", "3:stationary"],
                                       ["3:ended"]])
        #expect(engine.liveTouchCount == 0)
    }

    @Test func removalMidTouchCancelsWithDeviceRemovedAndSaysSo() {
        let r = rig()
        let engine = r.engine, d = r.device
        for e in [ev(1, 3, ABS.MT_TRACKING_ID, 10), ev(1, 3, ABS.MT_POSITION_X, 100), ev(1, 0, SYN.REPORT, 0)] { engine.process(e, device: d) }
        r.removeDevice(time: 9)
        let published = r.messages
        #expect(phases(published).last == ["1:cancelled(device-removed)"])
        guard case .device(let m)? = published.last else { Issue.record("device message expected last"); return }
        #expect(m.action == .removed && m.device == r.descriptor && m.time == 9)
        #expect(m.device.id == "event3")
        // A second removal (a read error after ENODEV) publishes nothing more.
        engine.removeDevice(d, time: 10)
        #expect(engine.drain().isEmpty)
        #expect(engine.activeDevices.isEmpty)
    }

    @Test func contactsAlreadyDownAtOpenAreIgnoredUntilTheyLift() {
        let r = rig()
        let engine = r.engine, d = r.device
        engine.ignoreContactsDown(device: d, [(slot: 4, trackingID: 77)])
        for e in [ev(1, 3, ABS.MT_SLOT, 4), ev(1, 3, ABS.MT_POSITION_X, 100), ev(1, 0, SYN.REPORT, 0),    // moves: nothing
                  ev(2, 3, ABS.MT_TRACKING_ID, -1), ev(2, 0, SYN.REPORT, 0),                             // lifts: nothing
                  ev(3, 3, ABS.MT_TRACKING_ID, 78), ev(3, 3, ABS.MT_POSITION_X, 120), ev(3, 0, SYN.REPORT, 0)] {  // a new contact: delivered
            engine.process(e, device: d)
        }
        r.collect()
        #expect(phases(r.messages) == [["1:began"]])
    }
}
