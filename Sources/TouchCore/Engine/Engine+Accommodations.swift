/// The engine's side of the touch accommodations (Accommodations.swift): one stage between the
/// devices' filters and everything after them. `handleFrame` (Engine+Frames.swift) hands each
/// conditioned frame to `accommodate`, its one call site; the stages' timers (a hold's end, a
/// tap assistance's delay) are the engine's timers and their frames go on at their own times.
/// A device without accommodations — its own or its output's — has no stage and its frames go
/// on untouched: a config without them behaves byte for byte as before (scripts/golden check).
extension Engine {
    /// The accommodations in force for a device: its own, else its output's; nil when none.
    func accommodationSettings(_ d: DeviceIndex) -> AccommodationSettings? {
        if let own = devices[d].settings.accommodations { return own.isEmpty ? nil : own }
        guard !scene.outputAccommodations.isEmpty,
              let s = scene.outputAccommodations[scene.outputs[devices[d].outputIndex].id], !s.isEmpty else { return nil }
        return s
    }

    /// The frames `changes` becomes through the device's stage, or nil when the device has
    /// none (the frame goes on as it is). A stage whose settings went (a reload) stays until
    /// its last contact lifts, its undecided contacts refused.
    func accommodate(device d: DeviceIndex, time: Int64) -> [[ContactChange]]? {
        let settings = accommodationSettings(d)
        guard settings != nil || accommodationStages[d] != nil else { return nil }
        let s = settings ?? AccommodationSettings()
        var frames: [[ContactChange]] = []
        // Changed in place: a stage copied out of the dictionary shares its contacts' storage,
        // which the first write would then copy (an allocation per frame).
        accommodationStages[d, default: AccommodationStage(settings: s)].frame(changes, time: time, settings: s, into: &frames)
        if settings == nil, accommodationStages[d]?.isIdle == true { accommodationStages[d] = nil }
        return frames
    }

    /// A device's settings or its output's changed (a reload): its stage takes the new
    /// accommodations now, before any of its timers fires under the old ones.
    func refreshAccommodations(_ d: DeviceIndex) {
        guard accommodationStages[d] != nil else { return }
        let settings = accommodationSettings(d)
        accommodationStages[d]?.reconfigure(settings ?? AccommodationSettings())
        if settings == nil, accommodationStages[d]?.isIdle == true { accommodationStages[d] = nil }
    }

    /// The earliest timer of any stage (asked before every event: no array made).
    var accommodationDeadline: Int64? {
        guard !accommodationStages.isEmpty else { return nil }
        var soonest: Int64?
        for stage in accommodationStages.values {
            if let d = stage.nextDeadline, soonest.map({ d < $0 }) ?? true { soonest = d }
        }
        return soonest
    }

    /// The stages' timers due at `due`: the frames they release go on now, device by device.
    func expireAccommodations(due: Int64) {
        guard !accommodationStages.isEmpty else { return }
        for d in accommodationStages.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let next = accommodationStages[d]?.nextDeadline, next <= due else { continue }
            var frames: [[ContactChange]] = []
            accommodationStages[d]?.expire(due: due, into: &frames)
            for f in frames {
                changes = f
                handleAccommodatedFrame(device: d, time: due)
            }
        }
    }
}
