import TouchCore
import TouchSystem

/// The listening Unix socket: created at the configured path (parent directory made, mode and
/// group applied, a stale socket from a crashed run replaced, a live one left alone), or
/// adopted from systemd's socket activation.
///
/// One daemon per path: a lock on PATH.lock (flock) decides between two daemons started at
/// once — the loser exits saying who holds it — and the socket file is only ever removed by the
/// daemon that made it, and only while it is still the one it made (same inode).
public final class Listener {
    let fd: FileDescriptor
    public let path: String
    /// Created by us (so removed by us); false for an activated socket systemd owns.
    public let owned: Bool
    /// Held while we serve the path (nil for an activated socket).
    let lock: FileLock?
    /// The socket file we made, as it was when we put it in place.
    let identity: (device: UInt64, inode: UInt64)?

    init(fd: consuming FileDescriptor, path: String, owned: Bool, lock: FileLock? = nil) {
        self.fd = fd
        self.path = path
        self.owned = owned
        self.lock = lock
        identity = owned ? FileSystem.identity(path) : nil
    }

    public var descriptor: Descriptor { fd.number }

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        init(_ message: String) { self.message = message }
    }

    /// An inherited listening socket (socket activation); the process owns it from now on.
    public static func adopt(_ d: Descriptor, path: String) throws(Failure) -> Listener {
        let fd = FileDescriptor(adopting: d.rawValue)
        do {
            try fd.setCloseOnExec()
            try fd.setNonBlocking()
        } catch {
            throw Failure("the socket passed by systemd (\(d)): \(error)")
        }
        return Listener(fd: fd, path: path, owned: false)
    }

    public static func bind(path: String, mode: UInt32, group: String?, log: LogFunction) throws(Failure) -> Listener {
        guard UnixSocket.fits(path) else {
            throw Failure("socket path \(path) is too long for a Unix socket (\(UnixSocket.maxPathBytes) bytes at most)")
        }
        do {
            let created = try FileSystem.makeParents(of: path)
            if !created.isEmpty { log(.info, "created \(created.joined(separator: ", "))") }
        } catch {
            if error.call == "mkdir" && error.errno == .notDirectory, let p = error.path { throw Failure("\(p) is not a directory") }
            throw Failure("cannot create the socket directory \(error.path ?? path): \(error.errno)")
        }
        let lock: FileLock
        do {
            switch try FileLock.acquire(path + ".lock") {
            case .acquired(let l): lock = l
            case .held(let pid):
                throw Failure("another touchd\(pid.map { " (pid \($0))" } ?? "") is running on \(path) (it holds \(path).lock)")
            }
        } catch let e as Failure {
            throw e
        } catch {
            throw Failure("cannot take \(path).lock: \(error)")
        }
        try replaceStale(path, log: log)
        // Bound in a directory only this daemon can enter, made ready there (mode, group,
        // listen), then renamed into place: a client never finds the path without a listening
        // socket behind it, the socket is never visible with looser permissions than asked for,
        // and nobody can swap it for a symlink between the bind and the chmod/chown (they go
        // through the private directory's descriptor). The bind names it through that
        // descriptor (/proc/self/fd/N/socket), so any path that fits a Unix socket works.
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let staging: PrivateDirectory
        do { staging = try PrivateDirectory(in: directory.isEmpty ? "/" : directory, name: name) } catch {
            throw Failure("cannot make a private directory beside \(path): \(error.errno)")
        }
        let fd: FileDescriptor
        do { fd = try UnixSocket.bind(staging.reference("socket")) } catch { throw Failure("cannot bind \(path): \(error.errno)") }
        do { try staging.chmod("socket", mode) } catch {
            log(.warning, "chmod \(String(mode, radix: 8)) \(path): \(error.errno)")
        }
        if let group {
            do {
                if try !staging.setGroup("socket", group: group) {
                    let (level, advice) = missingGroup(group)
                    log(level, "group \(group) does not exist (\(advice)); \(path) keeps the daemon's group")
                }
            } catch {
                log(.warning, "cannot give \(path) to group \(group): \(error.errno); it keeps the daemon's group")
            }
        }
        do {
            try UnixSocket.listen(fd)
            try fd.setNonBlocking()
            try staging.move("socket", to: path)
        } catch {
            throw Failure(error.call == "rename" ? "cannot move the socket into place at \(path): \(error.errno)" : "\(error.call) \(path): \(error.errno)")
        }
        return Listener(fd: fd, path: path, owned: true, lock: lock)
    }

    /// How a missing socket group is reported (issue 32: every README example warned of one a
    /// user could not act on). The package's own group (SocketSettings' default, `touchd`) is
    /// missing wherever the package is not installed — the source tree, a demo — and the socket
    /// then keeps the daemon's group, as it should: said at info. Any other group the config names
    /// is the config's choice, and its absence a mistake to fix: a warning.
    static func missingGroup(_ group: String) -> (LogLevel, String) {
        group == SocketSettings().group
            ? (.info, "the package makes it: systemd-sysusers, or groupadd --system \(group)")
            : (.warning, "make it with groupadd --system \(group), or name an existing group in socket.group")
    }

    /// A socket file at `path`: a live daemon's is refused, a stale one (nobody listening)
    /// removed, anything that is not a socket refused.
    static func replaceStale(_ path: String, log: LogFunction) throws(Failure) {
        let kind: FileSystem.Kind
        do { kind = try FileSystem.kind(path) } catch { throw Failure("\(path) cannot be examined: \(error.errno)") }
        switch kind {
        case .missing: return
        case .socket: break
        default: throw Failure("\(path) exists and is not a socket; refusing to replace it")
        }
        switch UnixSocket.probe(path) {
        case .success(true): throw Failure("another daemon is already listening on \(path)")
        case .success(false): break
        case .failure(let e): throw Failure("\(path) exists and cannot be probed: \(e)")
        }
        do { try FileSystem.unlink(path) } catch { throw Failure("cannot remove the stale socket \(path): \(error.errno)") }
        log(.info, "removed a stale socket left by an earlier run: \(path)")
    }

    /// Removes the socket file if this process created it (the descriptor closes with the
    /// listener).
    public func removeFile(log: LogFunction) {
        guard owned else { return }
        guard let mine = identity, let now = FileSystem.identity(path), mine == now else {
            log(.warning, "\(path) is no longer the socket this daemon made; left alone")
            return
        }
        do { try FileSystem.unlink(path) } catch { log(.warning, "cannot remove \(path): \(error.errno)") }
    }
}
