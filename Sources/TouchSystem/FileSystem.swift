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
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// The bytes of a regular file, at most `limit` of them: a bigger file is refused before
    /// anything is read (the error says how big it is and what the limit is).
    public static func read(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw FileError(path: path, problem: .system(error)) }
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0 else { throw FileError(path: path, problem: .system(.last("fstat", path: path))) }
        if st.st_mode & S_IFMT == S_IFDIR { throw FileError(path: path, problem: .directory) }
        let regular = st.st_mode & S_IFMT == S_IFREG
        if regular && Int(st.st_size) > limit { throw FileError(path: path, problem: .tooBig(size: Int(st.st_size), limit: limit)) }
        var out: [UInt8] = []
        if regular { out.reserveCapacity(Int(st.st_size)) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let r: IOResult
            do { r = try fd.read(into: chunk) } catch {
                throw FileError(path: path, problem: .system(SystemError("read", error.errno, path: path)))
            }
            guard case .done(let n) = r else { break }
            if out.count + n > limit { throw FileError(path: path, problem: .tooBig(size: out.count + n, limit: limit)) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
        return out
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
    }
    public var path: String
    public var problem: Problem

    /// The message without the path ("no such file", "is a directory" …).
    public var message: String {
        switch problem {
        case .directory: return "is a directory"
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
