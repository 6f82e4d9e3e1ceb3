/* libtouchd-client: see include/touchd/client.h and docs/client-c.md.
 *
 * One connection, non-blocking, read into a bounded buffer; each line from the daemon is
 * parsed with json-c (strict mode, UTF-8 checked) into a touchd_message whose strings point
 * into the parsed object, valid until the next call. The library keeps:
 *   - the touches down (from frames and snapshots), to hand each out as cancelled in the
 *     "closed" message when the connection ends (no ghost touches, whatever the daemon sent);
 *   - the requests not yet answered, to give pong, stats and a subscribe's snapshot (which
 *     carry no "line") the line of the request they answer; the daemon answers in order;
 *   - the frames of the windows this client attached, to turn window coordinates into screen
 *     points.
 */
#define _GNU_SOURCE
#include "touchd/client.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#define CHUNK 65536                  /* bytes read at once */
#define SEND_TIMEOUT_MS 5000         /* how long a request may wait for the daemon to read it */
#define DEFAULT_SOCKET "/run/touchd/touchd.sock"
#define JSON_DEPTH 64
#define KEEP_LINE_BUFFER (1u << 20)  /* buffers above this are released once idle */

typedef struct {
    long line;
    char kind[12];                   /* the request's key: "ping", "attach", … (truncated) */
    char *window;                    /* attach, update, detach: the window's id */
    int has_origin;
    double ox, oy;                   /* attach, update: the window's new frame origin */
} pending_request;

typedef struct {
    char *id;
    double ox, oy;
} owned_window;

typedef struct {
    long id;
    char *window, *view;
    double x, y, view_x, view_y, window_x, window_y;
    int tap_count;
} down_touch;

enum state { OPEN, ENDED, DONE };

struct touchd_client {
    int fd;
    enum state state;
    char reason[256];                /* why the connection ended (for "closed") */
    char bye[128];                   /* "bye: REASON" once the daemon said bye */
    size_t max_line;

    char *buf;                       /* bytes read: [start, end) unconsumed; no '\n' in [start, scan) */
    size_t cap, start, end, scan;
    int skipping;                    /* inside a line over the limit: dropping bytes to its '\n' */
    long lines_in;                   /* lines received */
    long lines_out;                  /* requests sent */

    pending_request *pending;
    size_t npending, cap_pending;
    owned_window *windows;
    size_t nwindows, cap_windows;
    down_touch *down;
    size_t ndown;
    int snapshots;                   /* snapshots seen: the first one follows hello, not a request */
    int overflowed;                  /* an overflow's snapshot is on its way: not a reply either */

    json_tokener *tok;
    json_object *cur;                /* the current message's object */
    char *line;                      /* the current message's text */
    size_t line_cap;
    touchd_message msg;
    touchd_touch *touches;
    size_t cap_touches;
    char err[512];
};

static __thread char connect_error[512];

/* ---- errors ------------------------------------------------------------------------------ */

static void set_error(touchd_client *c, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_error(touchd_client *c, int errnum, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c ? c->err : connect_error, sizeof connect_error, fmt, ap);
    va_end(ap);
    errno = errnum;
}

EXPORT const char *touchd_client_error(const touchd_client *c) {
    if (!c) return connect_error;
    return c->err;
}

/* ---- time -------------------------------------------------------------------------------- */

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none), for poll(). */
static int left_ms(int64_t deadline) {
    if (deadline < 0) return -1;
    int64_t left = deadline - now_ms();
    if (left <= 0) return 0;
    return left > INT32_MAX ? INT32_MAX : (int)left;
}

/* ---- the connection ---------------------------------------------------------------------- */

static touchd_client *client_new(int fd) {
    touchd_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->fd = fd;
    c->max_line = TOUCHD_CLIENT_MAX_LINE;
    c->tok = json_tokener_new_ex(JSON_DEPTH);
    c->down = calloc(TOUCHD_CLIENT_MAX_DOWN, sizeof *c->down);
    if (!c->tok || !c->down) {
        if (c->tok) json_tokener_free(c->tok);
        free(c->down);
        free(c);
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
        set_error(NULL, n ? ENAMETOOLONG : EINVAL,
                  "touchd_client_connect: socket path %s (%zu bytes; a Unix socket path has 1 to %zu)",
                  n ? "too long" : "empty", n, sizeof addr.sun_path - 1);
        return NULL;
    }
    memcpy(addr.sun_path, path, n + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        int e = errno;
        set_error(NULL, e, "touchd_client_connect: socket: %s", strerror(e));
        return NULL;
    }
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        const char *hint = "";
        if (e == ENOENT || e == ECONNREFUSED)
            hint = " (is the daemon running? touchd run --socket PATH; TOUCHD_SOCKET names the socket)";
        else if (e == EACCES)
            hint = " (the socket is for its group, input by default: run as a member of it)";
        set_error(NULL, e, "touchd_client_connect: %s: %s%s", path, strerror(e), hint);
        close(fd);
        return NULL;
    }
    touchd_client *c = touchd_client__from_fd(fd);
    if (!c) {
        int e = errno;
        set_error(NULL, e, "touchd_client_connect: %s: %s", path, strerror(e));
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

static void forget_down(touchd_client *c, size_t i) {
    free(c->down[i].window);
    free(c->down[i].view);
    c->down[i] = c->down[--c->ndown];
}

EXPORT void touchd_client_close(touchd_client *c) {
    if (!c) return;
    release_message(c);
    if (c->fd >= 0) close(c->fd);
    while (c->ndown) forget_down(c, c->ndown - 1);
    for (size_t i = 0; i < c->npending; i++) free(c->pending[i].window);
    for (size_t i = 0; i < c->nwindows; i++) free(c->windows[i].id);
    json_tokener_free(c->tok);
    free(c->down);
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
        if (c) set_error(c, EINVAL, "touchd_client_set_max_line: %zu bytes (at least 1024)", bytes);
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

/* One read of up to CHUNK bytes. 1: read something (or the connection ended: state ENDED),
   0: nothing to read now (or no room: the buffer holds max_line plus two chunks). */
static int fill(touchd_client *c) {
    if (c->state != OPEN) return 0;
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
            set_error(c, EMSGSIZE,
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
        set_error(c, EMSGSIZE, "touchd_client_next: line %ld from the daemon is longer than %zu bytes (%zu): skipped",
                  c->lines_in, c->max_line, *len);
        return -1;
    }
    return 1;
}

/* ---- parsing ----------------------------------------------------------------------------- */

static const char *type_name(json_object *o) {
    return o ? json_type_to_name(json_object_get_type(o)) : "null";
}

/* A member that must be a string (or, when nullable, null or absent). 0, or -1 with the error. */
static int get_string(touchd_client *c, json_object *obj, const char *key, const char *where,
                      int required, const char **out) {
    json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (!required) return 0;
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: missing", c->lines_in,
                  c->msg.type ? c->msg.type : "?", where, key);
        return -1;
    }
    if (!json_object_is_type(v, json_type_string)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: a %s, not a string",
                  c->lines_in, c->msg.type ? c->msg.type : "?", where, key, type_name(v));
        return -1;
    }
    *out = json_object_get_string(v);
    return 0;
}

static int get_number(touchd_client *c, json_object *obj, const char *key, const char *where,
                      int required, double *out) {
    json_object *v;
    *out = 0;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (!required) return 0;
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: missing", c->lines_in,
                  c->msg.type, where, key);
        return -1;
    }
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: a %s, not a number",
                  c->lines_in, c->msg.type, where, key, type_name(v));
        return -1;
    }
    *out = json_object_get_double(v);
    return 0;
}

static int get_integer(touchd_client *c, json_object *obj, const char *key, const char *where,
                       int required, long *out) {
    json_object *v;
    *out = 0;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (!required) return 0;
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: missing", c->lines_in,
                  c->msg.type, where, key);
        return -1;
    }
    if (!json_object_is_type(v, json_type_int)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: a %s, not an integer",
                  c->lines_in, c->msg.type, where, key, type_name(v));
        return -1;
    }
    int64_t i = json_object_get_int64(v);
    *out = i > LONG_MAX ? LONG_MAX : i < LONG_MIN ? LONG_MIN : (long)i;
    return 0;
}

/* A point: [x, y], two numbers. */
static int get_point(touchd_client *c, json_object *obj, const char *key, const char *where,
                     int required, double *x, double *y) {
    json_object *v;
    *x = *y = 0;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (!required) return 0;
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: missing", c->lines_in,
                  c->msg.type, where, key);
        return -1;
    }
    json_object *a, *b;
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2 ||
        !(a = json_object_array_get_idx(v, 0)) || !(b = json_object_array_get_idx(v, 1)) ||
        !(json_object_is_type(a, json_type_double) || json_object_is_type(a, json_type_int)) ||
        !(json_object_is_type(b, json_type_double) || json_object_is_type(b, json_type_int))) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: not a point [x, y]",
                  c->lines_in, c->msg.type, where, key);
        return -1;
    }
    *x = json_object_get_double(a);
    *y = json_object_get_double(b);
    return 0;
}

static owned_window *find_window(touchd_client *c, const char *id) {
    for (size_t i = 0; id && i < c->nwindows; i++)
        if (strcmp(c->windows[i].id, id) == 0) return &c->windows[i];
    return NULL;
}

/* The touches array of a frame or snapshot, into c->touches. */
static int parse_touches(touchd_client *c, json_object *obj) {
    json_object *arr;
    if (!json_object_object_get_ex(obj, "touches", &arr) || !arr) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): touches: missing", c->lines_in, c->msg.type);
        return -1;
    }
    if (!json_object_is_type(arr, json_type_array)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): touches: a %s, not an array",
                  c->lines_in, c->msg.type, type_name(arr));
        return -1;
    }
    size_t n = json_object_array_length(arr);
    if (n > TOUCHD_CLIENT_MAX_DOWN) {
        set_error(c, EPROTO, "touchd_client_next: line %ld (%s): %zu touches (more than %d at once)",
                  c->lines_in, c->msg.type, n, TOUCHD_CLIENT_MAX_DOWN);
        return -1;
    }
    if (n > c->cap_touches) {
        touchd_touch *t = realloc(c->touches, n * sizeof *t);
        if (!t) {
            set_error(c, ENOMEM, "touchd_client_next: line %ld (%s): out of memory for %zu touches",
                      c->lines_in, c->msg.type, n);
            return -1;
        }
        c->touches = t;
        c->cap_touches = n;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        touchd_touch *t = &c->touches[i];
        char where[48];
        memset(t, 0, sizeof *t);
        snprintf(where, sizeof where, "touches[%zu].", i);
        if (!json_object_is_type(o, json_type_object)) {
            set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): touches[%zu]: a %s, not an object",
                      c->lines_in, c->msg.type, i, type_name(o));
            return -1;
        }
        long tap = 0;
        if (get_integer(c, o, "id", where, 1, &t->id) || get_string(c, o, "phase", where, 1, &t->phase) ||
            get_string(c, o, "window", where, 0, &t->window) || get_string(c, o, "view", where, 0, &t->view) ||
            get_point(c, o, "location", where, 1, &t->window_x, &t->window_y) ||
            get_point(c, o, "locationInView", where, 0, &t->view_x, &t->view_y) ||
            get_integer(c, o, "tapCount", where, 0, &tap) || get_string(c, o, "reason", where, 0, &t->reason))
            return -1;
        t->tap_count = tap > INT32_MAX ? INT32_MAX : tap < 0 ? 0 : (int)tap;
        t->x = t->window_x;
        t->y = t->window_y;
        owned_window *w = find_window(c, t->window);
        if (w) {
            t->x += w->ox;
            t->y += w->oy;
        }
    }
    c->msg.touches = c->touches;
    c->msg.touch_count = n;
    return 0;
}

static char *dup_or_null(const char *s) {
    return s ? strdup(s) : NULL;
}

static int is_over(const char *phase) {
    return strcmp(phase, "ended") == 0 || strcmp(phase, "cancelled") == 0;
}

static long find_down(touchd_client *c, long id) {
    for (size_t i = 0; i < c->ndown; i++)
        if (c->down[i].id == id) return (long)i;
    return -1;
}

static int remember(down_touch *d, const touchd_touch *t) {
    char *w = dup_or_null(t->window), *v = dup_or_null(t->view);
    if ((t->window && !w) || (t->view && !v)) {
        free(w);
        free(v);
        return -1;
    }
    free(d->window);
    free(d->view);
    *d = (down_touch){.id = t->id, .window = w, .view = v, .x = t->x, .y = t->y, .view_x = t->view_x,
                      .view_y = t->view_y, .window_x = t->window_x, .window_y = t->window_y,
                      .tap_count = t->tap_count};
    return 0;
}

/* Follows the touches down: a snapshot lists them all; a frame begins, moves and ends them. */
static int track_touches(touchd_client *c, int snapshot) {
    const touchd_message *m = &c->msg;
    size_t fresh = 0;
    for (size_t i = 0; i < m->touch_count; i++) {
        if (is_over(m->touches[i].phase)) continue;
        int seen = snapshot ? 0 : find_down(c, m->touches[i].id) >= 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = m->touches[j].id == m->touches[i].id;
        fresh += !seen;
    }
    if ((snapshot ? 0 : c->ndown) + fresh > TOUCHD_CLIENT_MAX_DOWN) {
        set_error(c, EPROTO, "touchd_client_next: line %ld (%s): more than %d touches down at once",
                  c->lines_in, m->type, TOUCHD_CLIENT_MAX_DOWN);
        return -1;
    }
    if (snapshot)
        while (c->ndown) forget_down(c, c->ndown - 1);
    for (size_t i = 0; i < m->touch_count; i++) {
        const touchd_touch *t = &m->touches[i];
        long at = find_down(c, t->id);
        if (is_over(t->phase)) {
            if (at >= 0) forget_down(c, (size_t)at);
            continue;
        }
        if (at < 0) {
            at = (long)c->ndown++;
            c->down[at] = (down_touch){0};
        }
        if (remember(&c->down[at], t) < 0) {
            forget_down(c, (size_t)at);
            set_error(c, ENOMEM, "touchd_client_next: line %ld (%s): out of memory", c->lines_in, m->type);
            return -1;
        }
    }
    return 0;
}

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
    owned_window *w = find_window(c, id);
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
    owned_window *w = find_window(c, id);
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
static long reply_line(touchd_client *c, json_object *obj, const char *type) {
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
static int parse_line(touchd_client *c, const char *text, size_t len) {
    if (memchr(text, '\0', len)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: a NUL byte at column %zu",
                  c->lines_in, (size_t)((const char *)memchr(text, '\0', len) - text) + 1);
        return -1;
    }
    json_tokener_reset(c->tok);
    json_object *obj = json_tokener_parse_ex(c->tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(c->tok);
    size_t end = json_tokener_get_parse_end(c->tok);
    if (!obj || jerr != json_tokener_success) {
        if (obj) json_object_put(obj);
        set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon is not JSON: %s (column %zu)",
                  c->lines_in, jerr == json_tokener_continue ? "it ends too early" : json_tokener_error_desc(jerr),
                  end + 1);
        return -1;
    }
    while (end < len && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) end++;
    if (end < len) {
        json_object_put(obj);
        set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: text after the JSON value (column %zu)",
                  c->lines_in, end + 1);
        return -1;
    }
    if (!json_object_is_type(obj, json_type_object)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: a %s, not a JSON object",
                  c->lines_in, type_name(obj));
        json_object_put(obj);
        return -1;
    }
    c->cur = obj;
    touchd_message *m = &c->msg;
    json_object *v;
    if (!json_object_object_get_ex(obj, "type", &v) || !json_object_is_type(v, json_type_string)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: type: %s", c->lines_in,
                  v ? "not a string" : "missing");
        return -1;
    }
    m->type = json_object_get_string(v);
    const char *type = m->type;
    if (get_integer(c, obj, "seq", "", 0, &m->seq) || get_number(c, obj, "time", "", 0, &m->time) ||
        get_string(c, obj, "window", "", 0, &m->window) || get_string(c, obj, "error", "", 0, &m->error) ||
        get_string(c, obj, "reason", "", 0, &m->reason))
        return -1;
    if (json_object_object_get_ex(obj, "line", &v) && !json_object_is_type(v, json_type_int)) {
        set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): line: a %s, not an integer", c->lines_in,
                  type, type_name(v));
        return -1;
    }
    int control = strcmp(type, "control") == 0, scroll = strcmp(type, "scroll") == 0;
    int frame = strcmp(type, "frame") == 0, snapshot = strcmp(type, "snapshot") == 0;
    if (get_string(c, obj, "control", "", control, &m->control) ||
        get_string(c, obj, "event", "", control, &m->event))
        return -1;
    if (scroll || strcmp(type, "gesture") == 0) {
        if (get_string(c, obj, "view", "", 1, &m->view)) return -1;
    }
    if (scroll && get_point(c, obj, "offset", "", 1, &m->offset_x, &m->offset_y)) return -1;
    if ((frame || snapshot) && (parse_touches(c, obj) || track_touches(c, snapshot))) return -1;
    m->line = reply_line(c, obj, type);
    if (strcmp(type, "bye") == 0) snprintf(c->bye, sizeof c->bye, "bye: %s", m->reason ? m->reason : "");
    return 0;
}

/* The "closed" message: every touch still down, cancelled with reason "disconnected". */
static const touchd_message *closed_message(touchd_client *c) {
    c->state = DONE;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    json_object *obj = json_object_new_object(), *arr = json_object_new_array();
    if (obj && arr && c->ndown > c->cap_touches) {
        touchd_touch *touches = realloc(c->touches, c->ndown * sizeof *touches);
        if (touches) {
            c->touches = touches;
            c->cap_touches = c->ndown;
        }
    }
    if (!obj || !arr || c->ndown > c->cap_touches) {
        json_object_put(obj);
        json_object_put(arr);
        set_error(c, ENOMEM, "touchd_client_next: out of memory for the closed message");
        return NULL;
    }
    json_object_object_add(obj, "type", json_object_new_string("closed"));
    json_object_object_add(obj, "reason", json_object_new_string(c->reason));
    for (size_t i = 0; i < c->ndown; i++) {
        const down_touch *d = &c->down[i];
        c->touches[i] = (touchd_touch){.id = d->id, .phase = "cancelled", .window = d->window, .view = d->view,
                                       .x = d->x, .y = d->y, .view_x = d->view_x, .view_y = d->view_y,
                                       .tap_count = d->tap_count, .reason = "disconnected",
                                       .window_x = d->window_x, .window_y = d->window_y};
        json_object *t = json_object_new_object(), *loc = json_object_new_array(), *inview = json_object_new_array();
        json_object_object_add(t, "id", json_object_new_int64(d->id));
        json_object_object_add(t, "phase", json_object_new_string("cancelled"));
        json_object_object_add(t, "window", d->window ? json_object_new_string(d->window) : NULL);
        json_object_object_add(t, "view", d->view ? json_object_new_string(d->view) : NULL);
        json_object_array_add(loc, json_object_new_double(d->window_x));
        json_object_array_add(loc, json_object_new_double(d->window_y));
        json_object_object_add(t, "location", loc);
        json_object_array_add(inview, json_object_new_double(d->view_x));
        json_object_array_add(inview, json_object_new_double(d->view_y));
        json_object_object_add(t, "locationInView", inview);
        json_object_object_add(t, "tapCount", json_object_new_int(d->tap_count));
        json_object_object_add(t, "reason", json_object_new_string("disconnected"));
        json_object_array_add(arr, t);
    }
    json_object_object_add(obj, "touches", arr);
    c->cur = obj;
    c->msg = (touchd_message){.type = "closed", .reason = c->reason, .touches = c->touches,
                              .touch_count = c->ndown,
                              .json = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN)};
    return &c->msg;
}

EXPORT const touchd_message *touchd_client_next(touchd_client *c, int timeout_ms) {
    if (!c) {
        errno = EINVAL;
        return NULL;
    }
    release_message(c);
    if (c->state == DONE) {
        set_error(c, ENOTCONN, "touchd_client_next: the connection is closed (%s)", c->reason);
        return NULL;
    }
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
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
                    set_error(c, ENOMEM, "touchd_client_next: line %ld: out of memory (%zu bytes)", c->lines_in, len);
                    return NULL;
                }
                c->line = copy;
                c->line_cap = len + 1;
            }
            memcpy(c->line, text, len + 1);
            if (parse_line(c, c->line, len) < 0) {
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
                set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon was cut short by the end "
                          "of the connection (%zu bytes without a newline)", c->lines_in, rest);
                return NULL;
            }
            return closed_message(c);
        }
        if (!first && deadline >= 0 && now_ms() >= deadline) break;
        if (fill(c)) continue;
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int n = poll(&p, 1, left_ms(deadline));
        if (n < 0 && errno != EINTR) {
            int e = errno;
            set_error(c, e, "touchd_client_next: poll: %s", strerror(e));
            return NULL;
        }
        if (n == 0) break;
        if (n > 0 && !fill(c) && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) && c->state == OPEN) {
            ended(c, "the connection failed");
        }
    }
    set_error(c, EAGAIN, "touchd_client_next: no message within %d ms", timeout_ms);
    return NULL;
}

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
        if (c) set_error(c, EINVAL, "touchd_client_request: no request (NULL)");
        else errno = EINVAL;
        return -1;
    }
    if (c->state != OPEN) {
        set_error(c, ENOTCONN, "touchd_client_request: the connection is closed (%s)", c->reason);
        return -1;
    }
    size_t len = strlen(json_object_text);
    json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
    if (!tok) {
        set_error(c, ENOMEM, "touchd_client_request: out of memory");
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
            set_error(c, EINVAL, "touchd_client_request: not JSON: %s (column %zu)",
                      jerr == json_tokener_continue ? "it ends too early" : json_tokener_error_desc(jerr), end + 1);
        else if (end < len)
            set_error(c, EINVAL, "touchd_client_request: text after the JSON object (column %zu)", end + 1);
        else
            set_error(c, EINVAL, "touchd_client_request: a %s, not a JSON object", type_name(obj));
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
            set_error(c, ENOMEM, "touchd_client_request: out of memory");
            return -1;
        }
        c->pending = a;
        c->cap_pending = cap;
    }
    /* One line: a raw newline in valid JSON can only be whitespace. */
    char *out = malloc(len + 1);
    if (!out) {
        free(p.window);
        set_error(c, ENOMEM, "touchd_client_request: out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++) out[i] = json_object_text[i] == '\n' || json_object_text[i] == '\r' ? ' ' : json_object_text[i];
    out[len] = '\n';
    size_t sent = 0;
    int64_t deadline = now_ms() + SEND_TIMEOUT_MS;
    while (sent < len + 1) {
        ssize_t n = send(c->fd, out + sent, len + 1 - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            int e = errno;
            set_error(c, e, "touchd_client_request: sending request %ld failed: %s", p.line, strerror(e));
            goto fail;
        }
        /* The daemon is not reading: it may be waiting for us to read (it stops reading a
           client whose queue is full), so read meanwhile, into the bounded buffer. */
        struct pollfd pf = {.fd = c->fd, .events = POLLOUT | POLLIN};
        int r = poll(&pf, 1, left_ms(deadline));
        if (r < 0 && errno != EINTR) {
            int e = errno;
            set_error(c, e, "touchd_client_request: poll: %s", strerror(e));
            goto fail;
        }
        if (r == 0) {
            set_error(c, ETIMEDOUT, "touchd_client_request: the daemon read nothing for %d ms (request %ld%s)",
                      SEND_TIMEOUT_MS, p.line, sent ? ", half sent: the connection's sending side is shut" : "");
            if (sent) shutdown(c->fd, SHUT_WR);
            goto fail;
        }
        if (pf.revents & POLLIN) fill(c);
        if (c->state != OPEN) {
            set_error(c, EPIPE, "touchd_client_request: the daemon closed the connection");
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
