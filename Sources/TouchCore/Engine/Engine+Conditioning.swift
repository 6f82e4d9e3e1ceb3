/// The engine's side of what the devices' filters hold back (HeldFrames: a lift the debounce
/// holds, a touch-down not yet counted, and every frame behind them). Held frames go on each at
/// its own time, with the recognizers' timers due before it, so what follows the filters sees
/// exactly what it would without them, later: the debounce keeps UIKit's clock. Meanwhile no
/// timer after the first held frame fires — a long press waits until a held lift is settled,
/// since its finger may have lifted before the press counted.
extension Engine {
    /// The next timer while frames are held: a hold's end, or a timer due no later than the
    /// first held frame (later ones wait for it).
    var heldDeadline: Int64? {
        let hold = devices.held.nextDeadline
        guard let first = devices.held.headTime, let g = gestureDeadline(after: heldClock), g <= first else { return hold }
        return hold.map { min($0, g) } ?? g
    }

    /// Holds whose time has come at `due` end (lifts) or count (touch-downs that lasted), and
    /// the frames they held go on. False when `due` is no hold's.
    func expireHeld(due: Int64) -> Bool {
        guard let next = devices.held.nextDeadline, next <= due else { return false }
        devices.held.expire(now: due)
        releaseHeldFrames()
        return true
    }

    /// Every frame nothing holds any more goes on, in order, each after the timers due before
    /// it; once none is held, the timers catch up with the latest event.
    func releaseHeldFrames() {
        while let f = devices.held.popReleasable() {
            fireTimers(through: f.time)
            heldClock = max(heldClock, f.time)
            guard !f.changes.isEmpty else { continue }
            changes = f.changes
            handleFrame(device: f.device, time: f.time)
        }
        if !devices.holding { fireTimers(through: lastTime) }
    }

    /// Everything held goes on now (a device going, the shutdown): lifts end at their own time,
    /// touch-downs still counted are delivered.
    func releaseEverythingHeld() {
        guard devices.holding else { return }
        devices.held.settle()
        releaseHeldFrames()
    }

    /// The recognizers' and scroll views' timers due up to `time`, each at its own time.
    private func fireTimers(through time: Int64) {
        var guardCount = 0
        while let due = gestureDeadline(after: heldClock), due <= time, guardCount < 10_000 {
            guardCount += 1
            fireTimers(due: due)
        }
    }
}
