/* libFuzzer target: bytes from a daemon, through the whole reading path.
 *
 * The first byte chooses options: bit 0 a 1,024-byte line limit (the over-long path), bits 1-5
 * requests sent before reading (attach, ping, subscribe, update, detach: reply matching and
 * window origins). The rest, up to 1 MiB, is what the "daemon" sends (into the socket as
 * fast as it takes it, the client reading meanwhile), then it closes the connection. The
 * client reads until the end; every message must be whole (type, json, touches readable), the
 * "closed" message must come once and cancel every touch, then ENOTCONN — within a bounded
 * number of calls, so a loop that stops making progress is a crash too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) __builtin_trap();                                                         \
    } while (0)

static size_t touch_strings(const char *s) {
    return s ? strlen(s) : 0;
}

/* Checks one return of touchd_client_next; 1 when it was the library's "closed". */
static int check(touchd_client *c, const touchd_message *m, int *closed) {
    if (!m) {
        REQUIRE(errno == EBADMSG || errno == EMSGSIZE || errno == EPROTO || errno == ENOTCONN || errno == EAGAIN);
        REQUIRE(touchd_client_error(c)[0] != 0);
        return 0;
    }
    REQUIRE(!*closed);
    REQUIRE(m->type && m->json);
    size_t sum = strlen(m->type) + strlen(m->json) + touch_strings(m->control) + touch_strings(m->event) +
                 touch_strings(m->view) + touch_strings(m->window) + touch_strings(m->error) +
                 touch_strings(m->reason);
    REQUIRE(m->touch_count == 0 || m->touches);
    REQUIRE(m->touch_count <= TOUCHD_CLIENT_MAX_DOWN);
    for (size_t i = 0; i < m->touch_count; i++) {
        const touchd_touch *t = &m->touches[i];
        REQUIRE(t->phase);
        sum += strlen(t->phase) + touch_strings(t->window) + touch_strings(t->view) + touch_strings(t->reason);
    }
    if (touchd_client_fd(c) == -1) {                 /* the library's own "closed" (a daemon may send one) */
        *closed = 1;
        REQUIRE(strcmp(m->type, "closed") == 0);
        for (size_t i = 0; i < m->touch_count; i++) {
            REQUIRE(strcmp(m->touches[i].phase, "cancelled") == 0);
            REQUIRE(strcmp(m->touches[i].reason, "disconnected") == 0);
            for (size_t j = 0; j < i; j++) REQUIRE(m->touches[i].id != m->touches[j].id);
        }
    }
    (void)sum;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1u << 20) + 1) return 0;  /* up to 1 MiB from the daemon */
    uint8_t options = data[0];
    data++, size--;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) abort();
    REQUIRE(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
    touchd_client *c = touchd_client__from_fd(sv[0]);
    REQUIRE(c);
    if (options & 1) REQUIRE(touchd_client_set_max_line(c, 1024) == 0);
    long line = 0;
    static const char *requests[] = {
        "{\"attach\":{\"id\":\"w\",\"frame\":[10,20,100,100],\"view\":{\"id\":\"v\",\"frame\":[0,0,100,100]}}}",
        "{\"ping\":1}", "{\"subscribe\":{\"types\":[\"frame\"]}}",
        "{\"update\":{\"window\":\"w\",\"changes\":[{\"window\":{\"frame\":[5,5,10,10]}}]}}",
        "{\"detach\":{\"window\":\"w\"}}"};
    for (int i = 0; i < 5; i++)
        if (options & (2 << i)) REQUIRE(touchd_client_request(c, requests[i]) == ++line);
    size_t lines = 3;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    int closed = 0;
    size_t calls = 0;
    /* What the daemon sends goes in as the socket takes it; meanwhile the client reads (as an
       application would), each call returning at most one chunk's worth: never stuck. */
    for (size_t off = 0, stalls = 0; off < size;) {
        ssize_t n = send(sv[1], data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            stalls = 0;
            continue;
        }
        REQUIRE(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
        const touchd_message *m = touchd_client_next(c, 0);
        if (!m && errno == EAGAIN) {
            REQUIRE(++stalls < 1000);
            continue;
        }
        calls++;
        REQUIRE(calls <= lines + 2);
        check(c, m, &closed);
    }
    close(sv[1]);
    for (;; calls++) {
        REQUIRE(calls <= lines + 2);
        const touchd_message *m = touchd_client_next(c, 1000);
        if (!m && errno == ENOTCONN) break;
        REQUIRE(m || errno != EAGAIN);           /* everything has come: a second is plenty */
        check(c, m, &closed);
    }
    REQUIRE(closed);
    REQUIRE(touchd_client_next(c, 0) == NULL && errno == ENOTCONN);
    touchd_client_close(c);
    return 0;
}
