/// Outputs turning at run time (`{"output":{"id":ID,"rotation":R}}`, issue 33 item 2): as an
/// iOS device rotates, the output's point space turns and its windows keep their frames (their
/// clients lay them out again). The touches down on it end (`cancelled`, reason
/// `output-changed`): a finger's place means something else now; the next finger is mapped in
/// the new orientation. Touches on the other outputs go on as if nothing happened.
extension Engine {
    /// Turns output `id` to `rotation`. Unchanged: nothing is published. Otherwise the touches
    /// of its devices are cancelled, its devices remapped, its screen-edge pans given its new
    /// edges, then every subscriber is told (an `output` message) and the scene changes.
    func turnOutput(_ id: String, to rotation: Rotation, limits: ClientLimits = ClientLimits(), time: Int64) -> Result<SceneReply, SceneRequestError> {
        guard let o = scene.outputIndex(named: id) else {
            return .failure(SceneRequestError(path: "id", message: "no output has id \"\(id)\" (outputs: \(scene.outputs.map(\.id).joined(separator: ", ")))"))
        }
        if let problem = limits.actProblem(id, "turning") { return .failure(SceneRequestError(path: "id", message: problem)) }
        guard scene.outputs[o].rotation != rotation else { return .success(.turned(scene.outputs[o])) }
        // A calibration's targets were in the old orientation: it ends, nothing changed.
        for d in calibrations.keys.sorted(by: { $0.rawValue < $1.rawValue }) where devices[d].outputIndex == o {
            endCalibration(d, reason: "output-changed")
        }
        cancelTouches(onOutput: o, reason: .outputChanged, time: time)
        systemGesturesAbandon(output: o)
        scene.setRotation(rotation, ofOutput: o)
        arbiter.outputsChanged(scene: scene)
        remapDevices()
        outbox.sceneChanged(scene)
        outbox.publish(.output(OutputMessage(seq: 0, time: time, output: scene.outputs[o])))
        return .success(.turned(scene.outputs[o]))
    }

    /// The touches of the devices on output `o` whose fingers are down: cancelled for whoever
    /// follows them — views, recognizers (pending or recognized: a touch a recognizer took is
    /// over for the views, not for it), subscribers of undelivered touches — then followed,
    /// undelivered, until their fingers lift.
    func cancelTouches(onOutput o: Int, reason: CancelReason, time: Int64) {
        // A tap sequence on this output ends: the same place is elsewhere on the glass now.
        // One on another output goes on.
        touches.taps.reset { self.scene[self.scene[$0].window].output == o }
        let affected = touches.ordered.filter {
            let t = touches[$0]
            return devices[t.device].outputIndex == o && !t.fingerDone && (t.viewState != .gone || !t.recognizers.isEmpty)
        }
        guard !affected.isEmpty else { return }
        cancelForEveryone(affected, reason: reason, time: time)
        deliver(time: time)
        finishStep(time: time)
    }
}
