/* libtouchd-client, the bottom layer: errors in words and the clock. Every other file may
 * call these; they call nothing of the library's (src/internal.h: the layers). */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static __thread char connect_error[512];

void td_set_error(touchd_client *c, int errnum, const char *fmt, ...) {
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

int64_t td_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none), for poll(). */
int td_left_ms(int64_t deadline) {
    if (deadline < 0) return -1;
    int64_t left = deadline - td_now_ms();
    if (left <= 0) return 0;
    return left > INT32_MAX ? INT32_MAX : (int)left;
}
