/* Event and destructor callbacks delivered by dxcl when the driver cannot deliver them (Wine's
 * opencl.dll answers CL_INVALID_OPERATION or lacks the entry point). One waiter thread watches
 * every pending callback; docs/design.md describes it. */
#ifndef DXCL_CALLBACKS_H
#define DXCL_CALLBACKS_H

#include "core/common.h"

/* Called after the program's successful clRelease of a cl_mem, cl_context or cl_command_queue:
 * an object with emulated destructor callbacks may have lost its last reference. Cheap when no
 * object has such callbacks. */
void dxcl_callbacks_released(const void *handle);

#endif
