/// A message for one client about its own windows that is no reply to anything it sent: a
/// window taken from it by a client higher in the policy (`preempted`), or brought into the
/// policy by a reload (`policy`) — issue 40, items 3 and 4. Seen by no other client, unnumbered.
public enum WindowNotice: Sendable, Equatable {
    /// The window is gone (its touches were cancelled, reason `window-removed`).
    case detached(window: String, reason: String)
    /// The window's level was moved into the client's range (its version counts the change).
    case level(window: String, level: Double, version: Int, reason: String)

    /// One NDJSON line; `client` names the client in an offline `replay --scene`.
    public func encode(client: String? = nil) -> [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .detached(let w, let reason):
            JSONWriter.appendRaw("{\"type\":\"detached\",\"window\":", to: &out)
            JSONWriter.appendString(w, to: &out)
            JSONWriter.appendRaw(",\"reason\":", to: &out)
            JSONWriter.appendString(reason, to: &out)
        case .level(let w, let level, let version, let reason):
            JSONWriter.appendRaw("{\"type\":\"updated\",\"window\":", to: &out)
            JSONWriter.appendString(w, to: &out)
            JSONWriter.appendRaw(",\"version\":", to: &out)
            JSONWriter.appendInt(version, to: &out)
            JSONWriter.appendRaw(",\"level\":", to: &out)
            JSONWriter.appendDouble(level, to: &out)
            JSONWriter.appendRaw(",\"reason\":", to: &out)
            JSONWriter.appendString(reason, to: &out)
        }
        if let client {
            JSONWriter.appendRaw(",\"client\":", to: &out)
            JSONWriter.appendString(client, to: &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }
}
