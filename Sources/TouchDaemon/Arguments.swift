/// argv parsing, written by hand (swift-argument-parser cannot be fetched here): each command
/// turns its arguments into a value first, then runs.

public struct UsageError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public struct ArgumentList {
    var items: [String]
    public var positionals: [String] = []
    var index = 0

    public init(_ items: [String]) { self.items = items }

    /// Walks the list, calling `handle` for each option ("--x", "--x=v"); positionals are kept.
    /// `handle` returns false for an unknown option.
    public mutating func parse(_ handle: (String, inout ArgumentList) throws(UsageError) -> Bool) throws(UsageError) {
        var onlyPositionals = false
        while index < items.count {
            let a = items[index]
            index += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = a
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                items.insert(String(a[a.index(after: eq)...]), at: index)
            }
            if !(try handle(name, &self)) {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    /// The value after an option.
    public mutating func value(for option: String) throws(UsageError) -> String {
        guard index < items.count else { throw UsageError("\(option) needs a value") }
        let v = items[index]
        index += 1
        return v
    }

    public mutating func number(for option: String) throws(UsageError) -> Double {
        let v = try value(for: option)
        guard let d = Double(v), d.isFinite else { throw UsageError("\(option) needs a number, got \"\(v)\"") }
        return d
    }
}
