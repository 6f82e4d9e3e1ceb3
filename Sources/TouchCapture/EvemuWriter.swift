import TouchCore
import TouchInput

/// Writes evemu 1.3 recordings (what `evemu-record` writes and `touchd replay` reads): a
/// commented description, the N: I: P: B: A: lines, then `E: sec.usec type code value` with
/// times relative to the first event.
public enum EvemuWriter {
    static func hex2(_ v: Int) -> String {
        let s = String(v, radix: 16)
        return s.count < 2 ? "0" + s : s
    }

    static func hex4(_ v: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// Bitmask bytes for a set of bit numbers, padded to whole 8-byte lines (at least one).
    static func bytes(_ bits: Set<UInt16>) -> [UInt8] {
        let top = Int(bits.max() ?? 0)
        var out = [UInt8](repeating: 0, count: max(8, ((top / 8) / 8 + 1) * 8))
        for b in bits { out[Int(b) / 8] |= UInt8(1 << (Int(b) % 8)) }
        return out
    }

    public static func header(_ info: DeviceInfo, kernel: String? = nil) -> String {
        var s = "# EVEMU 1.3\n"
        if let kernel { s += "# Kernel: \(kernel)\n" }
        s += "# Input device name: \"\(info.name)\"\n"
        s += "# Input device ID: bus 0x\(String(info.bustype, radix: 16)) vendor 0x\(String(info.vendor, radix: 16)) product 0x\(String(info.product, radix: 16)) version 0x\(String(info.version, radix: 16))\n"
        s += "# Supported events:\n"
        for (t, codes) in info.codes.sorted(by: { $0.key < $1.key }) {
            s += "#   Event type \(t) (\(EventNames.typeName(t) ?? "?"))\n"
            for c in codes.sorted() {
                s += "#     Event code \(c) (\(EventNames.codeName(type: t, code: c) ?? "?"))\n"
                if t == EV.ABS, let a = info.abs[c] {
                    s += "#       Value \(a.value)\n#       Min \(a.minimum)\n#       Max \(a.maximum)\n#       Fuzz \(a.fuzz)\n#       Flat \(a.flat)\n#       Resolution \(a.resolution)\n"
                }
            }
        }
        s += "# Properties:\n"
        for p in info.properties.sorted() { s += "#   Property  type \(p) (\(EventNames.propertyName(p) ?? "?"))\n" }
        s += "N: \(info.name)\n"
        s += "I: \(hex4(Int(info.bustype))) \(hex4(Int(info.vendor))) \(hex4(Int(info.product))) \(hex4(Int(info.version)))\n"
        s += "P: " + bytes(info.properties).prefix(8).map { hex2(Int($0)) }.joined(separator: " ") + "\n"
        // EV_SYN's line is the bitmask of event types.
        let types = Set(info.codes.keys)
        var lines: [String] = []
        for t in ([EV.SYN] + types.filter { $0 != EV.SYN }.sorted()) {
            let mask = t == EV.SYN ? bytes(types.union([EV.SYN])) : bytes(info.codes[t] ?? [])
            var k = 0
            while k < mask.count {
                lines.append("B: \(hex2(Int(t))) " + mask[k..<min(k + 8, mask.count)].map { hex2(Int($0)) }.joined(separator: " "))
                k += 8
            }
        }
        s += lines.joined(separator: "\n") + "\n"
        for (c, a) in info.abs.sorted(by: { $0.key < $1.key }) {
            s += "A: \(hex2(Int(c))) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        s += "################################\n#      Waiting for events      #\n################################\n"
        return s
    }

    /// One event line; `time` relative to the recording's start.
    public static func event(_ e: InputEvent, relativeTo start: Int64, into out: inout [UInt8]) {
        out.append(contentsOf: "E: ".utf8)
        JSONWriter.appendTime(max(0, e.time - start), to: &out)
        out.append(contentsOf: " \(hex4(Int(e.type))) \(hex4(Int(e.code))) ".utf8)
        JSONWriter.appendInt(Int(e.value), to: &out)
        if e.type == EV.SYN && e.code == SYN.REPORT {
            out.append(contentsOf: "\t# ------------ SYN_REPORT (0) ----------".utf8)
        } else if let t = EventNames.typeName(e.type), let c = EventNames.codeName(type: e.type, code: e.code) {
            out.append(contentsOf: "\t# \(t) / \(c)".utf8)
        }
        out.append(0x0A)
    }
}
