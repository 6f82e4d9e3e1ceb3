/* libFuzzer target, stateful: the input is a script for a fake daemon and its client, played
 * through a socketpair against the real library, with a model of what the library must do.
 *
 * The first byte chooses a 1 KiB line limit (else the default). Then each op is a byte and its
 * parameters (fewer bytes than an op needs read as zeros):
 *   frame      1-6 touches: ids from a small pool, any of the five phases (or one unknown),
 *              windows attached or not, places from the input (1e308, -0.0, fractions)
 *   mass       a frame of up to 1,100 touches beginning (the table's limit), or moving (four
 *              per input; then an ordinary frame)
 *   snapshot   a snapshot (the whole table)
 *   reply      attached / updated / detached / error for a line waiting, one already answered
 *              or one not sent: out of order
 *   lineless   pong / stats / snapshot / overflow, matched to the oldest request of their kind
 *   request    ping, stats, subscribe, attach (an origin from the input), update, detach,
 *              hitTest, one spread over lines, one that is not strict JSON (EINVAL)
 *   bad        junk, NaN, 1e400, "\u0000", invalid UTF-8, a field of the wrong type (a reply
 *              that still answers), a touch duplicated, a line over the limit, an empty line
 *   half       the next line is written in two parts, the client reading between them
 *   stall      everything read; then next(0) must say EAGAIN (a half line is not a message)
 *   blocked    a 32 KB request the daemon does not read (an 8 KiB send buffer) with a 1 ms
 *              deadline: ETIMEDOUT, what came meanwhile kept; once half sent, the sending side
 *              is shut (EPIPE after); once per input
 *   bye, close (mid-line or not) — the end; the input's end closes too.
 * After each message or error the model says what it must be: its type, the line it answers,
 * each touch's id and screen place (window origins from the replies), EPROTO for frames that
 * do not fit the table (left unchanged), EBADMSG / EMSGSIZE for the bad lines; the requests
 * must reach the daemon as one line each; "closed" must cancel exactly the model's touches
 * down at their last places; then ENOTCONN. A mismatch traps (a crash for libFuzzer).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_session: %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (0)

#define MAX_OPS 3000
#define MODEL_DOWN 2048
#define MAX_MASS 4
#define WRITE_BUDGET (4u << 20)      /* bytes the daemon writes at most per input (mass frames are big) */

/* ---- the input --------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n, at;
} input;

static unsigned byte(input *in) {
    return in->at < in->n ? in->p[in->at++] : 0;
}

static double place(input *in) {
    unsigned b = byte(in);
    switch (b % 16) {
    case 0: return 1e308;
    case 1: return -0.0;
    case 2: return -1.5e308;
    case 3: return 0.1 * (double)byte(in);
    default: return (double)(int)(b * 7 % 1000) - 200.0 + (double)(byte(in) % 4) * 0.25;
    }
}

/* ---- text -------------------------------------------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        REQUIRE(n >= 0);
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        t->s = realloc(t->s, cap);
        REQUIRE(t->s);
        t->cap = cap;
    }
}

/* ---- the model --------------------------------------------------------------------------- */

typedef struct {
    long id;
    const char *phase;
    int window;                      /* -1 none, 0 "w0", 1 "w1", 2 "x" (never attached) */
    double x, y;
} touch_spec;

static const char *const window_ids[] = {"w0", "w1", "x"};

enum kind { L_PARSED, L_BAD_JSON, L_SILENT };

typedef struct {
    enum kind kind;
    char type[16];
    int has_line;
    long line;
    int bad_field;                   /* parsed, reply matched, then EBADMSG */
    int touches_from;                /* frame or snapshot: its touches in the spec pool, else -1 */
    int ntouches;
    size_t len;                      /* without the newline */
    char reason[16];                 /* bye */
} line_spec;

typedef struct {
    long line;
    char kind[12];
    int window;                      /* -1 none */
    double ox, oy;
    int has_origin;
} pending;

typedef struct {
    long id;
    double x, y;
    int window;
} down;

typedef struct {
    touchd_client *c;
    int fd;                          /* the daemon's end */
    size_t max_line;
    /* what the daemon wrote and the client has not read */
    line_spec *lines;
    size_t nlines, head, cap_lines;
    touch_spec *pool;                /* the touches of the lines' frames and snapshots */
    size_t npool, cap_pool;
    text out;                        /* bytes not yet written to the client */
    size_t written;                  /* bytes written in all (the session ends past WRITE_BUDGET) */
    size_t out_at;
    int half_pending;                /* a half line is on its way: its spec is the last one */
    /* the library, as the model has it */
    pending *pend;
    size_t npend, cap_pend;
    long lines_out;
    int owned[2];
    double ox[2], oy[2];
    down dn[MODEL_DOWN];
    size_t ndown;
    int snapshots, overflowed;
    char bye[32];
    int write_shut;
    /* the requests the daemon must receive, one line each */
    text want_requests, got_requests;
    int requests_cut;                /* a request was half sent: stop comparing */
    int blocked_done;
    int masses;                      /* mass frames so far (at most MAX_MASS: they are slow under ASan) */
} session;

static void push_line(session *S, const line_spec *l) {
    if (S->nlines == S->cap_lines) {
        S->cap_lines = S->cap_lines ? S->cap_lines * 2 : 64;
        S->lines = realloc(S->lines, S->cap_lines * sizeof *S->lines);
        REQUIRE(S->lines);
    }
    S->lines[S->nlines++] = *l;
}

static int pool_touch(session *S, const touch_spec *t) {
    if (S->npool == S->cap_pool) {
        S->cap_pool = S->cap_pool ? S->cap_pool * 2 : 256;
        S->pool = realloc(S->pool, S->cap_pool * sizeof *S->pool);
        REQUIRE(S->pool);
    }
    S->pool[S->npool] = *t;
    return (int)S->npool++;
}

static int is_over(const char *phase) {
    return strcmp(phase, "ended") == 0 || strcmp(phase, "cancelled") == 0;
}

static void drop_through(session *S, long line) {
    size_t k = 0;
    while (k < S->npend && S->pend[k].line <= line) k++;
    if (k) memmove(S->pend, S->pend + k, (S->npend - k) * sizeof *S->pend);
    S->npend -= k;
}

/* What td_reply_line does, on the model: the line the message answers. */
static long model_reply(session *S, const line_spec *l) {
    long at = -1, line = 0;
    if (l->has_line) {
        line = l->line;
        for (size_t i = 0; i < S->npend; i++)
            if (S->pend[i].line == line) at = (long)i;
    } else {
        const char *kind = NULL;
        if (strcmp(l->type, "pong") == 0) kind = "ping";
        else if (strcmp(l->type, "stats") == 0) kind = "stats";
        else if (strcmp(l->type, "snapshot") == 0) {
            int first = S->snapshots++ == 0, after = S->overflowed;
            S->overflowed = 0;
            if (!first && !after) kind = "subscribe";
        } else if (strcmp(l->type, "overflow") == 0)
            S->overflowed = 1;
        for (size_t i = 0; kind && i < S->npend && at < 0; i++)
            if (strcmp(S->pend[i].kind, kind) == 0) at = (long)i;
        if (at < 0) return 0;
        line = S->pend[at].line;
    }
    if (at >= 0) {
        pending *p = &S->pend[at];
        if (p->window >= 0 && p->window < 2) {
            if (strcmp(l->type, "attached") == 0 && strcmp(p->kind, "attach") == 0)
                S->owned[p->window] = 1, S->ox[p->window] = p->ox, S->oy[p->window] = p->oy;
            else if (p->has_origin && strcmp(l->type, "updated") == 0)
                S->owned[p->window] = 1, S->ox[p->window] = p->ox, S->oy[p->window] = p->oy;
            else if (strcmp(l->type, "detached") == 0)
                S->owned[p->window] = 0;
        }
    }
    drop_through(S, line);
    return line;
}

/* Ids to places, by open addressing (the model must stay fast under the sanitizers: mass
   frames list a thousand touches). A table is emptied by moving to a new generation. */
#define ID_SLOTS 8192
typedef struct {
    long id;
    unsigned gen;
    long val;
} id_slot_m;

typedef struct {
    id_slot_m slot[ID_SLOTS];
    unsigned gen;
} id_map;

static id_map down_map, seen_map;

static void map_clear(id_map *h) {
    if (++h->gen == 0) {
        memset(h->slot, 0, sizeof h->slot);
        h->gen = 1;
    }
}

static id_slot_m *map_slot(id_map *h, long id) {
    size_t i = ((unsigned long)id * 0x9E3779B97F4A7C15ul) >> 51;     /* 13 bits */
    while (h->slot[i].gen == h->gen && h->slot[i].id != id) i = (i + 1) & (ID_SLOTS - 1);
    return &h->slot[i];
}

static long map_get(id_map *h, long id) {
    id_slot_m *e = map_slot(h, id);
    return e->gen == h->gen ? e->val : -1;
}

static void map_put(id_map *h, long id, long val) {
    id_slot_m *e = map_slot(h, id);
    *e = (id_slot_m){.id = id, .gen = h->gen, .val = val};
}

static void index_down(session *S) {
    map_clear(&down_map);
    for (size_t i = 0; i < S->ndown; i++) map_put(&down_map, S->dn[i].id, (long)i);
}

static long find_down(session *S, long id) {
    (void)S;
    return map_get(&down_map, id);
}

/* A frame or snapshot on the model: 0 applied (the screen places in xs, ys), -1 EPROTO. */
static int model_touches(session *S, const line_spec *l, double *xs, double *ys) {
    const touch_spec *t = &S->pool[l->touches_from];
    int n = l->ntouches, snapshot = strcmp(l->type, "snapshot") == 0;
    if (n > TOUCHD_CLIENT_MAX_DOWN) return -1;
    map_clear(&seen_map);
    for (int i = 0; i < n; i++) {
        if (map_get(&seen_map, t[i].id) >= 0) return -1;                /* listed twice */
        map_put(&seen_map, t[i].id, i);
    }
    size_t after = snapshot ? 0 : S->ndown;
    for (int i = 0; i < n; i++) {
        long at = snapshot ? -1 : find_down(S, t[i].id);
        if (is_over(t[i].phase)) after -= at >= 0;
        else after += at < 0;
    }
    if (after > TOUCHD_CLIENT_MAX_DOWN) return -1;
    for (int i = 0; i < n; i++) {
        double ox = 0, oy = 0;
        if (t[i].window >= 0 && t[i].window < 2 && S->owned[t[i].window]) ox = S->ox[t[i].window], oy = S->oy[t[i].window];
        xs[i] = t[i].x, ys[i] = t[i].y;
        xs[i] += ox, ys[i] += oy;
    }
    if (snapshot) {
        S->ndown = 0;
        index_down(S);
    }
    static unsigned char gone[MODEL_DOWN];
    memset(gone, 0, sizeof gone);
    for (int i = 0; i < n; i++) {                   /* each id once: the places stay valid */
        long at = find_down(S, t[i].id);
        if (is_over(t[i].phase)) {
            if (at >= 0) gone[at] = 1;
            continue;
        }
        if (at < 0) at = (long)S->ndown++;
        REQUIRE(S->ndown <= MODEL_DOWN);
        S->dn[at] = (down){.id = t[i].id, .x = xs[i], .y = ys[i], .window = t[i].window};
    }
    size_t kept = 0;
    for (size_t i = 0; i < S->ndown; i++)
        if (!gone[i]) S->dn[kept++] = S->dn[i];
    S->ndown = kept;
    index_down(S);
    return 0;
}

/* ---- checking what the client returns ---------------------------------------------------- */

static int complete_lines_waiting(session *S) {
    for (size_t i = S->head; i < S->nlines; i++)
        if (S->lines[i].kind != L_SILENT && !(S->half_pending && i == S->nlines - 1)) return 1;
    return 0;
}

/* One return of touchd_client_next (m, or NULL with errno e) checked against the oldest line
   written and not yet read. */
static void check(session *S, const touchd_message *m, int e) {
    static int trace = -1;
    if (trace < 0) trace = getenv("FUZZ_SESSION_TRACE") != NULL;
    if (trace) fprintf(stderr, "  %s line %ld %s\n", m ? m->type : strerror(e), m ? m->line : 0, m ? "" : touchd_client_error(S->c));
    while (S->head < S->nlines && S->lines[S->head].kind == L_SILENT) S->head++;
    REQUIRE(S->head < S->nlines);
    line_spec *l = &S->lines[S->head++];
    /* Half a line is no message; only a line over the limit may be reported before its end. */
    if (S->half_pending && S->head == S->nlines) REQUIRE(!m && e == EMSGSIZE && l->len > S->max_line);
    if (l->len > S->max_line) {
        REQUIRE(!m && e == EMSGSIZE);
        return;
    }
    if (l->kind == L_BAD_JSON) {
        REQUIRE(!m && e == EBADMSG);
        return;
    }
    long line = model_reply(S, l);
    if (l->bad_field) {
        REQUIRE(!m && e == EBADMSG);
        return;
    }
    if (l->touches_from >= 0) {
        static double xs[1200], ys[1200];
        if (model_touches(S, l, xs, ys) < 0) {
            REQUIRE(!m && e == EPROTO);
            return;
        }
        REQUIRE(m);
        REQUIRE((int)m->touch_count == l->ntouches);
        for (int i = 0; i < l->ntouches; i++) {
            const touch_spec *t = &S->pool[l->touches_from + i];
            REQUIRE(m->touches[i].id == t->id);
            REQUIRE(strcmp(m->touches[i].phase, t->phase) == 0);
            REQUIRE(m->touches[i].x == xs[i] && m->touches[i].y == ys[i]);
            REQUIRE(m->touches[i].window_x == t->x && m->touches[i].window_y == t->y);
            if (t->window < 0) REQUIRE(m->touches[i].window == NULL);
            else REQUIRE(m->touches[i].window && strcmp(m->touches[i].window, window_ids[t->window]) == 0);
        }
    }
    REQUIRE(m);
    REQUIRE(strcmp(m->type, l->type) == 0);
    REQUIRE(m->line == line);
    REQUIRE(m->json && strlen(m->json) == l->len);
    if (strcmp(l->type, "bye") == 0) snprintf(S->bye, sizeof S->bye, "bye: %s", l->reason);
}

/* Reads what the client sent, comparing each whole line with the requests made. */
static void read_requests(session *S) {
    char buf[65536];
    for (;;) {
        ssize_t n = recv(S->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) break;
        if (!S->requests_cut) add(&S->got_requests, "%.*s", (int)n, buf);
    }
    if (S->requests_cut) return;
    /* Compare the whole lines received so far with the same prefix of those wanted. */
    size_t whole = 0;
    for (size_t i = 0; i < S->got_requests.len; i++)
        if (S->got_requests.s[i] == '\n') whole = i + 1;
    REQUIRE(whole <= S->want_requests.len);
    REQUIRE(whole == 0 || memcmp(S->got_requests.s, S->want_requests.s, whole) == 0);
}

/* The client reads one message or error (a line the model knows is complete must come within
   a second), checked. */
static void next_one(session *S) {
    const touchd_message *m = touchd_client_next(S->c, 1000);
    int e = errno;
    REQUIRE(m || e != EAGAIN);
    REQUIRE(m || touchd_client_error(S->c)[0]);
    check(S, m, e);
}

static void drain(session *S) {
    while (complete_lines_waiting(S)) next_one(S);
}

/* Writes what is waiting; when the socket is full the client reads meanwhile. */
static void flush(session *S) {
    while (S->out_at < S->out.len) {
        ssize_t n = send(S->fd, S->out.s + S->out_at, S->out.len - S->out_at, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            S->out_at += (size_t)n;
            S->written += (size_t)n;
            continue;
        }
        REQUIRE(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
        const touchd_message *m = touchd_client_next(S->c, 0);
        int e = errno;
        if (!m && e == EAGAIN) continue;             /* a chunk read, no whole line yet */
        check(S, m, e);
        read_requests(S);
    }
    S->out.len = S->out_at = 0;
}

/* One line from the daemon: its text (without the newline) and what the model knows of it. */
static void daemon_line(session *S, line_spec *l, const text *t, int half, unsigned cut) {
    l->len = t->len;
    push_line(S, l);
    if (half && t->len > 1) {
        size_t first = 1 + cut % (t->len - 1);
        add(&S->out, "%.*s", (int)first, t->s);
        S->half_pending = 1;
        flush(S);
        /* the client reads what has come: nothing of the half line */
        for (int i = 0; i < 3; i++) {
            const touchd_message *m = touchd_client_next(S->c, 0);
            int e = errno;
            if (!m && e == EAGAIN) continue;
            check(S, m, e);
        }
        S->half_pending = 0;
        add(&S->out, "%s\n", t->s + first);
    } else {
        add(&S->out, "%s\n", t->s);
    }
    flush(S);
}

/* ---- ops ---------------------------------------------------------------------------------- */

static long pick_id(input *in) {
    static const long ids[] = {1, 2, 3, 4, 5, 6, 7, 9223372036854775807L};
    return ids[byte(in) % 8];
}

static void touches_text(session *S, text *t, int from, int n) {
    add(t, "\"touches\":[");
    for (int i = 0; i < n; i++) {
        const touch_spec *s = &S->pool[from + i];
        add(t, "%s{\"id\":%ld,\"phase\":\"%s\",", i ? "," : "", s->id, s->phase);
        if (s->window >= 0) add(t, "\"window\":\"%s\",\"view\":\"v\",", window_ids[s->window]);
        else add(t, "\"window\":null,\"view\":null,");
        add(t, "\"location\":[%.17g,%.17g],\"locationInView\":[1,2],\"tapCount\":1}", s->x, s->y);
    }
    add(t, "]");
}

static void op_frame(session *S, input *in, int snapshot, int mass, int half) {
    static const char *const phases[] = {"began", "moved", "stationary", "ended", "cancelled", "hovering"};
    line_spec l = {.kind = L_PARSED, .touches_from = (int)S->npool};
    snprintf(l.type, sizeof l.type, "%s", snapshot ? "snapshot" : "frame");
    if (mass) {
        unsigned b = byte(in);
        int n = (int)(b * 5 % 1100) + 1;
        long base = (long)(byte(in) % 4) * 500 + 100;
        const char *phase = byte(in) % 2 ? "began" : "moved";
        for (int i = 0; i < n; i++) pool_touch(S, &(touch_spec){.id = base + i, .phase = phase, .window = -1, .x = i, .y = 1});
        l.ntouches = n;
    } else {
        int n = (int)(byte(in) % 6) + 1;
        for (int i = 0; i < n; i++) {
            touch_spec t = {.phase = "stationary"};    /* (one byte after another: in statements) */
            t.id = pick_id(in);
            if (!snapshot) t.phase = phases[byte(in) % 6];
            unsigned w = byte(in) % 4;
            t.window = w == 3 ? -1 : (int)w;
            t.x = place(in);
            t.y = place(in);
            pool_touch(S, &t);
        }
        l.ntouches = n;
    }
    text t = {0};
    add(&t, "{\"type\":\"%s\",\"seq\":%u,\"time\":1.5,", l.type, byte(in));
    touches_text(S, &t, l.touches_from, l.ntouches);
    add(&t, "}");
    daemon_line(S, &l, &t, half, byte(in));
    free(t.s);
}

static void op_reply(session *S, input *in, int half) {
    static const char *const types[] = {"attached", "updated", "detached", "error"};
    line_spec l = {.kind = L_PARSED, .touches_from = -1, .has_line = 1};
    snprintf(l.type, sizeof l.type, "%s", types[byte(in) % 4]);
    unsigned how = byte(in) % 4;
    if (how < 2 && S->npend) l.line = S->pend[byte(in) % S->npend].line;      /* waiting, maybe not the oldest */
    else if (how == 2) l.line = (long)(byte(in) % (S->lines_out + 2));        /* answered already, or 0 */
    else l.line = S->lines_out + 1 + byte(in) % 3;                             /* not sent (yet) */
    text t = {0};
    add(&t, "{\"type\":\"%s\",\"window\":\"w0\",\"line\":%ld%s}", l.type, l.line,
        strcmp(l.type, "error") == 0 ? ",\"error\":\"no\"" : ",\"version\":1");
    daemon_line(S, &l, &t, half, byte(in));
    free(t.s);
}

static void op_lineless(session *S, input *in, int half) {
    static const char *const types[] = {"pong", "stats", "snapshot", "overflow"};
    line_spec l = {.kind = L_PARSED, .touches_from = -1};
    snprintf(l.type, sizeof l.type, "%s", types[byte(in) % 4]);
    text t = {0};
    if (strcmp(l.type, "snapshot") == 0) {
        l.touches_from = (int)S->npool;
        l.ntouches = 0;
        add(&t, "{\"type\":\"snapshot\",\"seq\":1,\"devices\":[],\"touches\":[]}");
    } else {
        add(&t, "{\"type\":\"%s\",\"ping\":1,\"clients\":{\"n\":[1,2]}}", l.type);
    }
    daemon_line(S, &l, &t, half, byte(in));
    free(t.s);
}

static void op_bad(session *S, input *in, int half) {
    line_spec l = {.kind = L_BAD_JSON, .touches_from = -1};
    text t = {0};
    switch (byte(in) % 10) {
    case 0: {                                        /* junk from the input, one line */
        add(&t, "#");
        unsigned n = byte(in);
        for (unsigned i = 0; i < n; i++) {
            unsigned ch = byte(in);
            add(&t, "%c", ch == '\n' || ch == 0 ? ' ' : (char)ch);
        }
        break;
    }
    case 1: add(&t, "{\"type\":\"scroll\",\"view\":\"l\",\"offset\":[NaN,0]}"); break;
    case 2: add(&t, "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"began\",\"location\":[1e400,0]}]}"); break;
    case 3: add(&t, "{\"type\":\"control\",\"control\":\"a\\u0000b\",\"event\":\"touchDown\"}"); break;
    case 4: add(&t, "{\"type\":\"pong\",\"s\":\"\xed\xa0\x80\"}"); break;
    case 5:                                          /* a reply with a bad field: still answers */
        l.kind = L_PARSED, l.bad_field = 1;
        snprintf(l.type, sizeof l.type, "%s", byte(in) % 2 ? "pong" : "stats");
        add(&t, "{\"type\":\"%s\",\"time\":\"soon\"}", l.type);
        break;
    case 6: {                                        /* a frame with a touch missing its location */
        l.kind = L_PARSED, l.bad_field = 1;
        snprintf(l.type, sizeof l.type, "frame");
        add(&t, "{\"type\":\"frame\",\"touches\":[{\"id\":%ld,\"phase\":\"began\"}]}", pick_id(in));
        break;
    }
    case 7: {                                        /* a touch twice: EPROTO, table unchanged */
        l.kind = L_PARSED;
        snprintf(l.type, sizeof l.type, "frame");
        l.touches_from = (int)S->npool;
        long id = pick_id(in);
        pool_touch(S, &(touch_spec){.id = id, .phase = "ended", .window = -1, .x = 1, .y = 1});
        pool_touch(S, &(touch_spec){.id = id, .phase = "began", .window = -1, .x = 2, .y = 2});
        l.ntouches = 2;
        add(&t, "{\"type\":\"frame\",");
        touches_text(S, &t, l.touches_from, 2);
        add(&t, "}");
        break;
    }
    case 8: {                                        /* a valid pong longer than the 1 KiB limit */
        l.kind = L_PARSED;
        snprintf(l.type, sizeof l.type, "pong");
        add(&t, "{\"type\":\"pong\",\"pad\":\"");
        for (int i = 0; i < 1200; i++) add(&t, "p");
        add(&t, "\"}");
        break;
    }
    default:                                         /* an empty line: nothing */
        l.kind = L_SILENT;
        add(&t, "%s", byte(in) % 2 ? "" : " \t\r");
        break;
    }
    daemon_line(S, &l, &t, half && l.kind != L_SILENT, byte(in));
    free(t.s);
}

/* A request and what the daemon must receive of it; the model's pending list. */
static void op_request(session *S, input *in) {
    static const char *const kinds[] = {"ping", "stats", "subscribe", "attach", "update", "detach", "hitTest", "ping", "bad"};
    unsigned k = byte(in) % 9;
    int w = (int)(byte(in) % 2);
    pending p = {.window = -1};
    snprintf(p.kind, sizeof p.kind, "%s", kinds[k]);
    text t = {0};
    switch (k) {
    case 0: add(&t, "{\"ping\":%u}", byte(in)); break;
    case 1: add(&t, "{\"stats\":{}}"); break;
    case 2: add(&t, "{\"subscribe\":{\"types\":[\"frame\"]}}"); break;
    case 3:
        p.window = w, p.has_origin = 1, p.ox = place(in), p.oy = place(in);
        add(&t, "{\"attach\":{\"id\":\"%s\",\"frame\":[%.17g,%.17g,100,100]}}", window_ids[w], p.ox, p.oy);
        break;
    case 4:
        p.window = w, p.has_origin = 1, p.ox = place(in), p.oy = place(in);
        add(&t, "{\"update\":{\"window\":\"%s\",\"changes\":[{\"window\":{\"frame\":[%.17g,%.17g,9,9]}}]}}",
            window_ids[w], p.ox, p.oy);
        break;
    case 5: p.window = w; add(&t, "{\"detach\":{\"window\":\"%s\"}}", window_ids[w]); break;
    case 6: add(&t, "{\"hitTest\":{\"point\":[1,2]}}"); break;
    case 7: add(&t, "{\n\"ping\": 2\r\n}"); break;     /* spread over lines: sent as one */
    default: add(&t, "{\"ping\":%s}", byte(in) % 2 ? "NaN" : "\"\\u0000\""); break;
    }
    long got = touchd_client_request(S->c, t.s);
    int e = errno;
    if (k == 8) {
        REQUIRE(got == -1 && e == EINVAL);
    } else if (S->write_shut) {
        REQUIRE(got == -1 && (e == EPIPE || e == ECONNRESET));
    } else {
        REQUIRE(got == S->lines_out + 1);
        p.line = S->lines_out = got;
        if (S->npend == S->cap_pend) {
            S->cap_pend = S->cap_pend ? S->cap_pend * 2 : 16;
            S->pend = realloc(S->pend, S->cap_pend * sizeof *S->pend);
            REQUIRE(S->pend);
        }
        S->pend[S->npend++] = p;
        for (size_t i = 0; i < t.len; i++) add(&S->want_requests, "%c", t.s[i] == '\n' || t.s[i] == '\r' ? ' ' : t.s[i]);
        add(&S->want_requests, "\n");
    }
    free(t.s);
    read_requests(S);
}

/* A request the daemon does not read: it returns by its (shortened) deadline. */
static void op_blocked(session *S) {
    if (S->blocked_done || S->write_shut) return;
    S->blocked_done = 1;
    read_requests(S);
    int sndbuf = 4096, normal = 16384;               /* a send buffer of 8 KiB (the kernel doubles it) */
    REQUIRE(setsockopt(touchd_client_fd(S->c), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) == 0);
    size_t big = 32768;
    char *r = malloc(big + 16);
    REQUIRE(r);
    memcpy(r, "{\"ping\":\"", 9);
    memset(r + 9, 'b', big);
    memcpy(r + 9 + big, "\"}", 3);
    S->c->send_timeout_ms = 1;
    long got = touchd_client_request(S->c, r);
    int e = errno;
    S->c->send_timeout_ms = SEND_TIMEOUT_MS;
    REQUIRE(setsockopt(touchd_client_fd(S->c), SOL_SOCKET, SO_SNDBUF, &normal, sizeof normal) == 0);
    free(r);
    REQUIRE(got == -1 && e == ETIMEDOUT);
    if (strstr(touchd_client_error(S->c), "half sent")) S->write_shut = 1, S->requests_cut = 1;
}

/* ---- the session -------------------------------------------------------------------------- */

static void finish(session *S, input *in, int mid_line) {
    if (mid_line) {                                 /* the connection cut inside a line */
        line_spec l = {.kind = L_BAD_JSON, .touches_from = -1};
        text t = {0};
        unsigned n = 1 + byte(in) % 40;
        add(&t, "{\"type\":\"frame\",\"touches\":[");
        for (unsigned i = 0; i < n; i++) add(&t, "%c", "{}[],:\" 1a"[byte(in) % 10]);
        l.len = t.len;
        push_line(S, &l);
        add(&S->out, "%s", t.s);
        free(t.s);
        flush(S);
    }
    shutdown(S->fd, SHUT_WR);
    drain(S);                       /* a last line cut off: EBADMSG (or EMSGSIZE if too long) */
    const touchd_message *m = touchd_client_next(S->c, 1000);
    REQUIRE(m && strcmp(m->type, "closed") == 0);
    REQUIRE(touchd_client_fd(S->c) == -1);
    REQUIRE(strcmp(m->reason, S->bye[0] ? S->bye : "the daemon closed the connection") == 0);
    REQUIRE(m->touch_count == S->ndown);
    for (size_t i = 0; i < m->touch_count; i++) {
        const touchd_touch *t = &m->touches[i];
        long at = find_down(S, t->id);
        REQUIRE(at >= 0);
        REQUIRE(strcmp(t->phase, "cancelled") == 0 && strcmp(t->reason, "disconnected") == 0);
        REQUIRE(t->x == S->dn[at].x && t->y == S->dn[at].y);
        for (size_t j = 0; j < i; j++) REQUIRE(m->touches[j].id != t->id);
    }
    REQUIRE(touchd_client_next(S->c, 0) == NULL && errno == ENOTCONN);
    REQUIRE(touchd_client_request(S->c, "{\"ping\":1}") == -1 && errno == ENOTCONN);
    read_requests(S);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1u << 20) + 1) return 0;
    input in = {.p = data, .n = size};
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) abort();
    REQUIRE(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
    int sndbuf = 16384;                              /* (the kernel doubles it) */
    REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) == 0);
    session *S = calloc(1, sizeof *S);
    REQUIRE(S);
    S->c = touchd_client__from_fd(sv[0]);
    REQUIRE(S->c);
    S->fd = sv[1];
    S->max_line = TOUCHD_CLIENT_MAX_LINE;
    map_clear(&down_map);
    if (byte(&in) & 1) {
        S->max_line = 1024;
        REQUIRE(touchd_client_set_max_line(S->c, 1024) == 0);
    }
    int half = 0, ended = 0;
    for (int ops = 0; ops < MAX_OPS && in.at < in.n && !ended && S->written < WRITE_BUDGET; ops++) {
        unsigned op = byte(&in) % 16;
        int h = half;
        half = 0;
        switch (op) {
        case 0: case 1: case 2: op_frame(S, &in, 0, 0, h); break;
        case 3: op_frame(S, &in, 0, S->masses++ < MAX_MASS, h); break;
        case 4: op_frame(S, &in, 1, 0, h); break;
        case 5: case 6: op_reply(S, &in, h); break;
        case 7: op_lineless(S, &in, h); break;
        case 8: case 9: op_request(S, &in); half = h; break;
        case 10: op_bad(S, &in, h); break;
        case 11: half = 1; break;
        case 12: {                                  /* stall: all read, then nothing */
            drain(S);
            const touchd_message *m = touchd_client_next(S->c, 0);
            REQUIRE(!m && errno == EAGAIN);
            half = h;
            break;
        }
        case 13: op_blocked(S); half = h; break;
        case 14: {
            line_spec l = {.kind = L_PARSED, .touches_from = -1};
            snprintf(l.type, sizeof l.type, "bye");
            snprintf(l.reason, sizeof l.reason, "r%u", byte(&in) % 10);
            text t = {0};
            add(&t, "{\"type\":\"bye\",\"reason\":\"%s\"}", l.reason);
            daemon_line(S, &l, &t, h, byte(&in));
            free(t.s);
            break;
        }
        default:
            finish(S, &in, byte(&in) % 2);
            ended = 1;
            break;
        }
    }
    if (!ended) finish(S, &in, 0);
    touchd_client_close(S->c);
    close(S->fd);
    free(S->lines);
    free(S->pool);
    free(S->out.s);
    free(S->pend);
    free(S->want_requests.s);
    free(S->got_requests.s);
    free(S);
    return 0;
}
