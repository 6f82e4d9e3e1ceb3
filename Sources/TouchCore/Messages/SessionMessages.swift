/// The kiosk session's messages (interface.md, "Kiosk session"; docs/messages.md): an output
/// going idle or waking, which every subscriber is told, and a system gesture recognized, which
/// only the clients its `to` names are told — not numbered, so that the others find no gap in
/// their `seq` and every other message is the same as without it.

/// `{"type":"idle"|"wake","seq":N,"time":T,"output":ID}`.
public struct SessionMessage: Sendable, Equatable {
    public var seq: Int
    public var time: Int64
    public var output: String
    public init(seq: Int = 0, time: Int64, output: String) { self.seq = seq; self.time = time; self.output = output }
}

/// `{"type":"systemGesture","name":NAME,"output":ID,"time":T}`.
public struct SystemGestureMessage: Sendable, Equatable {
    public var time: Int64
    public var name: String
    public var output: String
    public init(time: Int64, name: String, output: String) { self.time = time; self.name = name; self.output = output }
}

extension Message {
    /// Takes no `seq` (Outbox): a hit test (its touch's frame has one) and a system gesture
    /// (seen by some clients only).
    var isUnnumbered: Bool {
        switch self {
        case .hitTest, .systemGesture: return true
        default: return false
        }
    }
}

extension MessageEncoder {
    func encodeSession(_ type: StaticString, _ m: SessionMessage, _ out: inout [UInt8]) {
        raw("{\"type\":\"", &out)
        raw(type, &out)
        raw("\",\"seq\":", &out)
        JSONWriter.appendInt(m.seq, to: &out)
        raw(",\"time\":", &out)
        JSONWriter.appendTime(m.time, to: &out)
        raw(",\"output\":", &out)
        JSONWriter.appendString(m.output, to: &out)
        raw("}", &out)
    }

    func encodeSystemGesture(_ g: SystemGestureMessage, _ out: inout [UInt8]) {
        raw("{\"type\":\"systemGesture\",\"name\":", &out)
        JSONWriter.appendString(g.name, to: &out)
        raw(",\"output\":", &out)
        JSONWriter.appendString(g.output, to: &out)
        raw(",\"time\":", &out)
        JSONWriter.appendTime(g.time, to: &out)
        raw("}", &out)
    }
}
