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

    /// One encoder per choice of output among the targets (every output's touches, or one
    /// output's normalised to it), with the addresses it sends to.
    struct Stream {
        var encoder: TuioEncoder
        var targets: [SocketAddress] = []
    }
    var streams: [Stream] = []
    /// For each configured target, its stream.
    let streamOf: [Int]
    let settings: TuioSettings
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
        let source = "\(settings.source)@\(UDPSocket.hostName())"
        var choices: [String?] = []
        var streamOf: [Int] = []
        for k in settings.targets.indices {
            let o = settings.output(of: k)
            if let i = choices.firstIndex(where: { $0 == o }) { streamOf.append(i) } else { streamOf.append(choices.count); choices.append(o) }
        }
        streams = choices.map { Stream(encoder: TuioEncoder(source: source, output: $0)) }
        self.streamOf = streamOf
        nextFull = now + Int64(settings.fullStateInterval * 1_000_000)
        log(.info, "TUIO 1.1 as \(source) to " + settings.targets.indices.map { k in
            settings.targets[k].description + (settings.output(of: k).map { " (output \($0))" } ?? "")
        }.joined(separator: ", "))
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
            let k = a.tag & 0xffff
            guard k < streamOf.count else { return }
            if senders[first.family] == nil { senders[first.family] = Sender(fd: try UDPSocket.open(family: first.family)) }
            streams[streamOf[k]].targets.append(first)
            log(.info, "TUIO target \(t) resolved: sending to it")
        } catch {
            log(.warning, "TUIO target \(t): \(error); not sent to")
        }
    }

    /// A message the engine published, with the scene of its time (window origins).
    func publish(_ m: Message, history: SceneHistory) {
        guard case .frame(let f) = m else { return }
        for i in streams.indices { send(streams[i].encoder.frame(f, scene: history.scene), to: streams[i].targets) }
    }

    /// The full state, when its time has come.
    func due(now: Int64) {
        guard now >= nextFull else { return }
        for i in streams.indices { send(streams[i].encoder.fullState(), to: streams[i].targets) }
        nextFull = now + Int64(settings.fullStateInterval * 1_000_000)
    }

    func send(_ datagrams: [[UInt8]], to targets: [SocketAddress]) {
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
