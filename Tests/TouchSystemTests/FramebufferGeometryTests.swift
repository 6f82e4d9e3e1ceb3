import Testing
@testable import TouchSystem

/// Issue 17: the framebuffer's geometry is checked before anything is drawn (no framebuffer
/// device here: the check is a pure function of what the kernel reports).
@Suite struct FramebufferGeometryTests {
    @Test func aLineAtLeastAsLongAsItsPixelsAndAMappingThatHoldsEveryLineAreAccepted() throws {
        let g = try FramebufferGeometry(width: 800, height: 480, bitsPerPixel: 32, lineLength: 3200, memoryLength: 3200 * 480)
        let again = try FramebufferGeometry(width: 800, height: 480, bitsPerPixel: 32, lineLength: 3200, memoryLength: 3200 * 480)
        #expect(g == again)
        #expect(g.width == 800 && g.height == 480 && g.bytesPerPixel == 4 && g.lineLength == 3200 && g.mappedBytes == 1_536_000)
        // Padding at the end of each line (a line of 1664 bytes for 800 16-bit pixels) is fine.
        let padded = try FramebufferGeometry(width: 800, height: 480, bitsPerPixel: 16, lineLength: 1664, memoryLength: 1664 * 480 + 4096)
        #expect(padded.bytesPerPixel == 2 && padded.lineLength == 1664 && padded.mappedBytes == 1664 * 480 + 4096)
    }

    func problem(_ w: UInt32, _ h: UInt32, _ bpp: UInt32, _ line: UInt32, _ length: UInt) -> String? {
        do {
            _ = try FramebufferGeometry(width: w, height: h, bitsPerPixel: bpp, lineLength: line, memoryLength: length)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aLineShorterThanItsPixelsIsRefused() {
        // 800 pixels of 4 bytes need 3200 bytes; one byte less would draw into the next line.
        #expect(problem(800, 480, 32, 3199, 3200 * 480) == "a line of 3199 bytes is shorter than 800 pixels of 4 bytes (3200)")
        #expect(problem(800, 480, 16, 0, 1 << 24) == "a line of 0 bytes is shorter than 800 pixels of 2 bytes (1600)")
        #expect(problem(800, 480, 32, 3200, 3200 * 480) == nil)
    }

    @Test func aMappingShorterThanEveryLineIsRefused() {
        #expect(problem(800, 480, 32, 3200, 3200 * 480 - 1) == "480 lines of 3200 bytes (1536000) do not fit the 1535999 bytes mapped")
        #expect(problem(800, 480, 32, 4096, 3200 * 480) == "480 lines of 4096 bytes (1966080) do not fit the 1536000 bytes mapped")
    }

    @Test func otherPixelSizesAndEmptyScreensAreRefused() {
        #expect(problem(800, 480, 24, 2400, 2400 * 480) == "24 bits per pixel (only 16 and 32 are drawn)")
        #expect(problem(0, 480, 32, 0, 0) == "an empty screen (0×480)")
        #expect(problem(800, 0, 32, 3200, 0) == "an empty screen (800×0)")
    }
}
