@preconcurrency import Glibc
import CLinux

/// The Linux framebuffer (/dev/fb0), for drawing calibration targets where no display server
/// runs. 16- and 32-bit pixels; anything else is refused. Owned by the one thread that draws.
public final class Framebuffer {
    let fd: FileDescriptor
    let memory: UnsafeMutableRawPointer
    let size: Int
    public let width: Int, height: Int
    let bytesPerPixel: Int, lineLength: Int

    public init(path: String = "/dev/fb0") throws(SystemError) {
        let raw = retryingEINTR { open(path, O_RDWR | O_CLOEXEC) }
        guard raw >= 0 else { throw .last("open", path: path) }
        fd = FileDescriptor(adopting: raw)
        var x: UInt32 = 0, y: UInt32 = 0, bpp: UInt32 = 0, line: UInt32 = 0
        var length: UInt = 0
        guard touchd_fb_info(fd.rawValue, &x, &y, &bpp, &line, &length) == 0 else { throw .last("ioctl(FBIOGET_*SCREENINFO)", path: path) }
        let g: FramebufferGeometry
        do { g = try FramebufferGeometry(width: x, height: y, bitsPerPixel: bpp, lineLength: line, memoryLength: length) } catch {
            throw SystemError("framebuffer refused (\(error))", .invalidArgument, path: path)
        }
        let p = mmap(nil, g.mappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, 0)
        guard let p, p != MAP_FAILED else { throw .last("mmap", path: path) }
        memory = p
        size = g.mappedBytes
        width = g.width
        height = g.height
        bytesPerPixel = g.bytesPerPixel
        lineLength = g.lineLength
    }

    deinit { munmap(memory, size) }

    /// Fills a rectangle with white or black.
    public func fill(x: Int, y: Int, w: Int, h: Int, white: Bool) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            let line = memory.advanced(by: row * lineLength + x0 * bytesPerPixel)
            line.initializeMemory(as: UInt8.self, repeating: white ? 0xff : 0, count: (x1 - x0) * bytesPerPixel)
        }
    }

    public func clear() { fill(x: 0, y: 0, w: width, h: height, white: false) }

    /// A cross with a square at its middle, as tslib draws a target.
    public func target(x: Int, y: Int) {
        fill(x: x - 20, y: y - 1, w: 41, h: 3, white: true)
        fill(x: x - 1, y: y - 20, w: 3, h: 41, white: true)
        fill(x: x - 6, y: y - 6, w: 13, h: 13, white: true)
        fill(x: x - 4, y: y - 4, w: 9, h: 9, white: false)
    }
}

/// A framebuffer's geometry as the kernel reports it (FBIOGET_VSCREENINFO, FBIOGET_FSCREENINFO),
/// checked before anything is drawn: every pixel `fill` can write must lie inside the mapping.
/// A line may be longer than its pixels (padding), never shorter.
public struct FramebufferGeometry: Equatable, Sendable {
    public let width: Int, height: Int, bytesPerPixel: Int
    /// Bytes from one line's start to the next (fix_screeninfo.line_length).
    public let lineLength: Int
    /// The length of the mapping (fix_screeninfo.smem_len).
    public let mappedBytes: Int

    /// Why a framebuffer cannot be drawn on.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(width: UInt32, height: UInt32, bitsPerPixel: UInt32, lineLength: UInt32, memoryLength: UInt) throws(Problem) {
        guard bitsPerPixel == 16 || bitsPerPixel == 32 else {
            throw Problem(description: "\(bitsPerPixel) bits per pixel (only 16 and 32 are drawn)")
        }
        guard width > 0, height > 0 else { throw Problem(description: "an empty screen (\(width)×\(height))") }
        let w = Int(width), h = Int(height), bytes = Int(bitsPerPixel) / 8, line = Int(lineLength)
        guard line >= w * bytes else {
            throw Problem(description: "a line of \(line) bytes is shorter than \(w) pixels of \(bytes) bytes (\(w * bytes))")
        }
        guard UInt(clamping: h * line) <= memoryLength else {
            throw Problem(description: "\(h) lines of \(line) bytes (\(h * line)) do not fit the \(memoryLength) bytes mapped")
        }
        self.width = w
        self.height = h
        self.bytesPerPixel = bytes
        self.lineLength = line
        self.mappedBytes = Int(clamping: memoryLength)
    }
}
