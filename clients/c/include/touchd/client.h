/* touchd client library: one connection to touchd's socket (docs/protocol.md), NDJSON both ways,
 * for C programs and the event loops they run (poll, epoll, SDL, GLib: touchd_client_fd).
 *
 *     touchd_client *c = touchd_client_connect(NULL);
 *     if (!c) { fprintf(stderr, "%s\n", touchd_client_error(NULL)); exit(1); }
 *     long line = touchd_client_request(c, "{\"attach\":{...}}");
 *     const touchd_message *m;
 *     while ((m = touchd_client_next(c, -1)) || errno == EBADMSG || errno == EMSGSIZE || errno == EPROTO) {
 *         if (!m) { fprintf(stderr, "%s\n", touchd_client_error(c)); continue; }
 *         if (m->line == line) ...                        the attach's reply ("attached" or "error")
 *         for (size_t i = 0; i < m->touch_count; i++) ... a frame's touches, or those cancelled in "closed"
 *     }
 *     touchd_client_close(c);
 *
 * Not thread-safe: one thread uses a client at a time (different clients are independent).
 * Documentation: docs/client-c.md.  Link with `pkg-config --cflags --libs touchd-client`.
 */
#ifndef TOUCHD_CLIENT_H
#define TOUCHD_CLIENT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API's version: MINOR counts additions (2: touchd_client_rotate_output, the calibration
   builders and touchd_message's calibration fields, appended at its end; 3: the screen
   reader's builders and touchd_message's accessibility fields, appended after them); MAJOR an
   incompatible change (the soname's number). */
#define TOUCHD_CLIENT_VERSION_MAJOR 0
#define TOUCHD_CLIENT_VERSION_MINOR 3

/* The longest line accepted from the daemon by default (touchd_client_set_max_line). */
#define TOUCHD_CLIENT_MAX_LINE (16u * 1024u * 1024u)
/* The most touches tracked as down at once (their cancellation on close is guaranteed). */
#define TOUCHD_CLIENT_MAX_DOWN 1024

typedef struct touchd_client touchd_client;

typedef struct {
    long        id;                /* touch id */
    const char *phase;             /* "began", "moved", "stationary", "ended", "cancelled" */
    const char *window, *view;     /* ids; NULL when the touch is on no view */
    double      x, y;              /* screen points (see window_x below) */
    double      view_x, view_y;    /* in the view's coordinates */
    int         tap_count;
    const char *reason;            /* why it was cancelled, else NULL */
    /* More than the fixed core: */
    double      window_x, window_y; /* the message's "location": in the window's coordinates.
                                       x, y add the window's origin for the windows this client
                                       attached; for other windows touchd publishes no frame, so
                                       x, y equal window_x, window_y (right for windows at the
                                       screen's origin, as config windows usually are). */
} touchd_touch;

typedef struct {
    const char         *type;      /* the message's "type": "frame", "control", "gesture", "scroll",
                                      "hello", "attached", "updated", "detached", "error", "pong",
                                      "bye", …, or "closed" (below) */
    const char         *json;      /* the whole message line, without the newline */
    long                line;      /* a reply's or error's request line number, else 0 */
    size_t              touch_count;
    const touchd_touch *touches;   /* a frame's touches */
    const char         *control;   /* control messages: the control's id … */
    const char         *event;     /* … and the event ("touchDown", "touchUpInside", …) */
    /* More than the fixed core (0 or NULL when the message has no such field): */
    long                seq;       /* "seq" */
    double              time;      /* "time", seconds */
    const char         *view;      /* scroll and gesture messages: the view */
    double              offset_x, offset_y; /* scroll messages: the offset */
    const char         *window;    /* "window" of attached, updated, detached, error */
    const char         *error;     /* error messages: the daemon's text */
    const char         *reason;    /* bye: the daemon's reason; closed: why the connection ended;
                                      calibrationEnded: why ("cancelled", "device-removed", …) */
    /* A calibration's messages (touchd_client_calibrate; "calibration", "calibrated",
       "calibrationEnded"; docs/protocol.md, "Calibration from the glass"): */
    const char         *device;    /* the device being calibrated */
    const char         *output;    /* calibration, calibrated: the output its targets are on */
    long                target_index, target_count; /* calibration: the target to draw (0-based), of how many */
    double              target_x, target_y;  /* calibration: where to draw it, in the output's points */
    const char         *retry;     /* calibration: why a target is asked again ("misclick",
                                      "same-place"), else NULL … */
    const char         *retry_message; /* … and the words to show */
    double              matrix[6]; /* calibrated: the matrix [a, b, c, d, e, f] (applied until the
                                      next reload; the config entry to keep it is in json) */
    double              rms, max_error; /* calibrated: "residual" (rms) and "maxResidual", in points */
    /* The screen reader's messages (docs/messages.md, "The screen reader"): "accessibilityFocus",
       "accessibility" and "speech" name their output in `output` and their element in `view`
       (NULL: none, e.g. an announcement). */
    const char         *action;    /* accessibility: "activate", "increment", "decrement",
                                      "escape", "magicTap" */
    const char         *text;      /* speech: what to say (NULL for a pause or resume) … */
    int                 interrupt; /* … 1: stop what is being said first; 0: say it after */
    const char         *language;  /* … the text's language ("en"), or NULL */
    const char         *speech_control; /* speech: "pause" or "resume" instead of a text */
    int                 synthesized; /* control, gesture: 1 when its touch is the screen reader's
                                        (an activation's tap; a frame's touches say so in json) */
} touchd_message;

/* socket_path NULL: $TOUCHD_SOCKET, else /run/touchd/touchd.sock. NULL with errno on failure
   (touchd_client_error(NULL) says why, in words, for the calling thread). */
touchd_client *touchd_client_connect(const char *socket_path);
void           touchd_client_close(touchd_client *c);
int            touchd_client_fd(const touchd_client *c);      /* for poll/epoll/SDL loops */
/* Sends one request object (no newline); returns its line number (1, 2, …) or -1 with errno:
   EINVAL (not one JSON object), ENOTCONN (the connection is closed), ETIMEDOUT (the daemon
   did not take the whole line within 5 s; if part of it went, the sending side is shut),
   EPIPE/ECONNRESET. Messages read while it waits are kept for touchd_client_next. */
long           touchd_client_request(touchd_client *c, const char *json_object);
/* The next message, valid until the next call; waits up to timeout_ms (-1: forever). NULL with
   errno EAGAIN on a timeout. When the connection closes, one last message of type "closed"
   lists every touch still down as cancelled (reason "disconnected"); after it, NULL with
   errno ENOTCONN. A line from the daemon that is not a message (not JSON, not an object, no
   "type", a field of the wrong type, not strict JSON: NaN, 1e400, invalid UTF-8, "\u0000")
   gives NULL with errno EBADMSG, one longer than the limit NULL with EMSGSIZE (it is skipped
   without being kept), and a frame or snapshot that does not fit the table of touches down
   (a touch listed twice, more than TOUCHD_CLIENT_MAX_DOWN down) NULL with EPROTO, the table
   unchanged: the connection goes on, the next call reads the next line. */
const touchd_message *touchd_client_next(touchd_client *c, int timeout_ms);
const char    *touchd_client_error(const touchd_client *c);   /* the last error in words */

/* More than the fixed core: */
/* Request builders: each sends one request as touchd_client_request does (its line number, or
   -1 with errno; strings are escaped for JSON). */
/* {"output":{"id":output_id,"rotation":rotation}}: turns an output (0, 90, 180 or 270); the
   reply is an "output" message with its line, or an "error". */
long           touchd_client_rotate_output(touchd_client *c, const char *output_id, int rotation);
/* {"calibrate":{"device":device,"targets":[[x,y],…]}}: calibrates a touchscreen from the UI on
   the glass (count 0, targets NULL: the daemon's five targets). The reply is the first
   "calibration" message (target_index 0, target_x, target_y), or an "error"; the next targets,
   then "calibrated" or "calibrationEnded", follow without a line. */
long           touchd_client_calibrate(touchd_client *c, const char *device, const double (*targets)[2], size_t count);
/* {"calibrate":{"device":device,"cancel":true}}: ends our calibration with nothing changed; the
   reply is "calibrationEnded" (reason "cancelled") or an "error". */
long           touchd_client_cancel_calibration(touchd_client *c, const char *device);
/* {"screenReader":{"output":output,"on":on}}: turns an output's screen reader on (1) or off (0);
   the reply is {"type":"screenReader",…} or an "error" (not allowed to act on the output). */
long           touchd_client_screen_reader(touchd_client *c, const char *output, int on);
/* {"announce":{"output":output,"text":text}}: the screen reader says text at once; the reply is
   {"type":"announced",…} or an "error". */
long           touchd_client_announce(touchd_client *c, const char *output, const char *text);
/* {"accessibilityChanged":{"output":output,"screen":true}} (screen 1: a new screen, the focus to
   the first element or to view `focus`) or {…,"layout":true} (screen 0: the focus stays where it
   is still read); focus NULL for none. The reply is {"type":"accessibilityChanged","focus":…}. */
long           touchd_client_accessibility_changed(touchd_client *c, const char *output, int screen, const char *focus);
/* The longest line accepted from the daemon (default TOUCHD_CLIENT_MAX_LINE, at least 1024).
   0, or -1 with errno EINVAL. */
int            touchd_client_set_max_line(touchd_client *c, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TOUCHD_CLIENT_H */
