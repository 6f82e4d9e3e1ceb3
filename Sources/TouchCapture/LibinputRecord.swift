import TouchCore
import TouchInput

/// `libinput record` YAML (version 1): one or several devices, each with its `evdev:`
/// description (name, id, codes, absinfo, properties) and `events:` holding
/// `- evdev: [[sec, usec, type, code, value], …]`. Unknown keys are ignored, as the format asks.
/// Times are relative to the recording's start and shared by every device, so several devices
/// replay together on one timeline.
public enum LibinputRecordReader {
    public static func looks(like bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        return head.contains("devices:") && (head.hasPrefix("version:") || head.contains("\nversion:") || head.contains("libinput:"))
            || (head.hasPrefix("version: 1") || head.hasPrefix("---\nversion:"))
    }

    public static func read(_ bytes: [UInt8], file: String) throws(CaptureError) -> [CaptureDevice] {
        let root = try YAMLReader.parse(bytes, file: file)
        guard root.pairs != nil else { throw CaptureError(file: file, line: root.line, message: "expected a libinput recording (a mapping with version and devices)") }
        guard let version = root["version"], version.scalar == "1" else {
            throw CaptureError(file: file, line: root["version"]?.line ?? 1, message: "expected 'version: 1' (a libinput record file), got \(root["version"]?.scalar ?? "no version")")
        }
        guard let devices = root["devices"]?.items, !devices.isEmpty else {
            throw CaptureError(file: file, line: root["devices"]?.line ?? root.line, message: "expected a non-empty 'devices:' list")
        }
        var out: [CaptureDevice] = []
        let base = baseName(file)
        for (k, d) in devices.enumerated() {
            guard let evdev = d["evdev"] else { throw CaptureError(file: file, line: d.line, message: "device \(k + 1) has no 'evdev:' description") }
            let info = try description(evdev, file: file)
            var events: [InputEvent] = []
            for frame in d["events"]?.items ?? [] {
                guard let list = frame["evdev"]?.items else { continue }   // hid / libinput entries are ignored
                for e in list {
                    guard let v = e.items, v.count == 5, let sec = v[0].int, let usec = v[1].int, let type = v[2].int,
                          let code = v[3].int, let value = v[4].int, type >= 0, type <= Int64(EV.max), code >= 0, code <= 0x2ff,
                          value >= Int64(Int32.min), value <= Int64(Int32.max), usec >= 0, usec < 1_000_000,
                          sec >= 0, sec <= Timestamp.maxSeconds else {
                        throw CaptureError(file: file, line: e.line, message: "expected an event [sec, usec, type, code, value] (\(Timestamp.limitText), microseconds below 10⁶, a known type and code, a 32-bit value)")
                    }
                    if type == Int64(EV.ABS), EvemuReader.requiredAbs.contains(UInt16(code)), info.abs[UInt16(code)] == nil {
                        throw CaptureError(file: file, line: e.line, message: "event on \(EventNames.describe(type: UInt16(type), code: UInt16(code))), which the device's absinfo does not declare: its range is unknown")
                    }
                    events.append(InputEvent(time: sec * 1_000_000 + usec, type: UInt16(type), code: UInt16(code), value: Int32(value)))
                }
            }
            let id = devices.count == 1 ? base : (k == 0 ? base : "\(base)#\(k + 1)")
            out.append(CaptureDevice(info: info, events: events, id: id, file: file, format: .libinput))
        }
        if out.allSatisfy({ $0.events.isEmpty }) { throw CaptureError(file: file, line: 0, message: "no events") }
        return out
    }

    static func description(_ e: YAMLNode, file: String) throws(CaptureError) -> DeviceInfo {
        let name = e["name"]?.scalar ?? "unnamed device"
        var ids: [UInt16] = [0, 0, 0, 0]
        if let node = e["id"], let id = node.items {
            let values = id.compactMap { $0.int.flatMap { UInt16(exactly: $0) } }
            guard id.count == 4, values.count == 4 else {
                throw CaptureError(file: file, line: node.line, message: "expected id: [bus, vendor, product, version]")
            }
            ids = values
        }
        var codes: [UInt16: Set<UInt16>] = [:]
        for (t, list) in e["codes"]?.pairs ?? [] {
            guard let type = UInt16(t), type <= EV.max, let items = list.items else {
                throw CaptureError(file: file, line: list.line, message: "expected codes: {type: [code, …]}")
            }
            var set = Set<UInt16>()
            for c in items {
                guard let v = c.int, v >= 0, v <= 0x2ff else { throw CaptureError(file: file, line: c.line, message: "expected an event code") }
                set.insert(UInt16(v))
            }
            codes[type] = set
        }
        var abs: [UInt16: AbsInfo] = [:]
        for (c, list) in e["absinfo"]?.pairs ?? [] {
            guard let code = UInt16(c), code <= ABS.max, let v = list.items, v.count >= 5,
                  case let ints = v.compactMap(\.int), ints.count == v.count else {
                throw CaptureError(file: file, line: list.line, message: "expected absinfo: {code: [min, max, fuzz, flat, resolution]}")
            }
            let n = ints.map { Int32(clamping: $0) }
            guard n[1] >= n[0] else { throw CaptureError(file: file, line: list.line, message: "axis \(c) has maximum \(n[1]) below minimum \(n[0])") }
            abs[code] = AbsInfo(minimum: n[0], maximum: n[1], fuzz: n[2], flat: n[3], resolution: n[4])
        }
        var props = Set<UInt16>()
        for p in e["properties"]?.items ?? [] {
            guard let v = p.int, v >= 0, v < 0x20 else { throw CaptureError(file: file, line: p.line, message: "expected a property number") }
            props.insert(UInt16(v))
        }
        var info = DeviceInfo(name: name, bustype: ids[0], vendor: ids[1], product: ids[2], version: ids[3], properties: props, codes: codes, abs: [:])
        info.abs = abs
        for code in abs.keys { info.codes[EV.ABS, default: []].insert(code) }
        return info
    }
}

/// Writes `libinput record`-style YAML: what `touchd record --format libinput` produces and what
/// the reader above reads (and libinput's own tools accept).
public enum LibinputRecordWriter {
    static func quote(_ s: String) -> String {
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out + "\""
    }

    public static func header(devices: [(node: String, info: DeviceInfo)], kernel: String? = nil) -> String {
        var s = "version: 1\nndevices: \(devices.count)\nlibinput:\n  version: \"touchd\"\nsystem:\n  kernel: \(quote(kernel ?? "unknown"))\ndevices:\n"
        return s
    }

    public static func device(node: String, info: DeviceInfo) -> String {
        var s = "- node: \(node)\n  evdev:\n"
        s += "    # Name: \(info.name)\n"
        s += "    name: \(quote(info.name))\n"
        s += "    id: [\(info.bustype), \(info.vendor), \(info.product), \(info.version)]\n"
        s += "    codes:\n"
        for (t, codes) in info.codes.sorted(by: { $0.key < $1.key }) {
            s += "      \(t): [\(codes.sorted().map(String.init).joined(separator: ", "))] # \(EventNames.typeName(t) ?? "?")\n"
        }
        s += "    absinfo:\n"
        for (c, a) in info.abs.sorted(by: { $0.key < $1.key }) {
            s += "      \(c): [\(a.minimum), \(a.maximum), \(a.fuzz), \(a.flat), \(a.resolution)]\n"
        }
        s += "    properties: [\(info.properties.sorted().map(String.init).joined(separator: ", "))]\n"
        s += "  events:\n"
        return s
    }

    /// One frame (events up to and including a SYN_REPORT) as `- evdev: [...]`.
    public static func frame(_ events: [InputEvent], relativeTo start: Int64) -> String {
        var s = "  - evdev:\n"
        for e in events {
            let t = max(0, e.time - start)
            s += "    - [\(String(t / 1_000_000).leftPadded(3)), \(String(t % 1_000_000).leftPadded(6)), \(String(e.type).leftPadded(3)), \(String(e.code).leftPadded(3)), \(String(e.value).leftPadded(6))]"
            if let n = EventNames.codeName(type: e.type, code: e.code) { s += " # \(EventNames.typeName(e.type) ?? "") / \(n)" }
            s += "\n"
        }
        return s
    }

    /// A whole recording from captured devices (the test helper and `touchd convert` use it).
    /// `keepTimes`: write the captures' own timestamps rather than times from zero (so a
    /// converted capture replays to byte-identical messages).
    public static func write(_ devices: [CaptureDevice], keepTimes: Bool = false) -> String {
        let start = keepTimes ? 0 : (devices.compactMap { $0.events.first?.time }.min() ?? 0)
        var s = header(devices: devices.map { ("/dev/input/event\($0.id.count % 10)", $0.info) })
        for d in devices {
            s += device(node: "/dev/input/\(d.id)", info: d.info)
            var frame: [InputEvent] = []
            for e in d.events {
                frame.append(e)
                if e.type == EV.SYN && e.code == SYN.REPORT {
                    s += self.frame(frame, relativeTo: start)
                    frame.removeAll()
                }
            }
            if !frame.isEmpty { s += self.frame(frame, relativeTo: start) }
        }
        return s
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
