#ifndef TOUCHD_CLINUX_SHIM_H
#define TOUCHD_CLINUX_SHIM_H
/* Linux interfaces Glibc's Swift module does not expose: epoll, signalfd, timerfd, eventfd, SO_PEERCRED, malloc_trim,
   SCHED_RESET_ON_FORK and a SIGXCPU handler for the real-time guard. */
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
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/resource.h>

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

/* Real-time scheduling with a guard (TouchSystem's Scheduling.swift).
   SCHED_RESET_ON_FORK (<sched.h> hides it without _GNU_SOURCE, which clashes with Glibc's
   Swift module): threads and children made later start at normal priority. */
#define TOUCHD_SCHED_RESET_ON_FORK 0x40000000

/* SIGXCPU, sent when a real-time thread has run RLIMIT_RTTIME's soft limit without blocking:
   back to SCHED_OTHER at once, the thread that ran too long and the main thread (the loop's).
   Two system calls, nothing else: async-signal-safe, and no state (the loop sees the policy).
   Reset-on-fork stays set: the kernel refuses an unprivileged thread that clears it (EPERM),
   so without it a daemon without root could never step down. */
static void touchd_rttime_exceeded(int sig) {
    (void)sig;
    struct sched_param normal = {0};
    sched_setscheduler(0, SCHED_OTHER | TOUCHD_SCHED_RESET_ON_FORK, &normal);
    sched_setscheduler(getpid(), SCHED_OTHER | TOUCHD_SCHED_RESET_ON_FORK, &normal);
}

/* Installs the SIGXCPU handler and sets RLIMIT_RTTIME (µs; the hard limit is only lowered,
   never raised: an unprivileged process could not); 0, or -1 with errno. */
static inline int touchd_rt_guard(unsigned long soft_us, unsigned long hard_us) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = touchd_rttime_exceeded;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGXCPU, &sa, 0) != 0) return -1;
    sigset_t xcpu;
    sigemptyset(&xcpu);
    sigaddset(&xcpu, SIGXCPU);
    if (sigprocmask(SIG_UNBLOCK, &xcpu, 0) != 0) return -1;
    struct rlimit r;
    if (getrlimit(RLIMIT_RTTIME, &r) != 0) return -1;
    if (r.rlim_max == RLIM_INFINITY || r.rlim_max > hard_us) r.rlim_max = hard_us;
    r.rlim_cur = soft_us < r.rlim_max ? soft_us : r.rlim_max;
    return setrlimit(RLIMIT_RTTIME, &r);
}

/* sched_setscheduler of this thread with reset-on-fork; 0, or -1 with errno. */
static inline int touchd_set_realtime(int policy, int priority) {
    struct sched_param p = {0};
    p.sched_priority = priority;
    return sched_setscheduler(0, policy | TOUCHD_SCHED_RESET_ON_FORK, &p);
}

/* The policy of this thread (with the reset-on-fork bit: TOUCHD_SCHED_RESET_ON_FORK), and its
   real-time priority. */
static inline int touchd_current_policy(int *priority) {
    struct sched_param p = {0};
    *priority = sched_getparam(0, &p) == 0 ? p.sched_priority : 0;
    return sched_getscheduler(0);
}

/* Back to SCHED_OTHER, keeping reset-on-fork (see touchd_rttime_exceeded). */
static inline int touchd_drop_realtime(void) {
    struct sched_param normal = {0};
    return sched_setscheduler(0, SCHED_OTHER | TOUCHD_SCHED_RESET_ON_FORK, &normal);
}

/* RLIMIT_RTPRIO's soft limit (the highest priority an unprivileged process may ask for). */
static inline long touchd_rtprio_limit(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_RTPRIO, &r) != 0) return -1;
    return r.rlim_cur == RLIM_INFINITY ? 99 : (long)r.rlim_cur;
}
#endif
