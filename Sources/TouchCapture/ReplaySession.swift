import TouchCore
import TouchInput

/// The captures attached to an engine and replayed through it.
public final class ReplaySession {
    public let engine: Engine
    public private(set) var inputs: [InputDevice?] = []
    public var timeline: Timeline
    /// Maps an event's capture time to the time the engine sees (nil: the capture's own).
    /// `touchd run --replay` in real time stamps events with the CLOCK_MONOTONIC time at which
    /// they are due, as live input is stamped.
    public var stamp: ((Int64) -> Int64)?
    let log: LogFunction

    /// Attaches every capture's device to the engine (ignored ones are left out).
    public init(config: Config, captures: [CaptureDevice], engine: Engine, log: @escaping LogFunction) throws(InputDevice.AttachError) {
        self.engine = engine
        self.log = log
        timeline = Timeline(captures)
        for c in captures {
            let entry = InputDevice.entry(for: c.info, in: config)
            if let entry, entry.settings.ignore {
                log(.info, "\(c.id): \"\(c.info.name)\" matches \(entry.label), which says ignore")
                inputs.append(nil)
                continue
            }
            if let entry { log(.debug, "\(c.id): \"\(c.info.name)\" uses \(entry.label)") }
            let start = c.events.first?.time ?? 0
            inputs.append(try InputDevice.attach(id: c.id, info: c.info, entry: entry, screen: config.screen, engine: engine, time: start))
        }
    }

    /// A reloaded config: every capture device is matched to the entries again.
    public func reconfigure(_ config: Config) {
        for input in inputs {
            guard let input else { continue }
            let entry = InputDevice.entry(for: input.info, in: config)
            engine.updateDevice(input.engineIndex, settings: entry?.settings ?? DeviceSettings(), info: input.info, screen: config.screen)
        }
    }

    /// Feeds one event of the timeline; false when the timeline is done.
    public func step() -> Bool {
        guard let (d, e) = timeline.next() else { return false }
        if let stamp {
            var stamped = e
            stamped.time = stamp(e.time)
            inputs[d]?.feed(stamped, engine: engine)
        } else {
            inputs[d]?.feed(e, engine: engine)
        }
        return true
    }

    /// Plays every event, draining the engine into `sink` as it goes (in batches, so the loop
    /// per event stays small), then the end: a second of quiet, touches still down cancelled.
    ///
    /// With a scene script, each of its entries applies before the first event at or after its
    /// time (so between two hardware frames), its reply in the output where it happened;
    /// entries after the last event apply before the end.
    public func run<S: OutputSink>(into sink: inout S, scene player: ScenePlayer? = nil) {
        var buffer: [EngineOutput] = []
        buffer.reserveCapacity(1024)
        var player = player
        var events = 0
        let history = SceneHistory(scene: engine.scene)
        func flush() {
            engine.drain(into: &buffer)
            history.deliver(buffer, to: &sink)
            buffer.removeAll(keepingCapacity: true)
        }
        func play(until time: Int64?) {
            while let t = player?.nextTime, time.map({ t <= $0 }) ?? true {
                // Timers due before the entry fire first (this loop owns the replay's time).
                engine.advance(to: t)
                flush()
                let reply = player?.playNext(engine)
                flush()
                if let reply { sink.reply(reply) }
            }
        }
        while true {
            if player != nil {
                guard let t = timeline.nextTime else { break }
                play(until: t)
            }
            guard step() else { break }
            events += 1
            if events & 255 == 0 && engine.hasOutput { flush() }
        }
        play(until: nil)
        finish()
        flush()
    }

    /// The end of the captures (the offline loop's last step, and the daemon's when its replay
    /// has played everything): a second of quiet (timers such as a double tap's interval run
    /// out as they would), scroll views still moving on run until they rest (each motion is
    /// bounded), then touches still down are cancelled (shutdown).
    public func finish() {
        engine.advance(to: engine.lastTime + 1_000_000)
        while engine.isMoving, let next = engine.nextDeadline { engine.advance(to: next) }
        engine.shutdown(time: engine.lastTime)
        diagnose()
    }

    /// Logs what looked wrong in the captures' input (axes that never moved).
    public func diagnose() {
        for input in inputs {
            if let text = input?.diagnosis() { log(.warning, text) }
        }
    }
}
