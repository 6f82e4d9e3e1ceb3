/* libtouchd-client's insides, shared by its files (hidden in the .so: only the
   functions marked EXPORT are the API). Also the hooks for the library's own tests and fuzz
   target. Not installed. */
#ifndef TOUCHD_CLIENT_INTERNAL_H
#define TOUCHD_CLIENT_INTERNAL_H

#include "touchd/client.h"

#include <json-c/json.h>
#include <stdint.h>

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
    signed char lineless;            /* ping 0, stats 1, subscribe 2: answered without a line; else -1 */
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
    int gone;                        /* track_touches: ended by the frame being applied */
} down_touch;

typedef struct {
    long id;
    size_t at;                       /* its place in the message */
} id_slot;

/* track_touches' scratch, TOUCHD_CLIENT_MAX_DOWN of each (a message lists no more). */
typedef struct {
    id_slot *ids;                    /* the message's ids, sorted */
    long *at;                        /* each touch's place in the table, -1 when not down */
    char **window, **view;           /* the strings each touch will keep in the table */
    unsigned char *fresh;            /* which of them were allocated for it (1: window, 2: view) */
} track_scratch;

enum state { OPEN, ENDED, DONE };

struct touchd_client {
    int fd;
    enum state state;
    char reason[256];                /* why the connection ended (for "closed") */
    char bye[128];                   /* "bye: REASON" once the daemon said bye */
    size_t max_line;
    int send_timeout_ms;             /* SEND_TIMEOUT_MS (the fuzz target's session shortens it) */

    char *buf;                       /* bytes read: [start, end) unconsumed; no '\n' in [start, scan) */
    size_t cap, start, end, scan;
    int skipping;                    /* inside a line over the limit: dropping bytes to its '\n' */
    long lines_in;                   /* lines received */
    long lines_out;                  /* requests sent */

    pending_request *pending;        /* a ring: npending from pending_head, cap_pending a power of 2 */
    size_t pending_head, npending, cap_pending;
    size_t lineless[3];              /* how many pings, stats and subscribes are pending */
    unsigned long long reply_steps;  /* pending requests looked at or moved, for test_internal */
    owned_window *windows;
    size_t nwindows, cap_windows;
    down_touch *down;                /* the touches down, sorted by id */
    size_t ndown;
    track_scratch track;
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

/* A client on a descriptor already connected (a socketpair's end); it is made non-blocking.
   NULL with errno. For the tests and the fuzz target. */
touchd_client *touchd_client__from_fd(int fd);

/* The files call each other in one direction, each only the ones below it:
     client.c (I/O) → message.c (parsing) → dispatch.c (what a message changes) → strict.c, util.c
   (`make check` checks it from the objects' symbols). */

/* message.c: parsing */
/* One line (len bytes, NUL-terminated) into c->msg. 0, or -1 with errno and the error. */
int td_parse_line(touchd_client *c, const char *text, size_t len);
/* A request's text checked and described for its reply (line not set). 0, or -1 with errno. */
int td_parse_request(touchd_client *c, const char *text, size_t len, pending_request *p);

/* dispatch.c: what a message changes */
owned_window *td_find_window(touchd_client *c, const char *id);
/* The touches of c->msg (a frame, or a snapshot: the whole table) checked against the table,
   then applied. 0, or -1 (EPROTO, ENOMEM) with the table unchanged. */
int td_track_touches(touchd_client *c, int snapshot);
long td_reply_line(touchd_client *c, const char *type, int has_line, long line);
int td_reserve_pending(touchd_client *c);
void td_push_pending(touchd_client *c, const pending_request *p);
const touchd_message *td_closed_message(touchd_client *c);
void td_forget_all(touchd_client *c);

/* strict.c: JSON as RFC 8259 has it */
/* Whether text[0, len) is one JSON value as RFC 8259 has it, strings in valid UTF-8 without
   U+0000, integers within 64 bits: 0, or -1 with the 1-based column and why. */
int td_json_check(const char *text, size_t len, size_t *column, const char **why);
/* Whether every number in the tree is finite: 0, or -1 with the first other's place in where. */
int td_json_finite(json_object *o, char *where, size_t cap);

/* util.c: errors and the clock */
void td_set_error(touchd_client *c, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int64_t td_now_ms(void);
int td_left_ms(int64_t deadline);

#endif
