import Foundation
import Glibc
import TouchCore
import TouchSystem
import TouchCapture
import TouchTestSupport
@testable import TouchDaemon

/// The daemon's own loop in this process, driven one turn at a time with virtual time (as
/// swift-nio's EmbeddedEventLoop): a real listening socket, real client sockets and the
/// daemon's real server, engine and paced replay, but a clock the test sets and a wait that
/// never blocks. Stops and reloads are asked by calls, as the signals would.
final class EmbeddedDaemon {
    let dir: String
    let socket: String
    let configPath: String
    var now: Int64 = 1_000_000_000
    var notes: [String] = []
    var logLines: [String] = []
    /// The deadline the loop asked to be woken at, each turn (nil: none; it would sleep until
    /// a descriptor is ready).
    var deadlines: [Int64?] = []
    var daemon: Daemon!

    /// `steps`: the capture, as (seconds, "down X Y" | "move X Y" | "up") on the virtual
    /// 800×480 panel, replayed in real (virtual) time once `waitClients` clients have spoken;
    /// `alongside`: further captures in the same timeline (a headphone jack's).
    init(config: String, steps: [(Double, String)], alongside: [String] = [], waitClients: Int = 1, watchdog: Int64? = nil, exitAtEnd: Bool = false) throws {
        dir = NSTemporaryDirectory() + "touchd-embedded-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        socket = dir + "/touchd.sock"
        configPath = dir + "/touchd.json"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let capture = dir + "/panel.events"
        try EmbeddedDaemon.capture(steps).write(toFile: capture, atomically: true, encoding: .utf8)
        var options = Daemon.Options()
        options.configPath = configPath
        options.socketPath = socket
        options.replay = [capture] + alongside
        options.speed = 1
        options.startAfterRequests = waitClients
        options.exitAtEnd = exitAtEnd
        let log = StderrLog(threshold: .debug, now: { [unowned self] in now }, emit: { [unowned self] in logLines.append($0) })
        let cfg = try Config.parse(config)
        daemon = try Daemon.start(options: options, config: cfg, log: log) { [unowned self] _ throws(SystemError) in
            LoopEnvironment(now: { [unowned self] in now },
                            wait: { [unowned self] epoll, deadline throws(SystemError) in
                                deadlines.append(deadline)
                                return try epoll.wait(timeoutMS: 0)
                            },
                            notify: { [unowned self] in notes.append($0) },
                            watchdog: watchdog,
                            signals: nil)
        }
    }

    deinit {
        if let daemon, case .stopped = daemon.phase {} else { daemon?.server.closeAll() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// An evemu capture of one finger on a protocol B 800×480 panel.
    static func capture(_ steps: [(Double, String)]) -> String {
        var text = EvemuWriter.header(screenDevice())
        var id: Int32 = 0
        func e(_ t: Double, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            text += String(format: "E: %.6f %04x %04x %d\n", t, type, code, value)
        }
        for (t, step) in steps {
            let words = step.split(separator: " ")
            switch words.first {
            case "down":
                id += 1
                e(t, EV.ABS, ABS.MT_SLOT, 0); e(t, EV.ABS, ABS.MT_TRACKING_ID, id)
                e(t, EV.ABS, ABS.MT_POSITION_X, Int32(words[1])!); e(t, EV.ABS, ABS.MT_POSITION_Y, Int32(words[2])!)
                e(t, EV.KEY, BTN.TOUCH, 1)
            case "move":
                e(t, EV.ABS, ABS.MT_SLOT, 0)
                e(t, EV.ABS, ABS.MT_POSITION_X, Int32(words[1])!); e(t, EV.ABS, ABS.MT_POSITION_Y, Int32(words[2])!)
            default:
                e(t, EV.ABS, ABS.MT_SLOT, 0); e(t, EV.ABS, ABS.MT_TRACKING_ID, -1); e(t, EV.KEY, BTN.TOUCH, 0)
            }
            e(t, EV.SYN, SYN.REPORT, 0)
        }
        return text
    }

    /// One turn at the current virtual time.
    @discardableResult
    func turn() -> Daemon.TurnResult { daemon.turn() }

    /// Turns, the clock moving `step` µs after each, until `micros` have passed (or it stops).
    @discardableResult
    func run(for micros: Int64, step: Int64 = 1_000, each: () -> Void = {}) -> Daemon.TurnResult {
        let end = now + micros
        while now < end {
            let r = turn()
            each()
            if r != .goOn { return r }
            now += step
        }
        return .goOn
    }

    /// Turns as the real loop takes them when nothing but time happens: after each, the clock
    /// jumps to the deadline the loop asked for (never back), until it asks for none or the
    /// clock passes `until`. Returns the times of the turns taken.
    @discardableResult
    func runAsTheRealLoop(until: Int64, each: () -> Void = {}) -> [Int64] {
        var times: [Int64] = []
        while now <= until {
            times.append(now)
            let r = turn()
            each()
            // What the next turn's wait will be given (the real loop sleeps until then).
            guard r == .goOn, let next = daemon.nextDeadline(now: now) else { break }
            now = max(now, next)
        }
        return times
    }

    func connect() throws -> Client { try Client(path: socket) }

    /// A client socket read without blocking, whole lines at a time.
    final class Client {
        let fd: FileDescriptor
        var pending: [UInt8] = []
        var closed = false

        init(path: String) throws {
            fd = try UnixSocket.connect(path)
            _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
        }

        func send(_ s: String) throws {
            let b = Array((s + "\n").utf8)
            _ = try b.withUnsafeBytes { (p) throws(SystemError) in try fd.send(p) }
        }

        /// Every whole line that has arrived, parsed.
        func messages() throws -> [[String: Any]] {
            var buf = [UInt8](repeating: 0, count: 65_536)
            while true {
                let r = try buf.withUnsafeMutableBytes { (p) throws(SystemError) in try fd.read(into: p) }
                switch r {
                case .done(let n): pending += buf[0..<n]
                case .closed: closed = true
                case .wouldBlock: break
                }
                guard case .done = r else { break }
            }
            var out: [[String: Any]] = []
            while let k = pending.firstIndex(of: 0x0A) {
                let line = Data(pending[..<k])
                pending.removeSubrange(...k)
                out.append((try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? [:])
            }
            return out
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    var type: String? { self["type"] as? String }
    var touches: [[String: Any]] { self["touches"] as? [[String: Any]] ?? [] }
}
