/// The engine's output as every consumer reads it: the one place that follows the scene changes
/// in the outbox, so that each message is read with the scene of its time — its ids, window
/// origins, owners — and encoded once with it. The daemon's server and TUIO output, the replay's
/// NDJSON and summary writers, the bench and the fuzzers all read through one history instead of
/// each keeping a copy of the scene. One thread owns it (the loop that drains the engine).
public final class SceneHistory {
    /// The scene of the messages being read (the latest change delivered).
    public private(set) var scene: Scene
    /// Encodes a message with the ids of `scene`.
    public private(set) var encoder: MessageEncoder
    /// Scene changes delivered so far.
    public private(set) var changes = 0

    public init(scene: Scene) {
        self.scene = scene
        encoder = MessageEncoder(scene: scene)
    }

    /// Reads `outputs` in order: each message goes to `sink` while `scene` is the scene of its
    /// time; a scene change moves the history on and tells the sink.
    public func deliver<S: OutputSink>(_ outputs: [EngineOutput], to sink: inout S) {
        for o in outputs {
            switch o {
            case .sceneChanged(let s):
                scene = s
                encoder = MessageEncoder(scene: s)
                changes += 1
                sink.sceneChanged(self)
            case .message(let m):
                sink.take(m, history: self)
            case .contacts(let f):
                sink.contacts(f)
            case .reply(let tag, let r):
                sink.answered(tag: tag, r)
            case .calibration(let client, let m):
                sink.calibration(client: client, m)
            case .notice(let client, let n):
                sink.notice(client: client, n)
            case .swallowed(let f):
                sink.swallowed(f)
            }
        }
    }

    /// The id of a view (nil for none).
    public func id(of v: ViewIndex?) -> String? { scene.id(of: v) }

    /// Where a window's coordinates start on the screen (zero for none: screen coordinates).
    public func origin(ofWindow w: ViewIndex?) -> Point { w.map { scene[$0].frame.origin } ?? .zero }

    /// A message as one NDJSON line.
    public func encode(_ m: Message, into out: inout [UInt8]) { encoder.encode(m, into: &out) }

    public func encode(_ m: Message) -> [UInt8] {
        var out: [UInt8] = []
        encoder.encode(m, into: &out)
        return out
    }
}

/// Where what the engine published goes, read through a SceneHistory: the replay's writers
/// (NDJSON, a digest, a count), the daemon's server, TUIO output and uinput re-export.
public protocol OutputSink {
    /// One message, to be read with `history.scene`, the scene of its time.
    mutating func take(_ m: Message, history: SceneHistory)
    /// The scene changed: `history.scene` is the new one (ids resolved against it may change).
    mutating func sceneChanged(_ history: SceneHistory)
    /// The reply to a scene request of a replayed live scene (`replay --scene`), one line.
    mutating func reply(_ line: [UInt8])
    /// A device's frame of screen contacts (the devices whose contacts are exported).
    mutating func contacts(_ frame: ScreenContactFrame)
    /// The answer to a scene request the loop tagged (Engine.answer).
    mutating func answered(tag: Int, _ reply: SceneReply)
    /// A calibration's message for the client that asked for it.
    mutating func calibration(client: Int, _ message: CalibrationMessage)
    /// A message for one client about its own windows.
    mutating func notice(client: Int, _ notice: WindowNotice)
    /// Contacts a session swallowed (`render` draws them; no message tells of them).
    mutating func swallowed(_ frame: ScreenContactFrame)
}

extension OutputSink {
    public mutating func sceneChanged(_ history: SceneHistory) {}
    public mutating func reply(_ line: [UInt8]) {}
    public mutating func contacts(_ frame: ScreenContactFrame) {}
    public mutating func answered(tag: Int, _ reply: SceneReply) {}
    public mutating func calibration(client: Int, _ message: CalibrationMessage) {}
    public mutating func notice(client: Int, _ notice: WindowNotice) {}
    public mutating func swallowed(_ frame: ScreenContactFrame) {}
}
