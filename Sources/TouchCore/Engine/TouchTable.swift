/// Every touch the engine follows, from its finger's touch-down until nobody will hear of it
/// again, and the tap counter (UITouch.tapCount).

/// Where a touch stands for the views (as opposed to the finger): recognizers can hold its
/// `began` (delaysTouchesBegan, delaysContentTouches) or `ended` (delaysTouchesEnded), or take
/// it away (cancelsTouchesInView).
enum ViewState: Equatable {
    case pending      // began not delivered yet
    case active       // delivered, finger down (or moving)
    case endHeld      // finger up, ended not delivered yet
    case gone         // delivered its end (or never will be delivered)
}

struct LiveTouch {
    var id: Int
    var device: DeviceIndex
    var slot: Int
    /// nil when the touch hit nothing (or its view went away in a reload).
    var window: ViewIndex?
    var view: ViewIndex?
    /// The finger's phase in the current step (began, moved, ended, cancelled, stationary).
    var phase: Phase
    var location: Point       // window coordinates (screen when no window)
    var previous: Point
    var start: Point
    var tapCount: Int
    var pressure: Double?
    var major: Double?
    var tool: Tool
    var reason: CancelReason?
    var ignored: IgnoreReason?
    var windowOrigin: Point
    var beganAt: Int64
    /// When the finger last changed (the touch's timestamp).
    var changedAt: Int64 = 0
    /// The finger lifted (or the contact was cancelled) in an earlier step.
    var fingerDone = false
    var viewState = ViewState.pending
    /// Recognizers that see this touch (hit view first, then its ancestors).
    var recognizers: [RecognizerIndex] = []
    /// A recognizer with cancelsTouchesInView recognized with this touch.
    var taken = false
    /// The client whose private window it landed in (kept when the window goes while the
    /// finger stays down: it is still that window's business, not others').
    var privateOwner: Int?

    /// Delivered to no view: it is in the event with the finger's own phase.
    var undelivered: Bool { view == nil || ignored != nil }

    /// Its finger is down and it is not over for anyone.
    var isDown: Bool { !fingerDone && viewState != .gone && phase != .ended && phase != .cancelled }

    /// The views (or, undelivered, the subscribers) know it and have not seen its end.
    var isVisible: Bool {
        viewState == .active || viewState == .endHeld || (undelivered && viewState != .gone && !fingerDone)
    }
}

/// UITouch.tapCount: consecutive taps at one place count up — at most `interval` from the end
/// of one tap to the start of the next, at most `distance` apart, on the same view. Only the
/// latest tap is remembered: a tap anywhere else ends the sequence.
struct TapCounter {
    struct Tap {
        var view: ViewIndex
        var location: Point
        var time: Int64
        var count: Int
    }
    private(set) var last: Tap?

    mutating func count(view: ViewIndex?, location: Point, time: Int64, interval: Int64, distance: Double) -> Int {
        if let l = last, time - l.time > interval { last = nil }
        guard let view, let l = last, l.view == view, l.location.distance(to: location) <= distance else { return 1 }
        return l.count + 1
    }

    /// A tap (a still lift) ended: it is the latest now.
    mutating func record(view: ViewIndex, location: Point, time: Int64, count: Int) {
        last = Tap(view: view, location: location, time: time, count: count)
    }

    /// A touch that is not a tap (it moved, or hit no view) also ends the sequence.
    mutating func interrupt() { last = nil }

    mutating func reset() { last = nil }
}

struct TouchTable {
    var touches: [LiveTouch] = []
    var nextID = 1
    var taps = TapCounter()

    var count: Int { touches.count }
    var indices: Range<Int> { touches.indices }
    // Yielded in place (no copy of the whole touch per access).
    subscript(i: Int) -> LiveTouch {
        _read { yield touches[i] }
        _modify { yield &touches[i] }
    }

    mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    mutating func append(_ t: LiveTouch) { touches.append(t) }

    /// The touch a device's slot is reporting, if it is still down.
    func index(device d: DeviceIndex, slot: Int) -> Int? {
        // Fields read in place (a closure over the elements copies each whole touch).
        for k in touches.indices where touches[k].device == d && touches[k].slot == slot {
            if !touches[k].fingerDone && touches[k].phase != .ended && touches[k].phase != .cancelled { return k }
        }
        return nil
    }

    /// Devices whose views may have something new in this step, in the order of their first
    /// touch: one with a touch whose finger changed, or whose view state a recognizer may move
    /// (its began or end held, or taken). Any other device's views would see only stationary
    /// touches, so it gets no frame and needs no look. Two passes over the touches, nothing
    /// copied, whatever the number of devices (a frame walked every device's touches: 1,000
    /// devices in one capture took minutes). `mark` is scratch, left all false.
    func devicesToDeliver(into out: inout [DeviceIndex], mark: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        for k in touches.indices {
            let d = touches[k].device.rawValue
            if d >= mark.count { mark += [UInt8](repeating: 0, count: d + 1 - mark.count) }
            let state = touches[k].viewState
            if touches[k].phase != .stationary || state == .pending || state == .endHeld || (state == .active && touches[k].taken) {
                mark[d] = 1
            }
        }
        for k in touches.indices {
            let d = touches[k].device.rawValue
            if mark[d] == 1 { out.append(touches[k].device) }
            mark[d] = 0
        }
    }

    /// A contact's move, lift or cancellation, for the touch its slot is reporting (none: its
    /// view went away in a reload; it is ignored until it lifts). A mutating method of the table
    /// on purpose: looked up from the engine and then written, the table was retained across the
    /// lookup and the write copied every touch — per frame, quadratic over a capture where many
    /// devices hold touches.
    mutating func apply(_ ch: ContactChange, device d: DeviceIndex, screen: Point, mapping: DeviceMapping, time: Int64) {
        guard let i = index(device: d, slot: ch.slot) else { return }
        touches[i].location = screen - touches[i].windowOrigin
        touches[i].changedAt = time
        if mapping.hasPressure { touches[i].pressure = mapping.pressure(ch.sample.pressure) }
        if mapping.hasMajor { touches[i].major = mapping.major(ch.sample.major) }
        touches[i].tool = Tool(mtTool: ch.sample.tool)
        switch ch.kind {
        case .moved:
            touches[i].phase = .moved
        case .ended:
            touches[i].phase = .ended
        case .cancelled(let r):
            touches[i].phase = .cancelled
            touches[i].reason = r
            if r == .palm { touches[i].tool = .palm }
        case .began:
            // A landing finger is a new touch (Engine.began), never a change of one: were it
            // one, its location would move without a phase, and finishStep would leave its
            // `previous` behind.
            assertionFailure("a began change reached TouchTable.apply")
        }
    }

    func hasChanges(on d: DeviceIndex) -> Bool {
        for k in touches.indices where touches[k].device == d && touches[k].phase != .stationary { return true }
        return false
    }

    /// End of a step: fingers that lifted are marked (a short, still lift is a tap for the
    /// counter), touches nobody will hear of again are dropped, the others become stationary.
    /// Every step visits every touch, so the visit reads fields in place (a copy of each whole
    /// touch, and an array shift per dropped one, made this most of a step's time with many
    /// devices holding touches) and drops in one pass that keeps the order.
    mutating func finishStep(time: Int64, tapDistance: Double) {
        var kept = 0
        for i in touches.indices {
            let phase = touches[i].phase
            if phase == .ended || phase == .cancelled {
                let done = touches[i].fingerDone
                if phase == .ended && !done, let view = touches[i].view, touches[i].location.distance(to: touches[i].start) <= tapDistance {
                    taps.record(view: view, location: touches[i].location, time: time, count: touches[i].tapCount)
                } else if !done {
                    taps.interrupt()
                }
                touches[i].fingerDone = true
            }
            if touches[i].fingerDone && (touches[i].viewState == .gone || touches[i].undelivered) { continue }
            // A stationary touch has not moved since the last step (a window's move shifts its
            // location and previous together): nothing to write.
            if phase != .stationary {
                touches[i].phase = .stationary
                touches[i].previous = touches[i].location
            }
            if kept != i { touches.swapAt(kept, i) }
            kept += 1
        }
        if kept < touches.count { touches.removeLast(touches.count - kept) }
    }
}
