#ifndef TOUCHD_CLIBSYSTEMD_SHIM_H
#define TOUCHD_CLIBSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <sys/socket.h>
/* SD_LISTEN_FDS_START is a macro. */
static inline int touchd_sd_listen_fds_start(void) { return SD_LISTEN_FDS_START; }
/* SOCK_STREAM for sd_is_socket_unix (Glibc's module has it as an enum, not an int). */
static const int touchd_sock_stream = SOCK_STREAM;
#endif
