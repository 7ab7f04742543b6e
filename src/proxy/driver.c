/* Loading the driver: %SystemRoot%\system32\OpenCL.dll (Wine's builtin under Wine, the
 * Khronos loader on Windows) or DXCL_DRIVER=<path>. Loaded lazily: LoadLibrary is not safe
 * inside DllMain, and programs that never call OpenCL should not pay for it. */
#include "proxy/driver.h"

#include <stdio.h>

static struct dxcl_driver driver;
static char driver_path[MAX_PATH];
static HMODULE driver_module;
static INIT_ONCE driver_once = INIT_ONCE_STATIC_INIT;

static const struct {
    const char *name;
    size_t offset;
} entry_points[] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    {#name, offsetof(struct dxcl_driver, name)},
#include "proxy/cl_api.h"
#undef DXCL_API_FN
};

static bool is_own_module(HMODULE module)
{
    HMODULE self = NULL;

    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (const char *)&driver, &self);
    return module == self;
}

static void choose_driver_path(void)
{
    DWORD len = GetEnvironmentVariableA("DXCL_DRIVER", driver_path, sizeof(driver_path));
    UINT dir_len;

    if (len > 0 && len < sizeof(driver_path))
        return;
    dir_len = GetSystemDirectoryA(driver_path, sizeof(driver_path));
    if (dir_len == 0 || dir_len + sizeof("\\OpenCL.dll") > sizeof(driver_path)) {
        driver_path[0] = 0;
        return;
    }
    strcat(driver_path, "\\OpenCL.dll");
}

static BOOL CALLBACK load_driver(INIT_ONCE *once, void *param, void **context)
{
    (void)once, (void)param, (void)context;
    choose_driver_path();
    if (driver_path[0])
        driver_module = LoadLibraryA(driver_path);
    if (driver_module && is_own_module(driver_module)) {
        /* dxcl was installed as the system OpenCL.dll: forwarding to itself would loop. */
        DXCL_LOG("driver %s is dxcl itself; no driver available", driver_path);
        driver_module = NULL;
    }
    if (!driver_module) {
        DXCL_LOG("cannot load the OpenCL driver '%s' (error %lu)", driver_path, GetLastError());
        driver_path[0] = 0;
        return TRUE;
    }
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(entry_points); i++) {
        FARPROC proc = GetProcAddress(driver_module, entry_points[i].name);
        memcpy((char *)&driver + entry_points[i].offset, &proc, sizeof(proc));
    }
    DXCL_LOG("forwarding to %s", driver_path);
    return TRUE;
}

const struct dxcl_driver *dxcl_driver(void)
{
    InitOnceExecuteOnce(&driver_once, load_driver, NULL, NULL);
    return &driver;
}

const char *dxcl_driver_path(void)
{
    dxcl_driver();
    return driver_path;
}

cl_int dxcl_driver_missing(const char *name)
{
    DXCL_LOG("%s: the driver does not provide it", name);
    return CL_INVALID_OPERATION;
}
