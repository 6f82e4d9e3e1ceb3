/// The screen readers of an engine's outputs, as plain state: which are on, and for each its
/// gesture (ReaderGesture), focus, whether speech is paused and the contacts it took. The
/// engine's stage (Engine+ScreenReader.swift) feeds and carries it out.
struct ScreenReader {
    struct OnOutput {
        var gesture = ReaderGesture.idle
        /// The focused element (VoiceOver's cursor), if any.
        var focus: ViewIndex?
        var paused = false
        /// The contacts that landed while it was on (its gestures, or passing through), with
        /// their latest sample: a pass-through's began is made from it.
        var contacts: [ContactKey: ContactSample] = [:]
    }

    /// By output id (ids survive a reload that reorders the outputs); absent: off.
    private(set) var outputs: [String: OnOutput] = [:]
    var timings = ReaderTimings()
    /// What the config says (`screenReader: true`, and `"headphones"`): a reload that changes
    /// it turns the reader; one that does not leaves it as the clients turned it.
    private(set) var configured: Set<String> = []
    private(set) var configuredHeadphones: Set<String> = []

    /// The slots of the activations' taps: negative, never a contact's, never reused.
    private var lastSyntheticSlot = 0
    mutating func syntheticSlot() -> Int {
        lastSyntheticSlot = lastSyntheticSlot == Int.min ? -1 : lastSyntheticSlot - 1
        return lastSyntheticSlot
    }

    var isEmpty: Bool { outputs.isEmpty }
    func isOn(_ id: String) -> Bool { outputs[id] != nil }
    subscript(id: String) -> OnOutput? {
        get { outputs[id] }
        set { outputs[id] = newValue }
    }

    /// The earliest gesture timer of any output.
    var nextDeadline: Int64? { outputs.values.compactMap { $0.gesture.deadline(timings) }.min() }

    /// The outputs (by id) whose timers are due by `time`, in id order (deterministic).
    func due(by time: Int64) -> [String] {
        outputs.filter { ($0.value.gesture.deadline(timings) ?? .max) <= time }.keys.sorted()
    }

    /// At the start: on where the config says.
    mutating func configure(_ scene: Scene) {
        configured = scene.accessibility.screenReaderOutputs
        configuredHeadphones = scene.accessibility.headphoneOutputs
        for o in scene.outputs where configured.contains(o.id) { outputs[o.id] = OnOutput() }
    }

    /// The outputs whose config value a reload changed (to turn them), and the new values.
    mutating func reconfigure(_ scene: Scene, plugged: (String) -> Bool) -> [(id: String, on: Bool)] {
        let now = scene.accessibility.screenReaderOutputs, phones = scene.accessibility.headphoneOutputs
        defer { configured = now; configuredHeadphones = phones }
        return scene.outputs.map(\.id)
            .filter { now.contains($0) != configured.contains($0) || phones.contains($0) != configuredHeadphones.contains($0) }
            .map { ($0, now.contains($0) || (phones.contains($0) && plugged($0))) }
    }

    /// Views went away: a focus on one of them is no focus (its slot may be reused).
    mutating func forget(_ views: [ViewIndex]) {
        let gone = Set(views)
        for (id, r) in outputs where r.focus.map(gone.contains) == true { outputs[id]?.focus = nil }
    }

    /// A reload: each focus follows its view by id into the new scene (or is dropped); outputs
    /// the new scene does not have are off.
    mutating func remap(from old: Scene, to new: Scene) {
        for (id, r) in outputs {
            guard new.outputIndex(named: id) != nil else { outputs[id] = nil; continue }
            outputs[id]?.focus = r.focus.flatMap { new.viewIndex[old[$0].id] }
        }
    }
}
