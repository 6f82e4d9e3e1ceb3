@preconcurrency import Glibc
import TouchCore

/// The listening Unix socket: created at the configured path (parent directory made, mode and
/// group applied, a stale socket from a crashed run replaced, a live one left alone), or
/// adopted from systemd's socket activation.
public final class Listener {
    public let fd: Int32
    public let path: String
    /// Created by us (so removed by us); false for an activated socket systemd owns.
    public let owned: Bool

    init(fd: Int32, path: String, owned: Bool) {
        self.fd = fd
        self.path = path
        self.owned = owned
    }

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// An inherited listening socket (socket activation).
    public static func adopt(fd: Int32, path: String) -> Listener {
        Sys.setCloseOnExec(fd)
        return Listener(fd: fd, path: path, owned: false)
    }

    public static func bind(path: String, mode: UInt32, group: String?, log: LogFunction) throws(Failure) -> Listener {
        guard Sys.unixAddress(path) != nil else {
            throw Failure(message: "socket path \(path) is too long for a Unix socket (107 bytes at most)")
        }
        try makeParent(of: path, log: log)
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw Failure(message: "\(path) exists and is not a socket; refusing to replace it")
            }
            do {
                let probe = try Sys.connectUnix(path)
                Sys.close(probe)
                throw Failure(message: "another daemon is already listening on \(path)")
            } catch let e as SysError {
                guard e.errno == ECONNREFUSED || e.errno == ENOENT else {
                    throw Failure(message: "\(path) exists and cannot be probed: \(e)")
                }
                if unlink(path) != 0 && errno != ENOENT {
                    throw Failure(message: "cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
                }
                log(.info, "removed a stale socket left by an earlier run: \(path)")
            } catch {
                throw error as! Failure
            }
        }
        // Bound under a temporary name, made ready (mode, group, listen), then renamed into
        // place: a client never finds the path without a listening socket behind it.
        let temporary = path + ".\(getpid()).new"
        guard var tempAddr = Sys.unixAddress(temporary) else {
            throw Failure(message: "socket path \(path) is too long for a Unix socket (107 bytes at most)")
        }
        unlink(temporary)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket: \(String(cString: strerror(errno)))") }
        // Never visible with looser permissions than asked for, even for an instant.
        let oldMask = umask(0o177)
        let bound = withUnsafePointer(to: &tempAddr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let bindErrno = errno
        umask(oldMask)
        guard bound == 0 else {
            Sys.close(fd)
            throw Failure(message: "cannot bind \(path): \(String(cString: strerror(bindErrno)))")
        }
        if chmod(temporary, mode_t(mode)) != 0 {
            log(.warning, "chmod \(String(mode, radix: 8)) \(path): \(String(cString: strerror(errno)))")
        }
        if let group {
            if let gr = getgrnam(group) {
                if chown(temporary, uid_t.max, gr.pointee.gr_gid) != 0 {
                    log(.warning, "cannot give \(path) to group \(group): \(String(cString: strerror(errno))); it keeps the daemon's group")
                }
            } else {
                log(.warning, "group \(group) does not exist; \(path) keeps the daemon's group")
            }
        }
        guard listen(fd, 128) == 0 else {
            let e = errno
            Sys.close(fd)
            unlink(temporary)
            throw Failure(message: "listen \(path): \(String(cString: strerror(e)))")
        }
        guard rename(temporary, path) == 0 else {
            let e = errno
            Sys.close(fd)
            unlink(temporary)
            throw Failure(message: "cannot move the socket into place at \(path): \(String(cString: strerror(e)))")
        }
        return Listener(fd: fd, path: path, owned: true)
    }

    static func makeParent(of path: String, log: LogFunction) throws(Failure) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        var current = ""
        var created: [String] = []
        while !parts.isEmpty {
            current += "/" + parts.removeFirst()
            var st = stat()
            if stat(current, &st) == 0 {
                guard (st.st_mode & S_IFMT) == S_IFDIR else { throw Failure(message: "\(current) is not a directory") }
                continue
            }
            guard mkdir(current, 0o755) == 0 || errno == EEXIST else {
                throw Failure(message: "cannot create the socket directory \(current): \(String(cString: strerror(errno)))")
            }
            created.append(current)
        }
        if !created.isEmpty { log(.info, "created \(created.joined(separator: ", "))") }
    }

    /// Removes the socket file if this process created it.
    public func remove() {
        Sys.close(fd)
        if owned { unlink(path) }
    }
}
