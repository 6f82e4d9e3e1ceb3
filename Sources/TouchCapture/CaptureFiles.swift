import TouchSystem

/// Reading capture files (the readers parse bytes; this is their only I/O, through the system
/// seam). A file bigger than the limit is refused before it is read.
public enum CaptureFiles {
    /// The largest input file read (bytes): far beyond any real recording, small enough that a
    /// wrong file cannot exhaust memory.
    public static let defaultMaxBytes = 256 << 20

    public static func read(_ path: String, limit: Int = defaultMaxBytes) throws(CaptureError) -> [UInt8] {
        do { return try FileSystem.read(path, limit: limit) } catch {
            throw CaptureError(file: path, line: 0, message: error.message)
        }
    }

    /// The first `count` bytes (a file bigger than the limit refused, as `read` does).
    public static func read(_ path: String, limit: Int = defaultMaxBytes, prefix count: Int) throws(CaptureError) -> [UInt8] {
        do { return try FileSystem.read(path, limit: limit, prefix: count) } catch {
            throw CaptureError(file: path, line: 0, message: error.message)
        }
    }

    static func exists(_ path: String) -> Bool { FileSystem.exists(path) }
    static func isRegular(_ path: String) -> Bool { FileSystem.isRegularFile(path) }
}
