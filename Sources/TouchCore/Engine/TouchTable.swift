/// Every touch the engine follows, from its finger's touch-down until nobody will hear of it
/// again, and the tap counter (UITouch.tapCount).

/// Where a touch stands for the views (as opposed to the finger): TouchLife.swift.
typealias ViewState = TouchLife

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
    /// Where it stands for the views; written only by `live(_:)`.
    private(set) var viewState = ViewState.pending
    /// Recognizers that see this touch (hit view first, then its ancestors).
    var recognizers: [RecognizerIndex] = []
    /// A recognizer with cancelsTouchesInView recognized with this touch.
    var taken = false
    /// The client whose private window it landed in (kept when the window goes while the
    /// finger stays down: it is still that window's business, not others').
    var privateOwner: Int?
    /// The screen reader made it (an activation's tap): its messages say so.
    var synthesized = false

    /// The touch's life moves on (TouchLife.next, the one transition); what to do.
    mutating func live(_ input: TouchLife.Input) -> TouchLife.Action {
        let (state, action) = TouchLife.next(viewState, input)
        viewState = state
        switch action {
        case .cancelByGesture: reason = .gesture
        case .cancelHeldEnd: reason = .deviceRemoved
        default: break
        }
        return action
    }

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
    /// The latest tap of each domain: the public windows' (nil), and each private window
    /// owner's own, so that taps in a private window never change a public tap count (nor the
    /// other way round: issue 40, item 5).
    private var publicLast: Tap?
    private var privateLasts: [Int: Tap] = [:]

    /// The latest tap of a domain: the public windows' (nil: a stored value, no hashing on the
    /// common path) or a private owner's.
    private subscript(domain domain: Int?) -> Tap? {
        get { domain.map { privateLasts[$0] } ?? publicLast }
        set { if let domain { privateLasts[domain] = newValue } else { publicLast = newValue } }
    }

    /// The latest tap of the public windows (or of `domain`'s private ones).
    func last(_ domain: Int? = nil) -> Tap? { self[domain: domain] }

    mutating func count(view: ViewIndex?, location: Point, time: Int64, interval: Int64, distance: Double, domain: Int? = nil) -> Int {
        if let l = self[domain: domain], time - l.time > interval { self[domain: domain] = nil }
        guard let view, let l = self[domain: domain], l.view == view, l.location.distance(to: location) <= distance else { return 1 }
        return l.count + 1
    }

    /// A tap (a still lift) ended: it is the latest of its domain now.
    mutating func record(view: ViewIndex, location: Point, time: Int64, count: Int, domain: Int? = nil) {
        self[domain: domain] = Tap(view: view, location: location, time: time, count: count)
    }

    /// A touch that is not a tap (it moved, or hit no view) also ends its domain's sequence.
    mutating func interrupt(domain: Int? = nil) { self[domain: domain] = nil }

    /// Every sequence whose latest tap was on a view that `ends` says ends.
    mutating func reset(where ends: (ViewIndex) -> Bool) {
        if let l = publicLast, ends(l.view) { publicLast = nil }
        for (k, l) in privateLasts where ends(l.view) { privateLasts[k] = nil }
    }

    mutating func reset() {
        publicLast = nil
        privateLasts.removeAll()
    }
}

/// The touches followed, in slots that keep their index for the touch's life (a dropped
/// touch's slot is reused), indexed so that a step costs what it changes, not what is down
/// (issue 28, item 8: with thousands of devices each holding a finger, every frame walked
/// every touch several times). Table order — what frames, snapshots and cancellations list —
/// is the order touches were appended (their creation, so their ids' order): `ordered` and
/// each device's `slots(of:)` keep it.
/// Every write goes through the subscript, which notes the touches a step must look at again
/// (`needsLook`): the delivery and the step's end visit those, not the whole table.
struct TouchTable {
    private var storage: [LiveTouch] = []
    private var inUse: [Bool] = []
    private var free: [Int] = []
    /// Live slots in id order, with dead ones (`inUse` false, or reused by a later touch out
    /// of order) compacted away once they are half of it.
    private var order: [Int] = []
    /// The append number of each slot's touch (its place in table order), and of each entry
    /// of `order` (an entry whose slot's number differs is dead).
    private var seq: [Int] = []
    private var orderSeq: [Int] = []
    private var appended = 0
    private var deadInOrder = 0
    /// Each device's live slots (by the device's raw index), in id order.
    private var byDevice: [[Int]] = []
    private var slotOfID: [Int: Int] = [:]
    /// Slots noted since the last step's end (each once: `noted`) that may need a look.
    private var attention: [Int] = []
    private var noted: [Bool] = []
    private(set) var count = 0
    var nextID = 1
    var taps = TapCounter()

    /// Whether a touch needs a look at the step's end or by the delivery: its finger changed,
    /// its began or end is held, a recognizer took it, or its finger is done (it is dropped).
    static func needsLook(_ t: LiveTouch) -> Bool {
        t.phase != .stationary || t.viewState == .pending || t.viewState == .endHeld || t.taken || t.fingerDone
    }

    // Yielded in place (no copy of the whole touch per access); a write notes the touch.
    subscript(i: Int) -> LiveTouch {
        _read { yield storage[i] }
        _modify {
            yield &storage[i]
            if !noted[i] && TouchTable.needsLook(storage[i]) { noted[i] = true; attention.append(i) }
        }
    }

    mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Ids of touches that begin in a private window: from their owner's own counter, in a range
    /// apart from the public one (`privateBase` + owner × `privateStride` + n), so the public ids —
    /// all that other clients and TUIO see — do not count private touches (a PIN's length was
    /// readable from the next public id: issue 40, item 5). Below 2^53 for owners under 2^29
    /// (exact in a JavaScript number).
    static let privateBase = 1 << 32
    static let privateStride = 1 << 24
    private var privateNext: [Int: Int] = [:]

    mutating func newPrivateID(owner: Int) -> Int {
        let n = privateNext[owner, default: 1]
        privateNext[owner] = n + 1 == TouchTable.privateStride ? 1 : n + 1
        return TouchTable.privateBase + (owner & (1 << 29 - 1)) * TouchTable.privateStride + n
    }

    mutating func append(_ t: LiveTouch) {
        let i: Int
        if let f = free.popLast() {
            i = f
            storage[i] = t
            inUse[i] = true
            seq[i] = appended
        } else {
            i = storage.count
            storage.append(t)
            inUse.append(true)
            noted.append(false)
            seq.append(appended)
        }
        count += 1
        slotOfID[t.id] = i
        order.append(i)
        orderSeq.append(appended)
        appended += 1
        let d = t.device.rawValue
        if d >= byDevice.count { byDevice += Array(repeating: [], count: d + 1 - byDevice.count) }
        byDevice[d].append(i)
        if !noted[i] && TouchTable.needsLook(t) { noted[i] = true; attention.append(i) }
    }

    /// Every live touch's slot, in table order (creation order).
    var ordered: [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        for (k, i) in order.enumerated() where inUse[i] && seq[i] == orderSeq[k] { out.append(i) }
        return out
    }

    /// Every live touch, in table order.
    var all: [LiveTouch] { ordered.map { storage[$0] } }

    /// A device's live slots, in table order.
    func slots(of d: DeviceIndex) -> [Int] { d.rawValue < byDevice.count ? byDevice[d.rawValue] : [] }

    /// The slot of the live touch with this id.
    func slot(ofID id: Int) -> Int? { slotOfID[id] }

    /// The live touches noted since the last step's end that still need a look, in no order.
    func forEachNeedingLook(_ body: (LiveTouch) -> Void) {
        for i in attention where inUse[i] && TouchTable.needsLook(storage[i]) { body(storage[i]) }
    }

    /// The touch a device's slot is reporting, if it is still down.
    func index(device d: DeviceIndex, slot: Int) -> Int? {
        for k in slots(of: d) where storage[k].slot == slot {
            if !storage[k].fingerDone && storage[k].phase != .ended && storage[k].phase != .cancelled { return k }
        }
        return nil
    }

    /// Devices whose views may have something new in this step, in the order of their first
    /// touch: one with a touch whose finger changed, or whose view state a recognizer may move
    /// (its began or end held, or taken). Any other device's views would see only stationary
    /// touches, so it gets no frame and needs no look. Only the touches noted this step are
    /// read. `mark` is scratch, left all false.
    func devicesToDeliver(into out: inout [DeviceIndex], mark: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        for i in attention where inUse[i] {
            let state = storage[i].viewState
            guard storage[i].phase != .stationary || state == .pending || state == .endHeld || (state == .active && storage[i].taken) else { continue }
            let d = storage[i].device.rawValue
            if d >= mark.count { mark += [UInt8](repeating: 0, count: d + 1 - mark.count) }
            if mark[d] == 0 { mark[d] = 1; out.append(storage[i].device) }
        }
        for d in out { mark[d.rawValue] = 0 }
        if out.count > 1 { out.sort { seq[byDevice[$0.rawValue][0]] < seq[byDevice[$1.rawValue][0]] } }
    }

    /// A contact's move, lift or cancellation, for the touch its slot is reporting (none: its
    /// view went away in a reload; it is ignored until it lifts).
    mutating func apply(_ ch: ContactChange, device d: DeviceIndex, screen: Point, mapping: DeviceMapping, time: Int64) {
        guard let i = index(device: d, slot: ch.slot) else { return }
        self[i].location = screen - storage[i].windowOrigin
        self[i].changedAt = time
        if mapping.hasPressure { self[i].pressure = mapping.pressure(ch.sample.pressure) }
        if mapping.hasMajor { self[i].major = mapping.major(ch.sample.major) }
        self[i].tool = Tool(mtTool: ch.sample.tool)
        switch ch.kind {
        case .moved:
            self[i].phase = .moved
        case .ended:
            self[i].phase = .ended
        case .cancelled(let r):
            self[i].phase = .cancelled
            self[i].reason = r
            if r == .palm { self[i].tool = .palm }
        case .began:
            // A landing finger is a new touch (Engine.began), never a change of one: were it
            // one, its location would move without a phase, and finishStep would leave its
            // `previous` behind.
            assertionFailure("a began change reached TouchTable.apply")
        }
    }

    func hasChanges(on d: DeviceIndex) -> Bool {
        for k in slots(of: d) where storage[k].phase != .stationary { return true }
        return false
    }

    /// End of a step: fingers that lifted are marked (a short, still lift is a tap for the
    /// counter), touches nobody will hear of again are dropped, the others become stationary.
    /// Only the touches noted this step are visited, in table order (the latest tap counts).
    mutating func finishStep(time: Int64, tapDistance: Double) {
        var visit = attention.filter { inUse[$0] }
        for i in attention { noted[i] = false }
        attention.removeAll(keepingCapacity: true)
        if visit.count > 1 { visit.sort { seq[$0] < seq[$1] } }
        var dropped = false
        for i in visit {
            let phase = storage[i].phase
            if phase == .ended || phase == .cancelled {
                let done = storage[i].fingerDone
                if phase == .ended && !done, let view = storage[i].view, storage[i].location.distance(to: storage[i].start) <= tapDistance {
                    taps.record(view: view, location: storage[i].location, time: time, count: storage[i].tapCount, domain: storage[i].privateOwner)
                } else if !done {
                    taps.interrupt(domain: storage[i].privateOwner)
                }
                storage[i].fingerDone = true
            }
            if storage[i].fingerDone && (storage[i].viewState == .gone || storage[i].undelivered) {
                drop(i)
                dropped = true
                continue
            }
            // A stationary touch has not moved since the last step (a window's move shifts its
            // location and previous together): nothing to write.
            if phase != .stationary {
                storage[i].phase = .stationary
                storage[i].previous = storage[i].location
            }
            if TouchTable.needsLook(storage[i]) { noted[i] = true; attention.append(i) }
        }
        if dropped && deadInOrder * 2 > order.count { compactOrder() }
    }

    private mutating func drop(_ i: Int) {
        let t = storage[i]
        inUse[i] = false
        free.append(i)
        count -= 1
        slotOfID[t.id] = nil
        deadInOrder += 1
        byDevice[t.device.rawValue].removeAll { $0 == i }
    }

    private mutating func compactOrder() {
        var o: [Int] = [], n: [Int] = []
        o.reserveCapacity(count)
        n.reserveCapacity(count)
        for (k, i) in order.enumerated() where inUse[i] && seq[i] == orderSeq[k] {
            o.append(i)
            n.append(orderSeq[k])
        }
        order = o
        orderSeq = n
        deadInOrder = 0
    }
}
