/* dxcl's waiter thread (src/core/waiter.c; docs/design.md, "Callbacks"): work that waits on the
 * driver without blocking the program's calls, run on one thread started on first use, with no
 * dxcl lock held. The copy engine's pending releases and teardowns poll there; compat/ delivers
 * the callbacks the driver drops from there. */
#ifndef DXCL_WAITER_H
#define DXCL_WAITER_H

#include "core/common.h"

/* Starts the waiter thread if it is not running; false when it cannot run. */
bool dxcl_waiter_start(void);
/* Calls poll(arg) from the waiter thread, round after round (from 1 ms to at most a second
 * apart, sooner after new work; with no dxcl lock held), until it returns true. False when the
 * waiter cannot run (out of memory). */
bool dxcl_waiter_poll(bool (*poll)(void *arg), void *arg);
/* New work for the waiter: the next round comes at once. Work added before the call is seen by
 * that round. */
void dxcl_waiter_wake(void);

/* The process is exiting (DLL_PROCESS_DETACH with a non-NULL reserved): the waiter starts no
 * driver call from now on. Returns at once: nothing waits in DllMain. */
void dxcl_waiter_process_exit(void);

/* A layer's standing work on the waiter (compat/callbacks.c: the callbacks it delivers), run
 * every round: round() does what is ready and returns true on progress; it sets *max_wait_ms
 * to how long the next round may wait at most, or 0 when nothing of it is pending (it then
 * calls dxcl_waiter_wake when new work comes). A source that waits for an event names it with
 * dxcl_watch_event (core/watch.h), so that the round comes when it completes. Registered at DLL
 * load (DXCL_WAITER_SOURCE). */
struct dxcl_waiter_source {
    bool (*round)(DWORD *max_wait_ms);
    struct dxcl_waiter_source *next; /* the waiter's */
};
void dxcl_waiter_add_source(struct dxcl_waiter_source *source);

#define DXCL_WAITER_SOURCE(var)                                                                    \
    __attribute__((constructor)) static void dxcl_waiter_source_##var(void)                        \
    {                                                                                              \
        dxcl_waiter_add_source(&var);                                                              \
    }

#endif
