/// The frame message — nearly all of a replay's bytes — written through one JSONCursor per
/// message: its size bounded first (fixed text, every number at its widest, every string
/// escaped at its widest), that much reserved once, then written with no check per byte.
extension MessageEncoder {
    /// Fixed text of a touch record at its longest (keys, punctuation, the longest phase,
    /// tool, reason and ignore names) — generous: the writer traps past the bound.
    static let touchTextBound = 512
    /// The numbers of a touch record (id, three points, timestamp, tapCount, pressure, major,
    /// predicted: 13, and one spare) and of one coalesced sample (x, y, time, and its brackets).
    static let touchNumbers = 14
    static let sampleBound = 3 * JSONCursor.numberBound + 8

    func encodeFrame(_ f: FrameMessage, _ out: inout [UInt8]) {
        var bound = 128 + JSONCursor.stringBound(f.device) + touchesBound(f.touches, devices: nil)
        for c in f.calls {
            bound += 64 + JSONCursor.stringBound(scene[c.responder].id) + c.touches.count * (JSONCursor.numberBound + 1)
        }
        JSONWriter.write(into: &out, bound: bound) { w in
            w.raw("{\"type\":\"frame\",\"seq\":")
            w.int(f.seq)
            if let n = f.sub {
                w.raw(",\"sub\":")
                w.int(n)
            }
            w.raw(",\"time\":")
            w.time(f.time)
            w.raw(",\"device\":")
            w.string(f.device)
            w.raw(",\"touches\":")
            writeTouches(f.touches, devices: nil, &w)
            w.raw(",\"calls\":[")
            for (k, c) in f.calls.enumerated() {
                if k > 0 { w.byte(UInt8(ascii: ",")) }
                w.raw("{\"responder\":")
                w.string(scene[c.responder].id)
                w.raw(",\"method\":\"")
                w.raw(c.phase.methodText)
                w.raw("\",\"touches\":[")
                for (j, t) in c.touches.enumerated() {
                    if j > 0 { w.byte(UInt8(ascii: ",")) }
                    w.int(t)
                }
                w.raw("]}")
            }
            w.raw("]}")
        }
    }

    /// A JSON array of touch records; `devices` (same order) adds each touch's device id.
    public func encodeTouches(_ touches: [TouchRecord], devices: [String]?, into out: inout [UInt8]) {
        JSONWriter.write(into: &out, bound: touchesBound(touches, devices: devices)) { w in
            writeTouches(touches, devices: devices, &w)
        }
    }

    func idBound(_ i: ViewIndex?) -> Int { i.map { JSONCursor.stringBound(scene[$0].id) } ?? 4 }

    func touchesBound(_ touches: [TouchRecord], devices: [String]?) -> Int {
        var bound = 2
        for (k, t) in touches.enumerated() {
            bound += MessageEncoder.touchTextBound + MessageEncoder.touchNumbers * JSONCursor.numberBound
            bound += idBound(t.window) + idBound(t.view)
            if let o = t.output { bound += JSONCursor.stringBound(o) }
            if let c = t.coalesced { bound += c.count * MessageEncoder.sampleBound }
            if let devices, k < devices.count { bound += JSONCursor.stringBound(devices[k]) }
        }
        return bound
    }

    func writeID(_ i: ViewIndex?, _ w: inout JSONCursor) {
        if let i { w.string(scene[i].id) } else { w.raw("null") }
    }

    func writeTouches(_ touches: [TouchRecord], devices: [String]?, _ w: inout JSONCursor) {
        w.byte(UInt8(ascii: "["))
        for (k, t) in touches.enumerated() {
            if k > 0 { w.byte(UInt8(ascii: ",")) }
            w.raw("{\"id\":")
            w.int(t.id)
            w.raw(",\"phase\":\"")
            w.raw(t.phase.nameText)
            w.raw("\",\"window\":")
            writeID(t.window, &w)
            w.raw(",\"view\":")
            writeID(t.view, &w)
            if let o = t.output {
                w.raw(",\"output\":")
                w.string(o)
            }
            w.raw(",\"location\":")
            w.point(t.location)
            w.raw(",\"previous\":")
            w.point(t.previous)
            w.raw(",\"locationInView\":")
            w.point(t.locationInView)
            w.raw(",\"timestamp\":")
            w.time(t.timestamp)
            w.raw(",\"tapCount\":")
            w.int(t.tapCount)
            if let p = t.pressure {
                w.raw(",\"pressure\":")
                w.double3(p)
            }
            if let m = t.major {
                w.raw(",\"major\":")
                w.double3(m)
            }
            w.raw(",\"tool\":\"")
            w.raw(t.tool.text)
            w.byte(UInt8(ascii: "\""))
            if let r = t.reason {
                w.raw(",\"reason\":\"")
                w.raw(r.text)
                w.byte(UInt8(ascii: "\""))
            }
            if let p = t.predicted {
                w.raw(",\"predicted\":")
                w.point(p)
            }
            if let samples = t.coalesced {
                w.raw(",\"coalesced\":[")
                for (i, c) in samples.enumerated() {
                    if i == 0 { w.byte(UInt8(ascii: "[")) } else { w.raw(",[") }
                    w.double3(c.location.x)
                    w.byte(UInt8(ascii: ","))
                    w.double3(c.location.y)
                    w.byte(UInt8(ascii: ","))
                    w.time(c.timestamp)
                    w.byte(UInt8(ascii: "]"))
                }
                w.byte(UInt8(ascii: "]"))
            }
            if let ig = t.ignored {
                w.raw(",\"ignored\":\"")
                w.raw(ig.text)
                w.byte(UInt8(ascii: "\""))
            }
            if t.synthesized { w.raw(",\"synthesized\":true") }
            if let devices, k < devices.count {
                w.raw(",\"device\":")
                w.string(devices[k])
            }
            w.byte(UInt8(ascii: "}"))
        }
        w.byte(UInt8(ascii: "]"))
    }
}

/// The names the encoder writes, as static text (no String made or measured per touch); the
/// EncoderTests check each against its String form.
extension Phase {
    var nameText: StaticString {
        switch self {
        case .began: return "began"
        case .moved: return "moved"
        case .stationary: return "stationary"
        case .ended: return "ended"
        case .cancelled: return "cancelled"
        }
    }

    var methodText: StaticString {
        switch self {
        case .began: return "touchesBegan"
        case .moved: return "touchesMoved"
        case .stationary: return "touchesStationary"
        case .ended: return "touchesEnded"
        case .cancelled: return "touchesCancelled"
        }
    }
}

extension Tool {
    var text: StaticString {
        switch self {
        case .finger: return "finger"
        case .pen: return "pen"
        case .palm: return "palm"
        }
    }
}

extension CancelReason {
    var text: StaticString {
        switch self {
        case .deviceRemoved: return "device-removed"
        case .resync: return "resync"
        case .palm: return "palm"
        case .gesture: return "gesture"
        case .viewRemoved: return "view-removed"
        case .windowRemoved: return "window-removed"
        case .clientGone: return "client-gone"
        case .outputChanged: return "output-changed"
        case .calibrating: return "calibrating"
        case .screenReader: return "screen-reader"
        case .shutdown: return "shutdown"
        }
    }
}

extension IgnoreReason {
    var text: StaticString {
        switch self {
        case .multipleTouch: return "multipleTouch"
        case .exclusiveTouch: return "exclusiveTouch"
        }
    }
}
