import Testing
@testable import TouchCore
import TouchTestSupport

/// Input conditioning (issue 19): what a noisy panel's contact becomes before the engine sees it.
@Suite struct MovedMeansLocationOrForceTests {
    /// UITouch's touchesMoved is about location (and force): a contact whose only change is its
    /// size (touch-major) has not moved. A Wacom recording reports a size change alone in 190 of
    /// 4,113 frames, where libinput reports no motion.
    @Test func aSizeOnlyChangeIsNotAMove() {
        var t = ContactTracker(device: screenDevice(pressure: true, major: true), protocol: .b)
        var f = Finger()
        f.down(0, 100, 100); f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, 10); f.syn()
        for major in 11...40 { f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, Int32(major)); f.syn() }
        f.move(0, 101, 100); f.syn()
        f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_PRESSURE, 50); f.syn()   // force changed: moved
        f.up(0); f.syn()
        let out = frames(&t, f.events)
        #expect(out.map(kinds) == [["began0"]] + Array(repeating: [], count: 30) + [["moved0"], ["moved0"], ["ended0"]])
        // The move carries the size as it is now.
        #expect(out[31].first?.sample.major == 40)
    }
}
