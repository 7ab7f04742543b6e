/* Callbacks the driver drops, delivered by dxcl from one waiter thread (src/compat/callbacks.c;
 * docs/design.md, "Callbacks"), and that thread's service to the layers above: polling work
 * that waits on the driver without blocking the program's calls. */
#ifndef DXCL_CALLBACKS_H
#define DXCL_CALLBACKS_H

#include "core/common.h"

/* The driver references dxcl holds on `handle` for destructor callbacks it delivers: 1 while it
 * watches the object, 0 otherwise. */
cl_uint dxcl_callbacks_references(const void *handle);
/* Calls poll(arg) from the waiter thread, round after round (from 1 ms to at most a second
 * apart, sooner after a release; with no dxcl lock held), until it returns true. False when the
 * waiter cannot run (out of memory). */
bool dxcl_waiter_poll(bool (*poll)(void *arg), void *arg);
/* New work for the pollers: the next round comes at once. */
void dxcl_waiter_wake(void);
/* The process is exiting (DLL_PROCESS_DETACH with a non-NULL reserved): the waiter makes no
 * driver call from now on; returns once a round in progress has ended (at most half a second). */
void dxcl_waiter_process_exit(void);

#endif
