import Testing
import TouchCore
@testable import TouchCapture

/// Recordings written in evemu's format read back the same.
@Suite struct EvemuWriterTests {
    @Test func writtenRecordingsReadBackTheSame() throws {
        let info = DeviceInfo(name: "Goodix Capacitive TouchScreen", bustype: 0x18, vendor: 0x416, product: 0x38f, version: 0x1060,
                              properties: [InputProp.direct], codes: [EV.SYN: [0, 1, 2, 3], EV.KEY: [BTN.TOUCH, 0x8f], EV.MSC: [4]],
                              abs: [ABS.MT_SLOT: AbsInfo(value: 3, minimum: 0, maximum: 9),
                                    ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1279, fuzz: 2, flat: 0, resolution: 12),
                                    ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 799, resolution: 12),
                                    ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535), ABS.MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 255)])
        let events = [InputEvent(time: 5_000_100, type: 3, code: ABS.MT_TRACKING_ID, value: 12), InputEvent(time: 5_000_100, type: 3, code: ABS.MT_POSITION_X, value: -3),
                      InputEvent(time: 5_000_100, type: 0, code: 0, value: 0), InputEvent(time: 5_012_345, type: 3, code: ABS.MT_TRACKING_ID, value: -1),
                      InputEvent(time: 5_012_345, type: 0, code: 0, value: 0)]
        var text = Array(EvemuWriter.header(info, kernel: "6.1.0").utf8)
        for e in events { EvemuWriter.event(e, relativeTo: 5_000_100, into: &text) }
        let back = try EvemuReader.read(text, file: "rec.events")
        #expect(back.count == 1)
        var expected = info
        for c in expected.abs.keys { expected.abs[c]!.value = 0 }   // evemu's A: lines carry no current value
        expected.codes[EV.SYN] = [SYN.REPORT, SYN.MT_REPORT, SYN.DROPPED]   // evemu's EV_SYN line is the type mask
        #expect(back[0].info == expected)
        #expect(back[0].events.map(\.time) == [0, 0, 0, 12_245, 12_245])
        #expect(back[0].events.map(\.value) == events.map(\.value))
        let s = String(decoding: text, as: UTF8.self)
        #expect(s.hasPrefix("# EVEMU 1.3\n# Kernel: 6.1.0\n# Input device name: \"Goodix Capacitive TouchScreen\"\n"))
        #expect(s.contains("\nI: 0018 0416 038f 1060\n"))
        #expect(s.contains("\nA: 35 0 1279 2 0 12\n"))
        #expect(s.contains("\nE: 0.012245 0003 0039 -1\t# EV_ABS / ABS_MT_TRACKING_ID\n"))
    }
}
