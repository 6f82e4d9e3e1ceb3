import TouchCore
import TouchCapture

/// Command lines, written by hand (swift-argument-parser cannot be fetched here) in its shape:
/// each command is a type whose option table drives both the parsing of argv into a value and
/// its `--help`; the value is checked, then run.

public struct UsageError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One option: its names, the placeholder of its value (nil for a flag), its help, and what it
/// does to the command.
package struct Option<C> {
    let names: [String]
    let value: String?
    let help: String
    var required = false
    var repeatable = false
    let apply: (inout C, String) throws(UsageError) -> Void

    package init(_ names: [String], value: String? = nil, help: String, required: Bool = false, repeatable: Bool = false,
         apply: @escaping (inout C, String) throws(UsageError) -> Void) {
        self.names = names
        self.value = value
        self.help = help
        self.required = required
        self.repeatable = repeatable
        self.apply = apply
    }

    /// "--config FILE" (the first name, as in the usage line).
    var usage: String { value.map { "\(names[0]) \($0)" } ?? names[0] }
}

package protocol Command {
    static var name: String { get }
    static var summary: String { get }
    /// What the command does, for --help (between the usage line and the options).
    static var about: String { get }
    static var options: [Option<Self>] { get }
    /// The operands in the usage line ("CAPTURE...", "X Y"); "" for none.
    static var operands: String { get }
    /// A "-" followed by a digit is an operand, not an option (negative coordinates).
    static var takesNegativeNumbers: Bool { get }
    /// How a user types it: "touchd NAME" (touchd-bench, a program of its own, says so).
    static var invocation: String { get }
    init()
    /// Takes the operands and checks what single options cannot.
    mutating func validate(operands: [String]) throws(UsageError)
    func run() throws(CommandFailure) -> Int32
}

extension Command {
    package static var takesNegativeNumbers: Bool { false }
    package static var invocation: String { "touchd \(name)" }

    /// argv (after the command's name) → a checked command.
    package static func parse(_ args: [String]) throws(UsageError) -> Self {
        var command = Self()
        var operands: [String] = []
        var given = Set<String>()
        var i = 0
        var onlyOperands = false
        while i < args.count {
            let a = args[i]
            i += 1
            let negative = takesNegativeNumbers && a.count > 1 && decimal(a) != nil
            if onlyOperands || !a.hasPrefix("-") || a == "-" || negative {
                operands.append(a)
                continue
            }
            if a == "--" { onlyOperands = true; continue }
            var name = a
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else { throw UsageError("unknown option \(name)") }
            var value = ""
            if option.value != nil {
                if let inline { value = inline } else {
                    guard i < args.count else { throw UsageError("\(name) needs a value") }
                    value = args[i]
                    i += 1
                }
            } else if inline != nil {
                throw UsageError("\(name) takes no value")
            }
            try option.apply(&command, value)
            given.insert(option.names[0])
        }
        for option in options where option.required && !given.contains(option.names[0]) {
            throw UsageError("\(option.usage) is required")
        }
        try command.validate(operands: operands)
        return command
    }

    /// The usage line, wrapped under the command's name.
    static var usage: String {
        let head = "usage: \(invocation) "
        var parts = options.map { o -> String in
            var s = o.required ? o.usage : "[\(o.usage)]"
            if o.repeatable { s += "..." }
            return s
        }
        if !operands.isEmpty { parts.append(operands) }
        var lines: [String] = []
        var line = head
        for p in parts {
            if line.count + p.count > 96 && line.count > head.count {
                lines.append(String(line.dropLast()))
                line = String(repeating: " ", count: head.count)
            }
            line += p + " "
        }
        lines.append(String(line.dropLast()))
        return lines.joined(separator: "\n")
    }

    /// The whole --help text: usage, what it does, every option.
    package static var help: String {
        var s = usage + "\n\n" + about + "\n\noptions:\n"
        let all = options.map { o in (o.names.map { n in o.value.map { "\(n) \($0)" } ?? n }.joined(separator: ", "), o.help) }
            + [("--help, -h", "show this help")]
        let width = min(all.map(\.0.count).max() ?? 0, 24)
        for (names, text) in all {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            if names.count > width {
                s += "  \(names)\n" + lines.map { String(repeating: " ", count: width + 4) + $0 }.joined(separator: "\n") + "\n"
            } else {
                let pad = String(repeating: " ", count: width - names.count + 2)
                s += "  \(names)\(pad)" + lines.enumerated().map { k, l in
                    k == 0 ? String(l) : String(repeating: " ", count: width + 4) + l
                }.joined(separator: "\n") + "\n"
            }
        }
        return s
    }
}

/// Options several commands share, defined once.
extension Option {
    static func config(_ path: WritableKeyPath<C, String>, required: Bool,
                       help: String = "the JSON configuration (scene, devices, screen)") -> Option {
        Option(["--config", "-c"], value: "FILE", help: help, required: required) { c, v throws(UsageError) in c[keyPath: path] = v }
    }

    static func optionalConfig(_ path: WritableKeyPath<C, String?>, help: String) -> Option {
        Option(["--config", "-c"], value: "FILE", help: help) { c, v throws(UsageError) in c[keyPath: path] = v }
    }

    /// The levels, least severe first, as the help names them.
    static var levelNames: String { "debug, info, notice, warning or error" }

    static func logLevel(_ path: WritableKeyPath<C, LogLevel>, defaultLevel: LogLevel) -> Option {
        Option(["--log-level"], value: "LEVEL", help: "the least shown: \(levelNames) (default \(defaultLevel)); logs go to stderr") { c, v throws(UsageError) in
            guard let level = LogLevel(name: v) else { throw UsageError("unknown log level \"\(v)\" (expected \(levelNames))") }
            c[keyPath: path] = level
        }
    }

    static func deviceInfo(_ path: WritableKeyPath<C, [String]>) -> Option {
        Option(["--device-info"], value: "DESC", help: "the evemu description for a header-less or raw capture;\ngive it once per such capture, in order", repeatable: true) { c, v throws(UsageError) in
            c[keyPath: path].append(v)
        }
    }

    static func format(_ path: WritableKeyPath<C, CaptureFormat?>, formats: [CaptureFormat] = CaptureFormat.allCases, help: String? = nil) -> Option {
        let names = formats.map(\.rawValue).joined(separator: ", ")
        return Option(["--format"], value: "FORMAT", help: help ?? "skip detection: \(names)") { c, v throws(UsageError) in
            guard let f = CaptureFormat(rawValue: v), formats.contains(f) else { throw UsageError("unknown format \"\(v)\" (expected one of: \(names))") }
            c[keyPath: path] = f
        }
    }

    /// The largest input file read: bytes, or with K, M or G.
    static func maxInputSize(_ path: WritableKeyPath<C, Int>) -> Option {
        Option(["--max-input-size"], value: "BYTES", help: "refuse input files larger than this (K, M or G; default 256M)") { c, v throws(UsageError) in
            var digits = Substring(v)
            var scale = 1
            if let last = digits.last, let s = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30][String(last).uppercased()] {
                scale = s
                digits = digits.dropLast()
            }
            guard let n = Int(digits), n > 0, n <= (1 << 40) / scale else {
                throw UsageError("--max-input-size: expected a size such as 512M, got \"\(v)\"")
            }
            c[keyPath: path] = n * scale
        }
    }

    static func flag(_ names: [String], help: String, _ path: WritableKeyPath<C, Bool>) -> Option {
        Option(names, help: help) { c, _ throws(UsageError) in c[keyPath: path] = true }
    }

    static func string(_ names: [String], value: String, help: String, _ path: WritableKeyPath<C, String>) -> Option {
        Option(names, value: value, help: help) { c, v throws(UsageError) in c[keyPath: path] = v }
    }

    /// A whole number within bounds.
    package static func count(_ names: [String], value: String = "N", help: String, range: ClosedRange<Int>,
                      _ path: WritableKeyPath<C, Int>) -> Option {
        Option(names, value: value, help: help) { c, v throws(UsageError) in
            guard let n = Int(v), range.contains(n) else {
                throw UsageError("\(names[0]) needs a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(v)\"")
            }
            c[keyPath: path] = n
        }
    }
}

/// A number argument, finite.
func number(_ v: String, for option: String) throws(UsageError) -> Double {
    guard let d = decimal(v) else { throw UsageError("\(option) needs a number, got \"\(v)\"") }
    return d
}

/// A decimal number as people write it: an optional minus, digits, an optional fraction and
/// exponent. Not Swift's Double(String), which also takes "0x10" (16), "inf" and "nan".
func decimal(_ s: String) -> Double? {
    let b = Array(s.utf8)
    var i = 0
    func digits() -> Int {
        let start = i
        while i < b.count && b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
        return i - start
    }
    if i < b.count && b[i] == UInt8(ascii: "-") { i += 1 }
    var count = digits()
    if i < b.count && b[i] == UInt8(ascii: ".") { i += 1; count += digits() }
    guard count > 0 else { return nil }
    if i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
        i += 1
        if i < b.count && (b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+")) { i += 1 }
        guard digits() > 0 else { return nil }
    }
    guard i == b.count, let d = Double(s), d.isFinite else { return nil }
    return d
}
