import TouchCore

/// A device attached to the engine: chooses its config entry, converts protocol A through
/// libmtdev, and feeds events. Live devices and captures both go through this type, so the
/// same bytes give the same messages either way. Owned by the dispatch thread.
public final class InputDevice {
    public let engineIndex: DeviceIndex
    public let info: DeviceInfo
    public let descriptor: DeviceDescriptor
    public let entry: DeviceEntry?
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

    init(engineIndex: DeviceIndex, info: DeviceInfo, descriptor: DeviceDescriptor, entry: DeviceEntry?, converter: ProtocolAConverter?) {
        self.engineIndex = engineIndex
        self.info = info
        self.descriptor = descriptor
        self.entry = entry
        self.converter = converter
    }

    /// Registers a device with the engine (which publishes `device added` at `time`) and
    /// returns it, ready to feed: protocol A goes through libmtdev, so the engine's tracker
    /// sees protocol B.
    public static func attach(id: String, info: DeviceInfo, entry: DeviceEntry?, screen: Size, engine: Engine, time: Int64) throws(AttachError) -> InputDevice {
        guard let proto = info.touchProtocol else { throw .notTouch(info.name) }
        var slots = info.slotCount
        var trackerProtocol = proto
        var converter: ProtocolAConverter?
        if proto == .a {
            guard let c = ProtocolAConverter(device: info) else { throw .mtdev(info.name) }
            converter = c
            slots = c.slotCount
            trackerProtocol = .b
        }
        let d = DeviceDescriptor(id: id, name: info.name, vendor: Int(info.vendor), product: Int(info.product),
                                 touchProtocol: proto, slots: proto == .single ? 1 : slots)
        let index = engine.addDevice(d, info: info, trackerProtocol: trackerProtocol, slotCount: slots,
                                     settings: entry?.settings ?? DeviceSettings(), screen: screen, time: time)
        return InputDevice(engineIndex: index, info: info, descriptor: d, entry: entry, converter: converter)
    }

    public func feed(_ e: InputEvent, engine: Engine) {
        if descriptor.touchProtocol == .single {
            if e.type == EV.ABS && e.code < 64 { absSeen[Int(e.code)] += 1 }
            if e.type == EV.KEY && e.code == BTN.TOUCH && e.value == 1 { touchDowns += 1 }
        }
        guard let converter else {
            engine.process(e, device: engineIndex)
            return
        }
        converted.removeAll(keepingCapacity: true)
        converter.convert(e, into: &converted)
        for c in converted { engine.process(c, device: engineIndex) }
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
