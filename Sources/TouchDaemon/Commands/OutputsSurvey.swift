import TouchCore
import TouchSystem

/// What `touchd outputs` finds (issue 33, item 4): the DRM connectors under SYSFS/class/drm
/// (name, status, preferred mode, physical size from the EDID) and the touchscreens under
/// SYSFS/class/input with their udev properties (udev's database: `WL_OUTPUT`), each mapped to
/// an output as the daemon would map it. Read from any tree, so tests use a made-up one: SYSFS
/// and udev's database each a FileSystem.Tree, so that nothing outside them is read (a symlink
/// resolves inside its tree, a FIFO is not opened).
struct OutputsSurvey: Equatable {
    struct Connector: Equatable {
        /// The connector's name without its card ("HDMI-A-1" for card0-HDMI-A-1): what
        /// compositors, `WL_OUTPUT` and `outputs[].id` call it.
        var name: String
        var status: String
        /// The preferred mode (the first of `modes`), in pixels.
        var mode: (width: Int, height: Int)?
        /// Millimetres, from the EDID (nil when it has none or says 0).
        var physical: (width: Int, height: Int)?
        var connected: Bool { status == "connected" }

        static func == (a: Connector, b: Connector) -> Bool {
            a.name == b.name && a.status == b.status && a.mode?.width == b.mode?.width && a.mode?.height == b.mode?.height
                && a.physical?.width == b.physical?.width && a.physical?.height == b.physical?.height
        }
    }

    struct Touchscreen: Equatable {
        var node: String
        var name: String
        var vendor = 0
        var product = 0
        var properties: [String: String]
        var wlOutput: String? { properties["WL_OUTPUT"] }
    }

    var connectors: [Connector] = []
    var touchscreens: [Touchscreen] = []

    /// Reads the tree: `sysfs` as /sys, `udevData` as /run/udev/data.
    static func read(sysfs: String, udevData: String) throws(SystemError) -> OutputsSurvey {
        var s = OutputsSurvey()
        let sys = FileSystem.Tree(root: sysfs), udev = FileSystem.Tree(root: udevData)
        func text(_ path: String) -> String? { OutputsSurvey.text(sys, path) }
        let drm = "/class/drm"
        for entry in try entries(sys, drm) {
            // card0-HDMI-A-1: a connector; card0, renderD128, version: not.
            guard entry.hasPrefix("card"), let dash = entry.firstIndex(of: "-") else { continue }
            let dir = drm + "/" + entry
            guard let status = text(dir + "/status") else { continue }
            var c = Connector(name: String(entry[entry.index(after: dash)...]), status: status)
            if let modes = text(dir + "/modes"), let first = modes.split(separator: "\n").first { c.mode = mode(String(first)) }
            c.physical = physicalSize(edid: bytes(sys, dir + "/edid"))
            s.connectors.append(c)
        }
        let input = "/class/input"
        for entry in try entries(sys, input) where entry.hasPrefix("event") {
            let dir = input + "/" + entry
            let props = udevProperties(OutputsSurvey.text(udev, "/c" + (text(dir + "/dev") ?? "?")) ?? "")
            guard props["ID_INPUT_TOUCHSCREEN"] == "1" || props["WL_OUTPUT"] != nil else { continue }
            var t = Touchscreen(node: "/dev/input/" + entry, name: text(dir + "/device/name") ?? "?", properties: props)
            t.vendor = Int(text(dir + "/device/id/vendor") ?? "", radix: 16) ?? 0
            t.product = Int(text(dir + "/device/id/product") ?? "", radix: 16) ?? 0
            s.touchscreens.append(t)
        }
        return s
    }

    /// A directory's names, sorted; none when it is missing (or the tree is).
    static func entries(_ tree: FileSystem.Tree, _ path: String) throws(SystemError) -> [String] {
        do { return try tree.entries(path).sorted() } catch {
            if error.errno == .noSuchFile { return [] }
            throw error
        }
    }

    static func bytes(_ tree: FileSystem.Tree, _ path: String) -> [UInt8] {
        do { return try tree.read(path, limit: 1 << 16) } catch { return [] }
    }

    /// A small regular file's text without its trailing newline; nil when it cannot be read.
    static func text(_ tree: FileSystem.Tree, _ path: String) -> String? {
        let bytes: [UInt8]
        do { bytes = try tree.read(path, limit: 1 << 16) } catch { return nil }
        var t = String(decoding: bytes, as: UTF8.self)
        while t.last == "\n" || t.last == " " { t.removeLast() }
        return t
    }

    /// "1920x1080" (or "1920x1080i") → 1920, 1080.
    static func mode(_ s: String) -> (width: Int, height: Int)? {
        let parts = s.split(separator: "x", maxSplits: 1)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1].prefix { $0.isNumber }), w > 0, h > 0 else { return nil }
        return (w, h)
    }

    /// EDID bytes 21 and 22: the image's width and height in centimetres (0: unknown).
    static func physicalSize(edid: [UInt8]) -> (width: Int, height: Int)? {
        guard edid.count >= 128, edid.prefix(8) == [0, 255, 255, 255, 255, 255, 255, 0], edid[21] > 0, edid[22] > 0 else { return nil }
        return (Int(edid[21]) * 10, Int(edid[22]) * 10)
    }

    /// udev's database entry of a device (its text): its `E:KEY=VALUE` lines.
    static func udevProperties(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("E:") {
            let kv = line.dropFirst(2).split(separator: "=", maxSplits: 1)
            if kv.count == 2 { out[String(kv[0])] = String(kv[1]) }
        }
        return out
    }

    /// The outputs a config would list: the connected connectors at their preferred modes.
    var suggestedOutputs: [Output] {
        connectors.filter(\.connected).compactMap { c in c.mode.map { Output(id: c.name, size: Size(Double($0.width), Double($0.height))) } }
    }

    /// Where a touchscreen maps with these outputs and devices (as the daemon decides), and why.
    func mapping(_ t: Touchscreen, outputs: [Output], config: Config?) -> (output: String, by: String)? {
        guard let first = outputs.first else { return nil }
        let entry = config?.deviceEntry(name: t.name, vendor: t.vendor, product: t.product, properties: t.properties)
        let settings = (entry?.settings ?? DeviceSettings()).resolvingOutput(properties: t.properties, outputs: outputs)
        if let o = entry?.settings.output { return (o, "\(entry?.label ?? "devices[]").output") }
        if let o = settings.output { return (o, "WL_OUTPUT") }
        return (first.id, t.wlOutput.map { "the first: WL_OUTPUT \($0) names no output" } ?? "the first: no WL_OUTPUT")
    }
}
