/// Headphones as input (issue 46): the engine learns that headphones were plugged into or
/// pulled from an output — from a jack's switch (`EV_SW SW_HEADPHONE_INSERT`, a device with no
/// position axes, read and replayed like the panels: EngineFeed) or a USB headset's sound card
/// arriving and leaving (udev's `sound` subsystem: LiveSource) — and publishes it as a
/// `headphones` message when the output's state changes. An output has headphones while any
/// of its sources says so (a jack and a USB headset on one output: pulling one leaves the
/// other). A source is on one output at a time: plugged into another (a reload moved its
/// device), it is pulled from the first; pulled, it is pulled from wherever it was, whatever
/// output the pull names (a headset's card is matched to its entry again when it goes, by what
/// udev still says of it). A reader with `"screenReader": "headphones"` turns on and off with
/// the output's state (readerHeadphones), and private text is spoken only while plugged
/// (Engine.read).
extension Engine {
    /// A source (a jack's device id, a sound card) says headphones are plugged into `output`
    /// (its id; nil or unknown: the first output) or not.
    public func headphones(source: String, output: String?, plugged: Bool, time: Int64) {
        // Timers due before it fire first, as before any event (Engine.process).
        if let due = nextDeadline, due <= time { advance(to: time) }
        if time > lastTime { lastTime = time }
        let id = scene.outputs[scene.outputIndex(named: output) ?? 0].id
        for other in headphoneSources.keys.sorted() where (other != id || !plugged) && headphoneSources[other]?.contains(source) == true {
            setHeadphones(source: source, output: other, plugged: false, time: time)
        }
        if plugged { setHeadphones(source: source, output: id, plugged: true, time: time) }
    }

    /// One source on one output; the message when the output's state changes.
    private func setHeadphones(source: String, output id: String, plugged: Bool, time: Int64) {
        let was = headphoneSources[id] != nil
        if plugged { headphoneSources[id, default: []].insert(source) } else { headphoneSources[id]?.remove(source) }
        if headphoneSources[id]?.isEmpty == true { headphoneSources[id] = nil }
        let now = headphoneSources[id] != nil
        guard now != was else { return }
        outbox.publish(.headphones(HeadphonesMessage(seq: 0, time: time, output: id, plugged: now, source: source)))
        readerHeadphones(output: id, plugged: now, time: time)
    }

    /// Whether headphones are plugged into the output `id`.
    public func headphonesPlugged(output id: String) -> Bool { headphoneSources[id] != nil }

    /// The outputs with headphones plugged in, in the scene's order (a snapshot lists them).
    public var outputsWithHeadphones: [String] { scene.outputs.map(\.id).filter { headphoneSources[$0] != nil } }
}
