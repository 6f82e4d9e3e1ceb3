import Foundation
import Testing
import TouchCore
@testable import TouchDaemon

/// `touchd outputs` on a made-up sysfs tree (issue 33, item 4): no GPU needed.
@Suite struct OutputsCommandTests {
    /// A tree with two connected connectors (one with an EDID of 52×29 cm), one disconnected,
    /// and two touchscreens: one with WL_OUTPUT, one without; and a keyboard.
    static func tree() throws -> (sysfs: String, udev: String) {
        let root = NSTemporaryDirectory() + "touchd-outputs-\(UUID().uuidString.prefix(8))"
        let fm = FileManager.default
        func file(_ path: String, _ text: String) throws {
            try fm.createDirectory(atPath: (root + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: root + path, atomically: true, encoding: .utf8)
        }
        try file("/sys/class/drm/version", "drm 1.1.0\n")
        try file("/sys/class/drm/card0/dev", "226:0\n")
        try file("/sys/class/drm/card0-DSI-1/status", "connected\n")
        try file("/sys/class/drm/card0-DSI-1/modes", "800x480\n")
        try file("/sys/class/drm/card0-HDMI-A-1/status", "connected\n")
        try file("/sys/class/drm/card0-HDMI-A-1/modes", "1920x1080\n1280x720\n1920x1080i\n")
        var edid = [UInt8](repeating: 0, count: 128)
        edid.replaceSubrange(0..<8, with: [0, 255, 255, 255, 255, 255, 255, 0])
        edid[21] = 52; edid[22] = 29
        try Data(edid).write(to: URL(fileURLWithPath: root + "/sys/class/drm/card0-HDMI-A-1/edid"))
        try file("/sys/class/drm/card0-HDMI-A-2/status", "disconnected\n")
        try file("/sys/class/drm/card0-HDMI-A-2/modes", "")
        try file("/sys/class/input/event3/dev", "13:67\n")
        try file("/sys/class/input/event3/device/name", "Goodix Capacitive TouchScreen\n")
        try file("/run/udev/data/c13:67", "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nE:WL_OUTPUT=DSI-1\n")
        try file("/sys/class/input/event4/dev", "13:68\n")
        try file("/sys/class/input/event4/device/name", "ILITEK ILITEK-TP\n")
        try file("/run/udev/data/c13:68", "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\n")
        try file("/sys/class/input/event5/dev", "13:69\n")
        try file("/sys/class/input/event5/device/name", "AT Keyboard\n")
        try file("/run/udev/data/c13:69", "E:ID_INPUT=1\nE:ID_INPUT_KEYBOARD=1\n")
        return (root + "/sys", root + "/run/udev/data")
    }

    @Test func readsConnectorsAndTouchscreens() throws {
        let (sysfs, udev) = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: (sysfs as NSString).deletingLastPathComponent) }
        let s = try OutputsSurvey.read(sysfs: sysfs, udevData: udev)
        #expect(s.connectors.map(\.name) == ["DSI-1", "HDMI-A-1", "HDMI-A-2"])
        #expect(s.connectors.map(\.connected) == [true, true, false])
        #expect(s.connectors[1].mode?.width == 1920 && s.connectors[1].mode?.height == 1080)
        #expect(s.connectors[1].physical?.width == 520 && s.connectors[1].physical?.height == 290)
        #expect(s.connectors[0].physical == nil && s.connectors[2].mode == nil)
        #expect(s.touchscreens.map(\.name) == ["Goodix Capacitive TouchScreen", "ILITEK ILITEK-TP"])
        #expect(s.touchscreens.map(\.wlOutput) == ["DSI-1", nil])
        #expect(s.suggestedOutputs == [Output(id: "DSI-1", size: Size(800, 480)), Output(id: "HDMI-A-1", size: Size(1920, 1080))])

        let json = String(decoding: OutputsCommand.json(s, config: nil), as: UTF8.self)
        let o = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let screens = o?["touchscreens"] as? [[String: Any]]
        #expect(screens?.map { $0["output"] as? String } == ["DSI-1", "DSI-1"])
        #expect(screens?.map { $0["by"] as? String } == ["WL_OUTPUT", "the first: no WL_OUTPUT"])
        let suggested = o?["suggested"] as? [String: Any]
        #expect((suggested?["devices"] as? [[String: Any]])?.first?["output"] as? String == "DSI-1")
        // The suggestion is a config that parses, and maps the devices as listed.
        let snippet = "{\"outputs\": " + String(decoding: OutputsCommand.outputsJSON(s.suggestedOutputs), as: UTF8.self)
            + ", \"devices\": " + String(decoding: OutputsCommand.devicesJSON(OutputsCommand.suggestedDevices(s)), as: UTF8.self)
            + ", \"windows\": []}"
        let cfg = try Config.parse(snippet)
        #expect(cfg.outputs.map(\.id) == ["DSI-1", "HDMI-A-1"])
        #expect(s.mapping(s.touchscreens[1], outputs: cfg.outputs, config: cfg)?.by == "devices[0].output")

        let text = OutputsCommand.text(s, config: nil, sysfs: sysfs)
        #expect(text.contains("  HDMI-A-1  connected  1920x1080  520x290 mm\n"))
        #expect(text.contains("  /dev/input/event3 \"Goodix Capacitive TouchScreen\"  WL_OUTPUT=DSI-1  → DSI-1 (WL_OUTPUT)\n"))
        #expect(!text.contains("AT Keyboard"))
    }

    /// With a config, its outputs decide: a WL_OUTPUT naming none of them maps to the first.
    @Test func aConfigsOutputsDecideTheMapping() throws {
        let (sysfs, udev) = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: (sysfs as NSString).deletingLastPathComponent) }
        let s = try OutputsSurvey.read(sysfs: sysfs, udevData: udev)
        let cfg = try Config.parse(#"{"outputs": [{"id": "HDMI-A-1", "width": 1920, "height": 1080}], "windows": []}"#)
        let m = s.mapping(s.touchscreens[0], outputs: cfg.outputs, config: cfg)
        #expect(m?.output == "HDMI-A-1" && m?.by == "the first: WL_OUTPUT DSI-1 names no output")
    }

    @Test func aMissingTreeHasNothing() throws {
        let s = try OutputsSurvey.read(sysfs: "/nonexistent-touchd-sysfs", udevData: "/nonexistent")
        #expect(s.connectors.isEmpty && s.touchscreens.isEmpty)
        let text = OutputsCommand.text(s, config: nil, sysfs: "/x")
        #expect(text.contains("none (no DRM driver, or not a /sys)"))
        #expect(text.contains("none: no connected connector with a mode (keep \"screen\")"))
    }
}
