import TouchCore
import TouchSystem

/// Where the daemon's events come from: live touchscreens (LiveSource) or a paced capture
/// (TouchCapture's ReplaySource). A source delivers events, each with its timestamp, to the
/// engine it was given, and nothing else: it never runs the engine's timers nor ends its
/// touches, and knows nothing of the server. The event loop owns time (libinput's habit of
/// keeping every timer behind one dispatch call): it watches `descriptors`, calls `readable`
/// for them and `due` when the deadline the source returned arrives, then runs the engine's
/// timers up to the time the source says its events have reached.
public protocol InputSource: AnyObject {
    var descriptors: [Descriptor] { get }
    /// True when no more input will come (a capture that has ended).
    var finished: Bool { get }
    func readable(_ d: Descriptor)
    /// Delivers what is due at `now` (monotonic µs).
    func due(now: Int64) -> InputSchedule
    /// The config was reloaded: re-match devices to entries.
    func reconfigure(_ config: Config)
    /// Releases the devices (closed, ungrabbed); the loop ends their touches first.
    func stop()
    /// Hands the engine's contact frames to whatever re-exports them (`devices[].uinput`):
    /// called whenever the engine may have run.
    func forwardContacts()
}

extension InputSource {
    /// A source that re-exports nothing (a replay).
    public func forwardContacts() {}
}

/// What a source tells the loop after `due`.
public struct InputSchedule: Sendable, Equatable {
    /// When to call `due` again (nil: only when a descriptor is readable).
    public var next: Int64?
    /// Every event up to this time has been delivered, so the engine's own timers (gesture
    /// deadlines, scroll motion) may run up to it; nil when the events are on a capture's clock
    /// (a replay as fast as possible), whose timers run with the events.
    public var settled: Int64?

    public init(next: Int64?, settled: Int64?) {
        self.next = next
        self.settled = settled
    }
}
