/// Writes JSON bytes into memory reserved beforehand, with no capacity check per byte: the
/// encoder's hot path (a frame message is ~4 KiB of mostly numbers). `JSONWriter.write(into:
/// bound:)` reserves `bound` bytes at the end of an array, hands a cursor over them, and keeps
/// what it wrote; the caller's bound must cover the worst case of every field (each number
/// fits in `JSONCursor.numberBound` bytes, a string in `stringBound(_:)`), and a bound
/// exceeded traps (precondition) rather than writing past it unnoticed.
///
/// This is the one place numbers are formatted: JSONWriter's appendInt/appendTime/appendDouble
/// write through a cursor over a small buffer on the stack, so every message — cursor-written
/// or not — formats a number the same way.
public struct JSONCursor {
    @usableFromInline var p: UnsafeMutablePointer<UInt8>

    @inlinable init(_ p: UnsafeMutablePointer<UInt8>) { self.p = p }

    /// The most bytes any number takes: "-9223372036854775808" (20), a time's 13 + 1 + 6 and a
    /// sign, a double's shortest form ("-1.7976931348623157e+308", 24).
    public static let numberBound = 32

    /// The most bytes a string takes escaped: every byte as \u00XX, and the quotes.
    @inlinable public static func stringBound(_ s: String) -> Int { s.utf8.count * 6 + 2 }

    @inlinable @inline(__always)
    mutating func byte(_ b: UInt8) {
        p.pointee = b
        p += 1
    }

    @inlinable @inline(__always)
    mutating func raw(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        UnsafeMutableRawPointer(p).copyMemory(from: s.utf8Start, byteCount: n)
        p += n
    }

    @inlinable @inline(__always)
    mutating func bytes(_ b: UnsafeRawBufferPointer) {
        guard let base = b.baseAddress else { return }
        UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: b.count)
        p += b.count
    }

    /// Decimal digits, no sign: the digit count first, then written right to left in place.
    @usableFromInline
    mutating func uint(_ v: UInt64) {
        var n = 1
        var t = v
        while t >= 10 { t /= 10; n += 1 }
        var v = v
        var k = n
        repeat {
            k -= 1
            p[k] = 0x30 + UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        } while k > 0
        p += n
    }

    @usableFromInline
    mutating func int(_ v: Int) {
        if v < 0 { byte(UInt8(ascii: "-")) }
        uint(UInt64(v.magnitude))
    }

    /// "[-]whole.frac", `frac` in exactly `fracDigits` digits (leading zeros kept); no point
    /// when `fracDigits` is 0.
    @usableFromInline
    mutating func fixed(whole: UInt64, frac: UInt64, fracDigits: Int, negative: Bool) {
        if negative { byte(UInt8(ascii: "-")) }
        uint(whole)
        guard fracDigits > 0 else { return }
        byte(UInt8(ascii: "."))
        var f = frac
        var k = fracDigits
        repeat {
            k -= 1
            p[k] = 0x30 + UInt8(truncatingIfNeeded: f % 10)
            f /= 10
        } while k > 0
        p += fracDigits
    }

    /// Kernel time as seconds with exactly six decimals ("1357751031.716015").
    @usableFromInline
    mutating func time(_ micros: Int64) {
        let t = micros.magnitude
        fixed(whole: t / 1_000_000, frac: t % 1_000_000, fracDigits: 6, negative: micros < 0)
    }

    /// A number with at most `digits` decimals (rounded half away from zero), trailing zeros
    /// removed but at least one decimal kept ("41.0", "30.5", "0.125"); no point with `digits`
    /// 0 ("80"). A value that rounds to zero is "0.0", never "-0.0". Non-finite: null. Too large
    /// for exact fixed point (≥ 9e15 units): Swift's shortest form.
    @usableFromInline
    mutating func double(_ v: Double, digits: Int) {
        if digits == 3 { double3(v); return }
        var scale: UInt64 = 1
        for _ in 0..<max(digits, 0) { scale &*= 10 }
        fixedPoint(v, scale: scale, digits: digits)
    }

    /// `double(v, digits: 3)`, every coordinate's: the scale a constant, so its divisions are
    /// multiplications.
    @usableFromInline
    mutating func double3(_ v: Double) { fixedPoint(v, scale: 1000, digits: 3) }

    @inline(__always)
    mutating func fixedPoint(_ v: Double, scale: UInt64, digits: Int) {
        guard v.isFinite else { raw("null"); return }
        let scaled = (abs(v) * Double(scale)).rounded()
        guard scaled < 9.0e15 else {
            var d = v.description
            d.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
            return
        }
        let units = UInt64(scaled)
        var frac = units % scale
        var fracDigits = digits
        while fracDigits > 1 && frac % 10 == 0 { frac /= 10; fracDigits -= 1 }
        fixed(whole: units / scale, frac: frac, fracDigits: fracDigits, negative: v < 0 && units != 0)
    }

    /// `[x,y]` with three decimals each.
    @inlinable
    mutating func point(_ q: Point) {
        byte(UInt8(ascii: "["))
        double3(q.x)
        byte(UInt8(ascii: ","))
        double3(q.y)
        byte(UInt8(ascii: "]"))
    }

    /// A JSON string: copied whole when none of its bytes needs escaping.
    @usableFromInline
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { buf in
            for b in buf where b < 0x20 || b == 0x22 || b == 0x5C {
                escaped(buf)
                return
            }
            byte(0x22)
            bytes(UnsafeRawBufferPointer(buf))
            byte(0x22)
        }
    }

    @usableFromInline
    mutating func escaped(_ buf: UnsafeBufferPointer<UInt8>) {
        byte(0x22)
        for b in buf {
            switch b {
            case 0x22: byte(0x5C); byte(0x22)
            case 0x5C: byte(0x5C); byte(0x5C)
            case 0x0A: byte(0x5C); byte(UInt8(ascii: "n"))
            case 0x0D: byte(0x5C); byte(UInt8(ascii: "r"))
            case 0x09: byte(0x5C); byte(UInt8(ascii: "t"))
            case 0..<0x20:
                raw("\\u00")
                byte(JSONWriter.hexDigit(b >> 4))
                byte(JSONWriter.hexDigit(b & 0xF))
            default: byte(b)
            }
        }
        byte(0x22)
    }
}

extension JSONWriter {
    /// Runs `body` with a cursor over `bound` bytes reserved at the end of `out`, and keeps the
    /// bytes it wrote (at most `bound`: more traps).
    @inlinable
    public static func write(into out: inout [UInt8], bound: Int, _ body: (inout JSONCursor) -> Void) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: bound))
        let used = out.withUnsafeMutableBufferPointer { b -> Int in
            let base = b.baseAddress! + start
            var c = JSONCursor(base)
            body(&c)
            return c.p - base
        }
        precondition(used <= bound, "JSONCursor: wrote \(used) bytes into \(bound) reserved")
        out.removeLast(bound - used)
    }

    /// A short piece (at most 64 bytes: one number) written through a cursor on the stack.
    @inlinable
    static func small(_ out: inout [UInt8], _ body: (inout JSONCursor) -> Void) {
        var buf: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &buf) { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var c = JSONCursor(base)
            body(&c)
            out.append(contentsOf: UnsafeBufferPointer(start: base, count: c.p - base))
        }
    }
}
