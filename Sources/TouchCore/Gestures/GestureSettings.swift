/// A gesture recognizer's configuration, typed per kind and checked when the config is read
/// (UIKit's recognizer properties). Immutable once the engine builds its recognizers; the
/// state machine's values live apart (RecognizerState), so a reset is a fresh state.
public struct GestureSettings: Sendable, Equatable {
    public var id: String
    public var kind: Kind
    /// Ids of recognizers that must fail before this one may recognize.
    public var requireToFail: [String] = []
    /// Ids of recognizers that may recognize together with this one.
    public var simultaneousWith: [String] = []
    public var cancelsTouchesInView = true
    public var delaysTouchesBegan = false
    public var delaysTouchesEnded = true

    public init(id: String, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        case tap(Tap)
        case longPress(LongPress)
        case pan(Pan)
        case swipe(Swipe)
        case pinch
        case rotation
        case screenEdgePan(ScreenEdgePan)

        /// What kind it is, as the config and `gesture` messages name it.
        public var name: GestureKind {
            switch self {
            case .tap: return .tap
            case .longPress: return .longPress
            case .pan: return .pan
            case .swipe: return .swipe
            case .pinch: return .pinch
            case .rotation: return .rotation
            case .screenEdgePan: return .screenEdgePan
            }
        }
    }

    /// UITapGestureRecognizer.
    public struct Tap: Sendable, Equatable {
        public var taps = 1
        public var touches = 1
        /// How far (points) a finger may move and still tap.
        public var movementTolerance = 10.0
        /// Microseconds from one tap's lift to the next tap's touch-down.
        public var maximumInterval: Int64 = 350_000
        public init() {}
    }

    /// UILongPressGestureRecognizer.
    public struct LongPress: Sendable, Equatable {
        /// numberOfTapsRequired (UIKit's default 0): taps before the press. Each tap lifts, and
        /// the next touch lands, within `tapInterval`.
        public var taps = 0
        /// The tap recognizer's default maximumInterval, for a long press's taps.
        public static let tapInterval: Int64 = 350_000
        public var touches = 1
        public var minimumDuration: Int64 = 500_000
        public var allowableMovement = 10.0
        public init() {}
    }

    /// UIPanGestureRecognizer.
    public struct Pan: Sendable, Equatable {
        public var minimumTouches = 1
        public var maximumTouches = Int.max
        /// Movement (points) before it begins (touchd's choice; UIKit publishes none).
        public static let hysteresis = 10.0
        /// A lift this long (µs) after the last move ends the pan with no velocity: the finger
        /// had stopped, so a scroll view does not move on (touchd's choice).
        public static let restBeforeLift: Int64 = 50_000
        /// The velocity is the translation's change over about this long (µs): the oldest of its
        /// recent samples this young, or the one before the last when none is (touchd's choice;
        /// UIKit smooths over a few recent events and publishes no figure).
        public static let velocityWindow: Int64 = 50_000
        /// At most this many samples are kept (a 1,000 Hz panel: the last 8 ms).
        public static let velocitySamples = 8
        public init() {}
    }

    public enum Direction: String, Sendable, Equatable, CaseIterable {
        case left, right, up, down
    }

    /// UISwipeGestureRecognizer.
    public struct Swipe: Sendable, Equatable {
        public var touches = 1
        public var directions: Set<Direction> = [.right]
        public var minimumDistance = 50.0
        public var maximumDuration: Int64 = 500_000
        public init() {}
    }

    public enum Edge: String, Sendable, Equatable, CaseIterable {
        case left, right, top, bottom
    }

    /// UIScreenEdgePanGestureRecognizer: a one-finger pan that starts within `edgeWidth` points
    /// of one of `edges` of the screen (after rotation) and moves away from it.
    public struct ScreenEdgePan: Sendable, Equatable {
        public var edges: Set<Edge> = []
        /// UIKit publishes no width; 20 points is about a fingertip reaching in from the bezel.
        public static let edgeWidth = 20.0
        public init() {}
    }

    /// The number keys each kind takes (every kind also takes the common keys).
    public static func numberKeys(of kind: GestureKind) -> [String] {
        switch kind {
        case .tap: return ["taps", "touches", "movementTolerance", "maximumInterval"]
        case .longPress: return ["taps", "touches", "minimumDuration", "allowableMovement"]
        case .pan: return ["minimumTouches", "maximumTouches"]
        case .swipe: return ["touches", "minimumDistance", "maximumDuration"]
        case .pinch, .rotation, .screenEdgePan: return []
        }
    }

    public static let commonKeys = ["id", "kind", "requireToFail", "simultaneousWith",
                                    "cancelsTouchesInView", "delaysTouchesBegan", "delaysTouchesEnded"]
}

/// A scroll view's own pan recognizer: it holds `began` of the content's touches for
/// `contentDelay` at most (delaysContentTouches) and may cancel them (canCancelContentTouches).
public struct ScrollPan: Sendable, Equatable {
    public var contentDelay: Int64 = 150_000
    public var canCancelContentTouches = true
    public var cancelsControlTouches = false
}

/// The kinds of recognizer, as the config's `kind` and `gesture` messages name them.
public enum GestureKind: String, CaseIterable, Sendable {
    case tap, longPress, pan, swipe, pinch, rotation, screenEdgePan
}
