import TouchCore
import TouchInput

/// Captures as a source reads them: each capture's device (its config entry, libmtdev for
/// protocol A; ignored ones left out) and their events on one timeline, returned as items for
/// a loop to feed its engine — the offline replay's (ReplaySession) or the daemon's
/// (ReplaySource).
public final class CaptureInputs {
    public private(set) var inputs: [InputDevice?] = []
    public var timeline: Timeline
    /// Each capture's first event time (a device arrives then).
    let starts: [Int64]
    let log: LogFunction
    /// Whether a device whose entry has `uinput` is re-exported (`run --replay`: the daemon
    /// makes its virtual touchscreen); offline (replay, render) nothing is.
    public var exports = false

    public init(config: Config, captures: [CaptureDevice], log: @escaping LogFunction) throws(InputDevice.AttachError) {
        self.log = log
        timeline = Timeline(captures)
        starts = captures.map { $0.events.first?.time ?? 0 }
        for (k, c) in captures.enumerated() {
            let entry = InputDevice.entry(for: c.info, in: config)
            if let entry, entry.settings.ignore {
                log(.info, "\(c.id): \"\(c.info.name)\" matches \(entry.label), which says ignore")
                inputs.append(nil)
                continue
            }
            if let entry { log(.debug, "\(c.id): \"\(c.info.name)\" uses \(entry.label)") }
            inputs.append(try InputDevice(key: DeviceKey(k), id: c.id, info: c.info, entry: entry))
        }
    }

    /// Every device's arrival, at its capture's first event time, in the captures' order.
    public func arrivals(into items: inout [InputItem]) {
        for (k, input) in inputs.enumerated() {
            guard let input else { continue }
            var arrival = input.arrival(time: starts[k])
            if exports { arrival.export = input.export(entry: input.entry) }
            items.append(.arrived(arrival))
        }
    }

    /// The timeline's next event, converted (protocol A: what libmtdev made of it), appended
    /// to `items`; its time mapped by `stamp` (nil: the capture's own). False at the end.
    public func step(stamp: ((Int64) -> Int64)?, into items: inout [InputItem]) -> Bool {
        guard let (d, e) = timeline.next() else { return false }
        guard let input = inputs[d] else { return true }
        if let stamp {
            var stamped = e
            stamped.time = stamp(e.time)
            input.convert(stamped, into: &items)
        } else {
            input.convert(e, into: &items)
        }
        return true
    }

    /// A reloaded config: every capture device matched to the entries again.
    public func reconfigure(_ config: Config, into items: inout [InputItem]) {
        for input in inputs {
            guard let input else { continue }
            let entry = InputDevice.entry(for: input.info, in: config)
            items.append(.settings(input.key, entry?.settings ?? DeviceSettings(), input.info, export: exports ? input.export(entry: entry) : nil))
        }
    }

    /// Logs what looked wrong in the captures' input (axes that never moved).
    public func diagnose() {
        for input in inputs {
            if let text = input?.diagnosis() { log(.warning, text) }
        }
    }
}
