#ifndef TOUCHD_CLIBEVDEV_SHIM_H
#define TOUCHD_CLIBEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <linux/input.h>

/* struct input_event's time fields are macros on some ABIs; Swift cannot see through them. */
static inline long touchd_input_event_sec(const struct input_event *ev) { return ev->input_event_sec; }
static inline long touchd_input_event_usec(const struct input_event *ev) { return ev->input_event_usec; }
static inline void touchd_input_event_set_time(struct input_event *ev, long sec, long usec) {
    ev->input_event_sec = sec;
    ev->input_event_usec = usec;
}
#endif
