/* White-box tests of libtouchd-client, built with its sources (src/internal.h) under
 * AddressSanitizer and UBSan: costs counted by the library itself (no timing asserted). */
#include "harness.h"

#include "internal.h"

/* A client on one end of a socketpair; the other end in *peer. */
static touchd_client *pair_client(int *peer) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) FAIL("socketpair: %s", strerror(errno));
    touchd_client *c = touchd_client__from_fd(sv[0]);
    if (!c) FAIL("touchd_client__from_fd: %s", strerror(errno));
    *peer = sv[1];
    return c;
}

/* A daemon in a child: reads n request lines, then writes `reply` n times and closes. */
static pid_t answering_daemon(touchd_client *c, int s, long n, const char *reply) {
    pid_t pid = fork();
    if (pid < 0) FAIL("fork: %s", strerror(errno));
    if (pid > 0) {
        close(s);
        return pid;
    }
    close(touchd_client_fd(c));
    char buf[65536];
    long lines = 0;
    while (lines < n) {
        ssize_t r = read(s, buf, sizeof buf);
        if (r <= 0) _exit(1);
        for (ssize_t i = 0; i < r; i++) lines += buf[i] == '\n';
    }
    for (long i = 0; i < n; i++) send_str(s, reply);
    _exit(0);
}

static void test_reply_matching_is_linear(void) {
    begin("matching replies to requests: steps grow linearly with the replies outstanding", 120);
    const long n = 20000;
    int s;
    touchd_client *c = pair_client(&s);
    pid_t d = answering_daemon(c, s, n, "{\"type\":\"pong\",\"ping\":1}\n");
    for (long i = 1; i <= n; i++) CHECK_INT(touchd_client_request(c, "{\"ping\":1}"), i);
    c->reply_steps = 0;
    for (long i = 1; i <= n; i++) {
        const touchd_message *m = touchd_client_next(c, 10000);
        if (!m) FAIL("pong %ld: %s", i, touchd_client_error(c));
        CHECK_INT(m->line, i);
    }
    fprintf(stderr, "  %ld replies matched in %llu steps\n", n, c->reply_steps);
    CHECK(c->reply_steps <= 4 * (unsigned long long)n);
    CHECK_INT(c->npending, 0);
    CHECK_INT(waitpid(d, NULL, 0), d);
    touchd_client_close(c);

    /* Pongs nobody asked for while many other requests wait: each costs nothing to match. */
    c = pair_client(&s);
    d = answering_daemon(c, s, n, "{\"type\":\"pong\",\"ping\":1}\n");
    for (long i = 1; i <= n; i++) CHECK_INT(touchd_client_request(c, "{\"detach\":{\"window\":\"w\"}}"), i);
    c->reply_steps = 0;
    for (long i = 1; i <= n; i++) {
        const touchd_message *m = touchd_client_next(c, 10000);
        if (!m) FAIL("pong %ld: %s", i, touchd_client_error(c));
        CHECK_INT(m->line, 0);
    }
    fprintf(stderr, "  %ld pongs with no ping outstanding (%ld detaches) matched in %llu steps\n", n, n, c->reply_steps);
    CHECK(c->reply_steps <= (unsigned long long)n);
    CHECK_INT(c->npending, n);
    CHECK_INT(waitpid(d, NULL, 0), d);
    touchd_client_close(c);
    end();
}

int main(void) {
    test_reply_matching_is_linear();
    fprintf(stderr, "test_internal: all passed\n");
    return 0;
}
