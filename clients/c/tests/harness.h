/* A small test harness for the C client's tests: checks that name their place, a watchdog per
 * test (SIGALRM), a temporary directory, a fake daemon (a listening socket whose accepted end
 * the test writes to) and the real daemon started with `touchd run`. */
#ifndef TOUCHD_CLIENT_TEST_HARNESS_H
#define TOUCHD_CLIENT_TEST_HARNESS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <touchd/client.h>
#include <unistd.h>

static const char *current_test = "?";
static pid_t daemon_pid;   /* killed by the watchdog and by a failed check */

#define FAIL(...)                                                                   \
    do {                                                                            \
        fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, current_test);           \
        fprintf(stderr, __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                        \
        if (daemon_pid > 0) kill(daemon_pid, SIGKILL);                              \
        exit(1);                                                                    \
    } while (0)
#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) FAIL("check failed: %s", #cond);                               \
    } while (0)
#define CHECK_STR(a, b)                                                             \
    do {                                                                            \
        const char *a_ = (a), *b_ = (b);                                            \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                      \
            FAIL("%s is \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
    } while (0)
#define CHECK_INT(a, b)                                                             \
    do {                                                                            \
        long long a_ = (long long)(a), b_ = (long long)(b);                        \
        if (a_ != b_) FAIL("%s is %lld, expected %lld", #a, a_, b_);                \
    } while (0)
#define CHECK_NEAR(a, b)                                                            \
    do {                                                                            \
        double a_ = (a), b_ = (b);                                                  \
        if (!(a_ - b_ < 0.001 && b_ - a_ < 0.001)) FAIL("%s is %.4f, expected %.4f", #a, a_, b_); \
    } while (0)
#define CHECK_CONTAINS(s, part)                                                     \
    do {                                                                            \
        const char *s_ = (s);                                                       \
        if (!s_ || !strstr(s_, (part))) FAIL("%s is \"%s\", expected it to contain \"%s\"", #s, s_ ? s_ : "(null)", (part)); \
    } while (0)

static __attribute__((unused)) void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "test timed out (watchdog)\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
    if (daemon_pid > 0) kill(daemon_pid, SIGKILL);
    _exit(3);
}

/* Starts a test: its name for the messages, and a watchdog of `seconds`. */
static __attribute__((unused)) void begin(const char *name, unsigned seconds) {
    current_test = name;
    signal(SIGALRM, on_alarm);
    signal(SIGPIPE, SIG_IGN);
    alarm(seconds);
    fprintf(stderr, "test %s ...\n", name);
}

static __attribute__((unused)) void end(void) {
    alarm(0);
    fprintf(stderr, "test %s: ok\n", current_test);
}

static __attribute__((unused)) long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char tmpdir[128];

static __attribute__((unused)) const char *temp_path(const char *name) {
    static char paths[8][256];
    static int next;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/touchd-c-test-XXXXXX");
        if (!mkdtemp(tmpdir)) FAIL("mkdtemp: %s", strerror(errno));
    }
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s", tmpdir, name);
    return p;
}

static __attribute__((unused)) void remove_tmpdir(void) {
    if (!tmpdir[0]) return;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* A listening Unix socket at path. */
static __attribute__((unused)) int listen_at(const char *path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4) < 0)
        FAIL("listen on %s: %s", path, strerror(errno));
    return fd;
}

/* A fake daemon: a client connected to it, and the server's end of the connection. */
static __attribute__((unused)) touchd_client *fake_daemon(int *server) {
    const char *path = temp_path("fake.sock");
    int l = listen_at(path);
    touchd_client *c = touchd_client_connect(path);
    if (!c) FAIL("connect: %s", touchd_client_error(NULL));
    *server = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    if (*server < 0) FAIL("accept: %s", strerror(errno));
    close(l);
    return c;
}

static __attribute__((unused)) void send_text(int fd, const char *text, size_t len) {
    while (len) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) FAIL("write to the client: %s", strerror(errno));
        text += n;
        len -= (size_t)n;
    }
}

static __attribute__((unused)) void send_str(int fd, const char *text) {
    send_text(fd, text, strlen(text));
}

/* The repository's top (TOUCHD_TOP, else the current directory) and the touchd binary, by
   every harness's rule (scripts/lib/binary.py, docs/development.md): TOUCHD_BINARY when set and
   not empty, else the newest executable of .build/debug/touchd and .build/release/touchd there
   (debug on a tie, to the nanosecond). */
static __attribute__((unused)) const char *top_dir(void) {
    const char *t = getenv("TOUCHD_TOP");
    return t && *t ? t : ".";
}

static __attribute__((unused)) const char *repo_path(const char *rel) {
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 1024, "%s/%s", top_dir(), rel);
    return p;
}

static __attribute__((unused)) const char *touchd_binary(void) {
    const char *t = getenv("TOUCHD_BINARY");
    if (t && *t) return t;
    static char best[1024];
    const char *candidates[] = {".build/debug/touchd", ".build/release/touchd"};
    long long newest = -1;
    for (int i = 0; i < 2; i++) {   /* strictly newer: the first of equals stays */
        struct stat st;
        const char *p = repo_path(candidates[i]);
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) || access(p, X_OK) != 0) continue;
        long long ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        if (ns > newest) {
            newest = ns;
            snprintf(best, sizeof best, "%s", p);
        }
    }
    if (newest < 0) FAIL("no touchd: build it (swift build) or set TOUCHD_BINARY=path/to/touchd");
    return best;
}

/* Starts `touchd run --socket SOCK ARGS…` (stderr to a log in the temporary directory) and
   waits until its socket accepts connections. */
static __attribute__((unused)) pid_t start_daemon(const char *sock, const char *const *args) {
    const char *log = temp_path("daemon.log");
    unlink(sock);                                   /* a killed daemon's socket stays behind */
    const char *argv[32];
    int n = 0;
    argv[n++] = touchd_binary();
    argv[n++] = "run";
    argv[n++] = "--socket";
    argv[n++] = sock;
    for (int i = 0; args[i] && n < 30; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) dup2(fd, 2);
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    daemon_pid = pid;
    for (int i = 0; i < 200; i++) {
        struct stat st;
        if (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode)) return pid;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) FAIL("touchd run exited at once (log: %s)", log);
        usleep(25000);
    }
    kill(pid, SIGKILL);
    FAIL("touchd run did not open %s within 5 s (log: %s)", sock, log);
}

/* Waits for the daemon to exit; its exit status (or 128 + signal). */
static __attribute__((unused)) int wait_daemon(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) FAIL("waitpid: %s", strerror(errno));
    daemon_pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
