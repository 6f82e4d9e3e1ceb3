import TouchCore

/// A touch device as a source reads it: its config entry, libmtdev for protocol A, and what
/// its events said (to explain a device whose axes never move). It converts events and knows
/// nothing of the engine: the loop registers its `arrival` and feeds the engine what `convert`
/// returns. Live devices and captures both go through this type, so the same bytes give the
/// same messages either way. Owned by the dispatch thread.
public final class InputDevice {
    public let key: DeviceKey
    public let info: DeviceInfo
    public let descriptor: DeviceDescriptor
    public let entry: DeviceEntry?
    /// What the engine's tracker sees (B for protocol A devices: libmtdev converts them).
    public let trackerProtocol: TouchProtocol
    public let slotCount: Int
    let converter: ProtocolAConverter?
    var converted: [InputEvent] = []
    /// Single-touch devices: events seen per ABS code, to explain a device whose touches
    /// never move the axes it declares for x and y.
    var absSeen = [Int](repeating: 0, count: 64)
    var touchDowns = 0

    public enum AttachError: Error, CustomStringConvertible {
        case notTouch(String)
        case mtdev(String)
        public var description: String {
            switch self {
            case .notTouch(let name):
                return "\"\(name)\" is not a touch device: it has neither ABS_MT_POSITION_X/Y nor ABS_X/Y with BTN_TOUCH"
            case .mtdev(let name):
                return "\"\(name)\": libmtdev could not be set up for this protocol A device"
            }
        }
    }

    /// Which entry of the config applies to a device (first match wins), or nil for defaults.
    public static func entry(for info: DeviceInfo, in config: Config, properties: [String: String] = [:]) -> DeviceEntry? {
        config.deviceEntry(name: info.name, vendor: Int(info.vendor), product: Int(info.product), properties: properties)
    }

    /// A device ready to read: protocol A goes through libmtdev, so the engine's tracker sees
    /// protocol B.
    /// A headphone jack (`info.isHeadphoneJack`) is read the same way (its switch events go
    /// to the engine's headphones, EngineFeed); it is no touch device, its descriptor's
    /// protocol is only a placeholder that nothing publishes.
    public init(key: DeviceKey, id: String, info: DeviceInfo, entry: DeviceEntry?) throws(AttachError) {
        guard let proto = info.touchProtocol ?? (info.isHeadphoneJack ? .single : nil) else { throw .notTouch(info.name) }
        var slots = info.slotCount
        var trackerProtocol = proto
        var converter: ProtocolAConverter?
        if proto == .a {
            guard let c = ProtocolAConverter(device: info) else { throw .mtdev(info.name) }
            converter = c
            slots = c.slotCount
            trackerProtocol = .b
        }
        self.key = key
        self.info = info
        self.entry = entry
        self.converter = converter
        self.trackerProtocol = trackerProtocol
        slotCount = slots
        descriptor = DeviceDescriptor(id: id, name: info.name, vendor: Int(info.vendor), product: Int(info.product),
                                      touchProtocol: proto, slots: proto == .single ? 1 : slots)
    }

    /// What the loop registers with the engine (which publishes `device added` at `time`).
    public func arrival(time: Int64) -> DeviceArrival {
        DeviceArrival(key: key, descriptor: descriptor, info: info, trackerProtocol: trackerProtocol, slotCount: slotCount,
                      settings: entry?.settings ?? DeviceSettings(), time: time)
    }

    /// The virtual touchscreen `entry` asks for (`devices[].uinput`), if any: the live source's
    /// devices and a daemon's replayed captures (`run --replay`) alike. A headphone jack has no
    /// contacts to re-export (and a re-export would make LiveSource grab it from the audio stack).
    public func export(entry: DeviceEntry?) -> DeviceExport? {
        guard !info.isHeadphoneJack, let entry, let u = entry.settings.uinput else { return nil }
        return DeviceExport(name: u.name, source: info, settings: entry.settings, slots: descriptor.slots, path: entry.label + ".uinput")
    }

    /// One event as the engine is to see it (protocol A: what libmtdev made of it, maybe none
    /// or several), appended to `items`.
    public func convert(_ e: InputEvent, into items: inout [InputItem]) {
        if descriptor.touchProtocol == .single {
            if e.type == EV.ABS && e.code < 64 { absSeen[Int(e.code)] += 1 }
            if e.type == EV.KEY && e.code == BTN.TOUCH && e.value == 1 { touchDowns += 1 }
        }
        guard let converter else {
            items.append(.event(key, e))
            return
        }
        converted.removeAll(keepingCapacity: true)
        converter.convert(e, into: &converted)
        for c in converted { items.append(.event(key, c)) }
    }

    /// Explains suspicious input seen so far (for the log at the end of a replay, or on removal).
    public func diagnosis() -> String? {
        guard descriptor.touchProtocol == .single, touchDowns > 0 else { return nil }
        let x = Int(entry?.settings.xAxis ?? ABS.X), y = Int(entry?.settings.yAxis ?? ABS.Y)
        guard absSeen[x] == 0 && absSeen[y] == 0 else { return nil }
        let moving = absSeen.indices.filter { absSeen[$0] > 0 && $0 != x && $0 != y }
        let names = moving.map { EventNames.describe(type: EV.ABS, code: UInt16($0)) }
        var text = "\(descriptor.id): \(touchDowns) touch(es) went down but the position axes (\(EventNames.describe(type: EV.ABS, code: UInt16(x))), \(EventNames.describe(type: EV.ABS, code: UInt16(y)))) never changed, so every touch stays where it began"
        if names.count >= 2 {
            text += "; the device moved \(names.joined(separator: " and ")) instead (a driver that mislabels its axes): set \"axes\": {\"x\": \"\(names[0])\", \"y\": \"\(names[1])\"} in its devices[] entry"
        }
        return text
    }
}
