/* Not part of the API: hooks for the library's own tests and fuzz target (hidden in the .so). */
#ifndef TOUCHD_CLIENT_INTERNAL_H
#define TOUCHD_CLIENT_INTERNAL_H

#include "touchd/client.h"

/* A client on a descriptor already connected (a socketpair's end); it is made non-blocking.
   NULL with errno. */
touchd_client *touchd_client__from_fd(int fd);

#endif
