@preconcurrency import Glibc
import Testing
@testable import TouchSystem

/// Socket activation as sd_listen_fds(3) states it: LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES,
/// descriptors from 3 (here from a free number: a test process cannot give itself 3), each
/// checked as sd_is_socket(3) does and marked close-on-exec.

/// Descriptors moved to consecutive numbers from a free one (dup2 clears FD_CLOEXEC, as a
/// manager's exec leaves them), closed at the end.
final class PassedDescriptors {
    let first: Int32
    let count: Int32
    init(_ raws: [Int32]) throws {
        var base: Int32 = 600 + Int32.random(in: 0..<300)
        while (base..<base + Int32(raws.count)).contains(where: { fcntl($0, F_GETFD) >= 0 }) { base += Int32(raws.count) }
        for (i, raw) in raws.enumerated() {
            guard dup2(raw, base + Int32(i)) == base + Int32(i) else { throw SystemError.last("dup2") }
            close(raw)
        }
        first = base
        count = Int32(raws.count)
    }
    deinit { for d in first..<first + count { close(d) } }
    func closeOnExec(_ i: Int32) -> Bool { fcntl(first + i, F_GETFD) & FD_CLOEXEC != 0 }
}

func unixSocket(_ type: __socket_type, listening: Bool, in s: Scratch, _ name: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(type.rawValue), 0)
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let path = s.path + "/" + name
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
    let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
    guard r == 0, !listening || listen(fd, 8) == 0 else { throw SystemError.last("bind/listen", path: path) }
    return fd
}

func tcpListener() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
    let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard r == 0, listen(fd, 8) == 0 else { throw SystemError.last("bind/listen 127.0.0.1") }
    return fd
}

@Suite struct SocketActivationParsingTests {
    let me = getpid()

    func parse(_ pid: String?, _ fds: String?, _ names: String? = nil) throws(SocketActivation.Failure) -> (count: Int, names: [String]?)? {
        try SocketActivation.parse(listenPID: pid, listenFDs: fds, listenFDNames: names, ownPID: me)
    }

    @Test func descriptorsAreForTheProcessLISTEN_PIDNames() throws {
        #expect(try parse("\(me)", "1")! == (1, nil))
        #expect(try parse("\(me)", "2", "touchd.socket:extra")! == (2, ["touchd.socket", "extra"]))
        #expect(try parse("\(me)", "3", "a::c")! == (3, ["a", "", "c"]))
        // Not for this process (a child that inherited them, a stale environment): nothing.
        #expect(try parse("\(me + 1)", "1") == nil)
        #expect(try parse(nil, "1") == nil)
        #expect(try parse("\(me)", nil) == nil)
    }

    @Test func malformedVariablesForThisProcessAreRefused() throws {
        let cases: [(String?, String?, String?, String)] = [
            ("\(me)", "0", nil, "LISTEN_FDS=0 is not a count of descriptors (1 or more)"),
            ("\(me)", "-1", nil, "LISTEN_FDS=-1 is not a count of descriptors (1 or more)"),
            ("\(me)", "one", nil, "LISTEN_FDS=one is not a count of descriptors (1 or more)"),
            ("\(me)", "", nil, "LISTEN_FDS= is not a count of descriptors (1 or more)"),
            ("\(me)", "2147483645", nil, "LISTEN_FDS=2147483645 is not a count of descriptors (1 or more)"),
            ("pid", "1", nil, "LISTEN_PID=pid is not a process id"),
            ("0", "1", nil, "LISTEN_PID=0 is not a process id"),
            ("\(me)", "2", "touchd.socket", "LISTEN_FDNAMES=touchd.socket names 1 descriptor(s), LISTEN_FDS=2 passes 2"),
        ]
        for (pid, fds, names, message) in cases {
            #expect(throws: SocketActivation.Failure(message)) { _ = try parse(pid, fds, names) }
        }
        #expect(try parse("\(me)", "2147483644") != nil)
    }
}

/// Serialized: each test moves descriptors to numbers it found free, which a test running
/// beside it could take at the same moment. The environment test is here for the same reason,
/// and because it is the one test that changes this process's environment (only variables
/// nothing else in the process reads).
@Suite(.serialized) struct SocketActivationDescriptorTests {
    let me = getpid()

    func receive(_ passed: PassedDescriptors, fds: String? = nil, names: String? = nil) throws(SocketActivation.Failure) -> [SocketActivation.Passed]? {
        try SocketActivation.receive(listenPID: "\(me)", listenFDs: fds ?? "\(passed.count)", listenFDNames: names, ownPID: me, first: passed.first)
    }

    @Test func aListeningUnixStreamSocketIsTakenAndMarkedCloseOnExec() throws {
        let s = Scratch()
        let passed = try PassedDescriptors([try unixSocket(SOCK_STREAM, listening: true, in: s, "a.sock")])
        #expect(!passed.closeOnExec(0))
        let got = try #require(try receive(passed, names: "touchd.socket"))
        #expect(got == [SocketActivation.Passed(descriptor: Descriptor(rawValue: passed.first), name: "touchd.socket")])
        #expect(passed.closeOnExec(0))
        #expect(got[0].kind.isListeningUnixStream)
        #expect(try SocketActivation.listeningUnixStream(in: got) == got[0])
    }

    @Test func whatIsNotAListeningUnixStreamSocketIsNamedAndRefused() throws {
        let s = Scratch()
        let file = open("/dev/null", O_RDONLY)
        let passed = try PassedDescriptors([file, try unixSocket(SOCK_STREAM, listening: false, in: s, "bound.sock"),
                                            try unixSocket(SOCK_DGRAM, listening: false, in: s, "dgram.sock"), try tcpListener()])
        let got = try #require(try receive(passed))
        #expect(got.map(\.kind.description) == ["not a socket", "a Unix stream socket that is not listening", "a Unix datagram socket",
                                                "an IPv4 stream socket, listening"])
        #expect(got.allSatisfy { !$0.kind.isListeningUnixStream })
        let f = passed.first
        #expect(throws: SocketActivation.Failure("no listening Unix stream socket among the descriptors passed: fd \(f) (unknown) is not a socket; "
            + "fd \(f + 1) (unknown) is a Unix stream socket that is not listening; fd \(f + 2) (unknown) is a Unix datagram socket; "
            + "fd \(f + 3) (unknown) is an IPv4 stream socket, listening")) {
            _ = try SocketActivation.listeningUnixStream(in: got)
        }
    }

    @Test func theFirstListeningUnixStreamSocketAmongSeveralIsChosen() throws {
        let s = Scratch()
        let passed = try PassedDescriptors([try unixSocket(SOCK_DGRAM, listening: false, in: s, "d.sock"),
                                            try unixSocket(SOCK_STREAM, listening: true, in: s, "l1.sock"),
                                            try unixSocket(SOCK_STREAM, listening: true, in: s, "l2.sock")])
        let got = try #require(try receive(passed, names: "log:subscribers:other"))
        #expect(try SocketActivation.listeningUnixStream(in: got).name == "subscribers")
        #expect((0..<3).allSatisfy { passed.closeOnExec($0) })
    }

    @Test func aCountBeyondTheOpenDescriptorsIsRefused() throws {
        let s = Scratch()
        let passed = try PassedDescriptors([try unixSocket(SOCK_STREAM, listening: true, in: s, "a.sock")])
        #expect(fcntl(passed.first + 1, F_GETFD) < 0)
        #expect(throws: SocketActivation.Failure("LISTEN_FDS=2 passes fd \(passed.first + 1), which is not open")) {
            _ = try receive(passed, fds: "2")
        }
        // The largest count stops at the same place, having allocated nothing for the others.
        #expect(throws: SocketActivation.Failure("LISTEN_FDS=2147483644 passes fd \(passed.first + 1), which is not open")) {
            _ = try receive(passed, fds: "2147483644")
        }
    }

    @Test func anotherProcesssDescriptorsAreLeftAlone() throws {
        let s = Scratch()
        let passed = try PassedDescriptors([try unixSocket(SOCK_STREAM, listening: true, in: s, "a.sock")])
        #expect(try SocketActivation.receive(listenPID: "\(me + 1)", listenFDs: "1", listenFDNames: nil, ownPID: me, first: passed.first) == nil)
        #expect(!passed.closeOnExec(0))
    }
}

/// A stand-in for the process's environment (changing the real one here would race the other
/// tests' threads, which read it when they start processes).
final class FakeEnvironment: @unchecked Sendable {
    var values: [String: String]
    init(_ values: [String: String]) { self.values = values }
    var environment: SocketActivation.Environment {
        SocketActivation.Environment(get: { [self] in values[$0] }, unset: { [self] in values[$0] = nil })
    }
}

extension SocketActivationDescriptorTests {
    @Test func theVariablesAreRemovedWhateverTheOutcome() throws {
        let s = Scratch()
        let passed = try PassedDescriptors([try unixSocket(SOCK_STREAM, listening: true, in: s, "a.sock")])
        let env = FakeEnvironment(["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "touchd.socket", "OTHER": "kept"])
        #expect(try SocketActivation.take(from: env.environment, first: passed.first)?.map(\.name) == ["touchd.socket"])
        #expect(env.values == ["OTHER": "kept"])
        #expect(try SocketActivation.take(from: env.environment, first: passed.first) == nil)
        for values in [["LISTEN_PID": "1", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "touchd.socket"], ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "zero"]] {
            env.values = values
            _ = try? SocketActivation.take(from: env.environment, first: passed.first)
            #expect(env.values.isEmpty, "\(values)")
        }
        // The process's own environment, which has none of them here.
        #expect(try SocketActivation.take() == nil)
    }
}
