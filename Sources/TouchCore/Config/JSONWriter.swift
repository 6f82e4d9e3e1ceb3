/// Writes JSON bytes directly (the hot path of every message): no Foundation, no intermediate
/// strings for numbers.
public enum JSONWriter {
    
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigit(b >> 4))
                out.append(hexDigit(b & 0xF))
            default: out.append(b)
            }
        }
        out.append(0x22)
    }

    
    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }

    
    public static func appendInt(_ v: Int, to out: inout [UInt8]) {
        if v < 0 {
            out.append(UInt8(ascii: "-"))
            if v == Int.min { out.append(contentsOf: Array("9223372036854775808".utf8)); return }
            appendUInt(UInt(-v), to: &out)
        } else {
            appendUInt(UInt(v), to: &out)
        }
    }

    
    public static func appendUInt(_ v: UInt, to out: inout [UInt8]) {
        if v < 10 { out.append(0x30 + UInt8(v)); return }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = v
        var count = 0
        withUnsafeMutableBytes(of: &tmp) { buf in
            while n > 0 {
                buf[19 - count] = 0x30 + UInt8(n % 10)
                n /= 10
                count += 1
            }
            out.append(contentsOf: buf[(20 - count)...])
        }
    }

    /// A number with at most `digits` decimals (rounded), trailing zeros removed but at least
    /// one decimal kept ("41.0", "30.5", "0.125"). Non-finite values are written as null.
    
    public static func appendDouble(_ v: Double, digits: Int = 3, to out: inout [UInt8]) {
        guard v.isFinite else { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]); return }
        var scale: Double = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.0e15 else {
            // Too large for exact fixed-point: fall back to Swift's shortest representation.
            out.append(contentsOf: Array(v.description.utf8))
            return
        }
        var units = UInt64(scaled)
        let iscale = UInt64(scale)
        if v < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        appendUInt(UInt(units / iscale), to: &out)
        out.append(UInt8(ascii: "."))
        units %= iscale
        if units == 0 { out.append(0x30); return }
        var div = iscale / 10
        var remaining = units
        while remaining > 0 && div > 0 {
            out.append(0x30 + UInt8(remaining / div))
            remaining %= div
            div /= 10
        }
    }

    /// Kernel time as seconds with exactly six decimals ("1357751031.716015").
    
    public static func appendTime(_ micros: Int64, to out: inout [UInt8]) {
        var t = micros
        if t < 0 { out.append(UInt8(ascii: "-")); t = -t }
        appendUInt(UInt(t / 1_000_000), to: &out)
        out.append(UInt8(ascii: "."))
        var frac = Int(t % 1_000_000)
        var div = 100_000
        for _ in 0..<6 {
            out.append(0x30 + UInt8(frac / div))
            frac %= div
            div /= 10
        }
    }

    
    public static func appendPoint(_ p: Point, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        appendDouble(p.x, to: &out)
        out.append(UInt8(ascii: ","))
        appendDouble(p.y, to: &out)
        out.append(UInt8(ascii: "]"))
    }

    
    /// A string, or null.
    public static func appendOptionalString(_ s: String?, to out: inout [UInt8]) {
        if let s { appendString(s, to: &out) } else { appendRaw("null", to: &out) }
    }

    public static func appendRaw(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
