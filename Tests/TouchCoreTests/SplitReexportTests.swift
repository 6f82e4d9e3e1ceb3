import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 42, item 3: `devices[].uinput` with `"split": true`. A page bound with touchd.js gets
/// its touches from touchd; with the whole device also re-exported the browser got each of them
/// natively as well, and every press inside the page's touchd windows happened twice. A contact
/// whose touch-down hit a view of a client's window is withheld from the virtual touchscreen
/// until it lifts; one that hit no view (outside every window, or a passthrough root) is passed.
@Suite struct SplitReexportTests {
    static let cfg = """
        {"screen": {"width": 800, "height": 480},
         "windows": [{"id": "config", "frame": [600, 0, 200, 100], "view": {"id": "config-button", "frame": [0, 0, 200, 100], "control": "button"}}]}
        """
    static let page = #"{"attach": {"id": "menu", "frame": [0, 0, 400, 480], "view": {"id": "menu-root", "frame": [0, 0, 400, 480], "hitTest": "passthrough", "subviews": [{"id": "coffee", "frame": [20, 20, 200, 80], "control": "button"}]}}}"#

    func rig(split: Bool) -> Rig {
        var s = DeviceSettings()
        s.uinput = UinputSettings(name: "touchd split", split: split)
        let r = Rig(config(Self.cfg), settings: s)
        r.engine.exportContacts(device: r.device, true)
        r.send(Self.page, from: 1)
        return r
    }

    func slots(_ frames: [ScreenContactFrame]) -> [String] {
        frames.flatMap { f in f.contacts.map { c in
            switch c.kind {
            case .began: return "began \(c.slot)"
            case .moved: return "moved \(c.slot)"
            case .ended: return "ended \(c.slot)"
            case .cancelled: return "cancelled \(c.slot)"
            }
        } }
    }

    @Test func aContactOnAClientsViewIsWithheldAndOneOutsideIsPassed() {
        let r = rig(split: true)
        _ = r.takeContacts()
        // On the page's button: touchd delivers it, the virtual touchscreen never sees it.
        r.down(100, 50); r.move(104, 52); r.up()
        #expect(r.take() == ["t1 began coffee", "coffee touchDown", "t1 moved coffee", "coffee touchDragInside",
                             "t1 ended coffee", "coffee touchUpInside", "coffee primaryActionTriggered"])
        #expect(slots(r.takeContacts()) == [])
        // On the page's passthrough root (no view hit): the browser's own touch, passed on.
        r.down(300, 300); r.move(310, 300); r.up()
        #expect(slots(r.takeContacts()) == ["began 0", "moved 0", "ended 0"])
        // Outside every window: passed on.
        r.down(500, 400); r.up()
        #expect(slots(r.takeContacts()) == ["began 0", "ended 0"])
        // On a config window's view (no client's): passed on, as without split.
        r.down(700, 50); r.up()
        #expect(slots(r.takeContacts()) == ["began 0", "ended 0"])
    }

    @Test func twoFingersOneOnThePageAreSplitPerContact() {
        let r = rig(split: true)
        _ = r.takeContacts()
        r.finger.down(0, 100, 50)            // on coffee
        r.finger.down(1, 500, 400)           // outside
        r.frame()
        r.finger.move(0, 101, 50); r.finger.move(1, 501, 400)
        r.frame()
        r.finger.up(0); r.finger.up(1)
        r.frame()
        #expect(slots(r.takeContacts()) == ["began 1", "moved 1", "ended 1"])
    }

    @Test func withoutSplitEveryContactIsReexported() {
        let r = rig(split: false)
        _ = r.takeContacts()
        r.down(100, 50); r.up()
        #expect(slots(r.takeContacts()) == ["began 0", "ended 0"])
    }

    @Test func theKeyIsRead() throws {
        let c = try Config.parse(#"{"devices": [{"match": {"name": "*"}, "uinput": {"name": "v", "split": true}}], "windows": []}"#)
        #expect(c.devices.first?.settings.uinput?.split == true)
        #expect(throws: (any Error).self) {
            try Config.parse(#"{"devices": [{"match": {"name": "*"}, "uinput": {"name": "v", "split": "yes"}}], "windows": []}"#)
        }
    }
}
