/// `screen`/`outputs`, `socket`, `tuio` and `devices[]` of the config (`clients`: ConfigClients.swift).
extension ConfigReader {
    /// `outputs[]`, or `screen` as one output (id "screen"), or the default 800×480 screen.
    mutating func outputs(_ root: JSONNode) -> [Output] {
        guard let list = root["outputs"] else { return [.screen(screen(root))] }
        if root["screen"] != nil { error("$.screen", root["screen"], "give either \"screen\" or \"outputs\", not both (\"screen\" is one output)") }
        guard let items = list.array else {
            error("$.outputs", list, "expected an array of outputs, got \(list.typeName)")
            return [.screen(Size(800, 480))]
        }
        if items.isEmpty { error("$.outputs", list, "must list at least one output") }
        var outputs: [Output] = []
        var seen: [String: Int] = [:]
        for (i, o) in items.enumerated() {
            let path = "$.outputs[\(i)]"
            guard object(o, path, allowed: ["id", "width", "height", "rotation", "actors", "accommodations", "screenReader", "session"]) != nil else { continue }
            let id = string(o["id"], path + ".id")
            if o["id"] == nil { error(path + ".id", o, "missing: the output's name (a DRM connector such as \"HDMI-A-1\", as `touchd outputs` lists them)") }
            if let id, id.isEmpty { error(path + ".id", o["id"], "must not be empty") }
            if let id, let other = seen[id] { error(path + ".id", o["id"], "duplicate output id \"\(id)\" (already used at $.outputs[\(other)])") }
            let w = number(o["width"], path + ".width", min: 1, max: 100_000)
            let h = number(o["height"], path + ".height", min: 1, max: 100_000)
            if o["width"] == nil { error(path + ".width", o, "missing") }
            if o["height"] == nil { error(path + ".height", o, "missing") }
            let rotation = self.rotation(o["rotation"], path + ".rotation") ?? .r0
            guard let id, !id.isEmpty, seen[id] == nil, let w, let h else { continue }
            seen[id] = i
            outputs.append(Output(id: id, size: Size(w, h), rotation: rotation))
        }
        return outputs.isEmpty ? [.screen(Size(800, 480))] : outputs
    }

    /// 0, 90, 180 or 270. Compared as numbers before any conversion: a huge value is an
    /// error, not a trap.
    mutating func rotation(_ node: JSONNode?, _ path: String) -> Rotation? {
        guard let node, let n = number(node, path) else { return nil }
        guard let r = Rotation.degrees(n) else {
            error(path, node, "must be 0, 90, 180 or 270 (a right angle), got \(fmt(n))")
            return nil
        }
        return r
    }

    mutating func screen(_ root: JSONNode) -> Size {
        var screen = Size(800, 480)
        if let s = root["screen"], object(s, "$.screen", allowed: ["width", "height", "screenReader"]) != nil {
            let w = number(s["width"], "$.screen.width", min: 1, max: 100_000)
            let h = number(s["height"], "$.screen.height", min: 1, max: 100_000)
            if s["width"] == nil { error("$.screen.width", s, "missing") }
            if s["height"] == nil { error("$.screen.height", s, "missing") }
            screen = Size(w ?? screen.width, h ?? screen.height)
        }
        return screen
    }

    mutating func socket(_ root: JSONNode) -> SocketSettings {
        var socket = SocketSettings()
        if let s = root["socket"], object(s, "$.socket", allowed: ["path", "mode", "group"]) != nil {
            if let p = string(s["path"], "$.socket.path") {
                if p.isEmpty || !p.hasPrefix("/") { error("$.socket.path", s["path"], "must be an absolute path") }
                else if p.utf8.count > 107 { error("$.socket.path", s["path"], "longer than a Unix socket path may be (107 bytes)") }
                else { socket.path = p }
            }
            if let m = s["mode"] {
                if let text = m.string, let v = UInt32(text, radix: 8), v <= 0o777 { socket.mode = v }
                else { error("$.socket.mode", m, "expected an octal string such as \"0660\", got \(m.string.map { "\"\($0)\"" } ?? m.typeName)") }
            }
            if let g = s["group"] {
                if g.value.isNull { socket.group = nil } else if let name = string(g, "$.socket.group") { socket.group = name }
            }
        }
        return socket
    }

    /// `tuio`: {"targets": ["HOST:PORT", "[IPv6]:PORT", {"address": "HOST:PORT", "output": ID}, …],
    /// "source": NAME, "fullStateInterval": S, "output": ID}.
    mutating func tuio(_ root: JSONNode, outputs: [Output]) -> TuioSettings? {
        guard let t = root["tuio"], object(t, "$.tuio", allowed: ["targets", "source", "fullStateInterval", "output"]) != nil else { return nil }
        var settings = TuioSettings()
        func output(_ node: JSONNode?, _ path: String) -> String?? {
            guard let o = string(node, path) else { return .none }
            guard outputs.contains(where: { $0.id == o }) else {
                error(path, node, "no output has id \"\(o)\" (outputs: \(outputs.map(\.id).joined(separator: ", ")))")
                return .none
            }
            return .some(o)
        }
        if let list = t["targets"]?.array {
            for (i, node) in list.enumerated() {
                let path = "$.tuio.targets[\(i)]"
                // A target is "HOST:PORT", or {"address": "HOST:PORT", "output": ID}: only that
                // output's touches, normalised to it.
                var text = node.string, on: String? = nil
                if node.members != nil, object(node, path, allowed: ["address", "output"]) != nil {
                    text = string(node["address"], path + ".address")
                    if node["address"] == nil { error(path + ".address", node, "missing: where to send (\"HOST:PORT\")") }
                    if let o = output(node["output"], path + ".output") { on = o }
                } else if text == nil {
                    error(path, node, "expected \"HOST:PORT\" or {\"address\": \"HOST:PORT\", \"output\": ID}, got \(node.typeName)")
                }
                guard let text else { continue }
                if var target = ConfigReader.tuioTarget(text) {
                    target.output = on
                    settings.targets.append(target)
                } else {
                    error(node.string != nil ? path : path + ".address", node, "expected \"HOST:PORT\" or \"[IPv6]:PORT\" with a port from 1 to 65535, got \"\(text)\"")
                }
            }
        } else if let other = t["targets"] {
            error("$.tuio.targets", other, "expected an array of targets, got \(describe(other))")
        } else {
            error("$.tuio.targets", t, "missing: where to send (e.g. [\"127.0.0.1:3333\"])")
        }
        if let name = string(t["source"], "$.tuio.source") {
            if name.isEmpty || name.utf8.count > 200 || name.contains("@") { error("$.tuio.source", t["source"], "must be 1 to 200 characters without \"@\"") }
            else { settings.source = name }
        }
        if let s = number(t["fullStateInterval"], "$.tuio.fullStateInterval", min: 0.05, max: 3600) { settings.fullStateInterval = s }
        if let o = output(t["output"], "$.tuio.output") { settings.output = o }
        return settings
    }

    static func tuioTarget(_ text: String) -> TuioSettings.Target? {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, host.utf8.count <= 253, let p = UInt16(port), p > 0 else { return nil }
        return TuioSettings.Target(host: String(host), port: p, output: nil)
    }

    mutating func wholeNumber(_ node: JSONNode?, _ path: String, min: Double, max: Double) -> Int? {
        guard let n = number(node, path, min: min, max: max) else { return nil }
        guard n == n.rounded() else { error(path, node, "must be a whole number"); return nil }
        return Int(n)
    }

    mutating func devices(_ root: JSONNode, outputs: [Output]) -> [DeviceEntry] {
        var devices: [DeviceEntry] = []
        if let d = root["devices"] {
            if let items = d.array {
                for (i, item) in items.enumerated() {
                    if let e = device(item, "$.devices[\(i)]", outputs: outputs) { devices.append(e) }
                }
            } else {
                error("$.devices", d, "expected an array, got \(d.typeName)")
            }
        }
        return devices
    }

    mutating func device(_ node: JSONNode, _ path: String, outputs: [Output]) -> DeviceEntry? {
        let keys = ["match", "output", "rotation", "flipX", "flipY", "swapXY", "calibration", "grab", "ignore", "axes", "filter", "uinput", "accommodations"]
        guard object(node, path, allowed: keys) != nil else { return nil }
        var match = DeviceMatch()
        if let m = node["match"], object(m, path + ".match", allowed: ["name", "vendor", "product", "properties"]) != nil {
            match.name = string(m["name"], path + ".match.name")
            match.vendor = idNumber(m["vendor"], path + ".match.vendor")
            match.product = idNumber(m["product"], path + ".match.product")
            if let p = m["properties"], let members = object(p, path + ".match.properties", allowed: p.members?.map(\.key) ?? [])?.members {
                for pm in members {
                    if let v = string(pm.value, path + ".match.properties." + pm.key) { match.properties[pm.key] = v }
                }
            }
        }
        var s = DeviceSettings()
        var screen = outputs[0].pointSize
        if let o = string(node["output"], path + ".output") {
            if let k = outputs.firstIndex(where: { $0.id == o }) { screen = outputs[k].pointSize; s.output = o }
            else { error(path + ".output", node["output"], "no output has id \"\(o)\" (outputs: \(outputs.map(\.id).joined(separator: ", ")))") }
        }
        if let r = rotation(node["rotation"], path + ".rotation") { s.rotation = r }
        s.flipX = bool(node["flipX"], path + ".flipX") ?? false
        s.flipY = bool(node["flipY"], path + ".flipY") ?? false
        s.swapXY = bool(node["swapXY"], path + ".swapXY") ?? false
        s.grab = bool(node["grab"], path + ".grab") ?? false
        s.ignore = bool(node["ignore"], path + ".ignore") ?? false
        if let c = numbers(node["calibration"], path + ".calibration", count: 6, what: "an array of 6 numbers [a, b, c, d, e, f]") {
            s.calibration = c
        }
        if let a = node["axes"], object(a, path + ".axes", allowed: ["x", "y"]) != nil {
            s.xAxis = axisCode(a["x"], path + ".axes.x")
            s.yAxis = axisCode(a["y"], path + ".axes.y")
        }
        if let f = node["filter"] { s.filter = conditioning(f, path + ".filter", screen: screen) }
        if let a = node["accommodations"] { s.accommodations = accommodations(a, path + ".accommodations") }
        if let u = node["uinput"] {
            s.uinput = uinput(u, path + ".uinput")
            // The virtual device stands in for the source: nobody else may read the source.
            if node["grab"]?.bool == false { error(path + ".grab", node["grab"], "must not be false with \"uinput\", which takes the device exclusively (EVIOCGRAB)") }
            if s.ignore { error(path + ".uinput", u, "a device that is ignored (\"ignore\": true) cannot be re-exported") }
        }
        return DeviceEntry(match: match, settings: s, label: String(path.dropFirst(2)))
    }

    /// `uinput`: {"name": NAME, "orientation": "output" | "natural"}, the virtual touchscreen
    /// that re-exports the device's contacts.
    mutating func uinput(_ node: JSONNode, _ path: String) -> UinputSettings? {
        guard object(node, path, allowed: ["name", "orientation", "split"]) != nil else { return nil }
        let split = bool(node["split"], path + ".split") ?? false
        var natural = false
        if let o = string(node["orientation"], path + ".orientation") {
            switch o {
            case "output": natural = false
            case "natural": natural = true
            default:
                error(path + ".orientation", node["orientation"], "expected \"output\" (as the output is turned, the default) or \"natural\" (the output's rotation left to the compositor), got \"\(o)\"")
                return nil
            }
        }
        guard let n = node["name"] else {
            error(path + ".name", node, "missing: the virtual touchscreen's name (as toolkits and libinput list it)")
            return nil
        }
        guard let name = string(n, path + ".name") else { return nil }
        let bytes = name.utf8.count
        if name.isEmpty {
            error(path + ".name", n, "must not be empty")
        } else if bytes > UinputSettings.maxNameBytes {
            error(path + ".name", n, "longer than a uinput device name may be (\(UinputSettings.maxNameBytes) bytes, got \(bytes))")
        } else if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            error(path + ".name", n, "must not contain control characters")
        } else {
            return UinputSettings(name: name, natural: natural, split: split)
        }
        return nil
    }

    /// `filter`: input conditioning (docs/config.md, "Conditioning"). Times in seconds,
    /// distances in points, pressures as fractions of the pressure axis; every number within
    /// its range (ConditioningSettings), so that the filter's arithmetic always has a number.
    mutating func conditioning(_ node: JSONNode, _ path: String, screen: Size) -> ConditioningSettings {
        typealias C = ConditioningSettings
        var c = C()
        let keys = ["debounce", "debounceDistance", "hysteresis", "pressure", "palmSize", "minimumDuration", "minimumFrames", "deadZone"]
        guard object(node, path, allowed: keys) != nil else { return c }
        func within(_ key: String, _ range: ClosedRange<Double>) -> Double? { number(node[key], path + "." + key, min: range.lowerBound, max: range.upperBound) }
        if let d = within("debounce", C.debounceRange) { c.debounce = d }
        if let d = within("debounceDistance", C.debounceDistanceRange) { c.debounceDistance = d }
        if let h = node["hysteresis"] {
            if h.string == "fuzz" {
                c.hysteresis = .fuzz
            } else if let r = h.number, r == 0 || C.hysteresisRange.contains(r) {
                c.hysteresis = .points(r)
            } else {
                // A radius too small to matter is refused rather than kept: squared in device
                // units it underflows to zero (1e-300 made a NaN that stopped the daemon).
                error(path + ".hysteresis", h, "expected \"fuzz\" (the axis's fuzz, the kernel's rule), 0 (off) or a radius in points from \(fmt(C.hysteresisRange.lowerBound)) to \(fmt(C.hysteresisRange.upperBound))")
            }
        }
        if let p = node["pressure"], object(p, path + ".pressure", allowed: ["down", "up"]) != nil {
            let down = number(p["down"], path + ".pressure.down", min: C.pressureRange.lowerBound, max: C.pressureRange.upperBound)
            let up = number(p["up"], path + ".pressure.up", min: C.pressureRange.lowerBound, max: C.pressureRange.upperBound)
            if p["down"] == nil { error(path + ".pressure.down", p, "missing: the fraction of the pressure axis a touch starts at") }
            if p["up"] == nil { error(path + ".pressure.up", p, "missing: the fraction of the pressure axis a touch ends below") }
            if let down, let up {
                if up > down { error(path + ".pressure.up", p["up"], "must be at most down (\(fmt(down))): a touch ends below where it starts") }
                else { c.pressure = .init(down: down, up: up) }
            }
        }
        if let palm = within("palmSize", C.palmSizeRange) { c.palmSize = palm }
        if let d = within("minimumDuration", C.minimumDurationRange) { c.minimumDuration = d }
        let frames = C.minimumFramesRange
        if let n = wholeNumber(node["minimumFrames"], path + ".minimumFrames", min: Double(frames.lowerBound), max: Double(frames.upperBound)) { c.minimumFrames = n }
        if let z = node["deadZone"] { c.deadZone = deadZone(z, path + ".deadZone", screen: screen) }
        return c
    }

    /// `deadZone`: points per edge, `[top, left, bottom, right]` or one number for all four;
    /// the zones of an axis together leave some of the screen.
    mutating func deadZone(_ node: JSONNode, _ path: String, screen: Size) -> Outset? {
        let zone: Outset
        if let n = node.number {
            zone = Outset(all: n)
        } else if let a = numbers(node, path, count: 4, what: "a number or [top, left, bottom, right] in points") {
            zone = Outset(top: a[0], left: a[1], bottom: a[2], right: a[3])
        } else {
            return nil
        }
        let range = ConditioningSettings.deadZoneRange
        for (name, v) in [("top", zone.top), ("left", zone.left), ("bottom", zone.bottom), ("right", zone.right)] where !range.contains(v) {
            error(path, node, "\(name) must be from \(fmt(range.lowerBound)) to \(fmt(range.upperBound)) points, got \(fmt(v))")
            return nil
        }
        if zone.top + zone.bottom >= screen.height {
            error(path, node, "top and bottom (\(fmt(zone.top + zone.bottom)) points together) leave nothing of the screen's height (\(fmt(screen.height)))")
            return nil
        }
        if zone.left + zone.right >= screen.width {
            error(path, node, "left and right (\(fmt(zone.left + zone.right)) points together) leave nothing of the screen's width (\(fmt(screen.width)))")
            return nil
        }
        return zone
    }

    static let axisNames: [String: UInt16] = [
        "ABS_X": 0x00, "ABS_Y": 0x01, "ABS_Z": 0x02, "ABS_RX": 0x03, "ABS_RY": 0x04, "ABS_RZ": 0x05,
        "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36,
    ]

    mutating func axisCode(_ node: JSONNode?, _ path: String) -> UInt16? {
        guard let s = string(node, path) else { return nil }
        guard let c = ConfigReader.axisNames[s] else {
            error(path, node, "unknown axis \"\(s)\" (expected one of: \(ConfigReader.axisNames.keys.sorted().joined(separator: ", ")))")
            return nil
        }
        return c
    }

    /// A USB id as a number or a hex string ("0x0eef" or "0eef").
    mutating func idNumber(_ node: JSONNode?, _ path: String) -> Int? {
        guard let node else { return nil }
        if let n = node.number, n >= 0, n <= 0xffff, n == n.rounded() { return Int(n) }
        if let s = node.string {
            let hex = s.hasPrefix("0x") || s.hasPrefix("0X") ? String(s.dropFirst(2)) : s
            if let v = Int(hex, radix: 16), v >= 0, v <= 0xffff { return v }
        }
        error(path, node, "expected a number 0…65535 or a hex string such as \"0x0eef\"")
        return nil
    }
}
