@preconcurrency import Glibc

/// A resolved UDP destination (IPv4 or IPv6).
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    public var family: Int32 { Int32(storage.ss_family) }
    public let text: String
    public var description: String { text }
}

/// UDP datagrams out (TUIO): non-blocking, one socket per address family.
public enum UDPSocket {
    /// The addresses a host name or literal stands for (getaddrinfo: numeric, /etc/hosts, DNS).
    public static func resolve(host: String, port: UInt16) throws(SystemError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let r = getaddrinfo(host, String(port), &hints, &list)
        guard r == 0 else {
            let why = String(cString: gai_strerror(r))
            throw SystemError("getaddrinfo(\(host)): \(why)", .invalidArgument)
        }
        defer { freeaddrinfo(list) }
        var out: [SocketAddress] = []
        var p = list
        while let a = p {
            if let sa = a.pointee.ai_addr, a.pointee.ai_addrlen <= socklen_t(MemoryLayout<sockaddr_storage>.size) {
                var s = SocketAddress(text: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
                withUnsafeMutableBytes(of: &s.storage) { dst in
                    dst.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(a.pointee.ai_addrlen)))
                }
                s.length = a.pointee.ai_addrlen
                out.append(s)
            }
            p = a.pointee.ai_next
        }
        return out
    }

    /// A non-blocking datagram socket of `family` (AF_INET or AF_INET6).
    public static func open(family: Int32) throws(SystemError) -> FileDescriptor {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .last("socket") }
        return FileDescriptor(adopting: fd)
    }

    /// Sends one datagram. A full socket buffer (EAGAIN) drops it (UDP: a later bundle and the
    /// periodic full state make up for it); false then.
    public static func send(_ fd: borrowing FileDescriptor, _ bytes: [UInt8], to address: SocketAddress) throws(SystemError) -> Bool {
        var a = address.storage
        let n = bytes.withUnsafeBytes { b in
            withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd.rawValue, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), $0, address.length)
                }
            }
        }
        if n >= 0 { return true }
        if Glibc.errno == EAGAIN || Glibc.errno == EWOULDBLOCK { return false }
        // A receiver that is not there (ICMP port unreachable surfacing on the next send).
        if Errno.current == .connectionRefused { return false }
        throw .last("sendto \(address)")
    }

    public static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count - 1) == 0 else { return "localhost" }
        return String(cString: buf)
    }
}
