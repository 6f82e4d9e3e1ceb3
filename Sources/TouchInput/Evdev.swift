@preconcurrency import Glibc
import CLibevdev
import TouchCore
import TouchSystem

/// Reads a libevdev device (an open fd, or one built with libevdev_new) into a DeviceInfo.
/// The same function describes live devices, `touchd devices` and recordings.
public func describe(libevdev dev: OpaquePointer) -> DeviceInfo {
    let name = libevdev_get_name(dev).map { String(cString: $0) } ?? "unnamed device"
    var props = Set<UInt16>()
    for p in 0...UInt32(INPUT_PROP_MAX) where libevdev_has_property(dev, p) == 1 { props.insert(UInt16(p)) }
    var codes: [UInt16: Set<UInt16>] = [:]
    var abs: [UInt16: AbsInfo] = [:]
    for t in 0...UInt32(EV_MAX) where libevdev_has_event_type(dev, t) == 1 {
        var set = Set<UInt16>()
        let maxCode = libevdev_event_type_get_max(t)
        if maxCode >= 0 {
            for c in 0...UInt32(maxCode) where libevdev_has_event_code(dev, t, c) == 1 {
                set.insert(UInt16(c))
                if t == UInt32(EV_ABS), let a = libevdev_get_abs_info(dev, c) {
                    abs[UInt16(c)] = AbsInfo(value: a.pointee.value, minimum: a.pointee.minimum, maximum: a.pointee.maximum,
                                             fuzz: a.pointee.fuzz, flat: a.pointee.flat, resolution: a.pointee.resolution)
                }
            }
        }
        codes[UInt16(t)] = set
    }
    var info = DeviceInfo(name: name, bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev)),
                          vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)),
                          product: UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)),
                          version: UInt16(truncatingIfNeeded: libevdev_get_id_version(dev)),
                          properties: props, codes: codes, abs: [:])
    info.abs = abs
    return info
}

/// Builds a libevdev description from a DeviceInfo (libevdev_new, no kernel device): for
/// tests of classification and for checking that a description survives libevdev's rules.
public final class LibevdevDescription {
    public let dev: OpaquePointer
    public init?(_ info: DeviceInfo) {
        guard let d = libevdev_new() else { return nil }
        dev = d
        libevdev_set_name(d, info.name)
        libevdev_set_id_bustype(d, Int32(info.bustype))
        libevdev_set_id_vendor(d, Int32(info.vendor))
        libevdev_set_id_product(d, Int32(info.product))
        libevdev_set_id_version(d, Int32(info.version))
        for p in info.properties { libevdev_enable_property(d, UInt32(p)) }
        for (t, codes) in info.codes {
            libevdev_enable_event_type(d, UInt32(t))
            for c in codes {
                if t == EV.ABS, let a = info.abs[c] {
                    var ai = input_absinfo(value: a.value, minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat, resolution: a.resolution)
                    libevdev_enable_event_code(d, UInt32(t), UInt32(c), &ai)
                } else if t != EV.ABS {
                    libevdev_enable_event_code(d, UInt32(t), UInt32(c), nil)
                }
            }
        }
    }
    deinit { libevdev_free(dev) }
    public var info: DeviceInfo { describe(libevdev: dev) }
}

/// An open /dev/input/eventN read through libevdev, non-blocking. One instance per device; the
/// descriptor and the libevdev handle belong to the dispatch thread that reads them.
public final class EvdevDevice {
    let fd: FileDescriptor
    public let path: String
    let dev: OpaquePointer
    public let info: DeviceInfo
    public private(set) var grabbed = false

    public enum OpenError: Error, CustomStringConvertible {
        case open(String, Errno)
        case libevdev(String, Errno)
        case clock(String, Errno)
        public var description: String {
            switch self {
            case .open(let path, let e):
                if e == .permissionDenied || e == .notPermitted {
                    return "cannot open \(path): \(e) — run touchd as root or as a member of group input (the service does: SupplementaryGroups=input), or install systemd/70-touchd.rules"
                }
                return "cannot open \(path): \(e)"
            case .libevdev(let path, let e):
                return "libevdev cannot read \(path): \(e)"
            case .clock(let path, let e):
                return "\(path): cannot put its timestamps on CLOCK_MONOTONIC (libevdev_set_clock_id): \(e)"
            }
        }
        public var errno: Errno {
            switch self { case .open(_, let e), .libevdev(_, let e), .clock(_, let e): return e }
        }
    }

    public init(path: String) throws(OpenError) {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnlyNonBlocking) } catch { throw .open(path, error.errno) }
        var d: OpaquePointer?
        let rc = libevdev_new_from_fd(fd.rawValue, &d)
        guard rc == 0, let d else { throw .libevdev(path, Errno(rawValue: -rc)) }
        // Kernel timestamps on the monotonic clock, like the daemon's own timers.
        let clock = libevdev_set_clock_id(d, CLOCK_MONOTONIC)
        guard clock == 0 else {
            libevdev_free(d)
            throw .clock(path, clock < 0 ? Errno(rawValue: -clock) : .invalidArgument)
        }
        self.fd = fd
        self.path = path
        dev = d
        info = describe(libevdev: d)
    }

    /// The descriptor the event loop watches.
    public var descriptor: Descriptor { fd.number }

    deinit {
        if grabbed { _ = libevdev_grab(dev, LIBEVDEV_UNGRAB) }
        libevdev_free(dev)
        // The descriptor closes when `fd` goes (after libevdev has let go of it).
    }

    /// EVIOCGRAB: nobody else (X, a compositor, another reader) gets the events.
    public func grab() -> Errno? {
        let rc = libevdev_grab(dev, LIBEVDEV_GRAB)
        if rc == 0 { grabbed = true; return nil }
        return Errno(rawValue: -rc)
    }

    /// Whether a switch (EV_SW) is on right now, per libevdev's state (a headphone jack's).
    public func switchOn(_ code: UInt16) -> Bool {
        libevdev_get_event_value(dev, UInt32(EV_SW), UInt32(code)) != 0
    }

    /// Contacts down right now (per libevdev's state): slots with a tracking id, or BTN_TOUCH.
    public func contactsDown() -> [(slot: Int, trackingID: Int32)] {
        if info.touchProtocol == .b {
            let n = libevdev_get_num_slots(dev)
            guard n > 0 else { return [] }
            return (0..<n).compactMap { s in
                let id = libevdev_get_slot_value(dev, UInt32(s), UInt32(ABS_MT_TRACKING_ID))
                return id >= 0 ? (Int(s), id) : nil
            }
        }
        if info.touchProtocol == .single && libevdev_get_event_value(dev, UInt32(EV_KEY), UInt32(BTN_TOUCH)) == 1 {
            return [(0, 0)]
        }
        return []
    }

    public enum ReadResult {
        case event(InputEvent)
        /// SYN_DROPPED: what follows (until `.drained`) are libevdev's resync events.
        case dropped
        case resyncEvent(InputEvent)
        /// The resync events are over; normal events follow.
        case resyncDone
        case drained
        case gone(Errno)
    }

    var syncing = false

    /// The next event, libevdev's way: normal events, then on SYN_DROPPED the resync events.
    public func next() -> ReadResult {
        var ev = input_event()
        if syncing {
            let rc = libevdev_next_event(dev, UInt32(LIBEVDEV_READ_FLAG_SYNC.rawValue), &ev)
            if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) { return .resyncEvent(convert(ev)) }
            syncing = false
            if rc == -EAGAIN { return .resyncDone }
            return rc < 0 ? .gone(Errno(rawValue: -rc)) : .resyncDone
        }
        let rc = libevdev_next_event(dev, UInt32(LIBEVDEV_READ_FLAG_NORMAL.rawValue), &ev)
        if rc == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) { return .event(convert(ev)) }
        if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
            syncing = true
            return .dropped
        }
        if rc == -EAGAIN { return .drained }
        return .gone(Errno(rawValue: -rc))
    }

    func convert(_ ev: input_event) -> InputEvent {
        InputEvent(time: Int64(ev.time.tv_sec) * 1_000_000 + Int64(ev.time.tv_usec), type: ev.type, code: ev.code, value: ev.value)
    }
}
