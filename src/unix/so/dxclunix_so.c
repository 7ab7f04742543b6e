/* dxclunix.so, the Unix half of dxcl's builtin pair: Wine loads it beside dxclunix.dll and the
 * PE half reaches it through __wine_unix_call. It opens the host's libOpenCL.so.1 (the ICD
 * loader, or any library of that name on the library path; DXCL_UNIX_LIBRARY names another;
 * inside Steam's container with the host's drivers added: host_icds.h), looks functions up, and
 * calls them; it also reaches dxcl's host Vulkan layer for the GPU path's twins (docs/proxy.md,
 * "The Vulkan layer"). It never calls PE code: the PE half strips or refuses every callback before
 * a call gets here (src/unix/pe/dxclunix_pe.c). Handles, pointers and buffers pass as they are: on
 * x86-64 without WoW64 both halves share the address space. */
#define _GNU_SOURCE
#include "../dxclunix.h"
#include "host_icds.h"
#include "unix/host_config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Wine's NTSTATUS and the type of a __wine_unix_call_funcs entry (include/wine/unixlib.h). */
typedef int32_t NTSTATUS;
typedef NTSTATUS (*unixlib_entry_t)(void *args);

/* A host function of n integer arguments, returning `type`, called with p[0..n-1] (OpenCL functions
 * take no floating-point or struct arguments by value). */
#define DXCLUNIX_HOST_CALL(type, n, fn, p)                                                         \
    ((type(*)(DXCLUNIX_CAT(DXCLUNIX_TYPES_, n)))(fn))(DXCLUNIX_CAT(DXCLUNIX_ARGS_, n)(p))
#define DXCLUNIX_TYPES_0 void
#define DXCLUNIX_TYPES_1 uint64_t
#define DXCLUNIX_TYPES_2 DXCLUNIX_TYPES_1, uint64_t
#define DXCLUNIX_TYPES_3 DXCLUNIX_TYPES_2, uint64_t
#define DXCLUNIX_TYPES_4 DXCLUNIX_TYPES_3, uint64_t
#define DXCLUNIX_TYPES_5 DXCLUNIX_TYPES_4, uint64_t
#define DXCLUNIX_TYPES_6 DXCLUNIX_TYPES_5, uint64_t
#define DXCLUNIX_TYPES_7 DXCLUNIX_TYPES_6, uint64_t
#define DXCLUNIX_TYPES_8 DXCLUNIX_TYPES_7, uint64_t
#define DXCLUNIX_TYPES_9 DXCLUNIX_TYPES_8, uint64_t
#define DXCLUNIX_TYPES_10 DXCLUNIX_TYPES_9, uint64_t
#define DXCLUNIX_TYPES_11 DXCLUNIX_TYPES_10, uint64_t
#define DXCLUNIX_TYPES_12 DXCLUNIX_TYPES_11, uint64_t
#define DXCLUNIX_TYPES_13 DXCLUNIX_TYPES_12, uint64_t
#define DXCLUNIX_TYPES_14 DXCLUNIX_TYPES_13, uint64_t
#define DXCLUNIX_TYPES_15 DXCLUNIX_TYPES_14, uint64_t
#define DXCLUNIX_TYPES_16 DXCLUNIX_TYPES_15, uint64_t
#define DXCLUNIX_ARGS_0(p)
#define DXCLUNIX_ARGS_1(p) p[0]
#define DXCLUNIX_ARGS_2(p) DXCLUNIX_ARGS_1(p), p[1]
#define DXCLUNIX_ARGS_3(p) DXCLUNIX_ARGS_2(p), p[2]
#define DXCLUNIX_ARGS_4(p) DXCLUNIX_ARGS_3(p), p[3]
#define DXCLUNIX_ARGS_5(p) DXCLUNIX_ARGS_4(p), p[4]
#define DXCLUNIX_ARGS_6(p) DXCLUNIX_ARGS_5(p), p[5]
#define DXCLUNIX_ARGS_7(p) DXCLUNIX_ARGS_6(p), p[6]
#define DXCLUNIX_ARGS_8(p) DXCLUNIX_ARGS_7(p), p[7]
#define DXCLUNIX_ARGS_9(p) DXCLUNIX_ARGS_8(p), p[8]
#define DXCLUNIX_ARGS_10(p) DXCLUNIX_ARGS_9(p), p[9]
#define DXCLUNIX_ARGS_11(p) DXCLUNIX_ARGS_10(p), p[10]
#define DXCLUNIX_ARGS_12(p) DXCLUNIX_ARGS_11(p), p[11]
#define DXCLUNIX_ARGS_13(p) DXCLUNIX_ARGS_12(p), p[12]
#define DXCLUNIX_ARGS_14(p) DXCLUNIX_ARGS_13(p), p[13]
#define DXCLUNIX_ARGS_15(p) DXCLUNIX_ARGS_14(p), p[14]
#define DXCLUNIX_ARGS_16(p) DXCLUNIX_ARGS_15(p), p[15]

/* Every entry point of core/cl_api.h, in its order: its index in api_functions[]. */
enum dxclunix_api {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCLUNIX_API_##name,
#include "core/cl_api.h"
#undef DXCL_API_FN
    DXCLUNIX_API_COUNT
};

static const char *const api_names[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) #name,
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* The host's address of each entry point, filled when the library opens. The PE half makes a
 * direct call only of one the host has (dxclunixGetProcAddress), so none reads a NULL here. */
static uintptr_t api_functions[DXCLUNIX_API_COUNT];

/* Signal handlers (docs/proxy.md, "Signal handlers"). Wine runs on its handlers: SIGUSR1
 * suspends a thread (SuspendThread, GetThreadContext), SIGQUIT ends the other threads at exit,
 * SIGSEGV and others raise exceptions. LLVM, in a driver that compiles with it (PoCL), puts
 * its own in their place the first time it writes a file (llvm::sys::RemoveFileOnSignal):
 * SIGUSR1 then suspends nothing, GetThreadContext waits forever, and its one-shot SIGQUIT
 * handler lets a second SIGQUIT kill the process. Wine's handlers are saved before the host
 * library loads and put back after each call that may compile, wherever the handler in place
 * is LLVM's (its code lives in a library named *LLVM*); a driver's other handlers stay. LLVM
 * installs its handlers once, so after the first put-back it does not take them again. */
#define DXCLUNIX_SIGNAL_LIMIT 32
static struct sigaction wine_actions[DXCLUNIX_SIGNAL_LIMIT];
static pthread_mutex_t signals_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint signals_put_back;
static char signals_owner[256]; /* the library whose handlers were taken out */

static void save_wine_handlers(void)
{
    for (int sig = 1; sig < DXCLUNIX_SIGNAL_LIMIT; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, NULL, &wine_actions[sig]);
}

static bool same_handler(const struct sigaction *a, const struct sigaction *b)
{
    return a->sa_handler == b->sa_handler;
}

/* The file of the library a handler lives in, when that is LLVM's. */
static const char *llvm_library_of(const struct sigaction *action)
{
    Dl_info info;

    if (action->sa_handler == SIG_DFL || action->sa_handler == SIG_IGN ||
        !dladdr((void *)action->sa_handler, &info) || !info.dli_fname)
        return NULL;
    const char *base = strrchr(info.dli_fname, '/');
    return strstr(base ? base : info.dli_fname, "LLVM") ? info.dli_fname : NULL;
}

static bool handler_changed(int sig)
{
    struct sigaction now;

    return sigaction(sig, NULL, &now) == 0 && !same_handler(&now, &wine_actions[sig]);
}

static void put_back_wine_handlers(void)
{
    /* LLVM takes all its signals at once; these two are the ones Wine cannot do without. */
    if (!handler_changed(SIGUSR1) && !handler_changed(SIGQUIT))
        return;
    pthread_mutex_lock(&signals_lock);
    for (int sig = 1; sig < DXCLUNIX_SIGNAL_LIMIT; sig++) {
        struct sigaction now;
        const char *owner;

        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &now) != 0 ||
            same_handler(&now, &wine_actions[sig]) || !(owner = llvm_library_of(&now)))
            continue;
        if (sigaction(sig, &wine_actions[sig], NULL) == 0) {
            if (!signals_owner[0])
                snprintf(signals_owner, sizeof(signals_owner), "%s", owner);
            atomic_fetch_add(&signals_put_back, 1);
        }
    }
    pthread_mutex_unlock(&signals_lock);
}

/* The entry points after which the handlers are looked at: those that compile (PoCL compiles
 * at build time and when it first runs a kernel of a work-group size, on its own threads) and
 * those that wait for commands. Not the enqueues: a look is two system calls. */
static const bool may_compile[DXCLUNIX_API_COUNT] = {
    [DXCLUNIX_API_clBuildProgram] = true,
    [DXCLUNIX_API_clCompileProgram] = true,
    [DXCLUNIX_API_clLinkProgram] = true,
    [DXCLUNIX_API_clCreateProgramWithBinary] = true,
    [DXCLUNIX_API_clCreateProgramWithIL] = true,
    [DXCLUNIX_API_clCreateKernel] = true,
    [DXCLUNIX_API_clCreateKernelsInProgram] = true,
    [DXCLUNIX_API_clFinish] = true,
    [DXCLUNIX_API_clWaitForEvents] = true,
};

static void put_back_after(uint64_t fn)
{
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++)
        if (may_compile[i] && api_functions[i] == fn) {
            put_back_wine_handlers();
            return;
        }
}

static void *library;
static char library_path[512];
static char library_error[256];
static char host_icds_report[DXCLUNIX_HOST_ICDS_SIZE]; /* host_icds.h: where it looked */
static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void load_library(void)
{
    const char *name = dxcl_host_setting("DXCL_UNIX_LIBRARY");
    Dl_info info;
    void *probe;

    if (!name || !*name)
        name = "libOpenCL.so.1";
    save_wine_handlers();
    library = dxcl_host_icds_open(name, library_error, sizeof(library_error), host_icds_report,
                                  sizeof(host_icds_report));
    put_back_wine_handlers(); /* the loader may have started the drivers */
    if (!library)
        return;
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++)
        api_functions[i] = (uintptr_t)dlsym(library, api_names[i]);
    probe = dlsym(library, "clGetPlatformIDs");
    if (probe && dladdr(probe, &info) && info.dli_fname)
        snprintf(library_path, sizeof(library_path), "%s", info.dli_fname);
    else
        snprintf(library_path, sizeof(library_path), "%s", name);
}

static NTSTATUS unix_open(void *args)
{
    struct dxclunix_open *params = args;

    pthread_once(&library_once, load_library);
    params->status = library ? 0 : -1;
    memcpy(params->path, library_path, sizeof(params->path));
    memcpy(params->error, library_error, sizeof(params->error));
    return 0;
}

static NTSTATUS unix_lookup(void *args)
{
    struct dxclunix_lookup *params = args;

    for (uint32_t i = 0; i < params->count; i++) {
        void *address = library ? dlsym(library, params->names[i]) : NULL;

        params->addresses[i] = (uint64_t)(uintptr_t)address;
    }
    return 0;
}

static NTSTATUS unix_call(void *args)
{
    struct dxclunix_call *params = args;
    const uint64_t *a = params->args;

    params->ret = DXCLUNIX_HOST_CALL(uint64_t, 16, (uintptr_t)params->fn, a);
    put_back_after(params->fn);
    return 0;
}

static NTSTATUS unix_signals(void *args)
{
    struct dxclunix_signals *params = args;

    pthread_mutex_lock(&signals_lock);
    params->count = atomic_load(&signals_put_back);
    memcpy(params->owner, signals_owner, sizeof(params->owner));
    pthread_mutex_unlock(&signals_lock);
    return 0;
}

static NTSTATUS unix_close_fd(void *args)
{
    const int32_t *fd = args;

    if (*fd >= 0)
        close(*fd);
    return 0;
}

/* The GPU path's calls of dxcl's Vulkan layer (core/twin.h, enum dxcl_layer_call): found in the
 * layer the Vulkan loader has loaded, never loaded here. A device may be made after dxcl's first
 * call, so a lookup that finds no layer is tried again on the next call (a dlopen that only
 * looks). */
static pthread_mutex_t layer_lock = PTHREAD_MUTEX_INITIALIZER;
static dxcl_layer_export_fn layer_exports[DXCL_LAYER_CALL_COUNT];
static const char *const layer_names[DXCL_LAYER_CALL_COUNT] = {
#define DXCL_LAYER_EXPORT(call, name) [call] = #name,
    DXCL_LAYER_EXPORTS
#undef DXCL_LAYER_EXPORT
};

static bool find_layer(void)
{
    bool found;

    pthread_mutex_lock(&layer_lock);
    if (!layer_exports[DXCL_LAYER_SHARE]) {
        void *layer = dlopen(DXCL_TWIN_LAYER_SONAME, RTLD_NOW | RTLD_NOLOAD);

        /* The handle stays open: the functions outlive the loader's vkDestroyInstance. */
        for (int i = 0; layer && i < DXCL_LAYER_CALL_COUNT; i++)
            if (layer_names[i])
                layer_exports[i] = (dxcl_layer_export_fn)dlsym(layer, layer_names[i]);
    }
    found = layer_exports[DXCL_LAYER_SHARE] && layer_exports[DXCL_LAYER_RELEASED];
    pthread_mutex_unlock(&layer_lock);
    return found;
}

/* OpenCL's release of a hand-out is done: the layer lets Direct3D's queue go on. */
struct release_watch {
    uint64_t event, twin, value;
    struct release_watch *next; /* among the ended */
};

static int32_t host_event_call(enum dxclunix_api api, uint64_t event)
{
    uint64_t args[1] = {event};

    return DXCLUNIX_HOST_CALL(int32_t, 1, api_functions[api], args);
}

/* The events of watches that ended, released at the next watch's start: not inside the driver's
 * callback (PoCL 3.1 aborts when an event is released in its own callback). */
static pthread_mutex_t ended_lock = PTHREAD_MUTEX_INITIALIZER;
static struct release_watch *ended;

static void release_ended(void)
{
    struct release_watch *list, *next;

    pthread_mutex_lock(&ended_lock);
    list = ended;
    ended = NULL;
    pthread_mutex_unlock(&ended_lock);
    for (; list; list = next) {
        next = list->next;
        host_event_call(DXCLUNIX_API_clReleaseEvent, list->event);
        free(list);
    }
}

static void tell_released(struct release_watch *watch, int32_t status)
{
    struct dxcl_layer_released released = {watch->twin, watch->value, status < 0 ? status : 0, 0};

    if (find_layer())
        layer_exports[DXCL_LAYER_RELEASED](&released);
    pthread_mutex_lock(&ended_lock);
    watch->next = ended;
    ended = watch;
    pthread_mutex_unlock(&ended_lock);
}

static void released_callback(uint64_t event, int32_t status, void *data)
{
    (void)event;
    tell_released(data, status);
}

/* Where the host has no event callbacks: a thread of its own waits. */
static void *release_waiter(void *data)
{
    struct release_watch *watch = data;
    uint64_t args[5] = {watch->event, 0x11D3 /* CL_EVENT_COMMAND_EXECUTION_STATUS */, 4, 0, 0};
    uint64_t wait_args[2] = {1, (uint64_t)(uintptr_t)&watch->event};
    int32_t status = -1;

    DXCLUNIX_HOST_CALL(int32_t, 2, api_functions[DXCLUNIX_API_clWaitForEvents], wait_args);
    args[3] = (uint64_t)(uintptr_t)&status;
    DXCLUNIX_HOST_CALL(int32_t, 5, api_functions[DXCLUNIX_API_clGetEventInfo], args);
    tell_released(watch, status);
    return NULL;
}

static int32_t release_when(struct dxcl_layer_release_when *asked)
{
    struct release_watch *watch = malloc(sizeof(*watch));
    uint64_t callback_args[4];
    pthread_t thread;
    int32_t result;

    release_ended();
    if (!watch)
        return -6; /* CL_OUT_OF_HOST_MEMORY */
    if (!api_functions[DXCLUNIX_API_clRetainEvent] || !api_functions[DXCLUNIX_API_clReleaseEvent]) {
        free(watch);
        return -59; /* CL_INVALID_OPERATION */
    }
    *watch = (struct release_watch){asked->event, asked->twin, asked->value, NULL};
    if ((result = host_event_call(DXCLUNIX_API_clRetainEvent, watch->event))) {
        free(watch);
        return result;
    }
    if (api_functions[DXCLUNIX_API_clSetEventCallback]) {
        callback_args[0] = watch->event;
        callback_args[1] = 0; /* CL_COMPLETE, which negative statuses reach too */
        callback_args[2] = (uint64_t)(uintptr_t)released_callback;
        callback_args[3] = (uint64_t)(uintptr_t)watch;
        result = DXCLUNIX_HOST_CALL(int32_t, 4, api_functions[DXCLUNIX_API_clSetEventCallback],
                                    callback_args);
        if (!result)
            return 0;
    }
    if (api_functions[DXCLUNIX_API_clWaitForEvents] && api_functions[DXCLUNIX_API_clGetEventInfo] &&
        !pthread_create(&thread, NULL, release_waiter, watch)) {
        pthread_detach(thread);
        return 0;
    }
    host_event_call(DXCLUNIX_API_clReleaseEvent, watch->event);
    free(watch);
    return result ? result : -59;
}

static NTSTATUS unix_layer(void *args)
{
    struct dxclunix_layer *params = args;
    void *call = (void *)(uintptr_t)params->params;

    params->result = -1;
    params->layer_missing = 0;
    if (params->call >= DXCL_LAYER_CALL_COUNT || !call)
        return 0;
    if (params->call == DXCL_LAYER_RELEASE_WHEN)
        params->result = release_when(call);
    else if (!find_layer() || !layer_exports[params->call])
        params->layer_missing = 1;
    else
        params->result = layer_exports[params->call](call);
    return 0;
}

/* The direct call of each entry point: its arguments, then the slot of its result; an INT
 * entry point's cl_int is the call's status instead (dxclunix.h, "enum dxclunix_code"). */
#define DXCLUNIX_DIRECT_INT(name, args)                                                            \
    static NTSTATUS direct_##name(void *args_and_result)                                           \
    {                                                                                              \
        const uint64_t *p = args_and_result;                                                       \
                                                                                                   \
        int32_t status;                                                                            \
                                                                                                   \
        (void)p; /* clUnloadCompiler has no arguments */                                           \
        status = DXCLUNIX_HOST_CALL(int32_t, DXCLUNIX_ARITY(args),                                 \
                                    api_functions[DXCLUNIX_API_##name], p);                        \
        if (may_compile[DXCLUNIX_API_##name])                                                      \
            put_back_wine_handlers();                                                              \
        return status;                                                                             \
    }
#define DXCLUNIX_DIRECT_OBJ(name, args)                                                            \
    static NTSTATUS direct_##name(void *args_and_result)                                           \
    {                                                                                              \
        uint64_t *p = args_and_result;                                                             \
                                                                                                   \
        p[DXCLUNIX_ARITY(args)] = DXCLUNIX_HOST_CALL(uint64_t, DXCLUNIX_ARITY(args),               \
                                                     api_functions[DXCLUNIX_API_##name], p);       \
        if (may_compile[DXCLUNIX_API_##name])                                                      \
            put_back_wine_handlers();                                                              \
        return 0;                                                                                  \
    }
#define DXCLUNIX_DIRECT_PTR DXCLUNIX_DIRECT_OBJ
#define DXCLUNIX_DIRECT_NONE DXCLUNIX_DIRECT_OBJ
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCLUNIX_DIRECT_##kind(name, args)
#include "core/cl_api.h"
#undef DXCL_API_FN

/* ---- Late calls (dxclunix.h, enum dxclunix_late_code), apart from the rest ---- */

/* Where the Unix side looked for the host's drivers and what it found (host_icds.h). */
static NTSTATUS unix_host_icds(void *args)
{
    struct dxclunix_host_icds *params = args;

    pthread_once(&library_once, load_library);
    memcpy(params->report, host_icds_report, sizeof(params->report));
    return 0;
}

/* Wine looks this table up by name; the order is enum dxclunix_code's, then cl_api.h's, then
 * enum dxclunix_late_code's. */
__attribute__((visibility("default"))) const unixlib_entry_t __wine_unix_call_funcs[] = {
    unix_open,      unix_lookup, unix_call, unix_layer, unix_signals, unix_close_fd,
#define DXCL_API_FN(route, kind, ret, name, version, params, args) direct_##name,
#include "core/cl_api.h"
#undef DXCL_API_FN
    unix_host_icds,
};
_Static_assert(sizeof(__wine_unix_call_funcs) / sizeof(__wine_unix_call_funcs[0]) ==
                   DXCLUNIX_CODE_COUNT + DXCLUNIX_API_COUNT + DXCLUNIX_LATE_COUNT,
               "one entry per enum dxclunix_code, one per entry point, one per late code");
