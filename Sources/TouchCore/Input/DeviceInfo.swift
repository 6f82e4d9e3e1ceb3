/// What a device says about itself: the evemu header / libevdev description as a plain value.

public struct AbsInfo: Sendable, Equatable {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// How a device reports contacts.
public enum TouchProtocol: String, Sendable, Equatable {
    /// Multitouch with slots (ABS_MT_SLOT).
    case b = "B"
    /// Multitouch without slots (SYN_MT_REPORT); converted to B before it reaches the tracker.
    case a = "A"
    /// ABS_X / ABS_Y with BTN_TOUCH.
    case single
}

public struct DeviceInfo: Sendable, Equatable {
    public var name: String
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    public var properties: Set<UInt16>
    /// Enabled codes per event type (EV_SYN … EV_FF).
    public var codes: [UInt16: Set<UInt16>]
    /// Axis ranges of every enabled EV_ABS code.
    public var abs: [UInt16: AbsInfo]

    public init(name: String, bustype: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
                properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:], abs: [UInt16: AbsInfo] = [:]) {
        self.name = name
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.codes = codes
        self.abs = abs
        for code in abs.keys { self.codes[EV.ABS, default: []].insert(code) }
    }

    public func has(_ type: UInt16, _ code: UInt16) -> Bool {
        codes[type]?.contains(code) ?? false
    }

    public func hasType(_ type: UInt16) -> Bool {
        !(codes[type]?.isEmpty ?? true)
    }

    /// The protocol the device speaks, or nil when it cannot report touches at all.
    public var touchProtocol: TouchProtocol? {
        if abs[ABS.MT_POSITION_X] != nil && abs[ABS.MT_POSITION_Y] != nil {
            return abs[ABS.MT_SLOT] != nil ? .b : .a
        }
        if abs[ABS.X] != nil && abs[ABS.Y] != nil && has(EV.KEY, BTN.TOUCH) {
            return .single
        }
        return nil
    }

    /// Number of slots for protocol B (ABS_MT_SLOT maximum + 1), 1 for single-touch.
    public var slotCount: Int {
        if let slot = abs[ABS.MT_SLOT] { return max(1, Int(slot.maximum) + 1) }
        return 1
    }

    /// A headphone jack as the kernel reports it (issue 46): a switch device with
    /// `SW_HEADPHONE_INSERT` and no position axes (a sound card's "Headphone Jack" input).
    public var isHeadphoneJack: Bool { has(EV.SW, SW.HEADPHONE_INSERT) && touchProtocol == nil }

    /// True for a touchscreen (INPUT_PROP_DIRECT) rather than a touchpad or tablet.
    public var isDirect: Bool { properties.contains(InputProp.direct) }

    /// What kind of device this is, for discovery and `touchd devices`. udev's verdict
    /// (ID_INPUT_TOUCHSCREEN) wins where udevd runs; without it (minimal boards) the
    /// capabilities decide: INPUT_PROP_DIRECT with multitouch positions, or ABS_X/ABS_Y with
    /// BTN_TOUCH.
    public func isTouchscreen(udevProperties: [String: String]?) -> Bool {
        if let props = udevProperties, props["ID_INPUT"] != nil {
            return props["ID_INPUT_TOUCHSCREEN"] == "1"
        }
        switch touchProtocol {
        case .a?, .b?: return isDirect
        case .single?: return true   // resistive single-touch panels often lack INPUT_PROP_DIRECT
        case nil: return false
        }
    }

    /// "touchscreen, protocol B, 10 slots", "not a touchscreen (keyboard)" … for listings.
    public func kindDescription(touchscreen: Bool) -> String {
        guard touchscreen, let p = touchProtocol else {
            if isHeadphoneJack { return "headphone jack (SW_HEADPHONE_INSERT)" }
            if touchProtocol != nil { return "not a touchscreen (touchpad or tablet: no INPUT_PROP_DIRECT)" }
            if has(EV.KEY, 30) { return "not a touchscreen (keyboard)" }
            if hasType(EV.REL) { return "not a touchscreen (pointer)" }
            return "not a touchscreen"
        }
        switch p {
        case .b: return "touchscreen, protocol B, \(slotCount) slots"
        case .a: return "touchscreen, protocol A (converted by libmtdev)"
        case .single: return "touchscreen, single-touch"
        }
    }
}
