/* The host side's settings (host_config.h). The program is the one Wine shows in the process's
 * command line (Wine puts the Windows program's path first), so that the config file's
 * [program.exe] sections apply to the host-side libraries as they do to OpenCL.dll. */
#define _GNU_SOURCE
#include "unix/host_config.h"
#include "core/config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct dxcl_config config;
static char report[1400];
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

bool dxcl_host_path(const char *path, char *unix_path, size_t size)
{
    const char *prefix = getenv("WINEPREFIX"), *home = getenv("HOME");
    char drive[600];
    int len;

    if (!((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z' && path[1] == ':' &&
          (path[2] == '\\' || path[2] == '/')))
        return snprintf(unix_path, size, "%s", path) < (int)size;
    if (prefix && *prefix)
        snprintf(drive, sizeof(drive), "%s/dosdevices/%c:", prefix, path[0] | 0x20);
    else
        snprintf(drive, sizeof(drive), "%s/.wine/dosdevices/%c:", home ? home : "", path[0] | 0x20);
    len = snprintf(unix_path, size, "%s/%s", drive, path + 3);
    if (len < 0 || len >= (int)size)
        return false;
    for (char *p = unix_path; *p; p++)
        if (*p == '\\')
            *p = '/';
    return true;
}

/* The Windows program of this Wine process: the first word of /proc/self/cmdline. */
static void program_name(char *name, size_t size)
{
    FILE *file = fopen("/proc/self/cmdline", "rb");
    size_t len = file ? fread(name, 1, size - 1, file) : 0;

    if (file)
        fclose(file);
    name[len] = 0;
}

static void load_config_file(void)
{
    const char *setting = getenv("DXCL_CONFIG");
    char path[600], program[512];

    if (!setting || !*setting)
        return;
    program_name(program, sizeof(program));
    if (!dxcl_host_path(setting, path, sizeof(path)) || !dxcl_config_load(&config, path, program)) {
        snprintf(report, sizeof(report), "cannot open the config file DXCL_CONFIG=%s", setting);
        return;
    }
    snprintf(report, sizeof(report), "config file %s: %u settings for %s%s%s", path, config.count,
             dxcl_config_base_name(program), config.problem[0] ? "; skipped " : "", config.problem);
}

const char *dxcl_host_setting(const char *name)
{
    const char *value = getenv(name);

    if (value && *value)
        return value;
    pthread_once(&config_once, load_config_file);
    value = dxcl_config_find(&config, name);
    return value && *value ? value : NULL;
}

const char *dxcl_host_config_report(void)
{
    pthread_once(&config_once, load_config_file);
    return report;
}
