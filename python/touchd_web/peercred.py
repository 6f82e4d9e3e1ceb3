"""Who owns the other end of a loopback TCP connection: the kernel's socket diagnostics.

A TCP peer has no SO_PEERCRED. On loopback, though, both ends are sockets of this machine, and
the kernel's NETLINK_SOCK_DIAG interface (what `ss -e` reads) reports the user that owns a
socket. One request names the peer's socket exactly by its 4-tuple — its source is the peer's
address and port, its destination ours — and the answer (an inet_diag_msg) carries its uid.

The request, as <linux/inet_diag.h> and <linux/netlink.h> lay it out (native byte order but
the ports and addresses, which are big-endian):

    struct nlmsghdr        { u32 len; u16 type = SOCK_DIAG_BY_FAMILY (20); u16 flags = NLM_F_REQUEST;
                             u32 seq; u32 pid; }                                          16 bytes
    struct inet_diag_req_v2 { u8 family; u8 protocol = IPPROTO_TCP; u8 ext = 0; u8 pad;
                             u32 states = all; struct inet_diag_sockid id; }               56 bytes
    struct inet_diag_sockid { be16 sport; be16 dport; be32 src[4]; be32 dst[4]; u32 if;
                             u32 cookie[2] = INET_DIAG_NOCOOKIE }                          48 bytes

Without NLM_F_DUMP the kernel looks the one socket up (inet_diag_find_one_icsk) and answers
with one SOCK_DIAG_BY_FAMILY message — struct inet_diag_msg { u8 family, state, timer,
retrans; sockid id; u32 expires, rqueue, wqueue, uid, inode; }: the uid is at offset 64 — or
with NLMSG_ERROR (-ENOENT when no such socket). Standard library only (socket, struct).
"""
import ipaddress
import os
import socket
import struct

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 0x1
NLMSG_ERROR = 0x2
NOCOOKIE = 0xFFFFFFFF
ALL_STATES = 0xFFFFFFFF
UID_OFFSET = 4 + 48 + 12        # family..retrans, the sockid, expires rqueue wqueue


class PeerUnknown(Exception):
    """The kernel could not say who owns the peer socket (the reason says why)."""


def is_loopback(address):
    """True for 127.0.0.0/8, ::1 and ::ffff:127.x.y.z."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _packed(address):
    """(AF_INET or AF_INET6, 16 bytes as sockid holds it) for an address string."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped            # a dual-stack listener's IPv4 peer: its socket is AF_INET
    if isinstance(ip, ipaddress.IPv4Address):
        return socket.AF_INET, ip.packed + bytes(12)
    return socket.AF_INET6, ip.packed


def request(peer, local, seq=1):
    """The netlink message that asks for the socket whose source is peer (host, port) and whose
    destination is local (host, port): the other end of our connection."""
    family, src = _packed(peer[0])
    family_local, dst = _packed(local[0])
    if family != family_local:
        raise PeerUnknown("peer %s and local %s are of different families" % (peer[0], local[0]))
    sockid = struct.pack("!HH16s16s", peer[1], local[1], src, dst) + struct.pack("=III", 0, NOCOOKIE, NOCOOKIE)
    body = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, ALL_STATES) + sockid
    return struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, seq, 0) + body


def parse(reply, peer):
    """The uid from the kernel's answer to request(); PeerUnknown for an error or a short reply."""
    if len(reply) < 16:
        raise PeerUnknown("a short netlink reply (%d bytes)" % len(reply))
    length, kind = struct.unpack_from("=IH", reply, 0)
    if kind == NLMSG_ERROR:
        code = -struct.unpack_from("=i", reply, 16)[0] if len(reply) >= 20 else 0
        raise PeerUnknown("sock_diag: %s for the socket %s:%d" % (os.strerror(code) if code else "error",
                                                                  peer[0], peer[1]))
    if kind != SOCK_DIAG_BY_FAMILY or length < 16 + UID_OFFSET + 4 or len(reply) < 16 + UID_OFFSET + 4:
        raise PeerUnknown("sock_diag: an unexpected reply (type %d, %d bytes)" % (kind, length))
    sport = struct.unpack_from("!H", reply, 16 + 4)[0]
    if sport != peer[1]:
        raise PeerUnknown("sock_diag answered for port %d, not %d" % (sport, peer[1]))
    return struct.unpack_from("=I", reply, 16 + UID_OFFSET)[0]


def peer_uid(peer, local, timeout=1.0):
    """The uid owning the TCP socket at peer (host, port) connected to local (host, port).
    Raises PeerUnknown when the kernel cannot say (no sock_diag, the peer gone meanwhile)."""
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as nl:
            nl.settimeout(timeout)
            nl.sendto(request(peer, local), (0, 0))
            return parse(nl.recv(8192), peer)
    except OSError as e:
        raise PeerUnknown("sock_diag: %s" % (e.strerror or e)) from None
