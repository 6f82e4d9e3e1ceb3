/// A view's `accessibility` key (UIAccessibility's properties, docs/config.md "Accessibility"):
/// what a screen reader says of it and how it reads it. Plain values; the rules that read them
/// (UIKit's defaults, reading order, the accessibility hit-test) are AccessibilityTree.swift.

/// UIAccessibilityTraits, by the names interface.md fixes.
public enum AccessibilityTrait: String, CaseIterable, Sendable, Equatable {
    case button, link, header, image, staticText, adjustable, selected, notEnabled, key, searchField, summary, updatesFrequently

    var bit: UInt16 { UInt16(1) << UInt16(AccessibilityTrait.allCases.firstIndex(of: self) ?? 0) }
}

/// A set of traits, listed in the order of `AccessibilityTrait.allCases`.
public struct AccessibilityTraits: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ traits: [AccessibilityTrait]) { self.init(rawValue: traits.reduce(0) { $0 | $1.bit }) }

    public static let button = AccessibilityTraits([.button])
    public static let notEnabled = AccessibilityTraits([.notEnabled])

    public func has(_ t: AccessibilityTrait) -> Bool { rawValue & t.bit != 0 }
    public var list: [AccessibilityTrait] { AccessibilityTrait.allCases.filter(has) }
}

/// The keys as given; nil where the key was left out (UIKit's default for the view applies).
public struct AccessibilitySpec: Sendable, Equatable {
    public var label: String?
    public var value: String?
    public var hint: String?
    /// nil: the view's default (a control's `button`).
    public var traits: AccessibilityTraits?
    /// isAccessibilityElement; nil: a control, or a view with a label, is one.
    public var element: Bool?
    /// accessibilityElementsHidden: neither it nor its subtree is read.
    public var hidden = false
    /// accessibilityViewIsModal: while it is on its output, only its subtree is read.
    public var modal = false
    /// Its text goes only to its window's owner; others hear its traits (a PIN key: "key").
    public var secure = false
    /// accessibilityActivationPoint, in its superview's coordinates (as `frame`); nil: the
    /// centre of its frame.
    public var activationPoint: Point?
    /// The language its label, value and hint are in (BCP 47, "en", "de-AT"); nil: `speech.language`.
    public var language: String?
    /// How fast its text is spoken (speech-dispatcher's -100…100); nil: `speech.rate`.
    public var rate: Int?
    /// accessibilityElements: the ids of views of its subtree to read, in this order (only
    /// those); nil: its elements by their place on the screen.
    public var order: [String]?
    public init() {}
}

/// `set: {"accessibility": {…}}`: the keys given replace those properties, a key set to null
/// goes back to its default, the others stay. A config's or an attach's key is the same patch
/// applied to no keys at all.
public struct AccessibilityPatch: Sendable, Equatable {
    // Outer nil: left out; inner nil: set to null.
    public var label: String??
    public var value: String??
    public var hint: String??
    public var traits: AccessibilityTraits??
    public var element: Bool??
    public var hidden: Bool?
    public var modal: Bool?
    public var secure: Bool?
    public var activationPoint: Point??
    public var language: String??
    public var rate: Int??
    public var order: [String]??
    public init() {}

    public func applied(to old: AccessibilitySpec?) -> AccessibilitySpec {
        var s = old ?? AccessibilitySpec()
        if let x = label { s.label = x }
        if let x = value { s.value = x }
        if let x = hint { s.hint = x }
        if let x = traits { s.traits = x }
        if let x = element { s.element = x }
        if let x = hidden { s.hidden = x }
        if let x = modal { s.modal = x }
        if let x = secure { s.secure = x }
        if let x = activationPoint { s.activationPoint = x }
        if let x = language { s.language = x }
        if let x = rate { s.rate = x }
        if let x = order { s.order = x }
        return s
    }

    /// The patch sets `order` to a list (whose ids must name views).
    public var orderIDs: [String] { (order ?? nil) ?? [] }
}

/// A value kept behind a reference: most views have no accessibility keys, and a ViewNode (kept
/// in every scene's chunks) grows by one pointer for those that do, not by the whole spec.
public indirect enum Boxed<Value: Sendable & Equatable>: Sendable, Equatable {
    case boxed(Value)
    public var value: Value {
        switch self { case .boxed(let v): return v }
    }
}

/// Config-wide accessibility settings (`outputs[].screenReader`, `speech`): carried by the scene
/// so that a reload brings the new ones to the engine with the new windows.
public struct AccessibilitySettings: Sendable, Equatable {
    /// Outputs whose screen reader is on from the start (`outputs[].screenReader: true`).
    public var screenReaderOutputs: Set<String> = []
    /// The language of the spoken words (`speech.language`): "en" unless the config says.
    public var language = "en"
    /// How fast the reader speaks (`speech.rate`, speech-dispatcher's -100…100, 0 the voice's
    /// normal speed); nil: the speech service's own default.
    public var rate: Int?
    /// Outputs whose screen reader is on while headphones are plugged into them
    /// (`outputs[].screenReader: "headphones"`).
    public var headphoneOutputs: Set<String> = []
    public init() {}
}

extension ViewNode {
    /// Its `accessibility` keys (nil: none given).
    public var accessibility: AccessibilitySpec? {
        get { accessibilityBox?.value }
        set { accessibilityBox = newValue.map(Boxed.boxed) }
    }
}
