import TouchCore
import TouchInput
import TouchSystem

/// A capture played to the daemon in real time (`speed` 1), faster or slower, or as fast as
/// possible (0), as a source: its devices arrive at `start`, its events come back from `due`
/// for the loop to feed. It can be held until the daemon releases it (`--wait-clients`).
/// Paced, its events are stamped with the CLOCK_MONOTONIC time at which they are due (as the
/// kernel stamps live ones), so a subscriber can tell its latency; as fast as possible, they
/// keep the capture's times (gesture timing as recorded). When it has played everything the
/// loop plays the capture's end (Engine.playEnd).
public final class ReplaySource: InputSource {
    public let captures: CaptureInputs
    let speed: Double
    let log: LogFunction
    /// Waiting for `release()` before the first event.
    public private(set) var held: Bool
    var startWall: Int64?
    var startCapture: Int64 = 0
    var stamp: ((Int64) -> Int64)?
    public private(set) var finished = false

    public init(captures: CaptureInputs, speed: Double, held: Bool, log: @escaping LogFunction) {
        self.captures = captures
        self.speed = speed
        self.held = held
        self.log = log
    }

    public var descriptors: [Descriptor] { [] }
    public func readable(_ d: Descriptor, into items: inout [InputItem]) {}
    /// Every capture's device, at its first event's time.
    public func start(into items: inout [InputItem]) { captures.arrivals(into: &items) }
    public func reconfigure(_ config: Config, into items: inout [InputItem]) { captures.reconfigure(config, into: &items) }

    /// Lets a held replay start at the next `due`.
    public func release() { held = false }

    public func due(now: Int64, into items: inout [InputItem]) -> InputSchedule {
        if finished || held { return InputSchedule(next: nil, settled: speed > 0 ? now : nil) }
        if startWall == nil {
            startWall = now
            startCapture = captures.timeline.nextTime ?? 0
            if speed > 0 {
                let (start, capture, speed) = (now, startCapture, speed)
                stamp = { t in ReplaySource.offset(start, Double(t - capture) / speed) }
            }
            log(.info, "replay started (speed \(speed == 0 ? "as fast as possible" : "×\(speed)"))")
        }
        // Events per loop turn: the clients are served between turns, so a paced replay that
        // is catching up cannot hold a request for long; as fast as possible, bigger turns.
        var budget = speed > 0 ? 256 : 2048
        while budget > 0 {
            guard let t = captures.timeline.nextTime else {
                finished = true
                log(.info, "replay finished")
                return InputSchedule(next: nil, settled: speed > 0 ? now : nil)
            }
            if speed > 0, let start = startWall {
                let at = wall(t, start)
                // Not due yet: everything before it is delivered, so the engine's timers (gesture
                // deadlines, scroll motion) may run until now, on the same clock as the events,
                // as they do live.
                if at > now { return InputSchedule(next: at, settled: now) }
            }
            _ = captures.step(stamp: stamp, into: &items)
            budget -= 1
        }
        // More to do: come back right after serving the sockets. Paced, the timers may run up
        // to the next event (it fires those due at its time first itself).
        let next = captures.timeline.nextTime.flatMap { t in startWall.map { wall(t, $0) } }
        return InputSchedule(next: now, settled: speed > 0 ? min(now, next ?? now) : nil)
    }

    /// The monotonic time at which a capture time is due.
    func wall(_ captureTime: Int64, _ start: Int64) -> Int64 { ReplaySource.offset(start, Double(captureTime - startCapture) / speed) }

    /// `start` plus `micros`, saturating: a capture spanning 10¹² s played at ×0.1, or a speed
    /// of 1e-308, is due at the end of time rather than a trap.
    public static func offset(_ start: Int64, _ micros: Double) -> Int64 {
        let limit = Double(Int64.max / 4)
        guard micros.isFinite else { return micros < 0 ? start : Int64.max / 4 }
        let m = min(max(micros, -limit), limit)
        let (sum, overflow) = start.addingReportingOverflow(Int64(m))
        return overflow ? (m < 0 ? Int64.min / 4 : Int64.max / 4) : min(sum, Int64.max / 4)
    }

    /// Stops delivering (the loop ends the touches still down).
    public func stop() { finished = true }
}
