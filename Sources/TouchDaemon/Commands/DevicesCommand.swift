import TouchCore
import TouchSystem
import TouchInput

struct DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list input devices: kind, slots, axes, node, matching config entry"
    static let operands = ""
    static let about = """
    Lists every input device udev knows (like `libinput list-devices`): its name, node, kind
    (touchscreen protocol A / B / single-touch, or not a touchscreen), slots, axis ranges and
    resolution, the udev properties that identify it, and which devices[] entry of the config
    matches it. Devices that cannot be opened are listed with the reason.
    """
    static var options: [Option<DevicesCommand>] {
        [.optionalConfig(\.config, help: "the configuration to match against (default /etc/touchd/touchd.json,\nif it exists)"),
         .flag(["--json"], help: "one JSON array instead of text", \.json)]
    }

    var config: String?
    var json = false

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("unexpected argument \(operands[0])") }
    }

    func run() throws(CommandFailure) -> Int32 {
        var cfg: Config?
        if let config { cfg = try loadConfig(config) }
        else if FileSystem.isReadable("/etc/touchd/touchd.json") {
            // The default config is a convenience here: a broken one is reported, not fatal.
            do { cfg = try loadConfig("/etc/touchd/touchd.json") } catch {
                for l in error.lines { ThisProcess.writeError("touchd devices: \(l) (devices are listed without it)\n") }
            }
        }
        guard let udev = Udev() else { throw CommandFailure("libudev could not be initialised") }
        let out = OutputWriter.standardOutput()
        var jsonOut: [UInt8] = [UInt8(ascii: "[")]
        var count = 0
        for d in udev.enumerate() where d.isEventNode {
            guard let node = d.devnode else { continue }
            var info: DeviceInfo?
            var problem: String?
            do { info = try EvdevDevice(path: node).info } catch { problem = error.description }
            let touch = info?.isTouchscreen(udevProperties: d.properties) ?? (d.properties?["ID_INPUT_TOUCHSCREEN"] == "1")
            let entry = info.flatMap { i in cfg.flatMap { InputDevice.entry(for: i, in: $0, properties: d.properties ?? [:]) } }
            let ids = ["ID_PATH", "ID_SERIAL", "ID_INPUT_TOUCHSCREEN"].compactMap { k in d.properties?[k].map { "\(k)=\($0)" } }
            if json {
                if count > 0 { jsonOut.append(UInt8(ascii: ",")) }
                var o: [UInt8] = []
                JSONWriter.appendRaw("{\"node\":", to: &o)
                JSONWriter.appendString(node, to: &o)
                JSONWriter.appendRaw(",\"name\":", to: &o)
                JSONWriter.appendString(info?.name ?? d.name ?? "", to: &o)
                JSONWriter.appendRaw(",\"touchscreen\":", to: &o)
                JSONWriter.appendRaw(touch ? "true" : "false", to: &o)
                JSONWriter.appendRaw(",\"protocol\":", to: &o)
                if touch, let p = info?.touchProtocol { JSONWriter.appendString(p.rawValue, to: &o) } else { JSONWriter.appendRaw("null", to: &o) }
                if let i = info {
                    JSONWriter.appendRaw(",\"slots\":", to: &o)
                    JSONWriter.appendInt(i.touchProtocol == .b ? i.slotCount : (i.touchProtocol == .single ? 1 : 0), to: &o)
                    o += Array(",\"bus\":\(i.bustype),\"vendor\":\(i.vendor),\"product\":\(i.product),\"direct\":\(i.isDirect),\"axes\":{".utf8)
                    for (k, (c, a)) in i.abs.sorted(by: { $0.key < $1.key }).enumerated() {
                        if k > 0 { o.append(UInt8(ascii: ",")) }
                        JSONWriter.appendString(EventNames.describe(type: EV.ABS, code: c), to: &o)
                        o += Array(":{\"min\":\(a.minimum),\"max\":\(a.maximum),\"resolution\":\(a.resolution),\"fuzz\":\(a.fuzz)}".utf8)
                    }
                    JSONWriter.appendRaw("}", to: &o)
                }
                JSONWriter.appendRaw(",\"udev\":{", to: &o)
                for (k, p) in ids.enumerated() {
                    if k > 0 { o.append(UInt8(ascii: ",")) }
                    let parts = p.split(separator: "=", maxSplits: 1).map(String.init)
                    JSONWriter.appendString(parts[0], to: &o)
                    o.append(UInt8(ascii: ":"))
                    JSONWriter.appendString(parts.count > 1 ? parts[1] : "", to: &o)
                }
                JSONWriter.appendRaw("},\"config\":", to: &o)
                if let e = entry { JSONWriter.appendString(e.label, to: &o) } else { JSONWriter.appendRaw("null", to: &o) }
                if let problem {
                    JSONWriter.appendRaw(",\"error\":", to: &o)
                    JSONWriter.appendString(problem, to: &o)
                }
                JSONWriter.appendRaw("}", to: &o)
                jsonOut += o
            } else {
                var s = "Device:     \(info?.name ?? d.name ?? "?")\n"
                s += "Node:       \(node)\n"
                if let problem { s += "Error:      \(problem)\n" }
                if let i = info {
                    s += "Kind:       \(i.kindDescription(touchscreen: touch))\n"
                    s += "Id:         bus 0x\(String(i.bustype, radix: 16)) vendor 0x\(String(i.vendor, radix: 16)) product 0x\(String(i.product, radix: 16))\(i.isDirect ? ", INPUT_PROP_DIRECT" : "")\n"
                    let axes = i.abs.sorted { $0.key < $1.key }.filter { [ABS.X, ABS.Y, ABS.MT_SLOT, ABS.MT_POSITION_X, ABS.MT_POSITION_Y, ABS.MT_PRESSURE, ABS.MT_TOUCH_MAJOR, ABS.PRESSURE].contains($0.key) }
                    for (k, (c, a)) in axes.enumerated() {
                        s += (k == 0 ? "Axes:       " : "            ") + "\(EventNames.describe(type: EV.ABS, code: c)) \(a.minimum)…\(a.maximum)" + (a.resolution > 0 ? ", \(a.resolution) units/mm" : "") + "\n"
                    }
                }
                if !ids.isEmpty { s += "Udev:       \(ids.joined(separator: " "))\n" }
                s += "Config:     \(entry?.label ?? (cfg == nil ? "(no config)" : "no entry matches: defaults"))\n\n"
                out.write(s)
            }
            count += 1
        }
        if json {
            jsonOut += Array("]\n".utf8)
            out.write(jsonOut)
        } else if count == 0 {
            out.write("no input devices (is /dev/input there, and /sys mounted?)\n")
        }
        out.flush()
        return 0
    }
}
