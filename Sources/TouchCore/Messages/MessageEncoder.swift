/// NDJSON encoding of every message, straight into a byte buffer, with the ids of a scene.
public struct MessageEncoder: Sendable {
    public var scene: Scene

    public init(scene: Scene) {
        self.scene = scene
    }

    @inline(__always)
    func raw(_ s: StaticString, _ out: inout [UInt8]) { JSONWriter.appendRaw(s, to: &out) }

    func nodeID(_ i: ViewIndex?, _ out: inout [UInt8]) {
        if let i { JSONWriter.appendString(scene[i].id, to: &out) } else { raw("null", &out) }
    }

    /// Appends the message and a newline.
    public func encode(_ m: Message, into out: inout [UInt8]) {
        switch m {
        case .frame(let f): encodeFrame(f, &out)
        case .control(let c):
            raw("{\"type\":\"control\",\"seq\":", &out)
            JSONWriter.appendInt(c.seq, to: &out)
            sub(c.sub, &out)
            raw(",\"time\":", &out)
            JSONWriter.appendTime(c.time, to: &out)
            raw(",\"control\":", &out)
            nodeID(c.control, &out)
            raw(",\"event\":", &out)
            JSONWriter.appendString(c.event.rawValue, to: &out)
            raw(",\"touch\":", &out)
            JSONWriter.appendInt(c.touch, to: &out)
            raw(c.synthesized ? ",\"synthesized\":true}" : "}", &out)
        case .device(let d):
            raw("{\"type\":\"device\",\"seq\":", &out)
            JSONWriter.appendInt(d.seq, to: &out)
            raw(",\"time\":", &out)
            JSONWriter.appendTime(d.time, to: &out)
            raw(",\"action\":", &out)
            JSONWriter.appendString(d.action.rawValue, to: &out)
            raw(",\"device\":", &out)
            MessageEncoder.encodeDevice(d.device, into: &out)
            raw("}", &out)
        case .hitTest(let h):
            raw("{\"type\":\"hitTest\",\"time\":", &out)
            JSONWriter.appendTime(h.time, to: &out)
            raw(",\"touch\":", &out)
            JSONWriter.appendInt(h.touch, to: &out)
            raw(",\"window\":", &out)
            nodeID(h.window, &out)
            raw(",\"point\":", &out)
            JSONWriter.appendPoint(h.point, to: &out)
            raw(",\"trace\":", &out)
            encodeTrace(h.trace, &out)
            raw(",\"view\":", &out)
            nodeID(h.view, &out)
            raw("}", &out)
        case .gesture(let g):
            raw("{\"type\":\"gesture\",\"seq\":", &out)
            JSONWriter.appendInt(g.seq, to: &out)
            sub(g.sub, &out)
            raw(",\"time\":", &out)
            JSONWriter.appendTime(g.time, to: &out)
            raw(",\"recognizer\":", &out)
            JSONWriter.appendString(g.recognizer, to: &out)
            raw(",\"kind\":", &out)
            JSONWriter.appendString(g.kind.rawValue, to: &out)
            raw(",\"view\":", &out)
            nodeID(g.view, &out)
            raw(",\"state\":", &out)
            JSONWriter.appendString(g.state.rawValue, to: &out)
            raw(",\"touches\":[", &out)
            for (k, t) in g.touches.enumerated() {
                if k > 0 { raw(",", &out) }
                JSONWriter.appendInt(t, to: &out)
            }
            raw("],\"location\":", &out)
            JSONWriter.appendPoint(g.location, to: &out)
            for (key, value) in g.values.fields {
                raw(",", &out)
                JSONWriter.appendString(key, to: &out)
                raw(":", &out)
                switch value {
                case .number(let n): JSONWriter.appendDouble(n, digits: 4, to: &out)
                case .integer(let n): JSONWriter.appendInt(n, to: &out)
                case .point(let p): JSONWriter.appendPoint(p, to: &out)
                case .string(let s): JSONWriter.appendString(s, to: &out)
                }
            }
            raw(g.synthesized ? ",\"synthesized\":true}" : "}", &out)
        case .output(let o):
            raw("{\"type\":\"output\",\"seq\":", &out)
            JSONWriter.appendInt(o.seq, to: &out)
            raw(",\"time\":", &out)
            JSONWriter.appendTime(o.time, to: &out)
            raw(",\"output\":", &out)
            MessageEncoder.encodeOutput(o.output, into: &out)
            raw("}", &out)
        case .headphones(let h):
            raw("{\"type\":\"headphones\",\"seq\":", &out)
            JSONWriter.appendInt(h.seq, to: &out)
            raw(",\"time\":", &out)
            JSONWriter.appendTime(h.time, to: &out)
            raw(",\"output\":", &out)
            JSONWriter.appendString(h.output, to: &out)
            raw(h.plugged ? ",\"plugged\":true,\"source\":" : ",\"plugged\":false,\"source\":", &out)
            JSONWriter.appendString(h.source, to: &out)
            raw("}", &out)
        case .idle(let i): encodeSession("idle", i, &out)
        case .wake(let w): encodeSession("wake", w, &out)
        case .systemGesture(let g): encodeSystemGesture(g, &out)
        case .scroll(let s):
            raw("{\"type\":\"scroll\",\"seq\":", &out)
            JSONWriter.appendInt(s.seq, to: &out)
            sub(s.sub, &out)
            raw(",\"time\":", &out)
            JSONWriter.appendTime(s.time, to: &out)
            raw(",\"view\":", &out)
            nodeID(s.view, &out)
            raw(",\"offset\":", &out)
            JSONWriter.appendPoint(s.offset, to: &out)
            raw(s.dragging ? ",\"dragging\":true" : ",\"dragging\":false", &out)
            raw(s.decelerating ? ",\"decelerating\":true" : ",\"decelerating\":false", &out)
            raw("}", &out)
        case .accessibility(let a): encodeAccessibility(a, &out)
        }
        out.append(0x0A)
    }

    /// `{"id":…,"width":…,"height":…,"rotation":…}`: width and height in the natural orientation.
    public static func encodeOutput(_ o: Output, into out: inout [UInt8]) {
        JSONWriter.appendRaw("{\"id\":", to: &out)
        JSONWriter.appendString(o.id, to: &out)
        JSONWriter.appendRaw(",\"width\":", to: &out)
        JSONWriter.appendDouble(o.size.width, to: &out)
        JSONWriter.appendRaw(",\"height\":", to: &out)
        JSONWriter.appendDouble(o.size.height, to: &out)
        JSONWriter.appendRaw(",\"rotation\":", to: &out)
        JSONWriter.appendInt(o.rotation.rawValue, to: &out)
        JSONWriter.appendRaw("}", to: &out)
    }

    public static func encodeDevice(_ d: DeviceDescriptor, into out: inout [UInt8]) {
        JSONWriter.appendRaw("{\"id\":", to: &out)
        JSONWriter.appendString(d.id, to: &out)
        JSONWriter.appendRaw(",\"name\":", to: &out)
        JSONWriter.appendString(d.name, to: &out)
        JSONWriter.appendRaw(",\"vendor\":", to: &out)
        JSONWriter.appendInt(d.vendor, to: &out)
        JSONWriter.appendRaw(",\"product\":", to: &out)
        JSONWriter.appendInt(d.product, to: &out)
        JSONWriter.appendRaw(",\"protocol\":", to: &out)
        JSONWriter.appendString(d.touchProtocol.rawValue, to: &out)
        JSONWriter.appendRaw(",\"slots\":", to: &out)
        JSONWriter.appendInt(d.slots, to: &out)
        JSONWriter.appendRaw("}", to: &out)
    }

    /// `,"sub":N` after a private window's message's `seq`.
    @inline(__always)
    func sub(_ n: Int?, _ out: inout [UInt8]) {
        guard let n else { return }
        raw(",\"sub\":", &out)
        JSONWriter.appendInt(n, to: &out)
    }

    public func encodeTrace(_ trace: [HitStep], _ out: inout [UInt8]) {
        raw("[", &out)
        for (k, s) in trace.enumerated() {
            if k > 0 { raw(",", &out) }
            if case .omitted(let n) = s.kind {
                raw("{\"step\":\"omitted\",\"count\":", &out)
                JSONWriter.appendInt(n, to: &out)
                raw("}", &out)
                continue
            }
            raw("{\"view\":", &out)
            nodeID(s.view, &out)
            switch s.kind {
            case .hitTest:
                raw(",\"step\":\"hitTest\"}", &out)
            case .gate(let g):
                raw(",\"step\":\"gate\",\"result\":", &out)
                JSONWriter.appendString(g.rawValue, to: &out)
                raw("}", &out)
            case .pointInside(let b):
                raw(",\"step\":\"pointInside\",\"result\":", &out)
                if b { raw("true}", &out) } else { raw("false}", &out) }
            case .result(let r):
                raw(",\"step\":\"return\",\"result\":", &out)
                nodeID(r, &out)
                raw("}", &out)
            case .omitted:
                break
            }
        }
        raw("]", &out)
    }
}
