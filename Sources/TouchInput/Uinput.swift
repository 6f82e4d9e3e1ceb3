@preconcurrency import Glibc
import CLibevdev
import TouchCore
import TouchSystem

/// A virtual multitouch touchscreen (protocol B) made through libevdev's uinput API, fed with a
/// source device's conditioned contacts in screen points (`devices[].uinput`), so toolkits that
/// read evdev or libinput (Qt, Chromium, Flutter, LVGL) get clean input — tslib's ts_uinput's
/// job. VirtualTouchscreen (TouchCore) decides the events; this type only writes them.
///
/// Owned by the dispatch thread, like the EvdevDevice it re-exports (LiveSource): the libevdev
/// handle and the uinput device are made, written and destroyed on that thread only. Not
/// Sendable.
public final class UinputTouchscreen {
    let dev: OpaquePointer
    let uidev: OpaquePointer
    /// /dev/uinput, open for this device (closed after libevdev_uinput_destroy).
    let fd: FileDescriptor
    public let layout: VirtualTouchscreenLayout
    var encoder: VirtualTouchscreen
    /// /dev/input/eventN, when libevdev can tell (it looks in sysfs).
    public let devnode: String?

    public struct CreateError: Error, CustomStringConvertible {
        public var errno: Errno
        public var description: String {
            switch errno {
            case .noSuchFile, .noDevice:
                return "cannot open /dev/uinput (\(errno)): the uinput module is not loaded (modprobe uinput) or there is no /dev/uinput"
            case .permissionDenied, .notPermitted:
                return "cannot open /dev/uinput (\(errno)): touchd needs read and write access to it — run as root, or give its group access with a udev rule; under systemd the unit needs DeviceAllow=/dev/uinput rw (docs/config.md, \"Re-exporting to toolkits\")"
            default:
                return "cannot make the uinput device: \(errno)"
            }
        }
    }

    /// Makes the device (it appears as /dev/input/eventN at once; udev follows).
    public init(_ layout: VirtualTouchscreenLayout) throws(CreateError) {
        guard let d = libevdev_new() else { throw CreateError(errno: .outOfMemory) }
        libevdev_set_name(d, layout.name)
        libevdev_set_id_bustype(d, 0x06)   // BUS_VIRTUAL
        libevdev_enable_property(d, UInt32(INPUT_PROP_DIRECT))
        libevdev_enable_event_type(d, UInt32(EV_KEY))
        libevdev_enable_event_code(d, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
        libevdev_enable_event_type(d, UInt32(EV_ABS))
        func axis(_ code: UInt16, _ maximum: Int32, _ resolution: Int32 = 0) {
            var ai = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: resolution)
            libevdev_enable_event_code(d, UInt32(EV_ABS), UInt32(code), &ai)
        }
        axis(ABS.X, layout.width, layout.resolutionX)
        axis(ABS.Y, layout.height, layout.resolutionY)
        axis(ABS.MT_SLOT, Int32(layout.slots - 1))
        axis(ABS.MT_TRACKING_ID, VirtualTouchscreenLayout.maxTrackingID)
        axis(ABS.MT_POSITION_X, layout.width, layout.resolutionX)
        axis(ABS.MT_POSITION_Y, layout.height, layout.resolutionY)
        // /dev/uinput is opened here rather than by libevdev (LIBEVDEV_UINPUT_OPEN_MANAGED): the
        // phys that marks the device as touchd's own must be set on it (UI_SET_PHYS) before
        // libevdev creates the device, and libevdev_set_phys does not reach the kernel.
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open("/dev/uinput", .readWriteNonBlocking) } catch {
            libevdev_free(d)
            throw CreateError(errno: error.errno)
        }
        guard touchd_uinput_set_phys(fd.rawValue, layout.physString) == 0 else {
            let e = Errno.current
            libevdev_free(d)
            throw CreateError(errno: e)
        }
        var u: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(d, fd.rawValue, &u)
        guard rc == 0, let u else {
            libevdev_free(d)
            throw CreateError(errno: Errno(rawValue: rc < 0 ? -rc : EINVAL))
        }
        dev = d
        uidev = u
        self.fd = fd
        self.layout = layout
        encoder = VirtualTouchscreen(slots: layout.slots)
        devnode = libevdev_uinput_get_devnode(u).map { String(cString: $0) }
    }

    deinit {
        libevdev_uinput_destroy(uidev)   // UI_DEV_DESTROY: the device goes
        libevdev_free(dev)
        // The descriptor closes when `fd` goes, after libevdev has let go of it.
    }

    /// Writes one frame of the source's contacts; the first error, if a write failed.
    public func write(_ contacts: [ScreenContact]) -> Errno? {
        write(events: encoder.frame(contacts))
    }

    /// Ends every contact still down (before the device goes).
    public func endAll() -> Errno? {
        write(events: encoder.endAll())
    }

    public var contactsDown: Int { encoder.contactsDown }

    func write(events: [EvdevWrite]) -> Errno? {
        for e in events {
            let rc = libevdev_uinput_write_event(uidev, UInt32(e.type), UInt32(e.code), e.value)
            if rc < 0 { return Errno(rawValue: -rc) }
        }
        return nil
    }
}

extension EvdevDevice {
    /// The device's phys string (libevdev_get_phys), nil when it has none.
    public var phys: String? { libevdev_get_phys(dev).map { String(cString: $0) } }

    /// Touchd's own virtual touchscreen (`devices[].uinput`): never attached.
    public var isTouchdVirtual: Bool { VirtualTouchscreenLayout.isTouchdPhys(phys) }
}
