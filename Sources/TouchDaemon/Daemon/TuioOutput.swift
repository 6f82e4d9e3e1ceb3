import TouchCore
import TouchSystem
import TouchServer

/// The daemon's TUIO output: the encoder's datagrams to every target, and the periodic full
/// state. UDP: a datagram the socket cannot take now is dropped (the next bundle and the full
/// state make up for it), and a receiver that is not there is not an error.
final class TuioOutput {
    /// One socket per address family, owned by the dispatch thread like everything else.
    final class Sender {
        let fd: FileDescriptor
        init(fd: consuming FileDescriptor) { self.fd = fd }
    }

    var encoder: TuioEncoder
    let settings: TuioSettings
    var targets: [SocketAddress] = []
    var senders: [Int32: Sender] = [:]
    var nextFull: Int64
    let log: LogFunction
    var sent = 0, dropped = 0

    /// This output's requests to the resolver (an answer for an output a reload replaced is
    /// ignored).
    let generation: Int

    /// Starts resolving the targets off the loop (`Resolver`): frames go to each target once
    /// its address is known (`resolved`).
    init(settings: TuioSettings, resolver: Resolver, generation: Int, now: Int64, log: @escaping LogFunction) {
        self.settings = settings
        self.log = log
        self.generation = generation
        encoder = TuioEncoder(source: "\(settings.source)@\(UDPSocket.hostName())", output: settings.output)
        nextFull = now + Int64(settings.fullStateInterval * 1_000_000)
        log(.info, "TUIO 1.1 as \(encoder.source) to \(settings.targets.map(\.description).joined(separator: ", "))")
        for (k, t) in settings.targets.enumerated() {
            resolver.resolve(host: t.host, port: t.port, tag: generation << 16 | k)
        }
    }

    /// An answer of the resolver: the target is sent to from now on (or a warning says why not).
    func resolved(_ a: Resolver.Answer) {
        guard a.tag >> 16 == generation else { return }
        let t = a.host.contains(":") ? "[\(a.host)]:\(a.port)" : "\(a.host):\(a.port)"
        do {
            let found = try a.result.get()
            guard let first = found.first else {
                log(.warning, "TUIO target \(t): no address; not sent to")
                return
            }
            if senders[first.family] == nil { senders[first.family] = Sender(fd: try UDPSocket.open(family: first.family)) }
            targets.append(first)
            log(.info, "TUIO target \(t) resolved: sending to it")
        } catch {
            log(.warning, "TUIO target \(t): \(error); not sent to")
        }
    }

    /// A message the engine published, with the scene of its time (window origins).
    func publish(_ m: Message, history: SceneHistory) {
        if case .frame(let f) = m { send(encoder.frame(f, scene: history.scene)) }
    }

    /// The full state, when its time has come.
    func due(now: Int64) {
        guard now >= nextFull else { return }
        send(encoder.fullState())
        nextFull = now + Int64(settings.fullStateInterval * 1_000_000)
    }

    func send(_ datagrams: [[UInt8]]) {
        for d in datagrams {
            for t in targets {
                guard let s = senders[t.family] else { continue }
                do {
                    if try UDPSocket.send(s.fd, d, to: t) { sent += 1 } else { dropped += 1 }
                } catch {
                    log(.warning, "TUIO: \(error)")
                }
            }
        }
    }
}
