/// A small JSON reader that keeps what Foundation's JSONSerialization throws away: the line
/// and column of every value, the order of object keys and duplicate keys. Config errors and
/// socket-message errors name their place with it. Nesting depth is bounded so hostile input
/// cannot overflow the stack.

public struct JSONNode: Sendable {
    public indirect enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    public struct Member: Sendable {
        public var key: String
        public var value: JSONNode
        public var line: Int
    }

    public var value: Value
    public var line: Int
    public var column: Int

    public subscript(key: String) -> JSONNode? {
        if case .object(let members) = value {
            return members.first { $0.key == key }?.value
        }
        return nil
    }

    public var typeName: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public var string: String? { if case .string(let s) = value { return s }; return nil }
    public var number: Double? { if case .number(let n) = value { return n }; return nil }
    public var bool: Bool? { if case .bool(let b) = value { return b }; return nil }
    public var array: [JSONNode]? { if case .array(let a) = value { return a }; return nil }
    public var members: [Member]? { if case .object(let m) = value { return m }; return nil }
}

public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line) column \(column): \(message)" }
}

public struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0
    var depth = 0
    public static let maxDepth = 200

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        if p.i < p.bytes.count { throw p.fail("unexpected \(p.describeCurrent()) after the end of the JSON value") }
        return v
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3; lineStart = 3 }
    }

    func fail(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: i - lineStart + 1, message: message)
    }

    func describeCurrent() -> String {
        guard i < bytes.count else { return "end of input" }
        let b = bytes[i]
        if b >= 0x21 && b < 0x7f { return "'\(Character(UnicodeScalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    mutating func skipSpace() {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A { line += 1; i += 1; lineStart = i }
            else if b == 0x20 || b == 0x09 || b == 0x0D { i += 1 }
            else { break }
        }
    }

    mutating func value() throws(JSONSyntaxError) -> JSONNode {
        guard i < bytes.count else { throw fail("unexpected end of input, expected a value") }
        let l = line, c = i - lineStart + 1
        let b = bytes[i]
        switch b {
        case UInt8(ascii: "{"): return JSONNode(value: try object(), line: l, column: c)
        case UInt8(ascii: "["): return JSONNode(value: try array(), line: l, column: c)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try string()), line: l, column: c)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(value: .bool(true), line: l, column: c)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(value: .bool(false), line: l, column: c)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(value: .null, line: l, column: c)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(value: .number(try number()), line: l, column: c)
        default:
            throw fail("unexpected \(describeCurrent()), expected a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for (k, ch) in w.enumerated() {
            if i + k >= bytes.count || bytes[i + k] != ch { throw fail("invalid literal, expected '\(word)'") }
        }
        i += w.count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw fail("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    mutating func object() throws(JSONSyntaxError) -> JSONNode.Value {
        try enter()
        i += 1
        var members: [JSONNode.Member] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(members) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                throw fail("unexpected \(describeCurrent()), expected a string key")
            }
            let keyLine = line
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw fail("unexpected \(describeCurrent()), expected ':' after key \"\(key)\"")
            }
            i += 1
            skipSpace()
            let v = try value()
            members.append(JSONNode.Member(key: key, value: v, line: keyLine))
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of input, expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("unexpected \(describeCurrent()), expected ',' or '}'")
        }
        depth -= 1
        return .object(members)
    }

    mutating func array() throws(JSONSyntaxError) -> JSONNode.Value {
        try enter()
        i += 1
        var items: [JSONNode] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of input, expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw fail("unexpected \(describeCurrent()), expected ',' or ']'")
        }
        depth -= 1
        return .array(items)
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw fail("control character in string (escape it)") }
            if b == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count else { throw fail("unterminated string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    // A valid scalar by now (surrogates are paired or refused above), but say so in the type.
                    guard let u = UnicodeScalar(scalar) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    i -= 1
                    throw fail("invalid escape '\\\(Character(UnicodeScalar(e)))'")
                }
                continue
            }
            out.append(b)
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
        return s
    }

    mutating func number() throws(JSONSyntaxError) -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.i
            while p.i < p.bytes.count, p.bytes[p.i] >= 0x30, p.bytes[p.i] <= 0x39 { p.i += 1 }
            return p.i - s
        }
        let intStart = i
        let n = digits(&self)
        if n == 0 { throw fail("invalid number") }
        if n > 1 && bytes[intStart] == UInt8(ascii: "0") { throw fail("invalid number (leading zero)") }
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            i += 1
            if digits(&self) == 0 { throw fail("invalid number (no digits after '.')") }
        }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            i += 1
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            if digits(&self) == 0 { throw fail("invalid number (no digits in exponent)") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else { throw fail("number out of range") }
        return v
    }
}
