/// A view or a window as the config (or, later, a client) declares it: geometry, the hit-test
/// gates and customisations, and its place in the tree.

public enum HitMode: String, Sendable, Equatable, CaseIterable {
    case `default`
    /// The view and its subtree never hit (a transparent overlay).
    case none
    /// Never returns itself; its subviews still hit.
    case passthrough
    /// Returns itself when the point is inside and asks no subview (intercept).
    case `self`
    /// Asks its subviews even when the point is outside its own bounds.
    case outsideChildren
}

public enum Shape: String, Sendable, Equatable {
    case rect
    case ellipse
}

public enum ControlKind: String, Sendable, Equatable {
    case button
}

public struct ScrollSpec: Sendable, Equatable {
    public var contentSize: Size
    public var delaysContentTouches = true
    public var canCancelContentTouches = true
    /// UIScrollView.touchesShouldCancel(in:) for a control: false (UIKit's default) — a control
    /// that is already tracking keeps its touch and the view does not scroll.
    public var cancelsControlTouches = false
    /// The velocity kept per millisecond after a flick (UIKit's normal 0.998, fast 0.99).
    public var decelerationRate = ScrollSpec.normalRate
    public var bounces = true
    public var pagingEnabled = false
    /// UIScrollView.alwaysBounceHorizontal / alwaysBounceVertical: with `bounces`, the axis can
    /// be dragged (and springs back) even when the content fits it.
    public var alwaysBounceHorizontal = false
    public var alwaysBounceVertical = false
    public static let normalRate = 0.998
    public static let fastRate = 0.99
    public init(contentSize: Size) { self.contentSize = contentSize }
}

/// A view or a window (a window is a view at the top of its tree, as UIWindow is a UIView).
public struct ViewNode: Sendable, Equatable {
    /// Its gesture recognizers, a scroll view's own pan included (each costs the daemon as a
    /// view does, and counts as one against `clients.views`).
    public var recognizerCount: Int { gestures.count + (scroll == nil ? 0 : 1) }

    public var id: String
    public var frame: Rect
    public var boundsOrigin: Point = .zero
    public var hidden = false
    public var userInteractionEnabled = true
    public var alpha: Double = 1
    public var hitOutset: Outset = .zero
    public var shape: Shape = .rect
    public var hitMode: HitMode = .default
    public var control: ControlKind?
    public var enabled = true
    public var multipleTouch = false
    public var exclusiveTouch = false
    public var isWindow = false
    public var level: Double = 0
    /// Windows: the output it is on, as declared (`"output"`, nil: the first), and its index
    /// in the scene's outputs (resolved by the scene).
    public var outputID: String?
    public var output = 0
    /// Windows: the order they came in (config windows in config order, then client windows
    /// in order of attachment); the later is asked first among equal levels.
    public var arrival = 0
    /// Windows: the client that owns it (nil for the config's), and whether its touches,
    /// controls, gestures and scrolls go to that client only.
    public var owner: Int?
    public var isPrivate = false
    /// Windows: how many updates were applied (1 when attached).
    public var version = 0
    /// A slot whose view was removed (live scenes reuse slots).
    public var removed = false
    public var gestures: [GestureSettings] = []
    public var scroll: ScrollSpec?
    /// Its `accessibility` keys, boxed (AccessibilitySpec.swift: `accessibility` reads them).
    public var accessibilityBox: Boxed<AccessibilitySpec>?

    /// Tree links (set when the scene is built).
    public var superview: ViewIndex?
    public var subviews: [ViewIndex] = []
    /// The window this view is in (a window's is itself).
    public var window = ViewIndex(0)
    /// This node's own responder, and its view controller's when it is a controller's root view.
    public var responder = ResponderIndex(0)
    public var controller: ResponderIndex?

    public init(id: String, frame: Rect) {
        self.id = id
        self.frame = frame
    }

    /// The rectangle pointInside accepts, in the view's own coordinates.
    public var hitRect: Rect {
        Rect(origin: boundsOrigin, size: frame.size).grown(by: hitOutset)
    }

    public var bounds: Rect { Rect(origin: boundsOrigin, size: frame.size) }

    /// pointInside: within the hit rectangle (or its inscribed ellipse).
    public func pointInside(_ p: Point) -> Bool {
        shape == .ellipse ? hitRect.ellipseContains(p) : hitRect.contains(p)
    }

    /// Why hit-testing refuses this view without asking pointInside (nil: it asks).
    public var gate: HitGate? {
        if hitMode == .none { return HitGate.none }
        if hidden { return .hidden }
        if !userInteractionEnabled { return .userInteractionDisabled }
        if alpha < 0.01 { return .alpha }
        if control != nil && !enabled { return .disabled }
        return nil
    }
}
