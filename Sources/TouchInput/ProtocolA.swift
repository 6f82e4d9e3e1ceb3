import CLibmtdev
import TouchCore

/// Protocol A (SYN_MT_REPORT, anonymous contacts) → protocol B (slots, tracking ids), through
/// libmtdev, as libinput and the X drivers do. One instance per device; the `struct mtdev`
/// it owns is used by one thread only (the dispatch thread that feeds the device).
public final class ProtocolAConverter {
    private let dev: UnsafeMutablePointer<mtdev>
    private var scratch = input_event()
    private var eventsSinceReport = 0
    public let slotCount: Int

    static let mtCodes: [UInt16] = [ABS.MT_TOUCH_MAJOR, ABS.MT_TOUCH_MINOR, ABS.MT_WIDTH_MAJOR, ABS.MT_WIDTH_MINOR,
                                    ABS.MT_ORIENTATION, ABS.MT_POSITION_X, ABS.MT_POSITION_Y, ABS.MT_TOOL_TYPE,
                                    ABS.MT_BLOB_ID, ABS.MT_TRACKING_ID, ABS.MT_PRESSURE]

    /// nil when libmtdev cannot be set up (out of memory) or the device has no MT positions.
    public init?(device: DeviceInfo) {
        guard device.abs[ABS.MT_POSITION_X] != nil, device.abs[ABS.MT_POSITION_Y] != nil,
              let d = mtdev_new() else { return nil }
        guard mtdev_init(d) == 0 else {
            mtdev_delete(d)
            return nil
        }
        for code in ProtocolAConverter.mtCodes {
            guard let a = device.abs[code] else { continue }
            let c = Int32(code)
            mtdev_set_mt_event(d, c, 1)
            mtdev_set_abs_minimum(d, c, a.minimum)
            mtdev_set_abs_maximum(d, c, a.maximum)
            mtdev_set_abs_fuzz(d, c, a.fuzz)
            mtdev_set_abs_resolution(d, c, a.resolution)
        }
        d.pointee.caps.has_mtdata = 1
        // libmtdev's own slot range for converted devices (what mtdev_configure would set).
        d.pointee.caps.has_slot = 0
        d.pointee.caps.slot.minimum = 0
        d.pointee.caps.slot.maximum = 31
        slotCount = 32
        dev = d
    }

    deinit {
        mtdev_close_delete(dev)
    }

    /// Feeds one protocol A event; appends whatever protocol B events libmtdev has ready.
    public func convert(_ e: InputEvent, into out: inout [InputEvent]) {
        if e.type == EV.SYN && e.code == SYN.REPORT {
            // A frame with nothing in it means "no contacts" in protocol A, but libmtdev only
            // looks at frames that carry events: give it the empty SYN_MT_REPORT it expects so
            // contacts cannot stay stuck down.
            if eventsSinceReport == 0 { put(InputEvent(time: e.time, type: EV.SYN, code: SYN.MT_REPORT, value: 0), into: &out) }
            eventsSinceReport = 0
        } else {
            eventsSinceReport += 1
        }
        put(e, into: &out)
    }

    private func put(_ e: InputEvent, into out: inout [InputEvent]) {
        scratch.type = e.type
        scratch.code = e.code
        scratch.value = e.value
        scratch.time.tv_sec = Int(e.time / 1_000_000)
        scratch.time.tv_usec = Int(e.time % 1_000_000)
        mtdev_put_event(dev, &scratch)
        while mtdev_empty(dev) == 0 {
            mtdev_get_event(dev, &scratch)
            let t = Int64(scratch.time.tv_sec) * 1_000_000 + Int64(scratch.time.tv_usec)
            out.append(InputEvent(time: t, type: scratch.type, code: scratch.code, value: scratch.value))
        }
    }
}
