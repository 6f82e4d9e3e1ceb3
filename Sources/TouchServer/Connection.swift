import TouchCore
import TouchSystem

/// One connected client: its socket, its request framing, its subscription and its bounded
/// outbound queue. Owned by the dispatch thread like everything in the server.
final class Connection {
    let fd: FileDescriptor
    let id: Int
    let credentials: UnixSocket.Credentials?
    var framer: LineFramer
    var queue = OutboundQueue()
    var filter = SubscriptionFilter() {
        didSet { flow.setRate(filter.maxRate, was: oldValue.maxRate) }
    }
    /// Its flow control: queued, held, dropped and resynchronised (a pure state machine).
    var flow: ClientFlow
    /// Its last line is queued (bye): it is closed once everything is written.
    var closing = false
    /// The client shut down its sending side: it still receives until it closes.
    var readClosed = false
    /// Its queue is full: its requests are not read until it drains (so replies cannot pile up).
    var readPaused = false
    /// Request lines read and not yet answered (a turn answers a bounded number of them).
    var backlog: [LineFramer.Item] = []
    var backlogStart = 0
    var hasBacklog: Bool { backlogStart < backlog.count }
    /// A scene request of its waits for the loop: its later lines wait for that reply.
    var awaitingScene = false
    /// Lines it has that can be answered now.
    var canServe: Bool { hasBacklog && !awaitingScene }
    /// A write would block: epoll tells when it can take more.
    var waitingForWritable = false

    /// The queue's limit in bytes (ServerLimits.queueBytes).
    var queueBytes: Int

    init(fd: consuming FileDescriptor, id: Int, credentials: UnixSocket.Credentials?, maxLine: Int,
         queueLimit: Int = ServerLimits().queueLimit, queueBytes: Int = ServerLimits().queueBytes) {
        self.fd = fd
        self.id = id
        self.credentials = credentials
        framer = LineFramer(maxLine: maxLine)
        flow = ClientFlow(limit: queueLimit)
        self.queueBytes = queueBytes
    }

    /// How full its queue is, in messages, for its flow control: the messages queued, or its
    /// bytes scaled to the message limit when that is more (half the byte limit reads as half
    /// the message limit), so the flow's thresholds bound both.
    var depth: Int {
        let scaled = (queue.bytes * flow.limit + queueBytes - 1) / max(1, queueBytes)
        return max(queue.count, scaled)
    }

    var descriptor: Descriptor { fd.number }
    var interest: Epoll.Interest { Epoll.Interest(readable: !readClosed && !readPaused && !hasBacklog, writable: waitingForWritable) }
    /// It has sent at least one line.
    var hasSpoken: Bool { framer.lineNumber > 0 }

    enum WriteOutcome {
        /// Everything queued is written.
        case drained
        /// The socket is full; the rest waits for EPOLLOUT.
        case wouldBlock
        /// The peer went away.
        case closed
    }

    /// Writes as much of the queue as the socket takes, many lines per send: they are gathered
    /// into `scratch` (the server's one write buffer) and sent together. `completed` gets each
    /// fully written timed entry (for latency figures).
    func writeQueued(scratch: UnsafeMutableRawBufferPointer, completed: (OutboundQueue.Entry) -> Void) throws(SystemError) -> WriteOutcome {
        while !queue.isEmpty {
            let n = queue.gather(into: scratch)
            if n == 0 {
                queue.consume(0) { e in if e.enqueuedAt > 0 { completed(e) } }
                continue
            }
            switch try fd.send(UnsafeRawBufferPointer(rebasing: scratch[0..<n])) {
            case .wouldBlock: return .wouldBlock
            case .closed: return .closed
            case .done(let sent):
                queue.consume(sent) { e in if e.enqueuedAt > 0 { completed(e) } }
            }
        }
        return .drained
    }
}
