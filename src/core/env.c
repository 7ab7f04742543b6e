/* dxcl's settings (env.h): the environment with the build's prefix (DXCL_, or DXCL_BACK_ for the
 * tests' dxcl_back.dll), else the config file, read once. */
#include "core/env.h"

#include <string.h>
#include "core/config.h"

#include <stdio.h>

static struct dxcl_config config;
static char config_report[MAX_PATH + 256];
static INIT_ONCE config_once = INIT_ONCE_STATIC_INIT;

const char *dxcl_program_name(void)
{
    static char path[MAX_PATH];

    if (!path[0] && !GetModuleFileNameA(NULL, path, sizeof(path)))
        return "";
    return dxcl_config_base_name(path);
}

/* Wine's kernel32 turns a Unix path into a DOS one (heap memory), where there is Wine. */
typedef WCHAR *(CDECL *dos_file_name_fn)(const char *unix_path);

bool dxcl_setting_path(const char *path, WCHAR *wide, size_t count)
{
    dos_file_name_fn dos_file_name = (dos_file_name_fn)(void *)GetProcAddress(
        GetModuleHandleA("kernel32.dll"), "wine_get_dos_file_name");
    WCHAR *dos;
    bool fits;

    if (path[0] == '/' && dos_file_name && (dos = dos_file_name(path))) {
        if ((fits = wcslen(dos) < count))
            wcscpy(wide, dos);
        HeapFree(GetProcessHeap(), 0, dos);
        return fits;
    }
    return MultiByteToWideChar(CP_ACP, 0, path, -1, wide, (int)count) != 0;
}

FILE *dxcl_open_setting_file(const char *path, const wchar_t *mode)
{
    WCHAR wide[MAX_PATH + 64];

    return dxcl_setting_path(path, wide, DXCL_ARRAY_SIZE(wide)) ? _wfopen(wide, mode) : NULL;
}

static BOOL CALLBACK load_config(INIT_ONCE *once, void *param, void **context)
{
    char name[64], path[MAX_PATH];
    FILE *file;
    DWORD len;

    (void)once, (void)param, (void)context;
    snprintf(name, sizeof(name), "%sCONFIG", DXCL_ENV_PREFIX);
    len = GetEnvironmentVariableA(name, path, sizeof(path));
    if (len == 0 || len >= sizeof(path))
        return TRUE;
    if (!(file = dxcl_open_setting_file(path, L"rb"))) {
        snprintf(config_report, sizeof(config_report), "cannot open the config file %s=%s", name,
                 path);
        return TRUE;
    }
    dxcl_config_read(&config, file, dxcl_program_name());
    fclose(file);
    snprintf(config_report, sizeof(config_report), "config file %s: %u settings for %s%s%s", path,
             config.count, dxcl_program_name(), config.problem[0] ? "; skipped " : "",
             config.problem);
    return TRUE;
}

const char *dxcl_config_report(void)
{
    InitOnceExecuteOnce(&config_once, load_config, NULL, NULL);
    return config_report;
}

/* The config file's value of the full name, or NULL. */
static const char *config_value(const char *full)
{
    InitOnceExecuteOnce(&config_once, load_config, NULL, NULL);
    return dxcl_config_find(&config, full);
}

DWORD dxcl_getenv(const char *name, char *value, DWORD size)
{
    char full[64];
    const char *from_file;
    DWORD len;

    snprintf(full, sizeof(full), "%s%s", DXCL_ENV_PREFIX, name);
    len = GetEnvironmentVariableA(full, value, size);
    if (len)
        return len < size ? len : 0;
    if (!(from_file = config_value(full)) || !*from_file || strlen(from_file) >= size)
        return 0;
    strcpy(value, from_file);
    return (DWORD)strlen(from_file);
}

bool dxcl_setting_is(volatile LONG *cache, const char *name, const char *value)
{
    char found[32];

    if (!*cache) {
        DWORD len = dxcl_getenv(name, found, sizeof(found));

        InterlockedExchange(cache, len && !strcmp(found, value) ? 1 : 2);
    }
    return *cache == 1;
}

DWORD dxcl_getenv_size(const char *name)
{
    char full[64];
    const char *from_file;
    DWORD size;

    snprintf(full, sizeof(full), "%s%s", DXCL_ENV_PREFIX, name);
    if ((size = GetEnvironmentVariableA(full, NULL, 0)))
        return size;
    from_file = config_value(full);
    return from_file && *from_file ? (DWORD)strlen(from_file) + 1 : 0;
}
