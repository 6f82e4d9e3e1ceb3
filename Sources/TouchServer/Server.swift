import TouchCore
import TouchSystem

public struct ServerLimits: Sendable {
    public var queueLimit = 4096
    /// The same queue's limit in bytes: a client's queue is as full as the fuller of the two
    /// measures (a few huge messages — hit-test traces of a big scene, frames of a big window —
    /// fill it as many small ones do).
    public var queueBytes = 4 << 20
    public var maxClients = 256
    public var maxLine = WireProtocol.maxLine
    /// Request lines answered per client per turn of the loop: no client delays the others by
    /// more than this much work.
    public var linesPerTurn = 64
    /// Bytes queued for a client beyond which its requests wait until it reads (replies to a
    /// client that never reads cannot pile up).
    public var queuedBytes = 256 << 10
    /// Bytes of requests read from a client per wake-up (and only once its earlier lines are
    /// answered): what one client can make the daemon hold in unanswered lines.
    public var readPerWake = 16 << 10
    public init() {}
}

/// Who a request line came from.
public struct ClientInfo: Sendable {
    public var id: Int
    public var credentials: UnixSocket.Credentials?
    /// The request's line on the connection (1-based).
    public var line: Int
    public init(id: Int, credentials: UnixSocket.Credentials?, line: Int) {
        self.id = id
        self.credentials = credentials
        self.line = line
    }
}

/// What the server reads from the daemon while it handles a client (queries only: the server
/// keeps no reference to the engine and never makes it act): a snapshot of the touches down,
/// and how many touches are followed (for `stats`).
public protocol ServerHost: AnyObject {
    func snapshot() -> Snapshot
    var liveTouchCount: Int { get }
    /// For every touch counted by `liveTouchCount` (those the views have not seen yet
    /// included), the client whose private window it landed in, nil for any other.
    var liveTouchPrivateOwners: [Int?] { get }
    /// The system gestures this client is sent (`{"systemGestures":true}`), by name: those whose
    /// `to` names it. None by default (a host with no kiosk).
    func systemGestures(for client: ClientInfo) -> [String]
    /// Why this client may not be a speaker (`"speaker": true`), starting "the config's
    /// clients.speakers does not name …"; nil: it may. Nobody may by default.
    func speakerRefusal(for client: ClientInfo) -> String?
}

extension ServerHost {
    public func systemGestures(for client: ClientInfo) -> [String] { [] }
    public func speakerRefusal(for client: ClientInfo) -> String? { "the config's clients.speakers does not name this client (there is no such policy)" }
}

/// A scene request (attach, update, detach) waiting for the loop: the daemon takes them after
/// serving the clients (`takeSceneRequests`), applies each to the engine between two frames and
/// hands the reply back (`answer`). Its sender's later lines wait until then, so its replies
/// stay in the order of its requests.
public struct PendingSceneRequest: Sendable {
    public let request: SceneRequest
    public let client: ClientInfo
    let descriptor: Descriptor
}

/// The socket server: accepts clients, frames and answers their requests, fans each published
/// message out to the clients whose subscription wants it, and never lets one client hold up
/// the others (non-blocking writes, a bounded queue per client). Its parts: accepting and
/// dropping clients (here), requests (Server+Requests.swift), publishing and writing
/// (Server+Publishing.swift), the shutdown (Server+Shutdown.swift); each client's flow control
/// is a pure state machine (ClientFlow: normal, paced, catching up, dropping → resync).
public final class Server {
    let listener: Listener
    let epoll: Epoll
    public var limits: ServerLimits {
        didSet {
            for c in connections.values {
                c.flow.limit = limits.queueLimit
                c.queueBytes = limits.queueBytes
            }
        }
    }
    /// Messages carry CLOCK_MONOTONIC times (live input, a paced replay): their latency from
    /// input to write is measured.
    public var monotonicStamps = true
    let log: LogFunction
    /// Monotonic µs now: the publication times of queued lines and their write latency (the
    /// system's clock; a test injects its own).
    let clock: () -> Int64
    var connections: [Descriptor: Connection] = [:]
    var nextClientID = 1
    public internal(set) var stats = ServerStats()
    /// The loop's scheduling, as `stats` reports it (the daemon sets it).
    public var scheduling = SchedulingReport()
    /// The scene of what is published, shared with every other consumer of the engine's output.
    public let history: SceneHistory
    public var scene: Scene { history.scene }
    public var screen: Size
    let version: String
    var fanOut: FanOut
    /// Clients disconnected since the daemon last asked (their windows go: takeGoneClients).
    var gone: [Int] = []
    var accepting = true
    /// Shutting down: what is published now (the cancellations) bypasses the queue limits.
    var finalMessages = false
    /// Out of descriptors: the listener is out of the poll set until a client leaves.
    var acceptPaused = false
    let readScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    /// Where a client's queued lines are gathered for one send (see Connection.writeQueued).
    let writeScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    var heldOut: [FrameMessage] = []
    var shaped: [Message] = []
    var holding: [Connection] = []
    /// Scene requests read and not yet applied (in the order they came).
    var sceneRequests: [PendingSceneRequest] = []

    public init(listener: Listener, epoll: Epoll, history: SceneHistory, screen: Size, version: String, limits: ServerLimits,
                clock: @escaping () -> Int64 = Clock.monotonicMicros, log: @escaping LogFunction) throws(SystemError) {
        self.clock = clock
        self.listener = listener
        self.epoll = epoll
        self.history = history
        self.screen = screen
        self.version = version
        self.limits = limits
        self.log = log
        fanOut = FanOut(scene: history.scene)
        try epoll.add(listener.descriptor)
    }

    deinit {
        readScratch.deallocate()
        writeScratch.deallocate()
    }

    public var clientCount: Int { connections.count }
    /// Clients that have sent at least one request line (a replay can wait for them).
    public var clientsWithRequests: Int { connections.values.filter(\.hasSpoken).count }
    public func owns(_ d: Descriptor) -> Bool { d == listener.descriptor || connections[d] != nil }
    public var socketPath: String { listener.path }

    /// The scene changed (a reload, a client's window): messages are encoded with its ids from
    /// now on (`history`), and filters naming ids are resolved again — each in time
    /// proportional to its own size (an id that vanished matches nothing).
    public func sceneChanged() {
        fanOut = FanOut(scene: scene)
        for c in connections.values where c.filter.namesIDs { c.filter.resolve(in: scene, client: c.id) }
    }

    /// A subscriber asked for hit-test traces (the engine makes them only then).
    public var wantsTraces: Bool { connections.values.contains { $0.filter.types.contains(.hitTest) } }

    /// Clients went away since `takeGoneClients` was last called.
    public var hasGoneClients: Bool { !gone.isEmpty }

    /// Ids of the clients that went away since the last call.
    public func takeGoneClients() -> [Int] {
        defer { gone.removeAll() }
        return gone
    }

    // MARK: Readiness

    public func handle(_ r: Epoll.Ready, host: ServerHost) {
        if r.descriptor == listener.descriptor {
            acceptAll(host: host)
            return
        }
        guard let c = connections[r.descriptor] else { return }
        if r.hangup && (c.readClosed || !r.readable) {
            drop(c, "disconnected")
            return
        }
        if r.readable && !c.readClosed { read(c, host: host) }
        if connections[r.descriptor] != nil && r.writable { write(c) }
    }

    func acceptAll(host: ServerHost) {
        guard accepting else { return }
        for _ in 0..<64 {
            let accepted: FileDescriptor?
            do { accepted = try UnixSocket.accept(listener.fd) } catch {
                if error.errno == .tooManyFiles || error.errno == .tooManyFilesInSystem {
                    // Level-triggered: left in the poll set, the listener would wake the loop
                    // for ever. It comes back when a client leaves.
                    pauseAccepting(error)
                } else {
                    log(.warning, "\(error)")
                }
                return
            }
            guard let fd = accepted else { return }
            var creds: UnixSocket.Credentials?
            do { creds = try UnixSocket.peerCredentials(fd) } catch { log(.debug, "\(error)") }
            if connections.count >= limits.maxClients {
                stats.clientsRefused += 1
                let msg = WireProtocol.error("too many clients (the limit is \(limits.maxClients)); try again later")
                do { _ = try msg.withUnsafeBytes { (b) throws(SystemError) in try fd.send(b) } } catch {
                    log(.debug, "refusing a client: \(error)")
                }
                log(.warning, "refused a client (pid \(creds.map { String($0.pid) } ?? "?")): \(limits.maxClients) clients already connected")
                continue
            }
            let c = Connection(fd: fd, id: nextClientID, credentials: creds, maxLine: limits.maxLine, queueLimit: limits.queueLimit,
                                   queueBytes: limits.queueBytes)
            nextClientID += 1
            do { try epoll.add(c.descriptor) } catch {
                log(.warning, "client \(c.id): \(error); not served")
                continue
            }
            connections[c.descriptor] = c
            stats.clientsAccepted += 1
            if let cr = creds {
                log(.info, "client \(c.id) connected: pid \(cr.pid) uid \(cr.uid) gid \(cr.gid)")
            } else {
                log(.info, "client \(c.id) connected (no peer credentials)")
            }
            c.filter.resolve(in: scene, client: c.id)
            c.queue.append(WireProtocol.hello(screen: screen, outputs: scene.outputs, version: version, pid: ThisProcess.id), enqueuedAt: 0)
            sendSnapshot(c, host: host)
            write(c)
        }
    }

    func updateInterest(_ c: Connection) {
        guard connections[c.descriptor] != nil else { return }
        do { try epoll.modify(c.descriptor, c.interest) } catch {
            drop(c, "failed (\(error)); disconnecting")
        }
    }

    func drop(_ c: Connection, _ why: String?) {
        guard connections[c.descriptor] != nil else { return }
        if let why { log(.info, "client \(c.id) \(why)") }
        do { try epoll.remove(c.descriptor) } catch { log(.warning, "client \(c.id): \(error)") }
        connections[c.descriptor] = nil   // its socket closes with the connection
        gone.append(c.id)
        if acceptPaused { resumeAccepting() }
    }

    func pauseAccepting(_ error: SystemError) {
        guard !acceptPaused else { return }
        acceptPaused = true
        stats.acceptPauses += 1
        do { try epoll.remove(listener.descriptor) } catch { log(.warning, "\(error)") }
        log(.warning, "out of file descriptors (\(error.errno)) with \(connections.count) clients: not accepting new clients until one leaves")
    }

    func resumeAccepting() {
        guard acceptPaused, accepting else { return }
        acceptPaused = false
        do { try epoll.add(listener.descriptor) } catch {
            log(.warning, "cannot watch the listening socket again: \(error)")
            return
        }
        log(.info, "a client left: accepting new clients again")
    }

}
