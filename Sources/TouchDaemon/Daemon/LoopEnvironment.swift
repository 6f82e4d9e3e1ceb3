import TouchCore
import TouchSystem

/// What the daemon's loop takes from the world: the clock, the wait for readiness, the signals
/// and systemd's notifications (the socket systemd passed is taken before any of this:
/// Daemon.start). `system` is the real one (CLOCK_MONOTONIC, a timerfd armed at the next
/// deadline, a signalfd, sd_notify); a test builds an embedded one — its own clock, a wait that
/// never blocks, stops and reloads asked by calls — and drives the loop one turn at a time with
/// virtual time (as swift-nio's EmbeddedEventLoop).
struct LoopEnvironment {
    /// Monotonic µs now.
    var now: () -> Int64
    /// Waits until a descriptor `epoll` watches is ready or `deadline` passes (nil: no
    /// deadline): the ready ones, the environment's own (its timer) left out.
    var wait: (Epoll, Int64?) throws(SystemError) -> [Epoll.Ready]
    /// systemd's notification (sd_notify: READY=1, STATUS=…, WATCHDOG=1, STOPPING=1).
    var notify: (String) -> Void
    /// The watchdog interval in µs when systemd asks for keep-alives (WatchdogSec=).
    var watchdog: Int64?
    /// SIGTERM, SIGINT and SIGHUP as a descriptor the loop watches; nil for a loop whose
    /// stops and reloads are asked by calls (`Daemon.requestStop`, `requestReload`).
    var signals: SignalSource?

    /// The real world: the loop sleeps in epoll until a descriptor or its timerfd wakes it.
    static func system(epoll: Epoll, log: @escaping LogFunction) throws(SystemError) -> LoopEnvironment {
        let timer = try DeadlineTimer()
        try epoll.add(timer.fd.number)
        let signals = try SignalSource([SignalSource.terminate, SignalSource.interrupt, SignalSource.hangup])
        try epoll.add(signals.fd.number)
        return LoopEnvironment(
            now: Clock.monotonicMicros,
            wait: { epoll, deadline throws(SystemError) in
                try timer.arm(at: deadline)
                var ready = try epoll.wait(timeoutMS: -1)
                if let k = ready.firstIndex(where: { $0.descriptor == timer.fd.number }) {
                    ready.remove(at: k)
                    do { try timer.acknowledge() } catch { log(.warning, "\(error)") }
                }
                return ready
            },
            notify: { Systemd.notify($0, log: log) },
            watchdog: Systemd.watchdogMicros(),
            signals: signals)
    }
}
