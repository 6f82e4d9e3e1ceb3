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

/* The requests not answered yet, oldest first, in a ring (cap_pending a power of two): a reply
   pops them from the front, so matching n replies costs O(n) however many are outstanding. */
static pending_request *pending_at(touchd_client *c, size_t i) {
    return &c->pending[(c->pending_head + i) & (c->cap_pending - 1)];
}

static int push_pending(touchd_client *c, const pending_request *p) {
    if (c->npending == c->cap_pending) {
        size_t cap = c->cap_pending ? c->cap_pending * 2 : 8;
        pending_request *a = malloc(cap * sizeof *a);
        if (!a) return -1;
        for (size_t i = 0; i < c->npending; i++) a[i] = *pending_at(c, i);
        free(c->pending);
        c->pending = a;
        c->cap_pending = cap;
        c->pending_head = 0;
    }
    *pending_at(c, c->npending++) = *p;
    if (p->lineless >= 0) c->lineless[p->lineless]++;
    return 0;
}

static void pop_pending(touchd_client *c) {
    pending_request *p = pending_at(c, 0);
    free(p->window);
    if (p->lineless >= 0) c->lineless[p->lineless]--;
    c->pending_head = (c->pending_head + 1) & (c->cap_pending - 1);
    c->npending--;
    c->reply_steps++;
}

/* Which of the replies without a line answers this kind of request: 0 pong (ping), 1 stats,
   2 snapshot (subscribe), else -1. */
static int lineless_kind(const char *kind) {
    return strcmp(kind, "ping") == 0 ? 0 : strcmp(kind, "stats") == 0 ? 1 : strcmp(kind, "subscribe") == 0 ? 2 : -1;
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

/* A reply of this type to the request at place i of the queue (-1: none) and line `line`: it
   and every earlier one are answered (the daemon answers in order). */
static void answered(touchd_client *c, long i, long line, const char *type) {
    if (i >= 0) {
        pending_request *p = pending_at(c, (size_t)i);
        if (p->window && strcmp(type, "attached") == 0 && strcmp(p->kind, "attach") == 0)
            set_window(c, p->window, p->ox, p->oy);
        else if (p->window && p->has_origin && strcmp(type, "updated") == 0)
            set_window(c, p->window, p->ox, p->oy);
        else if (p->window && strcmp(type, "detached") == 0)
            remove_window(c, p->window);
    }
    while (c->npending && pending_at(c, 0)->line <= line) pop_pending(c);
}

/* The place of the request on `line` in the queue, or -1: the oldest, usually; else a binary
   search (the lines increase). */
static long find_pending(touchd_client *c, long line) {
    if (!c->npending || line < pending_at(c, 0)->line) return -1;
    c->reply_steps++;
    if (pending_at(c, 0)->line == line) return 0;
    size_t lo = 1, hi = c->npending;
    while (lo < hi) {
        c->reply_steps++;
        size_t mid = lo + (hi - lo) / 2;
        long l = pending_at(c, mid)->line;
        if (l == line) return (long)mid;
        if (l < line) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* The line of the request this message answers, or 0. */
long td_reply_line(touchd_client *c, json_object *obj, const char *type) {
    json_object *v;
    if (json_object_object_get_ex(obj, "line", &v) && json_object_is_type(v, json_type_int)) {
        long line = (long)json_object_get_int64(v);
        answered(c, find_pending(c, line), line, type);
        return line;
    }
    int kind = -1;
    if (strcmp(type, "pong") == 0)
        kind = 0;
    else if (strcmp(type, "stats") == 0)
        kind = 1;
    else if (strcmp(type, "snapshot") == 0) {
        int first = c->snapshots++ == 0, after_overflow = c->overflowed;
        c->overflowed = 0;
        if (!first && !after_overflow) kind = 2;
    } else if (strcmp(type, "overflow") == 0)
        c->overflowed = 1;
    if (kind < 0 || c->lineless[kind] == 0) return 0;
    /* The oldest of that kind: the requests before it are answered with it (dropped), so each
       is looked at once. */
    size_t i = 0;
    while (pending_at(c, i)->lineless != kind) i++, c->reply_steps++;
    long line = pending_at(c, i)->line;
    answered(c, (long)i, line, type);
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
    const char *why;
    char where[128];
    if (td_json_check(json_object_text, len, &end, &why) < 0) {
        json_object_put(obj);
        td_set_error(c, EINVAL, "touchd_client_request: not strict JSON: %s (column %zu)", why, end);
        return -1;
    }
    if (td_json_finite(obj, where, sizeof where) < 0) {
        json_object_put(obj);
        td_set_error(c, EINVAL, "touchd_client_request: %s: a number out of range (not a finite double)", where);
        return -1;
    }
    pending_request p = {.line = c->lines_out + 1};
    describe_request(obj, &p);
    p.lineless = (signed char)lineless_kind(p.kind);
    json_object_put(obj);
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
    if (push_pending(c, &p) < 0) {              /* sent, but its reply will not be matched */
        free(p.window);
        td_set_error(c, ENOMEM, "touchd_client_request: request %ld sent, but out of memory to follow its reply", p.line);
        return -1;
    }
    return p.line;
fail: {
    int e = errno;
    free(out);
    free(p.window);
    errno = e;
    return -1;
}
}
