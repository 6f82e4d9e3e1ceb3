#ifndef TOUCHD_CLIBEVDEV_SHIM_H
#define TOUCHD_CLIBEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>

/* struct input_event's time fields are macros on some ABIs; Swift cannot see through them. */
static inline long touchd_input_event_sec(const struct input_event *ev) { return ev->input_event_sec; }
static inline long touchd_input_event_usec(const struct input_event *ev) { return ev->input_event_usec; }
static inline void touchd_input_event_set_time(struct input_event *ev, long sec, long usec) {
    ev->input_event_sec = sec;
    ev->input_event_usec = usec;
}

/* UI_SET_PHYS before UI_DEV_CREATE: libevdev_set_phys names only libevdev's own struct, and
   libevdev_uinput_create_from_device does not pass it on, so touchd sets its virtual devices'
   phys itself (a macro with a pointer argument: Swift cannot call it). -1 and errno on failure. */
static inline int touchd_uinput_set_phys(int fd, const char *phys) { return ioctl(fd, UI_SET_PHYS, phys); }
#endif
