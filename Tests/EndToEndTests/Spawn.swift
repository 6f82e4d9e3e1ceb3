import Foundation
import Glibc
import Testing

/// A child process started with posix_spawn, with its standard streams set up by us. (The
/// tests do not use Foundation's Process: under concurrency it can close a descriptor twice,
/// which closes whatever another test has just opened with that number.)
final class Spawned {
    let pid: pid_t
    private(set) var exit: (status: Int32, signalled: Bool)?

    /// `stdin`, `stdout`, `stderr`: descriptors for the child's 0, 1, 2 (nil: /dev/null). The
    /// caller keeps ownership of its copies.
    init(_ path: String, _ args: [String], environment: [String: String]? = nil,
         stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        posix_spawn_file_actions_adddup2(&actions, stdin ?? null, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout ?? null, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr ?? null, 2)
        var env = Foundation.ProcessInfo.processInfo.environment
        for (k, v) in environment ?? [:] { env[k] = v }
        let argv = ([path] + args).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard rc == 0 else { throw SpawnError(path: path, errno: rc) }
        pid = child
    }

    struct SpawnError: Error, CustomStringConvertible {
        var path: String
        var errno: Int32
        var description: String { "cannot start \(path): \(String(cString: strerror(errno)))" }
    }

    var isRunning: Bool { poll() == nil }

    /// Reaps the child if it has exited.
    @discardableResult
    func poll() -> (status: Int32, signalled: Bool)? {
        if let exit { return exit }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else { return nil }
        let signalled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        exit = (signalled ? status & 0x7f : (status >> 8) & 0xff, signalled)
        return exit
    }

    func signal(_ s: Int32) { if exit == nil { kill(pid, s) } }

    /// Waits for the exit (bounded); a child still running then is killed and that is an issue.
    @discardableResult
    func wait(timeout: TimeInterval = 20, _ what: String = "process") -> (status: Int32, signalled: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while poll() == nil && Date() < deadline { usleep(5_000) }
        if poll() == nil {
            Issue.record("\(what) did not exit within \(timeout) s")
            kill(pid, SIGKILL)
            while poll() == nil { usleep(5_000) }
        }
        return exit!
    }

    deinit {
        if poll() == nil {
            kill(pid, SIGKILL)
            while poll() == nil { usleep(1_000) }
        }
    }
}

/// A one-way channel (a socket pair, made close-on-exec atomically so that no other test's
/// child inherits it): the child gets one end, the caller the other.
struct ChildPipe {
    var read: Int32
    var write: Int32
    init() {
        var fds: [Int32] = [-1, -1]
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        read = fds[0]
        write = fds[1]
    }
}

/// Reads two descriptors to their end at once (a chatty child cannot block on a full pipe),
/// until both close or the deadline passes.
func drain(_ a: Int32, _ b: Int32, until deadline: Date) -> (Data, Data) {
    var out = [Data(), Data()]
    var open = [a, b]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while open.contains(where: { $0 >= 0 }) && Date() < deadline {
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = Glibc.poll(&fds, nfds_t(fds.count), 50)
        if n <= 0 { continue }
        for k in 0..<2 where open[k] >= 0 && fds[k].revents != 0 {
            let r = buffer.withUnsafeMutableBytes { Glibc.read(open[k], $0.baseAddress, $0.count) }
            if r > 0 { out[k].append(contentsOf: buffer[0..<r]) } else if r == 0 || (errno != EINTR && errno != EAGAIN) { open[k] = -1 }
        }
    }
    return (out[0], out[1])
}
