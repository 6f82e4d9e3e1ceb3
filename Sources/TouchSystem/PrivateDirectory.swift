@preconcurrency import Glibc

/// A directory only this user can enter (mode 0700), made beside a file the daemon is about to
/// put in place: an entry is made and prepared inside it (its mode and group set through the
/// directory's descriptor, where nobody else can swap it for a symlink), then renamed into place
/// in one step. Removed, with anything left in it, when the value goes. Owned by one thread.
public final class PrivateDirectory {
    public let path: String
    let fd: FileDescriptor
    var entries: Set<String> = []

    /// Makes `.NAME.PID.private` in `directory`.
    public init(in directory: String, name: String) throws(SystemError) {
        let p = (directory.isEmpty ? "." : directory) + "/.\(name).\(getpid()).private"
        // One left by a crashed run of this pid (a reused pid) goes first.
        _ = Glibc.rmdir(p)
        guard mkdir(p, 0o700) == 0 else { throw .last("mkdir", path: p) }
        let raw = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard raw >= 0 else {
            let e = SystemError.last("open", path: p)
            _ = Glibc.rmdir(p)
            throw e
        }
        path = p
        fd = FileDescriptor(adopting: raw)
    }

    deinit {
        for e in entries { _ = unlinkat(fd.rawValue, e, 0) }
        _ = Glibc.rmdir(path)
    }

    /// A path naming `entry` through the directory's descriptor (/proc/self/fd/N/ENTRY): short,
    /// whatever the directory's own path, and resolved through the descriptor, not the path.
    /// The directory's full path when /proc is not mounted.
    public func reference(_ entry: String) -> String {
        entries.insert(entry)
        let viaProc = "/proc/self/fd/\(fd.rawValue)/\(entry)"
        return access("/proc/self/fd/\(fd.rawValue)", F_OK) == 0 ? viaProc : path + "/" + entry
    }

    public func chmod(_ entry: String, _ mode: UInt32) throws(SystemError) {
        guard fchmodat(fd.rawValue, entry, mode_t(mode), 0) == 0 else { throw .last("chmod", path: path + "/" + entry) }
    }

    /// Gives `entry` to a group by name; false when there is no such group.
    public func setGroup(_ entry: String, group: String) throws(SystemError) -> Bool {
        guard let gr = getgrnam(group) else { return false }
        guard fchownat(fd.rawValue, entry, uid_t.max, gr.pointee.gr_gid, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .last("chown", path: path + "/" + entry)
        }
        return true
    }

    /// Moves `entry` to `target` (replacing whatever is there, a symlink included, never what it
    /// points to).
    public func move(_ entry: String, to target: String) throws(SystemError) {
        guard renameat(fd.rawValue, entry, AT_FDCWD, target) == 0 else { throw .last("rename", path: "\(path)/\(entry) → \(target)") }
        entries.remove(entry)
    }
}
