@preconcurrency import Glibc

/// An exclusive advisory lock on a file (flock), held while the value lives: one daemon per
/// socket path. The lock file holds the owner's pid for the message of the one that loses.
/// It is never removed (removing a lock file races with the next owner's open).
public final class FileLock {
    let fd: FileDescriptor
    public let path: String

    init(fd: consuming FileDescriptor, path: String) {
        self.fd = fd
        self.path = path
    }

    public enum Outcome {
        case acquired(FileLock)
        /// Another process holds it; its pid as written in the file, when readable.
        case held(pid: Int32?)
    }

    /// Takes the lock without waiting.
    public static func acquire(_ path: String) throws(SystemError) -> Outcome {
        // Never through a symlink, and only a plain file of this user's with no other name:
        // in a directory others can write to, a planted link must not make a daemon running as
        // root truncate and write into another file.
        let raw = retryingEINTR { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0o644) }
        guard raw >= 0 else {
            let e = SystemError.last("open", path: path)
            if e.errno.rawValue == ELOOP { throw SystemError("open (a symlink, not followed)", e.errno, path: path) }
            throw e
        }
        let fd = FileDescriptor(adopting: raw)
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0 else { throw .last("fstat", path: path) }
        guard st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_nlink == 1 else {
            throw SystemError("open (not a plain file of this user's with one name)", Errno(rawValue: EPERM), path: path)
        }
        if retryingEINTR({ flock(fd.rawValue, LOCK_EX | LOCK_NB) }) != 0 {
            let e = Glibc.errno
            guard e == EWOULDBLOCK || e == EAGAIN else { throw .last("flock", path: path) }
            // The holder writes its pid just after taking the lock: a start racing it may look
            // in between, so it looks again for up to 100 ms.
            for attempt in 0..<20 {
                var buf = [UInt8](repeating: 0, count: 32)
                let n = buf.withUnsafeMutableBytes { pread(fd.rawValue, $0.baseAddress, $0.count, 0) }
                let text = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).split(separator: "\n").first.map(String.init) : nil
                if let pid = text.flatMap({ Int32($0) }), pid > 0 { return .held(pid: pid) }
                if attempt < 19 { usleep(5_000) }
            }
            return .held(pid: nil)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd.rawValue, 0)
        _ = pid.withUnsafeBytes { pwrite(fd.rawValue, $0.baseAddress, $0.count, 0) }
        return .acquired(FileLock(fd: fd, path: path))
    }
}
