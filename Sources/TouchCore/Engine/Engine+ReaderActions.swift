/// What the screen reader's gestures do (interface.md's table): the focus and what is said of
/// it, the actions its element's owner carries out, an activation's tap (through the normal
/// pipeline, its messages marked `synthesized`), page scrolling and reading everything.
extension Engine {
    func readerAction(_ a: ReaderAction, output id: String, device: DeviceIndex?, time: Int64) {
        guard let o = scene.outputIndex(named: id), let r = reader[id] else { return }
        switch a {
        case .focus(let p), .follow(let p):
            // A new touch reads what is under it again; a finger moving on only reads a change.
            var none: [AccessibilityStep] = []
            if let v = scene.accessibilityHitTest(screen: p, output: o, tracing: false, trace: &none), v != r.focus || a == .focus(at: p) {
                setFocus(v, output: id, read: true, time: time)
            }
        case .activate:
            guard let v = r.focus, stillReadable(v, output: o) else { return }
            activate(v, output: id, device: device, time: time)
        case .activateUnder(let p):
            var none: [AccessibilityStep] = []
            guard let v = scene.accessibilityHitTest(screen: p, output: o, tracing: false, trace: &none) else { return }
            if v != r.focus { setFocus(v, output: id, read: true, time: time) }
            activate(v, output: id, device: device, time: time)
        case .next, .previous:
            let order = scene.readingOrder(output: o)
            let at = r.focus.flatMap { order.firstIndex(of: $0) }
            let to: Int
            if case .next = a { to = at.map { $0 + 1 } ?? 0 } else { to = at.map { $0 - 1 } ?? order.count - 1 }
            // None past the ends (VoiceOver's boundary: nothing is said).
            guard order.indices.contains(to) else { return }
            setFocus(order[to], output: id, read: true, time: time)
        case .adjust(let up):
            guard let v = r.focus, stillReadable(v, output: o), scene.accessibilityTraits(v).has(.adjustable) else { return }
            outbox.publish(.accessibility(AccessibilityMessage(time: time, output: id, window: scene[v].window, view: v,
                                                               body: .action(up ? .increment : .decrement))))
        case .toggleSpeech:
            let paused = !r.paused
            reader[id]?.paused = paused
            speak(Speech(text: "", interrupt: true, language: scene.accessibility.language, control: paused ? .pause : .resume),
                  output: id, about: nil, time: time)
        case .readAll(let fromTop):
            let order = scene.readingOrder(output: o)
            let start = fromTop ? 0 : (r.focus.flatMap { order.firstIndex(of: $0) } ?? 0)
            guard order.indices.contains(start) else { return }
            setFocus(order[start], output: id, read: false, time: time)
            for (k, v) in order[start...].enumerated() { read(v, output: id, interrupt: k == 0, hint: false, time: time) }
        case .scrollPage(let d):
            scrollPage(d, output: id, focus: r.focus, time: time)
        case .escape, .magicTap:
            let v = r.focus.flatMap { stillReadable($0, output: o) ? $0 : nil }
            outbox.publish(.accessibility(AccessibilityMessage(time: time, output: id, window: v.map { scene[$0].window }, view: v,
                                                               body: .action(a == .escape ? .escape : .magicTap))))
        case .passThrough(let key, _):
            // The contact goes to its view from here: its began, made from its last sample,
            // through the frame path (the stage lets it pass).
            guard devices.contains(key.device), !devices[key.device].removed else { return }
            changes.removeAll(keepingCapacity: true)
            changes.append(ContactChange(slot: key.slot, kind: .began, sample: r.contacts[key] ?? ContactSample()))
            handleFrame(device: key.device, time: time)
        }
    }

    /// The focus moves to `v`: its window's owner is told, and (with `read`) it is read.
    func setFocus(_ v: ViewIndex, output id: String, read: Bool, interrupt: Bool = true, time: Int64) {
        reader[id]?.focus = v
        outbox.publish(.accessibility(AccessibilityMessage(time: time, output: id, window: scene[v].window, view: v, body: .focus)))
        if read { self.read(v, output: id, interrupt: interrupt, hint: true, time: time) }
    }

    /// An element read aloud: its text, then its hint queued after it. What is said of a
    /// private window's element or a secure element is restricted (its owner and the speakers
    /// only: SubscriptionFilter); its text is spoken only while headphones are plugged into the
    /// output (`"private": true`), else it is read as its traits' words ("key"; nothing when it
    /// has no spoken trait) and its hint is not said.
    func read(_ v: ViewIndex, output id: String, interrupt: Bool, hint: Bool, time: Int64) {
        let a = scene[v].accessibility
        let traits = scene.accessibilityTraits(v)
        let words = SpokenWords.table(for: a?.language, fallback: scene.accessibility.language)
        let language = a?.language ?? scene.accessibility.language
        let rate = a?.rate ?? scene.accessibility.rate
        let said = words.read(label: a?.label, value: a?.value, hint: a?.hint, traits: traits)
        let restricted = a?.secure == true || scene[scene[v].window].isPrivate
        if restricted && !headphonesPlugged(output: id) {
            guard let t = words.readSecure(traits: traits) else { return }
            speak(Speech(text: t, interrupt: interrupt, language: language, rate: rate, restricted: true), output: id, about: v, time: time)
            return
        }
        speak(Speech(text: said.text, interrupt: interrupt, language: language, rate: rate, restricted: restricted, isPrivate: restricted),
              output: id, about: v, time: time)
        if hint, let h = said.hint {
            speak(Speech(text: h, interrupt: false, language: language, rate: rate, restricted: restricted, isPrivate: restricted),
                  output: id, about: v, time: time)
        }
    }

    /// The reader's own words (an announcement, "page 3 of 5", "Screen reader on") in the
    /// config's language and rate.
    func say(_ text: String, interrupt: Bool = true, output id: String, about v: ViewIndex?, time: Int64) {
        let restricted = v.map { scene[scene[$0].window].isPrivate } ?? false
        speak(Speech(text: text, interrupt: interrupt, language: scene.accessibility.language, rate: scene.accessibility.rate, restricted: restricted),
              output: id, about: v, time: time)
    }

    /// A `speech` message about view `v` (nil: the output's own, for everyone); speaking again
    /// ends a pause.
    func speak(_ s: Speech, output id: String, about v: ViewIndex?, time: Int64) {
        if s.control == nil { reader[id]?.paused = false }
        outbox.publish(.accessibility(AccessibilityMessage(time: time, output: id, window: v.map { scene[$0].window }, view: v, body: .speech(s))))
    }

    /// Activation: the element's owner is told (`accessibility` activate), then a tap at its
    /// activation point goes through the pipeline as a real one would — hit-tested there, to
    /// its control's events and its recognizers — marked `synthesized`.
    func activate(_ v: ViewIndex, output id: String, device: DeviceIndex?, time: Int64) {
        outbox.publish(.accessibility(AccessibilityMessage(time: time, output: id, window: scene[v].window, view: v, body: .action(.activate))))
        guard let d = device ?? devices.activeIndices.first(where: { scene.outputs[devices[$0].outputIndex].id == id }) else { return }
        synthesizeTap(at: scene.activationPoint(of: v), device: d, time: time)
    }

    /// A tap (touch-down, then its lift in a second step at the same time) at screen point `p`
    /// of device `d`'s output, on a slot no contact has (negative), counted as one tap.
    func synthesizeTap(at p: Point, device d: DeviceIndex, time: Int64) {
        let mapping = devices[d].mapping
        let slot = reader.syntheticSlot()
        var hitTests: [HitTestMessage] = []
        began(device: d, slot: slot, screen: p, sample: ContactSample(), mapping: mapping, time: time, hitTests: &hitTests)
        guard let i = touches.index(device: d, slot: slot) else { return }
        // It has no pressure or size of its own, and it is one tap.
        touches[i].synthesized = true
        touches[i].tapCount = 1
        touches[i].pressure = nil
        touches[i].major = nil
        for h in hitTests { outbox.publish(.hitTest(h)) }
        carryOut(arbiter.feed(device: d, arbiterContext(time)))
        deliver(time: time)
        finishStep(time: time)
        touches.apply(ContactChange(slot: slot, kind: .ended, sample: ContactSample()), device: d, screen: p, mapping: mapping, time: time)
        carryOut(arbiter.feed(device: d, arbiterContext(time)))
        deliver(time: time)
        finishStep(time: time)
    }

    /// A recognizer's message about the screen reader's touches says so.
    func synthesizedMarked(_ m: Message) -> Message {
        guard case .gesture(var g) = m, !g.touches.isEmpty,
              g.touches.allSatisfy({ id in touches.slot(ofID: id).map { touches[$0].synthesized } ?? false }) else { return m }
        g.synthesized = true
        return .gesture(g)
    }

    /// Three-finger swipe: the scroll view of the focused element (else of the first element
    /// in one) moves a page the way the fingers went — up shows the next page below, left the
    /// next to the right — clamped to its content; "page N of M" is said and the focus goes to
    /// the first element shown. At an end nothing moves and nothing is said.
    func scrollPage(_ d: GestureSettings.Direction, output id: String, focus: ViewIndex?, time: Int64) {
        guard let o = scene.outputIndex(named: id) else { return }
        let order = scene.readingOrder(output: o)
        guard let sv = focus.flatMap({ scene.enclosingScrollView(of: $0) }) ?? order.lazy.compactMap({ self.scene.enclosingScrollView(of: $0) }).first,
              let spec = scene[sv].scroll else { return }
        let size = scene[sv].frame.size
        let old = scene[sv].boundsOrigin
        let maxX = max(0, spec.contentSize.width - size.width), maxY = max(0, spec.contentSize.height - size.height)
        var new = old
        switch d {
        case .up: new.y = min(maxY, old.y + size.height)
        case .down: new.y = max(0, old.y - size.height)
        case .left: new.x = min(maxX, old.x + size.width)
        case .right: new.x = max(0, old.x - size.width)
        }
        guard new != old else { return }
        scene.setBoundsOrigin(new, of: sv)
        let stopped = scrolls.offsetSet(sv, time: time, scene: scene)
        if stopped.isEmpty {
            outbox.publish(.scroll(ScrollMessage(seq: 0, time: time, view: sv, offset: new, dragging: false, decelerating: false)))
        } else {
            carryOut(stopped)
        }
        let vertical = d == .up || d == .down
        let page = vertical ? size.height : size.width
        let content = vertical ? spec.contentSize.height : spec.contentSize.width
        let offset = vertical ? new.y : new.x
        let pages = max(1, Int((content / max(page, 1)).rounded(.up)))
        let n = min(pages, Int((offset / max(page, 1) - 1e-9).rounded(.up)) + 1)
        let words = SpokenWords.table(for: nil, fallback: scene.accessibility.language)
        let shown = scene.screenFrame(of: sv)
        if let first = order.first(where: { scene.isDescendant($0, of: sv) && shown.contains(Point(scene.screenFrame(of: $0).midX, scene.screenFrame(of: $0).midY)) }) {
            setFocus(first, output: id, read: false, time: time)
        }
        say(words.page(n, pages), output: id, about: sv, time: time)
    }
}
