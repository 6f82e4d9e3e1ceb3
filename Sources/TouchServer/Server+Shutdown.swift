import TouchCore
import TouchSystem

extension Server {
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
            switch c.flow.shutdown(queued: c.depth, held: &heldOut) {
            case .resync(let dropped):
                c.queue.remove { _ in true }
                c.queue.append(WireProtocol.overflow(dropped: dropped), enqueuedAt: 0)
                sendSnapshot(c, host: host)
                log(.info, "client \(c.id) was behind at shutdown: it gets an overflow notice and a snapshot (no touches down) instead of its queue")
            case .dropStaleMoves:
                let stale = c.queue.remove { $0.moveOnly }
                log(.info, "client \(c.id) was behind at shutdown: \(stale) stale frame(s) of moves dropped; its touches' ends and cancellations stay")
            case .sendHeld:
                // Frames held for a maxRate go before the goodbye.
                for h in heldOut { c.queue.append(history.encode(.frame(h)), enqueuedAt: 0) }
            }
            c.queue.append(farewell, enqueuedAt: 0)
            c.closing = true
            write(c)
        }
    }

    public var isIdle: Bool { connections.isEmpty }

    /// `beginShutdown` has been called: no client is accepted any more.
    public var isShuttingDown: Bool { !accepting }

    /// Closes every client still connected and removes the socket file (if this daemon made it).
    public func closeAll() {
        for c in Array(connections.values) { drop(c, nil) }
        listener.removeFile(log: log)
    }
}
