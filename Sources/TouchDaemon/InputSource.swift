import TouchCore
import TouchInput
import TouchCapture
import TouchServer

/// Publishes engine messages to the socket server.
struct ServerSink: MessageSink {
    let server: Server
    mutating func publish(_ message: Message) { server.publish(message) }
}

/// Where the daemon's events come from: a capture now, live devices later. The loop watches
/// `descriptors`, calls `readable` for them and `due` when the deadline it returned arrives.
protocol InputSource: AnyObject {
    var descriptors: [Int32] { get }
    var engine: Engine { get }
    /// True when no more input will come (a capture that has ended).
    var finished: Bool { get }
    func readable(_ fd: Int32, sink: inout ServerSink)
    /// Does the work due at `now` (monotonic µs); returns when to be called next (nil: only
    /// when a descriptor is readable).
    func due(now: Int64, sink: inout ServerSink) -> Int64?
    /// The config was reloaded: re-match devices to entries.
    func reconfigure(_ config: Config)
    /// Cancels live touches (reason shutdown) and releases devices.
    func stop(sink: inout ServerSink)
}

/// A capture played in real time (`speed` 1), faster or slower, or as fast as possible (0).
final class ReplaySource: InputSource {
    let session: ReplaySession
    let speed: Double
    let startAfterRequests: Int
    let server: Server
    var startWall: Int64?
    var startCapture: Int64 = 0
    var finished = false
    var onFinish: (() -> Void)?
    let log: LogFunction

    init(session: ReplaySession, speed: Double, startAfterRequests: Int, server: Server, log: @escaping LogFunction) {
        self.session = session
        self.speed = speed
        self.startAfterRequests = startAfterRequests
        self.server = server
        self.log = log
    }

    var engine: Engine { session.engine }
    var descriptors: [Int32] { [] }
    func readable(_ fd: Int32, sink: inout ServerSink) {}
    func reconfigure(_ config: Config) { session.reconfigure(config) }

    func due(now: Int64, sink: inout ServerSink) -> Int64? {
        if finished { return nil }
        if startWall == nil {
            if server.clientsWithRequests < startAfterRequests { return nil }
            startWall = now
            startCapture = session.timeline.nextTime ?? 0
            log(.info, "replay started (speed \(speed == 0 ? "as fast as possible" : "×\(speed)"))")
        }
        var budget = 2048
        while budget > 0 {
            guard let t = session.timeline.nextTime else {
                session.finish(sink: &sink)
                finished = true
                log(.info, "replay finished")
                onFinish?()
                return nil
            }
            if speed > 0 {
                let at = startWall! + Int64(Double(t - startCapture) / speed)
                if at > now { return at }
            }
            _ = session.step(sink: &sink)
            budget -= 1
        }
        return now  // more to do: come back right after serving the sockets
    }

    func stop(sink: inout ServerSink) {
        if !finished {
            session.finish(sink: &sink)
            finished = true
        }
    }
}
