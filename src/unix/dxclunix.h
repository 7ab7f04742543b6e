/* dxclunix: dxcl's Wine builtin pair, the bridge from PE code to the host's libOpenCL.so.1.
 * What the PE half (pe/, mingw) and the Unix half (so/, the host compiler) agree on: the Unix
 * calls and their parameters (docs/proxy.md, "The Unix side"). Plain C types only: both
 * compilers read this file.
 *
 * The rules, Wine's for its own Unix libraries:
 *   - one parameter struct per Unix call, of fixed-width fields only: a pointer or a handle
 *     travels as a uint64_t, 8-aligned on every compiler (dxcl_u64, core/twin.h), so that a
 *     32-bit PE half fills the same structs (an i386 Unix half under Wine's old WoW64 reads
 *     them as they are; a 64-bit one under the new WoW64 would too: docs/proxy.md);
 *   - a function is named by its Unix call's code, an index into tables the Unix half owns
 *     (its host addresses); no address of a function crosses from the PE half, and a call of
 *     a function the host lacks answers that it is missing;
 *   - host resources (file descriptors) are the Unix half's, named by handles it issued
 *     (DXCLUNIX_CLOSE_FD, the fd properties of the imports);
 *   - the Unix half never calls PE code, and holds none of its locks across a call that can
 *     fault (a host function, or a read or write of the PE half's memory): Wine ends a Unix
 *     call that faults with the fault's status, and a lock held then would stay held. */
#ifndef DXCLUNIX_H
#define DXCLUNIX_H

#include "core/twin.h"

#include <stdint.h>

/* The number of arguments of a cl_api.h entry point, from its `args` list: 0 for (). */
#define DXCLUNIX_ARITY(args) DXCLUNIX_CAT(DXCLUNIX_ARITY_, DXCLUNIX_HAS_ARGS(args)) args
#define DXCLUNIX_ARITY_0() 0
#define DXCLUNIX_ARITY_1(...) DXCLUNIX_COUNT(__VA_ARGS__)
#define DXCLUNIX_COUNT(...)                                                                        \
    DXCLUNIX_COUNT_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define DXCLUNIX_COUNT_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n,  \
                        ...)                                                                       \
    n
/* 1 when `args` names an argument, 0 for (): an empty first name pastes into
 * DXCLUNIX_NONE_, which supplies the 0. */
#define DXCLUNIX_HAS_ARGS(args) DXCLUNIX_SECOND(DXCLUNIX_PROBE(DXCLUNIX_FIRST args))
#define DXCLUNIX_PROBE(first) DXCLUNIX_PROBE_(first)
#define DXCLUNIX_PROBE_(first) DXCLUNIX_NONE_##first
#define DXCLUNIX_NONE_ ~, 0
#define DXCLUNIX_FIRST(...) DXCLUNIX_FIRST_(__VA_ARGS__, ~)
#define DXCLUNIX_FIRST_(a, ...) a
#define DXCLUNIX_SECOND(...) DXCLUNIX_SECOND_(__VA_ARGS__, 1, ~)
#define DXCLUNIX_SECOND_(a, b, ...) b
#define DXCLUNIX_CAT(a, b) DXCLUNIX_CAT_(a, b)
#define DXCLUNIX_CAT_(a, b) a##b

/* m(name) for each name of an `args` list. */
#define DXCLUNIX_FOR_EACH(m, args)                                                                 \
    DXCLUNIX_APPLY(DXCLUNIX_CAT(DXCLUNIX_EACH_, DXCLUNIX_ARITY(args)), m, DXCLUNIX_UNPAREN args)
#define DXCLUNIX_UNPAREN(...) __VA_ARGS__
#define DXCLUNIX_APPLY(macro, ...) macro(__VA_ARGS__)
#define DXCLUNIX_EACH_0(m, ...)
#define DXCLUNIX_EACH_1(m, a) m(a)
#define DXCLUNIX_EACH_2(m, a, ...) m(a) DXCLUNIX_EACH_1(m, __VA_ARGS__)
#define DXCLUNIX_EACH_3(m, a, ...) m(a) DXCLUNIX_EACH_2(m, __VA_ARGS__)
#define DXCLUNIX_EACH_4(m, a, ...) m(a) DXCLUNIX_EACH_3(m, __VA_ARGS__)
#define DXCLUNIX_EACH_5(m, a, ...) m(a) DXCLUNIX_EACH_4(m, __VA_ARGS__)
#define DXCLUNIX_EACH_6(m, a, ...) m(a) DXCLUNIX_EACH_5(m, __VA_ARGS__)
#define DXCLUNIX_EACH_7(m, a, ...) m(a) DXCLUNIX_EACH_6(m, __VA_ARGS__)
#define DXCLUNIX_EACH_8(m, a, ...) m(a) DXCLUNIX_EACH_7(m, __VA_ARGS__)
#define DXCLUNIX_EACH_9(m, a, ...) m(a) DXCLUNIX_EACH_8(m, __VA_ARGS__)
#define DXCLUNIX_EACH_10(m, a, ...) m(a) DXCLUNIX_EACH_9(m, __VA_ARGS__)
#define DXCLUNIX_EACH_11(m, a, ...) m(a) DXCLUNIX_EACH_10(m, __VA_ARGS__)
#define DXCLUNIX_EACH_12(m, a, ...) m(a) DXCLUNIX_EACH_11(m, __VA_ARGS__)
#define DXCLUNIX_EACH_13(m, a, ...) m(a) DXCLUNIX_EACH_12(m, __VA_ARGS__)
#define DXCLUNIX_EACH_14(m, a, ...) m(a) DXCLUNIX_EACH_13(m, __VA_ARGS__)
#define DXCLUNIX_EACH_15(m, a, ...) m(a) DXCLUNIX_EACH_14(m, __VA_ARGS__)
#define DXCLUNIX_EACH_16(m, a, ...) m(a) DXCLUNIX_EACH_15(m, __VA_ARGS__)

/* Every entry point of core/cl_api.h, in its order. */
enum dxclunix_api {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCLUNIX_API_##name,
#include "core/cl_api.h"
#undef DXCL_API_FN
    DXCLUNIX_API_COUNT
};

/* Every extension function of dxclunix_ext.h, in its order. */
enum dxclunix_ext {
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault) DXCLUNIX_EXT_##name,
#include "dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN
    DXCLUNIX_EXT_COUNT
};

/* The codes of __wine_unix_call_funcs[], in that order. The calls of dxcl's Vulkan layer come
 * last among them: DXCLUNIX_LAYER_CODE(call) for each enum dxcl_layer_call (below). After them
 * come the calls of the OpenCL functions: DXCLUNIX_API_CODE(i) calls entry point i of cl_api.h
 * with union dxclunix_<name>_params, DXCLUNIX_EXT_CODE(j) extension function j of
 * dxclunix_ext.h with union dxclunix_ext_<name>_params. */
enum dxclunix_code {
    DXCLUNIX_OPEN,         /* struct dxclunix_open */
    DXCLUNIX_QUERY,        /* struct dxclunix_query */
    DXCLUNIX_EXTENSION,    /* struct dxclunix_extension */
    DXCLUNIX_SIGNALS,      /* struct dxclunix_signals */
    DXCLUNIX_CLOSE_FD,     /* struct dxclunix_fd */
    DXCLUNIX_WATCH,        /* struct dxclunix_watch */
    DXCLUNIX_WAIT_WATCHED, /* struct dxclunix_watched */
    DXCLUNIX_WAKE_WATCHER, /* no parameters (NULL) */
    DXCLUNIX_HOST_ICDS,    /* struct dxclunix_host_icds */
    DXCLUNIX_TEST,         /* struct dxclunix_test: test-only, off unless DXCL_UNIX_TEST_HOOKS=1 */
    DXCLUNIX_LAYER,        /* the first of the layer's calls: struct dxclunix_layer_<name> each */
    DXCLUNIX_CODE_COUNT = DXCLUNIX_LAYER + DXCL_LAYER_CALL_COUNT
};
#define DXCLUNIX_LAYER_CODE(call) (DXCLUNIX_LAYER + (call))
#define DXCLUNIX_API_CODE(index) (DXCLUNIX_CODE_COUNT + (index))
#define DXCLUNIX_EXT_CODE(index) (DXCLUNIX_CODE_COUNT + DXCLUNIX_API_COUNT + (index))

/* A call's status. The calls of fixed code answer 0 or an NTSTATUS error below. The calls of
 * OpenCL functions: an INT function's status is its cl_int (CL_INVALID_OPERATION where the
 * host lacks it); the others answer 0 with their result in the params' `result`, or
 * DXCLUNIX_MISSING where the host lacks the function (or the pair refuses it). Any status
 * below DXCLUNIX_FAULTED is none a host function returns (OpenCL's errors are small negative
 * numbers) but an NTSTATUS error: Wine's for a fault in the Unix call, or one of these, for
 * parameters the Unix half refused before calling anything. */
#define DXCLUNIX_FAULTED (-0x10000000)
#define DXCLUNIX_MISSING 1
#define DXCLUNIX_STATUS_INVALID_HANDLE ((int32_t)0xC0000008)    /* not a handle it issued */
#define DXCLUNIX_STATUS_INVALID_PARAMETER ((int32_t)0xC000000D) /* NULL, a count out of range */
#define DXCLUNIX_STATUS_NOT_SUPPORTED ((int32_t)0xC00000BB)     /* test hooks off */

/* Loads the host library once: status 0, or -1 with `error` set. `path` receives the file
 * the host's OpenCL functions come from. */
struct dxclunix_open {
    int32_t status;
    char path[512];
    char error[256];
};

/* What the pair does with each entry point of cl_api.h. `count` must be DXCLUNIX_API_COUNT
 * (both halves are built from one cl_api.h). */
enum dxclunix_state {
    DXCLUNIX_ABSENT,  /* the host lacks it */
    DXCLUNIX_PRESENT, /* the host has it: its call passes to the host */
    DXCLUNIX_REFUSED, /* the host has it, the pair refuses it (it would have the host call PE
                       * code, or hand out a host address) */
};
struct dxclunix_query {
    uint32_t count;
    uint8_t state[DXCLUNIX_API_COUNT]; /* enum dxclunix_state */
};

/* Looks an extension function up by name, on `platform` where with_platform (else as
 * clGetExtensionFunctionAddress): `index` receives its index in dxclunix_ext.h, or -1 with
 * `why` set (unlisted, absent, or another platform's function bound to that index already).
 * `name` must end within its array. */
struct dxclunix_extension {
    dxcl_u64 platform;
    uint32_t with_platform;
    int32_t index;
    char name[128];
    char why[128];
};

/* A call of cl_api.h's entry point <name>: its arguments, each widened to a uint64_t under
 * its own name (a pointer or a size_t zero-extended, a 32-bit integer as the PE half's compiler
 * converts it: the Unix half reads only the bytes of the parameter's own type back), then
 * `result` (unused by an INT function: its status is its result); `slot` is the same, as an
 * array. Only 64-bit fields: the i686 and the x86-64 PE halves fill the same union. */
#define DXCLUNIX_FIELD(name) uint64_t name;
#define DXCLUNIX_PARAMS(type, args)                                                                \
    type                                                                                           \
    {                                                                                              \
        struct {                                                                                   \
            DXCLUNIX_FOR_EACH(DXCLUNIX_FIELD, args)                                                \
            uint64_t result;                                                                       \
        };                                                                                         \
        uint64_t slot[DXCLUNIX_ARITY(args) + 1];                                                   \
    };
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCLUNIX_PARAMS(union dxclunix_##name##_params, args)
#include "core/cl_api.h"
#undef DXCL_API_FN

/* A call of extension function <name>: the same, from dxclunix_ext.h's list. */
#define DXCLUNIX_EXT_FN(kind, ret, name, params, args, fault)                                      \
    DXCLUNIX_PARAMS(union dxclunix_ext_##name##_params, args)
#include "dxclunix_ext.h"
#undef DXCLUNIX_EXT_FN

/* The GPU path's calls of dxcl's host Vulkan layer (core/twin.h, enum dxcl_layer_call), one
 * Unix call each: DXCLUNIX_LAYER_CODE(call) with struct dxclunix_layer_<name>, the call's struct
 * of core/twin.h (fixed-width fields only) and the answer. The Unix half copies the struct in,
 * checks it (a hand-over's count), calls the layer's export of the loaded layer with its own
 * copy (never PE memory, so that no fault comes with the layer's locks held) and copies it back;
 * RELEASE_WHEN is the Unix half's own (a host event callback of its own tells the layer). The
 * call's status is 0 with `result` the layer's answer (0, or the error its struct's `error`
 * says), or -1 with layer_missing where the layer is not loaded; STATUS_INVALID_PARAMETER for
 * parameters it refused. The fds a call hands out (TWIN_CREATE's twin.fd, TWIN_EXPORT's and
 * TWIN_READY_FD's fd) are fd handles (below), -1 where there is none. */
#define DXCLUNIX_LAYER_CALLS                                                                       \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_SHARE, share, struct dxcl_layer_share)                            \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_TWIN_CREATE, twin_create, struct dxcl_layer_twin_create)          \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_TWIN_EXPORT, twin_export, struct dxcl_layer_twin_fd)              \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_TWIN_READY_FD, twin_ready_fd, struct dxcl_layer_twin_fd)          \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_TWIN_CHECK, twin_check, struct dxcl_layer_twin)                   \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_TWIN_DESTROY, twin_destroy, struct dxcl_layer_twin)               \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_HAND_OVER, hand_over, struct dxcl_hand_over)                      \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_RELEASED, released, struct dxcl_layer_released)                   \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_RELEASE_STATE, release_state, struct dxcl_layer_release_state)    \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_WAIT, wait, struct dxcl_layer_wait)                               \
    DXCLUNIX_LAYER_FN(DXCL_LAYER_RELEASE_WHEN, release_when, struct dxcl_layer_release_when)
#define DXCLUNIX_LAYER_FN(id, name, type)                                                          \
    struct dxclunix_layer_##name {                                                                 \
        int32_t result;         /* out */                                                          \
        uint32_t layer_missing; /* out */                                                          \
        type call;                                                                                 \
    };
DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN
/* The list has every call of enum dxcl_layer_call, each in its place. */
enum dxclunix_layer_position {
#define DXCLUNIX_LAYER_FN(id, name, type) DXCLUNIX_LAYER_AT_##name,
    DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN
        DXCLUNIX_LAYER_LISTED
};
#define DXCLUNIX_LAYER_FN(id, name, type)                                                          \
    _Static_assert((int)DXCLUNIX_LAYER_AT_##name == (int)(id), #id " in its place");
DXCLUNIX_LAYER_CALLS
#undef DXCLUNIX_LAYER_FN
_Static_assert((int)DXCLUNIX_LAYER_LISTED == (int)DXCL_LAYER_CALL_COUNT, "every layer call listed");

/* Wine's signal handlers that the Unix half put back after a driver's LLVM took them
 * (docs/proxy.md, "Signal handlers"): how many so far, and the library that had taken them. */
struct dxclunix_signals {
    uint32_t count;
    char owner[256];
};

/* An fd handle: a host file descriptor that the Unix half holds and named for the PE half
 * (a twin's memory or its `ready` semaphore, from the layer's calls). Positive, never a small
 * number: DXCLUNIX_FD_HANDLE_TAG is set in every one. The driver's imports take it where the spec
 * takes an fd (the value of CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR or _DMA_BUF_KHR in
 * clCreateBufferWithProperties and clCreateImageWithProperties, of
 * CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR or _SYNC_FD_KHR in clCreateSemaphoreWithPropertiesKHR): the
 * Unix half puts the fd in its place, and any other value there is refused with
 * CL_INVALID_PROPERTY. A successful import owns the fd (the handle is spent); a refused one leaves
 * it issued, for DXCLUNIX_CLOSE_FD. */
#define DXCLUNIX_FD_HANDLE_TAG 0x40000000
struct dxclunix_fd {
    int32_t handle; /* DXCLUNIX_CLOSE_FD: closes it; STATUS_INVALID_HANDLE unless issued */
};

/* Event watches (docs/design.md, "The waiter"): the Unix half has the host driver call it
 * back when `event` completes (a host callback of its own, which never enters PE code);
 * `status` is the host's clSetEventCallback result. DXCLUNIX_WAIT_WATCHED blocks until a
 * watched event completed, DXCLUNIX_WAKE_WATCHER was called, or `timeout_ms` passed
 * (DXCLUNIX_WAIT_FOREVER: none), and gives the events that completed since the last wait
 * (at most DXCLUNIX_WATCHED_MAX; the rest on the next), each released by the Unix half. */
struct dxclunix_watch {
    dxcl_u64 event;
    int32_t status;
};
#define DXCLUNIX_WATCHED_MAX 64
#define DXCLUNIX_WAIT_FOREVER 0xFFFFFFFFu
struct dxclunix_watched {
    uint32_t timeout_ms;
    uint32_t count;
    uint32_t woken; /* DXCLUNIX_WAKE_WATCHER was called */
    dxcl_u64 events[DXCLUNIX_WATCHED_MAX];
};

/* Where the Unix half looked for the host's OpenCL drivers and what it found, one line
 * (so/host_icds.h; the host library is opened first, if it was not). */
#define DXCLUNIX_HOST_ICDS_SIZE 1536
struct dxclunix_host_icds {
    char report[DXCLUNIX_HOST_ICDS_SIZE];
};

/* Test hooks (tests/test_unix_interface.c), answered only when the host environment has
 * DXCL_UNIX_TEST_HOOKS=1 (else STATUS_NOT_SUPPORTED): an fd handle of a new fd of /dev/null,
 * which host fds (0 to 1023) are open, and which of the Unix half's locks are held now. */
enum dxclunix_test_op { DXCLUNIX_TEST_ISSUE_FD, DXCLUNIX_TEST_OPEN_FDS, DXCLUNIX_TEST_LOCKS };
struct dxclunix_test {
    uint32_t op;
    int32_t handle, fd;  /* ISSUE_FD: the handle, and the host fd behind it */
    uint32_t locks_held; /* LOCKS: a bit per lock that a try to take found held */
    uint8_t open_fds[128];
};

#endif
