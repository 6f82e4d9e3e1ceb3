import Testing
import TouchCore
import TouchInput
@testable import TouchCapture

/// Live-input logic without a kernel: device descriptions built with libevdev_new, and the
/// engine fed the event streams libevdev would deliver.
@Suite struct ClassificationTests {
    func device(_ name: String, props: Set<UInt16> = [], keys: Set<UInt16> = [], abs: [UInt16: AbsInfo], rel: Set<UInt16> = []) -> DeviceInfo {
        var codes: [UInt16: Set<UInt16>] = [EV.SYN: [SYN.REPORT]]
        if !keys.isEmpty { codes[EV.KEY] = keys }
        if !rel.isEmpty { codes[EV.REL] = rel }
        let d = DeviceInfo(name: name, properties: props, codes: codes, abs: abs)
        // Through libevdev_new and back: the description as libevdev would give it for a real fd.
        return LibevdevDescription(d)!.info
    }

    let mt: [UInt16: AbsInfo] = [ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 9), ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 4095),
                                 ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 4095), ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535)]

    @Test func capabilitiesDecideWithoutUdevd() {
        let b = device("Goodix", props: [InputProp.direct], keys: [BTN.TOUCH], abs: mt)
        #expect(b.touchProtocol == .b && b.slotCount == 10)
        #expect(b.isTouchscreen(udevProperties: nil))
        #expect(b.kindDescription(touchscreen: true) == "touchscreen, protocol B, 10 slots")
        var aAbs = mt
        aAbs[ABS.MT_SLOT] = nil
        let a = device("N-Trig", props: [InputProp.direct], abs: aAbs)
        #expect(a.touchProtocol == .a && a.isTouchscreen(udevProperties: nil))
        let single = device("ADS7846", keys: [BTN.TOUCH], abs: [ABS.X: AbsInfo(minimum: 0, maximum: 4095), ABS.Y: AbsInfo(minimum: 0, maximum: 4095)])
        #expect(single.touchProtocol == .single && single.isTouchscreen(udevProperties: nil))
        let touchpad = device("Synaptics", props: [InputProp.pointer], keys: [BTN.TOUCH, 0x110], abs: mt)
        #expect(!touchpad.isTouchscreen(udevProperties: nil))
        #expect(touchpad.kindDescription(touchscreen: false) == "not a touchscreen (touchpad or tablet: no INPUT_PROP_DIRECT)")
        let keyboard = device("AT keyboard", keys: [30, 31, 32], abs: [:])
        #expect(!keyboard.isTouchscreen(udevProperties: nil))
        #expect(keyboard.kindDescription(touchscreen: false) == "not a touchscreen (keyboard)")
        let mouse = device("mouse", keys: [0x110], abs: [:], rel: [0, 1])
        #expect(mouse.kindDescription(touchscreen: false) == "not a touchscreen (pointer)")
    }

    @Test func udevsVerdictWinsWhereUdevdRuns() {
        let b = device("Goodix", props: [InputProp.direct], keys: [BTN.TOUCH], abs: mt)
        #expect(b.isTouchscreen(udevProperties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]))
        #expect(!b.isTouchscreen(udevProperties: ["ID_INPUT": "1", "ID_INPUT_TABLET": "1"]))
        // No ID_INPUT at all: udev did not classify it (yet): capabilities decide.
        #expect(b.isTouchscreen(udevProperties: [:]))
    }

    @Test func configEntriesMatchByUdevProperties() throws {
        let cfg = try Config.parse("""
            {"windows": [{"id": "w", "frame": [0, 0, 1, 1]}],
             "devices": [{"match": {"properties": {"ID_PATH": "platform-3f204000.spi-cs-1"}}, "rotation": 90},
                         {"match": {"name": "Goodix*", "vendor": "0x0416"}, "grab": true}]}
            """)
        let info = device("Goodix Capacitive TouchScreen", props: [InputProp.direct], keys: [BTN.TOUCH], abs: mt)
        var withVendor = info
        withVendor.vendor = 0x0416
        #expect(InputDevice.entry(for: info, in: cfg, properties: ["ID_PATH": "platform-3f204000.spi-cs-1"])?.label == "devices[0]")
        #expect(InputDevice.entry(for: withVendor, in: cfg, properties: ["ID_PATH": "pci-0000:00:14.0-usb-0:2:1.0"])?.label == "devices[1]")
        #expect(InputDevice.entry(for: info, in: cfg, properties: [:]) == nil)
    }
}

@Suite struct LiveEngineTests {
    let cfg = try! Config.parse("""
        {"screen": {"width": 800, "height": 480},
         "windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "v", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true}}]}
        """)
    let info = DeviceInfo(name: "panel", properties: [InputProp.direct], codes: [EV.KEY: [BTN.TOUCH]],
                          abs: [ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 9), ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 799),
                                ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 479), ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535)])

    func ev(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent { InputEvent(time: t, type: type, code: code, value: value) }

    func phases(_ messages: [Message]) -> [[String]] {
        // (every message the engine published, as frames' "id:phase(reason)" lists)
        messages.compactMap { m -> [String]? in
            guard case .frame(let f) = m else { return nil }
            return f.touches.map { "\($0.id):\($0.phase.name)\($0.reason.map { "(\($0.rawValue))" } ?? "")" }
        }
    }

    @Test func synDroppedResyncCancelsVanishedContactsAndKeepsTheRest() {
        let engine = Engine(scene: cfg.scene)
        let d = engine.addDevice(DeviceDescriptor(id: "event3", name: "panel", vendor: 0, product: 0, touchProtocol: .b, slots: 10),
                                 info: info, trackerProtocol: .b, settings: DeviceSettings(), screen: cfg.screen, time: 0)
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
        #expect(phases(engine.drain().messages) == [["1:began", "2:began"],
                                          ["1:moved", "2:cancelled(resync)"],
                                          ["1:moved", "3:began"],
                                          ["1:ended", "3:stationary"],
                                          ["3:ended"]])
        #expect(engine.liveTouchCount == 0)
    }

    @Test func removalMidTouchCancelsWithDeviceRemovedAndSaysSo() {
        let engine = Engine(scene: cfg.scene)
        let desc = DeviceDescriptor(id: "event3", name: "panel", vendor: 0, product: 0, touchProtocol: .b, slots: 10)
        let d = engine.addDevice(desc, info: info, trackerProtocol: .b, settings: DeviceSettings(), screen: cfg.screen, time: 0)
        for e in [ev(1, 3, ABS.MT_TRACKING_ID, 10), ev(1, 3, ABS.MT_POSITION_X, 100), ev(1, 0, SYN.REPORT, 0)] { engine.process(e, device: d) }
        engine.removeDevice(d, time: 9)
        let published = engine.drain().messages
        #expect(phases(published).last == ["1:cancelled(device-removed)"])
        guard case .device(let m)? = published.last else { Issue.record("device message expected last"); return }
        #expect(m.action == .removed && m.device == desc && m.time == 9)
        // A second removal (a read error after ENODEV) publishes nothing more.
        engine.removeDevice(d, time: 10)
        #expect(engine.drain().isEmpty)
        #expect(engine.activeDevices.isEmpty)
    }

    @Test func contactsAlreadyDownAtOpenAreIgnoredUntilTheyLift() {
        let engine = Engine(scene: cfg.scene)
        let d = engine.addDevice(DeviceDescriptor(id: "event3", name: "panel", vendor: 0, product: 0, touchProtocol: .b, slots: 10),
                                 info: info, trackerProtocol: .b, settings: DeviceSettings(), screen: cfg.screen, time: 0)
        engine.ignoreContactsDown(device: d, [(slot: 4, trackingID: 77)])
        for e in [ev(1, 3, ABS.MT_SLOT, 4), ev(1, 3, ABS.MT_POSITION_X, 100), ev(1, 0, SYN.REPORT, 0),    // moves: nothing
                  ev(2, 3, ABS.MT_TRACKING_ID, -1), ev(2, 0, SYN.REPORT, 0),                             // lifts: nothing
                  ev(3, 3, ABS.MT_TRACKING_ID, 78), ev(3, 3, ABS.MT_POSITION_X, 120), ev(3, 0, SYN.REPORT, 0)] {  // a new contact: delivered
            engine.process(e, device: d)
        }
        #expect(phases(engine.drain().messages) == [["1:began"]])
    }
}

@Suite struct EvemuWriterTests {
    @Test func writtenRecordingsReadBackTheSame() throws {
        let info = DeviceInfo(name: "Goodix Capacitive TouchScreen", bustype: 0x18, vendor: 0x416, product: 0x38f, version: 0x1060,
                              properties: [InputProp.direct], codes: [EV.SYN: [0, 1, 2, 3], EV.KEY: [BTN.TOUCH, 0x8f], EV.MSC: [4]],
                              abs: [ABS.MT_SLOT: AbsInfo(value: 3, minimum: 0, maximum: 9),
                                    ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1279, fuzz: 2, flat: 0, resolution: 12),
                                    ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 799, resolution: 12),
                                    ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535), ABS.MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 255)])
        let events = [InputEvent(time: 5_000_100, type: 3, code: ABS.MT_TRACKING_ID, value: 12), InputEvent(time: 5_000_100, type: 3, code: ABS.MT_POSITION_X, value: -3),
                      InputEvent(time: 5_000_100, type: 0, code: 0, value: 0), InputEvent(time: 5_012_345, type: 3, code: ABS.MT_TRACKING_ID, value: -1),
                      InputEvent(time: 5_012_345, type: 0, code: 0, value: 0)]
        var text = Array(EvemuWriter.header(info, kernel: "6.1.0").utf8)
        for e in events { EvemuWriter.event(e, relativeTo: 5_000_100, into: &text) }
        let back = try EvemuReader.read(text, file: "rec.events")
        #expect(back.count == 1)
        var expected = info
        for c in expected.abs.keys { expected.abs[c]!.value = 0 }   // evemu's A: lines carry no current value
        expected.codes[EV.SYN] = [SYN.REPORT, SYN.MT_REPORT, SYN.DROPPED]   // evemu's EV_SYN line is the type mask
        #expect(back[0].info == expected)
        #expect(back[0].events.map(\.time) == [0, 0, 0, 12_245, 12_245])
        #expect(back[0].events.map(\.value) == events.map(\.value))
        let s = String(decoding: text, as: UTF8.self)
        #expect(s.hasPrefix("# EVEMU 1.3\n# Kernel: 6.1.0\n# Input device name: \"Goodix Capacitive TouchScreen\"\n"))
        #expect(s.contains("\nI: 0018 0416 038f 1060\n"))
        #expect(s.contains("\nA: 35 0 1279 2 0 12\n"))
        #expect(s.contains("\nE: 0.012245 0003 0039 -1\t# EV_ABS / ABS_MT_TRACKING_ID\n"))
    }
}

@Suite struct LibinputWriterTests {
    @Test func writtenYAMLReadsBackTheSame() throws {
        let info = DeviceInfo(name: "Panel \"7\"", bustype: 3, vendor: 0x4f3, product: 0x2a1b, version: 1, properties: [InputProp.direct],
                              codes: [EV.SYN: [0, 2, 3], EV.KEY: [BTN.TOUCH]],
                              abs: [ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 9), ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 2047, resolution: 10),
                                    ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1535, fuzz: 4), ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535)])
        let events = [InputEvent(time: 7_000_000, type: 3, code: ABS.MT_TRACKING_ID, value: 4), InputEvent(time: 7_000_000, type: 0, code: 0, value: 0),
                      InputEvent(time: 7_250_001, type: 3, code: ABS.MT_TRACKING_ID, value: -1), InputEvent(time: 7_250_001, type: 0, code: 0, value: 0)]
        var text = LibinputRecordWriter.header(devices: [("/dev/input/event4", info)]) + LibinputRecordWriter.device(node: "/dev/input/event4", info: info)
        text += LibinputRecordWriter.frame(Array(events[0..<2]), relativeTo: 7_000_000)
        text += LibinputRecordWriter.frame(Array(events[2..<4]), relativeTo: 7_000_000)
        let back = try LibinputRecordReader.read(Array(text.utf8), file: "rec.yml")
        #expect(back.count == 1)
        #expect(back[0].info == info)
        #expect(back[0].events.map(\.time) == [0, 0, 250_001, 250_001])
        #expect(back[0].events.map(\.value) == [4, 0, -1, 0])
        #expect(LibinputRecordReader.looks(like: Array(text.utf8)))
    }
}

extension Array where Element == EngineOutput {
    /// The messages, without scene changes.
    var messages: [Message] { compactMap { if case .message(let m) = $0 { return m }; return nil } }
}
