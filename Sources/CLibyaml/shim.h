#ifndef TOUCHD_CLIBYAML_SHIM_H
#define TOUCHD_CLIBYAML_SHIM_H
#include <yaml.h>
#endif
