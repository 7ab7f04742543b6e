/* dxclunix: dxcl's Wine builtin pair, the bridge from PE code to the host's libOpenCL.so.1.
 * What the PE half (pe/, mingw) and the Unix half (so/, the host compiler) agree on: the
 * Unix calls and their parameters. Plain C types only: both compilers read this file. */
#ifndef DXCLUNIX_H
#define DXCLUNIX_H

#include <stdint.h>

/* The most arguments a forwarded function takes. The Unix half calls every host function with
 * this many integer arguments: the callee reads the ones it has (OpenCL functions take no
 * floating-point or struct arguments by value). */
#define DXCLUNIX_MAX_ARGS 16

/* The codes of __wine_unix_call_funcs[], in that order. */
enum dxclunix_code {
    DXCLUNIX_OPEN,   /* struct dxclunix_open */
    DXCLUNIX_LOOKUP, /* struct dxclunix_lookup */
    DXCLUNIX_CALL,   /* struct dxclunix_call */
    DXCLUNIX_CODE_COUNT
};

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

#endif
