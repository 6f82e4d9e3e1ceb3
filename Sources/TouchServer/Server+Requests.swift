import TouchCore
import TouchSystem

/// Requests: what a client sent is read in bounded turns and answered in order (replies to a
/// client whose queue is full wait, so a client that never reads cannot grow the daemon).
extension Server {
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
        while n < limits.linesPerTurn && c.canServe && connections[c.descriptor] != nil && !outputFull(c) {
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
    public var hasPendingRequests: Bool { !sceneRequests.isEmpty || connections.values.contains { $0.canServe && !outputFull($0) } }

    /// A turn's worth of every client's waiting lines.
    public func serveBacklogs(host: ServerHost) {
        for c in Array(connections.values) where c.canServe && !outputFull(c) && connections[c.descriptor] != nil {
            serveBacklog(c, host: host)
        }
    }

    func request(_ c: Connection, _ item: LineFramer.Item, host: ServerHost) {
        switch item {
        case .tooLong(let n):
            log(.info, "client \(c.id): line \(n) is longer than \(limits.maxLine) bytes; skipped")
            reply(c, WireProtocol.error("line \(n) is longer than \(limits.maxLine) bytes; skipped", line: n), error: true)
        case .line(let bytes, let n):
            switch RequestHandler.respond(to: bytes, scene: scene, client: c.id) {
            case .reply(let r):
                reply(c, r)
            case .error(let e):
                reply(c, WireProtocol.error(e, line: n), error: true)
            case .scene(let r):
                // For the loop to apply between two frames (takeSceneRequests → answer).
                sceneRequests.append(PendingSceneRequest(request: r, client: ClientInfo(id: c.id, credentials: c.credentials, line: n), descriptor: c.descriptor))
                c.awaitingScene = true
            case .systemGestures:
                reply(c, WireProtocol.systemGestures(host.systemGestures(for: ClientInfo(id: c.id, credentials: c.credentials, line: n))))
            case .stats:
                reply(c, stats.line(clients: connections.count, peakRSSKiB: ThisProcess.peakRSSKiB(), liveTouches: liveTouches(seenBy: c, host: host), outputs: scene.outputs,
                                            scheduling: scheduling))
            case .subscribe(let f):
                // The speaker role is claimed, and granted only to a client `clients.speakers`
                // names; refused, the subscription stays as it was (the connection too).
                if f.speaker, let why = host.speakerRefusal(for: ClientInfo(id: c.id, credentials: c.credentials, line: n)) {
                    reply(c, WireProtocol.error("subscribe: speaker: \(why); subscription unchanged", line: n), error: true)
                    return
                }
                c.filter = f
                log(.debug, "client \(c.id) subscribed: types \(f.types.map(\.rawValue).sorted().joined(separator: ",")) windows \(f.windowIDs) views \(f.viewIDs)")
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
        c.queue.append(WireProtocol.snapshot(host.snapshot(), filter: c.filter, client: c.id, scene: scene, encoder: history.encoder), enqueuedAt: 0)
    }


    /// After a reload: a speaker the new `clients.speakers` no longer names loses the role (its
    /// subscription stays otherwise), and is told so.
    public func recheckSpeakers(host: ServerHost) {
        for c in connections.values where c.filter.speaker {
            guard let why = host.speakerRefusal(for: ClientInfo(id: c.id, credentials: c.credentials, line: 0)) else { continue }
            c.filter.speaker = false
            log(.info, "client \(c.id): no longer a speaker: \(why) (the reloaded config)")
            reply(c, WireProtocol.error("speaker: \(why) (the reloaded config); private speech no longer reaches this client"), error: true)
        }
    }

    /// The scene requests read since the last call, in order (the loop applies them).
    public func takeSceneRequests() -> [PendingSceneRequest] {
        defer { sceneRequests.removeAll(keepingCapacity: true) }
        return sceneRequests
    }

    /// Is client `id` still connected (a request of a client that has gone is not applied)?
    public func isConnected(_ p: PendingSceneRequest) -> Bool { connections[p.descriptor]?.id == p.client.id }

    /// The reply to a scene request, for its sender (if still there); its later lines may be
    /// answered again.
    public func answer(_ p: PendingSceneRequest, _ reply: SceneReply, host: ServerHost) {
        guard let c = connections[p.descriptor], c.id == p.client.id else { return }
        c.awaitingScene = false
        self.reply(c, reply.encode(line: p.client.line), error: reply.isRefusal)
        serveBacklog(c, host: host)
    }

    /// A message for one client alone (a calibration's), queued as a reply is; nothing when it
    /// has gone.
    public func send(toClient id: Int, _ bytes: [UInt8]) {
        guard let c = connections.values.first(where: { $0.id == id }) else { return }
        reply(c, bytes)
    }

    /// The peer credentials of a connected client (nil: gone, or none were given).
    public func credentials(ofClient id: Int) -> UnixSocket.Credentials? {
        connections.values.first(where: { $0.id == id })?.credentials
    }

    /// The touches down that client `c` may know of: not those in another client's private
    /// window (`stats` counted them, so a windowless client saw every press on a PIN pad) —
    /// whether the views have seen them yet or not (a touch a recognizer holds back is counted
    /// all the same).
    func liveTouches(seenBy c: Connection, host: ServerHost) -> Int {
        host.liveTouchPrivateOwners.reduce(0) { $1 == nil || $1 == c.id ? $0 + 1 : $0 }
    }
}
