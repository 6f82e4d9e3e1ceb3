import TouchCore
import TouchSystem

/// Live touchscreens: libudev discovery at start, a udev monitor for hotplug (udevd's events
/// where it runs, the kernel's uevents otherwise), libevdev reading from the event loop. A
/// device whose entry has `uinput` is re-exported as a virtual touchscreen (Uinput.swift);
/// touchd's own virtual touchscreens are never attached.
public final class LiveSource: InputSource {
    final class Attached {
        let device: EvdevDevice
        let input: InputDevice
        let udev: UdevInputDevice
        /// The virtual touchscreen re-exporting its contacts (`devices[].uinput`), and the
        /// config path named in its log lines ("devices[2].uinput").
        var virtual: UinputTouchscreen?
        var uinputPath = ""
        init(device: EvdevDevice, input: InputDevice, udev: UdevInputDevice) {
            self.device = device; self.input = input; self.udev = udev
        }
    }

    let engine: Engine
    let udev: Udev
    var config: Config
    let log: LogFunction
    var monitor: Descriptor?
    var attached: [Descriptor: Attached] = [:]
    /// Nodes that could not be opened yet (a kernel uevent can come before devtmpfs's node).
    var retries: [(device: UdevInputDevice, attempts: Int, at: Int64)] = []
    /// The engine's contact frames for the virtual touchscreens (reused).
    var contactFrames: [ScreenContactFrame] = []
    public var finished: Bool { false }

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    public init(config: Config, engine: Engine, log: @escaping LogFunction) throws(SetupError) {
        guard let u = Udev(log: log) else { throw SetupError(description: "libudev could not be initialised") }
        udev = u
        self.config = config
        self.log = log
        self.engine = engine
    }

    public var descriptors: [Descriptor] { (monitor.map { [$0] } ?? []) + Array(attached.keys) }
    public var attachedCount: Int { attached.count }

    /// Enumerates what is there and starts following changes.
    public func start() {
        do {
            if let d = try udev.startMonitor() {
                monitor = d
                log(.info, "following input devices through \(udev.monitorSource) events" +
                    (udev.udevdRunning ? "" : " (udevd is not running: touchscreens are recognised by their capabilities)"))
            } else {
                log(.warning, "cannot monitor input devices: hotplug will not be seen")
            }
        } catch {
            log(.warning, "cannot monitor input devices (\(error)): hotplug will not be seen")
        }
        for d in udev.enumerate() where d.isEventNode { consider(d) }
        if attached.isEmpty { log(.info, "no touchscreen yet; waiting for one to be plugged in") }
    }

    func consider(_ d: UdevInputDevice, attempt: Int = 0) {
        guard let node = d.devnode, d.isEventNode else { return }
        if attached.values.contains(where: { $0.udev.syspath == d.syspath }) { return }
        if let props = d.properties, props["ID_INPUT"] != nil, props["ID_INPUT_TOUCHSCREEN"] != "1" { return }
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: node) } catch {
            if (error.errno == .noSuchFile || error.errno == .noDevice) && attempt < 20 {
                retries.append((d, attempt + 1, Clock.monotonicMicros() + 50_000))
            } else if error.errno != .noDevice {
                log(.error, error.description)
            }
            return
        }
        if dev.isTouchdVirtual {
            log(.debug, "\(node) \"\(dev.info.name)\": touchd's own virtual touchscreen (phys \(VirtualTouchscreenLayout.phys)); skipped")
            return
        }
        guard dev.info.isTouchscreen(udevProperties: d.properties) else {
            log(.debug, "\(node) \"\(dev.info.name)\": \(dev.info.kindDescription(touchscreen: false)); not used")
            return
        }
        let entry = InputDevice.entry(for: dev.info, in: config, properties: d.properties ?? [:])
        if let entry, entry.settings.ignore {
            log(.info, "\(node) \"\(dev.info.name)\" matches \(entry.label), which says ignore")
            return
        }
        let id = String(node.split(separator: "/").last ?? Substring(node))
        let input: InputDevice
        do {
            input = try InputDevice.attach(id: id, info: LiveSource.withLibinputFuzz(dev.info, d.properties ?? [:]), entry: entry,
                                           screen: config.screen, engine: engine,
                                           time: Clock.monotonicMicros())
        } catch {
            log(.error, "\(node): \(error)")
            return
        }
        // uinput implies grab: the virtual touchscreen stands in for the device.
        if entry?.settings.grab == true || entry?.settings.uinput != nil {
            if let e = dev.grab() {
                log(.warning, "\(node): cannot grab the device exclusively: \(e)")
            } else {
                log(.info, "\(node): grabbed exclusively (EVIOCGRAB): no other program receives its events")
            }
        }
        let down = dev.contactsDown()
        if !down.isEmpty {
            engine.ignoreContactsDown(device: input.engineIndex, down)
            log(.info, "\(node): \(down.count) contact(s) already down are ignored until they lift")
        }
        let a = Attached(device: dev, input: input, udev: d)
        attached[dev.descriptor] = a
        log(.info, "\(node) \"\(dev.info.name)\": \(dev.info.kindDescription(touchscreen: true))" +
            (entry.map { ", config \($0.label)" } ?? ", default mapping"))
        reexport(a, entry: entry)
    }

    /// libinput's udev rule moves an axis's kernel fuzz to `LIBINPUT_FUZZ_<code>` (two lowercase
    /// hex digits) and sets the kernel's to 0: the property is the axis's fuzz then (the
    /// `"fuzz"` hysteresis of devices[].filter).
    public static func withLibinputFuzz(_ info: DeviceInfo, _ properties: [String: String]) -> DeviceInfo {
        var out = info
        for code in Array(info.abs.keys) {
            let hex = String(code, radix: 16)
            guard let text = properties["LIBINPUT_FUZZ_" + (hex.count < 2 ? "0" + hex : hex)], let fuzz = Int32(text), fuzz >= 0 else { continue }
            out.abs[code]?.fuzz = fuzz
        }
        return out
    }

    public func readable(_ fd: Descriptor) {
        if fd == monitor {
            for d in udev.receive() {
                switch d.action {
                case "add": consider(d)
                case "remove":
                    if let (fd, _) = attached.first(where: { $0.value.udev.syspath == d.syspath }) { remove(fd, reason: "unplugged") }
                    retries.removeAll { $0.device.syspath == d.syspath }
                case "change":
                    if attached.values.contains(where: { $0.udev.syspath == d.syspath }) { break }
                    consider(d)   // e.g. udev now says it is a touchscreen
                default: break
                }
            }
            return
        }
        guard let a = attached[fd] else { return }
        var budget = 4096
        while budget > 0 {
            budget -= 1
            switch a.device.next() {
            case .event(let e):
                a.input.feed(e, engine: engine)
            case .dropped:
                log(.warning, "\(a.input.descriptor.id): SYN_DROPPED, the kernel's buffer overflowed: resynchronising")
                engine.setResyncing(device: a.input.engineIndex, true)
            case .resyncEvent(let e):
                a.input.feed(e, engine: engine)
            case .resyncDone:
                engine.setResyncing(device: a.input.engineIndex, false)
            case .drained:
                return
            case .gone(let e):
                remove(fd, reason: e == .noDevice ? "unplugged" : "read error: \(e)")
                return
            }
        }
    }

    func remove(_ fd: Descriptor, reason: String) {
        guard let a = attached[fd] else { return }
        engine.removeDevice(a.input.engineIndex, time: Clock.monotonicMicros())
        // Its touches' cancellations reach the virtual touchscreen before it goes.
        forwardContacts()
        attached[fd] = nil
        closeVirtual(a)
        log(.info, "\(a.device.path) \"\(a.device.info.name)\" removed (\(reason))")
    }

    public func due(now: Int64) -> InputSchedule {
        let ready = retries.filter { $0.at <= now }
        retries.removeAll { $0.at <= now }
        for r in ready { consider(r.device, attempt: r.attempts) }
        // Live events carry the kernel's CLOCK_MONOTONIC stamps and are read as they come:
        // the engine's timers may run up to now.
        return InputSchedule(next: retries.map(\.at).min(), settled: now)
    }

    public func reconfigure(_ config: Config) {
        self.config = config
        forwardContacts()   // what came before goes to the virtual touchscreens as they were
        for a in attached.values {
            let entry = InputDevice.entry(for: a.device.info, in: config, properties: a.udev.properties ?? [:])
            engine.updateDevice(a.input.engineIndex, settings: entry?.settings ?? DeviceSettings(), info: a.device.info, screen: config.screen)
            reexport(a, entry: entry)
        }
    }

    public func stop() {
        forwardContacts()   // the shutdown's cancellations
        for a in attached.values { closeVirtual(a) }
        attached.removeAll()   // closes (and ungrabs) every device
    }
}

/// `devices[].uinput`: the virtual touchscreens, made, fed and destroyed on the loop's thread.
extension LiveSource {
    /// Writes the engine's contact frames to the virtual touchscreens (the daemon calls it
    /// whenever the engine may have run: after input, timers, reloads, the shutdown).
    public func forwardContacts() {
        guard engine.hasContactFrames else { return }
        engine.drainContactFrames(into: &contactFrames)
        for f in contactFrames {
            guard let a = attached.values.first(where: { $0.input.engineIndex == f.device }), let v = a.virtual else { continue }
            if let e = v.write(f.contacts) {
                log(.error, "\(a.device.path): \(a.uinputPath): writing to the virtual touchscreen \"\(v.layout.name)\" failed (\(e)); it is removed")
                closeVirtual(a)
            }
        }
        contactFrames.removeAll(keepingCapacity: true)
    }

    /// Makes, keeps or replaces the device's virtual touchscreen for its (new) entry: a new
    /// name, screen or axes make a new one (the old one's contacts end first).
    func reexport(_ a: Attached, entry: DeviceEntry?) {
        let want = entry.flatMap { e in
            e.settings.uinput.map { VirtualTouchscreenLayout(name: $0.name, source: a.input.info, settings: e.settings,
                                                            screen: config.screen, slots: a.input.descriptor.slots) }
        }
        if let v = a.virtual, v.layout == want { return }
        closeVirtual(a)
        guard let want, let entry else { return }
        a.uinputPath = entry.label + ".uinput"
        if !a.device.grabbed {
            if let e = a.device.grab() { log(.warning, "\(a.device.path): cannot grab the device exclusively: \(e)") }
            else { log(.info, "\(a.device.path): grabbed exclusively (EVIOCGRAB): no other program receives its events") }
        }
        do {
            let v = try UinputTouchscreen(want)
            a.virtual = v
            engine.exportContacts(device: a.input.engineIndex, true)
            log(.info, "\(a.device.path): re-exported as \"\(want.name)\" (\(v.devnode ?? "a uinput device")): \(want.width)×\(want.height) points, " +
                "\(want.slots) slots, resolution \(want.resolutionX)×\(want.resolutionY) per mm (\(a.uinputPath))")
        } catch {
            log(.error, "\(a.device.path): \(a.uinputPath): no virtual touchscreen \"\(want.name)\": \(error); the device's touches are still published on the socket")
        }
    }

    /// Ends the contacts still down on the device's virtual touchscreen and destroys it.
    func closeVirtual(_ a: Attached) {
        engine.exportContacts(device: a.input.engineIndex, false)
        guard let v = a.virtual else { return }
        a.virtual = nil
        if let e = v.endAll() { log(.warning, "\(a.device.path): \(a.uinputPath): ending the virtual touchscreen's contacts failed (\(e))") }
        log(.info, "\(a.device.path): virtual touchscreen \"\(v.layout.name)\" removed (\(a.uinputPath))")
    }
}
