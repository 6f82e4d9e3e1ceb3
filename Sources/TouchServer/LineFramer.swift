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
                lineNumber += 1
                if buffer.count + (nl - start) > maxLine {
                    out.append(.tooLong(number: lineNumber))
                    buffer = []
                } else {
                    // Each line gets storage of its own size: a line held in the backlog must
                    // not keep the (larger) buffer a long earlier line made.
                    var line: [UInt8]
                    if buffer.isEmpty {
                        line = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<nl]))
                    } else {
                        buffer.append(contentsOf: bytes[start..<nl])
                        line = buffer.withUnsafeBytes { Array($0) }
                        buffer = []
                    }
                    if line.last == 0x0D { line.removeLast() }
                    if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { out.append(.line(line, number: lineNumber)) }
                }
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
