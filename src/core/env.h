/* dxcl's settings: from the environment, else from the config file DXCL_CONFIG names
 * (core/config.h; docs/deploy.md, "The config file"). Every name is read with a prefix, DXCL_
 * unless the build says otherwise: the test suite builds a second dxcl (dxcl_back.dll, prefix
 * DXCL_BACK_) to stand for a driver with native sharing behind the first, and each must read
 * its own settings (the config file too: DXCL_BACK_CONFIG, and DXCL_BACK_* names in it). */
#ifndef DXCL_ENV_H
#define DXCL_ENV_H

#include "core/common.h"

#include <stdio.h>

#ifndef DXCL_ENV_PREFIX
#define DXCL_ENV_PREFIX "DXCL_"
#endif
/* How log lines start. */
#ifndef DXCL_LOG_NAME
#define DXCL_LOG_NAME "dxcl"
#endif

/* The value of DXCL_ENV_PREFIX + name in `value` (at most size bytes): its length, or 0 when it
 * is unset, empty or too long. The environment wins over the config file. */
DWORD dxcl_getenv(const char *name, char *value, DWORD size);
/* Whether DXCL_ENV_PREFIX + name is set to exactly `value`, read once into *cache (0: unread,
 * 1: it is, 2: it is not): the switches that calls on hot paths ask. */
bool dxcl_setting_is(volatile LONG *cache, const char *name, const char *value);
/* The size a value of DXCL_ENV_PREFIX + name needs, its terminating 0 included; 0 when unset. */
DWORD dxcl_getenv_size(const char *name);

/* What the config file gave this program, for the log: "" without DXCL_CONFIG. */
const char *dxcl_config_report(void);

/* The Windows path of a file a setting names: as it is, or under Wine for a Unix path (one
 * that starts with '/') its DOS name; false when it does not fit in `count` characters. */
bool dxcl_setting_path(const char *path, WCHAR *wide, size_t count);

/* Opens the file a setting names (a Windows or a Unix path, as above); NULL when it cannot. */
FILE *dxcl_open_setting_file(const char *path, const wchar_t *mode);

/* This program's file name without its folder (game.exe). */
const char *dxcl_program_name(void);

#endif
