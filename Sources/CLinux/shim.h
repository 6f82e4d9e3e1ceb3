#ifndef TOUCHD_CLINUX_SHIM_H
#define TOUCHD_CLINUX_SHIM_H
/* Linux interfaces Glibc's Swift module does not expose: epoll, signalfd, SO_PEERCRED. */
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>

static inline int touchd_peercred(int fd, int *pid, unsigned *uid, unsigned *gid) {
    /* struct ucred needs _GNU_SOURCE, which would clash with Glibc's Swift module: same layout. */
    struct { int pid; unsigned uid; unsigned gid; } c;
    socklen_t len = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0) return -1;
    *pid = c.pid; *uid = c.uid; *gid = c.gid;
    return 0;
}

static inline int touchd_epoll_event_fd(const struct epoll_event *e) { return e->data.fd; }
static inline unsigned touchd_epoll_event_events(const struct epoll_event *e) { return e->events; }
static inline void touchd_epoll_event_set(struct epoll_event *e, unsigned events, int fd) {
    e->events = events;
    e->data.u64 = 0;
    e->data.fd = fd;
}
#endif
