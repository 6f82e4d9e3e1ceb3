/* touchd-watch: a small program written from the API in docs/client-c.md alone — it connects,
 * optionally attaches a window read from a file, and prints what touchd tells it, one line per
 * touch, control event, scroll and reply, until the connection ends; then every touch the
 * daemon left down, as the library hands it out: cancelled, reason "disconnected".
 *
 *   cc -o touchd-watch touchd-watch.c $(pkg-config --cflags --libs touchd-client)
 *   touchd-watch [--socket PATH] [--attach WINDOW.json]
 *
 * Exit status: 0 after the daemon said bye, 1 when the connection ended without it, 2 for a
 * usage or connection error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <touchd/client.h>

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

int main(int argc, char **argv) {
    const char *socket_path = NULL, *attach = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) socket_path = argv[++i];
        else if (strcmp(argv[i], "--attach") == 0 && i + 1 < argc) attach = argv[++i];
        else {
            fprintf(stderr, "usage: touchd-watch [--socket PATH] [--attach WINDOW.json]\n");
            return 2;
        }
    }
    touchd_client *c = touchd_client_connect(socket_path);
    if (!c) {
        fprintf(stderr, "touchd-watch: %s\n", touchd_client_error(NULL));
        return 2;
    }
    long attach_line = 0;
    if (attach) {
        char *window = read_file(attach);
        char request[(1 << 20) + 16];
        if (!window) {
            fprintf(stderr, "touchd-watch: %s: %s\n", attach, strerror(errno));
            return 2;
        }
        snprintf(request, sizeof request, "{\"attach\":%s}", window);
        attach_line = touchd_client_request(c, request);
        if (attach_line < 0) {
            fprintf(stderr, "touchd-watch: %s: %s\n", attach, touchd_client_error(c));
            return 2;
        }
    }
    int said_bye = 0;
    for (;;) {
        /* The way an event loop would: wait for the descriptor, then read what has come. */
        struct pollfd p = {.fd = touchd_client_fd(c), .events = POLLIN};
        if (poll(&p, 1, -1) < 0 && errno != EINTR) break;
        const touchd_message *m;
        while ((m = touchd_client_next(c, 0))) {
            if (strcmp(m->type, "frame") == 0 || strcmp(m->type, "closed") == 0) {
                if (strcmp(m->type, "closed") == 0) printf("closed: %s\n", m->reason);
                for (size_t i = 0; i < m->touch_count; i++) {
                    const touchd_touch *t = &m->touches[i];
                    printf("touch %ld %s %s/%s at %.1f,%.1f (in view %.1f,%.1f) taps %d%s%s\n", t->id, t->phase,
                           t->window ? t->window : "-", t->view ? t->view : "-", t->x, t->y, t->view_x, t->view_y,
                           t->tap_count, t->reason ? " reason " : "", t->reason ? t->reason : "");
                }
            } else if (strcmp(m->type, "control") == 0) {
                printf("control %s %s\n", m->control, m->event);
            } else if (strcmp(m->type, "scroll") == 0) {
                printf("scroll %s %.3f,%.3f\n", m->view, m->offset_x, m->offset_y);
            } else if (m->line) {
                printf("reply to line %ld%s: %s\n", m->line, m->line == attach_line ? " (attach)" : "", m->json);
            } else if (strcmp(m->type, "bye") == 0) {
                said_bye = 1;
                printf("bye: %s\n", m->reason ? m->reason : "");
            } else if (strcmp(m->type, "hello") == 0) {
                printf("hello\n");
            }
            fflush(stdout);
        }
        if (errno == ENOTCONN) break;
        if (errno != EAGAIN) fprintf(stderr, "touchd-watch: %s\n", touchd_client_error(c));
    }
    touchd_client_close(c);
    return said_bye ? 0 : 1;
}
