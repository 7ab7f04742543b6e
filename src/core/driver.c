/* Loading the driver, by route (DXCL_UNIX chooses; docs/proxy.md, "The Unix side"):
 *   - DXCL_DRIVER=<path>: that DLL;
 *   - the Unix side: under Wine, dxcl's builtin pair dxclunix.dll, found in a Wine DLL folder
 *     (Wine's own or a WINEDLLPATH entry, as <dir>\x86_64-windows\dxclunix.dll, or
 *     <dir>\i386-windows\dxclunix.dll for a 32-bit dxcl under old WoW64), which calls
 *     the host's libOpenCL.so.1 directly (src/unix/): the whole OpenCL 3.0 API and every
 *     extension function the host driver has. DXCL_UNIX=auto (the default) takes it when it
 *     loads and opens the host library, DXCL_UNIX=1 only it, DXCL_UNIX=0 never;
 *   - otherwise %SystemRoot%\system32\OpenCL.dll (Wine's builtin under Wine, the Khronos
 *     loader on Windows). When the system OpenCL.dll is a dxcl (this module or another copy:
 *     scripts/dxcl-wine.sh installs dxcl there in a Wine prefix), dxcl loads Wine's builtin
 *     opencl.dll from Wine's own folder instead.
 * Loaded lazily: LoadLibrary is not safe inside DllMain, and programs that never call OpenCL
 * should not pay for it. */
#include "core/driver.h"
#include "core/env.h"
#include "core/lock.h"

#include <stdio.h>
#include <stdlib.h>

static struct dxcl_driver driver;
/* With DXCL_LOCK_CHECK on, dxcl calls the driver through these: each checks the lock rules
 * (core/lock.h: no driver call under dxcl_lock and the other data locks) and calls the driver. */
static struct dxcl_driver checked;
static char driver_path[MAX_PATH];
static char driver_route[MAX_PATH + 64];
static HMODULE driver_module;
/* The pair's own table: the host's entry points (src/unix/pe/dxclunix_pe.c). */
typedef void *(WINAPI *pair_lookup_fn)(const char *name);
typedef BOOL(WINAPI *pair_host_fn)(char *text, DWORD size);
static pair_lookup_fn pair_lookup;
static INIT_ONCE driver_once = INIT_ONCE_STATIC_INIT;

static const struct {
    const char *name;
    size_t offset;
} entry_points[] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    {#name, offsetof(struct dxcl_driver, name)},
#include "core/cl_api.h"
#undef DXCL_API_FN
};

HMODULE dxcl_own_module(void)
{
    HMODULE self = NULL;

    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (const char *)&driver, &self);
    return self;
}

static bool is_own_module(HMODULE module)
{
    return module == dxcl_own_module();
}

/* Another OpenCL.dll that is a dxcl: forwarding to it would stack two copy engines. */
static bool is_dxcl_module(HMODULE module)
{
    return is_own_module(module) || GetProcAddress(module, "dxclGetInfo") != NULL;
}

/* Wine tells its processes where its DLLs are: WINEDLLDIR0, WINEDLLDIR1, ... hold folders such
 * as "\??\Z:\usr\lib\x86_64-linux-gnu\wine" (Wine's own, then WINEDLLPATH's); the 64-bit
 * builtins are in x86_64-windows, the 32-bit ones in i386-windows. The path of `dll` in the
 * folder of that index; false when there is no WINEDLLDIR<index> (always, outside Wine). */
#ifdef _WIN64
#define WINE_PE_FOLDER "x86_64-windows"
#else
#define WINE_PE_FOLDER "i386-windows"
#endif
static bool wine_builtin_path(unsigned index, const char *dll, char *path, size_t size)
{
    char name[32], dir[MAX_PATH];
    const char *start = dir;
    DWORD len;

    snprintf(name, sizeof(name), "WINEDLLDIR%u", index);
    len = GetEnvironmentVariableA(name, dir, sizeof(dir));
    if (len == 0 || len >= sizeof(dir))
        return false;
    if (!strncmp(start, "\\??\\", 4))
        start += 4;
    len = (DWORD)snprintf(path, size, "%s\\" WINE_PE_FOLDER "\\%s", start, dll);
    return len < size;
}

/* The system OpenCL.dll is a dxcl: Wine's builtin, or NULL. */
static HMODULE load_wine_builtin(void)
{
    char path[MAX_PATH];

    for (unsigned i = 0; wine_builtin_path(i, "OpenCL.dll", path, sizeof(path)); i++) {
        HMODULE module = LoadLibraryA(path);
        if (module && !is_dxcl_module(module)) {
            strcpy(driver_path, path);
            strcpy(driver_route, "Wine's opencl.dll");
            return module;
        }
        if (module)
            FreeLibrary(module);
    }
    return NULL;
}

static bool choose_driver_path(void)
{
    UINT dir_len;

    if (dxcl_getenv("DRIVER", driver_path, sizeof(driver_path)))
        return true;
    dir_len = GetSystemDirectoryA(driver_path, sizeof(driver_path));
    if (dir_len == 0 || dir_len + sizeof("\\OpenCL.dll") > sizeof(driver_path)) {
        driver_path[0] = 0;
        return false;
    }
    strcat(driver_path, "\\OpenCL.dll");
    return false;
}

#define DXCL_CHECKED_INT(ret, name, args) return driver.name args;
#define DXCL_CHECKED_OBJ DXCL_CHECKED_INT
#define DXCL_CHECKED_PTR DXCL_CHECKED_INT
#define DXCL_CHECKED_NONE(ret, name, args) driver.name args;
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    static ret CL_API_CALL checked_##name params                                                   \
    {                                                                                              \
        dxcl_lock_check_call(#name, "a driver call");                                              \
        DXCL_CHECKED_##kind(ret, name, args)                                                       \
    }
#include "core/cl_api.h"
#undef DXCL_API_FN

/* The checking table: an entry for each function the driver has, NULL where it has none. */
static void fill_checked(void)
{
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    checked.name = driver.name ? checked_##name : NULL;
#include "core/cl_api.h"
#undef DXCL_API_FN
}

/* DXCL_UNIX: whether dxcl takes the Unix side. */
enum unix_setting { UNIX_AUTO, UNIX_ONLY, UNIX_NEVER };

static enum unix_setting unix_setting(void)
{
    char value[8];

    if (!dxcl_getenv("UNIX", value, sizeof(value)) || !strcmp(value, "auto"))
        return UNIX_AUTO;
    if (!strcmp(value, "0"))
        return UNIX_NEVER;
    if (!strcmp(value, "1"))
        return UNIX_ONLY;
    DXCL_LOG("%sUNIX=%s: want 0, 1 or auto; auto", DXCL_ENV_PREFIX, value);
    return UNIX_AUTO;
}

/* The Unix side's line on the host's drivers inside a container (src/unix/so/host_icds.h). */
static void log_host_drivers(HMODULE pair)
{
    pair_host_fn host_drivers =
        (pair_host_fn)(void *)GetProcAddress(pair, "dxclunixGetHostDrivers");
    char report[1536];

    if (dxcl_log_on && host_drivers && host_drivers(report, sizeof(report)) && report[0])
        DXCL_LOG("the Unix side's %s", report);
}

/* The Unix side: dxclunix.dll of the first Wine DLL folder that has one, once it opened the
 * host library; NULL with `why` set otherwise. */
static HMODULE load_unix_side(char *why, size_t size)
{
    char path[MAX_PATH], host[512];

    snprintf(why, size,
             "no dxclunix.dll in Wine's DLL folders (WINEDLLDIR<n>: Wine's own and "
             "WINEDLLPATH's, in " WINE_PE_FOLDER ")");
    for (unsigned i = 0; wine_builtin_path(i, "dxclunix.dll", path, sizeof(path)); i++) {
        HMODULE module = LoadLibraryA(path);
        pair_host_fn host_library =
            module ? (pair_host_fn)(void *)GetProcAddress(module, "dxclunixGetHostLibrary") : NULL;
        pair_lookup_fn lookup =
            module ? (pair_lookup_fn)(void *)GetProcAddress(module, "dxclunixGetProcAddress")
                   : NULL;

        if (!module)
            continue;
        if (!host_library || !lookup) {
            snprintf(why, size, "%s is not dxcl's Unix side", path);
        } else if (!host_library(host, sizeof(host))) {
            log_host_drivers(module);
            snprintf(why, size, "%s: %s", path, host);
        } else {
            log_host_drivers(module);
            strcpy(driver_path, path);
            snprintf(driver_route, sizeof(driver_route), "the Unix side (dxclunix, host %s)", host);
            pair_lookup = lookup;
            return module;
        }
        FreeLibrary(module);
    }
    return NULL;
}

static bool under_wine(void)
{
    return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL;
}

typedef BOOL(WINAPI *pair_announce_fn)(void);

void dxcl_driver_announce(void)
{
    char path[MAX_PATH], named[MAX_PATH];

    if (dxcl_getenv("DRIVER", named, sizeof(named)) || unix_setting() == UNIX_NEVER ||
        !under_wine())
        return;
    for (unsigned i = 0; wine_builtin_path(i, "dxclunix.dll", path, sizeof(path)); i++) {
        HMODULE module = LoadLibraryA(path);
        pair_announce_fn announce =
            module ? (pair_announce_fn)(void *)GetProcAddress(module, "dxclunixAnnounce") : NULL;

        if (announce && announce())
            return; /* it stays loaded: the driver's load takes it again */
        if (module)
            FreeLibrary(module);
    }
}

/* DXCL_DRIVER's DLL or the system OpenCL.dll (Wine's builtin when that is dxcl). */
static void load_windows_driver(bool from_environment)
{
    if (driver_path[0])
        driver_module = LoadLibraryA(driver_path);
    strcpy(driver_route, from_environment ? "DXCL_DRIVER"
                         : under_wine()   ? "Wine's opencl.dll"
                                          : "the system OpenCL.dll");
    if (driver_module && !from_environment && is_dxcl_module(driver_module)) {
        /* dxcl is installed as the system OpenCL.dll: forward to Wine's builtin. */
        DXCL_LOG("the system OpenCL.dll %s is dxcl; looking for Wine's builtin", driver_path);
        FreeLibrary(driver_module);
        if (!(driver_module = load_wine_builtin())) {
            DXCL_LOG("no OpenCL driver: the system OpenCL.dll is dxcl and Wine's builtin "
                     "opencl.dll was not found (WINEDLLDIR0)");
            return;
        }
    }
    if (driver_module && is_own_module(driver_module)) {
        /* DXCL_DRIVER names dxcl itself: forwarding to itself would loop. */
        DXCL_LOG("driver %s is dxcl itself; no driver available", driver_path);
        driver_module = NULL;
    }
    if (!driver_module)
        DXCL_LOG("cannot load the OpenCL driver '%s' (error %lu)", driver_path, GetLastError());
}

static BOOL CALLBACK load_driver(INIT_ONCE *once, void *param, void **context)
{
    enum unix_setting use_unix = unix_setting();
    bool from_environment;
    char why[MAX_PATH + 600];

    (void)once, (void)param, (void)context;
    from_environment = choose_driver_path();
    if (!from_environment && use_unix != UNIX_NEVER && under_wine() &&
        !(driver_module = load_unix_side(why, sizeof(why))))
        DXCL_LOG("the Unix side is not used: %s", why);
    if (!driver_module && use_unix == UNIX_ONLY && !from_environment)
        DXCL_LOG("no OpenCL driver: %sUNIX=1 and the Unix side is not used", DXCL_ENV_PREFIX);
    else if (!driver_module)
        load_windows_driver(from_environment);
    if (!driver_module) {
        driver_path[0] = driver_route[0] = 0;
        return TRUE;
    }
    if (!pair_lookup) /* DXCL_DRIVER may name the Unix side too */
        pair_lookup =
            (pair_lookup_fn)(void *)GetProcAddress(driver_module, "dxclunixGetProcAddress");
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(entry_points); i++) {
        FARPROC proc = pair_lookup ? (FARPROC)pair_lookup(entry_points[i].name)
                                   : GetProcAddress(driver_module, entry_points[i].name);
        memcpy((char *)&driver + entry_points[i].offset, &proc, sizeof(proc));
    }
    fill_checked();
    DXCL_LOG("forwarding to %s through %s", driver_path, driver_route);
    return TRUE;
}

const struct dxcl_driver *dxcl_driver_loaded;

const struct dxcl_driver *dxcl_driver_load(void)
{
    const struct dxcl_driver *table = dxcl_lock_checking ? &checked : &driver;

    InitOnceExecuteOnce(&driver_once, load_driver, NULL, NULL);
    __atomic_store_n(&dxcl_driver_loaded, table, __ATOMIC_RELEASE);
    return table;
}

void *dxcl_driver_export(const char *name)
{
    dxcl_driver();
    return driver_module ? (void *)GetProcAddress(driver_module, name) : NULL;
}

/* The pair's call of dxcl's Vulkan layer (src/unix/pe/dxclunix_pe.c): on the Unix side only. */
typedef int32_t(WINAPI *pair_layer_call_fn)(uint32_t call, void *params, uint32_t *layer_missing);

typedef DWORD(WINAPI *pair_signals_fn)(char *owner, DWORD size);

void dxcl_driver_note_signals(void)
{
    static LONG logged;
    pair_signals_fn put_back;
    char owner[256] = "";

    if (logged || !pair_lookup ||
        !(put_back = (pair_signals_fn)dxcl_driver_export("dxclunixSignalsPutBack")))
        return;
    DWORD count = put_back(owner, sizeof(owner));
    if (count && !InterlockedExchange(&logged, 1))
        DXCL_LOG("the driver's %s took %lu of Wine's signal handlers; the Unix side put them back",
                 owner, (unsigned long)count);
}

typedef BOOL(WINAPI *pair_close_fd_fn)(int32_t handle);

void dxcl_driver_close_fd(int handle)
{
    pair_close_fd_fn close_fd = (pair_close_fd_fn)dxcl_driver_export("dxclunixCloseFd");

    if (handle >= 0 && close_fd && !close_fd(handle))
        DXCL_LOG("fd handle 0x%x: not one the Unix side issued (nothing closed)", handle);
}

int32_t dxcl_driver_layer_call(enum dxcl_layer_call call, void *params, char *why, size_t size)
{
    static pair_layer_call_fn pair_layer_call; /* once: it runs every hand-over */
    uint32_t missing = 0;
    int32_t result;

    if (!pair_layer_call && pair_lookup)
        pair_layer_call = (pair_layer_call_fn)dxcl_driver_export("dxclunixLayerCall");
    if (!pair_layer_call || !pair_lookup) {
        snprintf(why, size, "the driver is %s, not the Unix side",
                 driver_route[0] ? driver_route : "absent");
        return -1;
    }
    if ((result = pair_layer_call(call, params, &missing)) && missing)
        snprintf(why, size,
                 "the Vulkan layer VK_LAYER_DXCL_interop is not loaded "
                 "(VK_LAYER_PATH, VK_INSTANCE_LAYERS)");
    else if (result)
        snprintf(why, size, "the Vulkan layer refused call %d (%d)", (int)call, (int)result);
    return result;
}

/* dxcl_driver_external's answers, for the one platform programs have. */
static struct dxcl_external_functions functions_cache;
static SRWLOCK functions_lock = SRWLOCK_INIT;

static void *extension_function(cl_platform_id platform, const char *name)
{
    return dxcl_driver()->clGetExtensionFunctionAddressForPlatform(platform, name);
}

struct dxcl_external_functions dxcl_driver_external(cl_context context)
{
    cl_platform_id platform = dxcl_platform_of_context(context);
    struct dxcl_external_functions found;

    AcquireSRWLockShared(&functions_lock);
    found = functions_cache;
    ReleaseSRWLockShared(&functions_lock);
    if (found.platform == platform || !dxcl_driver()->clGetExtensionFunctionAddressForPlatform)
        return found;
    found.platform = platform;
    found.acquire = (clEnqueueAcquireExternalMemObjectsKHR_fn)extension_function(
        platform, "clEnqueueAcquireExternalMemObjectsKHR");
    found.release = (clEnqueueReleaseExternalMemObjectsKHR_fn)extension_function(
        platform, "clEnqueueReleaseExternalMemObjectsKHR");
    found.create_semaphore = (clCreateSemaphoreWithPropertiesKHR_fn)extension_function(
        platform, "clCreateSemaphoreWithPropertiesKHR");
    found.wait_semaphore =
        (clEnqueueWaitSemaphoresKHR_fn)extension_function(platform, "clEnqueueWaitSemaphoresKHR");
    found.signal_semaphore = (clEnqueueSignalSemaphoresKHR_fn)extension_function(
        platform, "clEnqueueSignalSemaphoresKHR");
    found.release_semaphore =
        (clReleaseSemaphoreKHR_fn)extension_function(platform, "clReleaseSemaphoreKHR");
    AcquireSRWLockExclusive(&functions_lock);
    functions_cache = found;
    ReleaseSRWLockExclusive(&functions_lock);
    return found;
}

cl_semaphore_khr dxcl_driver_import_semaphore(cl_context context, int fd)
{
    const cl_semaphore_properties_khr properties[] = {
        CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
        (cl_semaphore_properties_khr)fd, 0};
    clCreateSemaphoreWithPropertiesKHR_fn create = dxcl_driver_external(context).create_semaphore;
    cl_int err = CL_INVALID_OPERATION;
    cl_semaphore_khr semaphore = create ? create(context, properties, &err) : NULL;

    if (!semaphore) {
        DXCL_LOG("clCreateSemaphoreWithPropertiesKHR (opaque fd handle 0x%x): %d", fd, err);
        dxcl_driver_close_fd(fd);
    }
    return semaphore;
}

const char *dxcl_driver_path(void)
{
    dxcl_driver();
    return driver_path;
}

const char *dxcl_driver_route(void)
{
    dxcl_driver();
    return driver_route;
}

cl_int dxcl_driver_missing(const char *name)
{
    DXCL_LOG("%s: the driver does not provide it", name);
    return CL_INVALID_OPERATION;
}

/* ---- The driver's answers, whole: every list and string sized from the driver's own count,
 * so that no platform, device or extension is cut off by a buffer of dxcl's. ---- */

cl_platform_id *dxcl_driver_platforms(cl_uint *count)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_platform_id *ids;
    cl_uint listed = 0, now = 0;

    *count = 0;
    if (!drv->clGetPlatformIDs || drv->clGetPlatformIDs(0, NULL, &listed) != CL_SUCCESS || !listed)
        return NULL;
    if (!(ids = calloc(listed, sizeof(*ids))))
        return NULL;
    if (drv->clGetPlatformIDs(listed, ids, &now) != CL_SUCCESS) {
        free(ids);
        return NULL;
    }
    *count = now < listed ? now : listed;
    return ids;
}

cl_device_id *dxcl_driver_devices(cl_platform_id platform, cl_uint *count)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_device_id *ids;
    cl_uint listed = 0, now = 0;

    *count = 0;
    if (!drv->clGetDeviceIDs ||
        drv->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &listed) != CL_SUCCESS ||
        !listed)
        return NULL;
    if (!(ids = calloc(listed, sizeof(*ids))))
        return NULL;
    if (drv->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, listed, ids, &now) != CL_SUCCESS) {
        free(ids);
        return NULL;
    }
    *count = now < listed ? now : listed;
    return ids;
}

bool dxcl_driver_has_platform(cl_platform_id platform)
{
    cl_uint count;
    cl_platform_id *ids = platform ? dxcl_driver_platforms(&count) : NULL;
    bool found = false;

    for (cl_uint i = 0; ids && i < count && !found; i++)
        found = ids[i] == platform;
    free(ids);
    return found;
}

typedef cl_int(CL_API_CALL *info_fn)(void *object, cl_uint param, size_t size, void *value,
                                     size_t *size_ret);

/* A whole answer of `fn`, 0-terminated (malloc'ed): "" when the driver gives none, NULL only
 * when out of memory. */
static char *driver_string(info_fn fn, void *object, cl_uint param)
{
    size_t size = 0;
    char *text;

    if (!fn || fn(object, param, 0, NULL, &size) != CL_SUCCESS)
        return calloc(1, 1);
    if (!(text = calloc(1, size + 1)))
        return NULL;
    if (fn(object, param, size, text, NULL) != CL_SUCCESS)
        text[0] = 0;
    return text;
}

char *dxcl_driver_platform_string(cl_platform_id platform, cl_platform_info param)
{
    return driver_string((info_fn)dxcl_driver()->clGetPlatformInfo, platform, param);
}

char *dxcl_driver_device_string(cl_device_id device, cl_device_info param)
{
    return driver_string((info_fn)dxcl_driver()->clGetDeviceInfo, device, param);
}

cl_platform_id dxcl_platform_of_device(cl_device_id device)
{
    cl_platform_id platform = NULL;

    if (DXCL_DRIVER_CALL_INT(clGetDeviceInfo, (device, CL_DEVICE_PLATFORM, sizeof(platform),
                                               &platform, NULL)) != CL_SUCCESS)
        return NULL;
    return platform;
}

cl_device_id *dxcl_driver_context_devices(cl_context context, size_t *count)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_device_id *devices;
    size_t size = 0;

    *count = 0;
    if (!drv->clGetContextInfo ||
        drv->clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size) != CL_SUCCESS ||
        size < sizeof(*devices) || !(devices = malloc(size)))
        return NULL;
    if (drv->clGetContextInfo(context, CL_CONTEXT_DEVICES, size, devices, NULL) != CL_SUCCESS) {
        free(devices);
        return NULL;
    }
    *count = size / sizeof(*devices);
    return devices;
}

cl_platform_id dxcl_platform_of_context(cl_context context)
{
    size_t count;
    cl_device_id *devices = dxcl_driver_context_devices(context, &count);
    /* All devices of a context share its platform: the first one tells. */
    cl_platform_id platform = count ? dxcl_platform_of_device(devices[0]) : NULL;

    free(devices);
    return platform;
}
