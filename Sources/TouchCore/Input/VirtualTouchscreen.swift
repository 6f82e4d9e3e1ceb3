/// Re-exporting a device's conditioned contacts as a virtual multitouch touchscreen
/// (`devices[].uinput`, docs/config.md): the pure part. `VirtualTouchscreen` turns frames of
/// contacts in screen points — the engine's, after the filter, the calibration and the
/// rotation: the points it publishes — into the evdev events (protocol B) to write for each
/// frame; `VirtualTouchscreenLayout` is the device's description. TouchInput makes the uinput
/// device and writes the events (Uinput.swift).

/// `devices[].uinput` as the config gives it.
public struct UinputSettings: Sendable, Equatable {
    /// The virtual touchscreen's name (1 to 79 bytes: UINPUT_MAX_NAME_SIZE is 80 with its NUL).
    public var name: String
    /// `"orientation": "natural"`: its points are the output's in its natural orientation, the
    /// output's rotation left to the compositor or toolkit that turns touches itself (weston,
    /// flutter-pi, LVGL); `"output"` (the default): as turned, the points the socket has.
    public var natural: Bool
    /// `"split": true`: a contact whose touch-down hit a view of a client's window is not
    /// re-exported — the page (or native client) gets it from touchd only, never twice — while
    /// one that hit no view (outside every window, a passthrough root) is (issue 42, item 3).
    public var split: Bool
    public static let maxNameBytes = 79
    public init(name: String, natural: Bool = false, split: Bool = false) { self.name = name; self.natural = natural; self.split = split }
}

/// One contact's change in one frame, in screen points: what the engine maps a contact change
/// to for a device that re-exports its contacts.
public struct ScreenContact: Sendable, Equatable {
    /// The engine's slot of the contact: its identity on its device until it ends.
    public var slot: Int
    public var kind: ContactChangeKind
    public var point: Point

    public init(slot: Int, kind: ContactChangeKind, point: Point) {
        self.slot = slot
        self.kind = kind
        self.point = point
    }
}

/// A hardware frame's screen contacts of one device (EngineOutput.contacts).
public struct ScreenContactFrame: Sendable, Equatable {
    public var device: DeviceIndex
    public var time: Int64
    public var contacts: [ScreenContact]

    public init(device: DeviceIndex, time: Int64, contacts: [ScreenContact]) {
        self.device = device
        self.time = time
        self.contacts = contacts
    }

    /// The frame in `output`'s natural orientation (`uinput` `"orientation": "natural"`): each
    /// point turned back by the output's rotation.
    public func natural(on output: Output) -> ScreenContactFrame {
        guard output.rotation != .r0 else { return self }
        var f = self
        for k in f.contacts.indices { f.contacts[k].point = output.naturalPoint(f.contacts[k].point) }
        return f
    }
}

/// An event to write to a virtual device (the kernel stamps its time).
public struct EvdevWrite: Sendable, Equatable, CustomStringConvertible {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }

    public var description: String { "\(type):\(code)=\(value)" }
}

/// What the virtual touchscreen says of itself: its name, its axes in screen points
/// (0…width and 0…height, rounded) with their resolution, and its number of slots.
public struct VirtualTouchscreenLayout: Sendable, Equatable {
    /// The phys string of every virtual touchscreen touchd makes: how it knows its own devices
    /// (it never attaches them, whatever the config's match rules say).
    public static let phys = "touchd-uinput"
    /// ABS_MT_TRACKING_ID's maximum: ids count up and wrap (the kernel's own limit).
    public static let maxTrackingID: Int32 = 0xffff

    public var name: String
    /// The maximum of ABS_X and ABS_MT_POSITION_X (the minimum is 0).
    public var width: Int32
    /// The maximum of ABS_Y and ABS_MT_POSITION_Y.
    public var height: Int32
    /// Units (points) per millimetre along x and y, 0 when the source does not say.
    public var resolutionX: Int32
    public var resolutionY: Int32
    public var slots: Int
    /// The output its contacts are in (nil: not said). Every output but the legacy `screen`
    /// whose id is a plain connector-like name tags the device (`phys`), so the shipped udev
    /// rule can give it `WL_OUTPUT` and compositors map it onto that display.
    public var output: String?

    public init(name: String, width: Int32, height: Int32, resolutionX: Int32 = 0, resolutionY: Int32 = 0, slots: Int, output: String? = nil) {
        self.name = name
        self.width = width
        self.height = height
        self.resolutionX = resolutionX
        self.resolutionY = resolutionY
        self.slots = slots
        self.output = output
    }

    /// The device's phys string: `touchd-uinput`, or `touchd-uinput/OUTPUT` when it is on a
    /// named output whose id is made of letters, digits and `-_.:` (what DRM connector names
    /// are: "HDMI-A-1", "DSI-1"); the udev rule copies OUTPUT into WL_OUTPUT.
    public var physString: String {
        guard let o = output, VirtualTouchscreenLayout.taggable(o) else { return VirtualTouchscreenLayout.phys }
        return VirtualTouchscreenLayout.phys + "/" + o
    }

    /// Whether an output's id can be carried in phys and through the udev rule's shell: not the
    /// legacy `screen`, 1 to 63 bytes of letters, digits and `-_.:`.
    public static func taggable(_ id: String) -> Bool {
        guard id != Output.screenID, !id.isEmpty, id.utf8.count < 64 else { return false }
        return id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x3A
        }
    }

    /// Whether a phys string is one of touchd's own virtual touchscreens'.
    public static func isTouchdPhys(_ p: String?) -> Bool {
        guard let p else { return false }
        return p == phys || p.hasPrefix(phys + "/")
    }

    /// The layout for a source device on an output as it is turned now: its contacts come in
    /// the output's rotated points, the device's own rotation followed by the output's (as the
    /// engine maps them, DeviceRegistry.mapping); `natural`, in the output's natural
    /// orientation (the device's rotation only), whatever the output's rotation.
    public init(name: String, source info: DeviceInfo, settings: DeviceSettings, output: Output, slots: Int, natural: Bool = false) {
        var turned = settings
        if !natural { turned.rotation = settings.rotation.then(output.rotation) }
        self.init(name: name, source: info, settings: turned, screen: natural ? output.size : output.pointSize, slots: slots)
        self.output = output.id
    }

    /// The layout for a source device: the screen's size in points; the resolution of the
    /// source axis that lands on each screen axis (after swapXY and rotation) in units per mm,
    /// scaled into points per mm; `slots` the source's (10 when it says none).
    public init(name: String, source info: DeviceInfo, settings: DeviceSettings, screen: Size, slots: Int) {
        let single = info.touchProtocol == .single
        let xCode = settings.xAxis ?? (single ? ABS.X : ABS.MT_POSITION_X)
        let yCode = settings.yAxis ?? (single ? ABS.Y : ABS.MT_POSITION_Y)
        let x = info.abs[xCode] ?? AbsInfo(minimum: 0, maximum: 0)
        let y = info.abs[yCode] ?? AbsInfo(minimum: 0, maximum: 0)
        let (px, py) = DeviceMapping(x: x, y: y, settings: settings, screen: screen).pointsPerUnit
        // Source x's points per mm, source y's; the screen's x axis is the source's y when turned.
        let rx = Double(x.resolution) * px, ry = Double(y.resolution) * py
        let turned = settings.swapXY != (settings.rotation == .r90 || settings.rotation == .r270)
        func units(_ r: Double) -> Int32 { r > 0 ? Int32(clamping: Int64(r.rounded())) : 0 }
        self.init(name: name, width: Int32(clamping: Int64(screen.width.rounded())), height: Int32(clamping: Int64(screen.height.rounded())),
                  resolutionX: units(turned ? ry : rx), resolutionY: units(turned ? rx : ry), slots: slots > 0 ? slots : 10)
    }
}

/// The evdev events of a virtual protocol B touchscreen, frame by frame. Each contact that
/// begins gets a free slot (its own engine slot when that is free) and a new tracking id; a
/// contact that ends or is cancelled (a palm, the device gone, a resync) gets tracking id -1.
/// BTN_TOUCH goes to 1 with the first contact and to 0 with the last; ABS_X/ABS_Y follow the
/// contact in the lowest slot. Positions are rounded points; an axis is written only when its
/// value changes (the kernel drops repeated values anyway). A contact that finds no free slot
/// (more contacts than slots: a lift held for the debounce while a new finger lands) waits and
/// begins as soon as one frees, at its latest position. Contacts never seen to begin (they were
/// down before this device was made) are left out.
public struct VirtualTouchscreen: Sendable {
    struct Down: Sendable {
        var key: Int
        var x: Int32
        var y: Int32
    }

    public let slots: Int
    /// Per virtual slot, the contact in it.
    var bySlot: [Down?]
    /// Contacts waiting for a slot, by engine slot, in the order they began.
    var waiting: [(key: Int, point: Point)] = []
    var nextID: Int32 = 0
    /// ABS_X / ABS_Y as last written.
    var pointer: (x: Int32, y: Int32)?

    public init(slots: Int) {
        self.slots = max(slots, 1)
        bySlot = Array(repeating: nil, count: self.slots)
    }

    /// Contacts down on the virtual device.
    public var contactsDown: Int { bySlot.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// The events of one frame, ending with SYN_REPORT; none when nothing changes.
    public mutating func frame(_ contacts: [ScreenContact]) -> [EvdevWrite] {
        let before = contactsDown
        var out: [EvdevWrite] = []
        for c in contacts {
            switch c.kind {
            case .began:
                // A slot that is still down is ended first (never two contacts on one key).
                if let s = slot(of: c.slot) { end(s, into: &out) }
                waiting.removeAll { $0.key == c.slot }
                begin(c.slot, at: c.point, into: &out)
            case .moved:
                if let w = waiting.firstIndex(where: { $0.key == c.slot }) { waiting[w].point = c.point; continue }
                guard let s = slot(of: c.slot), var d = bySlot[s] else { continue }
                let (x, y) = VirtualTouchscreen.rounded(c.point)
                guard x != d.x || y != d.y else { continue }
                out.append(EvdevWrite(EV.ABS, ABS.MT_SLOT, Int32(s)))
                if x != d.x { out.append(EvdevWrite(EV.ABS, ABS.MT_POSITION_X, x)) }
                if y != d.y { out.append(EvdevWrite(EV.ABS, ABS.MT_POSITION_Y, y)) }
                d.x = x
                d.y = y
                bySlot[s] = d
            case .ended, .cancelled:
                if let w = waiting.firstIndex(where: { $0.key == c.slot }) { waiting.remove(at: w); continue }
                guard let s = slot(of: c.slot) else { continue }
                end(s, into: &out)
            }
        }
        // Contacts that waited for a slot take those that freed, in the order they began.
        while !waiting.isEmpty, bySlot.contains(where: { $0 == nil }) {
            let w = waiting.removeFirst()
            begin(w.key, at: w.point, into: &out)
        }
        finish(before: before, into: &out)
        return out
    }

    /// Every contact down ends now (tracking id -1, BTN_TOUCH 0): before the device goes away
    /// or the daemon stops, so that no contact is left down. Nothing when none is down.
    public mutating func endAll() -> [EvdevWrite] {
        let before = contactsDown
        waiting.removeAll()
        var out: [EvdevWrite] = []
        for s in bySlot.indices where bySlot[s] != nil { end(s, into: &out) }
        finish(before: before, into: &out)
        return out
    }

    func slot(of key: Int) -> Int? { bySlot.firstIndex { $0?.key == key } }

    mutating func begin(_ key: Int, at point: Point, into out: inout [EvdevWrite]) {
        let s = key >= 0 && key < slots && bySlot[key] == nil ? key : bySlot.firstIndex { $0 == nil }
        guard let s else {
            waiting.append((key, point))
            return
        }
        let (x, y) = VirtualTouchscreen.rounded(point)
        bySlot[s] = Down(key: key, x: x, y: y)
        out.append(EvdevWrite(EV.ABS, ABS.MT_SLOT, Int32(s)))
        out.append(EvdevWrite(EV.ABS, ABS.MT_TRACKING_ID, nextID))
        out.append(EvdevWrite(EV.ABS, ABS.MT_POSITION_X, x))
        out.append(EvdevWrite(EV.ABS, ABS.MT_POSITION_Y, y))
        nextID = nextID == VirtualTouchscreenLayout.maxTrackingID ? 0 : nextID + 1
    }

    mutating func end(_ s: Int, into out: inout [EvdevWrite]) {
        bySlot[s] = nil
        out.append(EvdevWrite(EV.ABS, ABS.MT_SLOT, Int32(s)))
        out.append(EvdevWrite(EV.ABS, ABS.MT_TRACKING_ID, -1))
    }

    /// BTN_TOUCH when the first contact began or the last ended, ABS_X/Y after the lowest
    /// slot's contact, SYN_REPORT — when the frame wrote anything.
    mutating func finish(before: Int, into out: inout [EvdevWrite]) {
        let after = contactsDown
        if before == 0 && after > 0 { out.append(EvdevWrite(EV.KEY, BTN.TOUCH, 1)) }
        if before > 0 && after == 0 { out.append(EvdevWrite(EV.KEY, BTN.TOUCH, 0)) }
        if let first = bySlot.first(where: { $0 != nil }), let d = first {
            if pointer?.x != d.x { out.append(EvdevWrite(EV.ABS, ABS.X, d.x)) }
            if pointer?.y != d.y { out.append(EvdevWrite(EV.ABS, ABS.Y, d.y)) }
            pointer = (d.x, d.y)
        }
        if !out.isEmpty { out.append(EvdevWrite(EV.SYN, SYN.REPORT, 0)) }
    }

    /// Whole points, never negative (the mapping keeps contacts on screen; this keeps the
    /// conversion from trapping whatever it is given).
    static func rounded(_ p: Point) -> (Int32, Int32) {
        func whole(_ v: Double) -> Int32 { v.isFinite ? Int32(clamping: Int64(min(max(v, 0), 1e9).rounded())) : 0 }
        return (whole(p.x), whole(p.y))
    }
}
