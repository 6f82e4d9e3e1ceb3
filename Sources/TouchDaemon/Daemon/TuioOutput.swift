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

    init(settings: TuioSettings, screen: Size, scene: Scene, log: @escaping LogFunction) {
        self.settings = settings
        self.log = log
        encoder = TuioEncoder(source: "\(settings.source)@\(UDPSocket.hostName())", screen: screen, scene: scene)
        nextFull = Clock.monotonicMicros() + Int64(settings.fullStateInterval * 1_000_000)
        for t in settings.targets {
            do {
                let found = try UDPSocket.resolve(host: t.host, port: t.port)
                guard let first = found.first else { continue }
                targets.append(first)
                if senders[first.family] == nil { senders[first.family] = Sender(fd: try UDPSocket.open(family: first.family)) }
            } catch {
                log(.warning, "TUIO target \(t): \(error); not sent to")
            }
        }
        log(.info, "TUIO 1.1 to \(targets.map(\.description).joined(separator: ", ")) as \(encoder.source)")
    }

    func publish(_ outputs: [EngineOutput]) {
        for o in outputs {
            switch o {
            case .sceneChanged(let s): encoder.sceneChanged(s)
            case .message(.frame(let f)): send(encoder.frame(f))
            default: break
            }
        }
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
