import TouchCore
import TouchCapture

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

    mutating func reply(_ line: [UInt8]) { writer.append { $0 += line } }
}
