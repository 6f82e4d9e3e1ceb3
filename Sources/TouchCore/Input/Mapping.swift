/// Device units → screen points. Order (docs/config.md, "Devices"): normalise by the axis ranges →
/// libinput-style calibration matrix → swap/flip → rotation → screen size.

public enum Rotation: Int, Sendable, Equatable {
    case r0 = 0, r90 = 90, r180 = 180, r270 = 270
}

/// Per-device mapping settings, as in a `devices[]` entry of the config.
public struct DeviceSettings: Sendable, Equatable {
    public var rotation: Rotation = .r0
    public var flipX = false
    public var flipY = false
    public var swapXY = false
    /// 2×3 row-major matrix [a b c; d e f] applied to normalised (x, y, 1).
    public var calibration: [Double] = [1, 0, 0, 0, 1, 0]
    public var grab = false
    public var ignore = false
    /// Single-touch axis remap (codes read as x and y), for devices that mislabel their axes.
    public var xAxis: UInt16?
    public var yAxis: UInt16?
    /// Input conditioning (`filter`): debounce, hysteresis, pressure and palm thresholds.
    public var filter = ConditioningSettings()
    /// Re-export the conditioned contacts as a virtual touchscreen (`uinput`); implies `grab`.
    public var uinput: UinputSettings?
    /// The output it maps onto (`devices[].output`, or its udev `WL_OUTPUT`); nil: the first.
    public var output: String?
    /// Touch accommodations (`accommodations`, Accommodations.swift); nil: its output's.
    public var accommodations: AccommodationSettings?
    public init() {}
}

/// The mapping is symmetric: the axis minimum and maximum are the first and the last point of
/// the screen (0 and width − 1) under every rotation, flip and swap, and every location is on
/// screen, in [0, width) × [0, height) — UIKit never reports a touch outside its screen.
public struct DeviceMapping: Sendable {
    let xMin: Double, xSpan: Double
    let yMin: Double, ySpan: Double
    let m: (Double, Double, Double, Double, Double, Double)
    let swapXY: Bool, flipX: Bool, flipY: Bool
    let rotation: Rotation
    public let width: Double
    public let height: Double
    let pMin: Double, pSpan: Double
    public let hasPressure: Bool
    public let hasMajor: Bool
    let majorScale: Double
    /// No calibration: the transforms keep exact device units (see `fractions`).
    let identityCalibration: Bool

    /// `x` and `y` are the axis ranges of the codes the tracker reads as positions.
    public init(x: AbsInfo, y: AbsInfo, pressure: AbsInfo? = nil, major: AbsInfo? = nil,
                settings: DeviceSettings = DeviceSettings(), screen: Size) {
        xMin = Double(x.minimum)
        // The span from the first to the last value: the minimum is the screen's first point,
        // the maximum its last (a one-value axis maps everything to the first).
        xSpan = Double(max(Int64(x.maximum) - Int64(x.minimum), 1))
        yMin = Double(y.minimum)
        ySpan = Double(max(Int64(y.maximum) - Int64(y.minimum), 1))
        let c = settings.calibration.count == 6 ? settings.calibration : [1, 0, 0, 0, 1, 0]
        m = (c[0], c[1], c[2], c[3], c[4], c[5])
        identityCalibration = c == [1, 0, 0, 0, 1, 0]
        swapXY = settings.swapXY
        flipX = settings.flipX
        flipY = settings.flipY
        rotation = settings.rotation
        width = screen.width
        height = screen.height
        if let p = pressure {
            hasPressure = true
            pMin = Double(p.minimum)
            pSpan = Double(max(Int64(p.maximum) - Int64(p.minimum), 1))
        } else {
            hasPressure = false
            pMin = 0
            pSpan = 1
        }
        hasMajor = major != nil
        // Touch major is in position units (kernel multitouch protocol); scale like x.
        majorScale = max(screen.width - 1, 0) / xSpan
    }


    /// Normalised 0…1 coordinates after calibration, swap, flip and rotation (before scaling).
    public func normalised(x rawX: Int32, y rawY: Int32) -> (Double, Double) {
        let ((ax, dx), (ay, dy)) = fractions(x: rawX, y: rawY)
        return (ax / dx, ay / dy)
    }

    /// Each coordinate as a fraction a / d of its axis (0…1), transformed. Without a
    /// calibration the fractions keep the device's integer units, so a screen whose points
    /// match the device's units gets them exactly (value v → point v, flipped or turned).
    func fractions(x rawX: Int32, y rawY: Int32) -> ((Double, Double), (Double, Double)) {
        // Out-of-range values (a kernel bug) are clamped so that every touch is on screen.
        var x = (min(max(Double(rawX) - xMin, 0), xSpan), xSpan)
        var y = (min(max(Double(rawY) - yMin, 0), ySpan), ySpan)
        if !identityCalibration {
            let nx = x.0 / x.1, ny = y.0 / y.1
            // A calibration that mirrors or scales past 1 is kept on screen too.
            x = (min(max(m.0 * nx + m.1 * ny + m.2, 0), 1), 1)
            y = (min(max(m.3 * nx + m.4 * ny + m.5, 0), 1), 1)
        }
        if swapXY { swap(&x, &y) }
        if flipX { x.0 = x.1 - x.0 }
        if flipY { y.0 = y.1 - y.0 }
        switch rotation {
        case .r0: break
        case .r90: (x, y) = ((y.1 - y.0, y.1), x)
        case .r180: (x, y) = ((x.1 - x.0, x.1), (y.1 - y.0, y.1))
        case .r270: (x, y) = (y, (x.1 - x.0, x.1))
        }
        return (x, y)
    }

    /// Screen points: 0…1 onto the first to the last point of each axis.
    public func map(x rawX: Int32, y rawY: Int32) -> Point {
        let ((ax, dx), (ay, dy)) = fractions(x: rawX, y: rawY)
        return Point(ax * max(width - 1, 0) / dx, ay * max(height - 1, 0) / dy)
    }

    public func pressure(_ raw: Int32) -> Double {
        min(max((Double(raw) - pMin) / pSpan, 0), 1)
    }

    public func major(_ raw: Int32) -> Double {
        Double(raw) * majorScale
    }

    /// Points per device unit along the device's x and y axes (where each lands on the screen
    /// after swap and rotation; a calibration's scale is left out).
    public var pointsPerUnit: (Double, Double) {
        let turned = swapXY != (rotation == .r90 || rotation == .r270)
        let (wx, wy) = turned ? (height, width) : (width, height)
        return (max(wx - 1, 1) / xSpan, max(wy - 1, 1) / ySpan)
    }

    /// Points per unit of touch-major.
    public var pointsPerMajorUnit: Double { majorScale }

    /// The pressure axis's value at a fraction of its range.
    public func pressureValue(_ fraction: Double) -> Int32 {
        Int32(clamping: Int64((pMin + min(max(fraction, 0), 1) * pSpan).rounded(.up)))
    }
}
