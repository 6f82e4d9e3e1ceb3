import Testing
@testable import TouchCore
import TouchTestSupport

/// Feeds events, returns one array of changes per SYN_REPORT.
func frames(_ tracker: inout ContactTracker, _ events: [InputEvent]) -> [[ContactChange]] {
    var out: [[ContactChange]] = []
    var changes: [ContactChange] = []
    for e in events {
        if tracker.feed(e, into: &changes) {
            out.append(changes)
            changes.removeAll()
        }
    }
    return out
}


@Suite struct ProtocolBTrackerTests {
    @Test func nothingIsEmittedBeforeSynReport() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 10, 20)
        var changes: [ContactChange] = []
        for e in f.events { #expect(t.feed(e, into: &changes) == false) }
        #expect(changes.isEmpty)
        #expect(t.feed(InputEvent(time: 0, type: EV.SYN, code: SYN.REPORT, value: 0), into: &changes))
        #expect(kinds(changes) == ["began0"])
        #expect(changes[0].sample.x == 10 && changes[0].sample.y == 20)
    }

    @Test func severalSlotsInOneFrameAndSlotReuseAfterUp() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 10, 10); f.down(1, 50, 50); f.syn()
        f.move(1, 60, 60); f.syn()
        f.up(0); f.move(1, 70, 70); f.syn()
        f.down(0, 30, 30); f.syn()      // slot 0 reused after -1
        f.up(0); f.up(1); f.syn()
        let out = frames(&t, f.events)
        #expect(out.map(kinds) == [["began0", "began1"], ["moved1"], ["ended0", "moved1"], ["began0"], ["ended0", "ended1"]])
        #expect(out[3][0].sample.x == 30)
    }

    @Test func pressureMajorAndToolAreCarried() {
        var t = ContactTracker(device: screenDevice(pressure: true, major: true), protocol: .b)
        var f = Finger()
        f.down(0, 1, 2)
        f.ev(EV.ABS, ABS.MT_PRESSURE, 128)
        f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, 12)
        f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.pen)
        f.syn()
        let out = frames(&t, f.events)
        #expect(out[0][0].sample == ContactSample(x: 1, y: 2, pressure: 128, major: 12, tool: MTTool.pen))
    }

    @Test func slotOutOfRangeIsLoggedAndItsEventsIgnored() {
        var t = ContactTracker(device: screenDevice(slots: 2), protocol: .b)
        var f = Finger()
        f.down(5, 10, 10)      // slot 5 of 2
        f.down(1, 20, 20)
        f.syn()
        let out = frames(&t, f.events)
        #expect(out.map(kinds) == [["began1"]])
        #expect(t.issues.contains { if case .slotOutOfRange(5, 2, _) = $0 { return true }; return false })
    }

    @Test func secondDownOnLiveSlotCancelsTheOldContact() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 10, 10); f.syn()
        f.down(0, 40, 40); f.syn()   // new tracking id without -1
        let out = frames(&t, f.events)
        #expect(out.map(kinds) == [["began0"], ["cancelled0:resync", "began0"]])
        #expect(out[1][0].sample.x == 10)   // the old contact's last position
        #expect(out[1][1].sample.x == 40)
        #expect(t.issues.contains { if case .downOnLiveSlot = $0 { return true }; return false })
    }

    @Test func sameTrackingIDAgainIsNotANewContact() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var events: [InputEvent] = []
        for (c, v) in [(ABS.MT_TRACKING_ID, Int32(7)), (ABS.MT_POSITION_X, 5)] { events.append(InputEvent(time: 0, type: EV.ABS, code: c, value: v)) }
        events.append(InputEvent(time: 0, type: EV.SYN, code: SYN.REPORT, value: 0))
        events.append(InputEvent(time: 1, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: 7))
        events.append(InputEvent(time: 1, type: EV.ABS, code: ABS.MT_POSITION_X, value: 6))
        events.append(InputEvent(time: 1, type: EV.SYN, code: SYN.REPORT, value: 0))
        #expect(frames(&t, events).map(kinds) == [["began0"], ["moved0"]])
    }

    @Test func upWithoutDownIsLoggedAndDropped() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.up(3); f.syn()
        f.down(0, 1, 1); f.syn()
        #expect(frames(&t, f.events).map(kinds) == [[], ["began0"]])
        #expect(t.issues.contains { if case .upWithoutDown(3, _) = $0 { return true }; return false })
    }

    @Test func contactBeginningAndEndingInOneFrameIsNotDelivered() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 1, 1); f.up(0); f.syn()
        #expect(frames(&t, f.events).map(kinds) == [[]])
        #expect(t.issues.contains { if case .zeroLengthContact = $0 { return true }; return false })
    }

    @Test func liftAndNewContactOnOneSlotInOneFrame() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 1, 1); f.syn()
        f.up(0); f.down(0, 9, 9); f.syn()
        #expect(frames(&t, f.events).map(kinds) == [["began0"], ["ended0", "began0"]])
    }

    @Test func synDroppedDiscardsTheBrokenFrame() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 1, 1); f.syn()
        f.move(0, 5, 5)
        f.ev(EV.SYN, SYN.DROPPED, 0)
        f.move(0, 6, 6)
        f.syn()             // ends the dropped stretch: nothing delivered
        f.move(0, 7, 7); f.syn()
        let out = frames(&t, f.events)
        #expect(out.map(kinds) == [["began0"], ["moved0"]])
        #expect(out[1][0].sample.x == 7)
        #expect(t.issues.contains { if case .droppedEvents = $0 { return true }; return false })
    }

    @Test func palmContactsAreCancelledOrNeverDelivered() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 1, 1); f.syn()
        f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.palm); f.syn()
        f.move(0, 3, 3); f.syn()                      // still a palm: nothing
        f.up(0); f.syn()                              // lifting a palm: nothing
        f.down(1, 5, 5); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.palm); f.syn()   // starts as a palm
        f.up(1); f.syn()
        #expect(frames(&t, f.events).map(kinds) == [["began0"], ["cancelled0:palm"], [], [], [], []])
    }

    @Test func cancelAllEndsEveryLiveContact() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var f = Finger()
        f.down(0, 1, 1); f.down(2, 2, 2); f.syn()
        _ = frames(&t, f.events)
        var changes: [ContactChange] = []
        t.cancelAll(.deviceRemoved, into: &changes)
        #expect(kinds(changes) == ["cancelled0:device-removed", "cancelled2:device-removed"])
        #expect(t.liveSlots.isEmpty)
    }

    @Test func issuesAreBoundedUnderHostileInput() {
        var t = ContactTracker(device: screenDevice(slots: 2), protocol: .b)
        var changes: [ContactChange] = []
        for i in 0..<10_000 {
            _ = t.feed(InputEvent(time: Int64(i), type: EV.ABS, code: ABS.MT_SLOT, value: 99), into: &changes)
        }
        #expect(t.issueCount == 10_000)
        #expect(t.issues.count == ContactTracker.issueLimit)
    }
}

@Suite struct SingleTouchTrackerTests {
    func device() -> DeviceInfo { singleTouchScreenDevice() }

    func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: 0, type: type, code: code, value: value)
    }

    @Test func btnTouchBeginsAndEndsAndAxesMove() {
        #expect(device().touchProtocol == .single)
        var t = ContactTracker(device: device(), protocol: .single)
        let syn = ev(EV.SYN, SYN.REPORT, 0)
        let events = [ev(EV.ABS, ABS.X, 100), ev(EV.ABS, ABS.Y, 200), ev(EV.KEY, BTN.TOUCH, 1), syn,
                      ev(EV.ABS, ABS.X, 110), ev(EV.ABS, ABS.PRESSURE, 50), syn,
                      ev(EV.KEY, BTN.TOUCH, 0), syn,
                      ev(EV.ABS, ABS.X, 300), syn]          // hover move: no contact
        let out = frames(&t, events)
        #expect(out.map(kinds) == [["began0"], ["moved0"], ["ended0"], []])
        #expect(out[0][0].sample.x == 100 && out[0][0].sample.y == 200)
        #expect(out[1][0].sample.x == 110 && out[1][0].sample.pressure == 50)
    }

    @Test func upWithoutDownAndRepeatedDown() {
        var t = ContactTracker(device: device(), protocol: .single)
        let syn = ev(EV.SYN, SYN.REPORT, 0)
        let out = frames(&t, [ev(EV.KEY, BTN.TOUCH, 0), syn, ev(EV.KEY, BTN.TOUCH, 1), syn, ev(EV.KEY, BTN.TOUCH, 1), syn])
        #expect(out.map(kinds) == [[], ["began0"], []])
        #expect(t.issues.contains { if case .upWithoutDown = $0 { return true }; return false })
    }

    @Test func axisRemapReadsOtherCodes() {
        var t = ContactTracker(device: device(), protocol: .single, xCode: ABS.Z, yCode: ABS.RX)
        let syn = ev(EV.SYN, SYN.REPORT, 0)
        let out = frames(&t, [ev(EV.KEY, BTN.TOUCH, 1), ev(EV.ABS, ABS.Z, 7), ev(EV.ABS, ABS.RX, 8), ev(EV.ABS, ABS.X, 99), syn])
        #expect(out[0][0].sample.x == 7 && out[0][0].sample.y == 8)
    }
}
