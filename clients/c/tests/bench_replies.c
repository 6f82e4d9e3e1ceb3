/* How long draining many outstanding replies takes: N pings sent, then the fake daemon answers
 * them all (N pongs, which carry no line: the library gives each the line of the oldest ping
 * unanswered) and the client reads them. Prints the figures, asserts only that every pong got
 * its ping's line (timing is printed, never asserted).
 *
 *   bench_replies [N...]        default 10000 20000 40000 80000
 */
#include "harness.h"

#include <sys/resource.h>

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench(long n) {
    int s;
    touchd_client *c = fake_daemon(&s);
    pid_t daemon = fork();
    if (daemon == 0) {                      /* reads the n requests, then answers them all */
        close(touchd_client_fd(c));
        char buf[65536];
        long lines = 0;
        while (lines < n) {
            ssize_t r = read(s, buf, sizeof buf);
            if (r <= 0) _exit(1);
            for (ssize_t i = 0; i < r; i++) lines += buf[i] == '\n';
        }
        static const char pong[] = "{\"type\":\"pong\",\"ping\":1}\n";
        for (long i = 0; i < n; i++) send_text(s, pong, sizeof pong - 1);
        _exit(0);
    }
    close(s);
    double t0 = seconds();
    for (long i = 1; i <= n; i++)
        if (touchd_client_request(c, "{\"ping\":1}") != i) FAIL("request %ld: %s", i, touchd_client_error(c));
    double t1 = seconds();
    for (long i = 1; i <= n; i++) {
        const touchd_message *m = touchd_client_next(c, 10000);
        if (!m) FAIL("pong %ld: errno %d: %s", i, errno, touchd_client_error(c));
        CHECK_STR(m->type, "pong");
        if (m->line != i) FAIL("pong %ld answers line %ld", i, m->line);
    }
    double t2 = seconds();
    CHECK_INT(waitpid(daemon, NULL, 0), daemon);
    printf("bench_replies: %6ld outstanding: sent in %.3f s, replies drained in %.3f s (%.2f us each)\n", n,
           t1 - t0, t2 - t1, (t2 - t1) / (double)n * 1e6);
    fflush(stdout);
    touchd_client_close(c);
}

int main(int argc, char **argv) {
    begin("many outstanding replies", 600);
    if (argc > 1)
        for (int i = 1; i < argc; i++) bench(atol(argv[i]));
    else
        for (long n = 10000; n <= 80000; n *= 2) bench(n);
    remove_tmpdir();
    end();
    return 0;
}
