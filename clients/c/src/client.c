/* libtouchd-client: see include/touchd/client.h and docs/client-c.md. This file is the I/O,
 * the top of the library's one-way layers (client.c → message.c → dispatch.c → strict.c,
 * util.c; `make check` checks the direction): the connection, the bounded reading of lines,
 * touchd_client_next, sending requests, and the "closed" message when the connection ends.
 *
 * One connection, non-blocking, read into a bounded buffer; each line from the daemon goes to
 * message.c, which parses it with json-c, checks it is strict JSON (strict.c) and fills a
 * touchd_message whose strings point into the parsed object, valid until the next call; what
 * the message changes — the touches down, the requests waiting for replies, the windows this
 * client attached — is dispatch.c's.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- the connection ---------------------------------------------------------------------- */

static touchd_client *client_new(int fd) {
    touchd_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->fd = fd;
    c->max_line = TOUCHD_CLIENT_MAX_LINE;
    c->send_timeout_ms = SEND_TIMEOUT_MS;
    c->tok = json_tokener_new_ex(JSON_DEPTH);
    c->down = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *c->down);
    track_scratch *t = &c->track;
    t->ids = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *t->ids);
    t->at = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *t->at);
    t->window = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *t->window);
    t->view = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *t->view);
    t->fresh = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *t->fresh);
    if (!c->tok || !c->down || !t->ids || !t->at || !t->window || !t->view || !t->fresh) {
        c->fd = -1;                                 /* the caller's to close */
        touchd_client_close(c);
        return NULL;
    }
    json_tokener_set_flags(c->tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    return c;
}

touchd_client *touchd_client__from_fd(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return NULL;
    touchd_client *c = client_new(fd);
    if (!c) errno = ENOMEM;
    return c;
}

EXPORT touchd_client *touchd_client_connect(const char *socket_path) {
    const char *path = socket_path;
    if (!path) {
        path = getenv("TOUCHD_SOCKET");
        if (!path || !*path) path = DEFAULT_SOCKET;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof addr.sun_path) {
        td_set_error(NULL, n ? ENAMETOOLONG : EINVAL,
                  "touchd_client_connect: socket path %s (%zu bytes; a Unix socket path has 1 to %zu)",
                  n ? "too long" : "empty", n, sizeof addr.sun_path - 1);
        return NULL;
    }
    memcpy(addr.sun_path, path, n + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        int e = errno;
        td_set_error(NULL, e, "touchd_client_connect: socket: %s", strerror(e));
        return NULL;
    }
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        const char *hint = "";
        if (e == ENOENT || e == ECONNREFUSED)
            hint = " (is the daemon running? touchd run --socket PATH; TOUCHD_SOCKET names the socket)";
        else if (e == EACCES)
            hint = " (the socket is for its group, input by default: run as a member of it)";
        td_set_error(NULL, e, "touchd_client_connect: %s: %s%s", path, strerror(e), hint);
        close(fd);
        return NULL;
    }
    touchd_client *c = touchd_client__from_fd(fd);
    if (!c) {
        int e = errno;
        td_set_error(NULL, e, "touchd_client_connect: %s: %s", path, strerror(e));
        close(fd);
        return NULL;
    }
    return c;
}

static void release_message(touchd_client *c) {
    if (c->cur) json_object_put(c->cur);
    c->cur = NULL;
    memset(&c->msg, 0, sizeof c->msg);
    if (c->line_cap > KEEP_LINE_BUFFER) {
        free(c->line);
        c->line = NULL;
        c->line_cap = 0;
    }
}

EXPORT void touchd_client_close(touchd_client *c) {
    if (!c) return;
    release_message(c);
    if (c->fd >= 0) close(c->fd);
    td_forget_all(c);
    if (c->tok) json_tokener_free(c->tok);
    free(c->down);
    free(c->track.ids), free(c->track.at), free(c->track.window), free(c->track.view), free(c->track.fresh);
    free(c->pending);
    free(c->windows);
    free(c->touches);
    free(c->line);
    free(c->buf);
    free(c);
}

EXPORT int touchd_client_fd(const touchd_client *c) {
    return c ? c->fd : -1;
}

EXPORT int touchd_client_set_max_line(touchd_client *c, size_t bytes) {
    if (!c || bytes < 1024) {
        if (c) td_set_error(c, EINVAL, "touchd_client_set_max_line: %zu bytes (at least 1024)", bytes);
        else errno = EINVAL;
        return -1;
    }
    c->max_line = bytes;
    return 0;
}

/* The connection is over (EOF or an error): next() hands out what is buffered, then "closed". */
static void ended(touchd_client *c, const char *reason) {
    if (c->state != OPEN) return;
    c->state = ENDED;
    snprintf(c->reason, sizeof c->reason, "%s", c->bye[0] ? c->bye : reason);
}

/* ---- reading ----------------------------------------------------------------------------- */

/* Whether the buffer has room for one more read of CHUNK bytes, making it (moving what is
   unread to the front, growing the buffer) when the limit allows: at most max_line plus two
   chunks unread. 0 when it is full of lines the application has not taken yet (or no memory). */
static int read_room(touchd_client *c) {
    if (c->cap - c->end < CHUNK && c->start > 0) {
        memmove(c->buf, c->buf + c->start, c->end - c->start);
        c->end -= c->start;
        c->scan -= c->start;
        c->start = 0;
    }
    if (c->cap - c->end < CHUNK) {
        size_t want = c->end + CHUNK;
        if (want > c->max_line + 2 * CHUNK) return 0;
        size_t cap = c->cap ? c->cap : CHUNK;
        while (cap < want) cap *= 2;
        char *b = realloc(c->buf, cap);
        if (!b) return 0;
        c->buf = b;
        c->cap = cap;
    }
    return 1;
}

/* One read of up to CHUNK bytes. 1: read something (or the connection ended: state ENDED),
   0: nothing to read now, -1: no room to read into (read_room). */
static int fill(touchd_client *c) {
    if (c->state != OPEN) return 0;
    if (!read_room(c)) return -1;
    ssize_t n = recv(c->fd, c->buf + c->end, CHUNK, MSG_DONTWAIT);
    if (n > 0) {
        c->end += (size_t)n;
        return 1;
    }
    if (n == 0) {
        ended(c, "the daemon closed the connection");
        return 1;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
    char why[200];
    snprintf(why, sizeof why, "reading from the daemon failed: %s", strerror(errno));
    ended(c, why);
    return 1;
}

/* The next complete line in the buffer: 1 (line set, its '\n' replaced by NUL), 0 (none yet),
   -1 (a line over the limit was found and is being skipped: EMSGSIZE). */
static int take_line(touchd_client *c, char **line, size_t *len) {
    if (!c->buf) return 0;                          /* nothing read yet (or released when idle) */
    if (c->skipping) {
        char *nl = memchr(c->buf + c->start, '\n', c->end - c->start);
        if (!nl) {
            c->start = c->end = c->scan = 0;
            return 0;
        }
        c->start = c->scan = (size_t)(nl - c->buf) + 1;
        c->skipping = 0;
    }
    char *nl = memchr(c->buf + c->scan, '\n', c->end - c->scan);
    if (!nl) {
        c->scan = c->end;
        if (c->end - c->start > c->max_line) {
            c->lines_in++;
            c->skipping = 1;
            size_t had = c->end - c->start;
            c->start = c->end = c->scan = 0;
            td_set_error(c, EMSGSIZE,
                      "touchd_client_next: line %ld from the daemon is longer than %zu bytes "
                      "(%zu so far): skipped to its end without being kept",
                      c->lines_in, c->max_line, had);
            return -1;
        }
        if (c->start == c->end && c->cap > KEEP_LINE_BUFFER) {
            free(c->buf);
            c->buf = NULL;
            c->cap = c->start = c->end = c->scan = 0;
        }
        return 0;
    }
    *line = c->buf + c->start;
    *len = (size_t)(nl - *line);
    *nl = '\0';
    c->start = c->scan = (size_t)(nl - c->buf) + 1;
    c->lines_in++;
    if (*len > c->max_line) {
        td_set_error(c, EMSGSIZE, "touchd_client_next: line %ld from the daemon is longer than %zu bytes (%zu): skipped",
                  c->lines_in, c->max_line, *len);
        return -1;
    }
    return 1;
}

/* The connection's end: the socket closed, then the "closed" message (dispatch.c makes it from
   the touches still down). */
static const touchd_message *closed_message(touchd_client *c) {
    c->state = DONE;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    return td_closed_message(c);
}

EXPORT const touchd_message *touchd_client_next(touchd_client *c, int timeout_ms) {
    if (!c) {
        errno = EINVAL;
        return NULL;
    }
    release_message(c);
    if (c->state == DONE) {
        td_set_error(c, ENOTCONN, "touchd_client_next: the connection is closed (%s)", c->reason);
        return NULL;
    }
    int64_t deadline = timeout_ms < 0 ? -1 : td_now_ms() + timeout_ms;
    for (int first = 1;; first = 0) {
        char *text;
        size_t len;
        int r = take_line(c, &text, &len);
        if (r < 0) return NULL;
        if (r > 0) {
            size_t n = strspn(text, " \t\r");
            if (n == len) continue;                 /* an empty line: nothing */
            if (len + 1 > c->line_cap) {
                char *copy = realloc(c->line, len + 1);
                if (!copy) {
                    td_set_error(c, ENOMEM, "touchd_client_next: line %ld: out of memory (%zu bytes)", c->lines_in, len);
                    return NULL;
                }
                c->line = copy;
                c->line_cap = len + 1;
            }
            memcpy(c->line, text, len + 1);
            if (td_parse_line(c, c->line, len) < 0) {
                int e = errno;
                release_message(c);
                errno = e;
                return NULL;
            }
            c->msg.json = c->line;
            return &c->msg;
        }
        if (c->state == ENDED) {
            size_t rest = c->end - c->start;
            int blank = rest == 0 || c->skipping;
            for (size_t i = c->start; i < c->end && blank; i++) blank = strchr(" \t\r", c->buf[i]) != NULL;
            c->start = c->end = c->scan = 0;
            c->skipping = 0;
            if (!blank) {
                c->lines_in++;
                td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon was cut short by the end "
                          "of the connection (%zu bytes without a newline)", c->lines_in, rest);
                return NULL;
            }
            return closed_message(c);
        }
        if (!first && deadline >= 0 && td_now_ms() >= deadline) break;
        int got = fill(c);
        if (got > 0) continue;
        if (got < 0) {          /* every complete line was taken above: only memory can be short */
            td_set_error(c, ENOMEM, "touchd_client_next: out of memory for the read buffer (%zu bytes)",
                         c->end - c->start + CHUNK);
            return NULL;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int n = poll(&p, 1, td_left_ms(deadline));
        if (n < 0 && errno != EINTR) {
            int e = errno;
            td_set_error(c, e, "touchd_client_next: poll: %s", strerror(e));
            return NULL;
        }
        if (n == 0) break;
        if (n > 0 && fill(c) <= 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) && c->state == OPEN) {
            ended(c, "the connection failed");
        }
    }
    td_set_error(c, EAGAIN, "touchd_client_next: no message within %d ms", timeout_ms);
    return NULL;
}

/* ---- requests --------------------------------------------------------------------------- */

EXPORT long touchd_client_request(touchd_client *c, const char *json_object_text) {
    if (!c || !json_object_text) {
        if (c) td_set_error(c, EINVAL, "touchd_client_request: no request (NULL)");
        else errno = EINVAL;
        return -1;
    }
    if (c->state != OPEN) {
        td_set_error(c, ENOTCONN, "touchd_client_request: the connection is closed (%s)", c->reason);
        return -1;
    }
    size_t len = strlen(json_object_text);
    pending_request p;
    if (td_parse_request(c, json_object_text, len, &p) < 0) return -1;
    p.line = c->lines_out + 1;
    /* One line: a raw newline in valid JSON can only be whitespace. */
    char *out = td_reserve_pending(c) == 0 ? malloc(len + 1) : NULL;
    if (!out) {
        free(p.window);
        td_set_error(c, ENOMEM, "touchd_client_request: out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++) out[i] = json_object_text[i] == '\n' || json_object_text[i] == '\r' ? ' ' : json_object_text[i];
    out[len] = '\n';
    size_t sent = 0;
    int64_t deadline = td_now_ms() + c->send_timeout_ms;
    while (sent < len + 1) {
        ssize_t n = send(c->fd, out + sent, len + 1 - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            int e = errno;
            td_set_error(c, e, "touchd_client_request: sending request %ld failed: %s", p.line, strerror(e));
            goto fail;
        }
        /* The daemon is not reading: it may be waiting for us to read (it stops reading a
           client whose queue is full), so read meanwhile, into the bounded buffer; once that
           is full of messages the application has not taken, wait only to send. */
        int room = read_room(c);
        if (td_now_ms() >= deadline) {
            td_set_error(c, ETIMEDOUT, "touchd_client_request: the daemon did not take request %ld within %d ms%s%s",
                         p.line, c->send_timeout_ms,
                         room ? "" : " (its messages fill the read buffer: touchd_client_next takes them)",
                         sent ? "; half sent: the connection's sending side is shut" : "");
            if (sent) shutdown(c->fd, SHUT_WR);
            errno = ETIMEDOUT;
            goto fail;
        }
        struct pollfd pf = {.fd = c->fd, .events = POLLOUT | (room ? POLLIN : 0)};
        int r = poll(&pf, 1, td_left_ms(deadline));
        if (r < 0 && errno != EINTR) {
            int e = errno;
            td_set_error(c, e, "touchd_client_request: poll: %s", strerror(e));
            goto fail;
        }
        if (r > 0 && (pf.revents & POLLIN)) fill(c);
        if (c->state != OPEN) {
            td_set_error(c, EPIPE, "touchd_client_request: the daemon closed the connection");
            goto fail;
        }
    }
    free(out);
    c->lines_out = p.line;
    td_push_pending(c, &p);
    return p.line;
fail: {
    int e = errno;
    free(out);
    free(p.window);
    errno = e;
    return -1;
}
}

/* ---- request builders ------------------------------------------------------------------- */

/* {key: body} as one line, sent; `body` is the request's (released here). */
static long send_built(touchd_client *c, const char *fn, const char *key, json_object *body) {
    json_object *req = body ? json_object_new_object() : NULL;
    const char *text = NULL;
    if (req) {
        json_object_object_add(req, key, body);
        body = NULL;
        text = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
    }
    if (!text) {
        json_object_put(body);
        json_object_put(req);
        td_set_error(c, ENOMEM, "%s: out of memory", fn);
        return -1;
    }
    long line = touchd_client_request(c, text);
    int e = errno;
    json_object_put(req);
    errno = e;
    return line;
}

/* Arguments a builder cannot use: EINVAL (and the error, when there is a client). */
static long bad_arguments(touchd_client *c, const char *fn, const char *what) {
    if (c) td_set_error(c, EINVAL, "%s: %s", fn, what);
    else errno = EINVAL;
    return -1;
}

EXPORT long touchd_client_rotate_output(touchd_client *c, const char *output_id, int rotation) {
    if (!c || !output_id) return bad_arguments(c, "touchd_client_rotate_output", "no output id (NULL)");
    json_object *body = json_object_new_object();
    if (body) {
        json_object_object_add(body, "id", json_object_new_string(output_id));
        json_object_object_add(body, "rotation", json_object_new_int(rotation));
    }
    return send_built(c, "touchd_client_rotate_output", "output", body);
}

EXPORT long touchd_client_calibrate(touchd_client *c, const char *device, const double (*targets)[2], size_t count) {
    if (!c || !device) return bad_arguments(c, "touchd_client_calibrate", "no device (NULL)");
    if (count && !targets) return bad_arguments(c, "touchd_client_calibrate", "no targets (NULL) for a count of targets");
    json_object *body = json_object_new_object();
    if (body) {
        json_object_object_add(body, "device", json_object_new_string(device));
        if (count) {
            json_object *list = json_object_new_array();
            for (size_t i = 0; list && i < count; i++) {
                json_object *p = json_object_new_array();
                if (p) {
                    json_object_array_add(p, json_object_new_double(targets[i][0]));
                    json_object_array_add(p, json_object_new_double(targets[i][1]));
                }
                json_object_array_add(list, p);
            }
            json_object_object_add(body, "targets", list);
        }
    }
    return send_built(c, "touchd_client_calibrate", "calibrate", body);
}

EXPORT long touchd_client_screen_reader(touchd_client *c, const char *output, int on) {
    if (!c || !output) return bad_arguments(c, "touchd_client_screen_reader", "no output (NULL)");
    json_object *body = json_object_new_object();
    if (body) {
        json_object_object_add(body, "output", json_object_new_string(output));
        json_object_object_add(body, "on", json_object_new_boolean(on != 0));
    }
    return send_built(c, "touchd_client_screen_reader", "screenReader", body);
}

EXPORT long touchd_client_announce(touchd_client *c, const char *output, const char *text) {
    if (!c || !output || !text) return bad_arguments(c, "touchd_client_announce", "no output or text (NULL)");
    json_object *body = json_object_new_object();
    if (body) {
        json_object_object_add(body, "output", json_object_new_string(output));
        json_object_object_add(body, "text", json_object_new_string(text));
    }
    return send_built(c, "touchd_client_announce", "announce", body);
}

EXPORT long touchd_client_accessibility_changed(touchd_client *c, const char *output, int screen, const char *focus) {
    if (!c || !output) return bad_arguments(c, "touchd_client_accessibility_changed", "no output (NULL)");
    json_object *body = json_object_new_object();
    if (body) {
        json_object_object_add(body, "output", json_object_new_string(output));
        json_object_object_add(body, screen ? "screen" : "layout", json_object_new_boolean(1));
        if (focus) json_object_object_add(body, "focus", json_object_new_string(focus));
    }
    return send_built(c, "touchd_client_accessibility_changed", "accessibilityChanged", body);
}

EXPORT long touchd_client_cancel_calibration(touchd_client *c, const char *device) {
    if (!c || !device) return bad_arguments(c, "touchd_client_cancel_calibration", "no device (NULL)");
    json_object *body = json_object_new_object();
    if (body) {
        json_object_object_add(body, "device", json_object_new_string(device));
        json_object_object_add(body, "cancel", json_object_new_boolean(1));
    }
    return send_built(c, "touchd_client_cancel_calibration", "calibrate", body);
}
