import TouchCore
import TouchSystem

public struct ServerLimits: Sendable {
    public var queueLimit = 4096
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
}

/// What the server asks of the daemon, synchronously, while it handles a client (the server
/// keeps no reference to the engine): a snapshot of the touches down, and a scene request
/// applied between two frames, answered with the reply line for its sender.
public protocol ServerHost: AnyObject {
    func snapshot() -> Snapshot
    func sceneRequest(_ request: SceneRequest, from client: ClientInfo) -> [UInt8]
}

/// The socket server: accepts clients, frames and answers their requests, fans each published
/// message out to the clients whose subscription wants it, and never lets one client hold up
/// the others (non-blocking writes, a bounded queue per client).
///
/// Queue policy: a client whose queue reaches half of `queueLimit` messages is behind: its
/// frames of moves are held and merged (every sample kept in `coalesced`) and go when its queue
/// has drained to a quarter, until it has caught up (an eighth, nothing held). If it still
/// fills its queue, further messages for it are dropped and counted; once the queue has drained to half, the client receives
/// `{"type":"overflow","dropped":N}` followed by a fresh snapshot of the touches down, then
/// the stream continues. Nothing is lost silently, and the other clients are unaffected.
public final class Server {
    let listener: Listener
    let epoll: Epoll
    public var limits: ServerLimits
    /// Messages carry CLOCK_MONOTONIC times (live input, a paced replay): their latency from
    /// input to write is measured.
    public var monotonicStamps = true
    let log: LogFunction
    var connections: [Descriptor: Connection] = [:]
    var nextClientID = 1
    public private(set) var stats = ServerStats()
    public private(set) var scene: Scene
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
    var framed: [LineFramer.Item] = []
    var heldOut: [FrameMessage] = []

    public init(listener: Listener, epoll: Epoll, scene: Scene, screen: Size, version: String, limits: ServerLimits,
                log: @escaping LogFunction) throws(SystemError) {
        self.listener = listener
        self.epoll = epoll
        self.scene = scene
        self.screen = screen
        self.version = version
        self.limits = limits
        self.log = log
        fanOut = FanOut(scene: scene)
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

    /// A new scene (a reload): messages are encoded with its ids and filters resolved again
    /// (an id that vanished matches nothing).
    public func replaceScene(_ scene: Scene) {
        self.scene = scene
        fanOut = FanOut(scene: scene)
        for c in connections.values where !c.filter.windowIDs.isEmpty || !c.filter.viewIDs.isEmpty { c.filter.resolve(in: scene) }
    }

    /// A subscriber asked for hit-test traces (the engine makes them only then).
    public var wantsTraces: Bool { connections.values.contains { $0.filter.types.contains("hitTest") } }

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
            let c = Connection(fd: fd, id: nextClientID, credentials: creds, maxLine: limits.maxLine)
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
            c.filter.resolve(in: scene)
            c.queue.append(WireProtocol.hello(screen: screen, version: version, pid: ThisProcess.id), enqueuedAt: 0)
            sendSnapshot(c, host: host)
            write(c)
        }
    }

    /// Its queue is full (messages, or bytes of replies): its requests wait.
    func outputFull(_ c: Connection) -> Bool {
        c.queue.count >= limits.queueLimit || c.queue.bytes >= limits.queuedBytes
    }

    /// Reads what a client sent (`readPerWake` at most) and answers a turn's worth of it;
    /// the rest waits in its backlog for the next turns, and nothing more is read meanwhile.
    func read(_ c: Connection, host: ServerHost) {
        if outputFull(c) {
            c.readPaused = true
            updateInterest(c)
            return
        }
        if !c.hasBacklog {
            let result: IOResult
            let room = UnsafeMutableRawBufferPointer(rebasing: readScratch[0..<min(readScratch.count, limits.readPerWake)])
            do { result = try c.fd.read(into: room) } catch {
                drop(c, "failed (\(error)); disconnecting")
                return
            }
            switch result {
            case .wouldBlock:
                break
            case .closed:
                // End of its requests (shutdown(SHUT_WR), e.g. `echo … | socat`): keep sending
                // until the connection is gone for good.
                c.readClosed = true
                c.framer.finish(into: &c.backlog)
            case .done(let n):
                c.framer.feed(UnsafeRawBufferPointer(rebasing: room[0..<n]), into: &c.backlog)
            }
        }
        serveBacklog(c, host: host)
    }

    /// Answers up to `linesPerTurn` of a client's waiting lines (fewer once its queue is full).
    func serveBacklog(_ c: Connection, host: ServerHost) {
        var n = 0
        while n < limits.linesPerTurn && c.hasBacklog && connections[c.descriptor] != nil && !outputFull(c) {
            let item = c.backlog[c.backlogStart]
            c.backlogStart += 1
            request(c, item, host: host)
            n += 1
        }
        if !c.hasBacklog {
            c.backlog.removeAll(keepingCapacity: c.backlog.count < 1024)
            c.backlogStart = 0
        }
        if connections[c.descriptor] != nil {
            if outputFull(c) { c.readPaused = true }
            updateInterest(c)
        }
    }

    /// Some client has lines waiting and room for their answers: the loop must come back now.
    public var hasPendingRequests: Bool { connections.values.contains { $0.hasBacklog && !outputFull($0) } }

    /// A turn's worth of every client's waiting lines.
    public func serveBacklogs(host: ServerHost) {
        for c in Array(connections.values) where c.hasBacklog && !outputFull(c) && connections[c.descriptor] != nil {
            serveBacklog(c, host: host)
        }
    }

    func request(_ c: Connection, _ item: LineFramer.Item, host: ServerHost) {
        switch item {
        case .tooLong(let n):
            log(.info, "client \(c.id): line \(n) is longer than \(limits.maxLine) bytes; skipped")
            reply(c, WireProtocol.error("line \(n) is longer than \(limits.maxLine) bytes; skipped", line: n), error: true)
        case .line(let bytes, let n):
            switch RequestHandler.respond(to: bytes, scene: scene) {
            case .reply(let r):
                reply(c, r)
            case .error(let e):
                reply(c, WireProtocol.error(e, line: n), error: true)
            case .scene(let r):
                let answer = host.sceneRequest(r, from: ClientInfo(id: c.id, credentials: c.credentials, line: n))
                reply(c, answer, error: answer.starts(with: WireProtocol.errorPrefix))
            case .stats:
                let snap = host.snapshot()
                reply(c, stats.line(clients: connections.count, peakRSSKiB: ThisProcess.peakRSSKiB(), liveTouches: snap.liveTouches))
            case .subscribe(let f):
                c.filter = f
                log(.debug, "client \(c.id) subscribed: types \(f.types.sorted().joined(separator: ",")) windows \(f.windowIDs) views \(f.viewIDs)")
                sendSnapshot(c, host: host)
                if !c.waitingForWritable { write(c) }
            }
        }
    }

    /// Protocol replies and notices bypass the message limit (they are few and small).
    func reply(_ c: Connection, _ bytes: [UInt8], error: Bool = false) {
        if error { stats.errorsSent += 1 }
        c.queue.append(bytes, enqueuedAt: 0)
        // A client whose socket is full is written when it can take more (EPOLLOUT), not
        // once per reply: a flood of requests from a client that never reads costs no copying.
        if !c.waitingForWritable { write(c) }
    }

    func sendSnapshot(_ c: Connection, host: ServerHost) {
        c.queue.append(WireProtocol.snapshot(host.snapshot(), filter: c.filter, client: c.id, scene: scene, encoder: fanOut.encoder), enqueuedAt: 0)
    }

    // MARK: Publishing

    /// Publishes what the engine put out, in order: each message to every client whose
    /// subscription wants it; a scene change switches the ids used from then on.
    public func publish(_ outputs: [EngineOutput]) {
        guard !outputs.isEmpty else { return }
        let now = Clock.monotonicMicros()
        for o in outputs {
            switch o {
            case .sceneChanged(let s):
                replaceScene(s)
            case .message(let m):
                stats.messagesPublished += 1
                guard !connections.isEmpty else { continue }
                let input = monotonicStamps ? m.inputTime : 0
                let moveOnly = m.isMoveOnlyFrame
                for (c, bytes) in fanOut.forms(of: m, for: connections.values, scene: scene) { enqueue(c, bytes, at: now, input: input, moveOnly: moveOnly) }
                if coalescing > 0 { coalesce(m, now: now, input: input) }
            }
        }
    }

    /// Clients with a maxRate.
    var coalescing: Int { connections.values.reduce(0) { $0 + ($1.coalescer == nil ? 0 : 1) } }

    /// A message for the clients with a maxRate: frames held and merged, anything else after
    /// what is held.
    func coalesce(_ m: Message, now: Int64, input: Int64) {
        for c in connections.values where c.coalescer != nil {
            if c.coalescerJustStarted {
                c.coalescerJustStarted = false
                continue
            }
            guard let shaped = c.filter.apply(m, scene: scene, client: c.id) else { continue }
            heldOut.removeAll(keepingCapacity: true)
            if case .frame(let f) = shaped {
                c.coalescer!.add(f, now: now, into: &heldOut)
                for h in heldOut { enqueue(c, fanOut.encode(.frame(h)), at: now, input: monotonicStamps ? h.time : 0) }
            } else {
                c.coalescer!.release(into: &heldOut)
                for h in heldOut { enqueue(c, fanOut.encode(.frame(h)), at: now, input: monotonicStamps ? h.time : 0) }
                enqueue(c, fanOut.encode(shaped), at: now, input: input)
            }
        }
    }

    /// When held frames are due next (maxRate clients), nil when none are held.
    public var nextDeadline: Int64? {
        var best: Int64?
        for c in connections.values { if let d = c.coalescer?.deadline, best == nil || d < best! { best = d } }
        return best
    }

    /// Sends the held frames whose time has come.
    public func releaseDue(now: Int64) {
        for c in connections.values where c.coalescer?.deadline.map({ $0 <= now }) == true {
            heldOut.removeAll(keepingCapacity: true)
            c.coalescer!.due(now: now, into: &heldOut)
            for h in heldOut { enqueue(c, fanOut.encode(.frame(h)), at: now, input: monotonicStamps ? h.time : 0) }
        }
    }

    func enqueue(_ c: Connection, _ bytes: [UInt8], at time: Int64, input: Int64, moveOnly: Bool = false) {
        // The last messages before a shutdown (the touches' cancellations) reach everyone.
        if finalMessages {
            c.queue.append(bytes, enqueuedAt: time, inputTime: input, moveOnly: moveOnly)
            return
        }
        if c.coalescer == nil && c.queue.count >= limits.queueLimit / 2 {
            log(.info, "client \(c.id) is behind (\(c.queue.count) messages queued): coalescing its moves until it catches up")
            c.coalescer = Coalescer(catchingUp: ())
            c.coalescer!.lastDelivered = time
            c.coalescingToCatchUp = true
            c.coalescerJustStarted = true
        }
        // Once dropping, keep dropping until flush() resynchronises the client between engine
        // steps (so its snapshot and sequence numbers are consistent).
        if c.dropped > 0 || c.queue.count >= limits.queueLimit {
            if c.dropped == 0 {
                log(.warning, "client \(c.id) is not keeping up (\(limits.queueLimit) messages queued): dropping its messages until it catches up")
            }
            c.dropped += 1
            c.droppedTotal += 1
            stats.messagesDropped += 1
            return
        }
        c.queue.append(bytes, enqueuedAt: time, inputTime: input, moveOnly: moveOnly)
    }

    /// Writes what each client can take now (called after each batch of input); a client that
    /// fell behind and has drained to half its queue gets its overflow notice and a snapshot.
    public func flush(host: ServerHost) {
        for c in connections.values where c.dropped > 0 && c.queue.count <= limits.queueLimit / 2 {
            c.queue.append(WireProtocol.overflow(dropped: c.dropped), enqueuedAt: 0)
            log(.warning, "client \(c.id) fell behind: \(c.dropped) message(s) dropped; it got an overflow notice and a new snapshot")
            c.dropped = 0
            c.coalescer?.pending.removeAll()   // the snapshot supersedes them
            sendSnapshot(c, host: host)
        }
        for c in connections.values where !c.waitingForWritable && !c.queue.isEmpty { write(c) }
        // Catching up: what is held goes once there is room; with little queued even then,
        // every frame again.
        for c in connections.values where c.coalescingToCatchUp && c.queue.count <= limits.queueLimit / 4 {
            heldOut.removeAll(keepingCapacity: true)
            c.coalescer?.release(into: &heldOut)
            let now = Clock.monotonicMicros()
            for h in heldOut { enqueue(c, fanOut.encode(.frame(h)), at: now, input: monotonicStamps ? h.time : 0) }
            if c.queue.count <= limits.queueLimit / 8 {
                c.coalescer = nil
                c.coalescingToCatchUp = false
                log(.info, "client \(c.id) caught up: every frame again")
            }
            if !c.waitingForWritable && !c.queue.isEmpty { write(c) }
        }
    }

    func write(_ c: Connection) {
        let outcome: Connection.WriteOutcome
        do {
            outcome = try c.writeQueued(scratch: writeScratch) { e in
                let now = Clock.monotonicMicros()
                stats.latency.record(now - e.enqueuedAt)
                if e.inputTime > 0 { stats.inputLatency.record(now - e.inputTime) }
            }
        } catch {
            drop(c, "failed (\(error)); disconnecting")
            return
        }
        if c.readPaused && c.queue.count < limits.queueLimit / 2 && c.queue.bytes < limits.queuedBytes / 2 {
            c.readPaused = false
            updateInterest(c)
        }
        switch outcome {
        case .closed:
            drop(c, "went away while being written to")
        case .wouldBlock:
            if !c.waitingForWritable {
                c.waitingForWritable = true
                updateInterest(c)
            }
        case .drained:
            if c.waitingForWritable {
                c.waitingForWritable = false
                updateInterest(c)
            }
            if c.closing { drop(c, nil) }
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

    // MARK: Shutdown

    /// The daemon is about to publish its last messages (every touch cancelled, reason
    /// shutdown): they go to every client whatever its queue holds.
    public func prepareShutdown() { finalMessages = true }

    /// Stops accepting, sends a last line to every client and closes each once it is written.
    /// The event loop keeps serving until `isIdle` (or its own deadline), then `closeAll`.
    ///
    /// No ghost touches: a client that is behind loses its stale frames of moves (every began,
    /// ended and cancellation stays, the shutdown's included); one that had messages dropped
    /// gets, instead of its queue, its overflow notice and a snapshot of the touches down
    /// (none, after the shutdown's cancellations) — then everyone gets `bye`.
    public func beginShutdown(farewell: [UInt8], host: ServerHost) {
        if accepting {
            accepting = false
            if !acceptPaused { do { try epoll.remove(listener.descriptor) } catch { log(.warning, "\(error)") } }
        }
        for c in Array(connections.values) {
            heldOut.removeAll(keepingCapacity: true)
            c.coalescer?.release(into: &heldOut)
            if c.dropped > 0 {
                c.queue.remove { _ in true }
                c.queue.append(WireProtocol.overflow(dropped: c.dropped), enqueuedAt: 0)
                c.dropped = 0
                sendSnapshot(c, host: host)
                log(.info, "client \(c.id) was behind at shutdown: it gets an overflow notice and a snapshot (no touches down) instead of its queue")
            } else if c.queue.count > limits.queueLimit / 4 {
                let stale = c.queue.remove { $0.moveOnly }
                log(.info, "client \(c.id) was behind at shutdown: \(stale) stale frame(s) of moves dropped; its touches' ends and cancellations stay")
            } else {
                // Frames held for a maxRate go before the goodbye.
                for h in heldOut { c.queue.append(fanOut.encode(.frame(h)), enqueuedAt: 0) }
            }
            c.queue.append(farewell, enqueuedAt: 0)
            c.closing = true
            write(c)
        }
    }

    public var isIdle: Bool { connections.isEmpty }

    /// Closes every client still connected and removes the socket file (if this daemon made it).
    public func closeAll() {
        for c in Array(connections.values) { drop(c, nil) }
        listener.removeFile(log: log)
    }
}
