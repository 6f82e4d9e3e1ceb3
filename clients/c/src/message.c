/* libtouchd-client, parsing: one line from the daemon into a touchd_message (json-c, then
 * checked to be strict JSON by strict.c), every field checked for its type with the place
 * named; a request's text checked the same way and described for matching its reply. What a
 * message changes (touches down, replies, windows) is dispatch.c's. Called by client.c (I/O);
 * calls dispatch.c, strict.c and util.c. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fields ------------------------------------------------------------------------------ */

static const char *td_type_name(json_object *o) {
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

static int get_bool(touchd_client *c, json_object *obj, const char *key, const char *where,
                    int required, int *out) {
    json_object *v;
    int r = member(c, obj, key, where, required, json_type_boolean, "a boolean", &v);
    *out = r > 0 ? json_object_get_boolean(v) : 0;
    return r < 0 ? -1 : 0;
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

/* A calibration's fields ("calibration", "calibrated", "calibrationEnded"); 0 for any other. */
static int parse_calibration(touchd_client *c, json_object *obj, const char *type) {
    touchd_message *m = &c->msg;
    int target = strcmp(type, "calibration") == 0, done = strcmp(type, "calibrated") == 0;
    if (!target && !done && strcmp(type, "calibrationEnded") != 0) return 0;
    if (get_string(c, obj, "device", "", 1, &m->device) || get_string(c, obj, "output", "", target || done, &m->output))
        return -1;
    if (target && (get_integer(c, obj, "target", "", 1, &m->target_index) || get_integer(c, obj, "count", "", 1, &m->target_count) ||
                   get_point(c, obj, "point", "", 1, &m->target_x, &m->target_y) ||
                   get_string(c, obj, "retry", "", 0, &m->retry) || get_string(c, obj, "message", "", 0, &m->retry_message)))
        return -1;
    if (!done) return 0;
    json_object *matrix;
    if (member(c, obj, "matrix", "", 1, json_type_array, "an array", &matrix) < 0) return -1;
    if (json_object_array_length(matrix) != 6) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): matrix: %zu numbers, not 6", c->lines_in, type,
                     json_object_array_length(matrix));
        return -1;
    }
    for (size_t i = 0; i < 6; i++) {
        json_object *v = json_object_array_get_idx(matrix, i);
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
            td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): matrix[%zu]: a %s, not a number", c->lines_in,
                         type, i, td_type_name(v));
            return -1;
        }
        m->matrix[i] = json_object_get_double(v);
    }
    if (get_number(c, obj, "residual", "", 1, &m->rms) || get_number(c, obj, "maxResidual", "", 1, &m->max_error))
        return -1;
    return 0;
}

/* The screen reader's fields ("accessibilityFocus", "accessibility", "speech"); 0 for any other. */
static int parse_accessibility(touchd_client *c, json_object *obj, const char *type) {
    touchd_message *m = &c->msg;
    int action = strcmp(type, "accessibility") == 0, speech = strcmp(type, "speech") == 0;
    if (!action && !speech && strcmp(type, "accessibilityFocus") != 0) return 0;
    if (get_string(c, obj, "output", "", 1, &m->output) || get_string(c, obj, "view", "", 0, &m->view) ||
        get_string(c, obj, "action", "", action, &m->action))
        return -1;
    if (!speech) return 0;
    if (get_string(c, obj, "control", "", 0, &m->speech_control)) return -1;
    if (m->speech_control) return 0;
    return get_string(c, obj, "text", "", 1, &m->text) || get_bool(c, obj, "interrupt", "", 1, &m->interrupt) ||
           get_string(c, obj, "language", "", 0, &m->language) ? -1 : 0;
}

/* ---- a line from the daemon -------------------------------------------------------------- */

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
    if (json_object_object_get_ex(obj, "line", &v) && !json_object_is_type(v, json_type_int)) {
        td_set_error(c, EBADMSG, "touchd_client_next: line %ld (%s): line: a %s, not an integer", c->lines_in,
                  type, td_type_name(v));
        return -1;
    }
    /* A reply answers its request even when the rest of it is refused below: otherwise the
       next pong (or stats, or snapshot) would be given this one's line, and so on. */
    int has_line = v != NULL;
    m->line = td_reply_line(c, type, has_line, has_line ? (long)json_object_get_int64(v) : 0);
    if (get_integer(c, obj, "seq", "", 0, &m->seq) || get_number(c, obj, "time", "", 0, &m->time) ||
        get_string(c, obj, "window", "", 0, &m->window) || get_string(c, obj, "error", "", 0, &m->error) ||
        get_string(c, obj, "reason", "", 0, &m->reason))
        return -1;
    int control = strcmp(type, "control") == 0, scroll = strcmp(type, "scroll") == 0;
    int frame = strcmp(type, "frame") == 0, snapshot = strcmp(type, "snapshot") == 0;
    if (get_string(c, obj, "control", "", control, &m->control) ||
        get_string(c, obj, "event", "", control, &m->event))
        return -1;
    if (scroll || strcmp(type, "gesture") == 0) {
        if (get_string(c, obj, "view", "", 1, &m->view)) return -1;
    }
    if ((control || strcmp(type, "gesture") == 0) && get_bool(c, obj, "synthesized", "", 0, &m->synthesized)) return -1;
    if (scroll && get_point(c, obj, "offset", "", 1, &m->offset_x, &m->offset_y)) return -1;
    if ((frame || snapshot) && (parse_touches(c, obj) || td_track_touches(c, snapshot))) return -1;
    if (parse_calibration(c, obj, type) || parse_accessibility(c, obj, type)) return -1;
    if (strcmp(type, "bye") == 0) snprintf(c->bye, sizeof c->bye, "bye: %s", m->reason ? m->reason : "");
    return 0;
}

/* ---- a request ------------------------------------------------------------------------- */

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

/* A request's text checked (one JSON object, strict) and described for matching its reply
   (its line is the caller's). 0, or -1 with EINVAL (or ENOMEM) and the error. */
int td_parse_request(touchd_client *c, const char *json_object_text, size_t len, pending_request *p) {
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
    *p = (pending_request){0};
    describe_request(obj, p);
    json_object_put(obj);
    return 0;
}
