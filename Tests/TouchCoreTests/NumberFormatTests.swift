import Testing
@testable import TouchCore
import TouchTestSupport

/// The encoder's numbers at their edges, each expected string worked out by hand from the
/// format the golden corpus holds (docs/protocol.md): coordinates with at most three decimals,
/// rounded half away from zero, trailing zeros dropped but one kept, never "-0.0"; times with
/// exactly six; integers plain. JSONCursor formats them for every message (issue 34).
@Suite struct NumberFormatTests {
    func text(_ body: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        body(&out)
        return String(decoding: out, as: UTF8.self)
    }

    func doubles(_ values: [Double], digits: Int = 3) -> String {
        text { out in
            for (k, v) in values.enumerated() {
                if k > 0 { out.append(32) }
                JSONWriter.appendDouble(v, digits: digits, to: &out)
            }
        }
    }

    @Test func zeroAndNegativeZeroAndWhatRoundsToZero() {
        // -0.0 is not below zero; -0.0004 rounds to no units: neither gets a sign.
        #expect(doubles([0, -0.0, 0.0004, -0.0004]) == "0.0 0.0 0.0 0.0")
        #expect(doubles([-0.0, -0.4], digits: 0) == "0 0")
    }

    @Test func negativeFractions() {
        #expect(doubles([-0.5, -0.001, -0.125, -1.25, -41.0]) == "-0.5 -0.001 -0.125 -1.25 -41.0")
    }

    @Test func roundingBoundariesAreHalfAwayFromZero() {
        // 1/16 and 1/32 are exact in binary: 62.5 units round up, away from zero either side.
        #expect(doubles([0.0625, -0.0625]) == "0.063 -0.063")
        #expect(doubles([0.03125, -0.03125], digits: 4) == "0.0313 -0.0313")
        #expect(doubles([2.5, -2.5, 0.5], digits: 0) == "3 -3 1")
        // Rounding that carries into the whole part; the trailing zeros go, one stays.
        #expect(doubles([0.9996, -1.9999, 99.9999]) == "1.0 -2.0 100.0")
        #expect(doubles([0.1, 0.10000001, 479.99949]) == "0.1 0.1 479.999")
    }

    @Test func largeValuesAndTheShortestFormBeyondFixedPoint() {
        // Below 9e15 units: fixed point, every digit; at or past it Swift's shortest form.
        #expect(doubles([1_234_567_890_123.5, -8_999_999_999_999.5]) == "1234567890123.5 -8999999999999.5")
        #expect(doubles([9e12, 1e16, -1e300]) == "9000000000000.0 1e+16 -1e+300")
        #expect(doubles([.nan, .infinity, -.infinity]) == "null null null")
    }

    @Test func timesHaveSixDecimalsAlways() {
        let s = text { out in
            for t: Int64 in [0, 1, -1, 999_999, 1_000_000, -1_500_000, .max, .min] {
                JSONWriter.appendTime(t, to: &out)
                out.append(32)
            }
        }
        #expect(s == "0.000000 0.000001 -0.000001 0.999999 1.000000 -1.500000 9223372036854.775807 -9223372036854.775808 ")
    }

    @Test func integersAtTheirEdges() {
        let s = text { out in
            for v in [0, 9, 10, -10, 1_000_000, .max, .min] {
                JSONWriter.appendInt(v, to: &out)
                out.append(32)
            }
            JSONWriter.appendUInt(.max, to: &out)
        }
        #expect(s == "0 9 10 -10 1000000 9223372036854775807 -9223372036854775808 18446744073709551615")
    }

    @Test func namesWrittenAsStaticTextAreTheNamesThemselves() {
        for p in Phase.allCases {
            #expect(p.nameText.description == p.name)
            #expect(p.methodText.description == p.method)
        }
        for t in [Tool.finger, .pen, .palm] { #expect(t.text.description == t.rawValue) }
        let reasons: [CancelReason] = [.deviceRemoved, .resync, .palm, .gesture, .viewRemoved, .windowRemoved, .clientGone, .outputChanged, .calibrating, .shutdown]
        for r in reasons { #expect(r.text.description == r.rawValue) }
        for i in [IgnoreReason.multipleTouch, .exclusiveTouch] { #expect(i.text.description == i.rawValue) }
    }

    /// Every optional field of a touch record at once, its ids needing escapes: the cursor's
    /// bound holds (no trap) and the bytes are the interface's, checked by hand.
    @Test func aTouchWithEveryFieldEncodesAsTheInterfaceSays() throws {
        let cfg = try Config.parse("""
            {"screen": {"width": 800, "height": 480},
             "windows": [{"id": "w\\u0001\\"", "frame": [0, 0, 800, 480], "view": {"id": "v\\\\", "frame": [0, 0, 10, 10]}}]}
            """)
        let w = cfg.scene.viewIndices.first { cfg.scene[$0].id == "w\u{1}\"" }
        let v = cfg.scene.viewIndices.first { cfg.scene[$0].id == "v\\" }
        #expect(w != nil && v != nil)
        var r = TouchRecord(id: 7, phase: .cancelled, window: w, view: v, location: Point(-0.0004, 12.3456), previous: Point(1e16, -0.5),
                            locationInView: Point(0.0625, -2), timestamp: -1, tapCount: 2, pressure: 0.9996, major: -0.0,
                            tool: .pen, reason: .windowRemoved, ignored: .exclusiveTouch)
        r.output = "HDMI-\u{1F}"
        r.predicted = Point(.nan, 3)
        r.coalesced = [CoalescedSample(location: Point(1, 2), timestamp: 1_000_001), CoalescedSample(location: Point(-3.5, 0), timestamp: 0)]
        var out: [UInt8] = []
        MessageEncoder(scene: cfg.scene).encodeTouches([r, r], devices: ["d\"1"], into: &out)
        let one = #"{"id":7,"phase":"cancelled","window":"w\u0001\"","view":"v\\","output":"HDMI-\u001f","location":[0.0,12.346],"previous":[1e+16,-0.5],"locationInView":[0.063,-2.0],"timestamp":-0.000001,"tapCount":2,"pressure":1.0,"major":0.0,"tool":"pen","reason":"window-removed","predicted":[null,3.0],"coalesced":[[1.0,2.0,1.000001],[-3.5,0.0,0.000000]],"ignored":"exclusiveTouch""#
        #expect(String(decoding: out, as: UTF8.self) == "[" + one + #","device":"d\"1"},"# + one + "}]")
    }
}
