import TouchCore
import TouchInput

/// The offline loop: captures replayed through an engine (`touchd replay`, the tests'
/// replays). It alone feeds that engine (CaptureInputs reads the captures, EngineFeed hands
/// what they say to the engine) and advances its time.
public final class ReplaySession {
    public let engine: Engine
    public let captures: CaptureInputs
    var feed = EngineFeed()
    var items: [InputItem] = []

    /// Registers every capture's device with the engine (ignored ones are left out).
    public init(config: Config, captures: [CaptureDevice], engine: Engine, log: @escaping LogFunction) throws(InputDevice.AttachError) {
        self.engine = engine
        self.captures = try CaptureInputs(config: config, captures: captures, log: log)
        self.captures.arrivals(into: &items)
        feedItems()
    }

    public var timeline: Timeline { captures.timeline }

    func feedItems() {
        for item in items { feed.feed(item, to: engine) }
        items.removeAll(keepingCapacity: true)
    }

    /// Feeds one event of the timeline; false when the timeline is done.
    public func step() -> Bool {
        guard captures.step(stamp: nil, into: &items) else { return false }
        feedItems()
        return true
    }

    /// Plays every event, draining the engine into `sink` as it goes (in batches, so the loop
    /// per event stays small), then the end: a second of quiet, touches still down cancelled.
    ///
    /// With a scene script, each of its entries applies before the first event at or after its
    /// time (so between two hardware frames), its reply in the output where it happened;
    /// entries after the last event apply before the end.
    public func run<S: OutputSink>(into sink: inout S, scene player: ScenePlayer? = nil) {
        let history = SceneHistory(scene: engine.scene)
        run(scene: player) { batch in
            switch batch {
            case .outputs(let outputs): history.deliver(outputs, to: &sink)
            case .reply(let line): sink.reply(line)
            }
        }
    }

    /// What the loop hands on, in order: a batch of the engine's outputs (read them through
    /// one SceneHistory of the engine's scene at the start), or a scene script's reply.
    public enum Batch: Sendable {
        case outputs([EngineOutput])
        case reply([UInt8])
    }

    /// `run(into:scene:)`'s loop, its output handed to `hand` in batches instead: the replay
    /// encodes them on another thread (EncoderThread), the engine staying on this one. A batch
    /// is what the engine published over about `every` events (a power of two; a handover to
    /// another thread costs a wake-up, so it takes larger ones).
    public func run(scene player: ScenePlayer? = nil, every: Int = 256, handing hand: (Batch) -> Void) {
        precondition(every > 0 && every & (every - 1) == 0, "a power of two")
        var buffer: [EngineOutput] = []
        // A batch is a few frames' outputs; handed to another thread, the next one starts in
        // new storage of this capacity.
        buffer.reserveCapacity(max(64, every / 16))
        var player = player
        var events = 0
        func flush() {
            engine.drain(into: &buffer)
            guard !buffer.isEmpty else { return }
            // A replayed client's calibration messages are its own: written in their place as
            // lines with "client":NAME, like its replies.
            if let p = player, buffer.contains(where: \.isForOneClient) {
                var part: [EngineOutput] = []
                for o in buffer {
                    let line: [UInt8]
                    switch o {
                    case .calibration(let client, let m) where p.name(of: client) != nil: line = m.encode(client: p.name(of: client))
                    case .notice(let client, let n) where p.name(of: client) != nil: line = n.encode(client: p.name(of: client))
                    default: part.append(o); continue
                    }
                    if !part.isEmpty { hand(.outputs(part)) }
                    part = []
                    hand(.reply(line))
                }
                if !part.isEmpty { hand(.outputs(part)) }
                buffer.removeAll(keepingCapacity: true)
                return
            }
            hand(.outputs(buffer))
            // Kept when `hand` let go of it (one thread); new storage when another holds it.
            buffer.removeAll(keepingCapacity: true)
        }
        func play(until time: Int64?) {
            while let t = player?.nextTime, time.map({ t <= $0 }) ?? true {
                // Timers due before the entry fire first (this loop owns the replay's time).
                engine.advance(to: t)
                flush()
                let reply = player?.playNext(engine)
                flush()
                if let reply { hand(.reply(reply)) }
            }
        }
        while true {
            if player != nil {
                guard let t = timeline.nextTime else { break }
                play(until: t)
            }
            guard step() else { break }
            events += 1
            if events & (every - 1) == 0 && engine.hasOutput { flush() }
        }
        play(until: nil)
        finish()
        flush()
    }

    /// The end of the captures: a second of quiet, motion to rest, touches still down
    /// cancelled (Engine.playEnd), and what looked wrong in their input.
    public func finish() {
        engine.playEnd()
        captures.diagnose()
    }
}
