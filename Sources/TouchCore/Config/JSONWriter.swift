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
        small(&out) { $0.int(v) }
    }

    public static func appendUInt(_ v: UInt, to out: inout [UInt8]) {
        small(&out) { $0.uint(UInt64(v)) }
    }

    /// A number with at most `digits` decimals (rounded), trailing zeros removed but at least
    /// one decimal kept ("41.0", "30.5", "0.125"). Non-finite values are written as null.
    /// (JSONCursor.double formats it, on a small buffer on the stack, appended at once.)
    public static func appendDouble(_ v: Double, digits: Int = 3, to out: inout [UInt8]) {
        small(&out) { $0.double(v, digits: digits) }
    }

    /// Kernel time as seconds with exactly six decimals ("1357751031.716015").
    public static func appendTime(_ micros: Int64, to out: inout [UInt8]) {
        small(&out) { $0.time(micros) }
    }

    public static func appendPoint(_ p: Point, to out: inout [UInt8]) {
        small(&out) { $0.point(p) }
    }

    
    /// A string, or null.
    public static func appendOptionalString(_ s: String?, to out: inout [UInt8]) {
        if let s { appendString(s, to: &out) } else { appendRaw("null", to: &out) }
    }

    public static func appendRaw(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
