import TouchCore
import TouchInput
import TouchSystem

/// A capture played to the daemon in real time (`speed` 1), faster or slower, or as fast as
/// possible (0). It can be held until the daemon releases it (`--wait-clients`). Paced, its
/// events are stamped with the CLOCK_MONOTONIC time at which they are due (as the kernel
/// stamps live ones), so a subscriber can tell its latency; as fast as possible, they keep the
/// capture's times (gesture timing as recorded).
public final class ReplaySource: InputSource {
    let session: ReplaySession
    let speed: Double
    let log: LogFunction
    /// Waiting for `release()` before the first event.
    public private(set) var held: Bool
    var startWall: Int64?
    var startCapture: Int64 = 0
    public private(set) var finished = false

    public init(session: ReplaySession, speed: Double, held: Bool, log: @escaping LogFunction) {
        self.session = session
        self.speed = speed
        self.held = held
        self.log = log
    }

    public var descriptors: [Descriptor] { [] }
    public func readable(_ d: Descriptor) {}
    public func reconfigure(_ config: Config) { session.reconfigure(config) }

    /// Lets a held replay start at the next `due`.
    public func release() { held = false }

    public func due(now: Int64) -> Int64? {
        if finished || held { return nil }
        if startWall == nil {
            startWall = now
            startCapture = session.timeline.nextTime ?? 0
            if speed > 0 {
                let (start, capture, speed) = (now, startCapture, speed)
                session.stamp = { t in start + Int64(Double(t - capture) / speed) }
            }
            log(.info, "replay started (speed \(speed == 0 ? "as fast as possible" : "×\(speed)"))")
        }
        // Events per loop turn: the clients are served between turns, so a paced replay that
        // is catching up cannot hold a request for long; as fast as possible, bigger turns.
        var budget = speed > 0 ? 256 : 2048
        while budget > 0 {
            guard let t = session.timeline.nextTime else {
                session.finish()
                finished = true
                log(.info, "replay finished")
                return nil
            }
            if speed > 0, let start = startWall {
                let at = wall(t, start)
                if at > now {
                    // Between events the engine's own timers (gesture deadlines, scroll motion)
                    // run when they are due, on the same clock as the events, as they do live.
                    if let d = session.engine.nextDeadline, d <= now { session.engine.advance(to: now) }
                    if let d = session.engine.nextDeadline, d < at { return d }
                    return at
                }
            }
            _ = session.step()
            budget -= 1
        }
        return now  // more to do: come back right after serving the sockets
    }

    /// The monotonic time at which a capture time is due.
    func wall(_ captureTime: Int64, _ start: Int64) -> Int64 { start + Int64(Double(captureTime - startCapture) / speed) }

    public func stop() {
        if !finished {
            session.finish()
            finished = true
        }
    }
}
