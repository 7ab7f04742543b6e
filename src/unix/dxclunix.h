/* dxclunix: dxcl's Wine builtin pair, the bridge from PE code to the host's libOpenCL.so.1.
 * What the PE half (pe/, mingw) and the Unix half (so/, the host compiler) agree on: the
 * Unix calls and their parameters. Plain C types only: both compilers read this file. */
#ifndef DXCLUNIX_H
#define DXCLUNIX_H

#include "core/twin.h"

#include <stdint.h>

/* The most arguments a forwarded function takes. The Unix half calls every host function with
 * this many integer arguments: the callee reads the ones it has (OpenCL functions take no
 * floating-point or struct arguments by value). */
#define DXCLUNIX_MAX_ARGS 16

/* The codes of __wine_unix_call_funcs[], in that order. After them, code
 * DXCLUNIX_CODE_COUNT + i is the direct call of entry point i of core/cl_api.h (in its order):
 * its parameters are the call's arguments, each widened to a uint64_t, then one slot that
 * receives the host function's result; for an entry point of kind INT the result, a cl_int,
 * is the call's status instead (as Wine's opencl.dll returns it). */
enum dxclunix_code {
    DXCLUNIX_OPEN,     /* struct dxclunix_open */
    DXCLUNIX_LOOKUP,   /* struct dxclunix_lookup */
    DXCLUNIX_CALL,     /* struct dxclunix_call */
    DXCLUNIX_LAYER,    /* struct dxclunix_layer: the GPU path's calls of the Vulkan layer */
    DXCLUNIX_SIGNALS,  /* struct dxclunix_signals */
    DXCLUNIX_CLOSE_FD, /* int32_t: a host fd that a failed import left with dxcl */
    DXCLUNIX_CODE_COUNT
};

/* A status below this is none a host function returns (OpenCL's error codes are small negative
 * numbers) but Wine's for a fault in the Unix call (NTSTATUS 0x8xxxxxxx or 0xCxxxxxxx). */
#define DXCLUNIX_FAULTED (-0x10000000)

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

/* Loads the host library once: status 0, or -1 with `error` set. `path` receives the file
 * the host's OpenCL functions come from. */
struct dxclunix_open {
    int32_t status;
    char path[512];
    char error[256];
};

/* The host's address of each name (0 where it has none). */
struct dxclunix_lookup {
    const char *const *names;
    uint64_t *addresses;
    uint32_t count;
};

/* Calls host function `fn` with the first `count` of `args` (DXCLUNIX_MAX_ARGS of them can
 * be read; a count up to 6 passes in registers only); `ret` is its rax. */
struct dxclunix_call {
    uint64_t fn;
    const uint64_t *args;
    uint64_t count;
    uint64_t ret;
};

/* One of the GPU path's calls of dxcl's Vulkan layer (core/twin.h, enum dxcl_layer_call) with
 * its struct. The call's status is 0; result is the layer's answer (its struct says more), or -1
 * with layer_missing where the layer is not loaded, or -1 for a call that does not exist. */
struct dxclunix_layer {
    uint32_t call;   /* enum dxcl_layer_call */
    int32_t result;  /* out */
    uint64_t params; /* the address of the call's struct */
    uint32_t layer_missing;
    uint32_t unused;
};

/* Wine's signal handlers that the Unix half put back after a driver's LLVM took them
 * (docs/proxy.md, "Signal handlers"): how many so far, and the library that had taken them. */
struct dxclunix_signals {
    uint32_t count;
    char owner[256];
};

/* ---- Late calls, apart from the rest: code DXCLUNIX_CODE_COUNT + the number of entry points
 * of core/cl_api.h + enum dxclunix_late_code (src/unix/so/host_icds.h) ---- */
enum dxclunix_late_code {
    DXCLUNIX_HOST_ICDS, /* struct dxclunix_host_icds */
    DXCLUNIX_LATE_COUNT
};

/* Where the Unix side looked for the host's OpenCL drivers and what it found, one line (the
 * host library is opened first, if it was not). */
#define DXCLUNIX_HOST_ICDS_SIZE 1536
struct dxclunix_host_icds {
    char report[DXCLUNIX_HOST_ICDS_SIZE];
};

#endif
