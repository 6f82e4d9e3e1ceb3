import TouchCore
import TouchSystem

/// `devices[].uinput` as a consumer of the engine's output, like the server and TUIO: each
/// exported device's contact frames (EngineOutput.contacts, in order with the messages) are
/// written to its virtual touchscreen, and a device's virtual touchscreen goes when the stream
/// says the device was removed — after its touches' cancellations. The loop says which
/// devices are exported (`set`) as they arrive and on reloads. Made, fed and destroyed on the
/// loop's thread (UinputTouchscreen).
public final class UinputExport {
    struct Exported {
        var virtual: UinputTouchscreen
        var export: DeviceExport
        /// The source device, as log lines name it ("/dev/input/event3").
        var source: String
        var id: String
        /// The output it is on, as turned now (a natural export turns its contacts back by it).
        var output: Output
        var layout: VirtualTouchscreenLayout { virtual.layout }
    }

    var exported: [DeviceIndex: Exported] = [:]
    let log: LogFunction

    public init(log: @escaping LogFunction) { self.log = log }

    public var count: Int { exported.count }

    /// Makes, keeps or replaces device `d`'s virtual touchscreen for `export` (nil: none) on
    /// `output` as it is turned now: a new name, output, orientation or axes make a new one (the
    /// old one's contacts end first). Returns whether the device's contacts are to be exported
    /// (a virtual touchscreen stands for it).
    @discardableResult
    public func set(_ d: DeviceIndex, id: String, source: String, _ export: DeviceExport?, on output: Output) -> Bool {
        let layout = export?.layout(on: output)
        if let e = exported[d], e.export == export, e.layout == layout {
            exported[d]?.output = output   // a natural export's output turned: the same device
            return true
        }
        close(d)
        guard let export, let layout else { return false }
        do {
            let v = try UinputTouchscreen(layout)
            exported[d] = Exported(virtual: v, export: export, source: source, id: id, output: output)
            log(.info, "\(source): re-exported as \"\(layout.name)\" (\(v.devnode ?? "a uinput device")): \(layout.width)×\(layout.height) points, " +
                "\(layout.slots) slots, resolution \(layout.resolutionX)×\(layout.resolutionY) per mm, phys \(layout.physString)" +
                (export.natural ? ", in its output's natural orientation" : "") + " (\(export.path))")
            return true
        } catch {
            log(.error, "\(source): \(export.path): no virtual touchscreen \"\(layout.name)\": \(error); the device's touches are still published on the socket")
            return false
        }
    }

    /// A frame of an exported device's contacts.
    public func contacts(_ f: ScreenContactFrame) {
        guard let e = exported[f.device] else { return }
        if let err = e.virtual.write(e.export.natural ? f.natural(on: e.output).contacts : f.contacts) {
            log(.error, "\(e.source): \(e.export.path): writing to the virtual touchscreen \"\(e.layout.name)\" failed (\(err)); it is removed")
            close(f.device)
        }
    }

    /// A message of the stream: a device removed takes its virtual touchscreen with it; an
    /// output turned remakes the virtual touchscreens on it with the new axes (its contacts come
    /// in the turned points from now on; one that cannot be made again is logged, and the
    /// device's contacts go on to the socket only, as when a write fails).
    public func take(_ m: Message) {
        switch m {
        case .device(let dm) where dm.action == .removed:
            if let d = exported.first(where: { $0.value.id == dm.device.id })?.key { close(d) }
        case .output(let om):
            for d in exported.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                guard let e = exported[d], e.layout.output == om.output.id else { continue }
                set(d, id: e.id, source: e.source, e.export, on: om.output)
            }
        default:
            break
        }
    }

    /// Ends the contacts still down on device `d`'s virtual touchscreen and destroys it.
    public func close(_ d: DeviceIndex) {
        guard let e = exported.removeValue(forKey: d) else { return }
        if let err = e.virtual.endAll() { log(.warning, "\(e.source): \(e.export.path): ending the virtual touchscreen's contacts failed (\(err))") }
        log(.info, "\(e.source): virtual touchscreen \"\(e.layout.name)\" removed (\(e.export.path))")
    }

    /// Every virtual touchscreen goes (the daemon stops).
    public func closeAll() {
        for d in exported.keys.sorted(by: { $0.rawValue < $1.rawValue }) { close(d) }
    }
}
