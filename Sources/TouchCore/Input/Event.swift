/// The evdev event model: plain values, no kernel headers (TouchCore does no I/O).

/// One `struct input_event`, with its time as whole microseconds so that replays are exact.
public struct InputEvent: Sendable, Equatable {
    public var time: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    
    public init(time: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The event types and codes the pipeline reads (values from linux/input-event-codes.h).
public enum EV {
    public static let SYN: UInt16 = 0x00
    public static let KEY: UInt16 = 0x01
    public static let REL: UInt16 = 0x02
    public static let ABS: UInt16 = 0x03
    public static let MSC: UInt16 = 0x04
    public static let SW: UInt16 = 0x05
    public static let LED: UInt16 = 0x11
    public static let SND: UInt16 = 0x12
    public static let REP: UInt16 = 0x14
    public static let FF: UInt16 = 0x15
    public static let max: UInt16 = 0x1f
}

public enum SYN {
    public static let REPORT: UInt16 = 0
    public static let CONFIG: UInt16 = 1
    public static let MT_REPORT: UInt16 = 2
    public static let DROPPED: UInt16 = 3
}

public enum ABS {
    public static let X: UInt16 = 0x00
    public static let Y: UInt16 = 0x01
    public static let Z: UInt16 = 0x02
    public static let RX: UInt16 = 0x03
    public static let RY: UInt16 = 0x04
    public static let PRESSURE: UInt16 = 0x18
    public static let MISC: UInt16 = 0x28
    public static let MT_SLOT: UInt16 = 0x2f
    public static let MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let MT_TOUCH_MINOR: UInt16 = 0x31
    public static let MT_WIDTH_MAJOR: UInt16 = 0x32
    public static let MT_WIDTH_MINOR: UInt16 = 0x33
    public static let MT_ORIENTATION: UInt16 = 0x34
    public static let MT_POSITION_X: UInt16 = 0x35
    public static let MT_POSITION_Y: UInt16 = 0x36
    public static let MT_TOOL_TYPE: UInt16 = 0x37
    public static let MT_BLOB_ID: UInt16 = 0x38
    public static let MT_TRACKING_ID: UInt16 = 0x39
    public static let MT_PRESSURE: UInt16 = 0x3a
    public static let MT_DISTANCE: UInt16 = 0x3b
    public static let max: UInt16 = 0x3f
}

/// Switch codes (EV_SW) touchd reads: a sound card's jack (linux/input-event-codes.h).
public enum SW {
    public static let HEADPHONE_INSERT: UInt16 = 0x02
    public static let max: UInt16 = 0x10
}

public enum BTN {
    public static let TOUCH: UInt16 = 0x14a
    public static let TOOL_PEN: UInt16 = 0x140
    public static let TOOL_FINGER: UInt16 = 0x145
}

public enum MTTool {
    public static let finger: Int32 = 0
    public static let pen: Int32 = 1
    public static let palm: Int32 = 2
}

public enum InputProp {
    public static let pointer: UInt16 = 0
    public static let direct: UInt16 = 1
}

/// Microseconds → "sec.usec" text, exactly (no floating point).

public func formatTime(_ micros: Int64) -> String {
    var bytes: [UInt8] = []
    JSONWriter.appendTime(micros, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}
