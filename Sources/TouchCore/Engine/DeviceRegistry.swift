/// The devices attached to the engine: each one's description, contact tracker and mapping
/// from device units to screen points. A removed device keeps its place (indices stay valid).
struct DeviceRegistry {
    struct Entry {
        var descriptor: DeviceDescriptor
        var tracker: ContactTracker
        var mapping: DeviceMapping
        /// Input conditioning between the tracker and the mapping (`devices[].filter`).
        var filter: ContactFilter
        /// Its frames of screen contacts are kept for the caller (`devices[].uinput`).
        var exportsContacts = false
        var removed = false
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    subscript(d: DeviceIndex) -> Entry { _read { yield entries[d.rawValue] } }
    func contains(_ d: DeviceIndex) -> Bool { d.rawValue >= 0 && d.rawValue < entries.count }

    /// Devices attached and not removed, in the order they came.
    var active: [DeviceDescriptor] { entries.filter { !$0.removed }.map(\.descriptor) }
    var activeIndices: [DeviceIndex] { entries.indices.filter { !entries[$0].removed }.map(DeviceIndex.init) }

    /// `trackerProtocol` is what the tracker sees (B for protocol A devices already converted
    /// by libmtdev), `slotCount` its slots.
    mutating func add(_ descriptor: DeviceDescriptor, info: DeviceInfo, trackerProtocol: TouchProtocol, slotCount: Int?,
                      settings: DeviceSettings, screen: Size) -> DeviceIndex {
        let tracker = ContactTracker(device: info, protocol: trackerProtocol, slotCount: slotCount,
                                     xCode: settings.xAxis, yCode: settings.yAxis)
        let mapping = DeviceRegistry.mapping(for: tracker, info: info, settings: settings, screen: screen)
        let filter = DeviceRegistry.filter(for: tracker, info: info, settings: settings, mapping: mapping)
        entries.append(Entry(descriptor: descriptor, tracker: tracker, mapping: mapping, filter: filter))
        if filter.debounces { debouncing = true }
        return DeviceIndex(entries.count - 1)
    }

    mutating func markRemoved(_ d: DeviceIndex) {
        entries[d.rawValue].removed = true
        refreshDebouncing()
    }

    /// Feeds one event to the device's tracker; true when it flushed a frame into `changes`.
    mutating func feed(_ e: InputEvent, device d: DeviceIndex, into changes: inout [ContactChange]) -> Bool {
        guard entries[d.rawValue].tracker.feed(e, into: &changes) else { return false }
        if entries[d.rawValue].filter.isActive { entries[d.rawValue].filter.filter(&changes, time: e.time) }
        return true
    }

    /// Some device debounces its lifts (only then are held lifts looked for: nothing per event
    /// grows with the number of devices otherwise).
    private(set) var debouncing = false
    mutating func refreshDebouncing() { debouncing = entries.contains { !$0.removed && $0.filter.debounces } }

    /// When a device's held lift (debounce) is due next.
    var nextDeadline: Int64? {
        var best: Int64?
        for e in entries where !e.removed { if let t = e.filter.nextDeadline, best.map({ t < $0 }) ?? true { best = t } }
        return best
    }

    /// The held lifts due by `time`, per device.
    mutating func expireHeld(device d: DeviceIndex, now time: Int64, into changes: inout [ContactChange]) {
        entries[d.rawValue].filter.expire(now: time, into: &changes)
    }

    func hasIssues(_ d: DeviceIndex) -> Bool { !entries[d.rawValue].tracker.issues.isEmpty }
    mutating func drainIssues(_ d: DeviceIndex) -> [TrackerIssue] { entries[d.rawValue].tracker.drainIssues() }

    mutating func cancelAll(_ d: DeviceIndex, _ reason: CancelReason, into changes: inout [ContactChange]) {
        entries[d.rawValue].tracker.cancelAll(reason, into: &changes)
        guard entries[d.rawValue].filter.isActive else { return }
        // Hardware slots become the engine's; contacts never delivered stay quiet; lifts held
        // for the debounce end (their fingers did lift).
        entries[d.rawValue].filter.filter(&changes, time: 0)
        entries[d.rawValue].filter.endHeld(into: &changes)
    }

    mutating func ignoreContactsDown(_ d: DeviceIndex, _ down: [(slot: Int, trackingID: Int32)]) {
        entries[d.rawValue].tracker.ignoreContactsDown(down) { _ in ContactSample() }
    }

    mutating func setResyncing(_ d: DeviceIndex, _ on: Bool) { entries[d.rawValue].tracker.resyncing = on }

    mutating func setExportsContacts(_ d: DeviceIndex, _ on: Bool) { entries[d.rawValue].exportsContacts = on }

    mutating func updateMapping(_ d: DeviceIndex, settings: DeviceSettings, info: DeviceInfo, screen: Size) {
        let e = entries[d.rawValue]
        let mapping = DeviceRegistry.mapping(for: e.tracker, info: info, settings: settings, screen: screen)
        entries[d.rawValue].mapping = mapping
        entries[d.rawValue].filter.reconfigure(DeviceRegistry.filter(for: e.tracker, info: info, settings: settings, mapping: mapping))
        refreshDebouncing()
    }

    /// The conditioning of a device: its settings in its own units, the fuzz of the axes the
    /// tracker reads.
    static func filter(for tracker: ContactTracker, info: DeviceInfo, settings: DeviceSettings, mapping: DeviceMapping) -> ContactFilter {
        ContactFilter(settings: settings.filter, mapping: mapping,
                      fuzz: (info.abs[tracker.xCode]?.fuzz ?? 0, info.abs[tracker.yCode]?.fuzz ?? 0), slotCount: tracker.slotCount)
    }

    /// Device units → screen points for the axes the tracker reads.
    static func mapping(for tracker: ContactTracker, info: DeviceInfo, settings: DeviceSettings, screen: Size) -> DeviceMapping {
        let single = tracker.touchProtocol == .single
        return DeviceMapping(x: info.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1),
                             y: info.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1),
                             pressure: single ? info.abs[ABS.PRESSURE] : info.abs[ABS.MT_PRESSURE],
                             major: single ? nil : info.abs[ABS.MT_TOUCH_MAJOR],
                             settings: settings, screen: screen)
    }
}
