/* Profiling times of acquire and release events on every driver (docs/design.md, "Events"):
 * the event reports the times of the commands the call queued (core/event.h keeps them). A call
 * that moves no data queues one command whose times every driver reports, and so does a
 * release after its downloads: a download that moves nothing (a zero-copy map) may be a marker,
 * which some drivers time as 0. */
#ifndef DXCL_TIMING_H
#define DXCL_TIMING_H

#include "core/common.h"

/* The program asked for the call's event (`event` not NULL) on a queue with
 * CL_QUEUE_PROFILING_ENABLE: the event needs its commands' times. */
bool dxcl_timing_wanted(cl_command_queue queue, const cl_event *event);

/* A command with times after `wait_list` (a stand-in for a transfer, or a release's end): a 4-byte
 * clEnqueueFillBuffer into a buffer of its own (released at once: the driver keeps it until the
 * fill ran). Drivers report times for such a command where a marker or barrier may report 0. */
cl_int dxcl_enqueue_stamp(cl_context context, cl_command_queue queue, cl_uint num_events,
                          const cl_event *wait_list, cl_event *stamp);

#endif
