import CLibevdev
import TouchCore

/// Event type and code names, from libevdev's tables (the kernel's own names).
public enum EventNames {
    public static func typeName(_ type: UInt16) -> String? {
        guard let p = libevdev_event_type_get_name(UInt32(type)) else { return nil }
        return String(cString: p)
    }

    public static func codeName(type: UInt16, code: UInt16) -> String? {
        guard let p = libevdev_event_code_get_name(UInt32(type), UInt32(code)) else { return nil }
        return String(cString: p)
    }

    /// "EV_ABS" → 3.
    public static func type(named name: String) -> UInt16? {
        let v = libevdev_event_type_from_name(name)
        return v >= 0 ? UInt16(v) : nil
    }

    /// ("EV_ABS", "ABS_MT_POSITION_X") → 0x35.
    public static func code(type: UInt16, named name: String) -> UInt16? {
        let v = libevdev_event_code_from_name(UInt32(type), name)
        return v >= 0 ? UInt16(v) : nil
    }

    public static func propertyName(_ prop: UInt16) -> String? {
        guard let p = libevdev_property_get_name(UInt32(prop)) else { return nil }
        return String(cString: p)
    }

    /// "ABS_MT_POSITION_X", or "0x1d" where the kernel has no name.
    public static func describe(type: UInt16, code: UInt16) -> String {
        codeName(type: type, code: code) ?? "0x" + String(code, radix: 16)
    }
}
