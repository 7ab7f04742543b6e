/* What the files of dxclunix.so, the Unix half of dxcl's builtin pair, share: Wine's types for
 * a Unix call, the fd handles (fd_handles.c), the event watches (watches.c) and Wine's signal
 * handlers (signals.c). */
#ifndef DXCLUNIX_SO_H
#define DXCLUNIX_SO_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include "../dxclunix.h"

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "wine_unixlib.h"

/* host_api.c: the host's function of each entry point of cl_api.h (0 where it has none),
 * whether the pair hands it out or not (the watches use clSetEventCallback, which it refuses);
 * filled as the library opens. */
extern uintptr_t dxclunix_host_functions[DXCLUNIX_API_COUNT];
uintptr_t dxclunix_host_function(enum dxclunix_api index);

/* ---- fd handles (fd_handles.c; dxclunix.h, "An fd handle") ---- */

/* A handle for `fd`, which the Unix half owns from now on; -1 (fd still the caller's) when
 * the table is full. */
int32_t dxclunix_issue_fd(int fd);
/* The fd of an issued handle, taken out of the table (the caller owns it now); -1 when
 * `handle` is not an issued one. */
int dxclunix_take_fd(int32_t handle);
NTSTATUS dxclunix_close_fd(void *args); /* DXCLUNIX_CLOSE_FD */

/* An import's properties with the fds in place of the handles. */
#define DXCLUNIX_IMPORT_MAX_PROPERTIES 128
#define DXCLUNIX_IMPORT_MAX_FDS 8
struct dxclunix_import {
    uint64_t properties[DXCLUNIX_IMPORT_MAX_PROPERTIES];
    int32_t handles[DXCLUNIX_IMPORT_MAX_FDS]; /* lent to the import */
    unsigned handle_count;
};
enum dxclunix_import_result {
    DXCLUNIX_IMPORT_AS_IS,   /* no fd property: the program's list goes to the host */
    DXCLUNIX_IMPORT_FDS,     /* import->properties is the list to pass */
    DXCLUNIX_IMPORT_REFUSED, /* a value that is no issued handle, or a list too long */
};
/* Reads `properties` (a 0-terminated property list of the PE half's; it may fault: nothing is
 * lent before it is read whole) and lends the handles it names. */
enum dxclunix_import_result dxclunix_import_properties(const uint64_t *properties,
                                                       struct dxclunix_import *import);
/* After the host's create: a successful import spends its handles (the driver owns the fds),
 * a refused one gives them back, issued. */
void dxclunix_import_done(struct dxclunix_import *import, bool imported);

/* ---- event watches (watches.c; dxclunix.h, "Event watches") ---- */
NTSTATUS dxclunix_watch(void *args);        /* DXCLUNIX_WATCH */
NTSTATUS dxclunix_wait_watched(void *args); /* DXCLUNIX_WAIT_WATCHED */
NTSTATUS dxclunix_wake_watcher(void *args); /* DXCLUNIX_WAKE_WATCHER */

/* ---- Wine's signal handlers (signals.c; docs/proxy.md, "Signal handlers") ---- */
void dxclunix_save_wine_handlers(void);     /* before the host library loads */
void dxclunix_put_back_wine_handlers(void); /* after a call that may compile */
/* Around a call that may compile: the calling thread's alternate signal stack, noted (false once
 * nothing needs noting) and put back (LLVM's replaces it; Wine's i386 handler needs Wine's). */
bool dxclunix_save_signal_stack(stack_t *stack);
void dxclunix_put_back_signal_stack(const stack_t *stack);
NTSTATUS dxclunix_signals(void *args); /* DXCLUNIX_SIGNALS */

/* The test hook's look at the locks: true when a try to take it fails. */
bool dxclunix_fd_lock_busy(void);
bool dxclunix_watch_lock_busy(void);
bool dxclunix_signals_lock_busy(void);

#endif
