/// What the engine publishes (docs/messages.md), as plain values, and their NDJSON form.

public enum Tool: String, Sendable, Equatable {
    case finger, pen, palm

    public init(mtTool: Int32) {
        switch mtTool {
        case MTTool.pen: self = .pen
        case MTTool.palm: self = .palm
        default: self = .finger
        }
    }
}

/// Why a touch that hit a view is not delivered to it (UIKit's multipleTouch / exclusiveTouch).
public enum IgnoreReason: String, Sendable, Equatable {
    case multipleTouch
    case exclusiveTouch
}

public struct TouchRecord: Sendable, Equatable {
    public var id: Int
    public var phase: Phase
    /// nil when the touch hit nothing.
    public var window: ViewIndex?
    public var view: ViewIndex?
    public var location: Point
    public var previous: Point
    public var locationInView: Point
    /// When the finger last changed (UITouch.timestamp): touch-down, last move, or lift — also
    /// when a recognizer held the phase and the views get it later (a held began: the touch-down's).
    public var timestamp: Int64
    public var tapCount: Int
    public var pressure: Double?
    public var major: Double?
    public var tool: Tool
    public var reason: CancelReason?
    public var ignored: IgnoreReason?
    /// For a moving touch: where it is expected one frame later (UIEvent.predictedTouches(for:)).
    public var predicted: Point?
    /// For a subscriber with a maxRate: the samples merged into this one since it last got the
    /// touch (UIEvent.coalescedTouches(for:), without the sample delivered itself).
    public var coalesced: [CoalescedSample]?
    /// The output its device maps onto; set only when there is more than one output.
    public var output: String?
    /// A touch the screen reader made (an activation's tap at the element's activation point).
    public var synthesized = false

    public init(id: Int, phase: Phase, window: ViewIndex?, view: ViewIndex?, location: Point, previous: Point, locationInView: Point,
                timestamp: Int64 = 0, tapCount: Int, pressure: Double?, major: Double?, tool: Tool, reason: CancelReason?, ignored: IgnoreReason?) {
        self.id = id; self.phase = phase; self.window = window; self.view = view; self.location = location
        self.previous = previous; self.locationInView = locationInView; self.timestamp = timestamp; self.tapCount = tapCount
        self.pressure = pressure; self.major = major; self.tool = tool; self.reason = reason; self.ignored = ignored
    }
}

/// A touch sample merged away (its location in the window and its timestamp).
public struct CoalescedSample: Sendable, Equatable {
    public var location: Point
    public var timestamp: Int64
    public init(location: Point, timestamp: Int64) { self.location = location; self.timestamp = timestamp }
}

public struct Call: Sendable, Equatable {
    public var responder: ResponderIndex
    public var phase: Phase
    public var touches: [Int]
    public init(responder: ResponderIndex, phase: Phase, touches: [Int]) {
        self.responder = responder; self.phase = phase; self.touches = touches
    }
}

public struct FrameMessage: Sendable {
    public var seq: Int
    /// A message only about other clients' private windows' business: numbered after `seq`
    /// (1, 2, …) instead of taking one (Outbox), so nobody else sees a gap. nil otherwise.
    public var sub: Int?
    public var time: Int64
    public var device: String
    public var touches: [TouchRecord]
    public var calls: [Call]

    public init(seq: Int, time: Int64, device: String, touches: [TouchRecord], calls: [Call]) {
        self.seq = seq; self.time = time; self.device = device; self.touches = touches; self.calls = calls
    }
}

public enum ControlEvent: String, Sendable, Equatable {
    case touchDown, touchDownRepeat, touchDragInside, touchDragOutside, touchDragEnter, touchDragExit
    case touchUpInside, touchUpOutside, touchCancel, primaryActionTriggered
}

public struct ControlMessage: Sendable, Equatable {
    public var seq: Int
    public var sub: Int?
    public var time: Int64
    public var control: ViewIndex
    public var event: ControlEvent
    public var touch: Int
    /// Its touch is the screen reader's (an activation).
    public var synthesized = false

    public init(seq: Int, time: Int64, control: ViewIndex, event: ControlEvent, touch: Int) {
        self.seq = seq; self.time = time; self.control = control; self.event = event; self.touch = touch
    }
}

public struct HitTestMessage: Sendable {
    public var time: Int64
    public var touch: Int
    public var window: ViewIndex?
    public var point: Point
    public var trace: [HitStep]
    public var view: ViewIndex?
}

public struct DeviceDescriptor: Sendable, Equatable {
    public var id: String
    public var name: String
    public var vendor: Int
    public var product: Int
    public var touchProtocol: TouchProtocol
    public var slots: Int
    public init(id: String, name: String, vendor: Int, product: Int, touchProtocol: TouchProtocol, slots: Int) {
        self.id = id; self.name = name; self.vendor = vendor; self.product = product
        self.touchProtocol = touchProtocol; self.slots = slots
    }
}

/// An output turned (a client's `output` request): every subscriber is told.
public struct OutputMessage: Sendable, Equatable {
    public var seq: Int
    public var time: Int64
    public var output: Output
    public init(seq: Int, time: Int64, output: Output) { self.seq = seq; self.time = time; self.output = output }
}

/// Headphones plugged into, or pulled from, an output (issue 46): a jack's switch
/// (`EV_SW SW_HEADPHONE_INSERT`) or a USB headset's sound card. `source` is what said so (the
/// jack's device id, the card's name); `plugged` is the output's state — plugged while any of
/// its sources is.
public struct HeadphonesMessage: Sendable, Equatable {
    public var seq: Int
    public var time: Int64
    public var output: String
    public var plugged: Bool
    public var source: String
    public init(seq: Int, time: Int64, output: String, plugged: Bool, source: String) {
        self.seq = seq; self.time = time; self.output = output; self.plugged = plugged; self.source = source
    }
}

public struct DeviceMessage: Sendable, Equatable {
    public enum Action: String, Sendable { case added, removed }
    public var seq: Int
    public var time: Int64
    public var action: Action
    public var device: DeviceDescriptor
}

public enum Message: Sendable {
    case device(DeviceMessage)
    case frame(FrameMessage)
    case control(ControlMessage)
    case hitTest(HitTestMessage)
    case gesture(GestureMessage)
    case scroll(ScrollMessage)
    case output(OutputMessage)
    case headphones(HeadphonesMessage)
    /// The screen reader's focus, actions and speech (AccessibilityMessages.swift).
    case accessibility(AccessibilityMessage)
    /// An output went idle, or woke (SessionMessages.swift): every subscriber is told.
    case idle(SessionMessage)
    case wake(SessionMessage)
    /// A system gesture was recognized: not numbered, for the clients its `to` names.
    case systemGesture(SystemGestureMessage)

    /// Set on a message only about private windows (Outbox): nobody but their owners sees it.
    public var sub: Int? {
        switch self {
        case .device, .hitTest, .output, .headphones, .idle, .wake, .systemGesture: return nil
        case .frame(let f): return f.sub
        case .control(let c): return c.sub
        case .gesture(let g): return g.sub
        case .scroll(let s): return s.sub
        case .accessibility(let a): return a.sub
        }
    }

    /// Numbers it (Outbox.publish): `seq`, and `sub` for a private window's message.
    mutating func number(seq: Int, sub: Int?) {
        switch self {
        case .device(var d): d.seq = seq; self = .device(d)
        case .frame(var f): f.seq = seq; f.sub = sub; self = .frame(f)
        case .control(var c): c.seq = seq; c.sub = sub; self = .control(c)
        case .gesture(var g): g.seq = seq; g.sub = sub; self = .gesture(g)
        case .scroll(var s): s.seq = seq; s.sub = sub; self = .scroll(s)
        case .output(var o): o.seq = seq; self = .output(o)
        case .headphones(var h): h.seq = seq; self = .headphones(h)
        case .accessibility(var a): a.seq = seq; a.sub = sub; self = .accessibility(a)
        case .idle(var i): i.seq = seq; self = .idle(i)
        case .wake(var w): w.seq = seq; self = .wake(w)
        case .hitTest, .systemGesture: break
        }
    }

    /// Whether it is only about views in `privateViews` (every touch that changed in a frame in
    /// one of them — a touch resting elsewhere does not make the frame public, or a public number
    /// would be taken each time a private key went down; a control's, gesture's or scroll's
    /// view one of them). Device messages and hit tests are not (a hit test has no `seq`).
    func isPrivate(_ privateViews: Set<ViewIndex>) -> Bool {
        switch self {
        case .device, .hitTest, .output, .headphones, .idle, .wake, .systemGesture: return false
        case .frame(let f):
            var changed = false
            for t in f.touches where t.phase != .stationary {
                guard let w = t.window, privateViews.contains(w) else { return false }
                changed = true
            }
            return changed
        case .control(let c): return privateViews.contains(c.control)
        case .gesture(let g): return privateViews.contains(g.view)
        case .scroll(let s): return privateViews.contains(s.view)
        case .accessibility(let a): return a.isRestrictedSpeech || (a.window.map(privateViews.contains) ?? false)
        }
    }

    public var type: MessageType {
        switch self {
        case .device: return .device
        case .frame: return .frame
        case .control: return .control
        case .hitTest: return .hitTest
        case .gesture: return .gesture
        case .scroll: return .scroll
        case .output: return .output
        case .headphones: return .headphones
        case .accessibility(let a): return a.type
        case .idle: return .idle
        case .wake: return .wake
        case .systemGesture: return .systemGesture
        }
    }
}

/// What the engine publishes, by the `type` its messages carry (and subscribers name).
public enum MessageType: String, CaseIterable, Sendable {
    case frame, control, gesture, scroll, device, hitTest, output, headphones
    case accessibilityFocus, accessibility, speech
    case idle, wake, systemGesture

    /// What a subscription takes when it names no types: all but hit-test traces.
    public static let subscribedByDefault: Set<MessageType> = Set(allCases).subtracting([.hitTest])
}

/// The touches down and the devices attached, as a client that joins late first sees them.
/// The clock of a stream's times: CLOCK_MONOTONIC (live input, a paced replay: as the kernel
/// stamps events) or a capture's own (a replay as fast as possible).
public enum StreamClock: String, Sendable {
    case capture, monotonic

    /// As a reader is told (`touchd subscribe --pretty`).
    public var name: String {
        switch self {
        case .monotonic: return "CLOCK_MONOTONIC"
        case .capture: return "the capture's clock"
        }
    }
}

public struct Snapshot: Sendable {
    /// Touches down (phase stationary), each with its device's id.
    public var touches: [(record: TouchRecord, device: String)]
    public var devices: [DeviceDescriptor]
    public var time: Int64
    public var seq: Int
    public var liveTouches: Int
    /// The clock of `time` and of every message's time.
    public var clock = StreamClock.capture
    /// The outputs with headphones plugged in (Engine+Headphones.swift).
    public var headphones: [String] = []

    public init(touches: [(record: TouchRecord, device: String)], devices: [DeviceDescriptor], time: Int64, seq: Int, liveTouches: Int) {
        self.touches = touches; self.devices = devices; self.time = time; self.seq = seq; self.liveTouches = liveTouches
    }
}

/// What the engine hands its caller, in order: messages, and the scene they refer to when it
/// changes (a reload), so that every message is encoded with the ids of its own scene.
extension Message {
    /// A frame in which every touch only moved or stood still.
    public var isMoveOnlyFrame: Bool {
        guard case .frame(let f) = self else { return false }
        return f.touches.allSatisfy { $0.phase == .moved || $0.phase == .stationary }
    }

    /// The timestamp of the input a frame or a control event reports (0 for the others).
    public var inputTime: Int64 {
        switch self {
        case .frame(let f): return f.time
        case .control(let c): return c.time
        default: return 0
        }
    }
}

extension EngineOutput {
    /// A message for one client alone (a calibration's, a notice about its windows).
    public var isForOneClient: Bool {
        switch self {
        case .calibration, .notice: return true
        default: return false
        }
    }
}

public enum EngineOutput: Sendable {
    case message(Message)
    case sceneChanged(Scene)
    /// A hardware frame's contacts in screen points, of a device whose contacts are exported
    /// (`devices[].uinput`: the re-export reads them from the same stream as the messages).
    case contacts(ScreenContactFrame)
    /// The answer to a client's scene request, in order with what the request published (its
    /// cancellations, its scene change): `tag` is the loop's, to find who asked.
    case reply(tag: Int, SceneReply)
    /// A calibration's message for the client that asked for it (`client`: the server's id),
    /// not numbered and seen by no other client (Engine+Calibration.swift).
    case calibration(client: Int, CalibrationMessage)
    /// A message for one client about its own windows (WindowNotice), seen by no other.
    case notice(client: Int, WindowNotice)
    /// Contacts a session swallowed (a waking touch, and the fingers down with it), in screen
    /// points: no message tells of them; `render` draws them.
    case swallowed(ScreenContactFrame)
}
