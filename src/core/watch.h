/* Event watches (src/core/watch.c; docs/design.md, "The waiter"): how the waiter sleeps until
 * an event it waits for completes, instead of polling for it. */
#ifndef DXCL_WATCH_H
#define DXCL_WATCH_H

#include "core/common.h"

/* The waiter's next round comes as soon as `event` completes (or fails). True when that is
 * arranged, now or by an earlier watch of the same event; false when it cannot be (the waiter
 * then finds it by its rounds alone). The event is retained until it completed. Calls the
 * driver: no dxcl lock may be held. */
bool dxcl_watch_event(cl_event event);

/* dxcl_waiter_poll for a poller that waits for `event`: a round comes as soon as it completes,
 * not at the backoff's next step. */
bool dxcl_waiter_poll_event(bool (*poll)(void *arg), void *arg, cl_event event);

/* Waits for `event` (the driver's own work, never the program's) as clWaitForEvents does. With
 * DXCL_RELEASE_WAIT=sleep the calling thread sleeps until the event's watch fires instead of
 * waiting in the driver (whose wait may spin: NVIDIA's), where a watch can be set; with
 * DXCL_RELEASE_WAIT=poll it looks at the event's status every 50 microseconds and sleeps in
 * between (no callback to wait for: NVIDIA's come late). Calls the driver: no dxcl lock may be
 * held. */
cl_int dxcl_watch_wait(cl_event event);

/* How dxcl_watch_wait waits, in words, for dxclGetInfo's data path. */
const char *dxcl_watch_wait_text(void);

/* How the watches reach the driver, in words, for the log and the tests (DXCL_INFO_WATCH_ROUTE):
 * "not used yet", "the Unix side's event watches", "the driver's event callbacks", "threads
 * waiting in clWaitForEvents", "one thread looking at the events" or "none". */
const char *dxcl_watch_route(void);

#endif
