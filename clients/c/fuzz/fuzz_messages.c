/* libFuzzer target: bytes from a daemon, through the whole reading path.
 *
 * The first byte chooses options: bit 0 a 1,024-byte line limit (the over-long path), bits 1-5
 * requests sent before reading (attach, ping, subscribe, update, detach: reply matching and
 * window origins). The rest is what the "daemon" sends, then it closes the connection. The
 * client reads until the end; every message must be whole (type, json, touches readable), the
 * "closed" message must come once and cancel every touch, then ENOTCONN — within a bounded
 * number of calls, so a loop that stops making progress is a crash too.
 */
#include <errno.h>
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 100000) return 0;
    uint8_t options = data[0];
    data++, size--;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) abort();
    int buf = 1 << 20;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
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
    for (size_t off = 0; off < size;) {
        ssize_t n = write(sv[1], data + off, size - off);
        if (n <= 0) abort();                         /* the send buffer holds 1 MiB */
        off += (size_t)n;
    }
    close(sv[1]);
    size_t lines = 3;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    int closed = 0;
    for (size_t calls = 0;; calls++) {
        REQUIRE(calls <= lines + 2);
        const touchd_message *m = touchd_client_next(c, 1000);
        if (!m) {
            REQUIRE(errno == EBADMSG || errno == EMSGSIZE || errno == EPROTO || errno == ENOTCONN);
            REQUIRE(touchd_client_error(c)[0] != 0);
            if (errno == ENOTCONN) break;
            continue;
        }
        REQUIRE(!closed);
        REQUIRE(m->type && m->json);
        size_t sum = strlen(m->type) + strlen(m->json) + touch_strings(m->control) + touch_strings(m->event) +
                     touch_strings(m->view) + touch_strings(m->window) + touch_strings(m->error) +
                     touch_strings(m->reason);
        REQUIRE(m->touch_count == 0 || m->touches);
        for (size_t i = 0; i < m->touch_count; i++) {
            const touchd_touch *t = &m->touches[i];
            REQUIRE(t->phase);
            sum += strlen(t->phase) + touch_strings(t->window) + touch_strings(t->view) + touch_strings(t->reason);
        }
        if (touchd_client_fd(c) == -1) {             /* the library's own "closed" (a daemon may send one) */
            closed = 1;
            REQUIRE(strcmp(m->type, "closed") == 0);
            for (size_t i = 0; i < m->touch_count; i++) {
                REQUIRE(strcmp(m->touches[i].phase, "cancelled") == 0);
                REQUIRE(strcmp(m->touches[i].reason, "disconnected") == 0);
                for (size_t j = 0; j < i; j++) REQUIRE(m->touches[i].id != m->touches[j].id);
            }
        }
        (void)sum;
    }
    REQUIRE(touchd_client_next(c, 0) == NULL && errno == ENOTCONN);
    touchd_client_close(c);
    return 0;
}
