/// The displays the windows are on (`outputs[]` in the config, UIScreen.screens): each has a
/// size in points in its natural orientation and a rotation, the UI's orientation. Windows
/// live in one output's rotated points; each device maps onto one output.

/// A display. At rotation 90 or 270 its point space is `height` × `width`: rotation 90 puts
/// the natural top-left corner at the UI's top-right (the panel turned a quarter clockwise).
public struct Output: Sendable, Equatable {
    public var id: String
    /// Points in the display's natural orientation.
    public var size: Size
    public var rotation: Rotation
    public init(id: String, size: Size, rotation: Rotation = .r0) {
        self.id = id; self.size = size; self.rotation = rotation
    }

    /// The old `screen`: one output with this id.
    public static let screenID = "screen"
    public static func screen(_ size: Size) -> Output { Output(id: screenID, size: size) }

    /// The UI's point space: the size turned by the rotation.
    public var pointSize: Size { rotation.turnsAxes ? Size(size.height, size.width) : size }

    /// A point of the UI's (turned) space in the display's natural orientation: where it is on
    /// the panel's own pixels, e.g. a framebuffer that knows nothing of the rotation. Points
    /// run 0 … width − 1 and 0 … height − 1 as the engine maps them (a device's last unit is
    /// the last point): at 90 the UI's (x, y) is the natural (y, height − 1 − x); at 180
    /// (width − 1 − x, height − 1 − y); at 270 (width − 1 − y, x).
    public func naturalPoint(_ p: Point) -> Point {
        let w = size.width - 1, h = size.height - 1
        switch rotation {
        case .r0: return p
        case .r90: return Point(p.y, h - p.x)
        case .r180: return Point(w - p.x, h - p.y)
        case .r270: return Point(w - p.y, p.x)
        }
    }
}

extension Rotation {
    /// 90 or 270: width and height trade places.
    public var turnsAxes: Bool { self == .r90 || self == .r270 }

    /// This rotation followed by `other`.
    public func then(_ other: Rotation) -> Rotation {
        Rotation(rawValue: (rawValue + other.rawValue) % 360) ?? .r0
    }

    /// The rotation a number names, or nil when it is not a right angle (0, 90, 180, 270).
    public static func degrees(_ n: Double) -> Rotation? {
        [Rotation.r0, .r90, .r180, .r270].first { Double($0.rawValue) == n }
    }
}

extension DeviceSettings {
    /// The output a device maps to, by its settings (`devices[].output`), else by its udev
    /// property `WL_OUTPUT` when that names one of `outputs` (libinput's and the compositors'
    /// convention), else nil (the first output).
    public func resolvingOutput(properties: [String: String], outputs: [Output]) -> DeviceSettings {
        guard output == nil, let wl = properties["WL_OUTPUT"], outputs.contains(where: { $0.id == wl }) else { return self }
        var s = self
        s.output = wl
        return s
    }
}
