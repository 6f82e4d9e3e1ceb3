@preconcurrency import Glibc

/// systemd's service-manager protocols, written from their documentation instead of linking
/// libsystemd (which brings libcap, libgcrypt, liblzma, libzstd, liblz4 and libgpg-error):
/// sd_notify(3) (readiness, status, watchdog pings), sd_watchdog_enabled(3) (the interval),
/// sd_listen_fds(3) with sd_is_socket(3) (socket activation). systemd documents these as stable
/// interfaces for programs to implement themselves. Without systemd (no NOTIFY_SOCKET, no
/// WATCHDOG_USEC, no LISTEN_PID) each one does nothing. The journal stream check is
/// `ThisProcess.standardErrorIsJournal` (Clock.swift).
///
/// The environment is read through parameters that default to the process's, so tests give
/// their own values instead of changing the process's environment.
public enum ServiceManager {
    /// A decimal number the way systemd writes one: digits only, no sign, no spaces, no overflow.
    static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        for c in text.utf8 {
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(c - UInt8(ascii: "0")))
            guard !o1 && !o2 else { return nil }
            value = sum
        }
        return value
    }

    /// A process id as systemd writes one: a positive decimal that fits pid_t.
    static func processID(_ text: String) -> Int32? {
        guard let v = decimal(text), v > 0, v <= UInt64(Int32.max) else { return nil }
        return Int32(v)
    }

    // MARK: Notifications (sd_notify(3))

    /// The address `NOTIFY_SOCKET` names: an absolute path, or with a leading "@" a name in
    /// Linux's abstract namespace (the "@" stands for the address's leading NUL byte, and the
    /// name is exactly the bytes after it: no terminating NUL, so the length counts). nil for
    /// anything else (a relative path, "@" alone, too long for sockaddr_un).
    static func notifyAddress(_ socket: String) -> (sockaddr_un, socklen_t)? {
        let bytes = Array(socket.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "/") || bytes[0] == UInt8(ascii: "@") else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        var addr = sockaddr_un()
        let room = MemoryLayout.size(ofValue: addr.sun_path)
        // A path needs its terminating NUL inside sun_path; an abstract name does not.
        guard bytes.count <= room - (abstract ? 0 : 1) else { return nil }
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            if abstract { raw[0] = 0 } else { raw[bytes.count] = 0 }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        return (addr, socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1)))
    }

    /// Sends `state` (newline-separated assignments: "READY=1\nSTATUS=…") as one datagram to
    /// the socket `NOTIFY_SOCKET` names. Returns false when there is none (not started by a
    /// service manager that listens: nothing to do, as sd_notify's 0); throws when the variable
    /// names no usable address (EAFNOSUPPORT, ENAMETOOLONG, as systemd's own reference code
    /// answers) or the send fails. The variable stays set (sd_notify with unset_environment 0):
    /// every later notification goes to the same socket.
    ///
    /// Blocks while the manager's queue is full, as sd_notify does: a notification is never
    /// dropped. The kernel attaches the sender's credentials (the manager's socket asks for
    /// them with SO_PASSCRED), so the datagram carries only the state.
    @discardableResult
    public static func notify(_ state: String, socket: String? = ThisProcess.environment("NOTIFY_SOCKET")) throws(SystemError) -> Bool {
        guard let socket else { return false }
        guard let (address, length) = notifyAddress(socket) else {
            let tooLong = socket.utf8.count >= 2 && (socket.hasPrefix("/") || socket.hasPrefix("@"))
            throw SystemError("NOTIFY_SOCKET", tooLong ? .nameTooLong : Errno(rawValue: EAFNOSUPPORT), path: socket)
        }
        let raw = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw .last("socket") }
        let fd = FileDescriptor(adopting: raw)
        let bytes = Array(state.utf8)
        var addr = address
        let sent = retryingEINTR {
            bytes.withUnsafeBytes { b in
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd.rawValue, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), $0, length)
                    }
                }
            }
        }
        guard sent >= 0 else { throw .last("sendto", path: socket) }
        // A datagram goes whole or not at all; a short count would be a broken kernel.
        guard sent == bytes.count else { throw SystemError("sendto", Errno(rawValue: EPROTO), path: socket) }
        return true
    }

    // MARK: Watchdog (sd_watchdog_enabled(3))

    /// The watchdog interval in microseconds when the manager expects keep-alive pings
    /// ("WATCHDOG=1", every half of it) from this process: WATCHDOG_USEC is set, a positive
    /// number below infinity, and WATCHDOG_PID is unset or this process's pid (a child that
    /// inherited its parent's variables is not the one watched). nil otherwise, a malformed
    /// value included (sd_watchdog_enabled's error, which the daemon read as "no watchdog").
    public static func watchdogMicros(usec: String? = ThisProcess.environment("WATCHDOG_USEC"),
                                      pid: String? = ThisProcess.environment("WATCHDOG_PID"),
                                      ownPID: Int32 = ThisProcess.id) -> Int64? {
        guard let usec, let micros = decimal(usec), micros > 0, micros < UInt64.max else { return nil }
        if let pid {
            guard let watched = processID(pid), watched == ownPID else { return nil }
        }
        return Int64(clamping: micros)
    }
}
