/* dxclunix.dll, the PE half of dxcl's builtin pair (docs/proxy.md, "The Unix side"). It
 * looks like an OpenCL driver DLL: it exports every entry point of src/core/cl_api.h, and each
 * one calls the host's function of that name through the Unix half (dxclunix.so) with
 * __wine_unix_call (the interface: ../dxclunix.h). dxclunixGetProcAddress tells which ones the
 * host has, so that dxcl (src/core/driver.c) sees the host's API exactly: a function it lacks
 * is one dxcl's compat layer provides or fails like a driver without it.
 *
 * Each entry point is a C function generated from cl_api.h with its own signature (handed out
 * by dxclunixGetProcAddress; the export by name opens the host library first): it widens
 * its arguments into the call's parameter struct on its stack (one field per argument, one
 * for the result) and makes that entry point's Unix call, whose Unix half calls the host
 * function from its own table by the call's index: no look-up, no copy beyond the arguments,
 * as Wine's generated opencl.dll thunks do. A host function that faults ends the Unix call
 * with the fault's status; the call then fails with the spec's error for the kind of handle
 * it names first (CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT, ...), and a function that
 * returns an object answers NULL with that error in errcode_ret.
 *
 * Extension functions: clGetExtensionFunctionAddress[ForPlatform] asks the Unix half, which
 * binds the host's function to its index in src/unix/dxclunix_ext.h; the program gets this
 * half's thunk of that index, generated from the same list. A function not in the list is not
 * handed out.
 *
 * Callbacks: a host driver thread cannot enter PE code, so no PE function pointer reaches the
 * host; the Unix half drops or refuses them whatever this half sends. Where Wine's opencl.dll
 * does the same, dxcl's compat layer delivers them (src/compat/): the context and build
 * notifications are dropped (NULL to the host; a build without a callback completes before it
 * returns), the set-callback functions answer CL_INVALID_OPERATION (dxclunixGetProcAddress
 * hands none of them out), and so do clEnqueueNativeKernel and clEnqueueSVMFree with a free
 * function.
 *
 * Beside the OpenCL API: the GPU path's calls of dxcl's host Vulkan layer (dxclunixLayerCall,
 * one typed Unix call per call; docs/proxy.md, "The Vulkan layer"), the fd handles of the
 * twins' memory and semaphores (dxclunixCloseFd), the event watches of dxcl's waiter
 * (dxclunixWatchEvent, dxclunixWaitWatched, dxclunixWakeWatcher; docs/design.md, "The waiter"),
 * the announcement at dxcl's load (dxclunixAnnounce) and the host drivers' report
 * (dxclunixGetHostDrivers). */
#include "../dxclunix.h"

/* dxcl's conventions for Windows and the Khronos headers (its declarations, not its code). */
#include "core/common.h"

#include <stdio.h>
#include <string.h>

/* Wine's name of this half's architecture, in its DLL folders' names. */
#ifdef _WIN64
#define WINE_ARCH "x86_64"
#else
#define WINE_ARCH "i386"
#endif

static const char *const api_names[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) #name,
#include "core/cl_api.h"
#undef DXCL_API_FN
};

typedef LONG(WINAPI *unix_dispatcher_fn)(UINT64 handle, unsigned int code, void *args);
typedef LONG(WINAPI *query_memory_fn)(HANDLE process, const void *address, int info_class,
                                      void *buffer, SIZE_T size, SIZE_T *size_ret);
#define MEMORY_WINE_UNIX_FUNCS 1000 /* Wine's MEMORY_INFORMATION_CLASS for the Unix half */

static unix_dispatcher_fn volatile unix_dispatcher; /* set once the Unix half is found */
static UINT64 unix_handle;
static INIT_ONCE unix_once = INIT_ONCE_STATIC_INIT;
static INIT_ONCE open_once = INIT_ONCE_STATIC_INIT;
static volatile LONG opened;         /* the host library is open and states[] filled */
static struct dxclunix_open opening; /* its answer: the host library's path, or why none */
static struct dxclunix_query query = {DXCLUNIX_API_COUNT, {0}}; /* enum dxclunix_state */

static LONG unix_call(enum dxclunix_code code, void *params)
{
    return unix_dispatcher(unix_handle, code, params);
}

/* Finds the Unix half: sets unix_dispatcher, or opening.error to why it cannot. */
static BOOL CALLBACK find_unix_half(INIT_ONCE *once, void *param, void **context)
{
    HMODULE self = NULL, ntdll = GetModuleHandleA("ntdll.dll");
    query_memory_fn query_memory =
        (query_memory_fn)(void *)GetProcAddress(ntdll, "NtQueryVirtualMemory");
    unix_dispatcher_fn *dispatcher =
        (unix_dispatcher_fn *)(void *)GetProcAddress(ntdll, "__wine_unix_call_dispatcher");

    (void)once, (void)param, (void)context;
    strcpy(opening.error, "not under Wine (ntdll has no __wine_unix_call_dispatcher)");
    if (!query_memory || !dispatcher || !*dispatcher)
        return TRUE;
    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (const char *)&open_once, &self);
    strcpy(opening.error,
           "Wine loaded no dxclunix.so (is dxclunix.dll a builtin, from "
           "<dir>/" WINE_ARCH "-windows with <dir>/" WINE_ARCH "-unix/dxclunix.so beside it?)");
    if (query_memory(GetCurrentProcess(), self, MEMORY_WINE_UNIX_FUNCS, &unix_handle,
                     sizeof(unix_handle), NULL) ||
        !unix_handle)
        return TRUE;
    opening.error[0] = 0;
    InterlockedExchangePointer((void **)&unix_dispatcher, (void *)*dispatcher);
    return TRUE;
}

static bool unix_half_found(void)
{
    if (!unix_dispatcher)
        InitOnceExecuteOnce(&unix_once, find_unix_half, NULL, NULL);
    return unix_dispatcher != NULL;
}

static BOOL CALLBACK open_host(INIT_ONCE *once, void *param, void **context)
{
    (void)once, (void)param, (void)context;
    if (!unix_half_found())
        return TRUE;
    if (unix_call(DXCLUNIX_OPEN, &opening) || opening.status != 0)
        return TRUE;
    if (unix_call(DXCLUNIX_QUERY, &query)) {
        snprintf(opening.error, sizeof(opening.error),
                 "the Unix half dxclunix.so is not this dxclunix.dll's (its list of entry points "
                 "differs)");
        return TRUE;
    }
    InterlockedExchange(&opened, 1);
    return TRUE;
}

static bool open_once_done(void)
{
    if (!opened)
        InitOnceExecuteOnce(&open_once, open_host, NULL, NULL);
    return opened != 0;
}

/* ---- The entry points ---- */

/* The error a faulted call answers: the spec's for the kind of handle it names first
 * (drivers read through a handle, so an invalid one faults), else CL_INVALID_VALUE; two
 * functions whose first argument is no handle name the handles they take. */
/* clang-format off */
#define DXCLUNIX_HANDLE_ERROR(x)                                                                   \
    _Generic((x),                                                                                  \
        cl_platform_id: CL_INVALID_PLATFORM,                                                       \
        cl_device_id: CL_INVALID_DEVICE,                                                           \
        cl_context: CL_INVALID_CONTEXT,                                                            \
        cl_command_queue: CL_INVALID_COMMAND_QUEUE,                                                \
        cl_mem: CL_INVALID_MEM_OBJECT,                                                             \
        cl_program: CL_INVALID_PROGRAM,                                                            \
        cl_kernel: CL_INVALID_KERNEL,                                                              \
        cl_event: CL_INVALID_EVENT,                                                                \
        cl_sampler: CL_INVALID_SAMPLER,                                                            \
        default: CL_INVALID_VALUE)
/* clang-format on */
static const cl_int fault_errors[DXCLUNIX_API_COUNT] = {
    [DXCLUNIX_API_clWaitForEvents] = CL_INVALID_EVENT,
    [DXCLUNIX_API_clCreateContext] = CL_INVALID_DEVICE,
};
#define DXCLUNIX_FAULT_0(args) CL_INVALID_VALUE
#define DXCLUNIX_FAULT_1(args) DXCLUNIX_HANDLE_ERROR(DXCLUNIX_FIRST args)
#define DXCLUNIX_FAULT(name, args)                                                                 \
    (fault_errors[DXCLUNIX_API_##name]                                                             \
         ? fault_errors[DXCLUNIX_API_##name]                                                       \
         : DXCLUNIX_CAT(DXCLUNIX_FAULT_, DXCLUNIX_HAS_ARGS(args))(args))

/* NULL, with `error` in *errcode_ret. */
static void *failed_object(cl_int *errcode_ret, cl_int error)
{
    if (errcode_ret)
        *errcode_ret = error;
    return NULL;
}

/* An argument widened into its 64-bit slot: a 64-bit integer as it is, a pointer, a size_t or a
 * 32-bit integer through UINT_PTR (zero-extended on i686, where a pointer has 4 bytes; the Unix
 * half reads back only the bytes of the parameter's type). */
#define DXCLUNIX_WIDEN(x)                                                                          \
    ((UINT64) _Generic((x), cl_ulong : (x), cl_long : (x), default : (UINT_PTR)(x)))

/* The call of an entry point: the parameter struct on the stack, filled by name, and the Unix
 * call of its index. dxclunixGetProcAddress hands these out once the host library is open. */
#define DXCLUNIX_FILL(name) .name = DXCLUNIX_WIDEN(name),
#define DXCLUNIX_CALL(name, args)                                                                  \
    union dxclunix_##name##_params p = {DXCLUNIX_FOR_EACH(DXCLUNIX_FILL, args)};                   \
    LONG status = unix_dispatcher(unix_handle, DXCLUNIX_API_CODE(DXCLUNIX_API_##name), &p);
/* (An INT function the host lacks answers CL_INVALID_OPERATION from the Unix half itself.) */
#define DXCLUNIX_ANSWER_INT(ret, name, args)                                                       \
    return status < DXCLUNIX_FAULTED ? DXCLUNIX_FAULT(name, args) : status;
#define DXCLUNIX_ANSWER_OBJ(ret, name, args)                                                       \
    if (status)                                                                                    \
        return failed_object(errcode_ret, status == DXCLUNIX_MISSING                               \
                                              ? CL_INVALID_OPERATION                               \
                                              : DXCLUNIX_FAULT(name, args));                       \
    return (ret)(UINT_PTR)p.result;
#define DXCLUNIX_ANSWER_PTR(ret, name, args) return status ? NULL : (ret)(UINT_PTR)p.result;
#define DXCLUNIX_ANSWER_NONE(ret, name, args) (void)status;
/* The export by name: the same call, which opens the host library first (a program that loads
 * the pair itself may call before any look-up); without one it answers as a driver without the
 * function. */
#define DXCLUNIX_UNOPENED_INT(name) return CL_INVALID_OPERATION;
#define DXCLUNIX_UNOPENED_OBJ(name) return failed_object(errcode_ret, CL_INVALID_OPERATION);
#define DXCLUNIX_UNOPENED_PTR(name) return NULL;
#define DXCLUNIX_UNOPENED_NONE(name) return;
#define DXCLUNIX_RETURN_INT return
#define DXCLUNIX_RETURN_OBJ return
#define DXCLUNIX_RETURN_PTR return
#define DXCLUNIX_RETURN_NONE
/* Every export is generated from the list; the two look-ups call this half's own answer
 * (own_<name>, below) instead of the Unix half's function. */
#define DXCLUNIX_OWN_clGetExtensionFunctionAddress ~, 0
#define DXCLUNIX_OWN_clGetExtensionFunctionAddressForPlatform ~, 0
#define DXCLUNIX_GENERATED(name) DXCLUNIX_SECOND(DXCLUNIX_CAT(DXCLUNIX_OWN_, name))
static void *own_clGetExtensionFunctionAddress(const char *func_name);
static void *own_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                          const char *func_name);
#define DXCLUNIX_ENTRY_0(kind, ret, name, params, args)                                            \
    __declspec(dllexport) ret CL_API_CALL name params                                              \
    {                                                                                              \
        return own_##name args;                                                                    \
    }
#define DXCLUNIX_ENTRY_1(kind, ret, name, params, args)                                            \
    static ret CL_API_CALL direct_##name params                                                    \
    {                                                                                              \
        DXCLUNIX_CALL(name, args)                                                                  \
        DXCLUNIX_ANSWER_##kind(ret, name, args)                                                    \
    }                                                                                              \
    __declspec(dllexport) ret CL_API_CALL name params                                              \
    {                                                                                              \
        if (!opened && !open_once_done()) {                                                        \
            DXCLUNIX_UNOPENED_##kind(name)                                                         \
        }                                                                                          \
        DXCLUNIX_RETURN_##kind direct_##name args;                                                 \
    }
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCLUNIX_CAT(DXCLUNIX_ENTRY_, DXCLUNIX_GENERATED(name))(kind, ret, name, params, args)
#include "core/cl_api.h"
#undef DXCL_API_FN

/* ---- Extension functions (dxclunix_ext.h) ---- */

/* A thunk per listed function, with the function's own signature (dxclunix_ext.h): its
 * arguments widened into the call's slots, as the entry points'. */
#define DXCLUNIX_EXT_ANSWER_INT(ret, n, fault) return status < DXCLUNIX_FAULTED ? fault : status;
#define DXCLUNIX_EXT_ANSWER_OBJ(ret, n, fault)                                                     \
    if (status)                                                                                    \
        return failed_object((cl_int *)(UINT_PTR)p.slot[n - 1],                                    \
                             status == DXCLUNIX_MISSING ? CL_INVALID_OPERATION : fault);           \
    return (ret)(UINT_PTR)p.result;
#define DXCLUNIX_EXT_ANSWER_PTR(ret, n, fault) return status ? NULL : (ret)(UINT_PTR)p.result;
#define DXCLUNIX_EXT_ANSWER_NONE(ret, n, fault) (void)status;
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault)                                      \
    static ret CL_API_CALL ext_##name params                                                       \
    {                                                                                              \
        union dxclunix_ext_##name##_params p = {DXCLUNIX_FOR_EACH(DXCLUNIX_FILL, args)};           \
        LONG status = unix_dispatcher(unix_handle, DXCLUNIX_EXT_CODE(DXCLUNIX_EXT_##name), &p);    \
                                                                                                   \
        DXCLUNIX_EXT_ANSWER_##kind(ret, DXCLUNIX_ARITY(args), fault)                               \
    }
#include "../dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN

static void *const ext_thunks[DXCLUNIX_EXT_COUNT] = {
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault) (void *)ext_##name,
#include "../dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN
};

/* The thunk of an extension function the host has (bound by the Unix half to the host's
 * function, on `platform` where with_platform), or NULL. */
static void *extension_thunk(cl_platform_id platform, bool with_platform, const char *name)
{
    struct dxclunix_extension params = {.platform = (UINT64)(UINT_PTR)platform,
                                        .with_platform = with_platform};

    if (!name || !open_once_done() || strlen(name) >= sizeof(params.name))
        return NULL;
    strcpy(params.name, name);
    if (unix_call(DXCLUNIX_EXTENSION, &params) || params.index < 0 ||
        params.index >= DXCLUNIX_EXT_COUNT)
        return NULL;
    return ext_thunks[params.index];
}

static void *own_clGetExtensionFunctionAddress(const char *func_name)
{
    return extension_thunk(NULL, false, func_name);
}

static void *own_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                          const char *func_name)
{
    return extension_thunk(platform, true, func_name);
}

/* ---- The pair's own exports ---- */

/* What dxclunixGetProcAddress hands out: the direct calls, and the two look-ups. */
#define DXCLUNIX_DIRECT_0(name) (void *)name,
#define DXCLUNIX_DIRECT_1(name) (void *)direct_##name,
static void *const entry_points[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCLUNIX_CAT(DXCLUNIX_DIRECT_, DXCLUNIX_GENERATED(name))(name)
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* dxcl's question to the pair: the entry point of a function the host has and the pair hands
 * out, NULL for one it lacks or refuses, or when the host library cannot be opened. The two
 * extension look-ups are the pair's own, there whenever the host has them. */
__declspec(dllexport) void *WINAPI dxclunixGetProcAddress(const char *name);
void *WINAPI dxclunixGetProcAddress(const char *name)
{
    if (!name || !open_once_done())
        return NULL;
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++) {
        bool own = i == DXCLUNIX_API_clGetExtensionFunctionAddress ||
                   i == DXCLUNIX_API_clGetExtensionFunctionAddressForPlatform;

        if (strcmp(api_names[i], name))
            continue;
        if (query.state[i] == DXCLUNIX_PRESENT || (own && query.state[i] != DXCLUNIX_ABSENT))
            return entry_points[i];
        return NULL;
    }
    return NULL;
}

/* The host library the pair calls (its path), or why there is none; true when it is open. */
__declspec(dllexport) BOOL WINAPI dxclunixGetHostLibrary(char *text, DWORD size);
BOOL WINAPI dxclunixGetHostLibrary(char *text, DWORD size)
{
    bool open = open_once_done();
    const char *what = open ? opening.path : opening.error;

    if (text && size) {
        strncpy(text, what, size - 1);
        text[size - 1] = 0;
    }
    return open;
}

/* How many of Wine's signal handlers the Unix half put back after the driver's LLVM took them
 * (docs/proxy.md, "Signal handlers"), and in `owner` the library that had taken them. */
__declspec(dllexport) DWORD WINAPI dxclunixSignalsPutBack(char *owner, DWORD size);
DWORD WINAPI dxclunixSignalsPutBack(char *owner, DWORD size)
{
    struct dxclunix_signals params = {0};

    if (!unix_half_found() || unix_call(DXCLUNIX_SIGNALS, &params))
        return 0;
    if (owner && size) {
        strncpy(owner, params.owner, size - 1);
        owner[size - 1] = 0;
    }
    return params.count;
}

/* Closes the host fd behind an fd handle of a twin's memory or semaphore (dxclunix.h, "An fd
 * handle") that the driver's import refused: a successful import owns its fd, a refused one
 * leaves it with the caller. False when `handle` is not one the Unix half issued. */
__declspec(dllexport) BOOL WINAPI dxclunixCloseFd(int32_t handle);
BOOL WINAPI dxclunixCloseFd(int32_t handle)
{
    struct dxclunix_fd params = {handle};

    return handle >= 0 && unix_half_found() && unix_call(DXCLUNIX_CLOSE_FD, &params) == 0;
}

/* Event watches (dxclunix.h, "Event watches"): the host's clSetEventCallback result (an error
 * of the event's kind when the call faulted). */
__declspec(dllexport) cl_int WINAPI dxclunixWatchEvent(cl_event event);
cl_int WINAPI dxclunixWatchEvent(cl_event event)
{
    struct dxclunix_watch params = {(UINT64)(UINT_PTR)event, CL_INVALID_OPERATION};

    if (!open_once_done())
        return CL_INVALID_OPERATION;
    return unix_call(DXCLUNIX_WATCH, &params) ? CL_INVALID_EVENT : params.status;
}

/* Blocks until a watched event completed, dxclunixWakeWatcher was called or `timeout_ms`
 * passed (INFINITE: none): the number of events that completed, each in `events` (room for
 * DXCLUNIX_WATCHED_MAX), and in *woken whether it was woken; (DWORD)-1 when it cannot wait. */
__declspec(dllexport) DWORD WINAPI
    dxclunixWaitWatched(DWORD timeout_ms, cl_event *events, BOOL *woken);
DWORD WINAPI dxclunixWaitWatched(DWORD timeout_ms, cl_event *events, BOOL *woken)
{
    struct dxclunix_watched params = {.timeout_ms = timeout_ms == INFINITE ? DXCLUNIX_WAIT_FOREVER
                                                                           : timeout_ms};

    if (!events || !open_once_done() || unix_call(DXCLUNIX_WAIT_WATCHED, &params) ||
        params.count > DXCLUNIX_WATCHED_MAX)
        return (DWORD)-1;
    for (uint32_t i = 0; i < params.count; i++)
        events[i] = (cl_event)(UINT_PTR)params.events[i];
    if (woken)
        *woken = params.woken != 0;
    return params.count;
}

/* Ends the wait of dxclunixWaitWatched now (or the next one, if none is in progress). */
__declspec(dllexport) void WINAPI dxclunixWakeWatcher(void);
void WINAPI dxclunixWakeWatcher(void)
{
    if (unix_half_found())
        unix_call(DXCLUNIX_WAKE_WATCHER, NULL);
}

/* At dxcl's load (src/core/driver.c, dxcl_driver_announce): finds the Unix half, so that
 * dxclunix.so is in the process before the program makes its Vulkan devices (dxcl's layer is
 * passive on devices made in a process without it). The host library is not opened. */
__declspec(dllexport) BOOL WINAPI dxclunixAnnounce(void);
BOOL WINAPI dxclunixAnnounce(void)
{
    return unix_half_found();
}

/* Where the Unix side looked for the host's OpenCL drivers and what it found (one line, for
 * dxcl's log and dxclinfo); false without the Unix half. */
__declspec(dllexport) BOOL WINAPI dxclunixGetHostDrivers(char *text, DWORD size);
BOOL WINAPI dxclunixGetHostDrivers(char *text, DWORD size)
{
    static struct dxclunix_host_icds params;
    static SRWLOCK lock = SRWLOCK_INIT;
    BOOL got;

    if (!text || !size || !unix_half_found())
        return FALSE;
    AcquireSRWLockExclusive(&lock);
    got = !unix_call(DXCLUNIX_HOST_ICDS, &params);
    if (got) {
        strncpy(text, params.report, size - 1);
        text[size - 1] = 0;
    }
    ReleaseSRWLockExclusive(&lock);
    return got;
}

/* The GPU path's calls of dxcl's host Vulkan layer (src/core/twin.h, enum dxcl_layer_call), one
 * Unix call each (dxclunix.h, DXCLUNIX_LAYER_CALLS): the call's struct goes in its Unix call's
 * params and comes back. */
#define DXCLUNIX_LAYER_FN(id, name, type)                                                          \
    static int32_t layer_##name(void *params, uint32_t *layer_missing)                             \
    {                                                                                              \
        struct dxclunix_layer_##name p = {.result = -1};                                           \
                                                                                                   \
        memcpy(&p.call, params, sizeof(p.call));                                                   \
        if (unix_call(DXCLUNIX_LAYER_CODE(id), &p))                                                \
            return -1;                                                                             \
        memcpy(params, &p.call, sizeof(p.call));                                                   \
        *layer_missing = p.layer_missing;                                                          \
        return p.result;                                                                           \
    }
DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN

static int32_t (*const layer_calls[DXCL_LAYER_CALL_COUNT])(void *params, uint32_t *missing) = {
#define DXCLUNIX_LAYER_FN(id, name, type) [id] = layer_##name,
    DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN
};

/* A call of the layer with its struct: the layer's answer, or -1 (*layer_missing set where the
 * layer is not loaded: VK_LAYER_PATH, VK_INSTANCE_LAYERS; clear where the Unix half is missing,
 * the call does not exist or the Unix half refused its parameters). The fds it hands out are fd
 * handles. */
__declspec(dllexport) int32_t WINAPI
    dxclunixLayerCall(uint32_t call, void *params, uint32_t *layer_missing);
int32_t WINAPI dxclunixLayerCall(uint32_t call, void *params, uint32_t *layer_missing)
{
    uint32_t missing = 0;
    int32_t result;

    if (!params || call >= DXCL_LAYER_CALL_COUNT || !unix_half_found())
        result = -1;
    else
        result = layer_calls[call](params, &missing);
    if (layer_missing)
        *layer_missing = missing;
    return result;
}
