/* dxclunix.dll, the PE half of dxcl's Wine builtin pair (docs/proxy.md, "The Unix side"). It
 * looks like an OpenCL driver DLL: it exports every entry point of src/core/cl_api.h, and each
 * one calls the host's function of that name through the Unix half (dxclunix.so) with
 * __wine_unix_call. dxclunixGetProcAddress tells which ones the host has, so that dxcl
 * (src/core/driver.c) sees the host's API exactly: a function it lacks is one dxcl's compat
 * layer provides or fails like a driver without it.
 *
 * dxclunixGetProcAddress hands out a direct thunk for each entry point that passes as it is:
 * a C function with the entry point's signature, making its own Unix call (below, "The direct
 * thunks"). The exports by name, the calls the pair changes and extension functions go
 * through the generic forwarder: a thunk of two instructions (its index, a jump) to one
 * forwarder written in assembly, which hands the arguments to C as one array:
 * DXCLUNIX_MAX_ARGS 64-bit slots, the four argument registers and the caller's stack slots
 * behind them (reading slots the caller did not fill is harmless; nothing is written there).
 * Extension functions get that kind of thunk from a pool, bound to the host's address on first
 * lookup: their signatures are unknown, and integer and pointer arguments pass alike (OpenCL
 * passes nothing else).
 *
 * Callbacks: a host driver thread cannot enter PE code, so no PE function pointer reaches the
 * host. Where Wine's opencl.dll does the same, dxcl's compat layer delivers them (src/compat/):
 * the context and build notifications are dropped (NULL to the host; a build without a
 * callback completes before it returns), the set-callback functions answer
 * CL_INVALID_OPERATION, and so do clEnqueueNativeKernel and clEnqueueSVMFree with a free
 * function. Extension functions that take a callback are not handed out.
 *
 * Beside the OpenCL API, dxclunixLayerCall reaches dxcl's host Vulkan layer for the GPU path
 * (docs/proxy.md, "The Vulkan layer"); it needs only the Unix half. */
#include "../dxclunix.h"

#define WIN32_LEAN_AND_MEAN
#define CL_TARGET_OPENCL_VERSION 300
#include <windows.h>
#include <CL/cl.h>
#include <CL/cl_gl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Every entry point of cl_api.h, in its order. */
enum dxclunix_api {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCLUNIX_API_##name,
#include "core/cl_api.h"
#undef DXCL_API_FN
    DXCLUNIX_API_COUNT
};

/* Thunks for extension functions: slots after the entry points, each 16 bytes of code. */
#define DXCLUNIX_EXTENSION_SLOTS 256
#define DXCLUNIX_THUNK_SIZE 16

static const char *const api_names[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) #name,
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* What an entry point the host lacks returns, as cl_api.h's kinds say. */
enum missing_kind { MISSING_INT, MISSING_OBJ, MISSING_PTR, MISSING_NONE };
static const struct {
    unsigned char kind;
    unsigned char arg_count; /* an OBJ's errcode_ret is its last argument */
} api_kinds[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    {MISSING_##kind, DXCLUNIX_COUNT args},
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* The callback arguments (1-based positions) dropped before the host sees a call: the
 * function pointer and its user data. */
static const struct {
    unsigned char notify, user_data;
} stripped[DXCLUNIX_API_COUNT] = {
    [DXCLUNIX_API_clCreateContext] = {4, 5}, [DXCLUNIX_API_clCreateContextFromType] = {3, 4},
    [DXCLUNIX_API_clBuildProgram] = {5, 6},  [DXCLUNIX_API_clCompileProgram] = {8, 9},
    [DXCLUNIX_API_clLinkProgram] = {7, 8},
};

/* Entry points refused with CL_INVALID_OPERATION: they would have the host call PE code.
 * clEnqueueSVMFree only with a free function (its 4th argument). */
static const bool refused[DXCLUNIX_API_COUNT] = {
    [DXCLUNIX_API_clSetEventCallback] = true,
    [DXCLUNIX_API_clSetMemObjectDestructorCallback] = true,
    [DXCLUNIX_API_clSetContextDestructorCallback] = true,
    [DXCLUNIX_API_clSetProgramReleaseCallback] = true,
    [DXCLUNIX_API_clEnqueueNativeKernel] = true,
};

typedef LONG(WINAPI *unix_dispatcher_fn)(UINT64 handle, unsigned int code, void *args);
typedef LONG(WINAPI *query_memory_fn)(HANDLE process, const void *address, int info_class,
                                      void *buffer, SIZE_T size, SIZE_T *size_ret);
#define MEMORY_WINE_UNIX_FUNCS 1000 /* Wine's MEMORY_INFORMATION_CLASS for the Unix half */

static unix_dispatcher_fn volatile unix_dispatcher; /* set once the Unix half is found */
static UINT64 unix_handle;
static INIT_ONCE unix_once = INIT_ONCE_STATIC_INIT;
static INIT_ONCE open_once = INIT_ONCE_STATIC_INIT;
static volatile LONG opened;         /* the host library is open and host[] filled */
static struct dxclunix_open opening; /* its answer: the host library's path, or why none */

/* The host's address of each entry point, then of each extension slot handed out. */
static UINT64 host[DXCLUNIX_API_COUNT + DXCLUNIX_EXTENSION_SLOTS];
/* Entry points forwarded as they are: the host has them and the PE half changes nothing. */
static bool plain[DXCLUNIX_API_COUNT];
static LONG extension_count;
static SRWLOCK extension_lock = SRWLOCK_INIT;
extern const unsigned char dxclunix_api_thunks[], dxclunix_extension_thunks[];

static LONG unix_call(enum dxclunix_code code, void *params)
{
    return unix_dispatcher(unix_handle, code, params);
}

/* Finds the Unix half: sets unix_dispatcher, or opening.error to why it cannot. */
static BOOL CALLBACK find_unix_half(INIT_ONCE *once, void *param, void **context)
{
    HMODULE self = NULL, ntdll = GetModuleHandleA("ntdll.dll");
    query_memory_fn query = (query_memory_fn)(void *)GetProcAddress(ntdll, "NtQueryVirtualMemory");
    unix_dispatcher_fn *dispatcher =
        (unix_dispatcher_fn *)(void *)GetProcAddress(ntdll, "__wine_unix_call_dispatcher");

    (void)once, (void)param, (void)context;
    strcpy(opening.error, "not under Wine (ntdll has no __wine_unix_call_dispatcher)");
    if (!query || !dispatcher || !*dispatcher)
        return TRUE;
    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (const char *)&open_once, &self);
    strcpy(opening.error, "Wine loaded no dxclunix.so (is dxclunix.dll a builtin, from "
                          "<dir>/x86_64-windows with <dir>/x86_64-unix/dxclunix.so beside it?)");
    if (query(GetCurrentProcess(), self, MEMORY_WINE_UNIX_FUNCS, &unix_handle, sizeof(unix_handle),
              NULL) ||
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
    struct dxclunix_lookup lookup = {api_names, host, DXCLUNIX_API_COUNT};

    (void)once, (void)param, (void)context;
    if (!unix_half_found())
        return TRUE;
    if (unix_call(DXCLUNIX_OPEN, &opening) || opening.status != 0)
        return TRUE;
    unix_call(DXCLUNIX_LOOKUP, &lookup);
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++)
        plain[i] = host[i] && !refused[i] && !stripped[i].notify &&
                   i != DXCLUNIX_API_clEnqueueSVMFree &&
                   i != DXCLUNIX_API_clGetExtensionFunctionAddress &&
                   i != DXCLUNIX_API_clGetExtensionFunctionAddressForPlatform;
    InterlockedExchange(&opened, 1);
    return TRUE;
}

static bool open_once_done(void)
{
    if (!opened)
        InitOnceExecuteOnce(&open_once, open_host, NULL, NULL);
    return opened != 0;
}

/* Extension functions that take a callback: the host would call PE code from its threads. */
static bool takes_callback(const char *name)
{
    return strstr(name, "Callback") || !strcmp(name, "clEnqueueSVMFreeARM");
}

/* A PE thunk for the host's extension function `address` (one per address), or NULL. */
static void *extension_thunk(UINT64 address)
{
    LONG count = InterlockedCompareExchange(&extension_count, 0, 0), slot;

    if (!address)
        return NULL;
    for (slot = 0; slot < count; slot++)
        if (host[DXCLUNIX_API_COUNT + slot] == address)
            return (void *)(dxclunix_extension_thunks + slot * DXCLUNIX_THUNK_SIZE);
    AcquireSRWLockExclusive(&extension_lock);
    for (slot = 0; slot < extension_count && host[DXCLUNIX_API_COUNT + slot] != address; slot++)
        ;
    if (slot == extension_count && slot < DXCLUNIX_EXTENSION_SLOTS) {
        host[DXCLUNIX_API_COUNT + slot] = address;
        InterlockedExchange(&extension_count, slot + 1); /* publishes the slot */
    }
    ReleaseSRWLockExclusive(&extension_lock);
    return slot < DXCLUNIX_EXTENSION_SLOTS
               ? (void *)(dxclunix_extension_thunks + slot * DXCLUNIX_THUNK_SIZE)
               : NULL;
}

/* The host's function, or false when it faulted: Wine then ends the Unix call with the
 * fault's status (an invalid handle makes the ICD loader read through NULL, as it would crash a
 * native program; Wine's opencl.dll reports the same as a failed call). */
static bool host_call(UINT64 fn, const UINT64 *args, UINT64 count, UINT64 *ret)
{
    struct dxclunix_call call = {fn, args, count, 0};

    if (unix_call(DXCLUNIX_CALL, &call))
        return false;
    *ret = call.ret;
    return true;
}

/* A failed call by cl_api.h's kind: `error` as the result or in *errcode_ret, or NULL. */
static UINT64 answer_error(enum dxclunix_api index, const UINT64 *args, cl_int error)
{
    cl_int *errcode_ret;

    switch (api_kinds[index].kind) {
    case MISSING_INT:
        return (UINT64)(UINT32)error;
    case MISSING_OBJ:
        errcode_ret = (cl_int *)(UINT_PTR)args[api_kinds[index].arg_count - 1];
        if (errcode_ret)
            *errcode_ret = error;
        return 0;
    default:
        return 0;
    }
}

/* An entry point the host lacks, or one refused: what a driver without it returns. */
static UINT64 answer_missing(enum dxclunix_api index, const UINT64 *args)
{
    return answer_error(index, args, CL_INVALID_OPERATION);
}

/* An entry point whose host function faulted: an invalid argument, as far as the PE side
 * can tell. */
static UINT64 call_entry(enum dxclunix_api index, const UINT64 *args)
{
    UINT64 ret;

    return host_call(host[index], args, api_kinds[index].arg_count, &ret)
               ? ret
               : answer_error(index, args, CL_INVALID_VALUE);
}

/* The direct thunks: one C function per entry point, generated from cl_api.h with its own
 * signature. It widens its arguments into an array on its stack, one slot more for the result,
 * and makes the entry point's own Unix call (code DXCLUNIX_CODE_COUNT + index), whose Unix
 * half calls the host function with exactly these arguments (src/unix/so/dxclunix_so.c): no
 * look-up, no copy beyond the arguments, as Wine's generated opencl.dll thunks do.
 * dxclunixGetProcAddress hands them out for the entry points forwarded as they are (plain[]),
 * so they need no check of their own. A host function that faults ends the Unix call with the
 * fault's status: the call then fails as call_entry's does. */
#define DXCLUNIX_WIDE(x) (UINT64)(UINT_PTR)(x),
#define DXCLUNIX_WIDEN_0()
#define DXCLUNIX_WIDEN_1(a) DXCLUNIX_WIDE(a)
#define DXCLUNIX_WIDEN_2(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_1(__VA_ARGS__)
#define DXCLUNIX_WIDEN_3(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_2(__VA_ARGS__)
#define DXCLUNIX_WIDEN_4(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_3(__VA_ARGS__)
#define DXCLUNIX_WIDEN_5(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_4(__VA_ARGS__)
#define DXCLUNIX_WIDEN_6(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_5(__VA_ARGS__)
#define DXCLUNIX_WIDEN_7(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_6(__VA_ARGS__)
#define DXCLUNIX_WIDEN_8(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_7(__VA_ARGS__)
#define DXCLUNIX_WIDEN_9(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_8(__VA_ARGS__)
#define DXCLUNIX_WIDEN_10(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_9(__VA_ARGS__)
#define DXCLUNIX_WIDEN_11(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_10(__VA_ARGS__)
#define DXCLUNIX_WIDEN_12(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_11(__VA_ARGS__)
#define DXCLUNIX_WIDEN_13(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_12(__VA_ARGS__)
#define DXCLUNIX_WIDEN_14(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_13(__VA_ARGS__)
#define DXCLUNIX_WIDEN_15(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_14(__VA_ARGS__)
#define DXCLUNIX_WIDEN_16(a, ...) DXCLUNIX_WIDE(a) DXCLUNIX_WIDEN_15(__VA_ARGS__)
/* An INT entry point's result is its Unix call's status (dxclunix.h); the others' lies in the
 * slot after the arguments. */
#define DXCLUNIX_DIRECT_INT(ret, name, params, args)                                               \
    static ret WINAPI direct_##name params                                                         \
    {                                                                                              \
        UINT64 slots[] = {DXCLUNIX_CAT(DXCLUNIX_WIDEN_, DXCLUNIX_ARITY(args)) args 0};             \
        LONG status =                                                                              \
            unix_dispatcher(unix_handle, DXCLUNIX_CODE_COUNT + DXCLUNIX_API_##name, slots);        \
                                                                                                   \
        return status < DXCLUNIX_FAULTED ? CL_INVALID_VALUE : status;                              \
    }
#define DXCLUNIX_DIRECT_SLOT(ret, name, params, args, result)                                      \
    static ret WINAPI direct_##name params                                                         \
    {                                                                                              \
        UINT64 slots[] = {DXCLUNIX_CAT(DXCLUNIX_WIDEN_, DXCLUNIX_ARITY(args)) args 0};             \
                                                                                                   \
        if (unix_dispatcher(unix_handle, DXCLUNIX_CODE_COUNT + DXCLUNIX_API_##name, slots))        \
            slots[DXCLUNIX_ARITY(args)] =                                                          \
                answer_error(DXCLUNIX_API_##name, slots, CL_INVALID_VALUE);                        \
        result;                                                                                    \
    }
#define DXCLUNIX_DIRECT_OBJ(ret, name, params, args)                                               \
    DXCLUNIX_DIRECT_SLOT(ret, name, params, args, return (ret)(UINT_PTR)slots[DXCLUNIX_ARITY(args)])
#define DXCLUNIX_DIRECT_PTR DXCLUNIX_DIRECT_OBJ
#define DXCLUNIX_DIRECT_NONE(ret, name, params, args)                                              \
    DXCLUNIX_DIRECT_SLOT(ret, name, params, args, )
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCLUNIX_DIRECT_##kind(ret, name, params, args)
#include "core/cl_api.h"
#undef DXCL_API_FN

static void *const direct_thunks[DXCLUNIX_API_COUNT] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) (void *)direct_##name,
#include "core/cl_api.h"
#undef DXCL_API_FN
};

static UINT64 forward_extension_lookup(enum dxclunix_api index, const UINT64 *args)
{
    const char *name =
        (const char *)(UINT_PTR)args[index == DXCLUNIX_API_clGetExtensionFunctionAddress ? 0 : 1];

    UINT64 address;

    if (!name || takes_callback(name))
        return 0;
    return host_call(host[index], args, api_kinds[index].arg_count, &address)
               ? (UINT64)(UINT_PTR)extension_thunk(address)
               : 0;
}

/* Every thunk lands here with its index and its caller's arguments. */
__attribute__((used)) static UINT64 dxclunix_forward_c(UINT32 index, const UINT64 *args)
{
    UINT64 adjusted[DXCLUNIX_MAX_ARGS], ret;

    if (index < DXCLUNIX_API_COUNT && plain[index]) /* the common case first */
        return call_entry(index, args);
    if (!open_once_done())
        return index < DXCLUNIX_API_COUNT ? answer_missing(index, args) : 0;
    if (index >= DXCLUNIX_API_COUNT) /* an extension function: its result type is unknown */
        return host_call(host[index], args, DXCLUNIX_MAX_ARGS, &ret)
                   ? ret
                   : (UINT64)(INT64)CL_INVALID_VALUE;
    if (!host[index] || refused[index] ||
        (index == DXCLUNIX_API_clEnqueueSVMFree && args[3] /* pfn_free_func */))
        return answer_missing(index, args);
    if (index == DXCLUNIX_API_clGetExtensionFunctionAddress ||
        index == DXCLUNIX_API_clGetExtensionFunctionAddressForPlatform)
        return forward_extension_lookup(index, args);
    if (stripped[index].notify && args[stripped[index].notify - 1]) {
        memcpy(adjusted, args, sizeof(adjusted));
        adjusted[stripped[index].notify - 1] = 0;
        adjusted[stripped[index].user_data - 1] = 0;
        args = adjusted;
    }
    return call_entry(index, args);
}

/* The forwarder: spills the register arguments into their home slots, so that the caller's
 * arguments lie in one array above the return address, and calls dxclunix_forward_c(index,
 * array). Then the thunks: each entry point (exported by name) and each extension slot. */
#define DXCLUNIX_STRING(x) #x
#define DXCLUNIX_XSTRING(x) DXCLUNIX_STRING(x)
/* clang-format off */
__asm__(".text\n"
        ".balign 16\n"
        ".def dxclunix_forward; .scl 3; .type 32; .endef\n"
        ".seh_proc dxclunix_forward\n"
        "dxclunix_forward:\n"
        "\tmovq %rcx, 8(%rsp)\n"
        "\tmovq %rdx, 16(%rsp)\n"
        "\tmovq %r8, 24(%rsp)\n"
        "\tmovq %r9, 32(%rsp)\n"
        "\tsubq $40, %rsp\n"
        "\t.seh_stackalloc 40\n"
        "\t.seh_endprologue\n"
        "\tmovl %eax, %ecx\n"
        "\tleaq 48(%rsp), %rdx\n"
        "\tcall dxclunix_forward_c\n"
        "\taddq $40, %rsp\n"
        "\tret\n"
        ".seh_endproc\n"
        ".set dxclunix_index, 0\n"
        ".balign " DXCLUNIX_XSTRING(DXCLUNIX_THUNK_SIZE) "\n"
        ".globl dxclunix_api_thunks\n"
        "dxclunix_api_thunks:\n"
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
        ".balign " DXCLUNIX_XSTRING(DXCLUNIX_THUNK_SIZE) "\n"                                      \
        ".globl " #name "\n"                                                                       \
        ".def " #name "; .scl 2; .type 32; .endef\n"                                               \
        #name ":\n"                                                                                \
        "\tmovl $dxclunix_index, %eax\n"                                                           \
        "\tjmp dxclunix_forward\n"                                                                 \
        ".set dxclunix_index, dxclunix_index + 1\n"                                                \
        ".section .drectve\n"                                                                      \
        ".ascii \" -export:" #name "\"\n"                                                           \
        ".text\n"
#include "core/cl_api.h"
#undef DXCL_API_FN
        ".balign " DXCLUNIX_XSTRING(DXCLUNIX_THUNK_SIZE) "\n"
        ".globl dxclunix_extension_thunks\n"
        "dxclunix_extension_thunks:\n"
        ".rept " DXCLUNIX_XSTRING(DXCLUNIX_EXTENSION_SLOTS) "\n"
        "\tmovl $dxclunix_index, %eax\n"
        "\tjmp dxclunix_forward\n"
        "\t.balign " DXCLUNIX_XSTRING(DXCLUNIX_THUNK_SIZE) "\n"
        ".set dxclunix_index, dxclunix_index + 1\n"
        ".endr\n");
/* clang-format on */

/* dxcl's question to the pair: the thunk of an entry point the host has (its direct thunk
 * where the call passes as it is, else the forwarder's), NULL for one it lacks (or one the
 * pair refuses outright), or when the host library cannot be opened. */
__declspec(dllexport) void *WINAPI dxclunixGetProcAddress(const char *name);
void *WINAPI dxclunixGetProcAddress(const char *name)
{
    if (!name || !open_once_done())
        return NULL;
    for (int i = 0; i < DXCLUNIX_API_COUNT; i++)
        if (!strcmp(api_names[i], name)) {
            if (plain[i])
                return direct_thunks[i];
            return host[i] && !refused[i] ? (void *)(dxclunix_api_thunks + i * DXCLUNIX_THUNK_SIZE)
                                          : NULL;
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

/* Closes a host fd of a twin's memory or semaphore that the driver's import refused: a
 * successful import owns its fd, a failed one leaves it with the caller. */
__declspec(dllexport) void WINAPI dxclunixCloseFd(int32_t fd);
void WINAPI dxclunixCloseFd(int32_t fd)
{
    if (fd >= 0 && unix_half_found())
        unix_call(DXCLUNIX_CLOSE_FD, &fd);
}

/* At dxcl's load (src/core/driver.c, dxcl_driver_announce): finds the Unix half, so that
 * dxclunix.so is in the process before the program makes its Vulkan devices (dxcl's layer is
 * passive on devices made in a process without it). The host library is not opened. */
__declspec(dllexport) BOOL WINAPI dxclunixAnnounce(void);
BOOL WINAPI dxclunixAnnounce(void)
{
    return unix_half_found();
}

/* The GPU path's calls of dxcl's host Vulkan layer (src/core/twin.h, enum dxcl_layer_call), each
 * with its struct: the layer's answer, or -1 (*layer_missing set where the layer is not loaded:
 * VK_LAYER_PATH, VK_INSTANCE_LAYERS; clear where the Unix half is missing or the call does not
 * exist). */
__declspec(dllexport) int32_t WINAPI
    dxclunixLayerCall(uint32_t call, void *params, uint32_t *layer_missing);
int32_t WINAPI dxclunixLayerCall(uint32_t call, void *params, uint32_t *layer_missing)
{
    struct dxclunix_layer asked = {call, -1, (uint64_t)(uintptr_t)params, 0, 0};

    *layer_missing = 0;
    if (!params || call >= DXCL_LAYER_CALL_COUNT || !unix_half_found() ||
        unix_call(DXCLUNIX_LAYER, &asked) != 0)
        return -1;
    *layer_missing = asked.layer_missing;
    return asked.result;
}

/* ---- Late calls (dxclunix.h, enum dxclunix_late_code), apart from the rest ---- */

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
    got = !unix_dispatcher(unix_handle,
                           DXCLUNIX_CODE_COUNT + DXCLUNIX_API_COUNT + DXCLUNIX_HOST_ICDS, &params);
    if (got) {
        strncpy(text, params.report, size - 1);
        text[size - 1] = 0;
    }
    ReleaseSRWLockExclusive(&lock);
    return got;
}
