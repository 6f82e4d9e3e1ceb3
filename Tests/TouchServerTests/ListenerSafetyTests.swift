import Foundation
import Testing
import TouchCore
import TouchSystem
@testable import TouchServer

/// The files the daemon makes beside its socket are never reached through a symlink or a second
/// name, and any socket path that fits a sockaddr_un can be bound (issue 21, item 1).
@Suite(.serialized) struct ListenerSafetyTests {
    func directory() throws -> String {
        let d = NSTemporaryDirectory() + "touchd-listener-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func bindFailure(_ path: String) -> String? {
        do {
            _ = try Listener.bind(path: path, mode: 0o660, group: nil, log: { _, _ in })
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aPlantedSymlinkLockIsNotFollowed() throws {
        let d = try directory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let victim = d + "/victim"
        try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: d + "/s.sock.lock", withDestinationPath: victim)
        let failure = bindFailure(d + "/s.sock")
        #expect(failure?.contains("symlink") == true, "\(failure ?? "bound")")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    @Test func aLockWithASecondNameIsRefused() throws {
        let d = try directory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let victim = d + "/victim"
        try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.linkItem(atPath: victim, toPath: d + "/s.sock.lock")
        let failure = bindFailure(d + "/s.sock")
        #expect(failure?.contains("one name") == true, "\(failure ?? "bound")")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    /// A symlink at the socket path (to a file, to a live or a stale socket, dangling) is refused, named, and
    /// left as it is: never followed, never replaced (docs/config.md says so).
    @Test func aSymlinkAtTheSocketPathIsRefusedAndLeftAlone() throws {
        let d = try directory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let victim = d + "/victim"
        try "precious\n".write(toFile: victim, atomically: true, encoding: .utf8)
        let live = d + "/live.sock"
        let liveListener = try Listener.bind(path: live, mode: 0o660, group: nil, log: { _, _ in })
        _ = liveListener
        let stale = d + "/stale.sock"   // its listener gone, the file left: nobody listening
        do { _ = try Listener.bind(path: stale, mode: 0o660, group: nil, log: { _, _ in }) }
        for target in [victim, live, stale, d + "/nothing"] {
            let path = d + "/s.sock"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            #expect(bindFailure(path) == "\(path) exists and is not a socket; refusing to replace it", "\(target)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target)
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    @Test func thePathLimitIsTheSocketsAndNothingIsLeftBeside() throws {
        let d = try directory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // A path of exactly 107 bytes (sockaddr_un's limit): the staging name is no longer.
        let name = String(repeating: "s", count: UnixSocket.maxPathBytes - d.utf8.count - 1)
        let path = d + "/" + name
        #expect(path.utf8.count == UnixSocket.maxPathBytes)
        let listener = try Listener.bind(path: path, mode: 0o660, group: nil, log: { _, _ in })
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeSocket)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o660)
        let left = try FileManager.default.contentsOfDirectory(atPath: d).sorted()
        #expect(left == [name, name + ".lock"])
        listener.removeFile(log: { _, _ in })
        // One byte more is refused by name.
        #expect(bindFailure(path + "x")?.contains("too long") == true)
    }

    /// A missing socket group (issue 32): the package's own, missing wherever the package is not
    /// installed, is said at info (the README's examples printed a warning nobody could act on);
    /// another the config names is a warning saying what to do.
    @Test func aMissingGroupIsAWarningUnlessItIsThePackagesOwn() throws {
        let d = try directory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        final class Lines: @unchecked Sendable { var all: [(LogLevel, String)] = [] }
        let lines = Lines()
        let listener = try Listener.bind(path: d + "/a.sock", mode: 0o660, group: "touchd-no-such-group", log: { lines.all.append(($0, $1)) })
        listener.removeFile(log: { _, _ in })
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.0 == .warning)
        #expect(lines.all.first?.1.contains("group touchd-no-such-group does not exist (make it with groupadd --system touchd-no-such-group") == true, "\(lines.all)")
        #expect(Listener.missingGroup("touchd").0 == .info)
        #expect(Listener.missingGroup("touchd-kiosk").0 == .warning)
        if getgrnam("touchd") == nil {
            lines.all = []
            let own = try Listener.bind(path: d + "/b.sock", mode: 0o660, group: "touchd", log: { lines.all.append(($0, $1)) })
            own.removeFile(log: { _, _ in })
            #expect(lines.all.map(\.0) == [.info], "\(lines.all)")
        }
    }
}
