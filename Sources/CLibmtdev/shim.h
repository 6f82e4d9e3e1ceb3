#ifndef TOUCHD_CLIBMTDEV_SHIM_H
#define TOUCHD_CLIBMTDEV_SHIM_H
#include <linux/input.h>
#include <mtdev-plumbing.h>
#endif
