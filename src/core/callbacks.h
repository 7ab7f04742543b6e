/* Event and destructor callbacks delivered by dxcl when the driver cannot deliver them (Wine's
 * opencl.dll answers CL_INVALID_OPERATION or lacks the entry point). One waiter thread watches
 * every pending callback; docs/design.md describes it. */
#ifndef DXCL_CALLBACKS_H
#define DXCL_CALLBACKS_H

#include "core/common.h"

/* Called after the program's successful clRetain/clRelease of a cl_mem or cl_context: keeps
 * dxcl's count of the program's references to objects that have emulated destructor
 * callbacks. Cheap when there are none. */
void dxcl_callbacks_retained(const void *handle);
void dxcl_callbacks_released(const void *handle);

#endif
