@preconcurrency import Glibc
import Testing
@testable import TouchSystem

/// systemd's protocols as their documentation states them (sd_notify(3), sd_watchdog_enabled(3),
/// sd_listen_fds(3), sd_is_socket(3)), checked against real sockets: what a service manager
/// would receive, byte for byte, and what it may pass.

/// A datagram socket standing in for the manager's notification socket: bound to `address`
/// (a path, or "@name" for the abstract namespace, the name's bytes exactly).
final class ManagerSocket {
    let fd: Int32
    init(_ address: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(address.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            if abstract { raw[0] = 0 }
        }
        let length = socklen_t(2 + bytes.count + (abstract ? 0 : 1))
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard r == 0 else { throw SystemError.last("bind", path: address) }
    }
    deinit { close(fd) }

    /// The next datagram's bytes (nil when none comes within a second).
    func receive() -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 1000) == 1 else { return nil }
        var buf = [UInt8](repeating: 0, count: 8192)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n >= 0 ? Array(buf[0..<n]) : nil
    }
}

@Suite struct NotifyProtocolTests {
    @Test func aStateGoesAsOneDatagramOfExactlyItsBytesToAPath() throws {
        let s = Scratch()
        let manager = try ManagerSocket(s.path + "/notify")
        let state = "READY=1\nSTATUS=listening on /run/touchd/touchd.sock, 2 touchscreen(s) — ok\nMAINPID=\(getpid())"
        #expect(try ServiceManager.notify(state, socket: s.path + "/notify"))
        #expect(manager.receive() == Array(state.utf8))
        #expect(try ServiceManager.notify("WATCHDOG=1", socket: s.path + "/notify"))
        #expect(manager.receive() == Array("WATCHDOG=1".utf8))
        #expect(manager.receive() == nil)
    }

    @Test func anAtSignNamesTheAbstractNamespaceWithTheNamesBytesExactly() throws {
        let name = "@touchd-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let manager = try ManagerSocket(name)
        // Another abstract name, the same one with a NUL after it: an address that counted a
        // terminating NUL (or all of sun_path) would reach this one, or none, instead.
        let padded = try ManagerSocket(name + "\0")
        #expect(try ServiceManager.notify("STOPPING=1", socket: name))
        #expect(manager.receive() == Array("STOPPING=1".utf8))
        #expect(padded.receive() == nil)
    }

    @Test func withoutNotifySocketNothingIsSent() throws {
        #expect(try ServiceManager.notify("READY=1", socket: nil) == false)
    }

    @Test func anAddressThatIsNeitherAnAbsolutePathNorAbstractIsRefused() {
        #expect(throws: SystemError("NOTIFY_SOCKET", Errno(rawValue: EAFNOSUPPORT), path: "run/notify")) {
            try ServiceManager.notify("READY=1", socket: "run/notify")
        }
        #expect(throws: SystemError("NOTIFY_SOCKET", Errno(rawValue: EAFNOSUPPORT), path: "@")) {
            try ServiceManager.notify("READY=1", socket: "@")
        }
        #expect(throws: SystemError("NOTIFY_SOCKET", Errno(rawValue: EAFNOSUPPORT), path: "")) {
            try ServiceManager.notify("READY=1", socket: "")
        }
        let long = "/" + String(repeating: "x", count: 107)
        #expect(throws: SystemError("NOTIFY_SOCKET", .nameTooLong, path: long)) { try ServiceManager.notify("READY=1", socket: long) }
        // Nobody there: the send's own error, naming the socket.
        #expect(throws: SystemError("sendto", .noSuchFile, path: "/nonexistent/notify")) {
            try ServiceManager.notify("READY=1", socket: "/nonexistent/notify")
        }
    }

    /// sockaddr_un holds 108 bytes: a path up to 107 and its NUL; an abstract name up to 107
    /// after its leading NUL ("@" and 107 bytes), with no NUL after it.
    @Test func addressLengthsFollowTheKernelsRules() throws {
        let path = "/" + String(repeating: "p", count: 106)
        #expect(ServiceManager.notifyAddress(path)?.1 == socklen_t(2 + 107 + 1))
        #expect(ServiceManager.notifyAddress(path + "p") == nil)
        let abstract = "@" + String(repeating: "a", count: 107)
        #expect(ServiceManager.notifyAddress(abstract)?.1 == socklen_t(2 + 108))
        #expect(ServiceManager.notifyAddress(abstract + "a") == nil)
        let (addr, _) = try #require(ServiceManager.notifyAddress("@ab"))
        let bytes = withUnsafeBytes(of: addr.sun_path) { Array($0.prefix(4)) }
        #expect(bytes == [0, UInt8(ascii: "a"), UInt8(ascii: "b"), 0])
    }
}

@Suite struct WatchdogProtocolTests {
    let me = getpid()

    @Test func theIntervalIsForThisProcessOnly() {
        #expect(ServiceManager.watchdogMicros(usec: "200000", pid: nil, ownPID: me) == 200_000)
        #expect(ServiceManager.watchdogMicros(usec: "10000000", pid: "\(me)", ownPID: me) == 10_000_000)
        // A child that inherited its parent's variables is not the one watched.
        #expect(ServiceManager.watchdogMicros(usec: "200000", pid: "\(me + 1)", ownPID: me) == nil)
        #expect(ServiceManager.watchdogMicros(usec: "200000", pid: "not-a-pid", ownPID: me) == nil)
        #expect(ServiceManager.watchdogMicros(usec: "200000", pid: "0", ownPID: me) == nil)
        #expect(ServiceManager.watchdogMicros(usec: nil, pid: "\(me)", ownPID: me) == nil)
    }

    @Test func onlyAPositiveFiniteNumberOfMicrosecondsIsAnInterval() {
        for bad in ["", "0", "-200000", "+200000", " 200000", "200000 ", "2e5", "abc", "18446744073709551615", "99999999999999999999"] {
            #expect(ServiceManager.watchdogMicros(usec: bad, pid: nil, ownPID: me) == nil, "\(bad)")
        }
        #expect(ServiceManager.watchdogMicros(usec: "1", pid: nil, ownPID: me) == 1)
        #expect(ServiceManager.watchdogMicros(usec: "18446744073709551614", pid: nil, ownPID: me) == Int64.max)
    }
}
