#ifndef TOUCHD_CLIBSYSTEMD_SHIM_H
#define TOUCHD_CLIBSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
/* SD_LISTEN_FDS_START is a macro. */
static inline int touchd_sd_listen_fds_start(void) { return SD_LISTEN_FDS_START; }
#endif
