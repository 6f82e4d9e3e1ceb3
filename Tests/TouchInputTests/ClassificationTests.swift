import Testing
import TouchCore
import TouchInput
import TouchTestSupport

/// How a device is classified without a kernel: descriptions built with libevdev_new, and
/// config entries matched by udev properties.
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

@Suite struct LibinputFuzzTests {
    /// libinput's udev rule moves the kernel's fuzz to LIBINPUT_FUZZ_35 / _36 (and zeroes the
    /// kernel's): that is the fuzz the "fuzz" hysteresis uses then.
    @Test func theUdevPropertyIsTheAxisFuzz() {
        let info = screenDevice()
        let moved = LiveSource.withLibinputFuzz(info, ["LIBINPUT_FUZZ_35": "8", "LIBINPUT_FUZZ_36": "6", "LIBINPUT_FUZZ_00": "9"])
        #expect(moved.abs[ABS.MT_POSITION_X]?.fuzz == 8)
        #expect(moved.abs[ABS.MT_POSITION_Y]?.fuzz == 6)
        #expect(moved.abs[ABS.X] == nil)   // an axis the device lacks is not made up
        #expect(LiveSource.withLibinputFuzz(info, ["LIBINPUT_FUZZ_35": "x"]).abs[ABS.MT_POSITION_X]?.fuzz == 0)
    }
}
