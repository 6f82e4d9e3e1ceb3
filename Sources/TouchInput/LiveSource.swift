import TouchCore
import TouchSystem

/// Live touchscreens: libudev discovery at start, a udev monitor for hotplug (udevd's events
/// where it runs, the kernel's uevents otherwise), libevdev reading from the event loop. What
/// it reads comes back as items for the loop (devices arriving and leaving, their events). A
/// device whose entry has `uinput` is grabbed and its arrival asks for a virtual touchscreen
/// (UinputExport makes it); touchd's own virtual touchscreens are never attached.
public final class LiveSource: InputSource {
    final class Attached {
        let device: EvdevDevice
        let input: InputDevice
        let udev: UdevInputDevice
        init(device: EvdevDevice, input: InputDevice, udev: UdevInputDevice) {
            self.device = device; self.input = input; self.udev = udev
        }
    }

    let udev: Udev
    var config: Config
    let log: LogFunction
    var monitor: Descriptor?
    var attached: [Descriptor: Attached] = [:]
    /// Nodes that could not be opened yet (a kernel uevent can come before devtmpfs's node).
    var retries: [(device: UdevInputDevice, attempts: Int, at: Int64)] = []
    var nextKey = 0
    /// USB sound cards present (headsets: issue 46), by syspath, with the name they were told as.
    var headsets: [String: String] = [:]
    /// The monotonic clock the kernel stamps events with (a test gives its own).
    let now: () -> Int64
    public var finished: Bool { false }

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    public init(config: Config, now: @escaping () -> Int64 = Clock.monotonicMicros, log: @escaping LogFunction) throws(SetupError) {
        guard let u = Udev(log: log) else { throw SetupError(description: "libudev could not be initialised") }
        udev = u
        self.config = config
        self.log = log
        self.now = now
    }

    public var descriptors: [Descriptor] { (monitor.map { [$0] } ?? []) + Array(attached.keys) }

    /// Enumerates what is there (its arrivals appended to `items`) and starts following changes.
    public func start(into items: inout [InputItem]) {
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
        for d in udev.enumerate() {
            if d.isUSBSoundCard { headset(d, plugged: true, into: &items) } else if d.isEventNode { consider(d, into: &items) }
        }
        if attached.values.allSatisfy({ $0.device.info.isHeadphoneJack }) { log(.info, "no touchscreen yet; waiting for one to be plugged in") }
    }

    func consider(_ d: UdevInputDevice, attempt: Int = 0, into items: inout [InputItem]) {
        guard let node = d.devnode, d.isEventNode else { return }
        if attached.values.contains(where: { $0.udev.syspath == d.syspath }) { return }
        if let props = d.properties, props["ID_INPUT"] != nil, props["ID_INPUT_TOUCHSCREEN"] != "1", props["ID_INPUT_SWITCH"] != "1" { return }
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: node) } catch {
            if (error.errno == .noSuchFile || error.errno == .noDevice) && attempt < 20 {
                retries.append((d, attempt + 1, now() + 50_000))
            } else if error.errno != .noDevice {
                log(.error, error.description)
            }
            return
        }
        if dev.isTouchdVirtual {
            log(.debug, "\(node) \"\(dev.info.name)\": touchd's own virtual touchscreen (phys \(dev.phys ?? VirtualTouchscreenLayout.phys)); skipped")
            return
        }
        let jack = dev.info.isHeadphoneJack
        guard jack || dev.info.isTouchscreen(udevProperties: d.properties) else {
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
            input = try InputDevice(key: DeviceKey(nextKey), id: id, info: LiveSource.withLibinputFuzz(dev.info, d.properties ?? [:]), entry: entry)
        } catch {
            log(.error, "\(node): \(error)")
            return
        }
        nextKey += 1
        // uinput implies grab: the virtual touchscreen stands in for the device. A jack is
        // never grabbed (the audio stack reads it too).
        if !jack && (entry?.settings.grab == true || entry?.settings.uinput != nil) { grab(dev) }
        var arrival = input.arrival(time: now())
        // Its output: devices[].output, else its udev WL_OUTPUT when it names a configured one.
        arrival.settings = arrival.settings.resolvingOutput(properties: d.properties ?? [:], outputs: config.outputs)
        if config.outputs.count > 1 || arrival.settings.output != nil {
            log(.info, "\(node): mapped to output \(arrival.settings.output ?? config.outputs[0].id)" +
                (entry?.settings.output != nil ? " (\(entry?.label ?? "devices").output)" : arrival.settings.output != nil ? " (udev WL_OUTPUT)" : " (the first)"))
        }
        arrival.contactsDown = dev.contactsDown()
        if jack { arrival.headphonesIn = dev.switchOn(SW.HEADPHONE_INSERT) }
        if !arrival.contactsDown.isEmpty {
            log(.info, "\(node): \(arrival.contactsDown.count) contact(s) already down are ignored until they lift")
        }
        arrival.export = input.export(entry: entry)     // none for a jack
        attached[dev.descriptor] = Attached(device: dev, input: input, udev: d)
        log(.info, "\(node) \"\(dev.info.name)\": \(dev.info.kindDescription(touchscreen: true))" +
            (entry.map { ", config \($0.label)" } ?? ", default mapping"))
        items.append(.arrived(arrival))
    }

    /// A USB headset's sound card arrived (or left): headphones on the output its devices[]
    /// entry names (matched by the card's name, vendor and product), else the first.
    func headset(_ d: UdevInputDevice, plugged: Bool, into items: inout [InputItem]) {
        let props = d.properties ?? [:]
        let source = headsets[d.syspath] ?? "\(d.sysname) \"\(d.name ?? props["ID_MODEL"] ?? "")\""
        let entry = config.deviceEntry(name: d.name ?? props["ID_MODEL"] ?? "", vendor: Int(props["ID_VENDOR_ID"] ?? "", radix: 16) ?? 0,
                                       product: Int(props["ID_MODEL_ID"] ?? "", radix: 16) ?? 0, properties: props)
        if plugged { headsets[d.syspath] = source } else { headsets[d.syspath] = nil }
        log(.info, "\(source): USB sound card \(plugged ? "arrived" : "removed"): headphones \(plugged ? "plugged into" : "pulled from") output \(entry?.settings.output ?? config.outputs[0].id)")
        items.append(.headphones(source: source, output: entry?.settings.output, plugged: plugged, time: now()))
    }

    func grab(_ dev: EvdevDevice) {
        guard !dev.grabbed else { return }
        if let e = dev.grab() {
            log(.warning, "\(dev.path): cannot grab the device exclusively: \(e)")
        } else {
            log(.info, "\(dev.path): grabbed exclusively (EVIOCGRAB): no other program receives its events")
        }
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

    public func readable(_ fd: Descriptor, into items: inout [InputItem]) {
        if fd == monitor {
            for d in udev.receive() {
                if d.subsystem == "sound" {
                    if d.action == "add" && d.isUSBSoundCard { headset(d, plugged: true, into: &items) }
                    if d.action == "remove" && headsets[d.syspath] != nil { headset(d, plugged: false, into: &items) }
                    continue
                }
                switch d.action {
                case "add": consider(d, into: &items)
                case "remove":
                    if let (fd, _) = attached.first(where: { $0.value.udev.syspath == d.syspath }) { remove(fd, reason: "unplugged", into: &items) }
                    retries.removeAll { $0.device.syspath == d.syspath }
                case "change":
                    if attached.values.contains(where: { $0.udev.syspath == d.syspath }) { break }
                    consider(d, into: &items)   // e.g. udev now says it is a touchscreen
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
                a.input.convert(e, into: &items)
            case .dropped:
                log(.warning, "\(a.input.descriptor.id): SYN_DROPPED, the kernel's buffer overflowed: resynchronising")
                items.append(.resyncing(a.input.key, true))
            case .resyncEvent(let e):
                a.input.convert(e, into: &items)
            case .resyncDone:
                items.append(.resyncing(a.input.key, false))
            case .drained:
                return
            case .gone(let e):
                remove(fd, reason: e == .noDevice ? "unplugged" : "read error: \(e)", into: &items)
                return
            }
        }
    }

    func remove(_ fd: Descriptor, reason: String, into items: inout [InputItem]) {
        guard let a = attached[fd] else { return }
        items.append(.removed(a.input.key, time: now()))
        attached[fd] = nil
        log(.info, "\(a.device.path) \"\(a.device.info.name)\" removed (\(reason))")
    }

    public func due(now: Int64, into items: inout [InputItem]) -> InputSchedule {
        let ready = retries.filter { $0.at <= now }
        retries.removeAll { $0.at <= now }
        for r in ready { consider(r.device, attempt: r.attempts, into: &items) }
        // Live events carry the kernel's CLOCK_MONOTONIC stamps and are read as they come:
        // the engine's timers may run up to now.
        return InputSchedule(next: retries.map(\.at).min(), settled: now)
    }

    public func reconfigure(_ config: Config, into items: inout [InputItem]) {
        self.config = config
        for a in attached.values.sorted(by: { $0.input.key.rawValue < $1.input.key.rawValue }) {
            let entry = InputDevice.entry(for: a.device.info, in: config, properties: a.udev.properties ?? [:])
            let export = a.input.export(entry: entry)
            if export != nil { grab(a.device) }
            let settings = (entry?.settings ?? DeviceSettings()).resolvingOutput(properties: a.udev.properties ?? [:], outputs: config.outputs)
            items.append(.settings(a.input.key, settings, a.device.info, export: export))
        }
    }

    public func stop() {
        attached.removeAll()   // closes (and ungrabs) every device
    }
}
