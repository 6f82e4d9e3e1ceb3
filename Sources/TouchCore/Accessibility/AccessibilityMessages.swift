/// What the screen reader publishes (docs/messages.md "Accessibility"): `accessibilityFocus`,
/// `accessibility` (an action for an element's owner) and `speech` (everything read, in
/// order), as one message value whose body says which. Who gets each is SubscriptionFilter's
/// (SubscriptionFilter.swift): the focused window's owner, the view's owner, and for speech
/// every client that may see the window — except what is said of a private window or a secure
/// element, which reaches the window's owner and the speakers (`clients.speakers`) only, and
/// nobody else at all (issue 46).

/// The actions a client carries out for its element (UIAccessibility's accessibilityActivate,
/// accessibilityIncrement, …, accessibilityPerformEscape, accessibilityPerformMagicTap).
public enum AccessibilityAction: String, Sendable, Equatable, CaseIterable {
    case activate, increment, decrement, escape, magicTap
}

/// A `speech` message's body: text to say, or an order for whoever speaks.
public struct Speech: Sendable, Equatable {
    public enum Control: String, Sendable, Equatable {
        /// Stop speaking for now (two-finger tap) …
        case pause
        /// … and go on (the next two-finger tap).
        case resume
    }
    /// What to say (empty for a control).
    public var text: String
    /// Stop what is being said first (a new focus), or queue after it (a hint, read-all).
    public var interrupt: Bool
    /// The language of `text`.
    public var language: String
    /// How fast (speech-dispatcher's -100…100): the element's `accessibility.rate`, else the
    /// config's `speech.rate`; nil: neither says.
    public var rate: Int?
    /// It is about a private window or a secure element: only the window's owner and the
    /// speakers get it, numbered with `sub` (others learn nothing, not even that it was said).
    public var restricted = false
    /// `text` is a private window's or a secure element's own (its label, value, hint):
    /// `"private": true`, to be spoken only into headphones. Read while no headphones are
    /// plugged in, such an element is its traits' words, restricted but not private.
    public var isPrivate = false
    public var control: Control?

    public init(text: String, interrupt: Bool, language: String, rate: Int? = nil, restricted: Bool = false, isPrivate: Bool = false, control: Control? = nil) {
        self.text = text; self.interrupt = interrupt; self.language = language; self.rate = rate
        self.restricted = restricted; self.isPrivate = isPrivate; self.control = control
    }
}

public struct AccessibilityMessage: Sendable {
    public enum Body: Sendable, Equatable {
        /// The screen reader's focus moved to `view` (nil: it has none).
        case focus
        case action(AccessibilityAction)
        case speech(Speech)
    }
    public var seq: Int
    public var sub: Int?
    public var time: Int64
    /// The output whose screen reader it is.
    public var output: String
    /// The window it is about (its owner's business; nil: the output's, everyone's).
    public var window: ViewIndex?
    public var view: ViewIndex?
    public var body: Body

    public init(time: Int64, output: String, window: ViewIndex?, view: ViewIndex?, body: Body) {
        seq = 0; self.time = time; self.output = output; self.window = window; self.view = view; self.body = body
    }

    public var type: MessageType {
        switch body {
        case .focus: return .accessibilityFocus
        case .action: return .accessibility
        case .speech: return .speech
        }
    }

    /// Whether the message is for the window's owner alone (focus and actions about a client's
    /// window); speech goes to every client that may see the window, or (`restrictedSpeech`)
    /// to its owner and the speakers only.
    public var isForOwner: Bool {
        switch body {
        case .focus, .action: return true
        case .speech: return false
        }
    }

    /// Speech about a private window or a secure element: its owner's and the speakers' only.
    public var isRestrictedSpeech: Bool {
        if case .speech(let s) = body { return s.restricted }
        return false
    }
}

extension MessageEncoder {
    /// `{"type":"accessibilityFocus"|"accessibility"|"speech","seq":…,"time":…,"output":…,…}`.
    func encodeAccessibility(_ m: AccessibilityMessage, _ out: inout [UInt8]) {
        switch m.body {
        case .focus: raw("{\"type\":\"accessibilityFocus\",\"seq\":", &out)
        case .action: raw("{\"type\":\"accessibility\",\"seq\":", &out)
        case .speech: raw("{\"type\":\"speech\",\"seq\":", &out)
        }
        JSONWriter.appendInt(m.seq, to: &out)
        sub(m.sub, &out)
        raw(",\"time\":", &out)
        JSONWriter.appendTime(m.time, to: &out)
        raw(",\"output\":", &out)
        JSONWriter.appendString(m.output, to: &out)
        switch m.body {
        case .focus:
            raw(",\"window\":", &out)
            nodeID(m.window, &out)
            raw(",\"view\":", &out)
            nodeID(m.view, &out)
        case .action(let a):
            raw(",\"action\":", &out)
            JSONWriter.appendString(a.rawValue, to: &out)
            raw(",\"view\":", &out)
            nodeID(m.view, &out)
        case .speech(let s):
            if let c = s.control {
                // The two-finger tap: no text (messages.md `speech`, `control`).
                raw(",\"control\":", &out)
                JSONWriter.appendString(c.rawValue, to: &out)
            } else {
                raw(",\"text\":", &out)
                JSONWriter.appendString(s.text, to: &out)
                raw(s.interrupt ? ",\"interrupt\":true" : ",\"interrupt\":false", &out)
                raw(",\"language\":", &out)
                JSONWriter.appendString(s.language, to: &out)
                if let r = s.rate {
                    raw(",\"rate\":", &out)
                    JSONWriter.appendInt(r, to: &out)
                }
                if s.isPrivate { raw(",\"private\":true", &out) }
            }
        }
        raw("}", &out)
    }
}

extension Message {
    /// One of the screen reader's messages (routed by their own rule, never passed whole).
    public var isAccessibility: Bool { if case .accessibility = self { return true }; return false }
}

extension Message {
    /// Speech about a private window or a secure element (the Outbox numbers it with `sub`).
    public var isRestrictedSpeech: Bool { if case .accessibility(let a) = self { return a.isRestrictedSpeech }; return false }
}
