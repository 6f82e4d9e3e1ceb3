/* libtouchd-client: requests sent (one line each, numbered), replies matched to them, and the
 * origins of the windows this client attached. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* ---- requests and their replies ---------------------------------------------------------- */

static void drop_pending(touchd_client *c, size_t i) {
    free(c->pending[i].window);
    memmove(&c->pending[i], &c->pending[i + 1], (c->npending - i - 1) * sizeof *c->pending);
    c->npending--;
}

/* The oldest unanswered request of this kind (or of any kind: NULL), or -1. */
static long oldest_pending(touchd_client *c, const char *kind) {
    for (size_t i = 0; i < c->npending; i++)
        if (!kind || strcmp(c->pending[i].kind, kind) == 0) return (long)i;
    return -1;
}

static void set_window(touchd_client *c, const char *id, double ox, double oy) {
    owned_window *w = td_find_window(c, id);
    if (!w) {
        if (c->nwindows == c->cap_windows) {
            size_t cap = c->cap_windows ? c->cap_windows * 2 : 4;
            owned_window *a = realloc(c->windows, cap * sizeof *a);
            if (!a) return;
            c->windows = a;
            c->cap_windows = cap;
        }
        char *copy = strdup(id);
        if (!copy) return;
        w = &c->windows[c->nwindows++];
        w->id = copy;
    }
    w->ox = ox;
    w->oy = oy;
}

static void remove_window(touchd_client *c, const char *id) {
    owned_window *w = td_find_window(c, id);
    if (!w) return;
    free(w->id);
    *w = c->windows[--c->nwindows];
}

/* A reply to the request on `line`: it and every earlier one are answered (in order). */
static void answered(touchd_client *c, long line, const char *type) {
    long at = -1;
    for (size_t i = 0; i < c->npending; i++)
        if (c->pending[i].line == line) at = (long)i;
    if (at >= 0) {
        pending_request *p = &c->pending[at];
        if (p->window && strcmp(type, "attached") == 0 && strcmp(p->kind, "attach") == 0)
            set_window(c, p->window, p->ox, p->oy);
        else if (p->window && p->has_origin && strcmp(type, "updated") == 0)
            set_window(c, p->window, p->ox, p->oy);
        else if (p->window && strcmp(type, "detached") == 0)
            remove_window(c, p->window);
    }
    while (c->npending && c->pending[0].line <= line) drop_pending(c, 0);
}

/* The line of the request this message answers, or 0. */
long td_reply_line(touchd_client *c, json_object *obj, const char *type) {
    json_object *v;
    if (json_object_object_get_ex(obj, "line", &v) && json_object_is_type(v, json_type_int)) {
        long line = (long)json_object_get_int64(v);
        answered(c, line, type);
        return line;
    }
    const char *kind = NULL;
    if (strcmp(type, "pong") == 0)
        kind = "ping";
    else if (strcmp(type, "stats") == 0)
        kind = "stats";
    else if (strcmp(type, "snapshot") == 0) {
        int first = c->snapshots++ == 0, after_overflow = c->overflowed;
        c->overflowed = 0;
        if (!first && !after_overflow) kind = "subscribe";
    } else if (strcmp(type, "overflow") == 0)
        c->overflowed = 1;
    long at = kind ? oldest_pending(c, kind) : -1;
    if (at < 0) return 0;
    long line = c->pending[at].line;
    answered(c, line, type);
    return line;
}

/* Parses one line into c->msg. 0, or -1 with errno and the error. */
/* ---- sending ----------------------------------------------------------------------------- */

/* The request's key, window and new origin, for matching its reply. */
static void describe_request(json_object *obj, pending_request *p) {
    json_object_object_foreach(obj, key, val) {
        snprintf(p->kind, sizeof p->kind, "%s", key);
        json_object *id = NULL, *frame = NULL, *changes = NULL;
        if (strcmp(key, "attach") == 0 && json_object_is_type(val, json_type_object)) {
            json_object_object_get_ex(val, "id", &id);
            json_object_object_get_ex(val, "frame", &frame);
        } else if ((strcmp(key, "update") == 0 || strcmp(key, "detach") == 0) &&
                   json_object_is_type(val, json_type_object)) {
            json_object_object_get_ex(val, "window", &id);
            if (json_object_object_get_ex(val, "changes", &changes) && json_object_is_type(changes, json_type_array)) {
                for (size_t i = 0; i < json_object_array_length(changes); i++) {
                    json_object *ch = json_object_array_get_idx(changes, i), *w, *f;
                    if (json_object_is_type(ch, json_type_object) && json_object_object_get_ex(ch, "window", &w) &&
                        json_object_is_type(w, json_type_object) && json_object_object_get_ex(w, "frame", &f))
                        frame = f;
                }
            }
        }
        if (id && json_object_is_type(id, json_type_string)) p->window = strdup(json_object_get_string(id));
        if (frame && json_object_is_type(frame, json_type_array) && json_object_array_length(frame) == 4) {
            json_object *x = json_object_array_get_idx(frame, 0), *y = json_object_array_get_idx(frame, 1);
            if ((json_object_is_type(x, json_type_int) || json_object_is_type(x, json_type_double)) &&
                (json_object_is_type(y, json_type_int) || json_object_is_type(y, json_type_double))) {
                p->has_origin = 1;
                p->ox = json_object_get_double(x);
                p->oy = json_object_get_double(y);
            }
        }
        break;                                      /* one key per request */
    }
}

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
    json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
    if (!tok) {
        td_set_error(c, ENOMEM, "touchd_client_request: out of memory");
        return -1;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *obj = len <= INT32_MAX ? json_tokener_parse_ex(tok, json_object_text, (int)len) : NULL;
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    while (end < len && strchr(" \t\r\n", json_object_text[end])) end++;
    if (!obj || jerr != json_tokener_success || end < len || !json_object_is_type(obj, json_type_object)) {
        if (!obj || jerr != json_tokener_success)
            td_set_error(c, EINVAL, "touchd_client_request: not JSON: %s (column %zu)",
                      jerr == json_tokener_continue ? "it ends too early" : json_tokener_error_desc(jerr), end + 1);
        else if (end < len)
            td_set_error(c, EINVAL, "touchd_client_request: text after the JSON object (column %zu)", end + 1);
        else
            td_set_error(c, EINVAL, "touchd_client_request: a %s, not a JSON object", td_type_name(obj));
        json_object_put(obj);
        return -1;
    }
    pending_request p = {.line = c->lines_out + 1};
    describe_request(obj, &p);
    json_object_put(obj);
    if (c->npending == c->cap_pending) {
        size_t cap = c->cap_pending ? c->cap_pending * 2 : 8;
        pending_request *a = realloc(c->pending, cap * sizeof *a);
        if (!a) {
            free(p.window);
            td_set_error(c, ENOMEM, "touchd_client_request: out of memory");
            return -1;
        }
        c->pending = a;
        c->cap_pending = cap;
    }
    /* One line: a raw newline in valid JSON can only be whitespace. */
    char *out = malloc(len + 1);
    if (!out) {
        free(p.window);
        td_set_error(c, ENOMEM, "touchd_client_request: out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++) out[i] = json_object_text[i] == '\n' || json_object_text[i] == '\r' ? ' ' : json_object_text[i];
    out[len] = '\n';
    size_t sent = 0;
    int64_t deadline = td_now_ms() + SEND_TIMEOUT_MS;
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
        int room = td_read_room(c);
        if (td_now_ms() >= deadline) {
            td_set_error(c, ETIMEDOUT, "touchd_client_request: the daemon did not take request %ld within %d ms%s%s",
                         p.line, SEND_TIMEOUT_MS,
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
        if (r > 0 && (pf.revents & POLLIN)) td_fill(c);
        if (c->state != OPEN) {
            td_set_error(c, EPIPE, "touchd_client_request: the daemon closed the connection");
            goto fail;
        }
    }
    free(out);
    c->lines_out = p.line;
    c->pending[c->npending++] = p;
    return p.line;
fail: {
    int e = errno;
    free(out);
    free(p.window);
    errno = e;
    return -1;
}
}
