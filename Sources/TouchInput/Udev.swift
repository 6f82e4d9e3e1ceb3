import CLibudev
import TouchCore
import TouchSystem

/// An input device as udev (or the kernel's uevent) describes it.
public struct UdevInputDevice: Sendable {
    public var syspath: String
    public var devnode: String?
    public var sysname: String
    public var action: String?
    /// udev's properties; nil where udevd does not run (kernel uevents carry no ID_INPUT_*).
    public var properties: [String: String]?
    public var name: String?
    /// "input", or "sound" for a sound card (a USB headset: issue 46).
    public var subsystem = "input"

    public var isEventNode: Bool { sysname.hasPrefix("event") }

    /// A USB sound card (`cardN` of the sound subsystem on the USB bus): a headset plugged in.
    /// Without udevd's properties a card's bus is unknown, and it is not taken for one.
    public var isUSBSoundCard: Bool {
        subsystem == "sound" && sysname.hasPrefix("card") && sysname.dropFirst(4).allSatisfy(\.isNumber)
            && sysname.count > 4 && properties?["ID_BUS"] == "usb"
    }
}

extension UdevInputDevice {
    /// From libudev's strings, any of which may be NULL (a device removed while it is read, a
    /// libudev out of memory): nil without a syspath or a sysname, which name the device.
    init?(syspath: UnsafePointer<CChar>?, devnode: UnsafePointer<CChar>?, sysname: UnsafePointer<CChar>?,
          action: String?, properties: [String: String]?, name: String?) {
        guard let syspath, let sysname else { return nil }
        self.init(syspath: String(cString: syspath), devnode: devnode.map { String(cString: $0) }, sysname: String(cString: sysname),
                  action: action, properties: properties, name: name)
    }
}

/// libudev: enumeration of the input subsystem and a monitor of its changes. Owned by the
/// dispatch thread (the udev handles are not shared).
public final class Udev {
    let udev: OpaquePointer
    var monitor: OpaquePointer?
    public let udevdRunning: Bool
    /// Where a device libudev describes without a syspath or sysname is reported (debug).
    let log: LogFunction?

    public init?(log: LogFunction? = nil) {
        guard let u = udev_new() else { return nil }
        udev = u
        self.log = log
        // udevd's control socket: without it, nothing adds ID_INPUT_* properties and a
        // udev-source monitor receives nothing.
        udevdRunning = FileSystem.exists("/run/udev/control")
    }

    deinit {
        if let monitor { udev_monitor_unref(monitor) }
        udev_unref(udev)
    }

    /// The device's description; nil (logged at debug) when libudev gives no syspath or sysname.
    func read(_ d: OpaquePointer, action: String? = nil) -> UdevInputDevice? {
        var props: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(d)
        while let e = entry {
            if let k = udev_list_entry_get_name(e), let v = udev_list_entry_get_value(e) {
                props[String(cString: k)] = String(cString: v)
            }
            entry = udev_list_entry_get_next(e)
        }
        var name: String?
        if let parent = udev_device_get_parent_with_subsystem_devtype(d, "input", nil),
           let n = udev_device_get_sysattr_value(parent, "name") {
            name = String(cString: n)
        }
        let subsystem = udev_device_get_subsystem(d).map { String(cString: $0) } ?? "input"
        if subsystem == "sound", let n = udev_device_get_sysattr_value(d, "id") { name = String(cString: n) }
        let syspath: UnsafePointer<CChar>? = udev_device_get_syspath(d)
        let sysname: UnsafePointer<CChar>? = udev_device_get_sysname(d)
        guard var device = UdevInputDevice(syspath: syspath, devnode: udev_device_get_devnode(d), sysname: sysname,
                                           action: action, properties: udevdRunning ? props : nil, name: name) else {
            log?(.debug, "udev: skipped a device without a \(syspath == nil ? "syspath" : "sysname")\(action.map { " (\($0))" } ?? "")")
            return nil
        }
        device.subsystem = subsystem
        return device
    }

    /// Every device of the input subsystem, and the sound cards (USB headsets), in sysfs order.
    public func enumerate() -> [UdevInputDevice] {
        guard let en = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(en) }
        udev_enumerate_add_match_subsystem(en, "input")
        udev_enumerate_add_match_subsystem(en, "sound")
        udev_enumerate_scan_devices(en)
        var out: [UdevInputDevice] = []
        var entry = udev_enumerate_get_list_entry(en)
        while let e = entry {
            if let path = udev_list_entry_get_name(e), let d = udev_device_new_from_syspath(udev, path) {
                if let device = read(d) { out.append(device) }
                udev_device_unref(d)
            }
            entry = udev_list_entry_get_next(e)
        }
        return out.sorted { a, b in
            // event2 before event10
            let na = Int(a.sysname.drop { !$0.isNumber }) ?? 0, nb = Int(b.sysname.drop { !$0.isNumber }) ?? 0
            return a.sysname.prefix { !$0.isNumber } == b.sysname.prefix { !$0.isNumber } ? na < nb : a.sysname < b.sysname
        }
    }

    /// Starts the monitor: udevd's events where it runs, the kernel's uevents otherwise.
    /// Returns the descriptor to watch (libudev owns it), nil when libudev cannot monitor.
    public func startMonitor() throws(SystemError) -> Descriptor? {
        let source = udevdRunning ? "udev" : "kernel"
        guard let m = udev_monitor_new_from_netlink(udev, source) else { return nil }
        udev_monitor_filter_add_match_subsystem_devtype(m, "input", nil)
        udev_monitor_filter_add_match_subsystem_devtype(m, "sound", nil)
        guard udev_monitor_enable_receiving(m) == 0 else {
            udev_monitor_unref(m)
            return nil
        }
        monitor = m
        let d = Descriptor(rawValue: udev_monitor_get_fd(m))
        try d.setNonBlocking()
        return d
    }

    public var monitorSource: String { udevdRunning ? "udev" : "kernel" }

    /// Pending monitor events.
    public func receive() -> [UdevInputDevice] {
        guard let monitor else { return [] }
        var out: [UdevInputDevice] = []
        while let d = udev_monitor_receive_device(monitor) {
            let action = udev_device_get_action(d).map { String(cString: $0) }
            if let device = read(d, action: action) { out.append(device) }
            udev_device_unref(d)
        }
        return out
    }
}
