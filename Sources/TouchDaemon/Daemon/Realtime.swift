import TouchCore
import TouchSystem
import TouchServer

/// The loop's real-time priority (issue 48): asked for at start, after everything is open and
/// before READY=1; where it is refused the daemon runs on at normal priority with a warning
/// (and `stats` and `touchd doctor` say so). The guard (TouchSystem's Scheduling) puts the loop
/// back to normal priority if it ever runs 200 ms without blocking; while it is on, the loop
/// looks whether that happened once a second (one sched_getscheduler).
extension Daemon {
    /// What applies: --realtime, else the config's `realtime`; off for a replay as fast as
    /// possible (--speed 0: it never waits, so real-time would only take the CPU from others).
    static func realtimeSettings(options: Options, config: Config) -> RealtimeSettings {
        if !options.replay.isEmpty && options.speed == 0 { return .off }
        return options.realtime ?? config.realtime
    }

    /// Asks for the settings' policy for the loop's thread; returns what `stats` reports.
    static func enterRealtime(_ settings: RealtimeSettings, log: StderrLog) -> SchedulingReport {
        guard let wanted = settings.policy else {
            log(.info, "real-time priority off (the config's \"realtime\" or --realtime): the loop runs at normal priority")
            return SchedulingReport(realtime: .off)
        }
        let policy: Scheduling.Policy = wanted == .fifo ? .fifo : .roundRobin
        let asked = "\(policy.kernelName) \(settings.priority)"
        do {
            try Scheduling.requestRealtime(policy, priority: settings.priority)
        } catch {
            log(.warning, "real-time priority refused (\(asked)): \(error)\(refusalReason(error, priority: settings.priority)); "
                + "running at normal priority: touches wait behind other programs while every core is busy (touchd doctor)")
            return report(.refused)
        }
        log(.info, "the loop runs at \(asked) (the guard: after \(Scheduling.cpuLimitMicros / 1000) ms without blocking, SIGXCPU puts it back to normal priority)")
        return report(.on)
    }

    /// Why the kernel said no, in the board's terms.
    static func refusalReason(_ error: SystemError, priority: Int) -> String {
        guard error.errno == .notPermitted else { return "" }
        let limit = Scheduling.priorityLimit
        if !Scheduling.privileged && limit < priority {
            return " — RLIMIT_RTPRIO is \(limit) (the unit's LimitRTPRIO=, or rtprio in /etc/security/limits.conf, must allow \(priority))"
        }
        return " — the limit allows it, so the kernel's cgroup has no real-time budget (CONFIG_RT_GROUP_SCHED: cpu.rt_runtime_us), or a container forbids it"
    }

    static func report(_ state: SchedulingReport.State) -> SchedulingReport {
        let now = Scheduling.current()
        return SchedulingReport(realtime: state, policy: now.policy?.rawValue ?? "other", priority: now.priority)
    }

    /// Each turn, acting once a second while real-time is on: has the guard demoted the loop
    /// (it ran too long without blocking)?
    func noticeDemotion(now: Int64) {
        guard server.scheduling.realtime == .on, now >= nextSchedulingCheck else { return }
        nextSchedulingCheck = now + 1_000_000
        guard Scheduling.current().policy == nil else { return }
        server.scheduling = Daemon.report(.demoted)
        log(.warning, "the loop ran \(Scheduling.cpuLimitMicros / 1000) ms without blocking at real-time priority: the guard put it back to normal priority "
            + "(SIGXCPU, RLIMIT_RTTIME) until the next start; please report it with the log around this line")
    }
}
