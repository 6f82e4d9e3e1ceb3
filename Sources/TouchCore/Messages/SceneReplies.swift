/// The replies to scene requests as NDJSON lines.
extension SceneReply {
    /// The request was refused (its reply is an error).
    public var isRefusal: Bool {
        if case .refused = self { return true }
        return false
    }

    /// `client` names the requester (offline `replay --scene`); `line` is its request's line on
    /// the socket.
    public func encode(client: String? = nil, line: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        func tail() {
            if let client {
                JSONWriter.appendRaw(",\"client\":", to: &out)
                JSONWriter.appendString(client, to: &out)
            }
            if let line {
                JSONWriter.appendRaw(",\"line\":", to: &out)
                JSONWriter.appendInt(line, to: &out)
            }
            JSONWriter.appendRaw("}\n", to: &out)
        }
        switch self {
        case .attached(let w, let v), .updated(let w, let v):
            if case .attached = self { JSONWriter.appendRaw("{\"type\":\"attached\",\"window\":", to: &out) }
            else { JSONWriter.appendRaw("{\"type\":\"updated\",\"window\":", to: &out) }
            JSONWriter.appendString(w, to: &out)
            JSONWriter.appendRaw(",\"version\":", to: &out)
            JSONWriter.appendInt(v, to: &out)
        case .detached(let w):
            JSONWriter.appendRaw("{\"type\":\"detached\",\"window\":", to: &out)
            JSONWriter.appendString(w, to: &out)
        case .turned(let o):
            // The asker's answer: the output message every subscriber gets, with its line.
            JSONWriter.appendRaw("{\"type\":\"output\",\"output\":", to: &out)
            MessageEncoder.encodeOutput(o, into: &out)
        case .calibration(let m):
            m.encodeOpen(into: &out)
        case .accessibility(let r):
            r.encodeOpen(into: &out)
        case .session(let o, let idle, let keepers):
            JSONWriter.appendRaw("{\"type\":\"session\",\"output\":", to: &out)
            JSONWriter.appendString(o, to: &out)
            JSONWriter.appendRaw(idle ? ",\"idle\":true,\"keepAwake\":" : ",\"idle\":false,\"keepAwake\":", to: &out)
            JSONWriter.appendInt(keepers, to: &out)
        case .refused(let request, let w, let e):
            JSONWriter.appendRaw("{\"type\":\"error\",\"error\":", to: &out)
            JSONWriter.appendString(request + (w.map { " \"\($0)\"" } ?? "") + ": \(e)", to: &out)
            JSONWriter.appendRaw(",\"request\":", to: &out)
            JSONWriter.appendString(request, to: &out)
            if let w {
                JSONWriter.appendRaw(",\"window\":", to: &out)
                JSONWriter.appendString(w, to: &out)
            }
            JSONWriter.appendRaw(",\"path\":", to: &out)
            JSONWriter.appendString(e.path, to: &out)
        }
        tail()
        return out
    }
}
