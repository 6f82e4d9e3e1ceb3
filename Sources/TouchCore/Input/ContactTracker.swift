/// Per-device contact tracking, libinput's model: each slot accumulates the events of one
/// hardware frame; nothing is emitted until SYN_REPORT, then one frame of contact changes.
/// Protocol B and single-touch devices are fed directly; protocol A devices are converted to B
/// by libmtdev (TouchInput) before they reach this type.

public enum CancelReason: String, Sendable, Equatable {
    case deviceRemoved = "device-removed"
    case resync
    case palm
    case gesture
    case viewRemoved = "view-removed"
    case windowRemoved = "window-removed"
    case clientGone = "client-gone"
    /// Its output turned (a client's `output` request): the finger means another place now.
    case outputChanged = "output-changed"
    /// Its device is being calibrated (a client's `calibrate` request): its contacts are the
    /// calibration's until it ends.
    case calibrating
    /// The output's screen reader turned on or off: its touches are its gestures, or no longer.
    case screenReader = "screen-reader"
    case shutdown
}

/// A snapshot of one contact's axes, in device units.
public struct ContactSample: Sendable, Equatable {
    public var x: Int32 = 0
    public var y: Int32 = 0
    public var pressure: Int32 = 0
    public var major: Int32 = 0
    public var tool: Int32 = MTTool.finger

    public init(x: Int32 = 0, y: Int32 = 0, pressure: Int32 = 0, major: Int32 = 0, tool: Int32 = MTTool.finger) {
        self.x = x
        self.y = y
        self.pressure = pressure
        self.major = major
        self.tool = tool
    }
}

public enum ContactChangeKind: Sendable, Equatable {
    case began
    case moved
    case ended
    case cancelled(CancelReason)
}

/// One contact's change in one frame. `slot` identifies the contact within its device until it
/// ends; daemon touch ids are assigned by the engine, never taken from the kernel.
public struct ContactChange: Sendable, Equatable {
    public var slot: Int
    public var kind: ContactChangeKind
    public var sample: ContactSample

    public init(slot: Int, kind: ContactChangeKind, sample: ContactSample) {
        self.slot = slot
        self.kind = kind
        self.sample = sample
    }
}

/// Input the tracker refused to trust. Logged by the caller; never fatal.
public enum TrackerIssue: Sendable, Equatable, CustomStringConvertible {
    case slotOutOfRange(slot: Int32, slots: Int, time: Int64)
    case downOnLiveSlot(slot: Int, oldID: Int32, newID: Int32, time: Int64)
    case upWithoutDown(slot: Int, time: Int64)
    case eventsWithoutSlot(time: Int64)
    case droppedEvents(time: Int64)
    case zeroLengthContact(slot: Int, time: Int64)
    case valueOutOfRange(code: UInt16, value: Int32, time: Int64)

    public var description: String {
        switch self {
        case let .slotOutOfRange(slot, slots, time):
            return "kernel bug at \(formatTime(time)): ABS_MT_SLOT \(slot) is outside 0…\(slots - 1); events ignored until a valid slot"
        case let .downOnLiveSlot(slot, oldID, newID, time):
            return "kernel bug at \(formatTime(time)): tracking id \(newID) on slot \(slot) while \(oldID) is still down; the old contact is cancelled (resync)"
        case let .upWithoutDown(slot, time):
            return "kernel bug at \(formatTime(time)): contact up on slot \(slot) which has no contact down; ignored"
        case let .eventsWithoutSlot(time):
            return "at \(formatTime(time)): multitouch events while no valid slot is selected; ignored"
        case let .droppedEvents(time):
            return "SYN_DROPPED at \(formatTime(time)): events were lost; contacts are resynchronised"
        case let .zeroLengthContact(slot, time):
            return "at \(formatTime(time)): contact on slot \(slot) began and ended in one frame; not delivered"
        case let .valueOutOfRange(code, value, time):
            return "kernel bug at \(formatTime(time)): axis 0x\(String(code, radix: 16)) value \(value) is outside its advertised range; clamped"
        }
    }
}

public struct ContactTracker: Sendable {
    /// One slot: its contact's life (`SlotLife`, the state machine; its transitions are the
    /// only way it changes) and its axes, which are not state but the kernel's slot values
    /// (they outlive a contact, and every transition reads them; see SlotLife).
    struct Slot: Sendable {
        /// Written by `live(_:)` alone (`private(set)`: the compiler refuses any other writer).
        private(set) var life = SlotLife.empty
        var sample = ContactSample()

        /// The slot's transition: its new life, and what to do.
        mutating func live(_ input: SlotLife.Input) -> SlotLife.Action {
            let (next, action) = SlotLife.next(life, input, sample: sample)
            life = next
            return action
        }
    }

    public let touchProtocol: TouchProtocol
    public let slotCount: Int
    /// Axis codes read as x / y (ABS_MT_POSITION_* for multitouch; ABS_X / ABS_Y or a
    /// configured remap for single-touch devices).
    public let xCode: UInt16
    public let yCode: UInt16
    let pressureCode: UInt16
    let majorCode: UInt16

    var slots: [Slot]
    var currentSlot: Int
    var dropping = false
    /// Replaying libevdev's resync events after SYN_DROPPED: contacts that end now vanished
    /// while events were lost, so they are cancelled (resync) rather than ended.
    public var resyncing = false
    public private(set) var issues: [TrackerIssue] = []
    /// Issues are counted always and kept up to this many, so hostile input cannot grow memory.
    public static let issueLimit = 64
    public private(set) var issueCount = 0

    public init(device: DeviceInfo, protocol proto: TouchProtocol, slotCount: Int? = nil,
                xCode: UInt16? = nil, yCode: UInt16? = nil) {
        touchProtocol = proto
        let count = proto == .single ? 1 : min(max(slotCount ?? device.slotCount, 1), 256)
        self.slotCount = count
        slots = Array(repeating: Slot(), count: count)
        switch proto {
        case .single:
            self.xCode = xCode ?? ABS.X
            self.yCode = yCode ?? ABS.Y
            pressureCode = ABS.PRESSURE
            majorCode = 0xffff
        case .a, .b:
            self.xCode = xCode ?? ABS.MT_POSITION_X
            self.yCode = yCode ?? ABS.MT_POSITION_Y
            pressureCode = ABS.MT_PRESSURE
            majorCode = ABS.MT_TOUCH_MAJOR
        }
        if let x = device.abs[self.xCode] { slots[0].sample.x = x.value }
        if let y = device.abs[self.yCode] { slots[0].sample.y = y.value }
        currentSlot = 0
        if proto != .single, let slot = device.abs[ABS.MT_SLOT], slot.value >= 0, Int(slot.value) < count {
            currentSlot = Int(slot.value)
        }
    }

    mutating func report(_ issue: TrackerIssue) {
        issueCount += 1
        if issues.count < ContactTracker.issueLimit { issues.append(issue) }
    }

    public mutating func drainIssues() -> [TrackerIssue] {
        defer { issues.removeAll(keepingCapacity: true) }
        return issues
    }

    /// Live slots (contacts down and delivered), for resync and removal.
    public var liveSlots: [Int] {
        slots.indices.filter { slots[$0].life.reported != nil }
    }

    /// The contacts down and delivered, each with the sample last reported.
    var delivered: [(slot: Int, sample: ContactSample)] {
        slots.indices.compactMap { i in slots[i].life.reported.map { (slot: i, sample: $0) } }
    }

    /// Slot `i`'s transition: its new life, its issue reported (at `time`), its changes
    /// appended to `changes`.
    mutating func step(_ i: Int, _ input: SlotLife.Input, time: Int64 = 0, into changes: inout [ContactChange]) {
        let action = slots[i].live(input)
        if let issue = action.issue {
            switch issue {
            case let .downOnLiveSlot(oldID, newID): report(.downOnLiveSlot(slot: i, oldID: oldID, newID: newID, time: time))
            case .upWithoutDown: report(.upWithoutDown(slot: i, time: time))
            case .zeroLengthContact: report(.zeroLengthContact(slot: i, time: time))
            }
        }
        guard let first = action.first else { return }
        changes.append(ContactChange(slot: i, kind: first.kind, sample: first.sample))
        if let e = action.second { changes.append(ContactChange(slot: i, kind: e.kind, sample: e.sample)) }
        if let e = action.third { changes.append(ContactChange(slot: i, kind: e.kind, sample: e.sample)) }
    }

    /// Feeds one event. On SYN_REPORT appends the frame's changes to `changes` and returns true.
    public mutating func feed(_ event: InputEvent, into changes: inout [ContactChange]) -> Bool {
        if event.type == EV.SYN {
            if event.code == SYN.REPORT {
                if dropping {
                    dropping = false
                    for i in slots.indices { step(i, .discard, into: &changes) }
                    return false
                }
                for i in slots.indices { step(i, .report(resyncing: resyncing), into: &changes) }
                return true
            }
            if event.code == SYN.DROPPED {
                report(.droppedEvents(time: event.time))
                dropping = true
            }
            return false
        }
        if dropping { return false }
        if touchProtocol == .single {
            feedSingle(event, into: &changes)
        } else {
            feedMT(event, into: &changes)
        }
        return false
    }

    mutating func feedMT(_ e: InputEvent, into changes: inout [ContactChange]) {
        guard e.type == EV.ABS else { return }
        let code = e.code
        if code == ABS.MT_SLOT {
            if e.value < 0 || Int(e.value) >= slotCount {
                report(.slotOutOfRange(slot: e.value, slots: slotCount, time: e.time))
                currentSlot = -1
            } else {
                currentSlot = Int(e.value)
            }
            return
        }
        guard code >= ABS.MT_TOUCH_MAJOR && code <= ABS.MT_DISTANCE else { return }
        guard currentSlot >= 0 else {
            report(.eventsWithoutSlot(time: e.time))
            return
        }
        let s = currentSlot
        switch code {
        case ABS.MT_TRACKING_ID: step(s, .trackingID(e.value), time: e.time, into: &changes); return
        case xCode: slots[s].sample.x = e.value
        case yCode: slots[s].sample.y = e.value
        case pressureCode: slots[s].sample.pressure = e.value
        case majorCode: slots[s].sample.major = e.value
        case ABS.MT_TOOL_TYPE: slots[s].sample.tool = e.value
        default: return
        }
        step(s, .axis, into: &changes)
    }

    mutating func feedSingle(_ e: InputEvent, into changes: inout [ContactChange]) {
        if e.type == EV.ABS {
            switch e.code {
            case xCode: slots[0].sample.x = e.value
            case yCode: slots[0].sample.y = e.value
            case pressureCode: slots[0].sample.pressure = e.value
            default: return
            }
            step(0, .axis, into: &changes)
        } else if e.type == EV.KEY && e.code == BTN.TOUCH {
            step(0, .touch(down: e.value != 0), time: e.time, into: &changes)
        }
    }

    /// Contacts already down when a device is opened: tracked, never delivered, until they lift
    /// (their beginning was not seen, so nobody could be told where they began).
    public mutating func ignoreContactsDown(_ down: [(slot: Int, trackingID: Int32)], sample: (Int) -> ContactSample) {
        var none: [ContactChange] = []
        for (slot, id) in down where slot >= 0 && slot < slots.count {
            step(slot, .downAtOpen(id: id), into: &none)
            slots[slot].sample = sample(slot)
        }
    }

    /// Ends every live contact with `reason` (device removed, shutdown): appends the cancels.
    /// A slot whose contact is cancelled forgets its axes too (it is as new).
    public mutating func cancelAll(_ reason: CancelReason, into changes: inout [ContactChange]) {
        for i in slots.indices where slots[i].life.contact != nil {
            step(i, .cancelAll(reason), into: &changes)
            slots[i].sample = ContactSample()
        }
    }

    /// Every live contact goes on being tracked but is never delivered again, until it lifts
    /// (as a palm is): the ones delivered so far are cancelled with `reason` (appended). A
    /// calibration takes a device's contacts so (Engine+Calibration.swift).
    public mutating func suppressLive(_ reason: CancelReason, into changes: inout [ContactChange]) {
        for i in slots.indices { step(i, .suppress(reason), into: &changes) }
    }
}
