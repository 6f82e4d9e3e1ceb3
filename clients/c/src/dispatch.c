/* libtouchd-client, dispatch: what a parsed message changes in what the library follows —
 * the touches down (to cancel each in "closed", whatever the daemon sent), the requests waiting
 * for their replies (to give pong, stats and a subscribe's snapshot, which carry no "line", the
 * line they answer), the windows this client attached (their origins turn window coordinates
 * into screen points) — and the "closed" message made from them. Called by message.c (parsing)
 * and client.c (I/O); calls only util.c. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the windows this client attached ---------------------------------------------------- */

owned_window *td_find_window(touchd_client *c, const char *id) {
    for (size_t i = 0; id && i < c->nwindows; i++)
        if (strcmp(c->windows[i].id, id) == 0) return &c->windows[i];
    return NULL;
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

/* ---- requests and their replies ---------------------------------------------------------- */

/* The requests not answered yet, oldest first, in a ring (cap_pending a power of two): a reply
   pops them from the front, so matching n replies costs O(n) however many are outstanding. */
static pending_request *pending_at(touchd_client *c, size_t i) {
    return &c->pending[(c->pending_head + i) & (c->cap_pending - 1)];
}

/* Which of the replies without a line answers this kind of request: 0 pong (ping), 1 stats,
   2 snapshot (subscribe), else -1. */
static int lineless_kind(const char *kind) {
    return strcmp(kind, "ping") == 0 ? 0 : strcmp(kind, "stats") == 0 ? 1 : strcmp(kind, "subscribe") == 0 ? 2 : -1;
}

/* Room for one more request waiting, made before the request is sent (so that a request sent
   is always followed). 0, or -1 when out of memory. */
int td_reserve_pending(touchd_client *c) {
    if (c->npending < c->cap_pending) return 0;
    size_t cap = c->cap_pending ? c->cap_pending * 2 : 8;
    pending_request *a = malloc(cap * sizeof *a);
    if (!a) return -1;
    for (size_t i = 0; i < c->npending; i++) a[i] = *pending_at(c, i);
    free(c->pending);
    c->pending = a;
    c->cap_pending = cap;
    c->pending_head = 0;
    return 0;
}

/* A request sent: it waits for its reply (td_reserve_pending made its room). */
void td_push_pending(touchd_client *c, const pending_request *p) {
    pending_request *q = pending_at(c, c->npending++);
    *q = *p;
    q->lineless = (signed char)lineless_kind(q->kind);
    if (q->lineless >= 0) c->lineless[q->lineless]++;
}

static void pop_pending(touchd_client *c) {
    pending_request *p = pending_at(c, 0);
    free(p->window);
    if (p->lineless >= 0) c->lineless[p->lineless]--;
    c->pending_head = (c->pending_head + 1) & (c->cap_pending - 1);
    c->npending--;
    c->reply_steps++;
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

/* The line of the request a message of this type answers, or 0: its own `line` when it has one
   (has_line), else the oldest ping, stats or subscribe waiting for a pong, stats or snapshot. */
long td_reply_line(touchd_client *c, const char *type, int has_line, long line) {
    if (has_line) {
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
    line = pending_at(c, i)->line;
    answered(c, (long)i, line, type);
    return line;
}

/* ---- the touches down ------------------------------------------------------------------- */

static int is_over(const char *phase) {
    return strcmp(phase, "ended") == 0 || strcmp(phase, "cancelled") == 0;
}

static int by_id(const void *a, const void *b) {
    const id_slot *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int down_by_id(const void *a, const void *b) {
    const down_touch *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* A copy of s for the table, or the table's own copy when it is the same text (no allocation
   for a touch that stays on its view). *fresh says whether it was allocated. */
static int copy_string(const char *s, char *had, char **out, int *fresh) {
    *fresh = 0;
    if (!s) { *out = NULL; return 0; }
    if (had && strcmp(had, s) == 0) { *out = had; return 0; }
    *out = strdup(s);
    *fresh = 1;
    return *out ? 0 : -1;
}

/* Follows the touches down: a snapshot lists them all; a frame begins, moves and ends them.
   The message is checked against the table before anything changes: each touch listed once,
   at most TOUCHD_CLIENT_MAX_DOWN down afterwards, the memory for its strings allocated; when
   a check fails the table stays as it was (EPROTO, or ENOMEM). The table is kept sorted by id,
   so a frame is matched to it in one merge: O(n log n) for the frame's n touches. */
int td_track_touches(touchd_client *c, int snapshot) {
    const touchd_message *m = &c->msg;
    size_t n = m->touch_count;                      /* at most TOUCHD_CLIENT_MAX_DOWN (parse_touches) */
    id_slot *ids = c->track.ids;
    for (size_t i = 0; i < n; i++) ids[i] = (id_slot){.id = m->touches[i].id, .at = i};
    qsort(ids, n, sizeof *ids, by_id);
    size_t twice = n;                               /* the first place listing a touch again */
    for (size_t k = 1; k < n; k++)
        if (ids[k].id == ids[k - 1].id && ids[k].at < twice) twice = ids[k].at;
    if (twice < n) {
        td_set_error(c, EPROTO, "touchd_client_next: line %ld (%s): touches[%zu]: touch %ld is listed twice in one %s",
                     c->lines_in, m->type, twice, m->touches[twice].id, snapshot ? "snapshot" : "frame");
        return -1;
    }
    /* Where each touch is in the table (-1: not down), by merging the two sorted lists. */
    long *at = c->track.at;
    size_t stay = snapshot ? 0 : c->ndown, added = 0;
    for (size_t k = 0, j = 0; k < n; k++) {
        long id = ids[k].id;
        while (!snapshot && j < c->ndown && c->down[j].id < id) j++;
        long found = !snapshot && j < c->ndown && c->down[j].id == id ? (long)j : -1;
        at[ids[k].at] = found;
        if (is_over(m->touches[ids[k].at].phase)) stay -= found >= 0;
        else added += found < 0;
    }
    if (stay + added > TOUCHD_CLIENT_MAX_DOWN) {
        td_set_error(c, EPROTO, "touchd_client_next: line %ld (%s): %zu touches would be down (at most %d)",
                     c->lines_in, m->type, stay + added, TOUCHD_CLIENT_MAX_DOWN);
        return -1;
    }
    /* The strings first: nothing changes if one cannot be copied. */
    char **win = c->track.window, **view = c->track.view;
    unsigned char *fresh = c->track.fresh;
    for (size_t i = 0; i < n; i++) {
        const touchd_touch *t = &m->touches[i];
        win[i] = view[i] = NULL;
        fresh[i] = 0;
        if (is_over(t->phase)) continue;
        down_touch *d = at[i] >= 0 ? &c->down[at[i]] : NULL;
        int fw = 0, fv = 0;
        int bad = copy_string(t->window, d ? d->window : NULL, &win[i], &fw);
        fresh[i] = (unsigned char)fw;
        bad = bad || copy_string(t->view, d ? d->view : NULL, &view[i], &fv);
        fresh[i] |= (unsigned char)(fv << 1);
        if (bad) {
            for (size_t k = 0; k <= i; k++) {
                if (fresh[k] & 1) free(win[k]);
                if (fresh[k] & 2) free(view[k]);
            }
            td_set_error(c, ENOMEM, "touchd_client_next: line %ld (%s): out of memory", c->lines_in, m->type);
            return -1;
        }
    }
    /* Then the change, which cannot fail: a snapshot replaces the table; a frame's ended and
       cancelled touches leave it, the others are updated or added. */
    if (snapshot) {
        for (size_t j = 0; j < c->ndown; j++) free(c->down[j].window), free(c->down[j].view);
        c->ndown = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (at[i] < 0) continue;
        down_touch *d = &c->down[at[i]];
        if (is_over(m->touches[i].phase)) {
            d->gone = 1;
            continue;
        }
        if (d->window != win[i]) free(d->window);
        if (d->view != view[i]) free(d->view);
    }
    size_t kept = 0;
    for (size_t j = 0; j < c->ndown; j++) {
        if (c->down[j].gone) {
            free(c->down[j].window), free(c->down[j].view);
            continue;
        }
        c->down[kept++] = c->down[j];
    }
    c->ndown = kept;
    /* at[] indexes the table as it was: a touch updated keeps its place only when nothing
       before it left; find it again by id (the table is still sorted). */
    size_t before = c->ndown;
    for (size_t i = 0; i < n; i++) {
        const touchd_touch *t = &m->touches[i];
        if (is_over(t->phase)) continue;
        down_touch *d;
        if (at[i] >= 0) {
            down_touch key = {.id = t->id};
            d = bsearch(&key, c->down, before, sizeof *c->down, down_by_id);
        } else {
            d = &c->down[c->ndown++];
        }
        *d = (down_touch){.id = t->id, .window = win[i], .view = view[i], .x = t->x, .y = t->y,
                          .view_x = t->view_x, .view_y = t->view_y, .window_x = t->window_x,
                          .window_y = t->window_y, .tap_count = t->tap_count};
    }
    if (c->ndown > before) qsort(c->down, c->ndown, sizeof *c->down, down_by_id);
    return 0;
}

/* ---- the end ---------------------------------------------------------------------------- */

/* The "closed" message, in c->msg: every touch still down, cancelled with reason
   "disconnected", c->reason why. NULL with ENOMEM. */
const touchd_message *td_closed_message(touchd_client *c) {
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
        td_set_error(c, ENOMEM, "touchd_client_next: out of memory for the closed message");
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

/* Everything followed, freed (touchd_client_close). */
void td_forget_all(touchd_client *c) {
    for (size_t i = 0; i < c->ndown; i++) free(c->down[i].window), free(c->down[i].view);
    c->ndown = 0;
    while (c->npending) pop_pending(c);
    for (size_t i = 0; i < c->nwindows; i++) free(c->windows[i].id);
    c->nwindows = 0;
}
