import TouchCore
import TouchSystem

/// Where the daemon's events come from: live touchscreens (LiveSource) or a paced capture
/// (TouchCapture's ReplaySource). A source reads and returns what happened — devices arriving
/// and leaving, their events with their timestamps, a device's new settings after a reload —
/// and never touches the engine: the loop feeds the engine what sources return, runs its
/// timers and drains its outbox (libinput's habit of keeping everything behind one dispatch
/// call). The loop watches `descriptors`, calls `readable` for them and `due` when the deadline
/// the source returned arrives, then runs the engine's timers up to the time the source says
/// its events have reached.
public protocol InputSource: AnyObject {
    var descriptors: [Descriptor] { get }
    /// True when no more input will come (a capture that has ended).
    var finished: Bool { get }
    /// Starts: what is there already (devices arriving) appended to `items`.
    func start(into items: inout [InputItem])
    /// Reads a descriptor: what happened, in order, appended to `items`.
    func readable(_ d: Descriptor, into items: inout [InputItem])
    /// What is due at `now` (monotonic µs), appended to `items`.
    func due(now: Int64, into items: inout [InputItem]) -> InputSchedule
    /// The config was reloaded: devices matched again, their new settings appended to `items`.
    func reconfigure(_ config: Config, into items: inout [InputItem])
    /// Releases the devices (closed, ungrabbed); the loop has ended their touches.
    func stop()
}

/// A device as a source knows it (the engine's own index is the loop's business).
public struct DeviceKey: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "device \(rawValue)" }
}

/// What a source read, for the loop to hand to the engine.
public enum InputItem {
    /// A device to register (its `device added` is published then). Boxed (indirect), as is
    /// `settings`: rare, and large inline they made every event item as large, copied whole
    /// (and its strings and tables retained) each time a loop read one.
    indirect case arrived(DeviceArrival)
    /// One of its events (protocol A already converted to B).
    case event(DeviceKey, InputEvent)
    /// libevdev's resync after SYN_DROPPED begins (true) or ends (false).
    case resyncing(DeviceKey, Bool)
    /// The device is gone: its touches are cancelled (device-removed), then `device removed`.
    case removed(DeviceKey, time: Int64)
    /// A reload matched the device to an entry again: its new settings, and its re-export.
    indirect case settings(DeviceKey, DeviceSettings, DeviceInfo, export: DeviceExport?)
    /// Headphones plugged into (or pulled from) an output, said by something that is no input
    /// device: a USB headset's sound card arriving or leaving (`source` names it).
    indirect case headphones(source: String, output: String?, plugged: Bool, time: Int64)
}

/// What the engine needs of a new device, and what the loop does besides.
public struct DeviceArrival {
    public let key: DeviceKey
    public let descriptor: DeviceDescriptor
    public let info: DeviceInfo
    /// What the engine's tracker sees (B for protocol A devices converted by libmtdev).
    public let trackerProtocol: TouchProtocol
    public let slotCount: Int
    /// Its output resolved (`WL_OUTPUT`) by the live source.
    public var settings: DeviceSettings
    public let time: Int64
    /// Contacts already down when it was opened: ignored until they lift.
    public var contactsDown: [(slot: Int, trackingID: Int32)] = []
    /// Its contacts re-exported as a virtual touchscreen (`devices[].uinput`), if so.
    public var export: DeviceExport?
    /// A headphone jack (`info.isHeadphoneJack`) whose switch was on when it was opened.
    public var headphonesIn = false
}

/// `devices[].uinput`: the virtual touchscreen a device's contacts go to — its name, the
/// source it stands for, that source's settings and slots — and the config path its log lines
/// name ("devices[2].uinput"). Its axes follow the output the device is on, as turned now
/// (`layout(on:)`): the loop asks the engine for that output.
public struct DeviceExport: Equatable, Sendable {
    public var name: String
    public var source: DeviceInfo
    public var settings: DeviceSettings
    public var slots: Int
    public var path: String
    public init(name: String, source: DeviceInfo, settings: DeviceSettings, slots: Int, path: String) {
        self.name = name
        self.source = source
        self.settings = settings
        self.slots = slots
        self.path = path
    }

    /// The virtual touchscreen for the device on `output`: that output's rotated points, tagged
    /// with its id (VirtualTouchscreenLayout.physString).
    public func layout(on output: Output) -> VirtualTouchscreenLayout {
        VirtualTouchscreenLayout(name: name, source: source, settings: settings, output: output, slots: slots, natural: natural)
    }

    /// `"orientation": "natural"`: the output's rotation is left to the compositor.
    public var natural: Bool { settings.uinput?.natural ?? false }
}

/// What a source tells the loop after `due`.
public struct InputSchedule: Sendable, Equatable {
    /// When to call `due` again (nil: only when a descriptor is readable).
    public var next: Int64?
    /// Every event up to this time has been delivered, so the engine's own timers (gesture
    /// deadlines, scroll motion) may run up to it; nil when the events are on a capture's clock
    /// (a replay as fast as possible), whose timers run with the events.
    public var settled: Int64?

    public init(next: Int64?, settled: Int64?) {
        self.next = next
        self.settled = settled
    }
}
