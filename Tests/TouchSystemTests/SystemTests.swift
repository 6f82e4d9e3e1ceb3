@preconcurrency import Glibc
import Testing
@testable import TouchSystem

/// The seam to the OS, on the real kernel: descriptors, errors, epoll, signals, timers, sockets.

/// A fresh directory under /tmp, removed at the end.
final class Scratch {
    let path: String
    init() {
        var template = Array("/tmp/touchd-system-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }
    deinit { _ = system("rm -rf '\(path)'") }
    func file(_ name: String, _ bytes: [UInt8]) -> String {
        let p = path + "/" + name
        let f = fopen(p, "w")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        return p
    }
}

func isOpen(_ raw: Int32) -> Bool { fcntl(raw, F_GETFD) >= 0 }

@Suite struct FileDescriptorTests {
    @Test func anOwnedDescriptorIsClosedExactlyOnceWhenItsOwnerLetsGo() throws {
        var raw: Int32 = -1
        do {
            let fd = try FileDescriptor.open("/dev/null", .readOnly)
            raw = fd.rawValue
            #expect(isOpen(raw))
        }
        #expect(!isOpen(raw))
        let fd = try FileDescriptor.open("/dev/null", .readOnly)
        let again = fd.rawValue
        fd.close()
        #expect(!isOpen(again))
        // The standard streams are borrowed, never closed.
        do { _ = FileDescriptor.standardError }
        #expect(isOpen(STDERR_FILENO))
    }

    @Test func errorsNameTheCallThePathAndTheErrno() {
        #expect(throws: SystemError("open", .noSuchFile, path: "/nonexistent/x")) {
            _ = try FileDescriptor.open("/nonexistent/x", .readOnly)
        }
        #expect(SystemError("open", .noSuchFile, path: "/x").description == "open /x: No such file or directory")
        #expect(SystemError("epoll_wait", .interrupted).description == "epoll_wait: Interrupted system call")
    }

    @Test func fileReadsAreBoundedBeforeReading() throws {
        let s = Scratch()
        let p = s.file("big", [UInt8](repeating: 65, count: 5000))
        #expect(try FileSystem.read(p, limit: 5000).count == 5000)
        do {
            _ = try FileSystem.read(p, limit: 4999)
            Issue.record("a file over the limit was read")
        } catch {
            #expect(error.description == "\(p): is 5000 bytes, more than the 4999-byte limit for input files (--max-input-size raises it)")
        }
        #expect(throws: FileError.self) { _ = try FileSystem.read(s.path, limit: 10) }
        do { _ = try FileSystem.read(s.path, limit: 10) } catch { #expect(error.message == "is a directory") }
        do { _ = try FileSystem.read(s.path + "/missing", limit: 10) } catch { #expect(error.message == "no such file") }
    }

    @Test func makeParentsCreatesWhatIsMissingAndRefusesAFile() throws {
        let s = Scratch()
        #expect(try FileSystem.makeParents(of: s.path + "/a/b/c.sock") == [s.path + "/a", s.path + "/a/b"])
        #expect(try FileSystem.makeParents(of: s.path + "/a/b/c.sock").isEmpty)
        _ = s.file("f", [1])
        #expect(throws: SystemError("mkdir", Errno(rawValue: ENOTDIR), path: s.path + "/f")) {
            _ = try FileSystem.makeParents(of: s.path + "/f/x.sock")
        }
    }
}

@Suite struct EventLoopTests {
    @Test func aSocketPairThroughEpollReadWriteWouldBlockAndClosed() throws {
        let s = Scratch()
        let path = s.path + "/t.sock"
        let listener = try UnixSocket.bind(path)
        try UnixSocket.listen(listener)
        try listener.setNonBlocking()
        #expect(try UnixSocket.accept(listener) == nil)          // nobody waiting: a value, not an error
        let client = try UnixSocket.connect(path)
        let epoll = try Epoll()
        try epoll.add(listener.number)
        #expect(try epoll.wait(timeoutMS: 1000).map(\.descriptor) == [listener.number])
        guard let server = try UnixSocket.accept(listener) else { Issue.record("a connection was waiting"); return }
        #expect(try UnixSocket.peerCredentials(server).pid == getpid())
        try epoll.add(server.number)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try server.read(into: $0) } == .wouldBlock)
        #expect(try Array("hi\n".utf8).withUnsafeBytes { try client.send($0) } == .done(3))
        let ready = try epoll.wait(timeoutMS: 1000)
        #expect(ready.count == 1 && ready[0].descriptor == server.number && ready[0].readable)
        #expect(try buffer.withUnsafeMutableBytes { try server.read(into: $0) } == .done(3))
        client.close()
        #expect(try buffer.withUnsafeMutableBytes { try server.read(into: $0) } == .closed)
        #expect(try Array("x".utf8).withUnsafeBytes { try server.send($0) } == .closed)   // EPIPE without SIGPIPE
        try epoll.remove(server.number)
        try epoll.remove(Descriptor(rawValue: 999))       // not watched: not an error
    }

    @Test func aStaleSocketRefusesConnectionsAndALongPathIsRefused() throws {
        let s = Scratch()
        let path = s.path + "/stale.sock"
        do { _ = try UnixSocket.bind(path) }              // bound, never listened, closed
        #expect(throws: SystemError("connect", .connectionRefused, path: path)) { _ = try UnixSocket.connect(path) }
        let long = "/tmp/" + String(repeating: "x", count: UnixSocket.maxPathBytes)
        #expect(!UnixSocket.fits(long))
        #expect(throws: SystemError("bind", .nameTooLong, path: long)) { _ = try UnixSocket.bind(long) }
    }

    @Test func signalsArriveAsEvents() throws {
        let signals = try SignalSource([SIGUSR1])
        let epoll = try Epoll()
        try epoll.add(signals.fd.number)
        #expect(try signals.take().isEmpty)
        pthread_kill(pthread_self(), SIGUSR1)   // to this thread, which blocks it: never the default action
        #expect(try epoll.wait(timeoutMS: 1000).first?.descriptor == signals.fd.number)
        #expect(try signals.take() == [SIGUSR1])
        #expect(SignalSource.name(SIGHUP) == "SIGHUP")
    }

    @Test func aDeadlineWakesTheLoopAndCanBeDisarmed() throws {
        let timer = try DeadlineTimer()
        let epoll = try Epoll()
        try epoll.add(timer.fd.number)
        let start = Clock.monotonicMicros()
        try timer.arm(at: start + 20_000)
        #expect(try epoll.wait(timeoutMS: 2000).first?.descriptor == timer.fd.number)
        #expect(Clock.monotonicMicros() - start >= 20_000)
        try timer.acknowledge()
        #expect(try epoll.wait(timeoutMS: 0).isEmpty)
        try timer.arm(at: Clock.monotonicMicros() + 20_000)
        try timer.arm(at: nil)
        #expect(try epoll.wait(timeoutMS: 60).isEmpty)
    }
}
