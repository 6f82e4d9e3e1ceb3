/// `devices[].filter` as the config gives it (points, seconds, frames), and the range of every
/// number in it: check-config and a reload refuse a value outside its range, `touchd measure`
/// clamps what it suggests into them, and the filter's arithmetic has a number for every value
/// inside (docs/config.md "Conditioning").
public struct ConditioningSettings: Sendable, Equatable {
    public enum Hysteresis: Sendable, Equatable {
        /// The axis's fuzz (kernel or LIBINPUT_FUZZ_*), the kernel's rule.
        case fuzz
        /// A circle of this radius in points (0: off).
        case points(Double)
    }

    public struct Pressure: Sendable, Equatable {
        public var down: Double
        public var up: Double
        public init(down: Double, up: Double) { self.down = down; self.up = up }
    }

    /// The smallest hysteresis radius and debounce distance in points (besides 0, off, for the
    /// radius): a hundredth of a point is below any panel's resolution, and smaller radii only
    /// risk arithmetic underflow (1e-300 squared in device units is 0, and 0/0 a NaN).
    public static let smallestRadius = 0.01

    /// Each number's range, inclusive. Times are seconds: a lift or a touch-down held longer
    /// than half a second is no longer a tap anybody accepts, and what waits behind it
    /// (Engine+Conditioning.swift) stays bounded.
    public static let debounceRange = 0.0...0.5
    public static let debounceDistanceRange = smallestRadius...1_000
    /// 0 (off) or this.
    public static let hysteresisRange = smallestRadius...1_000
    public static let pressureRange = 0.0...1
    public static let palmSizeRange = 1.0...100_000
    public static let minimumDurationRange = 0.0...0.5
    public static let minimumFramesRange = 0...30
    /// Each edge of `deadZone`; the two zones of an axis together leave some of the screen.
    public static let deadZoneRange = 0.0...100_000

    public var debounce: Double = 0
    public var debounceDistance: Double = 20
    public var hysteresis = Hysteresis.fuzz
    public var pressure: Pressure?
    public var palmSize: Double?
    /// Seconds: a contact that lifts sooner after its touch-down is never delivered (a ghost).
    public var minimumDuration: Double = 0
    /// The same in the device's hardware frames (the touch-down's frame is the first).
    public var minimumFrames = 0
    /// Points of the screen per edge: a contact that begins there is ignored (tslib's crop).
    public var deadZone: Outset?
    public init() {}

    /// The longest a touch-down waits for `minimumFrames` frames (a panel that reports nothing
    /// while a finger rests would hold it for ever): then it is delivered anyway.
    public static let longestFrameWait: Int64 = 500_000
}
