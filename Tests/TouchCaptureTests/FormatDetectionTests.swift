import Testing
@testable import TouchCapture

/// The format is decided from a file's first bytes (issue 21: 200 MB of blank lines took
/// minutes to refuse, every line looked at; now 0.4 s, reading included).
@Suite struct FormatDetectionTests {
    let getevent = Array("[   12.345678] /dev/input/event1: EV_ABS ABS_MT_POSITION_X 0000019a\n".utf8)

    @Test func onlyTheFirstBytesDecide() {
        #expect(CaptureLoader.detect(getevent) == .getevent)
        let blanks = [UInt8](repeating: UInt8(ascii: "\n"), count: CaptureLoader.detectionWindow)
        // The same line after a window of blank lines is not looked for.
        #expect(CaptureLoader.detect(blanks + getevent) == nil)
        #expect(CaptureLoader.detect(Array(blanks.prefix(100)) + getevent) == .getevent)
    }
}
