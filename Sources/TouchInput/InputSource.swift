import TouchCore
import TouchSystem

/// Where the daemon's events come from: live touchscreens (LiveSource) or a paced capture
/// (TouchCapture's ReplaySource). A source feeds the engine it was given and knows nothing of
/// the server: the daemon drains the engine's outbox. The event loop watches `descriptors`,
/// calls `readable` for them, and `due` when the deadline it returned arrives.
public protocol InputSource: AnyObject {
    var descriptors: [Descriptor] { get }
    /// True when no more input will come (a capture that has ended).
    var finished: Bool { get }
    func readable(_ d: Descriptor)
    /// Does the work due at `now` (monotonic µs); returns when to be called next (nil: only
    /// when a descriptor is readable).
    func due(now: Int64) -> Int64?
    /// The config was reloaded: re-match devices to entries.
    func reconfigure(_ config: Config)
    /// Cancels live touches (reason shutdown) and releases devices.
    func stop()
}
