/// Device units → screen points. Order (interface.md): normalise by the axis ranges →
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
    public init() {}
}

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

    /// `x` and `y` are the axis ranges of the codes the tracker reads as positions.
    public init(x: AbsInfo, y: AbsInfo, pressure: AbsInfo? = nil, major: AbsInfo? = nil,
                settings: DeviceSettings = DeviceSettings(), screen: Size) {
        xMin = Double(x.minimum)
        // libinput's convention: a range of N device units covers N screen units, so the
        // maximum value maps just inside the screen's far edge.
        xSpan = Double(max(Int64(x.maximum) - Int64(x.minimum) + 1, 1))
        yMin = Double(y.minimum)
        ySpan = Double(max(Int64(y.maximum) - Int64(y.minimum) + 1, 1))
        let c = settings.calibration.count == 6 ? settings.calibration : [1, 0, 0, 0, 1, 0]
        m = (c[0], c[1], c[2], c[3], c[4], c[5])
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
        majorScale = screen.width / xSpan
    }

    /// Normalised 0…1 coordinates after calibration, swap, flip and rotation (before scaling).
    
    public func normalised(x rawX: Int32, y rawY: Int32) -> (Double, Double) {
        var nx = (Double(rawX) - xMin) / xSpan
        var ny = (Double(rawY) - yMin) / ySpan
        // Out-of-range values (a kernel bug) are clamped so that every touch is on screen.
        nx = min(max(nx, 0), 1)
        ny = min(max(ny, 0), 1)
        var cx = m.0 * nx + m.1 * ny + m.2
        var cy = m.3 * nx + m.4 * ny + m.5
        if swapXY { swap(&cx, &cy) }
        if flipX { cx = 1 - cx }
        if flipY { cy = 1 - cy }
        switch rotation {
        case .r0: break
        case .r90: (cx, cy) = (1 - cy, cx)
        case .r180: (cx, cy) = (1 - cx, 1 - cy)
        case .r270: (cx, cy) = (cy, 1 - cx)
        }
        return (min(max(cx, 0), 1), min(max(cy, 0), 1))
    }

    
    public func map(x rawX: Int32, y rawY: Int32) -> Point {
        let (nx, ny) = normalised(x: rawX, y: rawY)
        // A normalised 1.0 can come from calibration or clamping; keep points inside the screen.
        return Point(min(nx * width, width), min(ny * height, height))
    }

    
    public func pressure(_ raw: Int32) -> Double {
        min(max((Double(raw) - pMin) / pSpan, 0), 1)
    }

    
    public func major(_ raw: Int32) -> Double {
        Double(raw) * majorScale
    }
}
