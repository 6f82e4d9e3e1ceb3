/* libtouchd-client: one line from the daemon parsed into a touchd_message (json-c, strict),
 * every field checked for its type with the place named, and the touches down followed. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ----------------------------------------------------------------------------- */

const char *td_type_name(json_object *o) {
    return o ? json_type_to_name(json_object_get_type(o)) : "null";
}

/* Member `key` of `obj` when it has type `want` (or, for a number, an integer): 1 with it in
 * *out; 0 when it is absent (or null) and not required; -1 with the error naming its place. */
static int member(touchd_client *c, json_object *obj, const char *key, const char *where, int required,
                  json_type want, const char *what, json_object **out) {
    json_object *v;
    const char *type = c->msg.type ? c->msg.type : "?";
    *out = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (!required) return 0;
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: missing", c->lines_in, type, where, key);
        return -1;
    }
    if (!json_object_is_type(v, want) && !(want == json_type_double && json_object_is_type(v, json_type_int))) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: a %s, not %s",
                     c->lines_in, type, where, key, td_type_name(v), what);
        return -1;
    }
    *out = v;
    return 1;
}

/* A member that must be a string (or, when nullable, null or absent). 0, or -1 with the error. */
static int get_string(touchd_client *c, json_object *obj, const char *key, const char *where,
                      int required, const char **out) {
    json_object *v;
    int r = member(c, obj, key, where, required, json_type_string, "a string", &v);
    *out = r > 0 ? json_object_get_string(v) : NULL;
    return r < 0 ? -1 : 0;
}

static int get_number(touchd_client *c, json_object *obj, const char *key, const char *where,
                      int required, double *out) {
    json_object *v;
    int r = member(c, obj, key, where, required, json_type_double, "a number", &v);
    *out = r > 0 ? json_object_get_double(v) : 0;
    return r < 0 ? -1 : 0;
}

static int get_integer(touchd_client *c, json_object *obj, const char *key, const char *where,
                       int required, long *out) {
    json_object *v;
    int r = member(c, obj, key, where, required, json_type_int, "an integer", &v);
    if (r <= 0) { *out = 0; return r; }
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
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: missing", c->lines_in,
                  c->msg.type, where, key);
        return -1;
    }
    json_object *a, *b;
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2 ||
        !(a = json_object_array_get_idx(v, 0)) || !(b = json_object_array_get_idx(v, 1)) ||
        !(json_object_is_type(a, json_type_double) || json_object_is_type(a, json_type_int)) ||
        !(json_object_is_type(b, json_type_double) || json_object_is_type(b, json_type_int))) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): %s%s: not a point [x, y]",
                  c->lines_in, c->msg.type, where, key);
        return -1;
    }
    *x = json_object_get_double(a);
    *y = json_object_get_double(b);
    return 0;
}

owned_window *td_find_window(touchd_client *c, const char *id) {
    for (size_t i = 0; id && i < c->nwindows; i++)
        if (strcmp(c->windows[i].id, id) == 0) return &c->windows[i];
    return NULL;
}

/* The touches array of a frame or snapshot, into c->touches. */
static int parse_touches(touchd_client *c, json_object *obj) {
    json_object *arr;
    if (!json_object_object_get_ex(obj, "touches", &arr) || !arr) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): touches: missing", c->lines_in, c->msg.type);
        return -1;
    }
    if (!json_object_is_type(arr, json_type_array)) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): touches: a %s, not an array",
                  c->lines_in, c->msg.type, td_type_name(arr));
        return -1;
    }
    size_t n = json_object_array_length(arr);
    if (n > TOUCHD_CLIENT_MAX_DOWN) {
        td_set_error(c, EPROTO, "touchd_client_next: line %ld (%s): %zu touches (more than %d at once)",
                  c->lines_in, c->msg.type, n, TOUCHD_CLIENT_MAX_DOWN);
        return -1;
    }
    if (n > c->cap_touches) {
        touchd_touch *t = realloc(c->touches, n * sizeof *t);
        if (!t) {
            td_set_error(c, ENOMEM, "touchd_client_next: line %ld (%s): out of memory for %zu touches",
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
            td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): touches[%zu]: a %s, not an object",
                      c->lines_in, c->msg.type, i, td_type_name(o));
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
        owned_window *w = td_find_window(c, t->window);
        if (w) {
            t->x += w->ox;
            t->y += w->oy;
        }
    }
    c->msg.touches = c->touches;
    c->msg.touch_count = n;
    return 0;
}

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
static int track_touches(touchd_client *c, int snapshot) {
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

int td_parse_line(touchd_client *c, const char *text, size_t len) {
    if (memchr(text, '\0', len)) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: a NUL byte at column %zu",
                  c->lines_in, (size_t)((const char *)memchr(text, '\0', len) - text) + 1);
        return -1;
    }
    json_tokener_reset(c->tok);
    json_object *obj = json_tokener_parse_ex(c->tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(c->tok);
    size_t end = json_tokener_get_parse_end(c->tok);
    if (!obj || jerr != json_tokener_success) {
        if (obj) json_object_put(obj);
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon is not JSON: %s (column %zu)",
                  c->lines_in, jerr == json_tokener_continue ? "it ends too early" : json_tokener_error_desc(jerr),
                  end + 1);
        return -1;
    }
    while (end < len && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) end++;
    if (end < len) {
        json_object_put(obj);
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: text after the JSON value (column %zu)",
                  c->lines_in, end + 1);
        return -1;
    }
    const char *why;
    char where[128];
    if (td_json_check(text, len, &end, &why) < 0) {
        json_object_put(obj);
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon is not strict JSON: %s (column %zu)",
                     c->lines_in, why, end);
        return -1;
    }
    if (td_json_finite(obj, where, sizeof where) < 0) {
        json_object_put(obj);
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: %s: a number out of range (not a finite double)",
                     c->lines_in, where);
        return -1;
    }
    if (!json_object_is_type(obj, json_type_object)) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: a %s, not a JSON object",
                  c->lines_in, td_type_name(obj));
        json_object_put(obj);
        return -1;
    }
    c->cur = obj;
    touchd_message *m = &c->msg;
    json_object *v;
    if (!json_object_object_get_ex(obj, "type", &v) || !json_object_is_type(v, json_type_string)) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld from the daemon: type: %s", c->lines_in,
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
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): line: a %s, not an integer", c->lines_in,
                  type, td_type_name(v));
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
    m->line = td_reply_line(c, obj, type);
    if (strcmp(type, "bye") == 0) snprintf(c->bye, sizeof c->bye, "bye: %s", m->reason ? m->reason : "");
    return 0;
}

/* The "closed" message: every touch still down, cancelled with reason "disconnected". */
