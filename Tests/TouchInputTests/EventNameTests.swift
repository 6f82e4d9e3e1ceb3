import Testing
import TouchCore
import TouchInput

/// Event and property names, from libevdev.
@Suite struct EventNameTests {
    @Test func namesComeFromLibevdev() {
        #expect(EventNames.codeName(type: EV.ABS, code: ABS.MT_POSITION_X) == "ABS_MT_POSITION_X")
        #expect(EventNames.code(type: EV.ABS, named: "ABS_MT_TRACKING_ID") == ABS.MT_TRACKING_ID)
        #expect(EventNames.type(named: "EV_SYN") == EV.SYN)
        #expect(EventNames.describe(type: EV.ABS, code: 0x1d) == "0x1d")
        #expect(EventNames.propertyName(InputProp.direct) == "INPUT_PROP_DIRECT")
    }
}
