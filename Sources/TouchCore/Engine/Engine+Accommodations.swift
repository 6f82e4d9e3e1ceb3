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
        var stage = accommodationStages[d] ?? AccommodationStage(settings: settings ?? AccommodationSettings())
        stage.reconfigure(settings ?? AccommodationSettings())
        var frames: [[ContactChange]] = []
        stage.frame(changes, time: time, into: &frames)
        accommodationStages[d] = settings == nil && stage.isIdle ? nil : stage
        return frames
    }

    /// A device's settings or its output's changed (a reload): its stage takes the new
    /// accommodations now, before any of its timers fires under the old ones.
    func refreshAccommodations(_ d: DeviceIndex) {
        guard var stage = accommodationStages[d] else { return }
        let settings = accommodationSettings(d)
        stage.reconfigure(settings ?? AccommodationSettings())
        accommodationStages[d] = settings == nil && stage.isIdle ? nil : stage
    }

    /// The earliest timer of any stage.
    var accommodationDeadline: Int64? {
        accommodationStages.isEmpty ? nil : accommodationStages.values.compactMap(\.nextDeadline).min()
    }

    /// The stages' timers due at `due`: the frames they release go on now, device by device.
    func expireAccommodations(due: Int64) {
        guard !accommodationStages.isEmpty else { return }
        for d in accommodationStages.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var stage = accommodationStages[d], let next = stage.nextDeadline, next <= due else { continue }
            var frames: [[ContactChange]] = []
            stage.expire(due: due, into: &frames)
            accommodationStages[d] = stage
            for f in frames {
                changes = f
                handleAccommodatedFrame(device: d, time: due)
            }
        }
    }
}
