import Testing
@testable import TouchCore
import TouchTestSupport

// The events a virtual touchscreen (devices[].uinput) writes, spelled out: each expected list
// is written from the rules (docs/config.md, "uinput"), not from the code's output.
private func slot(_ s: Int32) -> EvdevWrite { EvdevWrite(EV.ABS, ABS.MT_SLOT, s) }
private func id(_ v: Int32) -> EvdevWrite { EvdevWrite(EV.ABS, ABS.MT_TRACKING_ID, v) }
private func mtX(_ v: Int32) -> EvdevWrite { EvdevWrite(EV.ABS, ABS.MT_POSITION_X, v) }
private func mtY(_ v: Int32) -> EvdevWrite { EvdevWrite(EV.ABS, ABS.MT_POSITION_Y, v) }
private func absX(_ v: Int32) -> EvdevWrite { EvdevWrite(EV.ABS, ABS.X, v) }
private func absY(_ v: Int32) -> EvdevWrite { EvdevWrite(EV.ABS, ABS.Y, v) }
private func touch(_ v: Int32) -> EvdevWrite { EvdevWrite(EV.KEY, BTN.TOUCH, v) }
private let syn = EvdevWrite(EV.SYN, SYN.REPORT, 0)

private func began(_ s: Int, _ x: Double, _ y: Double) -> ScreenContact { ScreenContact(slot: s, kind: .began, point: Point(x, y)) }
private func moved(_ s: Int, _ x: Double, _ y: Double) -> ScreenContact { ScreenContact(slot: s, kind: .moved, point: Point(x, y)) }
private func ended(_ s: Int) -> ScreenContact { ScreenContact(slot: s, kind: .ended, point: .zero) }
private func cancelled(_ s: Int, _ r: CancelReason) -> ScreenContact { ScreenContact(slot: s, kind: .cancelled(r), point: .zero) }

@Suite struct VirtualTouchscreenTests {
    @Test func aContactBeginsWithASlotATrackingIDItsPositionAndBTN_TOUCH() {
        var v = VirtualTouchscreen(slots: 10)
        // Positions are rounded points: 100.4 → 100, 200.6 → 201.
        #expect(v.frame([began(0, 100.4, 200.6)]) == [slot(0), id(0), mtX(100), mtY(201), touch(1), absX(100), absY(201), syn])
        #expect(v.contactsDown == 1)
    }

    @Test func aMoveWritesOnlyTheAxesThatChanged() {
        var v = VirtualTouchscreen(slots: 10)
        _ = v.frame([began(0, 100, 201)])
        // x changes, y stays 201: no MT_POSITION_Y, no ABS_Y; no tracking id, no BTN_TOUCH.
        #expect(v.frame([moved(0, 110, 201)]) == [slot(0), mtX(110), absX(110), syn])
        // A move that rounds to where it was writes nothing, not even SYN_REPORT.
        #expect(v.frame([moved(0, 110.2, 200.9)]) == [])
        #expect(v.frame([moved(0, 110, 230)]) == [slot(0), mtY(230), absY(230), syn])
    }

    @Test func twoFingersInOneFrameThenMovingTogether() {
        var v = VirtualTouchscreen(slots: 10)
        // Both begin: each its slot and its own tracking id; BTN_TOUCH once; ABS_X/Y the lowest slot's.
        #expect(v.frame([began(0, 10, 10), began(1, 50, 60)])
                == [slot(0), id(0), mtX(10), mtY(10), slot(1), id(1), mtX(50), mtY(60), touch(1), absX(10), absY(10), syn])
        // Both move in one frame, slot 1 first as the frame lists them; ABS_X follows slot 0 only.
        #expect(v.frame([moved(1, 55, 60), moved(0, 12, 10)]) == [slot(1), mtX(55), slot(0), mtX(12), absX(12), syn])
        // Only slot 1 moves: ABS_X/Y stay with slot 0.
        #expect(v.frame([moved(1, 56, 61)]) == [slot(1), mtX(56), mtY(61), syn])
    }

    @Test func anEndWritesTrackingIDMinusOneAndTheLastEndReleasesBTN_TOUCH() {
        var v = VirtualTouchscreen(slots: 10)
        _ = v.frame([began(0, 10, 10), began(1, 55, 60)])
        // Slot 0 ends: its id -1; slot 1 is now the lowest, so ABS_X/Y jump to it; BTN_TOUCH stays 1.
        #expect(v.frame([ended(0)]) == [slot(0), id(-1), absX(55), absY(60), syn])
        // The last contact ends: BTN_TOUCH 0; ABS_X/Y keep their values.
        #expect(v.frame([ended(1)]) == [slot(1), id(-1), touch(0), syn])
        #expect(v.contactsDown == 0)
        // The next contact gets a new tracking id (0 and 1 were used) and BTN_TOUCH 1 again.
        #expect(v.frame([began(0, 55, 60)]) == [slot(0), id(2), mtX(55), mtY(60), touch(1), syn])
    }

    @Test func aPalmCancelEndsTheContactAndItsLaterChangesAreIgnored() {
        var v = VirtualTouchscreen(slots: 10)
        _ = v.frame([began(3, 300, 200)])
        #expect(v.frame([cancelled(3, .palm)]) == [slot(3), id(-1), touch(0), syn])
        // The engine sends nothing more for a palm, but a stray move or end must not revive it.
        #expect(v.frame([moved(3, 310, 200)]) == [])
        #expect(v.frame([ended(3)]) == [])
    }

    @Test func aResyncThatCancelsEverythingLeavesNoContactDown() {
        var v = VirtualTouchscreen(slots: 10)
        _ = v.frame([began(0, 1, 1), began(1, 2, 2), began(2, 3, 3)])
        #expect(v.frame([cancelled(0, .resync), cancelled(1, .resync), cancelled(2, .resync)])
                == [slot(0), id(-1), slot(1), id(-1), slot(2), id(-1), touch(0), syn])
        #expect(v.contactsDown == 0)
    }

    @Test func endAllLiftsWhatIsDownOnce() {
        var v = VirtualTouchscreen(slots: 10)
        _ = v.frame([began(4, 40, 40), began(1, 10, 10)])
        #expect(v.endAll() == [slot(1), id(-1), slot(4), id(-1), touch(0), syn])
        #expect(v.endAll() == [])
        #expect(v.contactsDown == 0)
    }

    @Test func contactsNeverSeenToBeginAreLeftOut() {
        // A virtual touchscreen made (or remade on a reload) while a finger is down.
        var v = VirtualTouchscreen(slots: 10)
        #expect(v.frame([moved(0, 5, 5)]) == [])
        #expect(v.frame([ended(0)]) == [])
    }

    @Test func aSlotBeyondTheDevicesSlotsTakesTheLowestFreeOne() {
        // The debounce may put a new touch on an engine slot past the hardware's (ContactFilter).
        var v = VirtualTouchscreen(slots: 2)
        _ = v.frame([began(0, 1, 1)])
        #expect(v.frame([began(5, 9, 9)]) == [slot(1), id(1), mtX(9), mtY(9), syn])
        #expect(v.frame([moved(5, 8, 9)]) == [slot(1), mtX(8), syn])
        #expect(v.frame([ended(5)]) == [slot(1), id(-1), syn])
    }

    @Test func aContactWithNoFreeSlotWaitsForOne() {
        var v = VirtualTouchscreen(slots: 1)
        _ = v.frame([began(0, 1, 1)])
        // Key 1 finds slot 0 taken: it waits, and its moves only update where it will begin.
        #expect(v.frame([began(1, 9, 9)]) == [])
        #expect(v.frame([moved(1, 8, 8)]) == [])
        // Slot 0 frees: key 1 begins there in the same frame, at its latest point; BTN_TOUCH
        // stays 1 (a contact was down before and after); ABS_X/Y follow it.
        #expect(v.frame([ended(0)]) == [slot(0), id(-1), slot(0), id(1), mtX(8), mtY(8), absX(8), absY(8), syn])
        // A waiting contact that ends never appears.
        _ = v.frame([began(2, 5, 5)])
        #expect(v.frame([ended(2)]) == [])
    }

    @Test func trackingIDsWrapAtTheKernelsLimit() {
        var v = VirtualTouchscreen(slots: 1)
        v.nextID = VirtualTouchscreenLayout.maxTrackingID
        #expect(v.frame([began(0, 0, 0)]).contains(id(65535)))
        _ = v.frame([ended(0)])
        #expect(v.frame([began(0, 0, 0)]).contains(id(0)))
    }
}

@Suite struct VirtualTouchscreenLayoutTests {
    func source(resolution rx: Int32, _ ry: Int32) -> DeviceInfo {
        var info = screenDevice()
        info.abs[ABS.MT_POSITION_X]?.resolution = rx
        info.abs[ABS.MT_POSITION_Y]?.resolution = ry
        return info
    }

    @Test func theScreenInPointsWithTheSourcesResolutionScaled() {
        // 0…799 units on 800 points: one point per unit, so 10 and 12 units/mm stay 10 and 12.
        let l = VirtualTouchscreenLayout(name: "kiosk", source: source(resolution: 10, 12), settings: DeviceSettings(), screen: Size(800, 480), slots: 10)
        #expect(l == VirtualTouchscreenLayout(name: "kiosk", width: 800, height: 480, resolutionX: 10, resolutionY: 12, slots: 10))
        // The same panel on a 1600 × 960 screen: 1599 points over 799 units, 1599/799 × 10 = 20.01 → 20; 959/479 × 12 = 24.02 → 24.
        let big = VirtualTouchscreenLayout(name: "kiosk", source: source(resolution: 10, 12), settings: DeviceSettings(), screen: Size(1600, 960), slots: 10)
        #expect((big.width, big.height, big.resolutionX, big.resolutionY) == (1600, 960, 20, 24))
    }

    @Test func aTurnedPanelGivesEachScreenAxisTheResolutionOfTheAxisThatLandsThere() {
        // Rotated 90°: the screen's x (800 points) is the panel's y, 479 units at 12/mm = 39.9 mm:
        // 799 / 39.9 = 20.0 points/mm; the screen's y (480) is the panel's x, 79.9 mm: 479 / 79.9 = 6.0.
        var s = DeviceSettings()
        s.rotation = .r90
        let l = VirtualTouchscreenLayout(name: "turned", source: source(resolution: 10, 12), settings: s, screen: Size(800, 480), slots: 5)
        #expect((l.resolutionX, l.resolutionY, l.slots) == (20, 6, 5))
        // swapXY and a 90° turn cancel out.
        s.swapXY = true
        let back = VirtualTouchscreenLayout(name: "turned", source: source(resolution: 10, 12), settings: s, screen: Size(800, 480), slots: 5)
        #expect((back.resolutionX, back.resolutionY) == (10, 12))
    }

    @Test func noResolutionIsZeroAndNoSlotsIsTen() {
        // The screen's size rounded: 800.6 → 801, 479.4 → 479.
        let l = VirtualTouchscreenLayout(name: "x", source: screenDevice(), settings: DeviceSettings(), screen: Size(800.6, 479.4), slots: 0)
        #expect(l == VirtualTouchscreenLayout(name: "x", width: 801, height: 479, resolutionX: 0, resolutionY: 0, slots: 10))
        // A single-touch source's ABS_X / ABS_Y resolution.
        var st = singleTouchScreenDevice()
        st.abs[ABS.X]?.resolution = 4
        st.abs[ABS.Y]?.resolution = 5
        let single = VirtualTouchscreenLayout(name: "st", source: st, settings: DeviceSettings(), screen: Size(800, 480), slots: 1)
        #expect((single.resolutionX, single.resolutionY, single.slots) == (4, 5, 1))
    }
}

/// devices[].uinput on an output (issue 33, item 5): the virtual touchscreen has the axes of the
/// output it is on, as turned now, and carries the output's id in its phys for the udev rule.
@Suite struct VirtualTouchscreenOutputTests {
    func source() -> DeviceInfo {
        var info = screenDevice()   // 0…799 × 0…479 units
        info.abs[ABS.MT_POSITION_X]?.resolution = 10
        info.abs[ABS.MT_POSITION_Y]?.resolution = 12
        return info
    }

    @Test func onATurnedOutputTheAxesAreTheTurnedPointsAndTheTagItsID() {
        // DSI-1 is 800 × 480 in its natural orientation, turned 90: its points are 480 × 800.
        // Screen x (480 points) is the panel's y: 479 points over 479 units at 12/mm → 12;
        // screen y (800 points) is the panel's x: 799 over 799 units at 10/mm → 10.
        let dsi = Output(id: "DSI-1", size: Size(800, 480), rotation: .r90)
        let l = VirtualTouchscreenLayout(name: "kiosk", source: source(), settings: DeviceSettings(), output: dsi, slots: 10)
        #expect(l == VirtualTouchscreenLayout(name: "kiosk", width: 480, height: 800, resolutionX: 12, resolutionY: 10, slots: 10, output: "DSI-1"))
        #expect(l.physString == "touchd-uinput/DSI-1")
        // Unturned, it is the panel's own layout (and a different device: the loop remakes it).
        var flat = dsi
        flat.rotation = .r0
        let f = VirtualTouchscreenLayout(name: "kiosk", source: source(), settings: DeviceSettings(), output: flat, slots: 10)
        #expect((f.width, f.height, f.resolutionX, f.resolutionY) == (800, 480, 10, 12))
        #expect(f != l)
    }

    /// `"orientation": "natural"` (weston, flutter-pi, LVGL turn touches themselves): the axes
    /// are the output's natural 800 × 480 at the panel's own resolution whatever its rotation,
    /// still tagged; a contact at the turned output's (379, 100) — the panel's (100, 100), as
    /// the VM saw — is written at (100, 100).
    @Test func aNaturalExportLeavesTheOutputsRotationToTheCompositor() {
        let dsi = Output(id: "DSI-1", size: Size(800, 480), rotation: .r90)
        let l = VirtualTouchscreenLayout(name: "kiosk", source: source(), settings: DeviceSettings(), output: dsi, slots: 10, natural: true)
        #expect(l == VirtualTouchscreenLayout(name: "kiosk", width: 800, height: 480, resolutionX: 10, resolutionY: 12, slots: 10, output: "DSI-1"))
        var flat = dsi
        flat.rotation = .r0
        #expect(VirtualTouchscreenLayout(name: "kiosk", source: source(), settings: DeviceSettings(), output: flat, slots: 10, natural: true) == l)
        let f = ScreenContactFrame(device: DeviceIndex(0), time: 1, contacts: [ScreenContact(slot: 0, kind: .began, point: Point(379, 100))])
        #expect(f.natural(on: dsi).contacts.map(\.point) == [Point(100, 100)])
        #expect(f.natural(on: flat) == f)
    }

    @Test func theLegacyScreenAndIdsUnsafeForUdevAreNotTagged() {
        let l = VirtualTouchscreenLayout(name: "x", source: source(), settings: DeviceSettings(), output: .screen(Size(800, 480)), slots: 10)
        #expect(l.output == "screen")
        #expect(l.physString == "touchd-uinput")
        #expect(VirtualTouchscreenLayout.taggable("HDMI-A-1"))
        #expect(VirtualTouchscreenLayout.taggable("eDP-1.2:x_y"))
        for bad in ["screen", "", "my display", "a/b", "$(reboot)", "'", String(repeating: "a", count: 64)] {
            #expect(!VirtualTouchscreenLayout.taggable(bad), "\(bad)")
        }
    }

    @Test func touchdKnowsItsOwnDevicesTaggedOrNot() {
        #expect(VirtualTouchscreenLayout.isTouchdPhys("touchd-uinput"))
        #expect(VirtualTouchscreenLayout.isTouchdPhys("touchd-uinput/HDMI-A-1"))
        #expect(!VirtualTouchscreenLayout.isTouchdPhys("touchd-uinputs"))
        #expect(!VirtualTouchscreenLayout.isTouchdPhys("usb-0000:00:14.0-1/input0"))
        #expect(!VirtualTouchscreenLayout.isTouchdPhys(nil))
    }
}

/// The engine keeps the screen contacts of the devices that re-export them: conditioned and
/// mapped, the points it publishes.
@Suite struct ContactExportTests {
    let cfg = try! Config.parse("""
        {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]}
        """)

    func drained(_ r: Rig) -> [ScreenContactFrame] { r.takeContacts() }

    @Test func onlyExportedDevicesKeepFrames() {
        let r = Rig(cfg)
        r.down(100, 100)
        #expect(drained(r).isEmpty)
        r.engine.exportContacts(device: r.device, true)
        r.move(120, 100)
        let f = drained(r)
        #expect(f == [ScreenContactFrame(device: r.device, time: 10_000, contacts: [ScreenContact(slot: 0, kind: .moved, point: Point(120, 100))])])
        #expect(drained(r).isEmpty)
        r.engine.exportContacts(device: r.device, false)
        r.up()
        #expect(drained(r).isEmpty)
    }

    @Test func theContactsAreMappedAsPublished() {
        // Rotated 180°: a panel point (100, 100) is screen point (699, 379), where the frame
        // message puts the touch too.
        var s = DeviceSettings()
        s.rotation = .r180
        let r = Rig(cfg, settings: s)
        r.engine.exportContacts(device: r.device, true)
        r.down(100, 100)
        let published = r.frames.last?.touches.first?.location
        #expect(published == Point(699, 379))
        #expect(drained(r).first?.contacts == [ScreenContact(slot: 0, kind: .began, point: Point(699, 379))])
    }

    @Test func aBounceWithinTheDebounceIsOneContactOnTheVirtualTouchscreen() {
        var s = DeviceSettings()
        s.filter.debounce = 0.03
        let r = Rig(cfg, settings: s)
        r.engine.exportContacts(device: r.device, true)
        var v = VirtualTouchscreen(slots: 10)
        var events: [EvdevWrite] = []
        func pass() { for f in drained(r) { events += v.frame(f.contacts) } }
        r.down(100, 100); pass()
        r.up(); pass()                 // lifts at 10 ms: held
        r.down(102, 100); pass()       // back 10 ms later, 2 points away: the same contact
        r.up(); pass()
        r.idle(until: r.finger.time + 100_000); pass()
        // One tracking id, one press: id 0 given, then -1; BTN_TOUCH 1 then 0.
        #expect(events.filter { $0.code == ABS.MT_TRACKING_ID }.map(\.value) == [0, -1])
        #expect(events.filter { $0.code == BTN.TOUCH }.map(\.value) == [1, 0])
        #expect(events.contains(mtX(102)))
    }

    @Test func unplugAndShutdownEndWhatIsDown() {
        let r = Rig(cfg)
        r.engine.exportContacts(device: r.device, true)
        var v = VirtualTouchscreen(slots: 10)
        r.down(100, 100)
        r.finger.down(1, 200, 200); r.frame()
        for f in drained(r) { _ = v.frame(f.contacts) }
        #expect(v.contactsDown == 2)
        r.removeDevice(time: r.finger.time)
        var last: [EvdevWrite] = []
        for f in drained(r) { last += v.frame(f.contacts) }
        #expect(last == [slot(0), id(-1), slot(1), id(-1), touch(0), syn])
        #expect(v.contactsDown == 0)
    }
}

/// `devices[].uinput` in the config: its mistakes named by JSON path and line.
@Suite struct UinputConfigTests {
    func errors(_ devices: String) -> [String] {
        let text = """
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480]}}],
             "devices": [
            \(devices)
            ]}
            """
        do {
            _ = try Config.parse(text)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func aNameIsTakenAndImpliesNothingElse() throws {
        let cfg = try Config.parse("""
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480]}}],
             "devices": [{"match": {"name": "Goodix*"}, "uinput": {"name": "touchd kiosk touchscreen"}}, {"match": {"name": "*"}}]}
            """)
        #expect(cfg.devices[0].settings.uinput == UinputSettings(name: "touchd kiosk touchscreen"))
        #expect(cfg.devices[0].settings.uinput?.natural == false)   // as the output is turned, by default
        #expect(cfg.devices[0].settings.grab == false)   // the grab is implied, not written into the entry
        #expect(cfg.devices[1].settings.uinput == nil)
        // 79 bytes is the longest name (UINPUT_MAX_NAME_SIZE 80 with its NUL).
        let longest = String(repeating: "n", count: 79)
        #expect(errors(#"{"uinput": {"name": "\#(longest)"}}"#) == [])
        #expect(errors(#"{"uinput": {"name": "\#(longest)"}, "grab": true}"#) == [])
    }

    @Test func eachMistakeIsNamedByItsPathAndLine() {
        #expect(errors(#"{"uinput": true}"#) == ["$.devices[0].uinput: expected an object, got a boolean (line 3)"])
        #expect(errors(#"{"uinput": "kiosk"}"#) == ["$.devices[0].uinput: expected an object, got a string (line 3)"])
        #expect(errors(#"{"uinput": {}}"#)
                == ["$.devices[0].uinput.name: missing: the virtual touchscreen's name (as toolkits and libinput list it) (line 3)"])
        #expect(errors(#"{"uinput": {"name": 5}}"#) == ["$.devices[0].uinput.name: expected a string, got a number (line 3)"])
        #expect(errors(#"{"uinput": {"name": ""}}"#) == ["$.devices[0].uinput.name: must not be empty (line 3)"])
        #expect(errors(#"{"uinput": {"name": "\#(String(repeating: "é", count: 40))"}}"#)
                == ["$.devices[0].uinput.name: longer than a uinput device name may be (79 bytes, got 80) (line 3)"])
        #expect(errors(#"{"uinput": {"name": "a\nb"}}"#) == ["$.devices[0].uinput.name: must not contain control characters (line 3)"])
        #expect(errors(#"{"uinput": {"name": "k", "phys": "x"}}"#)
                == [#"$.devices[0].uinput.phys: unknown key "phys" (expected one of: name, orientation, split) (line 3)"#])
        #expect(errors(#"{"uinput": {"name": "k", "orientation": "sideways"}}"#)
                == [#"$.devices[0].uinput.orientation: expected "output" (as the output is turned, the default) or "natural" (the output's rotation left to the compositor), got "sideways" (line 3)"#])
        #expect(errors(#"{"uinput": {"name": "k", "orientation": "natural"}}"#) == [])
        // Its second entry, on the next line: the path and the line follow it.
        #expect(errors("""
            {"match": {"name": "a"}},
            {"match": {"name": "b"}, "uinput": {"name": "k"}, "grab": false}
            """) == [#"$.devices[1].grab: must not be false with "uinput", which takes the device exclusively (EVIOCGRAB) (line 4)"#])
        #expect(errors(#"{"ignore": true, "uinput": {"name": "k"}}"#)
                == [#"$.devices[0].uinput: a device that is ignored ("ignore": true) cannot be re-exported (line 3)"#])
    }
}

/// A UI point back on the panel's own pixels (calibrate draws its targets on a framebuffer
/// that knows nothing of the output's rotation): the four corners of an 800 × 480 output under
/// each rotation, worked out from "at 90 the natural top-left is the UI's top-right", with
/// points from 0 to size − 1 as the engine maps them (the VM saw a turned panel's (100, 100) at
/// (379, 100): x = 479 − y).
@Suite struct OutputNaturalPointTests {
    @Test func cornersUnderEveryRotation() {
        func at(_ r: Rotation, _ x: Double, _ y: Double) -> Point { Output(id: "o", size: Size(800, 480), rotation: r).naturalPoint(Point(x, y)) }
        // 0: nothing moves.
        #expect(at(.r0, 10, 20) == Point(10, 20))
        // 90: the UI is 480 × 800 points (0…479 × 0…799); its top-right (479, 0) is the natural
        // top-left, its top-left the natural bottom-left (0, 479), its bottom-left (0, 799) the
        // natural bottom-right; the VM's (379, 100) is the panel's (100, 100).
        #expect(at(.r90, 479, 0) == Point(0, 0))
        #expect(at(.r90, 0, 0) == Point(0, 479))
        #expect(at(.r90, 0, 799) == Point(799, 479))
        #expect(at(.r90, 379, 100) == Point(100, 100))
        // 180: the UI's top-left is the natural bottom-right.
        #expect(at(.r180, 0, 0) == Point(799, 479))
        #expect(at(.r180, 799, 0) == Point(0, 479))
        // 270: the natural top-left is the UI's bottom-left (0, 799); the UI's top-left the
        // natural top-right.
        #expect(at(.r270, 0, 799) == Point(0, 0))
        #expect(at(.r270, 0, 0) == Point(799, 0))
        #expect(at(.r270, 479, 799) == Point(0, 479))
    }
}
