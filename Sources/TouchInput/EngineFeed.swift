import TouchCore

/// What a loop does with what its sources read: each device registered with the engine (its
/// engine index kept by the source's key), its events fed, its removal, its new settings. The
/// daemon's loop, the offline replay's and the tests' own loops use it; the sources never see
/// the engine.
public struct EngineFeed {
    var index: [DeviceKey: DeviceIndex] = [:]
    /// The device of the last event fed, and its index: events come in runs from one device,
    /// and a hash lookup per event was a few percent of a replay (issue 34). Forgotten when
    /// that device is removed.
    var last: (key: DeviceKey, device: DeviceIndex)?
    /// Headphone jacks (issue 46): no engine device, their switch is the engine's headphones
    /// (the jack's id, the output it says headphones are plugged into, and its switch).
    var jacks: [DeviceKey: (id: String, output: String?, plugged: Bool)] = [:]

    public init() {}

    /// The engine's index of a source's device (nil: not registered, or removed).
    public func device(_ key: DeviceKey) -> DeviceIndex? { index[key] }

    /// What the loop may have to do besides, for an item it fed.
    public enum Fed {
        case nothing
        /// A device was registered as `d` (its re-export, if any, is the loop's to make).
        /// (Boxed: the loop gets a Fed for every event, mostly `nothing`.)
        indirect case arrived(DeviceIndex, DeviceArrival)
        /// A device's settings changed (a reload), with the re-export it asks for.
        indirect case reconfigured(DeviceIndex, export: DeviceExport?)
        case removed(DeviceIndex)
    }

    /// Feeds one item to the engine.
    @discardableResult
    public mutating func feed(_ item: InputItem, to engine: Engine) -> Fed {
        switch item {
        case .event(let key, let e):
            if let l = last, l.key == key {
                engine.process(e, device: l.device)
            } else if let d = index[key] {
                last = (key, d)
                engine.process(e, device: d)
            } else if let j = jacks[key], e.type == EV.SW, e.code == SW.HEADPHONE_INSERT {
                jacks[key]?.plugged = e.value != 0
                engine.headphones(source: j.id, output: j.output, plugged: e.value != 0, time: e.time)
            }
            return .nothing
        case .arrived(let a) where a.info.isHeadphoneJack:
            jacks[a.key] = (a.descriptor.id, a.settings.output, a.headphonesIn)
            if a.headphonesIn { engine.headphones(source: a.descriptor.id, output: a.settings.output, plugged: true, time: a.time) }
            return .nothing
        case .arrived(let a):
            let d = engine.addDevice(a.descriptor, info: a.info, trackerProtocol: a.trackerProtocol, slotCount: a.slotCount,
                                     settings: a.settings, time: a.time)
            if !a.contactsDown.isEmpty { engine.ignoreContactsDown(device: d, a.contactsDown) }
            index[a.key] = d
            if last?.key == a.key { last = nil }
            return .arrived(d, a)
        case .resyncing(let key, let on):
            if let d = index[key] { engine.setResyncing(device: d, on) }
            return .nothing
        case .removed(let key, let time) where jacks[key] != nil:
            if let j = jacks.removeValue(forKey: key) { engine.headphones(source: j.id, output: j.output, plugged: false, time: time) }
            return .nothing
        case .removed(let key, let time):
            guard let d = index.removeValue(forKey: key) else { return .nothing }
            if last?.key == key { last = nil }
            engine.removeDevice(d, time: time)
            return .removed(d)
        case .settings(let key, let settings, _, _) where jacks[key] != nil:
            // A reload that moves a jack to another output moves its headphones now: left on the
            // old output, they would stay there after the pull (private speech aloud).
            guard let j = jacks[key], j.output != settings.output else { return .nothing }
            jacks[key]?.output = settings.output
            if j.plugged { engine.headphones(source: j.id, output: settings.output, plugged: true, time: engine.lastTime) }
            return .nothing
        case let .headphones(source, output, plugged, time):
            engine.headphones(source: source, output: output, plugged: plugged, time: time)
            return .nothing
        case .settings(let key, let settings, let info, let export):
            guard let d = index[key] else { return .nothing }
            engine.updateDevice(d, settings: settings, info: info)
            return .reconfigured(d, export: export)
        }
    }
}
