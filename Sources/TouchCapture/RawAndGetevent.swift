import TouchCore
import TouchInput

/// Raw `struct input_event` dumps, as read from /dev/input/eventN on 64-bit Linux: 24 bytes
/// each (tv_sec and tv_usec as 64-bit, type and code 16-bit, value 32-bit, little-endian). The
/// description comes from --device-info.
public enum RawEventReader {
    public static let eventSize = 24

    /// Binary (NUL bytes early on) whose first records read as input_events (a time with
    /// microseconds below a million, a known event type): a raw dump, whole or cut short.
    public static func looks(like bytes: [UInt8]) -> Bool {
        guard bytes.count >= eventSize, bytes.prefix(512).contains(0) else { return false }
        for i in 0..<min(8, bytes.count / eventSize) {
            let o = i * eventSize
            var usec: UInt64 = 0
            for k in (0..<8).reversed() { usec = usec << 8 | UInt64(bytes[o + 8 + k]) }
            let type = UInt16(bytes[o + 16]) | UInt16(bytes[o + 17]) << 8
            let code = UInt16(bytes[o + 18]) | UInt16(bytes[o + 19]) << 8
            if usec >= 1_000_000 || type > EV.max || code > 0x2ff { return false }
        }
        return true
    }

    public static func read(_ bytes: [UInt8], file: String, description: DeviceInfo?) throws(CaptureError) -> [CaptureDevice] {
        guard bytes.count % eventSize == 0 else {
            let whole = bytes.count / eventSize
            throw CaptureError(file: file, line: 0, message: "truncated raw dump: \(bytes.count) bytes is not a whole number of \(eventSize)-byte input_events (event \(whole + 1), at byte \(whole * eventSize), is cut short: \(bytes.count - whole * eventSize) bytes)")
        }
        guard let info = description else {
            throw CaptureError(file: file, line: 0, message: "a raw input_event dump carries no device description: give --device-info DESC (an evemu description)")
        }
        var events: [InputEvent] = []
        events.reserveCapacity(bytes.count / eventSize)
        func le(_ o: Int, _ n: Int) -> UInt64 {
            var v: UInt64 = 0
            for k in (0..<n).reversed() { v = v << 8 | UInt64(bytes[o + k]) }
            return v
        }
        var last: Int64 = .min
        for i in 0..<(bytes.count / eventSize) {
            let o = i * eventSize
            let sec = Int64(bitPattern: le(o, 8)), usec = Int64(bitPattern: le(o + 8, 8))
            let type = UInt16(le(o + 16, 2)), code = UInt16(le(o + 18, 2)), value = Int32(bitPattern: UInt32(le(o + 20, 4)))
            guard sec >= 0, sec <= Timestamp.maxSeconds, usec >= 0, usec < 1_000_000, type <= EV.max, code <= 0x2ff else {
                throw CaptureError(file: file, line: 0, message: "event \(i + 1) (byte \(o)) is not a valid input_event: time \(sec).\(usec), type \(type), code \(code)")
            }
            if type == EV.ABS && EvemuReader.requiredAbs.contains(code) && info.abs[code] == nil {
                throw CaptureError(file: file, line: 0, message: "event \(i + 1) (byte \(o)) is on \(EventNames.describe(type: type, code: code)), which the device description does not declare")
            }
            var t = sec * 1_000_000 + usec
            if t < last { t = last }
            last = t
            events.append(InputEvent(time: t, type: type, code: code, value: value))
        }
        return [CaptureDevice(info: info, events: events, id: baseName(file), file: file, format: .raw)]
    }

    /// The bytes of a raw dump for `events` (tests and conversion).
    public static func bytes(_ events: [InputEvent]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(events.count * eventSize)
        func put(_ v: UInt64, _ n: Int) { for k in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) } }
        for e in events {
            put(UInt64(e.time / 1_000_000), 8)
            put(UInt64(e.time % 1_000_000), 8)
            put(UInt64(e.type), 2)
            put(UInt64(e.code), 2)
            put(UInt64(UInt32(bitPattern: e.value)), 4)
        }
        return out
    }
}

/// Android `getevent -lt` logs: `[   1807.354865] /dev/input/event1: EV_ABS ABS_MT_POSITION_X 0000019a`
/// (the device path may be missing when one device was watched). Values are hex (32-bit, so
/// ffffffff is -1). Lines like `add device 1: /dev/input/event1` and `  name: "…"` name devices.
/// Axis ranges come from --device-info or, without it, from the largest values seen (said in a
/// warning).
public enum GeteventReader {
    public static func looks(like bytes: [UInt8]) -> Bool {
        var lines = LineCursor(bytes)
        var checked = 0
        while let r = lines.next(), checked < 20 {
            let text = String(decoding: bytes[r], as: UTF8.self).trimmingSpaces()
            if text.isEmpty || text.hasPrefix("add device") || text.hasPrefix("name:") || text.hasPrefix("could not get") { continue }
            checked += 1
            if text.hasPrefix("[") && text.contains("]") && text.contains("EV_") { return true }
            return false
        }
        return false
    }

    public static func read(_ bytes: [UInt8], file: String, description: DeviceInfo?, warn: (String) -> Void) throws(CaptureError) -> [CaptureDevice] {
        // Per device node, in the order first seen, its events; `slot` finds a node's entry.
        var order: [(node: String, events: [InputEvent])] = []
        var slot: [String: Int] = [:]
        var names: [String: String] = [:]
        var lastAdded: String?
        var lines = LineCursor(bytes)
        while let r = lines.next() {
            let text = String(decoding: bytes[r], as: UTF8.self).trimmingSpaces()
            if text.isEmpty { continue }
            if text.hasPrefix("add device") {
                if let node = text.split(separator: " ").last { lastAdded = String(node) }
                continue
            }
            if text.hasPrefix("name:") {
                if let node = lastAdded {
                    names[node] = String(text.dropFirst(5)).trimmingSpaces().trimmingCharacters(in: "\"")
                }
                continue
            }
            if text.hasPrefix("could not get") { continue }
            guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else {
                throw CaptureError(file: file, line: lines.number, message: "expected '[ seconds] [/dev/input/eventN:] EV_TYPE CODE VALUE', got \"\(text.prefix(60))\"")
            }
            let stamp = String(text[text.index(after: text.startIndex)..<close]).trimmingCharacters(in: " ")
            var fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            var node = "device"
            if let f = fields.first, f.hasSuffix(":") { node = String(f.dropLast()); fields.removeFirst() }
            guard fields.count == 3, let time = micros(stamp),
                  let type = EventNames.type(named: fields[0]) ?? UInt16(fields[0], radix: 16),
                  let code = EventNames.code(type: type, named: fields[1]) ?? UInt16(fields[1], radix: 16),
                  let raw = UInt32(fields[2], radix: 16) else {
                throw CaptureError(file: file, line: lines.number, message: "expected '[ seconds] [/dev/input/eventN:] EV_TYPE CODE VALUE' with a known type and code and a hex value, got \"\(text.prefix(80))\"")
            }
            let k = slot[node] ?? { slot[node] = order.count; order.append((node, [])); return order.count - 1 }()
            order[k].events.append(InputEvent(time: time, type: type, code: code, value: Int32(bitPattern: raw)))
        }
        guard !order.isEmpty else { throw CaptureError(file: file, line: 0, message: "no events in this getevent log") }
        var out: [CaptureDevice] = []
        let base = baseName(file)
        for (k, (node, events)) in order.enumerated() {
            var info: DeviceInfo
            if let d = description, k == 0 {
                info = d
            } else {
                info = infer(events, name: names[node] ?? "getevent \(node)")
                let ranges = info.abs.sorted { $0.key < $1.key }.filter { [ABS.MT_POSITION_X, ABS.MT_POSITION_Y, ABS.X, ABS.Y].contains($0.key) }
                    .map { "\(EventNames.describe(type: EV.ABS, code: $0.key)) 0…\($0.value.maximum)" }
                warn("\(file): \(node): no --device-info, so axis ranges are inferred from the largest values seen (\(ranges.joined(separator: ", "))); give --device-info for exact screen mapping")
            }
            out.append(CaptureDevice(info: info, events: events, id: order.count == 1 ? base : "\(base)#\(k + 1)", file: file, format: .getevent))
        }
        return out
    }

    /// "12.345678" → µs; nil for anything else (empty, signs, seconds past Timestamp.maxSeconds).
    static func micros(_ s: String) -> Int64? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first, !first.isEmpty, first.allSatisfy(\.isASCII),
              let sec = Int64(first), sec >= 0, sec <= Timestamp.maxSeconds else { return nil }
        var us: Int64 = 0
        if parts.count > 1 {
            let frac = String(parts[1].prefix(6))
            guard !frac.isEmpty, frac.allSatisfy({ $0 >= "0" && $0 <= "9" }), let f = Int64(frac) else { return nil }
            us = f
            for _ in frac.count..<6 { us *= 10 }
        }
        return sec * 1_000_000 + us
    }

    /// A description from what the log uses: each axis 0…largest value seen; protocol A when
    /// SYN_MT_REPORT appears, otherwise B (slots 0…largest slot seen).
    static func infer(_ events: [InputEvent], name: String) -> DeviceInfo {
        var codes: [UInt16: Set<UInt16>] = [:]
        var maxima: [UInt16: Int32] = [:]
        var protocolA = false
        for e in events {
            codes[e.type, default: []].insert(e.code)
            if e.type == EV.ABS { maxima[e.code] = max(maxima[e.code] ?? 0, e.value) }
            if e.type == EV.SYN && e.code == SYN.MT_REPORT { protocolA = true }
        }
        var abs: [UInt16: AbsInfo] = [:]
        for (c, m) in maxima where c != ABS.MT_TRACKING_ID && c != ABS.MT_SLOT { abs[c] = AbsInfo(minimum: 0, maximum: max(m, 1)) }
        if maxima[ABS.MT_TRACKING_ID] != nil { abs[ABS.MT_TRACKING_ID] = AbsInfo(minimum: 0, maximum: 65535) }
        if !protocolA && abs[ABS.MT_POSITION_X] != nil { abs[ABS.MT_SLOT] = AbsInfo(minimum: 0, maximum: max(maxima[ABS.MT_SLOT] ?? 0, 0)) }
        var info = DeviceInfo(name: name, properties: [InputProp.direct], codes: codes, abs: [:])
        info.abs = abs
        for c in abs.keys { info.codes[EV.ABS, default: []].insert(c) }
        return info
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
