import Foundation
import Testing
import TouchCore
import TouchSystem
@testable import TouchServer

/// The whole server in this process: a real listening socket and epoll, a client socket, the
/// daemon's part played by the test (its host answers snapshots; its loop is `turn`), and a clock
/// the test sets. No daemon binary, no sleeping.
@Suite(.serialized) struct ServerInProcessTests {
    final class Host: ServerHost {
        var touches: [(record: TouchRecord, device: String)] = []
        /// For every touch the engine follows (a snapshot lists only those the views know), the
        /// owner of the private window it landed in.
        var privateOwners: [Int?] = []
        func snapshot() -> Snapshot { Snapshot(touches: touches, devices: [], time: 0, seq: 0, liveTouches: liveTouchCount) }
        var liveTouchCount: Int { privateOwners.count }
        var liveTouchPrivateOwners: [Int?] { privateOwners }
    }

    /// The server alone, below the daemon (TouchServerTests cannot see TouchDaemon): not the
    /// engine's Rig of TouchTestSupport, nor the daemon's EmbeddedDaemon, which drive the layers above.
    final class ServerRig {
        let dir: String
        let server: Server
        let epoll: Epoll
        let host = Host()
        var now: Int64 = 1_000_000
        let history: SceneHistory

        init(queueLimit: Int = 64, queueBytes: Int = ServerLimits().queueBytes, scene given: Scene? = nil) throws {
            dir = NSTemporaryDirectory() + "touchd-inproc-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let scene = try given ?? Config.parse("""
                {"windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]}
                """).scene
            history = SceneHistory(scene: scene)
            epoll = try Epoll()
            let listener = try Listener.bind(path: dir + "/s.sock", mode: 0o600, group: nil, log: { _, _ in })
            var limits = ServerLimits()
            limits.queueLimit = queueLimit
            limits.queueBytes = queueBytes
            var clock: (() -> Int64)!
            server = try Server(listener: listener, epoll: epoll, history: history, screen: Size(800, 480), version: "test",
                                limits: limits, clock: { clock() }, log: { _, _ in })
            clock = { [unowned self] in self.now }
        }

        deinit {
            server.closeAll()
            try? FileManager.default.removeItem(atPath: dir)
        }

        /// One turn of a daemon's loop, without applying scene requests.
        func turn() throws {
            for r in try epoll.wait(timeoutMS: 20) { server.handle(r, host: host) }
            server.serveBacklogs(host: host)
            server.flush(host: host)
        }

        func connect() throws -> Client { try Client(path: dir + "/s.sock") }
    }

    /// A client socket read without blocking.
    final class Client {
        let fd: FileDescriptor
        var pending: [UInt8] = []
        init(path: String) throws {
            fd = try UnixSocket.connect(path)
            _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
        }
        func send(_ s: String) throws {
            let b = Array(s.utf8)
            _ = try b.withUnsafeBytes { (p) throws(SystemError) in try fd.send(p) }
        }
        /// Every whole line that has arrived.
        func lines() throws -> [String] {
            var buf = [UInt8](repeating: 0, count: 65_536)
            while true {
                let r = try buf.withUnsafeMutableBytes { (p) throws(SystemError) in try fd.read(into: p) }
                guard case .done(let n) = r else { break }
                pending += buf[0..<n]
            }
            var out: [String] = []
            while let k = pending.firstIndex(of: 0x0A) {
                out.append(String(decoding: pending[..<k], as: UTF8.self))
                pending.removeSubrange(...k)
            }
            return out
        }
    }

    func move(_ seq: Int, _ t: Int64) -> Message {
        .frame(FrameMessage(seq: seq, time: t, device: "d", touches: [
            TouchRecord(id: 1, phase: .moved, window: nil, view: nil, location: Point(Double(seq), 0), previous: .zero,
                        locationInView: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil),
        ], calls: []))
    }

    @Test func aSceneRequestWaitsForTheLoopAndItsSendersLaterLinesWaitForItsReply() throws {
        let rig = try ServerRig()
        let c = try rig.connect()
        try rig.turn()
        #expect(try c.lines().map { $0.prefix(17) } == ["{\"type\":\"hello\",\"", "{\"type\":\"snapshot"])
        try c.send("{\"ping\":1}\n{\"detach\":{\"window\":\"w\"}}\n{\"ping\":3}\n")
        try rig.turn()
        // The ping before the request is answered; the one after waits for the request's reply.
        #expect(try c.lines() == ["{\"type\":\"pong\",\"ping\":1}"])
        let queued = rig.server.takeSceneRequests()
        #expect(queued.count == 1)
        #expect(queued.first?.client.line == 2)
        #expect(rig.server.takeSceneRequests().isEmpty)
        try rig.turn()
        #expect(try c.lines().isEmpty)
        guard let p = queued.first else { return }
        #expect(rig.server.isConnected(p))
        rig.server.answer(p, .detached(window: "w"), host: rig.host)
        try rig.turn()
        let lines = try c.lines()
        #expect(lines.count == 2)
        #expect(lines.first?.contains("\"line\":2") == true)
        #expect(lines.last == "{\"type\":\"pong\",\"ping\":3}")
    }

    func control(_ seq: Int, _ t: Int64) -> Message {
        .control(ControlMessage(seq: seq, time: t, control: ViewIndex(1), event: .touchDragInside, touch: 1))
    }

    /// Read until nothing more comes for a few turns.
    func drain(_ rig: ServerRig, _ c: Client) throws -> [String] {
        var all: [String] = []
        for _ in 0..<6 {
            try rig.turn()
            all += try c.lines()
        }
        return all
    }

    /// Issue 28, item 7: maxRate subscribers that disconnect kept their sockets open (the
    /// server held on to their connections until it next published a message: 100 of them for
    /// 10 s and more). A dropped connection is let go, and its socket closed, at once.
    @Test func aDroppedMaxRateSubscribersSocketClosesAtOnce() throws {
        final class Weak { weak var c: Connection?; init(_ c: Connection) { self.c = c } }
        let rig = try ServerRig()
        var clients = try (0..<10).map { _ in try rig.connect() }
        try rig.turn()
        for c in clients { try c.send(#"{"subscribe": {"types": ["frame"], "maxRate": 5}}"# + "\n") }
        try rig.turn()
        rig.server.publish(move(1, rig.now))
        let held = rig.server.connections.values.map(Weak.init)
        #expect(held.count == 10 && rig.server.connections.values.allSatisfy(\.flow.holdsFrames))
        clients.removeAll()     // each closes its socket
        for _ in 0..<3 { try rig.turn() }
        #expect(rig.server.clientCount == 0)
        #expect(held.filter { $0.c != nil }.count == 0, "connections still held after their drop")
    }

    @Test func aClientBehindHasItsMovesMergedUntilItCatchesUp() throws {
        let rig = try ServerRig(queueLimit: 64)
        let c = try rig.connect()
        try rig.turn()
        _ = try c.lines()
        // 200 frames of moves while the client reads nothing: 32 queue as they come, the 33rd
        // (half the limit) is queued and starts holding, the 167 after it merge into one.
        for k in 1...200 {
            rig.now += 10_000
            rig.server.publish(move(k, rig.now))
        }
        let frames = try drain(rig, c).filter { $0.hasPrefix("{\"type\":\"frame\"") }
        #expect(frames.count == 34)
        #expect(frames.last?.contains("\"location\":[200.0,0.0]") == true)
        #expect(frames.last?.contains("\"coalesced\":[[34.0,0.0,") == true)
        #expect(rig.server.stats.messagesDropped == 0)
        // Caught up: the next frame goes as it comes.
        rig.server.publish(move(201, rig.now + 10_000))
        #expect(try drain(rig, c).count == 1)
    }

    @Test func aClientThatDoesNotReadIsDroppedToThenResynchronisedWithACount() throws {
        let rig = try ServerRig(queueLimit: 64)
        let c = try rig.connect()
        try rig.turn()
        _ = try c.lines()
        // 100 control events (never merged) while the client reads nothing: 64 fill its queue,
        // the other 36 are dropped and counted.
        for k in 1...100 {
            rig.now += 10_000
            rig.server.publish(control(k, rig.now))
        }
        #expect(rig.server.stats.messagesDropped == 36)
        let lines = try drain(rig, c)
        #expect(lines.count == 66)
        #expect(lines.prefix(64).allSatisfy { $0.hasPrefix("{\"type\":\"control\"") })
        #expect(lines.dropFirst(64).first == "{\"type\":\"overflow\",\"dropped\":36}")
        #expect(lines.last?.hasPrefix("{\"type\":\"snapshot\"") == true)
    }

    /// A frame beginning `n` touches (never merged: a frame that begins touches goes at once).
    func bigFrame(_ seq: Int, _ t: Int64, touches n: Int) -> Message {
        .frame(FrameMessage(seq: seq, time: t, device: "d", touches: (1...n).map { k in
            TouchRecord(id: k, phase: .began, window: nil, view: nil, location: Point(Double(k), 0), previous: .zero,
                        locationInView: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
        }, calls: []))
    }

    /// Issue 21: queues were bounded by message count only — a client never reading took the
    /// daemon to 899 MiB with a few hundred huge messages. Its queue is now as full as the
    /// fuller of its messages (clients.queue) and its bytes (clients.queueBytes).
    @Test func aClientThatDoesNotReadIsBoundedInBytesToo() throws {
        let rig = try ServerRig(queueLimit: 64, queueBytes: 256 << 10)
        let c = try rig.connect()
        try rig.turn()
        _ = try c.lines()
        // 40 messages of about 31 KB each (1.2 MB), far under 64 messages: by bytes, the queue
        // is full after 256 KiB.
        let one = rig.server.history.encode(bigFrame(1, rig.now, touches: 200)).count
        #expect(one > 25_000 && one < 40_000, "\(one)")
        for k in 1...40 {
            rig.now += 10_000
            rig.server.publish(bigFrame(k, rig.now, touches: 200))
        }
        let queued = 40 - Int(rig.server.stats.messagesDropped)
        #expect(rig.server.stats.messagesDropped > 0)
        // What is queued stays within the byte limit and one message.
        #expect(queued * one <= (256 << 10) + one, "\(queued) messages of \(one) bytes queued")
        let lines = try drain(rig, c)
        #expect(lines.count == queued + 2)
        #expect(lines.dropFirst(queued).first == "{\"type\":\"overflow\",\"dropped\":\(40 - queued)}")
        #expect(lines.last?.hasPrefix("{\"type\":\"snapshot\"") == true)
    }

    /// Issue 21: a windowless client polling `stats` saw every press on another client's private
    /// PIN pad (`liveTouches`, `published`). It now counts only what the asker may see.
    @Test func statsCountNothingOfAnotherClientsPrivateWindow() throws {
        let engine = Engine(scene: try Config.parse("""
            {"windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]}
            """).scene)
        let node = try JSONParser.parse(#"{"id": "pin", "private": true, "frame": [0, 0, 100, 100], "view": {"id": "key", "frame": [0, 0, 10, 10]}}"#)
        guard case .success(let attach)? = SceneRequest.parse("attach", node) else { Issue.record("attach does not parse"); return }
        #expect(engine.apply(attach, from: 1_000, time: 0) == .attached(window: "pin", version: 1))
        let live = engine.scene
        let rig = try ServerRig(scene: live)
        let key = live.viewIndex["key"]!, root = live.viewIndex["root"]!
        func record(_ id: Int, _ v: ViewIndex) -> TouchRecord {
            TouchRecord(id: id, phase: .stationary, window: live[v].window, view: v, location: .zero, previous: .zero,
                        locationInView: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
        }
        rig.host.touches = [(record(1, key), "d"), (record(2, root), "d")]
        // The two, and a touch on the key that a recognizer holds back: no snapshot lists it,
        // and stats counted it (issue 21's leftover).
        rig.host.privateOwners = [1_000, nil, 1_000]
        let c = try rig.connect()
        try rig.turn()
        _ = try c.lines()
        // One public message and one of the private window's own (numbered with `sub`).
        var priv = ControlMessage(seq: 0, time: 0, control: key, event: .touchDown, touch: 1)
        priv.sub = 1
        rig.server.publish(.control(ControlMessage(seq: 1, time: 0, control: root, event: .touchDown, touch: 2)))
        rig.server.publish(.control(priv))
        try c.send("{\"stats\":true}\n")
        let stats = try drain(rig, c).first { $0.hasPrefix("{\"type\":\"stats\"") } ?? ""
        #expect(stats.contains("\"liveTouches\":1"), "\(stats)")
        #expect(stats.contains("\"published\":1,"), "\(stats)")
    }
}
