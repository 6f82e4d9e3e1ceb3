@preconcurrency import Glibc

extension FileSystem {
    /// The files under one directory, read so that nothing is reached outside it whatever the
    /// tree holds (issue 40, item 6: `doctor --root DIR` and `outputs --sysfs DIR` read trees
    /// someone else made, often as root). Every path is walked a component at a time from the
    /// root's descriptor, each component opened with `O_PATH | O_NOFOLLOW` (so a component
    /// swapped for a symlink in between is seen as one); a symlink is read (readlinkat) and its
    /// target walked in the same way, an absolute one from the root, `..` never above the root
    /// (as RESOLVE_IN_ROOT, without openat2, which qemu-user and some seccomp profiles lack),
    /// at most `maxLinks` of them per path (a loop is ELOOP). Contents are read from regular
    /// files only (a FIFO, a device or a socket is refused before it is opened), opened
    /// non-blocking, with a cap. Links are read as text, never followed (`links(in:)`: /proc's
    /// fd links). The root "/" is the running system, walked by the same rules.
    public struct Tree: Sendable {
        /// The directory the tree is, as given (followed: it is the caller's choice).
        public let root: String
        /// Symlinks followed at most in one path (the kernel's limit: 40).
        public static let maxLinks = 40
        /// O_PATH (Glibc's module leaves it out: it is _GNU_SOURCE): the same value on every
        /// Linux architecture touchd builds for (x86-64, arm64: asm-generic's 010000000).
        static let openPath: Int32 = 0o10000000

        public init(root: String) { self.root = root }

        /// What is at a path: its type and the bits `ls -l` shows.
        public struct Status: Sendable, Equatable {
            public enum Kind: Sendable, Equatable {
                case file, directory, symlink, socket, characterDevice, blockDevice, fifo, unknown
            }
            public var kind: Kind
            /// The permission bits (0o660) and set-id bits.
            public var mode: UInt32
            public var owner: UInt32
            public var group: UInt32
            public var size: Int
            var device: UInt64
            var inode: UInt64

            /// lstat(2) of a path as given (its last component not followed); nil when it fails.
            public static func ofLink(_ path: String) -> Status? {
                var st = stat()
                guard lstat(path, &st) == 0 else { return nil }
                return Status(st)
            }

            public init(_ st: stat) {
                switch st.st_mode & S_IFMT {
                case S_IFREG: kind = .file
                case S_IFDIR: kind = .directory
                case S_IFLNK: kind = .symlink
                case S_IFSOCK: kind = .socket
                case S_IFCHR: kind = .characterDevice
                case S_IFBLK: kind = .blockDevice
                case S_IFIFO: kind = .fifo
                default: kind = .unknown
                }
                mode = UInt32(st.st_mode) & 0o7777
                owner = UInt32(st.st_uid)
                group = UInt32(st.st_gid)
                size = Int(st.st_size)
                device = UInt64(st.st_dev)
                inode = UInt64(st.st_ino)
            }
        }

        /// What is at `path` (inside the tree; nil when nothing is): a final symlink followed
        /// (inside the tree) when `followingLast`, else described itself.
        public func status(_ path: String, followingLast: Bool = true) -> Status? {
            do { return try resolve(path, followingLast: followingLast).status } catch { return nil }
        }

        public func exists(_ path: String) -> Bool { status(path) != nil }

        /// The bytes of a regular file at `path`, at most `limit`: anything else (a FIFO, a
        /// device, a directory, a socket) is refused without being opened for reading.
        public func read(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
            let shown = displayPath(path)
            let r: Resolved
            do { r = try resolve(path, followingLast: true) } catch { throw FileError(path: shown, problem: .system(error)) }
            switch r.status.kind {
            case .file: break
            case .directory: throw FileError(path: shown, problem: .directory)
            default: throw FileError(path: shown, problem: .notRegular)
            }
            if r.status.size > limit { throw FileError(path: shown, problem: .tooBig(size: r.status.size, limit: limit)) }
            let raw = retryingEINTR { openat(r.parent, r.name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC) }
            guard raw >= 0 else { throw FileError(path: shown, problem: .system(.last("open", path: shown))) }
            let fd = FileDescriptor(adopting: raw)
            // What was opened is what was walked to (a file swapped in between is refused).
            var st = stat()
            guard fstat(fd.rawValue, &st) == 0 else { throw FileError(path: shown, problem: .system(.last("fstat", path: shown))) }
            let opened = Status(st)
            guard opened.kind == .file, opened.device == r.status.device, opened.inode == r.status.inode else {
                throw FileError(path: shown, problem: .notRegular)
            }
            var out: [UInt8] = []
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { chunk.deallocate() }
            while true {
                let result: IOResult
                do { result = try fd.read(into: chunk) } catch {
                    throw FileError(path: shown, problem: .system(SystemError("read", error.errno, path: shown)))
                }
                guard case .done(let n) = result else { break }   // the end (or a file that would block: none is)
                if out.count + n > limit { throw FileError(path: shown, problem: .tooBig(size: out.count + n, limit: limit)) }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            }
            return out
        }

        /// A directory's entries (no "." or ".."), in the order the directory gives them.
        /// Throws ENOENT when there is nothing at `path`, ENOTDIR when it is not a directory,
        /// EACCES when it may not be read (another user's /proc/PID/fd).
        public func entries(_ path: String) throws(SystemError) -> [String] {
            try withDirectory(path) { d throws(SystemError) in
                var names: [String] = []
                while let e = readdir(d) {
                    let name = withUnsafeBytes(of: e.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                    if name != "." && name != ".." { names.append(name) }
                }
                return names
            }
        }

        /// Each entry of a directory and, for those that are symlinks, the text of the link
        /// (readlinkat: never followed). /proc/PID/fd: "5" → "/dev/input/event3".
        public func links(in path: String) throws(SystemError) -> [(name: String, target: String?)] {
            try withDirectory(path) { d throws(SystemError) in
                let dirfd = Glibc.dirfd(d)
                var out: [(name: String, target: String?)] = []
                while let e = readdir(d) {
                    let name = withUnsafeBytes(of: e.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                    guard name != "." && name != ".." else { continue }
                    out.append((name, Tree.readLink(dirfd, name)))
                }
                return out
            }
        }

        /// The text of the symlink at `path` (its last component not followed); nil when there
        /// is none there or it is not a symlink.
        public func link(_ path: String) -> String? {
            do {
                let r = try resolve(path, followingLast: false)
                return r.status.kind == .symlink ? Tree.readLink(r.parent, r.name) : nil
            } catch { return nil }
        }

        /// Runs `body` with a path by which the kernel reaches what the walk reaches at `path`
        /// (its last component not followed): "/proc/self/fd/N/NAME", N the walked directory's
        /// descriptor, open while `body` runs; nil when the walk fails. For calls that take only
        /// a path (connect(2) to a socket in the tree: the plain path would follow a symlinked
        /// directory out of it).
        public func withWalkedPath<T>(_ path: String, _ body: (String) -> T) -> T? {
            let r: Resolved
            do { r = try resolve(path, followingLast: false) } catch { return nil }
            return withExtendedLifetime(r) { body("/proc/self/fd/\(r.parent)/\(r.name)") }
        }

        /// The path as a user would name it: the root's own path in front.
        public func displayPath(_ path: String) -> String {
            if root == "/" { return path.hasPrefix("/") ? path : "/" + path }
            return (root.hasSuffix("/") ? String(root.dropLast()) : root) + (path.hasPrefix("/") ? path : "/" + path)
        }

        // MARK: the walk

        /// Where a walk ended: the directory holding the last component (kept open) and its
        /// name ("." when the walk ended on a directory by `..` or a link to the root), and
        /// what is there.
        final class Resolved {
            let parent: Int32
            let name: String
            let status: Status
            init(parent: Int32, name: String, status: Status) {
                self.parent = parent
                self.name = name
                self.status = status
            }
            deinit { _ = Glibc.close(parent) }
        }

        func resolve(_ path: String, followingLast: Bool) throws(SystemError) -> Resolved {
            let shown = displayPath(path)
            let rootFD = retryingEINTR { open(root, Tree.openPath | O_DIRECTORY | O_CLOEXEC) }
            guard rootFD >= 0 else { throw .last("open", path: root) }
            // The directories walked so far, the root first; each one's descriptor owned here.
            var stack: [Int32] = [rootFD]
            defer { for fd in stack { _ = Glibc.close(fd) } }
            var pending = Tree.components(path).reversed() as [Substring]
            var links = 0
            while let c = pending.popLast() {
                if c == ".." {
                    if stack.count > 1 { _ = Glibc.close(stack.removeLast()) }
                    continue
                }
                let here = stack[stack.count - 1]
                let raw = retryingEINTR { openat(here, String(c), Tree.openPath | O_NOFOLLOW | O_CLOEXEC) }
                guard raw >= 0 else { throw .last("open", path: shown) }
                var st = stat()
                guard fstat(raw, &st) == 0 else {
                    let e = SystemError.last("fstat", path: shown)
                    _ = Glibc.close(raw)
                    throw e
                }
                let status = Status(st)
                let last = pending.isEmpty
                if status.kind == .symlink && (!last || followingLast) {
                    _ = Glibc.close(raw)
                    links += 1
                    guard links <= Tree.maxLinks else { throw SystemError("open", Errno(rawValue: ELOOP), path: shown) }
                    guard let target = Tree.readLink(here, String(c)), !target.isEmpty else { throw SystemError("readlink", .noSuchFile, path: shown) }
                    if target.hasPrefix("/") {
                        for fd in stack.dropFirst() { _ = Glibc.close(fd) }
                        stack.removeSubrange(1...)
                    }
                    pending += Tree.components(target).reversed()
                    continue
                }
                if last {
                    _ = Glibc.close(raw)
                    let parent = stack.removeLast()
                    return Resolved(parent: parent, name: String(c), status: status)
                }
                guard status.kind == .directory else {
                    _ = Glibc.close(raw)
                    throw SystemError("open", .notDirectory, path: shown)
                }
                stack.append(raw)
            }
            // Ended on a directory: the root, or one reached by `..` or a link.
            let dir = stack.removeLast()
            var st = stat()
            guard fstat(dir, &st) == 0 else {
                let e = SystemError.last("fstat", path: shown)
                _ = Glibc.close(dir)
                throw e
            }
            return Resolved(parent: dir, name: ".", status: Status(st))
        }

        /// A path's components without empty ones and ".".
        static func components<S: StringProtocol>(_ path: S) -> [Substring] {
            String(path).split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        }

        static func readLink(_ dirfd: Int32, _ name: String) -> String? {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { readlinkat(dirfd, name, $0, b.count) }
            }
            guard n > 0, n < buf.count else { return nil }
            return String(decoding: buf[0..<n], as: UTF8.self)
        }

        /// Opens the directory at `path` for reading (walked as any path) and lends it.
        func withDirectory<T>(_ path: String, _ body: (OpaquePointer) throws(SystemError) -> T) throws(SystemError) -> T {
            let shown = displayPath(path)
            let r = try resolve(path, followingLast: true)
            guard r.status.kind == .directory else { throw SystemError("opendir", .notDirectory, path: shown) }
            let raw = retryingEINTR { openat(r.parent, r.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard raw >= 0 else { throw .last("opendir", path: shown) }
            guard let d = fdopendir(raw) else {
                let e = SystemError.last("fdopendir", path: shown)
                _ = Glibc.close(raw)
                throw e
            }
            defer { closedir(d) }
            return try body(d)
        }
    }
}
