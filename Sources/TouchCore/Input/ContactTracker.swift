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
    struct Slot: Sendable {
        var trackingID: Int32 = -1
        var live = false          // delivered as began (or begun earlier) and not yet ended
        var suppressed = false    // a palm: tracked until it lifts, never delivered
        var sample = ContactSample()
        var dirty = false
        var begin = false
        var end = false
        var cancelOld = false     // a new tracking id replaced a live one without an up
        var oldSample = ContactSample()
        /// The sample last reported (began or moved): a frame moves the contact only when its
        /// location or its pressure differs from it (UIKit's touchesMoved is about location
        /// and force; a contact that only changes size has not moved).
        var reported = ContactSample()
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
        slots.indices.filter { slots[$0].live && !slots[$0].suppressed }
    }

    /// Feeds one event. On SYN_REPORT appends the frame's changes to `changes` and returns true.
    
    public mutating func feed(_ event: InputEvent, into changes: inout [ContactChange]) -> Bool {
        if event.type == EV.SYN {
            if event.code == SYN.REPORT {
                if dropping {
                    dropping = false
                    discardPending()
                    return false
                }
                flush(into: &changes)
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
            feedSingle(event)
        } else {
            feedMT(event)
        }
        return false
    }

    
    mutating func feedMT(_ e: InputEvent) {
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
        case ABS.MT_TRACKING_ID:
            if e.value >= 0 {
                let active = (slots[s].live || slots[s].begin) && !slots[s].end
                if active {
                    if e.value == slots[s].trackingID { return }
                    report(.downOnLiveSlot(slot: s, oldID: slots[s].trackingID, newID: e.value, time: e.time))
                    if slots[s].begin && !slots[s].live {
                        // The unflushed contact never existed for anyone: just restart it.
                        slots[s].trackingID = e.value
                        return
                    }
                    slots[s].cancelOld = true
                    slots[s].oldSample = slots[s].sample
                }
                slots[s].trackingID = e.value
                slots[s].begin = true
            } else {
                if slots[s].begin && (!slots[s].live || slots[s].end) && !slots[s].cancelOld {
                    // Began in this frame and lifted in it too (perhaps after another lift).
                    report(.zeroLengthContact(slot: s, time: e.time))
                    slots[s].begin = false
                    slots[s].trackingID = -1
                    return
                }
                if slots[s].begin && slots[s].cancelOld {
                    // old contact replaced, then the replacement lifted in the same frame
                    slots[s].begin = false
                    slots[s].trackingID = -1
                    return
                }
                if !slots[s].live || slots[s].end {
                    report(.upWithoutDown(slot: s, time: e.time))
                    return
                }
                slots[s].end = true
                slots[s].trackingID = -1
            }
        case xCode: slots[s].sample.x = e.value; slots[s].dirty = true
        case yCode: slots[s].sample.y = e.value; slots[s].dirty = true
        case pressureCode: slots[s].sample.pressure = e.value; slots[s].dirty = true
        case majorCode: slots[s].sample.major = e.value; slots[s].dirty = true
        case ABS.MT_TOOL_TYPE: slots[s].sample.tool = e.value; slots[s].dirty = true
        default: break
        }
    }

    
    mutating func feedSingle(_ e: InputEvent) {
        if e.type == EV.ABS {
            switch e.code {
            case xCode: slots[0].sample.x = e.value; slots[0].dirty = true
            case yCode: slots[0].sample.y = e.value; slots[0].dirty = true
            case pressureCode: slots[0].sample.pressure = e.value; slots[0].dirty = true
            default: break
            }
        } else if e.type == EV.KEY && e.code == BTN.TOUCH {
            if e.value != 0 {
                if slots[0].live && !slots[0].end { return }  // repeated down: nothing new
                slots[0].begin = true
            } else {
                if slots[0].begin && (!slots[0].live || slots[0].end) {
                    report(.zeroLengthContact(slot: 0, time: e.time))
                    slots[0].begin = false
                    return
                }
                if !slots[0].live {
                    report(.upWithoutDown(slot: 0, time: e.time))
                    return
                }
                slots[0].end = true
            }
        }
    }

    
    mutating func flush(into changes: inout [ContactChange]) {
        for i in slots.indices {
            let s = slots[i]
            if !(s.dirty || s.begin || s.end || s.cancelOld) { continue }
            if s.cancelOld {
                if !slots[i].suppressed {
                    changes.append(ContactChange(slot: i, kind: .cancelled(.resync), sample: s.oldSample))
                }
                slots[i].live = false
                slots[i].suppressed = false
            }
            if s.end {
                if !slots[i].suppressed {
                    changes.append(ContactChange(slot: i, kind: resyncing ? .cancelled(.resync) : .ended, sample: s.sample))
                }
                slots[i].live = false
                slots[i].suppressed = false
            }
            if s.begin {
                slots[i].live = true
                if s.sample.tool == MTTool.palm {
                    slots[i].suppressed = true   // starts as a palm: never delivered
                } else {
                    slots[i].suppressed = false
                    slots[i].reported = s.sample
                    changes.append(ContactChange(slot: i, kind: .began, sample: s.sample))
                }
            } else if slots[i].live && !slots[i].suppressed && s.dirty && !s.end {
                if s.sample.tool == MTTool.palm {
                    changes.append(ContactChange(slot: i, kind: .cancelled(.palm), sample: s.sample))
                    slots[i].suppressed = true
                } else if s.sample.x != s.reported.x || s.sample.y != s.reported.y || s.sample.pressure != s.reported.pressure {
                    slots[i].reported = s.sample
                    changes.append(ContactChange(slot: i, kind: .moved, sample: s.sample))
                }
            }
            slots[i].dirty = false
            slots[i].begin = false
            slots[i].end = false
            slots[i].cancelOld = false
        }
    }

    mutating func discardPending() {
        for i in slots.indices {
            slots[i].dirty = false
            slots[i].begin = false
            slots[i].end = false
            slots[i].cancelOld = false
            if !slots[i].live { slots[i].trackingID = -1 }
        }
    }

    /// Contacts already down when a device is opened: tracked, never delivered, until they lift
    /// (their beginning was not seen, so nobody could be told where they began).
    public mutating func ignoreContactsDown(_ down: [(slot: Int, trackingID: Int32)], sample: (Int) -> ContactSample) {
        for (slot, id) in down where slot >= 0 && slot < slots.count {
            slots[slot].live = true
            slots[slot].suppressed = true
            slots[slot].trackingID = id
            slots[slot].sample = sample(slot)
        }
    }

    /// Ends every live contact with `reason` (device removed, shutdown): appends the cancels.
    public mutating func cancelAll(_ reason: CancelReason, into changes: inout [ContactChange]) {
        for i in slots.indices where slots[i].live {
            if !slots[i].suppressed {
                changes.append(ContactChange(slot: i, kind: .cancelled(reason), sample: slots[i].sample))
            }
            slots[i] = Slot()
        }
    }

    /// Every live contact goes on being tracked but is never delivered again, until it lifts
    /// (as a palm is): the ones delivered so far are cancelled with `reason` (appended). A
    /// calibration takes a device's contacts so (Engine+Calibration.swift).
    public mutating func suppressLive(_ reason: CancelReason, into changes: inout [ContactChange]) {
        for i in slots.indices where slots[i].live && !slots[i].suppressed {
            changes.append(ContactChange(slot: i, kind: .cancelled(reason), sample: slots[i].sample))
            slots[i].suppressed = true
        }
    }
}
