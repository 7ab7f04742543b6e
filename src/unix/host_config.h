/* dxcl's settings for the host-side libraries (dxclunix.so; the Vulkan layer can take the same
 * calls): the environment, else the config file DXCL_CONFIG names (core/config.h), read once
 * for the Windows program the Wine process runs. */
#ifndef DXCL_HOST_CONFIG_H
#define DXCL_HOST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* The value of `name` (the full variable name, DXCL_HOST_ROOT): the environment's when it is
 * set and not empty, else the config file's, else NULL. The config file's text stays valid
 * for the process's life. */
const char *dxcl_host_setting(const char *name);

/* What the config file gave this program ("" without DXCL_CONFIG), for a log line. */
const char *dxcl_host_config_report(void);

/* The Unix path of a setting's file: a Windows path (C:\x, Z:\x) through the prefix's
 * dosdevices, a Unix path as it is. False when it does not fit. */
bool dxcl_host_path(const char *path, char *unix_path, size_t size);

#endif
