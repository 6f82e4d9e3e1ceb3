@preconcurrency import Glibc

/// Files and directories.
public enum FileSystem {
    public enum Kind: Equatable, Sendable {
        case missing, file, directory, socket, other
    }

    /// What is at `path`, without following a final symlink.
    public static func kind(_ path: String) throws(SystemError) -> Kind {
        var st = stat()
        if lstat(path, &st) != 0 {
            if Errno.current == .noSuchFile { return .missing }
            throw .last("lstat", path: path)
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Is `path` (a final symlink followed) a regular file: one that can be opened and read
    /// again from its start (a pipe, /dev/fd/N of `<(…)`, cannot)?
    public static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }
    /// May this process write `path` (its real ids, as access(2) asks)?
    public static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    /// The bytes of a regular file, at most `limit` of them: a bigger file is refused before
    /// anything is read (the error says how big it is and what the limit is).
    public static func read(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        var size: Int?
        let fd = try openForReading(path, limit: limit, size: &size)
        var out: [UInt8] = []
        if let size { out.reserveCapacity(size) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { chunk.deallocate() }
        while let n = try readChunk(fd, into: chunk, path: path) {
            if out.count + n > limit { throw FileError(path: path, problem: .tooBig(size: out.count + n, limit: limit)) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
        return out
    }

    /// The first `count` bytes of a file (all of a shorter one), refused as `read` refuses it
    /// when the whole is bigger than `limit`.
    public static func read(_ path: String, limit: Int, prefix count: Int) throws(FileError) -> [UInt8] {
        var size: Int?
        let fd = try openForReading(path, limit: limit, size: &size)
        var out: [UInt8] = []
        out.reserveCapacity(min(count, size ?? count))
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { chunk.deallocate() }
        while out.count < count, let n = try readChunk(fd, into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<min(chunk.count, count - out.count)]), path: path) {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
        return out
    }

    /// A file opened for reading, and its `size` when it is a regular one (a bigger one than
    /// `limit` refused before anything is read; a directory refused).
    static func openForReading(_ path: String, limit: Int, size: inout Int?) throws(FileError) -> FileDescriptor {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw FileError(path: path, problem: .system(error)) }
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0 else { throw FileError(path: path, problem: .system(.last("fstat", path: path))) }
        if st.st_mode & S_IFMT == S_IFDIR { throw FileError(path: path, problem: .directory) }
        let regular = st.st_mode & S_IFMT == S_IFREG
        if regular && Int(st.st_size) > limit { throw FileError(path: path, problem: .tooBig(size: Int(st.st_size), limit: limit)) }
        size = regular ? Int(st.st_size) : nil
        return fd
    }

    /// The next bytes of `fd` into `chunk`: how many, nil at the end.
    static func readChunk(_ fd: borrowing FileDescriptor, into chunk: UnsafeMutableRawBufferPointer, path: String) throws(FileError) -> Int? {
        let r: IOResult
        do { r = try fd.read(into: chunk) } catch {
            throw FileError(path: path, problem: .system(SystemError("read", error.errno, path: path)))
        }
        guard case .done(let n) = r else { return nil }
        return n
    }

    /// A text file read a piece at a time: each piece holds whole lines (up to and with its last
    /// newline; the file's last line may lack one), about 64 KiB of them, so that a reader of
    /// lines never holds the whole file. At most `limit` bytes, as `read`.
    public struct Pieces: ~Copyable {
        let fd: FileDescriptor
        let path: String
        let limit: Int
        /// The file's size when known (a regular file), else 0: for sizing what is read into.
        public let size: Int
        var carry: [UInt8]
        var total: Int
        var ended: Bool
        let chunk: UnsafeMutableRawBufferPointer

        public init(_ path: String, limit: Int) throws(FileError) {
            // Everything that can throw comes before the first stored property is set: a
            // half-made value is never destroyed (Swift 6.0.3's SIL verifier crashed on the
            // error path of the earlier form, which set the defaults first), and the chunk is
            // only allocated once deinit is sure to free it.
            var size: Int?
            let fd = try FileSystem.openForReading(path, limit: limit, size: &size)
            self.fd = fd
            self.path = path
            self.limit = limit
            self.size = size ?? 0
            carry = []
            total = 0
            ended = false
            chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        }

        deinit { chunk.deallocate() }

        /// The next piece, nil after the last.
        public mutating func next() throws(FileError) -> [UInt8]? {
            while !ended {
                guard let n = try FileSystem.readChunk(fd, into: chunk, path: path) else {
                    ended = true
                    break
                }
                total += n
                if total > limit { throw FileError(path: path, problem: .tooBig(size: total, limit: limit)) }
                let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<n])
                guard let lastNewline = bytes.lastIndex(of: 0x0A) else {
                    carry.append(contentsOf: bytes)    // no line ends here yet
                    continue
                }
                var piece = carry
                carry = []
                piece.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0...lastNewline]))
                carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(lastNewline + 1)...]))
                return piece
            }
            guard !carry.isEmpty else { return nil }
            defer { carry = [] }
            return carry
        }
    }

    /// The names in a directory (without "." and ".."), sorted; a missing one has none.
    public static func entries(_ dir: String) throws(SystemError) -> [String] {
        guard let d = opendir(dir) else {
            if Errno.current == .noSuchFile { return [] }
            throw .last("opendir", path: dir)
        }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Device and inode of a path (nil when it does not exist): who is at that name now.
    public static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// Writes a whole file (created or truncated, mode 0644).
    public static func write(_ path: String, _ bytes: [UInt8]) throws(SystemError) {
        let fd = try FileDescriptor.open(path, .writeTruncate)
        _ = try fd.writeAll(bytes)
    }

    /// Writes an existing file (a sysfs attribute such as a backlight's `bl_power`): nothing is
    /// created; a missing one is an error (ENOENT).
    public static func writeExisting(_ path: String, _ bytes: [UInt8]) throws(SystemError) {
        let fd = try FileDescriptor.open(path, .writeExisting)
        _ = try fd.writeAll(bytes)
    }

    public static func unlink(_ path: String) throws(SystemError) {
        guard Glibc.unlink(path) == 0 || Errno.current == .noSuchFile else { throw .last("unlink", path: path) }
    }

    public static func rename(_ from: String, to: String) throws(SystemError) {
        guard Glibc.rename(from, to) == 0 else { throw .last("rename", path: "\(from) → \(to)") }
    }

    public static func chmod(_ path: String, _ mode: UInt32) throws(SystemError) {
        guard Glibc.chmod(path, mode_t(mode)) == 0 else { throw .last("chmod", path: path) }
    }

    /// Gives `path` to a group by name; `.groupMissing` when there is no such group.
    public static func setGroup(_ path: String, group: String) throws(SystemError) -> Bool {
        guard let gr = getgrnam(group) else { return false }
        guard chown(path, uid_t.max, gr.pointee.gr_gid) == 0 else { throw .last("chown", path: path) }
        return true
    }

    /// Creates every missing directory above `path` (mode 0755); returns those it created. A
    /// relative path's directories are made relative to the working directory.
    public static func makeParents(of path: String) throws(SystemError) -> [String] {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        let absolute = path.hasPrefix("/")
        var current = absolute ? "" : "."
        var created: [String] = []
        while !parts.isEmpty {
            current += "/" + parts.removeFirst()
            switch try kind(current) {
            case .directory: continue
            case .missing:
                guard mkdir(current, 0o755) == 0 || Errno.current == .exists else { throw .last("mkdir", path: current) }
                created.append(current)
            default:
                // Follows a symlink to a directory, as mkdir -p does.
                var st = stat()
                guard stat(current, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
                    throw SystemError("mkdir", .notDirectory, path: current)
                }
            }
        }
        return created
    }
}

/// A file that could not be read, with what happened in words a user understands.
public struct FileError: Error, Sendable, CustomStringConvertible {
    public enum Problem: Sendable {
        case system(SystemError)
        case directory
        case tooBig(size: Int, limit: Int)
        /// A FIFO, a device or a socket where a file was to be read (FileSystem.Tree reads
        /// regular files only: reading the others can block or act).
        case notRegular
    }
    public var path: String
    public var problem: Problem

    /// The message without the path ("no such file", "is a directory" …).
    public var message: String {
        switch problem {
        case .directory: return "is a directory"
        case .notRegular: return "is not a regular file (a FIFO, a device or a socket): not read"
        case .tooBig(let size, let limit):
            return "is \(size) bytes, more than the \(limit)-byte limit for input files (--max-input-size raises it)"
        case .system(let e):
            switch e.errno {
            case .noSuchFile: return "no such file"
            case .permissionDenied, .notPermitted: return "permission denied"
            case .isDirectory: return "is a directory"
            case .outOfMemory: return "out of memory while reading it"
            default: return "\(e.call): \(e.errno)"
            }
        }
    }

    public var description: String { "\(path): \(message)" }
}
