import TouchCore
import TouchCapture

/// Where a command puts what the engine published.
protocol OutputSink {
    mutating func take(_ outputs: [EngineOutput])
}

/// Every message as NDJSON, one per line (hitTest messages only when asked for).
struct NDJSONSink: OutputSink {
    var encoder: MessageEncoder
    let writer: OutputWriter
    let includeHitTests: Bool

    init(scene: Scene, writer: OutputWriter, includeHitTests: Bool) {
        encoder = MessageEncoder(scene: scene)
        self.writer = writer
        self.includeHitTests = includeHitTests
    }

    mutating func take(_ outputs: [EngineOutput]) {
        for o in outputs {
            switch o {
            case .sceneChanged(let s):
                encoder = MessageEncoder(scene: s)
            case .message(let m):
                if case .hitTest = m, !includeHitTests { continue }
                let e = encoder
                writer.append { e.encode(m, into: &$0) }
            }
        }
    }
}

extension ReplaySession {
    /// Plays every event, draining the engine into `sink` as it goes, then the end (a second of
    /// quiet, touches still down cancelled).
    func run<S: OutputSink>(into sink: inout S) {
        var buffer: [EngineOutput] = []
        while step() {
            guard engine.hasOutput else { continue }
            engine.drain(into: &buffer)
            sink.take(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        finish()
        engine.drain(into: &buffer)
        sink.take(buffer)
    }
}
