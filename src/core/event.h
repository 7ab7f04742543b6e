/* Events dxcl returns for acquire and release: driver events that report the spec's command
 * type through clGetEventInfo(CL_EVENT_COMMAND_TYPE), and on a profiling queue the times of the
 * whole call through clGetEventProfilingInfo. */
#ifndef DXCL_EVENT_H
#define DXCL_EVENT_H

#include "core/common.h"

/* The driver's events of the commands one call queued before its last (in queue order), kept
 * for the profiling times of the call's event. */
struct dxcl_event_commands;

/* Keeps the commands (a driver reference to each): `first`, queued before the transfer (NULL:
 * none), then the `count` commands of the transfer (their starts are the transfer's). NULL when
 * there is nothing to keep or no memory (the event then reports the driver's own times). */
struct dxcl_event_commands *dxcl_event_commands_keep(cl_event first, const cl_event *transfer,
                                                     cl_uint count);
/* Drops commands that no event took (NULL is fine). No dxcl lock held. */
void dxcl_event_commands_drop(struct dxcl_event_commands *commands);

/* Records `event` (one program reference) as a command of `type`; it takes `commands` (may be
 * NULL), also on failure. The event's profiling times are then the call's: queued and submitted
 * when its first command was, started with the first of the transfer, ended with the last
 * command (docs/design.md, "Events"). No dxcl lock held. */
cl_int dxcl_event_register(cl_event event, cl_command_type type,
                           struct dxcl_event_commands *commands);

/* How many user events of `context` the program has not set (intercepted clCreateUserEvent,
 * clSetUserEventStatus and clReleaseEvent): while there are any, commands of the context may
 * wait for the program. */
size_t dxcl_unset_user_events(cl_context context);

#endif
