import TouchCore
import TouchSystem

/// The daemon's side of systemd's protocols (TouchSystem's ServiceManager and SocketActivation:
/// no libsystemd): readiness and status, the watchdog interval, the activated socket, and what
/// is logged when one of them cannot be followed. Without systemd (no NOTIFY_SOCKET, no
/// WATCHDOG_USEC, no LISTEN_PID) every call is a no-op.
enum Systemd {
    /// Sends `state` to the manager; a failure is logged (systemd then sees no readiness, no
    /// ping: the log says why), never fatal.
    static func notify(_ state: String, log: LogFunction) {
        do { try ServiceManager.notify(state) } catch {
            log(.warning, "cannot notify systemd (\(state.split(separator: "\n").first ?? "")): \(error)")
        }
    }

    /// The watchdog interval in microseconds when WatchdogSec= is set for this process.
    static func watchdogMicros() -> Int64? { ServiceManager.watchdogMicros() }

    /// The listening Unix stream socket systemd passed (LISTEN_FDS / LISTEN_PID), nil when it
    /// passed none. Variables meant for this process that cannot be followed — a malformed
    /// count, a descriptor that is not open, no listening Unix stream socket among them — stop
    /// the start: binding a socket of its own instead would hide a broken unit (and fail
    /// anyway on the path the socket unit holds).
    static func activatedSocket(log: LogFunction) throws(CommandFailure) -> Descriptor? {
        do {
            guard let passed = try SocketActivation.take() else { return nil }
            let chosen = try SocketActivation.listeningUnixStream(in: passed)
            for other in passed where other != chosen {
                log(.warning, "ignoring \(other), also passed by systemd: touchd listens on one socket")
            }
            return chosen.descriptor
        } catch {
            throw CommandFailure("socket activation: \(error.message)")
        }
    }
}
