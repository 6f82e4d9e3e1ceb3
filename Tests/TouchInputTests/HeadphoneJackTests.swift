import Testing
import TouchCore
@testable import TouchInput
import TouchTestSupport

/// Headphones as input (issue 46, item 4): a jack (`EV_SW SW_HEADPHONE_INSERT`, no position
/// axes) read like a panel and fed to the engine's headphones, and a USB headset's sound card
/// told from the other udev devices. Expectations from the kernel's model (an input switch that
/// is 1 while something is plugged in) and messages.md's `headphones`.
@Suite struct HeadphoneJackTests {
    /// The jack of Tests/Fixtures/headphones: EV_SYN and EV_SW with SW_HEADPHONE_INSERT only.
    static let jack = DeviceInfo(name: "HDA Intel PCH Headphone", codes: [EV.SYN: [SYN.REPORT], EV.SW: [SW.HEADPHONE_INSERT]])

    static func config(_ extra: String = "") throws -> Config {
        try Config.parse(#"{"outputs": [{"id": "main", "width": 800, "height": 480}, {"id": "side", "width": 800, "height": 480}], "windows": [{"id": "w", "frame": [0, 0, 800, 480]}]"# + extra + "}")
    }

    func headphones(_ engine: Engine) -> [String] {
        engine.drain().compactMap { o in
            if case .message(.headphones(let h)) = o { return "\(h.seq) \(h.time / 1000)ms \(h.output) \(h.plugged) \(h.source)" }
            if case .message(.device(let d)) = o { return "device \(d.device.id)" }
            return nil
        }
    }

    func sw(_ value: Int32, at t: Int64) -> [InputEvent] {
        [InputEvent(time: t, type: EV.SW, code: SW.HEADPHONE_INSERT, value: value), InputEvent(time: t, type: EV.SYN, code: SYN.REPORT, value: 0)]
    }

    @Test func aJackIsNoTouchDeviceButReadsAsOne() throws {
        #expect(Self.jack.isHeadphoneJack && Self.jack.touchProtocol == nil)
        #expect(!screenDevice().isHeadphoneJack)
        var both = screenDevice()
        both.codes[EV.SW] = [SW.HEADPHONE_INSERT]
        #expect(!both.isHeadphoneJack, "a touchscreen with a switch is a touchscreen")
        #expect(Self.jack.kindDescription(touchscreen: false) == "headphone jack (SW_HEADPHONE_INSERT)")
        let input = try InputDevice(key: DeviceKey(0), id: "event7", info: Self.jack, entry: nil)
        #expect(input.arrival(time: 0).info.isHeadphoneJack)
        #expect(throws: InputDevice.AttachError.self) { try InputDevice(key: DeviceKey(1), id: "kbd", info: DeviceInfo(name: "kbd", codes: [EV.KEY: [30]]), entry: nil) }
    }

    /// A devices[] entry that matches every device (no `match`) and re-exports: a jack it
    /// matches asks for no virtual touchscreen — at start, in a replay, and on a reload, where
    /// LiveSource.reconfigure grabs a device whose entry asks for one (a grabbed jack is the
    /// audio stack's no more).
    @Test func aJackIsNeverReExported() throws {
        let cfg = try Config.parse(#"{"windows": [], "devices": [{"uinput": {"name": "touchd touchscreen"}}]}"#)
        let entry = InputDevice.entry(for: Self.jack, in: cfg)
        #expect(entry?.settings.uinput != nil, "the entry matches the jack")
        #expect(try InputDevice(key: DeviceKey(0), id: "event7", info: Self.jack, entry: entry).export(entry: entry) == nil)
        #expect(try InputDevice(key: DeviceKey(1), id: "event8", info: screenDevice(), entry: entry).export(entry: entry) != nil)
    }

    @Test func plugsAndPullsBecomeHeadphonesMessagesOnItsOutput() throws {
        let cfg = try Self.config()
        let engine = Engine(scene: cfg.scene)
        var feed = EngineFeed()
        var arrival = try InputDevice(key: DeviceKey(0), id: "event7", info: Self.jack, entry: nil).arrival(time: 0)
        arrival.settings.output = "side"
        feed.feed(.arrived(arrival), to: engine)
        for e in sw(1, at: 500_000) + sw(1, at: 600_000) + sw(0, at: 3_000_000) { feed.feed(.event(DeviceKey(0), e), to: engine) }
        feed.feed(.event(DeviceKey(0), InputEvent(time: 3_100_000, type: EV.SW, code: 0x04, value: 1)), to: engine)  // a microphone: not headphones
        #expect(headphones(engine) == ["1 500ms side true event7", "2 3000ms side false event7"],
                "no device message, one message per change, the repeated 1 none")
        #expect(!engine.headphonesPlugged(output: "side"))
    }

    @Test func aJackPluggedWhenOpenedAndOneThatGoes() throws {
        let engine = Engine(scene: try Self.config().scene)
        var feed = EngineFeed()
        var arrival = try InputDevice(key: DeviceKey(3), id: "event9", info: Self.jack, entry: nil).arrival(time: 1_000)
        arrival.headphonesIn = true
        feed.feed(.arrived(arrival), to: engine)
        #expect(engine.snapshot().headphones == ["main"], "nil output: the first")
        feed.feed(.removed(DeviceKey(3), time: 2_000), to: engine)
        #expect(headphones(engine) == ["1 1ms main true event9", "2 2ms main false event9"])
        #expect(engine.snapshot().headphones == [])
    }

    /// A reload that moves a plugged jack to another output (its entry's `output`) moves its
    /// headphones at once; it left them on the old output, where the pull then never reached:
    /// that output said "plugged" for ever, and touchd speak would read private text aloud.
    @Test func aReloadThatMovesAPluggedJackMovesItsHeadphones() throws {
        let engine = Engine(scene: try Self.config().scene)
        var feed = EngineFeed()
        let input = try InputDevice(key: DeviceKey(0), id: "event7", info: Self.jack, entry: nil)
        var arrival = input.arrival(time: 0)
        arrival.settings.output = "side"
        feed.feed(.arrived(arrival), to: engine)
        for e in sw(1, at: 500_000) { feed.feed(.event(DeviceKey(0), e), to: engine) }
        var moved = arrival.settings
        moved.output = "main"
        feed.feed(.settings(DeviceKey(0), moved, Self.jack, export: nil), to: engine)
        #expect(engine.snapshot().headphones == ["main"])
        for e in sw(0, at: 3_000_000) { feed.feed(.event(DeviceKey(0), e), to: engine) }
        #expect(headphones(engine) == ["1 500ms side true event7", "2 500ms side false event7", "3 500ms main true event7",
                                       "4 3000ms main false event7"])
        #expect(engine.snapshot().headphones == [], "no output keeps headphones that were pulled")
    }

    /// A USB headset's card is matched to its devices[] entry again when it goes, by what udev
    /// still says of it (its `id` attribute is gone with it): the pull may name another output
    /// than the plug did. It is pulled from where it was.
    @Test func aPullNamingAnotherOutputPullsWhereTheSourceWas() throws {
        let engine = Engine(scene: try Self.config().scene)
        var feed = EngineFeed()
        feed.feed(.headphones(source: "card1 \"H340\"", output: "side", plugged: true, time: 1_000_000), to: engine)
        feed.feed(.headphones(source: "card1 \"H340\"", output: nil, plugged: false, time: 2_000_000), to: engine)
        #expect(headphones(engine) == ["1 1000ms side true card1 \"H340\"", "2 2000ms side false card1 \"H340\""])
        #expect(!engine.headphonesPlugged(output: "side") && !engine.headphonesPlugged(output: "main"))
    }

    @Test func aJackAndAHeadsetOnOneOutputCountOnce() throws {
        let engine = Engine(scene: try Self.config().scene)
        var feed = EngineFeed()
        feed.feed(.arrived(try InputDevice(key: DeviceKey(0), id: "event7", info: Self.jack, entry: nil).arrival(time: 0)), to: engine)
        for e in sw(1, at: 1_000_000) { feed.feed(.event(DeviceKey(0), e), to: engine) }
        feed.feed(.headphones(source: "card1 \"Headset\"", output: "main", plugged: true, time: 2_000_000), to: engine)
        for e in sw(0, at: 3_000_000) { feed.feed(.event(DeviceKey(0), e), to: engine) }
        feed.feed(.headphones(source: "card1 \"Headset\"", output: "main", plugged: false, time: 4_000_000), to: engine)
        #expect(headphones(engine) == ["1 1000ms main true event7", "2 4000ms main false card1 \"Headset\""])
    }

    @Test func usbSoundCardsAreHeadsetsOnlyWithUdevsWord() {
        func card(_ sysname: String, _ props: [String: String]?, subsystem: String = "sound") -> UdevInputDevice {
            var d = UdevInputDevice(syspath: "/sys/devices/x/sound/" + sysname, devnode: nil, sysname: sysname, action: "add",
                                    properties: props, name: "Headset")
            d.subsystem = subsystem
            return d
        }
        #expect(card("card1", ["ID_BUS": "usb"]).isUSBSoundCard)
        #expect(!card("card0", ["ID_BUS": "pci"]).isUSBSoundCard, "the board's own card")
        #expect(!card("card1", nil).isUSBSoundCard, "no udevd: its bus is unknown")
        #expect(!card("controlC1", ["ID_BUS": "usb"]).isUSBSoundCard)
        #expect(!card("pcmC1D0p", ["ID_BUS": "usb"]).isUSBSoundCard)
        #expect(!card("card", ["ID_BUS": "usb"]).isUSBSoundCard)
        #expect(!card("card1", ["ID_BUS": "usb"], subsystem: "input").isUSBSoundCard)
    }
}
