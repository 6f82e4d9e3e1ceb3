import TouchCore

// The one catalogue of made-up devices: every device the unit tests, the in-process daemon
// tests, the fuzz targets and the end-to-end fixtures use is built here (the fixture
// Tests/Fixtures/virtual-800x480.desc is checked to describe `virtualTouchscreen()`).

/// The test screen: 800 × 480 points.
public let testScreen = Size(800, 480)

/// The test screen's axes: device units equal screen points (0…799 × 0…479 on 800 × 480).
public let screenX = AbsInfo(minimum: 0, maximum: 799)
public let screenY = AbsInfo(minimum: 0, maximum: 479)

/// A virtual 800×480 protocol B touchscreen whose device units equal screen points
/// (range 0…799 × 0…479 on an 800×480 screen), so expected locations are the raw values.
public func screenDevice(slots: Int = 10, pressure: Bool = false, major: Bool = false) -> DeviceInfo {
    var abs: [UInt16: AbsInfo] = [
        ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: Int32(slots - 1)),
        ABS.MT_POSITION_X: screenX,
        ABS.MT_POSITION_Y: screenY,
        ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
        ABS.MT_TOOL_TYPE: AbsInfo(minimum: 0, maximum: 2),
    ]
    if pressure { abs[ABS.MT_PRESSURE] = AbsInfo(minimum: 0, maximum: 255) }
    if major { abs[ABS.MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 799) }
    return DeviceInfo(name: "test", properties: [InputProp.direct], codes: [EV.KEY: [BTN.TOUCH]], abs: abs)
}

/// The same screen as a single-touch device (BTN_TOUCH, ABS_X / ABS_Y, pressure 0…100).
public func singleTouchScreenDevice() -> DeviceInfo {
    DeviceInfo(name: "st", codes: [EV.KEY: [BTN.TOUCH]],
               abs: [ABS.X: screenX, ABS.Y: screenY, ABS.PRESSURE: AbsInfo(minimum: 0, maximum: 100)])
}

/// The virtual 800×480 protocol B touchscreen of the end-to-end captures, whose description is
/// Tests/Fixtures/virtual-800x480.desc: `screenDevice` with pressure, the single-touch axes
/// beside the multitouch ones, and a USB-like identity.
public func virtualTouchscreen() -> DeviceInfo {
    var info = screenDevice(pressure: true)
    info.name = "touchd virtual touchscreen"
    (info.bustype, info.vendor, info.product, info.version) = (0x06, 0x1234, 0x5678, 0x0001)
    info.abs[ABS.X] = screenX
    info.abs[ABS.Y] = screenY
    return info.withCodesOfItsAxes()
}

/// The fuzz targets' screen (TouchFuzz): `screenDevice` with pressure, touch major, the
/// single-touch axes and every SYN code, named so the fuzz config's entries match it.
public func fuzzScreen() -> DeviceInfo {
    var info = screenDevice(pressure: true, major: true)
    info.name = "fuzz screen"
    (info.vendor, info.product) = (0x1234, 0x5678)
    info.abs[ABS.X] = screenX
    info.abs[ABS.Y] = screenY
    info.codes[EV.SYN, default: []].formUnion([SYN.REPORT, SYN.MT_REPORT, SYN.DROPPED])
    return info.withCodesOfItsAxes()
}

extension DeviceInfo {
    /// Every axis it has declared as an EV_ABS code too (a real device's bits agree).
    public func withCodesOfItsAxes() -> DeviceInfo {
        var out = self
        for c in abs.keys { out.codes[EV.ABS, default: []].insert(c) }
        return out
    }
}

/// Writes protocol B event sequences, one hardware frame at a time.
public struct Finger {
    public var events: [InputEvent] = []
    public var time: Int64 = 0
    public var nextID: Int32 = 100

    public init() {}

    public mutating func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }
    public mutating func down(_ slot: Int32, _ x: Int32, _ y: Int32) {
        ev(EV.ABS, ABS.MT_SLOT, slot)
        ev(EV.ABS, ABS.MT_TRACKING_ID, nextID)
        nextID += 1
        ev(EV.ABS, ABS.MT_POSITION_X, x)
        ev(EV.ABS, ABS.MT_POSITION_Y, y)
    }
    public mutating func move(_ slot: Int32, _ x: Int32, _ y: Int32) {
        ev(EV.ABS, ABS.MT_SLOT, slot)
        ev(EV.ABS, ABS.MT_POSITION_X, x)
        ev(EV.ABS, ABS.MT_POSITION_Y, y)
    }
    public mutating func up(_ slot: Int32) {
        ev(EV.ABS, ABS.MT_SLOT, slot)
        ev(EV.ABS, ABS.MT_TRACKING_ID, -1)
    }
    /// SYN_REPORT, then the clock advances by `ms`.
    public mutating func syn(after ms: Int64 = 10) {
        ev(EV.SYN, SYN.REPORT, 0)
        time += ms * 1000
    }
}

/// A frame's contact changes as words ("began0", "moved1", "cancelled0:resync"), for tests of
/// the tracker and of protocol A's conversion.
public func kinds(_ f: [ContactChange]) -> [String] {
    f.map { c in
        switch c.kind {
        case .began: return "began\(c.slot)"
        case .moved: return "moved\(c.slot)"
        case .ended: return "ended\(c.slot)"
        case .cancelled(let r): return "cancelled\(c.slot):\(r.rawValue)"
        }
    }
}
