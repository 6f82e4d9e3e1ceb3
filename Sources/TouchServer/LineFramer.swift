/// Splits a client's byte stream into request lines: without the newline (and a trailing CR),
/// numbered from 1. A line longer than `maxLine` is reported once, as soon as it is known to be
/// too long, and skipped up to its newline without being buffered. Blank lines are counted
/// but not reported. Pure: fed byte chunks as they arrive, however they are split.
public struct LineFramer: Sendable {
    public enum Item: Equatable, Sendable {
        case line([UInt8], number: Int)
        case tooLong(number: Int)
    }

    public let maxLine: Int
    var buffer: [UInt8] = []
    var discarding = false
    /// Lines seen so far (blank and too-long ones included).
    public private(set) var lineNumber = 0

    public init(maxLine: Int) { self.maxLine = maxLine }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [Item]) {
        var start = 0
        while start < bytes.count {
            guard let nl = bytes[start...].firstIndex(of: 0x0A) else {
                if !discarding {
                    buffer.append(contentsOf: bytes[start...])
                    if buffer.count > maxLine {
                        lineNumber += 1
                        out.append(.tooLong(number: lineNumber))
                        buffer.removeAll()
                        discarding = true
                    }
                }
                return
            }
            if discarding {
                discarding = false
            } else {
                buffer.append(contentsOf: bytes[start..<nl])
                lineNumber += 1
                if buffer.count > maxLine {
                    out.append(.tooLong(number: lineNumber))
                } else {
                    if buffer.last == 0x0D { buffer.removeLast() }
                    if !buffer.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { out.append(.line(buffer, number: lineNumber)) }
                }
                buffer.removeAll(keepingCapacity: buffer.capacity <= 4096)
            }
            start = nl + 1
        }
    }

    public mutating func feed(_ bytes: [UInt8], into out: inout [Item]) {
        bytes.withUnsafeBytes { feed($0, into: &out) }
    }

    /// The end of the stream: an unterminated last line counts as a line.
    public mutating func finish(into out: inout [Item]) {
        if !buffer.isEmpty && !discarding { feed([0x0A], into: &out) }
    }
}
