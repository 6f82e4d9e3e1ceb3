/// Writes JSON bytes directly (the hot path of every message): no Foundation, no intermediate
/// strings for numbers.
public enum JSONWriter {
    
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        // Ids and names rarely need escaping: copied whole when none of their bytes does.
        let plain = s.utf8.withContiguousStorageIfAvailable { buf -> Bool in
            for b in buf where b < 0x20 || b == 0x22 || b == 0x5C { return false }
            out.append(0x22)
            out.append(contentsOf: buf)
            out.append(0x22)
            return true
        }
        if plain == true { return }
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
    /// Digits are written into a small buffer on the stack and appended at once.
    public static func appendDouble(_ v: Double, digits: Int = 3, to out: inout [UInt8]) {
        guard v.isFinite else { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]); return }
        var iscale: UInt64 = 1
        for _ in 0..<digits { iscale *= 10 }
        let scaled = (abs(v) * Double(iscale)).rounded()
        guard scaled < 9.0e15 else {
            // Too large for exact fixed-point: fall back to Swift's shortest representation.
            out.append(contentsOf: Array(v.description.utf8))
            return
        }
        let units = UInt64(scaled)
        var frac = units % iscale
        // Trailing zeros dropped (at least one digit).
        var fracDigits = digits
        while fracDigits > 1 && frac % 10 == 0 { frac /= 10; fracDigits -= 1 }
        appendFixed(whole: units / iscale, frac: frac, fracDigits: fracDigits, negative: v < 0 && units != 0, to: &out)
    }

    /// Kernel time as seconds with exactly six decimals ("1357751031.716015").
    public static func appendTime(_ micros: Int64, to out: inout [UInt8]) {
        let t = micros.magnitude
        appendFixed(whole: t / 1_000_000, frac: t % 1_000_000, fracDigits: 6, negative: micros < 0, to: &out)
    }

    /// "[-]whole.frac" with `frac` written in exactly `fracDigits` digits (leading zeros kept),
    /// right to left into 32 bytes on the stack, then appended at once.
    static func appendFixed(whole: UInt64, frac: UInt64, fracDigits: Int, negative: Bool, to out: inout [UInt8]) {
        var whole = whole, frac = frac
        var buf: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)   // 32 bytes
        withUnsafeMutableBytes(of: &buf) { b in
            var k = 32
            for _ in 0..<fracDigits {
                k -= 1
                b[k] = 0x30 + UInt8(frac % 10)
                frac /= 10
            }
            if fracDigits > 0 {          // no fraction (digits: 0): a whole number, "80", not "80."
                k -= 1
                b[k] = UInt8(ascii: ".")
            }
            repeat {
                k -= 1
                b[k] = 0x30 + UInt8(whole % 10)
                whole /= 10
            } while whole > 0
            if negative {
                k -= 1
                b[k] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[k..<32]))
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
