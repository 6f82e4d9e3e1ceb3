@preconcurrency import Glibc
@preconcurrency import CLinux

/// The loop thread's real-time priority and its guard (issue 48). The daemon asks for a low
/// real-time priority itself, so that a busy UI (every core running at normal priority) does
/// not delay touches; where the system refuses it, the daemon runs on at normal priority.
///
/// The guard, so that a bug cannot freeze a board: RLIMIT_RTTIME (soft `cpuLimitMicros`) makes
/// the kernel send SIGXCPU once the thread has run that long without blocking; the handler (C,
/// CLinux's touchd_rttime_exceeded) puts it back to SCHED_OTHER at once, and the loop, if it
/// still turns, sees it (`current()`: the handler keeps no state). The hard limit
/// (`hardLimitMicros`) is SIGKILL, for the case where even that fails. SCHED_RESET_ON_FORK:
/// threads and children made later (the name resolver) run at normal priority.
public enum Scheduling {
    public enum Policy: String, Sendable, Equatable {
        case fifo, roundRobin = "rr"

        var raw: Int32 { self == .fifo ? SCHED_FIFO : SCHED_RR }
        /// The kernel's name: SCHED_FIFO, SCHED_RR.
        public var kernelName: String { self == .fifo ? "SCHED_FIFO" : "SCHED_RR" }
    }

    /// What the loop thread runs at.
    public struct Current: Sendable, Equatable, CustomStringConvertible {
        /// nil: SCHED_OTHER (or another non-real-time policy).
        public var policy: Policy?
        public var priority: Int
        /// SCHED_RESET_ON_FORK: threads and children start at normal priority. Set with the
        /// real-time policy and kept when the guard steps down (an unprivileged thread may not
        /// clear it).
        public var resetOnFork = false
        public init(policy: Policy?, priority: Int, resetOnFork: Bool = false) {
            self.policy = policy
            self.priority = priority
            self.resetOnFork = resetOnFork
        }
        public var description: String { (policy.map { "\($0.kernelName) \(priority)" } ?? "SCHED_OTHER") + (resetOnFork ? " (reset on fork)" : "") }
    }

    /// The real-time guard's defaults: 200 ms of CPU without blocking before SIGXCPU demotes the
    /// thread, 1 s before SIGKILL. The loop blocks in epoll_wait every turn; a turn takes tens of
    /// microseconds (a 10-finger frame to 16 subscribers: under 0.1 ms), the longest legitimate
    /// ones (a mass disconnect's batch) tens of milliseconds.
    public static let cpuLimitMicros = 200_000
    public static let hardLimitMicros = 1_000_000

    /// Installs the guard, then asks for `policy` at `priority` for the calling thread.
    /// Throws the refusal (EPERM where RLIMIT_RTPRIO is below the priority and the process lacks
    /// CAP_SYS_NICE, or where the cgroup has no real-time budget; EINVAL for a priority outside
    /// 1...99), leaving the thread as it was.
    public static func requestRealtime(_ policy: Policy, priority: Int, cpuLimitMicros: Int = cpuLimitMicros,
                                       hardLimitMicros: Int = hardLimitMicros) throws(SystemError) {
        guard touchd_rt_guard(UInt(cpuLimitMicros), UInt(hardLimitMicros)) == 0 else { throw .last("setrlimit(RLIMIT_RTTIME)") }
        guard touchd_set_realtime(policy.raw, Int32(priority)) == 0 else { throw .last("sched_setscheduler(\(policy.kernelName), \(priority))") }
    }

    /// Back to SCHED_OTHER (the calling thread), as the guard's handler does.
    public static func dropRealtime() throws(SystemError) {
        guard touchd_drop_realtime() == 0 else { throw .last("sched_setscheduler(SCHED_OTHER)") }
    }

    /// The calling thread's policy and priority now.
    public static func current() -> Current {
        var priority: Int32 = 0
        let raw = touchd_current_policy(&priority)
        let reset = raw >= 0 && raw & TOUCHD_SCHED_RESET_ON_FORK != 0
        let base = raw < 0 ? raw : raw & ~TOUCHD_SCHED_RESET_ON_FORK
        let policy: Policy? = base == SCHED_FIFO ? .fifo : base == SCHED_RR ? .roundRobin : nil
        return Current(policy: policy, priority: policy == nil ? 0 : Int(priority), resetOnFork: reset)
    }

    /// RLIMIT_RTPRIO's soft limit: the highest real-time priority this process may ask for
    /// without CAP_SYS_NICE (the unit's LimitRTPRIO=; 0 by default).
    public static var priorityLimit: Int { touchd_rtprio_limit() }

    /// Whether the process has root's privileges (CAP_SYS_NICE with them): the priority limit
    /// does not apply.
    public static var privileged: Bool { geteuid() == 0 }
}
