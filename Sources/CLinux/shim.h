#ifndef TOUCHD_CLINUX_SHIM_H
#define TOUCHD_CLINUX_SHIM_H
/* Linux interfaces Glibc's Swift module does not expose: epoll, signalfd, timerfd, eventfd, SO_PEERCRED, malloc_trim. */
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <linux/fb.h>
#include <malloc.h>

/* The framebuffer's geometry (touchd calibrate draws its targets there); 0 on success. */
static inline int touchd_fb_info(int fd, unsigned *xres, unsigned *yres, unsigned *bpp, unsigned *line_length, unsigned long *size) {
    struct fb_var_screeninfo v;
    struct fb_fix_screeninfo f;
    if (ioctl(fd, FBIOGET_VSCREENINFO, &v) != 0 || ioctl(fd, FBIOGET_FSCREENINFO, &f) != 0) return -1;
    *xres = v.xres; *yres = v.yres; *bpp = v.bits_per_pixel; *line_length = f.line_length; *size = f.smem_len;
    return 0;
}

/* SO_PEERGROUPS (Linux 4.13): the kernel headers' value where they have it (it differs on a
   few architectures); older headers get the asm-generic number. */
#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
static const int touchd_so_peergroups = SO_PEERGROUPS;

static inline int touchd_peercred(int fd, int *pid, unsigned *uid, unsigned *gid) {
    /* struct ucred needs _GNU_SOURCE, which would clash with Glibc's Swift module: same layout. */
    struct { int pid; unsigned uid; unsigned gid; } c;
    socklen_t len = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0) return -1;
    *pid = c.pid; *uid = c.uid; *gid = c.gid;
    return 0;
}

/* accept4 is a GNU extension the Swift Glibc module hides; the prototype is glibc's. */
int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int touchd_accept(int fd) { return accept4(fd, 0, 0, SOCK_CLOEXEC | SOCK_NONBLOCK); }

static inline int touchd_epoll_event_fd(const struct epoll_event *e) { return e->data.fd; }
static inline unsigned touchd_epoll_event_events(const struct epoll_event *e) { return e->events; }
static inline void touchd_epoll_event_set(struct epoll_event *e, unsigned events, int fd) {
    e->events = events;
    e->data.u64 = 0;
    e->data.fd = fd;
}

/* timerfd_settime with an absolute CLOCK_MONOTONIC deadline in microseconds (0 disarms). */
static inline int touchd_timerfd_arm(int fd, long long micros) {
    struct itimerspec spec = {0};
    if (micros > 0) {
        spec.it_value.tv_sec = micros / 1000000;
        spec.it_value.tv_nsec = (micros % 1000000) * 1000;
    }
    return timerfd_settime(fd, micros > 0 ? TFD_TIMER_ABSTIME : 0, &spec, 0);
}
#endif
