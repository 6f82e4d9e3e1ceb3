/// The devices attached to the engine: each one's description, contact tracker and mapping
/// from device units to screen points, and the frames their filters hold back (one line for
/// all of them, `held`). A removed device keeps its place (indices stay valid).
struct DeviceRegistry {
    struct Entry {
        var descriptor: DeviceDescriptor
        var tracker: ContactTracker
        var mapping: DeviceMapping
        /// Input conditioning between the tracker and the mapping (`devices[].filter`).
        var filter: ContactFilter
        /// Its frames of screen contacts are kept for the caller (`devices[].uinput`).
        var exportsContacts = false
        /// What the filter and the mapping were made from (a reload that changes them lets
        /// what the filter holds go on first).
        var settings: DeviceSettings
        /// The output it maps onto (`output` is its index in the scene's outputs), as it was
        /// when the mapping was made.
        var output: Output
        var outputIndex: Int
        /// What the device said of itself (its axes), to remap it when its output turns.
        var info: DeviceInfo
        var removed = false
    }

    private(set) var entries: [Entry] = []
    /// The frames the filters hold back, in order (empty unless a filter holds something).
    var held = HeldFrames()
    /// Frames wait in `held`: every frame of every device joins them.
    var holding: Bool { !held.isEmpty }

    var count: Int { entries.count }
    subscript(d: DeviceIndex) -> Entry { _read { yield entries[d.rawValue] } }
    func contains(_ d: DeviceIndex) -> Bool { d.rawValue >= 0 && d.rawValue < entries.count }

    /// Devices attached and not removed, in the order they came.
    var active: [DeviceDescriptor] { entries.filter { !$0.removed }.map(\.descriptor) }
    var activeIndices: [DeviceIndex] { entries.indices.filter { !entries[$0].removed }.map(DeviceIndex.init) }

    /// `trackerProtocol` is what the tracker sees (B for protocol A devices already converted
    /// by libmtdev), `slotCount` its slots.
    mutating func add(_ descriptor: DeviceDescriptor, info: DeviceInfo, trackerProtocol: TouchProtocol, slotCount: Int?,
                      settings: DeviceSettings, output: Output, outputIndex: Int) -> DeviceIndex {
        let tracker = ContactTracker(device: info, protocol: trackerProtocol, slotCount: slotCount,
                                     xCode: settings.xAxis, yCode: settings.yAxis)
        let mapping = DeviceRegistry.mapping(for: tracker, info: info, settings: settings, output: output)
        let filter = DeviceRegistry.filter(for: tracker, info: info, settings: settings, mapping: mapping)
        entries.append(Entry(descriptor: descriptor, tracker: tracker, mapping: mapping, filter: filter, settings: settings, output: output, outputIndex: outputIndex, info: info))
        return DeviceIndex(entries.count - 1)
    }

    mutating func markRemoved(_ d: DeviceIndex) {
        entries[d.rawValue].removed = true
    }

    /// Feeds one event to the device's tracker; true when it flushed a frame. Its changes,
    /// conditioned, are left in `changes` for the engine, or join the held frames (`held`)
    /// when something holds them.
    mutating func feed(_ e: InputEvent, device d: DeviceIndex, into changes: inout [ContactChange]) -> Bool {
        guard entries[d.rawValue].tracker.feed(e, into: &changes) else { return false }
        condition(device: d, time: e.time, &changes)
        return true
    }

    /// A frame of the tracker's changes through the device's filter; into the line of held
    /// frames when anything holds it or a frame before it.
    mutating func condition(device d: DeviceIndex, time: Int64, _ changes: inout [ContactChange]) {
        if entries[d.rawValue].filter.isActive {
            entries[d.rawValue].filter.filter(&changes, time: time, device: d, line: &held)
        } else if held.isEmpty || changes.isEmpty {
            return
        } else if changes.contains(where: { $0.kind == .began }) {
            held.settleLifts()   // a touch-down on a device without a filter lets held lifts go on too
        }
        guard !held.isEmpty || held.holdsNext else { return }
        if !changes.isEmpty || held.holdsNext { held.append(device: d, time: time, changes: changes) }
        changes.removeAll(keepingCapacity: true)
    }

    /// Feeds one event to the device's tracker alone (no conditioning): its raw changes, for a
    /// calibration of the device. True when it flushed a frame.
    mutating func feedTracker(_ e: InputEvent, device d: DeviceIndex, into changes: inout [ContactChange]) -> Bool {
        entries[d.rawValue].tracker.feed(e, into: &changes)
    }

    /// The device's contacts down now are followed, never delivered, until they lift; the
    /// cancels of those delivered so far go through its filter into `changes` (as cancelAll's).
    mutating func suppressLive(_ d: DeviceIndex, _ reason: CancelReason, time: Int64, into changes: inout [ContactChange]) {
        entries[d.rawValue].tracker.suppressLive(reason, into: &changes)
        condition(device: d, time: time, &changes)
    }

    /// The same for contacts nobody but the tracker's caller saw (a calibration's): no cancel.
    mutating func forgetLive(_ d: DeviceIndex) {
        var scratch: [ContactChange] = []
        entries[d.rawValue].tracker.suppressLive(.calibrating, into: &scratch)
    }

    func hasIssues(_ d: DeviceIndex) -> Bool { !entries[d.rawValue].tracker.issues.isEmpty }
    mutating func drainIssues(_ d: DeviceIndex) -> [TrackerIssue] { entries[d.rawValue].tracker.drainIssues() }

    /// Cancels the device's contacts at `time`: hardware slots become the engine's, contacts
    /// never delivered (a touch-down still counted included) stay quiet; into the line of held
    /// frames when it is not empty (the caller lets it all go on: see Engine+Conditioning).
    mutating func cancelAll(_ d: DeviceIndex, _ reason: CancelReason, time: Int64, into changes: inout [ContactChange]) {
        entries[d.rawValue].tracker.cancelAll(reason, into: &changes)
        condition(device: d, time: time, &changes)
    }

    mutating func ignoreContactsDown(_ d: DeviceIndex, _ down: [(slot: Int, trackingID: Int32)]) {
        entries[d.rawValue].tracker.ignoreContactsDown(down) { _ in ContactSample() }
    }

    mutating func setResyncing(_ d: DeviceIndex, _ on: Bool) { entries[d.rawValue].tracker.resyncing = on }

    mutating func setExportsContacts(_ d: DeviceIndex, _ on: Bool) { entries[d.rawValue].exportsContacts = on }

    /// A reload's settings; false when nothing changed. When the filter's settings or the
    /// mapping change, what the filter holds is settled first (`held.settle(device:)`: the
    /// caller lets the frames go on).
    @discardableResult
    mutating func updateMapping(_ d: DeviceIndex, settings: DeviceSettings, info: DeviceInfo, output: Output, outputIndex: Int) -> Bool {
        let e = entries[d.rawValue]
        guard settings != e.settings || output != e.output || outputIndex != e.outputIndex else { return false }
        held.settle(device: d)
        let mapping = DeviceRegistry.mapping(for: e.tracker, info: info, settings: settings, output: output)
        entries[d.rawValue].mapping = mapping
        entries[d.rawValue].settings = settings
        entries[d.rawValue].output = output
        entries[d.rawValue].outputIndex = outputIndex
        entries[d.rawValue].info = info
        let live = e.tracker.delivered
        entries[d.rawValue].filter.reconfigure(DeviceRegistry.filter(for: e.tracker, info: info, settings: settings, mapping: mapping), live: live)
        return true
    }

    /// The conditioning of a device: its settings in its own units, the fuzz of the axes the
    /// tracker reads.
    static func filter(for tracker: ContactTracker, info: DeviceInfo, settings: DeviceSettings, mapping: DeviceMapping) -> ContactFilter {
        ContactFilter(settings: settings.filter, mapping: mapping,
                      fuzz: (info.abs[tracker.xCode]?.fuzz ?? 0, info.abs[tracker.yCode]?.fuzz ?? 0), slotCount: tracker.slotCount)
    }

    /// Device units → the output's points for the axes the tracker reads: the device's own
    /// rotation (how the panel is mounted), then the output's (the UI's orientation), onto the
    /// output's rotated point space.
    static func mapping(for tracker: ContactTracker, info: DeviceInfo, settings: DeviceSettings, output: Output) -> DeviceMapping {
        let single = tracker.touchProtocol == .single
        var turned = settings
        turned.rotation = settings.rotation.then(output.rotation)
        return DeviceMapping(x: info.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(output.size.width) - 1),
                             y: info.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(output.size.height) - 1),
                             pressure: single ? info.abs[ABS.PRESSURE] : info.abs[ABS.MT_PRESSURE],
                             major: single ? nil : info.abs[ABS.MT_TOUCH_MAJOR],
                             settings: turned, screen: output.pointSize)
    }
}
