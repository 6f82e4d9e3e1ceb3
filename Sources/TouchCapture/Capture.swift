import TouchCore

/// The capture formats touchd reads (`--format` names one; otherwise the content tells).
public enum CaptureFormat: String, CaseIterable, Sendable {
    case evemu, libinput, raw, getevent
}

/// One recorded device: its description and its events in recorded order.
public struct CaptureDevice: Sendable {
    public var info: DeviceInfo
    public var events: [InputEvent]
    /// A short, stable name for messages: the capture file's base name (plus "#2", "#3" … for
    /// further devices in the same file).
    public var id: String
    public var file: String
    public var format: CaptureFormat

    public init(info: DeviceInfo, events: [InputEvent], id: String, file: String, format: CaptureFormat) {
        self.info = info
        self.events = events
        self.id = id
        self.file = file
        self.format = format
    }
}

/// A problem in a capture file, with its place.
public struct CaptureError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public init(file: String, line: Int, message: String) {
        self.file = file; self.line = line; self.message = message
    }
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// Lines of a text file as byte ranges (LF or CRLF), without copying.
/// The largest timestamp any reader accepts: seconds below 10¹² (31,000 years), so that
/// seconds × 10⁶ + microseconds stays far inside Int64. Recordings carry either uptime
/// (getevent, evemu) or the epoch (libinput record, some evemu files: about 1.7 × 10⁹ today).
enum Timestamp {
    static let maxSeconds: Int64 = 999_999_999_999
    static let limitText = "seconds from 0 to 999999999999"
}

struct LineCursor {
    let bytes: [UInt8]
    var start = 0
    var number = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Range<Int>? {
        guard start < bytes.count else { return nil }
        number += 1
        var end = start
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        let lineStart = start
        start = end + 1
        var e = end
        if e > lineStart && bytes[e - 1] == 0x0D { e -= 1 }
        return lineStart..<e
    }
}

/// Small byte-level scanning helpers shared by the text formats.
struct Scanner {
    let bytes: [UInt8]
    var i: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        i = range.lowerBound
        end = range.upperBound
    }

    mutating func skipSpaces() {
        while i < end && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
    }

    /// True at the end of the line or at a trailing "# comment".
    mutating func atLineEnd() -> Bool {
        skipSpaces()
        return i >= end || bytes[i] == UInt8(ascii: "#")
    }

    mutating func hex() -> UInt64? {
        skipSpaces()
        if i + 1 < end && bytes[i] == 0x30 && (bytes[i + 1] == UInt8(ascii: "x") || bytes[i + 1] == UInt8(ascii: "X")) { i += 2 }
        var v: UInt64 = 0
        var n = 0
        while i < end {
            let b = bytes[i]
            let d: UInt64
            switch b {
            case 0x30...0x39: d = UInt64(b - 0x30)
            case 0x61...0x66: d = UInt64(b - 0x61 + 10)
            case 0x41...0x46: d = UInt64(b - 0x41 + 10)
            default: d = 99
            }
            if d == 99 { break }
            if n >= 16 { return nil }
            v = v * 16 + d
            n += 1
            i += 1
        }
        if n == 0 || (i < end && bytes[i] != 0x20 && bytes[i] != 0x09) { return nil }
        return v
    }

    mutating func decimal() -> Int64? {
        skipSpaces()
        var neg = false
        if i < end && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
            neg = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var v: Int64 = 0
        var n = 0
        while i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
            if n >= 18 { return nil }
            v = v * 10 + Int64(bytes[i] - 0x30)
            n += 1
            i += 1
        }
        if n == 0 || (i < end && bytes[i] != 0x20 && bytes[i] != 0x09) { return nil }
        return neg ? -v : v
    }

    /// "<sec>.<frac>" → microseconds (the fraction padded or cut to six digits).
    mutating func timestamp() -> Int64? {
        skipSpaces()
        var sec: Int64 = 0
        var n = 0
        while i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
            if n >= 12 { return nil }   // at most Timestamp.maxSeconds
            sec = sec * 10 + Int64(bytes[i] - 0x30)
            n += 1
            i += 1
        }
        guard n > 0 else { return nil }
        var micros: Int64 = 0
        var digits = 0
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end && bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                if digits < 6 { micros = micros * 10 + Int64(bytes[i] - 0x30); digits += 1 }
                i += 1
            }
            guard digits > 0 else { return nil }
        }
        while digits < 6 { micros *= 10; digits += 1 }
        if i < end && bytes[i] != 0x20 && bytes[i] != 0x09 { return nil }
        return sec * 1_000_000 + micros
    }

    var rest: String {
        String(decoding: bytes[i..<end], as: UTF8.self).trimmingSpaces()
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

func baseName(_ path: String) -> String {
    var name = path.split(separator: "/").last.map(String.init) ?? path
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
    return name
}
