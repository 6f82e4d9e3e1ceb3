import TouchCore
import TouchCapture

/// Every message as NDJSON, one per line (hitTest messages only when asked for), with the ids
/// of its own scene (SceneHistory).
struct NDJSONSink: OutputSink {
    let writer: OutputWriter
    let includeHitTests: Bool

    init(writer: OutputWriter, includeHitTests: Bool) {
        self.writer = writer
        self.includeHitTests = includeHitTests
    }

    mutating func take(_ m: Message, history: SceneHistory) {
        if case .hitTest = m, !includeHitTests { return }
        // Through the history (a borrow of its encoder): a copy of the encoder would retain
        // and release its scene's storage for every message.
        writer.append { history.encode(m, into: &$0) }
    }

    mutating func reply(_ line: [UInt8]) { writer.append { $0 += line } }
}
