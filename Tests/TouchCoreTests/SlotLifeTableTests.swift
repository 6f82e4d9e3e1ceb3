import Testing
@testable import TouchCore

/// A slot's contact life as a transition table (issue 41): every kind of state against every
/// kind of input, and what the tracker does. Written from the evdev multitouch protocol
/// (Documentation/input/multi-touch-protocol.rst: a tracking id ≥ 0 puts a contact down, -1
/// lifts it, a new id on a slot still down replaces its contact; SYN_DROPPED discards up to the
/// next SYN_REPORT; MT_TOOL_PALM is never delivered) and touchd's documented choices (the
/// replaced contact cancelled, reason resync; TrackerIssue's upWithoutDown, zeroLengthContact,
/// downOnLiveSlot), not from the code's output. Rows marked "so touchd has always done" pin a
/// choice the protocol leaves open, kept by the refactor that made this table.
@Suite struct SlotLifeTableTests {
    typealias L = SlotLife
    typealias A = SlotLife.Action
    /// The slot's axes now; the sample last reported; the replaced contact's sample.
    static let s = ContactSample(x: 10, y: 20, pressure: 3)
    static let r = ContactSample(x: 1, y: 2, pressure: 3)
    static let o = ContactSample(x: 7, y: 8)
    /// Axes now that are a palm's; that differ from `r` only in size.
    static let palm = ContactSample(x: 10, y: 20, pressure: 3, tool: MTTool.palm)
    static let bigger = ContactSample(x: 1, y: 2, pressure: 3, major: 9)
    static let d = L.Contact.delivered(reported: r)
    static let p = L.Contact.suppressed(.palm)
    static let taken = L.Contact.suppressed(.taken(.calibrating))
    static let atOpen = L.down(id: 9, .suppressed(.downAtOpen))

    struct Row {
        var from: L, input: L.Input, sample: ContactSample, to: L, action: A
        init(_ from: L, _ input: L.Input, _ to: L, _ action: A = .none, sample: ContactSample = SlotLifeTableTests.s) {
            self.from = from; self.input = input; self.sample = sample; self.to = to; self.action = action
        }
    }

    static let up = L.Input.trackingID(-1)
    static let report = L.Input.report(resyncing: false)
    static let resyncReport = L.Input.report(resyncing: true)
    static let removed = L.Input.cancelAll(.deviceRemoved)
    static let calibrate = L.Input.suppress(.calibrating)
    static let open = L.Input.downAtOpen(id: 9)

    static let rows: [Row] = [
        // No contact: an id begins one, a lift is the kernel's bug, nothing else happens.
        Row(.empty, .trackingID(5), .beginning(id: 5)),
        Row(.empty, up, .empty, .report(.upWithoutDown)),
        Row(.empty, .touch(down: true), .beginning(id: -1)),
        Row(.empty, .touch(down: false), .empty, .report(.upWithoutDown)),
        Row(.empty, .axis, .empty),
        Row(.empty, report, .empty),
        Row(.empty, .discard, .empty),
        Row(.empty, removed, .empty),
        Row(.empty, calibrate, .empty),
        Row(.empty, open, atOpen),
        // Down and delivered: its own id again is nothing; another id replaces it.
        Row(.down(id: 5, d), .trackingID(5), .down(id: 5, d)),
        Row(.down(id: 5, d), .trackingID(6), .replaced(d, old: s, by: 6), .report(.downOnLiveSlot(oldID: 5, newID: 6))),
        Row(.down(id: 5, d), up, .lifting(d, restart: nil)),
        Row(.down(id: 5, d), .touch(down: true), .down(id: 5, d)),        // a repeated down
        Row(.down(id: 5, d), .touch(down: false), .lifting(d, restart: nil)),
        Row(.down(id: 5, d), .axis, .changed(id: 5, reported: r)),
        Row(.down(id: 5, d), report, .down(id: 5, d)),
        Row(.down(id: 5, d), .discard, .down(id: 5, d)),
        Row(.down(id: 5, d), removed, .empty, .emit(.cancelled(.deviceRemoved), s)),
        Row(.down(id: 5, d), calibrate, .down(id: 5, taken), .emit(.cancelled(.calibrating), s)),
        Row(.down(id: 5, d), open, atOpen),
        // Down and suppressed: followed like any contact, never delivered.
        Row(.down(id: 5, p), .trackingID(6), .replaced(p, old: s, by: 6), .report(.downOnLiveSlot(oldID: 5, newID: 6))),
        Row(.down(id: 5, p), up, .lifting(p, restart: nil)),
        Row(.down(id: 5, p), .axis, .down(id: 5, p)),
        Row(.down(id: 5, p), report, .down(id: 5, p)),
        Row(.down(id: 5, p), removed, .empty),
        Row(.down(id: 5, p), calibrate, .down(id: 5, p)),
        Row(.down(id: 5, .suppressed(.downAtOpen)), report, .down(id: 5, .suppressed(.downAtOpen))),
        // Delivered, its axes changed in the frame: it moves when its place or pressure did.
        Row(.changed(id: 5, reported: r), .trackingID(5), .changed(id: 5, reported: r)),
        Row(.changed(id: 5, reported: r), .trackingID(6), .replaced(d, old: s, by: 6), .report(.downOnLiveSlot(oldID: 5, newID: 6))),
        Row(.changed(id: 5, reported: r), up, .lifting(d, restart: nil)),
        Row(.changed(id: 5, reported: r), .touch(down: true), .changed(id: 5, reported: r)),
        Row(.changed(id: 5, reported: r), .touch(down: false), .lifting(d, restart: nil)),
        Row(.changed(id: 5, reported: r), .axis, .changed(id: 5, reported: r)),
        Row(.changed(id: 5, reported: r), report, .down(id: 5, .delivered(reported: s)), .emit(.moved, s)),
        Row(.changed(id: 5, reported: r), resyncReport, .down(id: 5, .delivered(reported: s)), .emit(.moved, s)),
        Row(.changed(id: 5, reported: r), report, .down(id: 5, d), sample: bigger),                  // size alone: no move
        Row(.changed(id: 5, reported: r), report, .down(id: 5, p), .emit(.cancelled(.palm), palm), sample: palm),
        Row(.changed(id: 5, reported: r), .discard, .down(id: 5, d)),
        Row(.changed(id: 5, reported: r), removed, .empty, .emit(.cancelled(.deviceRemoved), s)),
        Row(.changed(id: 5, reported: r), calibrate, .down(id: 5, taken), .emit(.cancelled(.calibrating), s)),
        Row(.changed(id: 5, reported: r), open, atOpen),
        // Beginning in the frame: it begins at the flush unless it lifts first.
        Row(.beginning(id: 5), .trackingID(5), .beginning(id: 5)),
        Row(.beginning(id: 5), .trackingID(6), .beginning(id: 6), .report(.downOnLiveSlot(oldID: 5, newID: 6))),  // nobody saw 5
        Row(.beginning(id: 5), up, .empty, .report(.zeroLengthContact)),
        Row(.beginning(id: -1), .touch(down: true), .beginning(id: -1)),
        Row(.beginning(id: -1), .touch(down: false), .empty, .report(.zeroLengthContact)),
        Row(.beginning(id: 5), .axis, .beginning(id: 5)),
        Row(.beginning(id: 5), report, .down(id: 5, .delivered(reported: s)), .emit(.began, s)),
        Row(.beginning(id: 5), report, .down(id: 5, p), sample: palm),                              // a palm: never delivered
        Row(.beginning(id: 5), .discard, .empty),
        Row(.beginning(id: 5), removed, .beginning(id: 5)),        // not down yet: nothing to cancel (so touchd has always done)
        Row(.beginning(id: 5), calibrate, .beginning(id: 5)),
        Row(.beginning(id: 5), open, atOpen),
        // Lifted in the frame: it ends at the flush (cancelled, resync, while resyncing).
        Row(.lifting(d, restart: nil), .trackingID(6), .lifting(d, restart: 6)),
        Row(.lifting(d, restart: nil), up, .lifting(d, restart: nil), .report(.upWithoutDown)),
        Row(.lifting(d, restart: nil), .touch(down: true), .lifting(d, restart: -1)),
        Row(.lifting(d, restart: nil), .touch(down: false), .lifting(d, restart: nil)),   // BTN_TOUCH up twice: one lift (so touchd has always done)
        Row(.lifting(d, restart: nil), .axis, .lifting(d, restart: nil)),
        Row(.lifting(d, restart: nil), report, .empty, .emit(.ended, s)),
        Row(.lifting(d, restart: nil), resyncReport, .empty, .emit(.cancelled(.resync), s)),
        Row(.lifting(p, restart: nil), report, .empty),
        Row(.lifting(d, restart: nil), .discard, .down(id: -1, d)),    // its lift was lost with the frame
        Row(.lifting(d, restart: nil), removed, .empty, .emit(.cancelled(.deviceRemoved), s)),
        Row(.lifting(d, restart: nil), calibrate, .lifting(taken, restart: nil), .emit(.cancelled(.calibrating), s)),
        Row(.lifting(d, restart: nil), open, atOpen),
        // Lifted and a new contact down in the same frame: the end, then the began.
        Row(.lifting(d, restart: 6), .trackingID(7), .lifting(d, restart: 7)),
        Row(.lifting(d, restart: 6), up, .lifting(d, restart: nil), .report(.zeroLengthContact)),
        Row(.lifting(d, restart: -1), .touch(down: true), .lifting(d, restart: -1)),
        Row(.lifting(d, restart: -1), .touch(down: false), .lifting(d, restart: nil), .report(.zeroLengthContact)),
        Row(.lifting(d, restart: 6), report, .down(id: 6, .delivered(reported: s)), A.emit(.ended, s).then(.began, s)),
        Row(.lifting(d, restart: 6), report, .down(id: 6, p), .emit(.ended, palm), sample: palm),
        Row(.lifting(p, restart: 6), report, .down(id: 6, .delivered(reported: s)), .emit(.began, s)),
        Row(.lifting(d, restart: 6), .discard, .down(id: 6, d)),
        Row(.lifting(d, restart: 6), removed, .empty, .emit(.cancelled(.deviceRemoved), s)),
        // Replaced by a new id: the old contact is cancelled (resync), the new one begins.
        Row(.replaced(d, old: o, by: 6), .trackingID(6), .replaced(d, old: o, by: 6)),
        Row(.replaced(d, old: o, by: 6), .trackingID(7), .replaced(d, old: s, by: 7), .report(.downOnLiveSlot(oldID: 6, newID: 7))),
        Row(.replaced(d, old: o, by: 6), up, .replaced(d, old: o, by: nil)),
        Row(.replaced(d, old: o, by: 6), .touch(down: true), .replaced(d, old: o, by: 6)),
        Row(.replaced(d, old: o, by: 6), .touch(down: false), .replacedAndLifted(d, old: o, restart: 6)),
        Row(.replaced(d, old: o, by: 6), .axis, .replaced(d, old: o, by: 6)),
        Row(.replaced(d, old: o, by: 6), report, .down(id: 6, .delivered(reported: s)), A.emit(.cancelled(.resync), o).then(.began, s)),
        Row(.replaced(d, old: o, by: 6), resyncReport, .down(id: 6, .delivered(reported: s)), A.emit(.cancelled(.resync), o).then(.began, s)),
        Row(.replaced(p, old: o, by: 6), report, .down(id: 6, .delivered(reported: s)), .emit(.began, s)),
        Row(.replaced(d, old: o, by: 6), .discard, .down(id: 6, d)),
        Row(.replaced(d, old: o, by: 6), removed, .empty, .emit(.cancelled(.deviceRemoved), s)),
        Row(.replaced(d, old: o, by: 6), calibrate, .replaced(taken, old: o, by: 6), .emit(.cancelled(.calibrating), s)),
        Row(.replaced(d, old: o, by: 6), open, atOpen),
        // Replaced, and the replacement lifted in the same frame: only the cancel is left.
        Row(.replaced(d, old: o, by: nil), .trackingID(7), .replaced(d, old: s, by: 7), .report(.downOnLiveSlot(oldID: -1, newID: 7))),
        Row(.replaced(d, old: o, by: nil), up, .replacedAndLifted(d, old: o, restart: nil)),
        Row(.replaced(d, old: o, by: nil), .touch(down: true), .replaced(d, old: o, by: nil)),
        Row(.replaced(d, old: o, by: nil), .touch(down: false), .replacedAndLifted(d, old: o, restart: nil)),
        Row(.replaced(d, old: o, by: nil), report, .empty, .emit(.cancelled(.resync), o)),
        Row(.replaced(p, old: o, by: nil), report, .empty),
        Row(.replaced(d, old: o, by: nil), .discard, .down(id: -1, d)),
        // Replaced, its replacement lifted, and a lift once more: the second lift ends the slot's
        // sample, even after a palm (so touchd has always done).
        Row(.replacedAndLifted(d, old: o, restart: nil), .trackingID(6), .replacedAndLifted(d, old: o, restart: 6)),
        Row(.replacedAndLifted(d, old: o, restart: nil), up, .replacedAndLifted(d, old: o, restart: nil), .report(.upWithoutDown)),
        Row(.replacedAndLifted(d, old: o, restart: nil), .touch(down: true), .replacedAndLifted(d, old: o, restart: -1)),
        Row(.replacedAndLifted(d, old: o, restart: nil), .touch(down: false), .replacedAndLifted(d, old: o, restart: nil)),
        Row(.replacedAndLifted(d, old: o, restart: nil), .axis, .replacedAndLifted(d, old: o, restart: nil)),
        Row(.replacedAndLifted(d, old: o, restart: nil), report, .empty, A.emit(.cancelled(.resync), o).then(.ended, s)),
        Row(.replacedAndLifted(d, old: o, restart: nil), resyncReport, .empty, A.emit(.cancelled(.resync), o).then(.cancelled(.resync), s)),
        Row(.replacedAndLifted(p, old: o, restart: nil), report, .empty, .emit(.ended, s)),
        Row(.replacedAndLifted(d, old: o, restart: nil), .discard, .down(id: -1, d)),
        Row(.replacedAndLifted(d, old: o, restart: nil), removed, .empty, .emit(.cancelled(.deviceRemoved), s)),
        Row(.replacedAndLifted(d, old: o, restart: nil), calibrate, .replacedAndLifted(taken, old: o, restart: nil), .emit(.cancelled(.calibrating), s)),
        Row(.replacedAndLifted(d, old: o, restart: nil), open, atOpen),
        Row(.replacedAndLifted(d, old: o, restart: 6), .trackingID(7), .replacedAndLifted(d, old: o, restart: 7)),
        Row(.replacedAndLifted(d, old: o, restart: 6), up, .replacedAndLifted(d, old: o, restart: nil)),   // no zeroLengthContact after a replacement
        Row(.replacedAndLifted(d, old: o, restart: -1), .touch(down: false), .replacedAndLifted(d, old: o, restart: nil), .report(.zeroLengthContact)),
        Row(.replacedAndLifted(d, old: o, restart: 6), report, .down(id: 6, .delivered(reported: s)),
            A.emit(.cancelled(.resync), o).then(.ended, s).then(.began, s)),
        Row(.replacedAndLifted(d, old: o, restart: 6), .discard, .down(id: 6, d)),
    ]

    @Test func everyRow() {
        for row in Self.rows {
            let (state, action) = SlotLife.next(row.from, row.input, sample: row.sample)
            #expect(state == row.to && action == row.action,
                    "\(row.from) + \(row.input) with \(row.sample): \(state), \(action); expected \(row.to), \(row.action)")
        }
    }

    static func kind(_ s: L) -> String {
        switch s {
        case .empty: return "empty"
        case .down: return "down"
        case .changed: return "changed"
        case .beginning: return "beginning"
        case .lifting: return "lifting"
        case .replaced: return "replaced"
        case .replacedAndLifted: return "replacedAndLifted"
        }
    }

    static func kind(_ i: L.Input) -> String {
        switch i {
        case .trackingID(let id): return id >= 0 ? "down" : "up"
        case .touch(let down): return down ? "touchDown" : "touchUp"
        case .axis: return "axis"
        case .report: return "report"
        case .discard: return "discard"
        case .cancelAll: return "cancelAll"
        case .suppress: return "suppress"
        case .downAtOpen: return "downAtOpen"
        }
    }

    /// Every kind of state meets every kind of input in the table.
    @Test func theTableNamesEveryStateAndInputKind() {
        let pairs = Set(Self.rows.map { "\(Self.kind($0.from)) \(Self.kind($0.input))" })
        let states = ["empty", "down", "changed", "beginning", "lifting", "replaced", "replacedAndLifted"]
        let inputs = ["down", "up", "touchDown", "touchUp", "axis", "report", "discard", "cancelAll", "suppress", "downAtOpen"]
        for s in states {
            for i in inputs { #expect(pairs.contains("\(s) \(i)"), "no row for \(s) + \(i)") }
        }
    }

    /// The tracker applies the actions: a slot's issue carries its slot and the event's time,
    /// its changes are appended in order.
    @Test func theTrackerAppliesWhatTheTransitionSays() {
        var t = ContactTracker(device: DeviceInfo(name: "t", abs: [ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 3)]), protocol: .b)
        var changes: [ContactChange] = []
        func feed(_ code: UInt16, _ value: Int32, type: UInt16 = EV.ABS) -> Bool {
            t.feed(InputEvent(time: 42, type: type, code: code, value: value), into: &changes)
        }
        _ = feed(ABS.MT_SLOT, 2)
        _ = feed(ABS.MT_TRACKING_ID, 5)
        _ = feed(ABS.MT_POSITION_X, 10)
        #expect(feed(SYN.REPORT, 0, type: EV.SYN))
        #expect(changes == [ContactChange(slot: 2, kind: .began, sample: ContactSample(x: 10))])
        changes.removeAll()
        _ = feed(ABS.MT_TRACKING_ID, 6)
        #expect(t.drainIssues() == [.downOnLiveSlot(slot: 2, oldID: 5, newID: 6, time: 42)])
        _ = feed(ABS.MT_TRACKING_ID, -1)
        _ = feed(ABS.MT_TRACKING_ID, -1)
        _ = feed(ABS.MT_TRACKING_ID, 7)
        #expect(feed(SYN.REPORT, 0, type: EV.SYN))
        #expect(changes.map(\.kind) == [.cancelled(.resync), .ended, .began] && changes.allSatisfy { $0.slot == 2 })
    }
}
