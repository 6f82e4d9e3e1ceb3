import Testing
import TouchCore
@testable import TouchCapture

/// Recordings written as libinput record YAML read back the same.
@Suite struct LibinputWriterTests {
    @Test func writtenYAMLReadsBackTheSame() throws {
        let info = DeviceInfo(name: "Panel \"7\"", bustype: 3, vendor: 0x4f3, product: 0x2a1b, version: 1, properties: [InputProp.direct],
                              codes: [EV.SYN: [0, 2, 3], EV.KEY: [BTN.TOUCH]],
                              abs: [ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 9), ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 2047, resolution: 10),
                                    ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1535, fuzz: 4), ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535)])
        let events = [InputEvent(time: 7_000_000, type: 3, code: ABS.MT_TRACKING_ID, value: 4), InputEvent(time: 7_000_000, type: 0, code: 0, value: 0),
                      InputEvent(time: 7_250_001, type: 3, code: ABS.MT_TRACKING_ID, value: -1), InputEvent(time: 7_250_001, type: 0, code: 0, value: 0)]
        var text = LibinputRecordWriter.header(devices: [("/dev/input/event4", info)]) + LibinputRecordWriter.device(node: "/dev/input/event4", info: info)
        text += LibinputRecordWriter.frame(Array(events[0..<2]), relativeTo: 7_000_000)
        text += LibinputRecordWriter.frame(Array(events[2..<4]), relativeTo: 7_000_000)
        let back = try LibinputRecordReader.read(Array(text.utf8), file: "rec.yml")
        #expect(back.count == 1)
        #expect(back[0].info == info)
        #expect(back[0].events.map(\.time) == [0, 0, 250_001, 250_001])
        #expect(back[0].events.map(\.value) == [4, 0, -1, 0])
        #expect(LibinputRecordReader.looks(like: Array(text.utf8)))
    }
}
