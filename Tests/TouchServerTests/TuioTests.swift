import Testing
import TouchCore
@testable import TouchServer

/// A minimal OSC reader for the tests (the end-to-end tests decode with python-osc and
/// Debian's oscdump as well).
enum OSCRead {
    static func string(_ b: [UInt8], _ i: inout Int) -> String {
        var end = i
        while b[end] != 0 { end += 1 }
        let s = String(decoding: b[i..<end], as: UTF8.self)
        i = (end + 4) & ~3
        return s
    }
    static func u32(_ b: [UInt8], _ i: inout Int) -> UInt32 {
        defer { i += 4 }
        return UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    /// A bundle's messages as [address, args...].
    static func bundle(_ b: [UInt8]) -> [[String]] {
        var i = 0
        #expect(string(b, &i) == "#bundle")
        i += 8
        var out: [[String]] = []
        while i < b.count {
            let size = Int(u32(b, &i))
            let end = i + size
            var m = [string(b, &i)]
            let tags = string(b, &i)
            for t in tags.dropFirst() {
                switch t {
                case "s": m.append(string(b, &i))
                case "i": m.append(String(Int32(bitPattern: u32(b, &i))))
                case "f": m.append(String(Float(bitPattern: u32(b, &i))))
                default: Issue.record("unexpected OSC type \(t)")
                }
            }
            #expect(i == end)
            out.append(m)
        }
        return out
    }
}

@Suite struct TuioEncoderTests {
    let scene = try! Config.parse("""
        {"windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}},
                     {"id": "side", "frame": [400, 0, 400, 480], "level": 1, "view": {"id": "panel", "frame": [0, 0, 400, 480]}}]}
        """).scene

    func touch(_ id: Int, _ phase: Phase, _ x: Double, _ y: Double, t: Int64, window: String = "main") -> TouchRecord {
        let w = scene.viewIndex[window]!
        return TouchRecord(id: id, phase: phase, window: w, view: w, location: Point(x, y), previous: Point(x, y), locationInView: Point(x, y),
                           timestamp: t, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
    }

    func frame(_ touches: [TouchRecord]) -> FrameMessage {
        FrameMessage(seq: 0, time: touches.map(\.timestamp).max() ?? 0, device: "d", touches: touches, calls: [])
    }

    /// With several outputs each touch is normalised to its own output (turned as it is);
    /// an encoder for one output sends only that output's touches (issue 33, item 5).
    @Test func eachTouchIsNormalisedToItsOwnOutput() throws {
        let two = try Config.parse(#"""
            {"outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 1000, "height": 600, "rotation": 90}],
             "windows": [{"id": "wb", "output": "B", "frame": [100, 0, 500, 1000]}]}
            """#).scene
        func on(_ output: String, _ id: Int, _ x: Double, _ y: Double) -> TouchRecord {
            var t = TouchRecord(id: id, phase: .began, window: output == "B" ? two.viewIndex["wb"] : nil, view: nil, location: Point(x, y),
                                previous: Point(x, y), locationInView: Point(x, y), timestamp: 1_000, tapCount: 1, pressure: nil, major: nil,
                                tool: .finger, reason: nil, ignored: nil)
            t.output = output
            return t
        }
        var all = TuioEncoder(source: "s")
        let sets = OSCRead.bundle(all.frame(frame([on("A", 1, 400, 240), on("B", 2, 200, 500)]), scene: two)[0]).filter { $0[1] == "set" }
        // A: 400/800, 240/480. B is 600 × 1000 turned: (100 + 200)/600, 500/1000.
        #expect(sets.map { Array($0[2...4]) } == [["1", "0.5", "0.5"], ["2", "0.5", "0.5"]])
        var onlyB = TuioEncoder(source: "s", output: "B")
        let setsB = OSCRead.bundle(onlyB.frame(frame([on("A", 1, 400, 240), on("B", 2, 200, 500)]), scene: two)[0]).filter { $0[1] == "set" }
        #expect(setsB.map { $0[2] } == ["2"])
        #expect(throws: ConfigErrors.self) { try Config.parse(#"{"outputs": [{"id": "A", "width": 8, "height": 4}], "tuio": {"targets": ["127.0.0.1:3333"], "output": "Z"}, "windows": []}"#) }
        // A target may name its own output; the others follow the section's.
        let per = try Config.parse(#"{"outputs": [{"id": "A", "width": 8, "height": 4}, {"id": "B", "width": 8, "height": 4}], "tuio": {"targets": ["127.0.0.1:3333", {"address": "[::1]:3334", "output": "B"}], "output": "A"}, "windows": []}"#)
        #expect(per.tuio?.targets.map(\.description) == ["127.0.0.1:3333", "[::1]:3334"])
        #expect(per.tuio.map { [$0.output(of: 0), $0.output(of: 1)] } == ["A", "B"])
        for (bad, message) in [(#"{"address": "127.0.0.1:1", "output": "Z"}"#, #"$.tuio.targets[0].output: no output has id "Z""#),
                               (#"{"output": "A"}"#, "$.tuio.targets[0].address: missing"),
                               (#"{"address": "nowhere"}"#, "$.tuio.targets[0].address: expected \"HOST:PORT\""),
                               (#"{"address": "127.0.0.1:1", "port": 2}"#, "$.tuio.targets[0].port: unknown key"),
                               ("7", "$.tuio.targets[0]: expected \"HOST:PORT\" or {\"address\"")] {
            do {
                _ = try Config.parse(#"{"outputs": [{"id": "A", "width": 8, "height": 4}], "tuio": {"targets": ["# + bad + #"]}, "windows": []}"#)
                Issue.record("accepted \(bad)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    @Test func aBundlePerFrameInTheProfilesOrderWithScreenPositionsAndVelocity() {
        var e = TuioEncoder(source: "touchd@board", output: nil)
        let b1 = e.frame(frame([touch(7, .began, 400, 240, t: 1_000_000)]), scene: scene)
        #expect(b1.count == 1)
        let m1 = OSCRead.bundle(b1[0])
        #expect(m1.map { $0[1] } == ["source", "alive", "set", "fseq"])
        #expect(m1[0] == ["/tuio/2Dcur", "source", "touchd@board"])
        #expect(m1[1] == ["/tuio/2Dcur", "alive", "7"])
        #expect(m1[2] == ["/tuio/2Dcur", "set", "7", "0.5", "0.5", "0.0", "0.0", "0.0"])
        #expect(m1[3] == ["/tuio/2Dcur", "fseq", "0"])
        // 80 points right in 0.1 s: a tenth of the screen's width, one screen width a second.
        let m2 = OSCRead.bundle(e.frame(frame([touch(7, .moved, 480, 240, t: 1_100_000)]), scene: scene)[0])
        #expect(m2[2] == ["/tuio/2Dcur", "set", "7", "0.6", "0.5", "1.0", "0.0", "10.0"])
        #expect(m2[3] == ["/tuio/2Dcur", "fseq", "1"])
        // A touch in a window at (400, 0): its location is in the window's coordinates.
        let m3 = OSCRead.bundle(e.frame(frame([touch(8, .began, 200, 120, t: 1_200_000, window: "side")]), scene: scene)[0])
        #expect(m3[1] == ["/tuio/2Dcur", "alive", "7", "8"])
        #expect(m3.contains(["/tuio/2Dcur", "set", "8", "0.75", "0.25", "0.0", "0.0", "0.0"]))
        // Cancelled (any reason): out of alive at once.
        let m4 = OSCRead.bundle(e.frame(frame([touch(7, .cancelled, 480, 240, t: 1_300_000)]), scene: scene)[0])
        #expect(m4[1] == ["/tuio/2Dcur", "alive", "8"])
        #expect(m4.last == ["/tuio/2Dcur", "fseq", "3"])
        // The full state: every touch, fseq -1.
        let full = OSCRead.bundle(e.fullState()[0])
        #expect(full.map { $0[1] } == ["source", "alive", "set", "fseq"])
        #expect(full.last == ["/tuio/2Dcur", "fseq", "-1"])
    }

    @Test func aBigBundleIsSplitWithAliveRepeatedAndOneFseq() {
        var e = TuioEncoder(source: "touchd@board", output: nil)
        let touches = (1...60).map { touch($0, .began, Double($0 * 10), 100, t: 1_000_000) }
        let parts = e.frame(frame(touches), scene: scene)
        #expect(parts.count > 1)
        var sets: [String] = []
        for (k, p) in parts.enumerated() {
            #expect(p.count <= TuioEncoder.maxDatagram)
            let m = OSCRead.bundle(p)
            #expect(m[0][1] == "source" && m[1][1] == "alive" && m[1].count == 62)
            #expect(m.last == ["/tuio/2Dcur", "fseq", k == parts.count - 1 ? "0" : "-1"])
            sets += m.filter { $0[1] == "set" }.map { $0[2] }
        }
        #expect(sets == (1...60).map(String.init))
    }
}
