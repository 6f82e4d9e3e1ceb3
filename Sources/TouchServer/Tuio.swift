import TouchCore

/// TUIO 1.1 (2Dcur profile) out of touchd's frames, as OSC bundles over UDP: what Kivy,
/// TouchDesigner, openFrameworks, Processing, Unity's TouchScript and Pd/Max listen to. Pure:
/// frames in, datagrams out (the daemon sends them).
///
/// Each hardware frame becomes one bundle: `source NAME@HOST`, `alive` with every touch down
/// (session ids are touchd's touch ids, on every device), one `set s x y X Y m` per touch down,
/// `fseq f` (f one more than the last frame's). x, y are screen
/// positions (after calibration and rotation) normalised to 0…1 from the top left; X, Y the
/// velocity in screen widths/heights per second and m the acceleration of the speed, from the
/// touch's own previous sample. A touch that ends or is cancelled (for any reason) leaves
/// `alive` at once. A bundle that would exceed `maxDatagram` bytes is split, each part with
/// `source` and `alive` again, the parts before the last with `fseq -1` (as the reference
/// server does), so a receiver applies the frame once, at its last part. `fullState()` gives
/// the periodic bundle (every touch's `set`, `fseq -1`) that lets a receiver that started late
/// catch up.
public struct TuioEncoder {
    /// IPv6's minimum MTU less its and UDP's headers: never fragmented on any path.
    public static let maxDatagram = 1232

    struct Cursor {
        var x: Double, y: Double
        var vx = 0.0, vy = 0.0, accel = 0.0
        var time: Int64
    }

    public let source: String
    /// Only this output's touches are sent, normalised to it (nil: every output's, each
    /// normalised to its own).
    public let output: String?
    /// Frames sent (the next fseq).
    public private(set) var frameNumber: Int32 = 0
    var cursors: [Int: Cursor] = [:]

    public init(source: String, output: String? = nil) {
        self.source = source
        self.output = output
    }

    /// Touches down, in id order.
    public var alive: [Int] { cursors.keys.sorted() }

    /// One frame, with the scene of its time (window origins): the cursors follow its touches;
    /// the bundle (one or more datagrams).
    public mutating func frame(_ f: FrameMessage, scene: Scene) -> [[UInt8]] {
        var anyChange = false
        for t in f.touches {
            // A private window's touches are its owner's alone: not sent over the network.
            if let w = t.window, scene[w].isPrivate { continue }
            // Its output (a touch says which when there are several): 0…1 across it as it is
            // turned now.
            let on = t.output ?? scene.outputs[0].id
            if let output, output != on { continue }
            let screen = scene.outputs.first { $0.id == on }?.pointSize ?? scene.screen
            let origin = t.window.map { scene[$0].frame.origin } ?? .zero
            let x = clamp01((t.location.x + origin.x) / screen.width)
            let y = clamp01((t.location.y + origin.y) / screen.height)
            switch t.phase {
            case .ended, .cancelled:
                if cursors.removeValue(forKey: t.id) != nil { anyChange = true }
            case .began:
                cursors[t.id] = Cursor(x: x, y: y, time: t.timestamp)
                anyChange = true
            case .moved:
                var c = cursors[t.id] ?? Cursor(x: x, y: y, time: t.timestamp)
                let dt = Double(t.timestamp - c.time) / 1_000_000
                if dt > 0 {
                    let vx = (x - c.x) / dt, vy = (y - c.y) / dt
                    let speed = (vx * vx + vy * vy).squareRoot(), before = (c.vx * c.vx + c.vy * c.vy).squareRoot()
                    c.accel = (speed - before) / dt
                    c.vx = vx
                    c.vy = vy
                }
                c.x = x
                c.y = y
                c.time = t.timestamp
                cursors[t.id] = c
                anyChange = true
            case .stationary:
                if cursors[t.id] == nil { cursors[t.id] = Cursor(x: x, y: y, time: t.timestamp) }
            }
        }
        guard anyChange else { return [] }
        let f = frameNumber
        frameNumber = frameNumber == Int32.max ? 0 : frameNumber + 1
        return bundles(sets: alive, fseq: f)
    }

    /// The periodic full state: alive and every touch's set, `fseq -1`.
    public func fullState() -> [[UInt8]] { bundles(sets: alive, fseq: -1) }

    func clamp01(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }

    /// source, alive, the sets, fseq — split into parts that fit a datagram.
    func bundles(sets: [Int], fseq: Int32) -> [[UInt8]] {
        let head = [OSC.message("/tuio/2Dcur", [.string("source"), .string(source)]),
                    OSC.message("/tuio/2Dcur", [.string("alive")] + alive.map { .int(Int32(truncatingIfNeeded: $0)) })]
        let setMessages = sets.compactMap { id -> [UInt8]? in
            guard let c = cursors[id] else { return nil }
            return OSC.message("/tuio/2Dcur", [.string("set"), .int(Int32(truncatingIfNeeded: id)), .float(Float(c.x)), .float(Float(c.y)),
                                               .float(Float(c.vx)), .float(Float(c.vy)), .float(Float(c.accel))])
        }
        let fixed = 16 + head.reduce(0) { $0 + 4 + $1.count } + 4 + OSC.message("/tuio/2Dcur", [.string("fseq"), .int(0)]).count
        var parts: [[[UInt8]]] = [[]]
        var size = fixed
        for m in setMessages {
            if size + 4 + m.count > TuioEncoder.maxDatagram && !parts[parts.count - 1].isEmpty {
                parts.append([])
                size = fixed
            }
            parts[parts.count - 1].append(m)
            size += 4 + m.count
        }
        return parts.enumerated().map { k, sets in
            let last = k == parts.count - 1
            return OSC.bundle(head + sets + [OSC.message("/tuio/2Dcur", [.string("fseq"), .int(last ? fseq : -1)])])
        }
    }
}

/// Open Sound Control 1.0 encoding: messages of strings, int32s and float32s, bundles with an
/// "immediately" time tag. Big-endian, every item padded to four bytes.
public enum OSC {
    public enum Argument: Sendable, Equatable {
        case string(String)
        case int(Int32)
        case float(Float)
    }

    static func padded(_ s: String, into out: inout [UInt8]) {
        out.append(contentsOf: s.utf8)
        out.append(0)
        while out.count % 4 != 0 { out.append(0) }
    }

    static func bigEndian(_ v: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(v >> 24)); out.append(UInt8((v >> 16) & 0xff)); out.append(UInt8((v >> 8) & 0xff)); out.append(UInt8(v & 0xff))
    }

    public static func message(_ address: String, _ args: [Argument]) -> [UInt8] {
        var out: [UInt8] = []
        padded(address, into: &out)
        var tags = ","
        for a in args {
            switch a {
            case .string: tags += "s"
            case .int: tags += "i"
            case .float: tags += "f"
            }
        }
        padded(tags, into: &out)
        for a in args {
            switch a {
            case .string(let s): padded(s, into: &out)
            case .int(let i): bigEndian(UInt32(bitPattern: i), into: &out)
            case .float(let f): bigEndian(f.bitPattern, into: &out)
            }
        }
        return out
    }

    public static func bundle(_ messages: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = Array("#bundle".utf8) + [0]
        out += [0, 0, 0, 0, 0, 0, 0, 1]   // time tag: immediately
        for m in messages {
            bigEndian(UInt32(m.count), into: &out)
            out += m
        }
        return out
    }
}
