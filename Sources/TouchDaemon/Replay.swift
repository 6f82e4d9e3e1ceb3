import TouchCore
import TouchInput
import TouchCapture

/// Loads capture files: detects each one's format from its content (or `--format`), pairs
/// header-less recordings with `--device-info` descriptions in order.
public enum CaptureLoader {
    public static let formats = ["evemu", "libinput", "raw", "getevent"]

    public static func load(paths: [String], deviceInfos: [String], format: String?,
                            warn: (String) -> Void) throws(CaptureError) -> [CaptureDevice] {
        var descriptions: [(DeviceInfo, String)] = []
        for d in deviceInfos {
            let bytes = try readFileBytes(d)
            descriptions.append((try EvemuReader.readDescription(bytes, file: d), d))
        }
        var devices: [CaptureDevice] = []
        var nextDescription = 0
        func takeDescription() -> (DeviceInfo, String)? {
            guard nextDescription < descriptions.count else { return nil }
            defer { nextDescription += 1 }
            return descriptions[nextDescription]
        }
        for path in paths {
            let bytes = try readFileBytes(path)
            if bytes.isEmpty { throw CaptureError(file: path, line: 0, message: "empty file: not a capture") }
            switch format ?? detect(bytes) {
            case "evemu":
                let description = EvemuReader.hasHeader(bytes) ? nil : takeDescription()
                devices += try EvemuReader.read(bytes, file: path, description: description?.0, descriptionFile: description?.1, warn: warn)
            case "libinput":
                devices += try LibinputRecordReader.read(bytes, file: path)
            case "raw":
                devices += try RawEventReader.read(bytes, file: path, description: takeDescription()?.0)
            case "getevent":
                devices += try GeteventReader.read(bytes, file: path, description: takeDescription()?.0, warn: warn)
            default:
                throw CaptureError(file: path, line: 1, message: "not a recognised capture: expected an evemu recording ('# EVEMU 1.3', 'N: <name>', 'E: <sec>.<usec> <type> <code> <value>'), a libinput record file ('version: 1', 'devices:'), an Android 'getevent -lt' log ('[   12.345678] /dev/input/event1: EV_ABS ABS_MT_POSITION_X 0000019a') or a raw input_event dump with --device-info; --format names one")
            }
        }
        if nextDescription < descriptions.count {
            warn("--device-info \(descriptions[nextDescription].1) was not used: every capture has its own description")
        }
        // Several devices from different files may share a base name: keep ids unique.
        var seen: [String: Int] = [:]
        for i in devices.indices {
            let n = (seen[devices[i].id] ?? 0) + 1
            seen[devices[i].id] = n
            if n > 1 { devices[i].id += "#\(n)" }
        }
        return devices
    }

    /// The format from the content: text formats by their first lines, binary as a raw dump.
    static func detect(_ bytes: [UInt8]) -> String? {
        if RawEventReader.looks(like: bytes) { return "raw" }
        if EvemuReader.looks(like: bytes) { return "evemu" }
        if LibinputRecordReader.looks(like: bytes) { return "libinput" }
        if GeteventReader.looks(like: bytes) { return "getevent" }
        return nil
    }
}

/// Several devices' events merged into one timeline by timestamp (stable: equal times keep
/// the devices' order).
public struct Timeline {
    let devices: [CaptureDevice]
    var cursors: [Int]

    public init(_ devices: [CaptureDevice]) {
        self.devices = devices
        cursors = Array(repeating: 0, count: devices.count)
    }

    public var nextTime: Int64? {
        var best: Int64?
        for (d, dev) in devices.enumerated() where cursors[d] < dev.events.count {
            let t = dev.events[cursors[d]].time
            if best == nil || t < best! { best = t }
        }
        return best
    }

    public mutating func next() -> (device: Int, event: InputEvent)? {
        if devices.count == 1 {
            guard cursors[0] < devices[0].events.count else { return nil }
            defer { cursors[0] += 1 }
            return (0, devices[0].events[cursors[0]])
        }
        var best = -1
        var bestTime = Int64.max
        for (d, dev) in devices.enumerated() where cursors[d] < dev.events.count {
            let t = dev.events[cursors[d]].time
            if t < bestTime { best = d; bestTime = t }
        }
        guard best >= 0 else { return nil }
        defer { cursors[best] += 1 }
        return (best, devices[best].events[cursors[best]])
    }
}

/// The captures attached to an engine and replayed through it.
public final class ReplaySession {
    public let engine: Engine
    public private(set) var inputs: [InputDevice?] = []
    public var timeline: Timeline
    let log: LogFunction

    public init<S: MessageSink>(config: Config, captures: [CaptureDevice], options: EngineOptions,
                                log: @escaping LogFunction, sink: inout S) throws(InputDevice.AttachError) {
        engine = Engine(scene: config.scene, options: options, log: log)
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
            inputs.append(try InputDevice(id: c.id, info: c.info, entry: entry, config: config,
                                          engine: engine, time: start, sink: &sink))
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
    public func step<S: MessageSink>(sink: inout S) -> Bool {
        guard let (d, e) = timeline.next() else { return false }
        inputs[d]?.feed(e, engine: engine, sink: &sink)
        return true
    }

    /// Plays everything, then cancels what is still down (reason `shutdown`).
    public func runToEnd<S: MessageSink>(sink: inout S) {
        while step(sink: &sink) {}
        finish(sink: &sink)
    }

    /// The end of the captures is followed by a second of quiet (timers such as a double tap's
    /// interval run out as they would), then touches still down are cancelled (shutdown).
    public func finish<S: MessageSink>(sink: inout S) {
        engine.advance(to: engine.lastTime + 1_000_000, sink: &sink)
        engine.shutdown(time: engine.lastTime, sink: &sink)
        for input in inputs {
            if let text = input?.diagnosis() { log(.warning, text) }
        }
    }
}

/// Writes every message as NDJSON (hitTest messages only when asked for).
public struct WriterSink: MessageSink {
    public var encoder: MessageEncoder
    public let writer: FDWriter
    public var includeHitTests: Bool

    public init(scene: Scene, writer: FDWriter, includeHitTests: Bool) {
        encoder = MessageEncoder(scene: scene)
        self.writer = writer
        self.includeHitTests = includeHitTests
    }

    public mutating func publish(_ message: Message) {
        if case .hitTest = message, !includeHitTests { return }
        let e = encoder
        writer.append { e.encode(message, into: &$0) }
    }
}
