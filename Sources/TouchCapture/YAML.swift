import CLibyaml

/// A YAML document as a tree, read with libyaml (not a hand-written parser): mappings keep
/// their key order, every node knows its line. Only what libinput record files use is
/// needed: mappings, sequences, scalars (aliases are refused).
public indirect enum YAMLNode: Sendable {
    case scalar(String, line: Int)
    case sequence([YAMLNode], line: Int)
    case mapping([(String, YAMLNode)], line: Int)

    public var line: Int {
        switch self {
        case .scalar(_, let l), .sequence(_, let l), .mapping(_, let l): return l
        }
    }

    public subscript(key: String) -> YAMLNode? {
        if case .mapping(let m, _) = self { return m.first { $0.0 == key }?.1 }
        return nil
    }

    public var scalar: String? { if case .scalar(let s, _) = self { return s }; return nil }
    public var items: [YAMLNode]? { if case .sequence(let s, _) = self { return s }; return nil }
    public var pairs: [(String, YAMLNode)]? { if case .mapping(let m, _) = self { return m }; return nil }
    public var int: Int64? {
        guard let s = scalar else { return nil }
        if s.hasPrefix("0x") || s.hasPrefix("0X") { return Int64(s.dropFirst(2), radix: 16) }
        return Int64(s)
    }
}

public enum YAMLReader {
    public static let maxDepth = 64

    /// Parses the first document. Errors carry the line (1-based).
    public static func parse(_ bytes: [UInt8], file: String) throws(CaptureError) -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw CaptureError(file: file, line: 0, message: "libyaml could not start") }
        defer { yaml_parser_delete(&parser) }
        // The typed throw goes out through a Result: Swift 6.0's withUnsafeBufferPointer only
        // rethrows untyped errors (any Error), which parse's throws(CaptureError) cannot pass on.
        let result = bytes.withUnsafeBufferPointer { buf in Result { () throws(CaptureError) -> YAMLNode in
            yaml_parser_set_input_string(&parser, buf.baseAddress, buf.count)
            var stack: [(kind: Int, line: Int, items: [YAMLNode], pairs: [(String, YAMLNode)], key: String?)] = []
            var root: YAMLNode?
            func add(_ node: YAMLNode) throws(CaptureError) {
                guard !stack.isEmpty else { root = node; return }
                var top = stack.removeLast()
                if top.kind == 0 {
                    top.items.append(node)
                } else if let k = top.key {
                    top.pairs.append((k, node))
                    top.key = nil
                } else {
                    guard case .scalar(let k, _) = node else {
                        throw CaptureError(file: file, line: node.line, message: "a mapping key must be a plain value")
                    }
                    top.key = k
                }
                stack.append(top)
            }
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let line = Int(parser.problem_mark.line) + 1
                    let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
                    let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                    throw CaptureError(file: file, line: line, message: "malformed YAML: \(context)\(problem) (column \(parser.problem_mark.column + 1))")
                }
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                switch event.type {
                case YAML_STREAM_END_EVENT, YAML_DOCUMENT_END_EVENT:
                    if let root, stack.isEmpty { return root }
                    if event.type == YAML_STREAM_END_EVENT {
                        throw CaptureError(file: file, line: line, message: "empty YAML document")
                    }
                case YAML_SCALAR_EVENT:
                    let s = String(decoding: UnsafeBufferPointer(start: event.data.scalar.value, count: event.data.scalar.length), as: UTF8.self)
                    try add(.scalar(s, line: line))
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    // libinput record nests five deep; a tree much deeper would cost its depth in
                    // stack when freed (nodes are freed recursively).
                    guard stack.count < YAMLReader.maxDepth else {
                        throw CaptureError(file: file, line: line, message: "YAML nested deeper than \(YAMLReader.maxDepth) levels: not a libinput recording")
                    }
                    stack.append((event.type == YAML_SEQUENCE_START_EVENT ? 0 : 1, line, [], [], nil))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    let top = stack.removeLast()
                    try add(top.kind == 0 ? .sequence(top.items, line: top.line) : .mapping(top.pairs, line: top.line))
                case YAML_ALIAS_EVENT:
                    throw CaptureError(file: file, line: line, message: "YAML aliases are not used by libinput record and not supported")
                default:
                    break
                }
            }
        } }
        return try result.get()
    }
}
