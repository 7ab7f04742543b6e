/* dxclunix.so, the Unix half of dxcl's builtin pair: Wine loads it beside dxclunix.dll and the
 * PE half reaches it through __wine_unix_call (the interface: ../dxclunix.h). It opens the
 * host's libOpenCL.so.1 (the ICD loader, or any library of that name on the library path;
 * DXCL_UNIX_LIBRARY names another; inside Steam's container with the host's drivers added:
 * host_icds.h), and calls the host's functions by the index of each Unix call, from tables of
 * its own: the entry points of core/cl_api.h and the extension functions of dxclunix_ext.h. It
 * also makes the GPU path's calls of dxcl's host Vulkan layer, one Unix call each (docs/proxy.md,
 * "The Vulkan layer"), watches OpenCL's releases for the layer, and keeps the host fds of the
 * twins behind handles (fd_handles.c). It never calls PE code: arguments that would have the host
 * call PE code are dropped or refused here, whatever the PE half sent. Handles, pointers and
 * buffers pass as they are: both halves share the address space (x86-64, or i386 under Wine's
 * old WoW64, where this half is built with -m32), and each argument reaches the host with its
 * own type (host_call.h). */
#define _GNU_SOURCE
#include "dxclunix_so.h"
#include "host_call.h"
#include "host_icds.h"
#include "unix/host_config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The typed call of each entry point and of each extension function (host_call.h):
 * invoke_<name>(fn, slots). */
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCLUNIX_HOST_INVOKER(kind, ret, name, params, args, union dxclunix_##name##_params)
#include "core/cl_api.h"
#undef DXCL_API_FN
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault)                                      \
    DXCLUNIX_HOST_INVOKER(kind, ret, name, params, args, union dxclunix_ext_##name##_params)
#include "../dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN
typedef uint64_t (*invoker_fn)(uintptr_t fn, const uint64_t *slot);
#define DXCLUNIX_MAX_ARGS 16

static const char *const api_names[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) #name,
#include "core/cl_api.h"
#undef DXCL_API_FN
};

enum kind { KIND_INT, KIND_OBJ, KIND_PTR, KIND_NONE };
static const struct {
    unsigned char kind, arity;
    invoker_fn invoke;
} api_shapes[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    {KIND_##kind, DXCLUNIX_ARITY(args), invoke_##name},
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* The host's address of each entry point (host_functions), and of those the PE half may call
 * (api_functions: the refused ones are 0 there); filled when the library opens. */
static uintptr_t api_functions[DXCLUNIX_API_COUNT];
#define host_functions dxclunix_host_functions

/* Entry points the pair refuses (their calls answer that the function is missing): they
 * would have the host call PE code, or give the PE half a host address (the extension
 * look-ups go through DXCLUNIX_EXTENSION instead). */
static const bool refused[DXCLUNIX_API_COUNT] = {
    [DXCLUNIX_API_clSetEventCallback] = true,
    [DXCLUNIX_API_clSetMemObjectDestructorCallback] = true,
    [DXCLUNIX_API_clSetContextDestructorCallback] = true,
    [DXCLUNIX_API_clSetProgramReleaseCallback] = true,
    [DXCLUNIX_API_clEnqueueNativeKernel] = true,
    [DXCLUNIX_API_clGetExtensionFunctionAddress] = true,
    [DXCLUNIX_API_clGetExtensionFunctionAddressForPlatform] = true,
};

/* The calls that special_call makes: a callback argument dropped (the function pointer and its
 * user data, 0-based slots), clEnqueueSVMFree refused with a free function, and the imports
 * whose properties (slot 1) may name fd handles. */
static const struct {
    unsigned char special, notify, user_data;
} specials[DXCLUNIX_API_COUNT] = {
    [DXCLUNIX_API_clCreateContext] = {1, 3, 4},
    [DXCLUNIX_API_clCreateContextFromType] = {1, 2, 3},
    [DXCLUNIX_API_clBuildProgram] = {1, 4, 5},
    [DXCLUNIX_API_clCompileProgram] = {1, 7, 8},
    [DXCLUNIX_API_clLinkProgram] = {1, 6, 7},
    [DXCLUNIX_API_clEnqueueSVMFree] = {1, 0, 0},
    [DXCLUNIX_API_clCreateBufferWithProperties] = {1, 0, 0},
    [DXCLUNIX_API_clCreateImageWithProperties] = {1, 0, 0},
};

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
    dxclunix_save_wine_handlers();
    library = dxcl_host_icds_open(name, library_error, sizeof(library_error), host_icds_report,
                                  sizeof(host_icds_report));
    dxclunix_put_back_wine_handlers(); /* the loader may have started the drivers */
    if (!library)
        return;
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++) {
        host_functions[i] = (uintptr_t)dlsym(library, api_names[i]);
        api_functions[i] = refused[i] ? 0 : host_functions[i];
    }
    probe = dlsym(library, "clGetPlatformIDs");
    if (probe && dladdr(probe, &info) && info.dli_fname)
        snprintf(library_path, sizeof(library_path), "%s", info.dli_fname);
    else
        snprintf(library_path, sizeof(library_path), "%s", name);
}

static NTSTATUS unix_open(void *args)
{
    struct dxclunix_open *params = args;

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    pthread_once(&library_once, load_library);
    params->status = library ? 0 : -1;
    memcpy(params->path, library_path, sizeof(params->path));
    memcpy(params->error, library_error, sizeof(params->error));
    return 0;
}

static NTSTATUS unix_query(void *args)
{
    struct dxclunix_query *params = args;

    if (!params || params->count != DXCLUNIX_API_COUNT)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++)
        params->state[i] = !host_functions[i] ? DXCLUNIX_ABSENT
                           : refused[i]       ? DXCLUNIX_REFUSED
                                              : DXCLUNIX_PRESENT;
    return 0;
}

/* ---- Extension functions (dxclunix_ext.h) ---- */

static const char *const ext_names[DXCLUNIX_EXT_COUNT] = {
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault) #name,
#include "../dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN
};

/* The host's address of each, bound at its first look-up that finds one; one platform's per
 * function (the index names the function, not the platform). */
static _Atomic uintptr_t ext_functions[DXCLUNIX_EXT_COUNT];

static int ext_index(const char *name)
{
    for (int i = 0; i < DXCLUNIX_EXT_COUNT; i++)
        if (!strcmp(ext_names[i], name))
            return i;
    return -1;
}

/* The host's address of `name`: the host's look-up, which may fault on a bad platform (no lock
 * is held). */
static uintptr_t host_extension(uint64_t platform, bool with_platform, const char *name)
{
    __typeof__(&clGetExtensionFunctionAddressForPlatform) for_platform =
        (__typeof__(&clGetExtensionFunctionAddressForPlatform))
            host_functions[DXCLUNIX_API_clGetExtensionFunctionAddressForPlatform];
    __typeof__(&clGetExtensionFunctionAddress) any = (__typeof__(&clGetExtensionFunctionAddress))
        host_functions[DXCLUNIX_API_clGetExtensionFunctionAddress];

    if (with_platform)
        return for_platform ? (uintptr_t)for_platform((cl_platform_id)(uintptr_t)platform, name)
                            : 0;
    return any ? (uintptr_t)any(name) : 0;
}

static NTSTATUS unix_extension(void *args)
{
    struct dxclunix_extension *params = args;
    char name[sizeof(params->name)], why[sizeof(params->why)] = "";
    uintptr_t address, bound = 0;
    int index;

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    memcpy(name, params->name, sizeof(name));
    if (!memchr(name, 0, sizeof(name)))
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    if ((index = ext_index(name)) < 0)
        snprintf(why, sizeof(why), "not one the pair hands out (src/unix/dxclunix_ext.h)");
    else if (!library)
        snprintf(why, sizeof(why), "no host library");
    else if (!(address = host_extension(params->platform, params->with_platform, name)))
        snprintf(why, sizeof(why), "the host has none");
    else if (!atomic_compare_exchange_strong(&ext_functions[index], &bound, address) &&
             bound != address)
        snprintf(why, sizeof(why), "another platform's is bound to it already");
    params->index = why[0] ? -1 : index;
    memcpy(params->why, why, sizeof(params->why));
    return 0;
}

/* ---- The calls of OpenCL functions ---- */

/* A create function whose properties (slot `at`) may name fd handles: the host gets the fds
 * in their place (fd_handles.c). The call's kind is OBJ: its errcode_ret is the last slot. */
static NTSTATUS import_call(invoker_fn invoke, uintptr_t fn, uint64_t *slots, unsigned arity,
                            unsigned at)
{
    uint64_t a[DXCLUNIX_MAX_ARGS] = {0}, ret;
    struct dxclunix_import import;

    memcpy(a, slots, arity * sizeof(*a));
    switch (dxclunix_import_properties((const uint64_t *)(uintptr_t)a[at], &import)) {
    case DXCLUNIX_IMPORT_REFUSED:
        if (a[arity - 1])
            *(cl_int *)(uintptr_t)a[arity - 1] = CL_INVALID_PROPERTY;
        slots[arity] = 0;
        return 0;
    case DXCLUNIX_IMPORT_FDS:
        a[at] = (uint64_t)(uintptr_t)import.properties;
        break;
    case DXCLUNIX_IMPORT_AS_IS:
        break;
    }
    ret = invoke(fn, a);
    dxclunix_import_done(&import, ret != 0);
    slots[arity] = ret;
    return 0;
}

/* A call that may compile (may_compile): Wine's signal handlers and the thread's alternate signal
 * stack put back after it, where the driver's LLVM took them (signals.c). `a` are the arguments
 * to pass, `slots` the call's own (its result goes after them). */
static NTSTATUS compiling_call(enum dxclunix_api index, uintptr_t fn, const uint64_t *a,
                               uint64_t *slots)
{
    stack_t stack;
    bool stack_noted = dxclunix_save_signal_stack(&stack);
    uint64_t ret = api_shapes[index].invoke(fn, a);

    dxclunix_put_back_wine_handlers();
    if (stack_noted)
        dxclunix_put_back_signal_stack(&stack);
    if (api_shapes[index].kind == KIND_INT)
        return (int32_t)ret;
    slots[api_shapes[index].arity] = ret;
    return 0;
}

/* The entry points of `specials`, with a copy of their arguments. */
static NTSTATUS special_call(enum dxclunix_api index, uintptr_t fn, uint64_t *slots)
{
    unsigned arity = api_shapes[index].arity;
    uint64_t a[DXCLUNIX_MAX_ARGS] = {0}, ret;

    if (index == DXCLUNIX_API_clCreateBufferWithProperties ||
        index == DXCLUNIX_API_clCreateImageWithProperties)
        return import_call(api_shapes[index].invoke, fn, slots, arity, 1);
    memcpy(a, slots, arity * sizeof(*a));
    if (index == DXCLUNIX_API_clEnqueueSVMFree && a[3] /* pfn_free_func */)
        return CL_INVALID_OPERATION;
    if (specials[index].notify)
        a[specials[index].notify] = a[specials[index].user_data] = 0;
    if (may_compile[index])
        return compiling_call(index, fn, a, slots);
    ret = api_shapes[index].invoke(fn, a);
    if (api_shapes[index].kind == KIND_INT)
        return (int32_t)ret;
    slots[arity] = ret;
    return 0;
}

/* What a call answers for a function the host lacks, by kind. */
#define DXCLUNIX_ABSENT_INT CL_INVALID_OPERATION
#define DXCLUNIX_ABSENT_OBJ DXCLUNIX_MISSING
#define DXCLUNIX_ABSENT_PTR DXCLUNIX_MISSING
#define DXCLUNIX_ABSENT_NONE DXCLUNIX_MISSING

/* The host's answer: an INT function's cl_int is the call's status; the others' result goes to
 * the slot after their arguments (dxclunix.h). */
#define DXCLUNIX_ANSWER_INT(n, p, result) return (int32_t)(result);
#define DXCLUNIX_ANSWER_OBJ(n, p, result)                                                          \
    p->slot[n] = (result);                                                                         \
    return 0;
#define DXCLUNIX_ANSWER_PTR DXCLUNIX_ANSWER_OBJ
#define DXCLUNIX_ANSWER_NONE DXCLUNIX_ANSWER_OBJ

/* The call of each entry point. */
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    static NTSTATUS direct_##name(void *args_and_result)                                           \
    {                                                                                              \
        union dxclunix_##name##_params *p = args_and_result;                                       \
        const uintptr_t fn = api_functions[DXCLUNIX_API_##name];                                   \
        uint64_t result;                                                                           \
                                                                                                   \
        if (!p)                                                                                    \
            return DXCLUNIX_STATUS_INVALID_PARAMETER;                                              \
        if (!fn)                                                                                   \
            return DXCLUNIX_ABSENT_##kind;                                                         \
        if (specials[DXCLUNIX_API_##name].special)                                                 \
            return special_call(DXCLUNIX_API_##name, fn, p->slot);                                 \
        if (may_compile[DXCLUNIX_API_##name])                                                      \
            return compiling_call(DXCLUNIX_API_##name, fn, p->slot, p->slot);                      \
        result = invoke_##name(fn, p->slot);                                                       \
        DXCLUNIX_ANSWER_##kind(DXCLUNIX_ARITY(args), p, result)                                    \
    }
#include "core/cl_api.h"
#undef DXCL_API_FN

/* The call of each extension function, from the table of addresses bound by its look-up. */
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault)                                      \
    static NTSTATUS ext_##name(void *args_and_result)                                              \
    {                                                                                              \
        union dxclunix_ext_##name##_params *p = args_and_result;                                   \
        const uintptr_t fn =                                                                       \
            atomic_load_explicit(&ext_functions[DXCLUNIX_EXT_##name], memory_order_acquire);       \
                                                                                                   \
        if (!p)                                                                                    \
            return DXCLUNIX_STATUS_INVALID_PARAMETER;                                              \
        if (!fn)                                                                                   \
            return DXCLUNIX_ABSENT_##kind;                                                         \
        if (DXCLUNIX_EXT_##name == DXCLUNIX_EXT_clCreateSemaphoreWithPropertiesKHR)                \
            return import_call(invoke_##name, fn, p->slot, DXCLUNIX_ARITY(args), 1);               \
        DXCLUNIX_ANSWER_##kind(DXCLUNIX_ARITY(args), p, invoke_##name(fn, p->slot))                \
    }
#include "../dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN

/* ---- The GPU path's calls of dxcl's Vulkan layer (dxclunix.h, DXCLUNIX_LAYER_CALLS) ---- */

/* The layer's exports (core/twin.h, DXCL_LAYER_EXPORTS): found in the layer the Vulkan loader
 * has loaded, never loaded here. A device may be made after dxcl's first call, so a lookup that
 * finds no layer is tried again on the next call (a dlopen that only looks). */
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

static bool layer_lock_busy(void)
{
    if (pthread_mutex_trylock(&layer_lock))
        return true;
    pthread_mutex_unlock(&layer_lock);
    return false;
}

/* OpenCL's release of a hand-out is done: the layer lets Direct3D's queue go on. */
struct pending_release_watch {
    cl_event event;
    uint64_t twin, value;
    struct pending_release_watch *next; /* among the ended */
};

/* The host's functions that the watches call, with their own types (as host_call.h's). */
#define HOST_FN(name) ((__typeof__(&name))host_functions[DXCLUNIX_API_##name])

/* The events of watches that ended, released at the next watch's start: not inside the driver's
 * callback (PoCL 3.1 aborts when an event is released in its own callback). */
static pthread_mutex_t ended_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pending_release_watch *ended;

static bool ended_lock_busy(void)
{
    if (pthread_mutex_trylock(&ended_lock))
        return true;
    pthread_mutex_unlock(&ended_lock);
    return false;
}

static void release_ended(void)
{
    struct pending_release_watch *list, *next;

    pthread_mutex_lock(&ended_lock);
    list = ended;
    ended = NULL;
    pthread_mutex_unlock(&ended_lock);
    for (; list; list = next) {
        next = list->next;
        HOST_FN(clReleaseEvent)(list->event);
        free(list);
    }
}

static void tell_released(struct pending_release_watch *watch, int32_t status)
{
    struct dxcl_layer_released released = {watch->twin, watch->value, status < 0 ? status : 0, 0};

    if (find_layer())
        layer_exports[DXCL_LAYER_RELEASED](&released);
    pthread_mutex_lock(&ended_lock);
    watch->next = ended;
    ended = watch;
    pthread_mutex_unlock(&ended_lock);
}

/* The host calls it as OpenCL's callbacks are declared: (cl_event, cl_int, void *), which on
 * i386 is not the layout of (uint64_t, int32_t, void *). */
static void CL_CALLBACK released_callback(cl_event event, cl_int status, void *data)
{
    (void)event;
    tell_released(data, status);
}

/* Where the host has no event callbacks: a thread of its own waits. */
static void *release_waiter(void *data)
{
    struct pending_release_watch *watch = data;
    cl_int status = -1;

    HOST_FN(clWaitForEvents)(1, &watch->event);
    HOST_FN(clGetEventInfo)
    (watch->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    tell_released(watch, status);
    return NULL;
}

/* DXCL_LAYER_RELEASE_WHEN, the Unix half's own: the host calls released_callback, a function of
 * this half (the pair refuses clSetEventCallback to the PE half, not to itself). No lock is held
 * across the host calls, which fault on a bad event. */
static int32_t release_when(struct dxcl_layer_release_when *asked)
{
    struct pending_release_watch *watch = malloc(sizeof(*watch));
    pthread_t thread;
    int32_t result;

    release_ended();
    if (!watch)
        return -6; /* CL_OUT_OF_HOST_MEMORY */
    if (!host_functions[DXCLUNIX_API_clRetainEvent] ||
        !host_functions[DXCLUNIX_API_clReleaseEvent]) {
        free(watch);
        return -59; /* CL_INVALID_OPERATION */
    }
    *watch = (struct pending_release_watch){(cl_event)(uintptr_t)asked->event, asked->twin,
                                            asked->value, NULL};
    if ((result = HOST_FN(clRetainEvent)(watch->event))) {
        free(watch);
        return result;
    }
    if (host_functions[DXCLUNIX_API_clSetEventCallback]) {
        /* CL_COMPLETE, which negative statuses reach too */
        result = HOST_FN(clSetEventCallback)(watch->event, CL_COMPLETE, released_callback, watch);
        if (!result)
            return 0;
    }
    if (host_functions[DXCLUNIX_API_clWaitForEvents] &&
        host_functions[DXCLUNIX_API_clGetEventInfo] &&
        !pthread_create(&thread, NULL, release_waiter, watch)) {
        pthread_detach(thread);
        return 0;
    }
    HOST_FN(clReleaseEvent)(watch->event);
    free(watch);
    return result ? result : -59;
}

/* What the Unix half checks and clears before the layer sees a call: the counts it reads arrays
 * by, and the out fds (a value the PE half left there never comes back as the layer's). */
static bool layer_params_in(enum dxcl_layer_call call, void *params)
{
    switch (call) {
    case DXCL_LAYER_HAND_OVER:
        return ((struct dxcl_hand_over *)params)->count <= DXCL_HAND_OVER_MAX;
    case DXCL_LAYER_TWIN_CREATE:
        ((struct dxcl_layer_twin_create *)params)->twin.fd = -1;
        return true;
    case DXCL_LAYER_TWIN_EXPORT:
    case DXCL_LAYER_TWIN_READY_FD:
        ((struct dxcl_layer_twin_fd *)params)->fd = -1;
        return true;
    default:
        return true;
    }
}

/* An fd the layer handed out becomes an fd handle (dxclunix.h, "An fd handle"): false, the fd
 * closed and *fd -1, when the table is full. */
static bool fd_out(int32_t *fd)
{
    int raw = *fd;

    if (raw < 0) {
        *fd = -1;
        return true;
    }
    if ((*fd = dxclunix_issue_fd(raw)) >= 0)
        return true;
    close(raw);
    *fd = -1;
    return false;
}

static void layer_fds_out(enum dxcl_layer_call call, void *params, int32_t *result)
{
    struct dxcl_layer_twin_fd *asked = params;

    switch (call) {
    case DXCL_LAYER_TWIN_CREATE: /* a twin without its fd: the next export gives one */
        fd_out(&((struct dxcl_layer_twin_create *)params)->twin.fd);
        return;
    case DXCL_LAYER_TWIN_EXPORT:
    case DXCL_LAYER_TWIN_READY_FD:
        if (*result || fd_out(&asked->fd))
            return;
        *result = asked->error.result = -1;
        snprintf(asked->error.text, sizeof(asked->error.text), "the Unix side holds too many fds");
        return;
    default:
        return;
    }
}

/* A call of the layer on the Unix half's own copy of its struct. */
static int32_t call_layer(enum dxcl_layer_call call, void *params, uint32_t *layer_missing)
{
    int32_t result;

    if (call == DXCL_LAYER_RELEASE_WHEN)
        return release_when(params);
    if (!find_layer() || !layer_exports[call]) {
        *layer_missing = 1;
        return -1;
    }
    result = layer_exports[call](params);
    layer_fds_out(call, params, &result);
    return result;
}

/* One Unix call per layer call: the struct is copied in and back out with no lock held (either
 * copy may fault), and the layer only ever sees this half's copy. */
#define DXCLUNIX_LAYER_FN(id, name, type)                                                          \
    static NTSTATUS layer_##name(void *args)                                                       \
    {                                                                                              \
        struct dxclunix_layer_##name *p = args, own;                                               \
                                                                                                   \
        if (!p)                                                                                    \
            return DXCLUNIX_STATUS_INVALID_PARAMETER;                                              \
        memcpy(&own, p, sizeof(own));                                                              \
        if (!layer_params_in(id, &own.call))                                                       \
            return DXCLUNIX_STATUS_INVALID_PARAMETER;                                              \
        own.layer_missing = 0;                                                                     \
        own.result = call_layer(id, &own.call, &own.layer_missing);                                \
        memcpy(p, &own, sizeof(own));                                                              \
        return 0;                                                                                  \
    }
DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN

/* ---- Where the Unix half looked for the host's drivers (host_icds.h) ---- */
static NTSTATUS unix_host_icds(void *args)
{
    struct dxclunix_host_icds *params = args;

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    pthread_once(&library_once, load_library);
    memcpy(params->report, host_icds_report, sizeof(params->report));
    return 0;
}

/* Test hooks (dxclunix.h, struct dxclunix_test): for tests/test_unix_interface.c only, and off
 * unless the host environment has DXCL_UNIX_TEST_HOOKS=1. */
static NTSTATUS unix_test(void *args)
{
    struct dxclunix_test *params = args;
    const char *hooks = getenv("DXCL_UNIX_TEST_HOOKS");
    uint8_t open_fds[sizeof(params->open_fds)] = {0};

    if (!hooks || strcmp(hooks, "1"))
        return DXCLUNIX_STATUS_NOT_SUPPORTED;
    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    switch (params->op) {
    case DXCLUNIX_TEST_ISSUE_FD: {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int32_t handle = dxclunix_issue_fd(fd);

        if (fd >= 0 && handle < 0)
            close(fd);
        params->handle = handle;
        params->fd = handle < 0 ? -1 : fd;
        return 0;
    }
    case DXCLUNIX_TEST_OPEN_FDS:
        for (int fd = 0; fd < (int)sizeof(open_fds) * 8; fd++)
            if (fcntl(fd, F_GETFD) != -1)
                open_fds[fd / 8] |= (uint8_t)(1u << (fd % 8));
        memcpy(params->open_fds, open_fds, sizeof(open_fds));
        return 0;
    case DXCLUNIX_TEST_LOCKS:
        params->locks_held = (uint32_t)dxclunix_fd_lock_busy() |
                             (uint32_t)dxclunix_watch_lock_busy() << 1 |
                             (uint32_t)dxclunix_signals_lock_busy() << 2 |
                             (uint32_t)layer_lock_busy() << 3 | (uint32_t)ended_lock_busy() << 4;
        return 0;
    default:
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    }
}

/* Wine looks this table up by name; the order is enum dxclunix_code's (the layer's calls last,
 * in enum dxcl_layer_call's order), then cl_api.h's, then dxclunix_ext.h's. */
__attribute__((visibility("default"))) const unixlib_entry_t __wine_unix_call_funcs[] = {
    unix_open,           unix_query,     unix_extension,        dxclunix_signals,
    dxclunix_close_fd,   dxclunix_watch, dxclunix_wait_watched, dxclunix_wake_watcher,
    unix_host_icds,      unix_test,
#define DXCLUNIX_LAYER_FN(id, name, type) layer_##name,
    DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN
#define DXCL_API_FN(route, kind, ret, name, version, params, args) direct_##name,
#include "core/cl_api.h"
#undef DXCL_API_FN
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault) ext_##name,
#include "../dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN
};
_Static_assert(sizeof(__wine_unix_call_funcs) / sizeof(__wine_unix_call_funcs[0]) ==
                   DXCLUNIX_CODE_COUNT + DXCLUNIX_API_COUNT + DXCLUNIX_EXT_COUNT,
               "one entry per enum dxclunix_code, then one per entry point and extension function");
