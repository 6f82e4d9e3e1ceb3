import Testing
import TouchCore
import TouchInput
import TouchTestSupport

/// Protocol A (anonymous contacts) through libmtdev: slots with tracking ids.
@Suite struct ProtocolAConverterTests {
    func deviceA() -> DeviceInfo {
        DeviceInfo(name: "A", abs: [ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 999),
                                    ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 999),
                                    ABS.MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 255)])
    }

    func frame(_ contacts: [(Int32, Int32)], time: Int64) -> [InputEvent] {
        var out: [InputEvent] = []
        for (x, y) in contacts {
            out.append(InputEvent(time: time, type: EV.ABS, code: ABS.MT_POSITION_X, value: x))
            out.append(InputEvent(time: time, type: EV.ABS, code: ABS.MT_POSITION_Y, value: y))
            // libmtdev treats a contact with touch major 0 as lifted when the device has the axis.
            out.append(InputEvent(time: time, type: EV.ABS, code: ABS.MT_TOUCH_MAJOR, value: 20))
            out.append(InputEvent(time: time, type: EV.SYN, code: SYN.MT_REPORT, value: 0))
        }
        out.append(InputEvent(time: time, type: EV.SYN, code: SYN.REPORT, value: 0))
        return out
    }

    @Test func anonymousContactsBecomeSlotsWithTrackingIDs() throws {
        #expect(deviceA().touchProtocol == .a)
        let c = try #require(ProtocolAConverter(device: deviceA()))
        var tracker = ContactTracker(device: deviceA(), protocol: .b, slotCount: c.slotCount)
        var frames: [[ContactChange]] = []
        var changes: [ContactChange] = []
        let input = frame([(100, 100)], time: 1) + frame([(110, 100), (500, 500)], time: 2)
            + frame([(120, 100), (500, 510)], time: 3) + frame([(500, 520)], time: 4) + frame([], time: 5)
        for e in input {
            var converted: [InputEvent] = []
            c.convert(e, into: &converted)
            for b in converted where tracker.feed(b, into: &changes) {
                frames.append(changes)
                changes.removeAll()
            }
        }
        #expect(frames.map(kinds) == [["began0"], ["moved0", "began1"], ["moved0", "moved1"], ["ended0", "moved1"], ["ended1"]])
        #expect(frames[2][0].sample.x == 120 && frames[2][1].sample.y == 510)
    }

}
