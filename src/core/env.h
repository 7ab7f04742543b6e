/* dxcl's settings from the environment. Every name is read with a prefix, DXCL_ unless the
 * build says otherwise: the test suite builds a second dxcl (dxcl_back.dll, prefix DXCL_BACK_)
 * to stand for a driver with native sharing behind the first, and each must read its own
 * settings. */
#ifndef DXCL_ENV_H
#define DXCL_ENV_H

#include "core/common.h"

#ifndef DXCL_ENV_PREFIX
#define DXCL_ENV_PREFIX "DXCL_"
#endif
/* How log lines start. */
#ifndef DXCL_LOG_NAME
#define DXCL_LOG_NAME "dxcl"
#endif

/* The value of DXCL_ENV_PREFIX + name in `value` (at most size bytes): its length, or 0 when it
 * is unset, empty or too long. */
DWORD dxcl_getenv(const char *name, char *value, DWORD size);
/* The size a value of DXCL_ENV_PREFIX + name needs, its terminating 0 included; 0 when unset. */
DWORD dxcl_getenv_size(const char *name);

#endif
