/// The screen reader's requests (docs/protocol.md "Screen reader"): turning it on or off,
/// announcing, and telling it the screen or its layout changed. Parsed here as values with
/// their JSON paths; the engine carries them out (Engine+ScreenReader.swift) under the rule for
/// acting on an output.
public enum AccessibilityRequest: Sendable, Equatable {
    /// `{"screenReader":{"output":ID,"on":true|false}}`.
    case screenReader(output: String, on: Bool)
    /// `{"announce":{"output":ID,"text":…}}`: said at once (UIAccessibility's announcement).
    case announce(output: String, text: String)
    /// `{"accessibilityChanged":{"output":ID,"screen":true}}` (focus to the first element, or
    /// to `focus`, and read it) or `{"…":{"output":ID,"layout":true}}` (the focus stays where it
    /// still can, else as for screen); `focus` names a view of the client's.
    case changed(output: String, screen: Bool, focus: String?)

    public static let names = ["screenReader", "announce", "accessibilityChanged"]

    public var name: String {
        switch self {
        case .screenReader: return "screenReader"
        case .announce: return "announce"
        case .changed: return "accessibilityChanged"
        }
    }

    public var output: String {
        switch self {
        case .screenReader(let o, _), .announce(let o, _), .changed(let o, _, _): return o
        }
    }

    /// Turning the reader and announcing are acting on the output: a client the owners policy
    /// does not name is refused outright. `accessibilityChanged` is also for the owner of a
    /// window on the output (the engine checks that).
    var needsOwnership: Bool {
        if case .changed = self { return false }
        return true
    }
}

/// The answers (each with the request's `line` on the socket).
public enum AccessibilityReply: Sendable, Equatable {
    /// `{"type":"screenReader","output":ID,"on":BOOL}`: as it is now.
    case screenReader(output: String, on: Bool)
    /// `{"type":"announced","output":ID}`.
    case announced(output: String)
    /// `{"type":"accessibilityChanged","output":ID,"focus":VIEW|null}`: where the focus is now.
    case changed(output: String, focus: String?)

    func encodeOpen(into out: inout [UInt8]) {
        switch self {
        case .screenReader(let o, let on):
            JSONWriter.appendRaw("{\"type\":\"screenReader\",\"output\":", to: &out)
            JSONWriter.appendString(o, to: &out)
            JSONWriter.appendRaw(on ? ",\"on\":true" : ",\"on\":false", to: &out)
        case .announced(let o):
            JSONWriter.appendRaw("{\"type\":\"announced\",\"output\":", to: &out)
            JSONWriter.appendString(o, to: &out)
        case .changed(let o, let f):
            JSONWriter.appendRaw("{\"type\":\"accessibilityChanged\",\"output\":", to: &out)
            JSONWriter.appendString(o, to: &out)
            JSONWriter.appendRaw(",\"focus\":", to: &out)
            JSONWriter.appendOptionalString(f, to: &out)
        }
    }

    /// For the daemon's log.
    public var logLine: String {
        switch self {
        case .screenReader(let o, let on): return "screen reader of output \(o) \(on ? "on" : "off")"
        case .announced(let o): return "announced on output \(o)"
        case .changed(let o, let f): return "accessibility changed on output \(o), focus \(f ?? "none")"
        }
    }
}

extension ConfigReader {
    mutating func accessibilityRequest(_ key: String, _ node: JSONNode) -> AccessibilityRequest? {
        switch key {
        case "screenReader":
            guard object(node, "$", allowed: ["output", "on"]) != nil else { return nil }
            let o = requestOutput(node)
            if node["on"] == nil { error("$.on", node, "missing: true or false") }
            guard let on = bool(node["on"], "$.on"), let o else { return nil }
            return .screenReader(output: o, on: on)
        case "announce":
            guard object(node, "$", allowed: ["output", "text"]) != nil else { return nil }
            let o = requestOutput(node)
            if node["text"] == nil { error("$.text", node, "missing: what to say") }
            guard let text = string(node["text"], "$.text"), let o else { return nil }
            if text.isEmpty || text.utf8.count > 1_000 { error("$.text", node["text"], "1 to 1000 bytes of text"); return nil }
            return .announce(output: o, text: text)
        default:
            guard object(node, "$", allowed: ["output", "screen", "layout", "focus"]) != nil else { return nil }
            let o = requestOutput(node)
            let screen = bool(node["screen"], "$.screen") ?? false
            let layout = bool(node["layout"], "$.layout") ?? false
            if screen == layout { error("$", node, "give one of \"screen\": true (a new screen) or \"layout\": true (a change on this one)") }
            let focus = string(node["focus"], "$.focus")
            guard let o, screen != layout else { return nil }
            return .changed(output: o, screen: screen, focus: focus)
        }
    }

    private mutating func requestOutput(_ node: JSONNode) -> String? {
        if node["output"] == nil { error("$.output", node, "missing: the output's id (\"screen\" with a config's screen)") }
        return string(node["output"], "$.output")
    }
}
