@preconcurrency import Glibc
import CLinux
import TouchCore

/// One connected client: its read buffer, its subscription and its bounded write queue.
/// Owned by the dispatch thread like everything in the server.
public final class Client {
    public let fd: Int32
    public let id: Int
    public let credentials: (pid: Int32, uid: UInt32, gid: UInt32)?
    var readBuffer: [UInt8] = []
    var discardingLongLine = false
    var lineNumber = 0
    var queue: [[UInt8]] = []
    var queueHead = 0
    var headOffset = 0
    var queuedBytes = 0
    var waitingForWritable = false
    public internal(set) var filter = SubscriptionFilter()
    /// Messages not queued since the last overflow notice.
    var dropped = 0
    public internal(set) var droppedTotal = 0
    var closing = false
    /// The client shut down its sending side: it still receives until it closes.
    var readClosed = false
    /// Its queue is full: its requests are not read until it drains (so replies cannot pile up).
    var readPaused = false
    var readable: Bool { !readClosed && !readPaused }
    /// Enqueue times (monotonic µs) of queued messages, for latency figures; parallel to `queue`.
    var enqueuedAt: [Int64] = []

    init(fd: Int32, id: Int, credentials: (pid: Int32, uid: UInt32, gid: UInt32)?) {
        self.fd = fd
        self.id = id
        self.credentials = credentials
    }

    var pending: Int { queue.count - queueHead }
}

public struct ServerLimits: Sendable {
    public var queueLimit = 4096
    public var maxClients = 256
    public var maxLine = WireProtocol.maxLine
    public init() {}
}

public struct ServerStats: Sendable {
    public var messagesPublished = 0
    public var clientsAccepted = 0
    public var clientsRefused = 0
    public var messagesDropped = 0
    public var errorsSent = 0
    /// Per published message: time from publication to the last client's complete write (µs).
    public var latencies: [Int64] = []
}

/// The socket server: accepts clients, parses their requests, publishes messages to each
/// according to its subscription, and never lets one client hold up the others (non-blocking
/// writes, a bounded queue per client).
///
/// Queue policy: when a client's queue holds `queueLimit` messages, further messages for it
/// are dropped and counted; once the queue has drained to half, the client receives
/// `{"type":"overflow","dropped":N}` followed by a fresh snapshot of the touches down, then
/// the stream continues. Nothing is lost silently, and the other clients are unaffected.
public final class Server {
    public let listenFD: Int32
    let poller: Poller
    public var limits: ServerLimits
    public var log: LogFunction
    var clients: [Int32: Client] = [:]
    var nextClientID = 1
    public private(set) var stats = ServerStats()
    public var scene: Scene
    public var screen: Size
    public var version: String
    var encoder: MessageEncoder
    /// Provides the touches down (and their devices) for snapshots.
    public var snapshotProvider: () -> (touches: [TouchRecord], devices: [String], attached: [DeviceDescriptor], time: Int64, seq: Int) = { ([], [], [], 0, 0) }
    /// Extra fields for stats replies.
    public var statsProvider: () -> [(String, String)] = { [] }
    var readScratch = [UInt8](repeating: 0, count: 64 * 1024)
    var latencyStart: [Int64] = []

    public init(listenFD: Int32, poller: Poller, scene: Scene, screen: Size, version: String, limits: ServerLimits,
                log: @escaping LogFunction) throws(SysError) {
        self.listenFD = listenFD
        self.poller = poller
        self.scene = scene
        self.screen = screen
        self.version = version
        self.limits = limits
        self.log = log
        encoder = MessageEncoder(scene: scene)
        try Sys.setNonBlocking(listenFD)
        try poller.add(listenFD)
    }

    public var clientCount: Int { clients.count }
    /// Clients that have sent at least one request (a replay can wait for them).
    public var clientsWithRequests: Int { clients.values.filter { $0.lineNumber > 0 }.count }
    public func owns(_ fd: Int32) -> Bool { fd == listenFD || clients[fd] != nil }

    /// A new scene after a reload: filters are resolved again (an id that vanished matches nothing).
    public func replaceScene(_ scene: Scene, screen: Size) {
        self.scene = scene
        self.screen = screen
        encoder = MessageEncoder(scene: scene)
        for c in clients.values { c.filter.resolve(in: scene) }
    }

    // MARK: Events from the loop

    public func handle(_ r: Poller.Ready) {
        if r.fd == listenFD {
            acceptAll()
            return
        }
        guard let c = clients[r.fd] else { return }
        if r.hangup && (c.readClosed || !r.readable) {
            log(.info, "client \(c.id) disconnected")
            drop(c)
            return
        }
        if r.readable && !c.readClosed { readFrom(c) }
        if clients[r.fd] != nil && r.writable { write(c) }
    }

    func acceptAll() {
        for _ in 0..<64 {
            let fd = accept(listenFD, nil, nil)
            if fd >= 0 {
                Sys.setCloseOnExec(fd)
                do { try Sys.setNonBlocking(fd) } catch { Sys.close(fd); continue }
            }
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { log(.warning, "accept: \(String(cString: strerror(errno)))") }
                return
            }
            let creds = Sys.peerCredentials(fd)
            if clients.count >= limits.maxClients {
                stats.clientsRefused += 1
                let msg = WireProtocol.error("too many clients (the limit is \(limits.maxClients)); try again later")
                _ = msg.withUnsafeBytes { try? Sys.send(fd, $0) }
                Sys.close(fd)
                log(.warning, "refused a client (pid \(creds.map { String($0.pid) } ?? "?")): \(limits.maxClients) clients already connected")
                continue
            }
            let c = Client(fd: fd, id: nextClientID, credentials: creds)
            nextClientID += 1
            do { try poller.add(fd) } catch {
                log(.warning, "client: \(error)")
                Sys.close(fd)
                continue
            }
            clients[fd] = c
            stats.clientsAccepted += 1
            if let cr = creds {
                log(.info, "client \(c.id) connected: pid \(cr.pid) uid \(cr.uid) gid \(cr.gid)")
            } else {
                log(.info, "client \(c.id) connected (no peer credentials)")
            }
            c.filter.resolve(in: scene)
            enqueueControl(c, WireProtocol.hello(screen: screen, version: version, pid: getpid()))
            sendSnapshot(c)
            write(c)
        }
    }

    func readFrom(_ c: Client) {
        if c.pending >= limits.queueLimit {
            c.readPaused = true
            poller.modify(c.fd, readable: false, writable: c.waitingForWritable)
            return
        }
        var budget = 4   // at most 4 × 64 KiB per wake-up: a flooding client cannot starve the loop
        while budget > 0 && clients[c.fd] != nil {
            budget -= 1
            guard let result = io(c, { () throws -> IOResult in
                try readScratch.withUnsafeMutableBytes { (buf) throws(SysError) -> IOResult in try Sys.read(c.fd, into: buf) }
            }) else { return }
            switch result {
            case .wouldBlock:
                return
            case .closed:
                // End of its requests (shutdown(SHUT_WR), e.g. `echo … | socat`): keep sending
                // until the connection is gone for good.
                c.readClosed = true
                if !c.readBuffer.isEmpty && !c.discardingLongLine { consume(c, [0x0A]) }
                poller.modify(c.fd, readable: false, writable: c.waitingForWritable)
                return
            case .done(let n):
                consume(c, readScratch[0..<n])
            }
        }
    }

    /// Splits input into lines; a line longer than the limit is answered with one error and
    /// skipped up to its newline, without buffering it.
    func consume(_ c: Client, _ bytes: ArraySlice<UInt8>) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard let nl = bytes[start...].firstIndex(of: 0x0A) else {
                if !c.discardingLongLine {
                    c.readBuffer.append(contentsOf: bytes[start...])
                    if c.readBuffer.count > limits.maxLine {
                        c.lineNumber += 1
                        log(.info, "client \(c.id): line \(c.lineNumber) is longer than \(limits.maxLine) bytes; skipped")
                        reply(c, WireProtocol.error("line \(c.lineNumber) is longer than \(limits.maxLine) bytes; skipped", line: c.lineNumber))
                        c.readBuffer.removeAll()
                        c.discardingLongLine = true
                    }
                }
                return
            }
            if c.discardingLongLine {
                c.discardingLongLine = false
            } else {
                c.readBuffer.append(contentsOf: bytes[start..<nl])
                c.lineNumber += 1
                if c.readBuffer.count > limits.maxLine {
                    reply(c, WireProtocol.error("line \(c.lineNumber) is longer than \(limits.maxLine) bytes; skipped", line: c.lineNumber))
                } else {
                    var line = c.readBuffer
                    if line.last == 0x0D { line.removeLast() }
                    if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { request(c, line) }
                }
                c.readBuffer.removeAll(keepingCapacity: c.readBuffer.count < 4096)
            }
            start = nl + 1
        }
    }

    func request(_ c: Client, _ line: [UInt8]) {
        switch WireProtocol.parse(line) {
        case .failure(let e):
            reply(c, WireProtocol.error(e.message, line: c.lineNumber))
        case .success(.ping(let v)):
            reply(c, WireProtocol.pong(v))
        case .success(.stats):
            reply(c, statsLine())
        case .success(.subscribe(let types, let windows, let views)):
            var f = SubscriptionFilter()
            if let types { f.types = Set(types) }
            f.windowIDs = windows ?? []
            f.viewIDs = views ?? []
            let unknown = f.resolve(in: scene)
            if !unknown.isEmpty {
                reply(c, WireProtocol.error("subscribe: no window or view has id \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); subscription unchanged", line: c.lineNumber))
                return
            }
            c.filter = f
            log(.debug, "client \(c.id) subscribed: types \(f.types.sorted().joined(separator: ",")) windows \(f.windowIDs) views \(f.viewIDs)")
            sendSnapshot(c)
            write(c)
        }
    }

    func reply(_ c: Client, _ bytes: [UInt8]) {
        if bytes.starts(with: Array("{\"type\":\"error\"".utf8)) { stats.errorsSent += 1 }
        enqueueControl(c, bytes)
        write(c)
    }

    func sendSnapshot(_ c: Client) {
        let snap = snapshotProvider()
        var touches: [TouchRecord] = []
        var devices: [String] = []
        for (t, d) in zip(snap.touches, snap.devices) where c.filter.matches(window: t.window, view: t.view) {
            touches.append(t)
            devices.append(d)
        }
        let attached = c.filter.types.contains("device") ? snap.attached : []
        enqueueControl(c, WireProtocol.snapshot(touches, devices: devices, attached: attached, time: snap.time, seq: snap.seq, encoder: encoder))
    }

    func statsLine() -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"stats\",\"clients\":", to: &out)
        JSONWriter.appendInt(clients.count, to: &out)
        JSONWriter.appendRaw(",\"published\":", to: &out)
        JSONWriter.appendInt(stats.messagesPublished, to: &out)
        JSONWriter.appendRaw(",\"dropped\":", to: &out)
        JSONWriter.appendInt(stats.messagesDropped, to: &out)
        JSONWriter.appendRaw(",\"accepted\":", to: &out)
        JSONWriter.appendInt(stats.clientsAccepted, to: &out)
        JSONWriter.appendRaw(",\"refused\":", to: &out)
        JSONWriter.appendInt(stats.clientsRefused, to: &out)
        let sorted = stats.latencies.sorted()
        func pct(_ p: Double) -> Int64 { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        JSONWriter.appendRaw(",\"latencyMicros\":{\"samples\":", to: &out)
        JSONWriter.appendInt(sorted.count, to: &out)
        JSONWriter.appendRaw(",\"p50\":", to: &out)
        JSONWriter.appendInt(Int(pct(0.5)), to: &out)
        JSONWriter.appendRaw(",\"p99\":", to: &out)
        JSONWriter.appendInt(Int(pct(0.99)), to: &out)
        JSONWriter.appendRaw(",\"max\":", to: &out)
        JSONWriter.appendInt(Int(sorted.last ?? 0), to: &out)
        JSONWriter.appendRaw("}", to: &out)
        for (k, v) in statsProvider() {
            JSONWriter.appendRaw(",", to: &out)
            JSONWriter.appendString(k, to: &out)
            JSONWriter.appendRaw(":", to: &out)
            out.append(contentsOf: v.utf8)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    // MARK: Publishing

    /// Protocol replies and notices bypass the message limit (they are few and small).
    func enqueueControl(_ c: Client, _ bytes: [UInt8]) {
        c.queue.append(bytes)
        c.enqueuedAt.append(0)
        c.queuedBytes += bytes.count
    }

    /// Publishes one message to every client whose subscription wants it. Each distinct form
    /// of the message (the whole one, or one restricted by a view/window filter) is encoded once.
    public func publish(_ m: Message) {
        stats.messagesPublished += 1
        guard !clients.isEmpty else { return }
        var full: [UInt8]?
        let now = monotonicMicros()
        for c in clients.values {
            guard let shaped = c.filter.apply(m, scene: scene) else { continue }
            let bytes: [UInt8]
            if !c.filter.restrictsTouches {
                if full == nil { var b: [UInt8] = []; encoder.encode(m, into: &b); full = b }
                bytes = full!
            } else {
                var b: [UInt8] = []
                encoder.encode(shaped, into: &b)
                bytes = b
            }
            enqueueMessage(c, bytes, at: now)
        }
    }

    func enqueueMessage(_ c: Client, _ bytes: [UInt8], at time: Int64) {
        // Once dropping, keep dropping until flush() resynchronises the client between engine
        // steps (so its snapshot and sequence numbers are consistent).
        if c.dropped > 0 || c.pending >= limits.queueLimit {
            if c.dropped == 0 {
                log(.warning, "client \(c.id) is not keeping up (\(limits.queueLimit) messages queued): dropping its messages until it catches up")
            }
            c.dropped += 1
            c.droppedTotal += 1
            stats.messagesDropped += 1
            return
        }
        c.queue.append(bytes)
        c.enqueuedAt.append(time)
        c.queuedBytes += bytes.count
    }

    /// Writes what each client can take now (called after each batch of input).
    public func flush() {
        for c in clients.values where c.dropped > 0 && c.pending <= limits.queueLimit / 2 {
            enqueueControl(c, WireProtocol.overflow(dropped: c.dropped))
            log(.warning, "client \(c.id) fell behind: \(c.dropped) message(s) dropped; it got an overflow notice and a new snapshot")
            c.dropped = 0
            sendSnapshot(c)
        }
        for c in clients.values where !c.waitingForWritable && c.pending > 0 { write(c) }
    }

    func write(_ c: Client) {
        while c.queueHead < c.queue.count {
            guard let result = io(c, { () throws -> IOResult in
                try c.queue[c.queueHead].withUnsafeBytes { (buf) throws(SysError) -> IOResult in
                    try Sys.send(c.fd, UnsafeRawBufferPointer(rebasing: buf[c.headOffset...]))
                }
            }) else { return }
            switch result {
            case .wouldBlock:
                if !c.waitingForWritable {
                    c.waitingForWritable = true
                    poller.modify(c.fd, readable: c.readable, writable: true)
                }
                return
            case .closed:
                log(.info, "client \(c.id) went away while being written to")
                drop(c)
                return
            case .done(let n):
                if c.readPaused && c.pending < limits.queueLimit / 2 {
                    c.readPaused = false
                    poller.modify(c.fd, readable: c.readable, writable: c.waitingForWritable)
                }
                c.headOffset += n
                if c.headOffset == c.queue[c.queueHead].count {
                    let t = c.enqueuedAt[c.queueHead]
                    if t > 0 { recordLatency(t) }
                    c.queuedBytes -= c.queue[c.queueHead].count
                    c.queue[c.queueHead] = []
                    c.queueHead += 1
                    c.headOffset = 0
                }
            }
        }
        // Everything written: compact the queue.
        c.queue.removeAll(keepingCapacity: c.queue.count < 1024)
        c.enqueuedAt.removeAll(keepingCapacity: c.enqueuedAt.count < 1024)
        c.queueHead = 0
        if c.waitingForWritable {
            c.waitingForWritable = false
            poller.modify(c.fd, readable: c.readable, writable: false)
        }
        if c.closing { drop(c) }
    }

    /// The latest complete write of a message to any client, per publication time.
    func recordLatency(_ enqueued: Int64) {
        let l = monotonicMicros() - enqueued
        // The most recent 100,000 samples (a ring), so a stats request sorts a bounded list.
        if stats.latencies.count < 100_000 { stats.latencies.append(l) } else { stats.latencies[latencyCursor] = l }
        latencyCursor = (latencyCursor + 1) % 100_000
    }
    var latencyCursor = 0

    /// One read or write on a client; an error (not EAGAIN, not a closed peer) drops it: nil.
    func io(_ c: Client, _ body: () throws -> IOResult) -> IOResult? {
        do {
            return try body()
        } catch {
            log(.info, "client \(c.id): \(error); disconnecting")
            drop(c)
            return nil
        }
    }

    func drop(_ c: Client) {
        guard clients[c.fd] != nil else { return }
        poller.remove(c.fd)
        Sys.close(c.fd)
        clients[c.fd] = nil
    }

    /// Sends a last line to everyone, writes for up to `deadlineMicros`, then closes all.
    public func closeAll(farewell: [UInt8], deadlineMicros: Int64) {
        for c in clients.values {
            enqueueControl(c, farewell)
            c.closing = true
            write(c)
        }
        let end = monotonicMicros() + deadlineMicros
        while !clients.isEmpty && monotonicMicros() < end {
            for r in poller.wait(timeoutMS: 20) where clients[r.fd] != nil {
                let c = clients[r.fd]!
                if r.hangup && !r.writable { drop(c); continue }
                if r.writable { write(c) }
                if r.readable, !c.readClosed, clients[r.fd] != nil { readFrom(c) }
            }
        }
        for c in Array(clients.values) { drop(c) }
    }
}
