import TouchCore
import TouchSystem

/// Publishing: each message goes to every client whose subscription wants it (FanOut: each
/// distinct form encoded once); each client's ClientFlow says whether it is queued, held and
/// merged, or dropped; the queues are written when the sockets take them.
extension Server {
    /// Publishes one message the engine put out (read through `history`, so with the scene of
    /// its time) to every client whose subscription wants it.
    public func publish(_ m: Message) {
        // A private window's own messages are not counted where everyone can read the count.
        if m.sub == nil && !isPrivateTrace(m) { stats.messagesPublished += 1 }
        guard !connections.isEmpty else { return }
        let now = clock()
        // Who holds frames is decided before the message is offered to anyone: a client that
        // falls behind with this message gets it the ordinary way.
        holding.removeAll(keepingCapacity: true)
        for c in connections.values where c.flow.holdsFrames { holding.append(c) }
        let input = monotonicStamps ? m.inputTime : 0
        let moveOnly = m.isMoveOnlyFrame
        for (c, bytes) in fanOut.forms(of: m, for: connections.values, history: history) { offer(c, bytes, at: now, input: input, moveOnly: moveOnly) }
        for c in holding { hold(m, for: c, now: now) }
        // Not kept past the message: a connection dropped later must close its socket then,
        // not at the next publication (100 maxRate subscribers that left kept theirs open
        // while nothing was published: issue 28, item 7).
        holding.removeAll(keepingCapacity: true)
    }

    /// A message for some clients only (a system gesture: those its `to` names), each of them
    /// that takes its type, queued as every message is (its flow decides).
    public func publish(_ m: Message, onlyTo accepts: (_ client: Int, _ credentials: UnixSocket.Credentials?) -> Bool) {
        let type = m.type
        var bytes: [UInt8]?
        let now = clock()
        for c in connections.values.sorted(by: { $0.id < $1.id }) where c.filter.types.contains(type) && accepts(c.id, c.credentials) {
            let b = bytes ?? history.encode(m)
            bytes = b
            offer(c, b, at: now, input: 0)
        }
    }

    /// A message for a client that holds frames (a maxRate, or catching up): what its flow
    /// releases now is queued, in order.
    func hold(_ m: Message, for c: Connection, now: Int64) {
        guard let s = c.filter.apply(m, scene: scene, client: c.id) else { return }
        shaped.removeAll(keepingCapacity: true)
        c.flow.hold(s, now: now, into: &shaped)
        for out in shaped { offer(c, history.encode(out), at: now, input: monotonicStamps ? out.inputTime : 0) }
    }

    /// When held frames are due next (maxRate clients), nil when none are held.
    public var nextDeadline: Int64? {
        var best: Int64?
        for c in connections.values { if let d = c.flow.deadline, best.map({ d < $0 }) ?? true { best = d } }
        return best
    }

    /// Sends the held frames whose time has come.
    public func releaseDue(now: Int64) {
        for c in connections.values where c.flow.deadline.map({ $0 <= now }) == true {
            heldOut.removeAll(keepingCapacity: true)
            c.flow.due(now: now, into: &heldOut)
            queueHeld(c, at: now)
        }
    }

    /// Offers `heldOut` (frames a flow released) to client `c`.
    func queueHeld(_ c: Connection, at now: Int64) {
        for h in heldOut { offer(c, history.encode(.frame(h)), at: now, input: monotonicStamps ? h.time : 0) }
    }

    /// Queues a message for a client, or drops it, as its flow says.
    func offer(_ c: Connection, _ bytes: [UInt8], at time: Int64, input: Int64, moveOnly: Bool = false) {
        // The last messages before a shutdown (the touches' cancellations) reach everyone.
        if finalMessages {
            c.queue.append(bytes, enqueuedAt: time, inputTime: input, moveOnly: moveOnly)
            return
        }
        let (verdict, notice) = c.flow.offer(queued: c.depth, now: time)
        switch notice {
        case .behind?:
            log(.info, "client \(c.id) is behind (\(c.queue.count) messages, \(c.queue.bytes) bytes queued): coalescing its moves until it catches up")
        case .dropping?:
            log(.warning, "client \(c.id) is not keeping up (its queue is full: \(c.queue.count) messages, \(c.queue.bytes) bytes): dropping its messages until it catches up")
        case nil:
            break
        }
        switch verdict {
        case .queue: c.queue.append(bytes, enqueuedAt: time, inputTime: input, moveOnly: moveOnly)
        case .drop: stats.messagesDropped += 1
        }
    }

    /// Writes what each client can take now (called after each batch of input); a client that
    /// fell behind and has drained to half its queue gets its overflow notice and a snapshot;
    /// one catching up gets what is held once there is room, and every frame again once little
    /// is queued even then.
    public func flush(host: ServerHost) {
        for c in connections.values {
            guard let dropped = c.flow.resync(queued: c.depth) else { continue }
            c.queue.append(WireProtocol.overflow(dropped: dropped), enqueuedAt: 0)
            log(.warning, "client \(c.id) fell behind: \(dropped) message(s) dropped; it got an overflow notice and a new snapshot")
            sendSnapshot(c, host: host)
        }
        for c in connections.values where !c.waitingForWritable && !c.queue.isEmpty { write(c) }
        for c in connections.values {
            heldOut.removeAll(keepingCapacity: true)
            guard c.flow.release(queued: c.depth, into: &heldOut) else { continue }
            queueHeld(c, at: clock())
            if c.flow.caughtUp(queued: c.depth) { log(.info, "client \(c.id) caught up: every frame again") }
            if !c.waitingForWritable && !c.queue.isEmpty { write(c) }
        }
    }

    func write(_ c: Connection) {
        let outcome: Connection.WriteOutcome
        do {
            outcome = try c.writeQueued(scratch: writeScratch) { e in
                let now = clock()
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

    /// A hit test's trace of a touch in a private window (it has no `sub`: hit tests are not
    /// numbered).
    func isPrivateTrace(_ m: Message) -> Bool {
        guard case .hitTest(let h) = m, let w = h.window else { return false }
        return scene[w].isPrivate
    }
}
