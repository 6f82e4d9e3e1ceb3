@preconcurrency import Glibc
import Foundation
import Testing
@testable import TouchSystem

/// The real-time guard on the real kernel (issue 48; docs/reliability.md, "Why a bug cannot
/// freeze the board"): a thread at SCHED_FIFO that never blocks is put back to SCHED_OTHER by
/// the kernel's SIGXCPU (RLIMIT_RTTIME's soft limit) and TouchSystem's handler, and the process
/// lives on. Needs the right to real-time priority (root, or RLIMIT_RTPRIO ≥ 1): CI runs as root.
final class ThreadResult<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}

@Suite(.serialized) struct ScheduleGuardTests {
    /// RLIMIT_RTTIME, which Glibc's Swift module does not name (glibc's value on Linux).
    static let rttime: Int32 = 15

    /// Runs `body` on a thread of its own and waits for it.
    func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ThreadResult<T>()
        let t = Thread { box.value = body(); box.done.signal() }
        t.start()
        box.done.wait()
        return box.value!
    }

    /// Restores RLIMIT_RTTIME afterwards (the guard lowers the process's hard limit; root may raise it again).
    func keepingTheLimit<T>(_ body: () -> T) -> T {
        var saved = rlimit()
        getrlimit(Self.rttime, &saved)
        defer { var r = saved; setrlimit(Self.rttime, &r) }
        return body()
    }

    struct Spin: Sendable {
        var refused: String?
        var before: Scheduling.Current?
        var after: Scheduling.Current?
        var cpuMillis = 0.0
    }

    @Test func aThreadThatNeverBlocksIsPutBackToNormalPriority() {
        let r: Spin = keepingTheLimit {
            onThread {
                var s = Spin()
                do throws(SystemError) { try Scheduling.requestRealtime(.fifo, priority: 1, cpuLimitMicros: 50_000, hardLimitMicros: 3_000_000) } catch {
                    s.refused = "\(error)"
                    return s
                }
                s.before = Scheduling.current()
                var t0 = timespec(), t = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0)
                // Spins (no system call that blocks) until demoted, 2 s of CPU at most.
                var ms = 0.0
                while Scheduling.current().policy != nil && ms < 2000 {
                    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
                    ms = Double(t.tv_sec - t0.tv_sec) * 1000 + Double(t.tv_nsec - t0.tv_nsec) / 1e6
                }
                s.after = Scheduling.current()
                s.cpuMillis = ms
                return s
            }
        }
        if let refused = r.refused {
            Issue.record("real-time priority refused (run as root, or with RLIMIT_RTPRIO ≥ 1): \(refused)")
            return
        }
        #expect(r.before == Scheduling.Current(policy: .fifo, priority: 1, resetOnFork: true))
        // Reset-on-fork kept: an unprivileged thread that cleared it would be refused (EPERM)
        // and stay at real-time priority (root, as here, may; the VM's systemd test runs the
        // daemon unprivileged).
        #expect(r.after == Scheduling.Current(policy: nil, priority: 0, resetOnFork: true), "still \(String(describing: r.after)) after \(r.cpuMillis) ms")
        // The kernel counts in ticks: the soft limit (50 ms) reached, well before the 2 s bound.
        #expect(r.cpuMillis >= 45 && r.cpuMillis < 1000, "\(r.cpuMillis) ms")
    }

    /// A refusal (here a priority the kernel does not have) throws and leaves the thread as it was.
    @Test func aRefusalLeavesTheThreadAsItWas() {
        let r: (SystemError?, Scheduling.Current) = keepingTheLimit {
            onThread {
                do throws(SystemError) { try Scheduling.requestRealtime(.roundRobin, priority: 100) } catch { return (error, Scheduling.current()) }
                return (nil, Scheduling.current())
            }
        }
        #expect(r.0?.errno == .invalidArgument && r.0?.call == "sched_setscheduler(SCHED_RR, 100)", "\(String(describing: r.0))")
        #expect(r.1 == Scheduling.Current(policy: nil, priority: 0))

    }

    /// dropRealtime steps down as the handler does, keeping reset-on-fork.
    @Test func droppingRealTimeKeepsResetOnFork() {
        let r: Spin = keepingTheLimit {
            onThread {
                var s = Spin()
                do throws(SystemError) {
                    try Scheduling.requestRealtime(.roundRobin, priority: 2)
                    s.before = Scheduling.current()
                    try Scheduling.dropRealtime()
                    s.after = Scheduling.current()
                } catch { s.refused = "\(error)" }
                return s
            }
        }
        #expect(r.refused == nil, "\(r.refused ?? "")")
        #expect(r.before == Scheduling.Current(policy: .roundRobin, priority: 2, resetOnFork: true))
        #expect(r.after == Scheduling.Current(policy: nil, priority: 0, resetOnFork: true))
    }
}
