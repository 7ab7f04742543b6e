/* Callbacks the driver drops, delivered by dxcl from the waiter thread (src/compat/callbacks.c,
 * core/waiter.h; docs/design.md, "Callbacks"). */
#ifndef DXCL_CALLBACKS_H
#define DXCL_CALLBACKS_H

#include "core/common.h"

/* The driver references dxcl holds on `handle` for destructor callbacks it delivers: 1 while it
 * watches the object, 0 otherwise. */
cl_uint dxcl_callbacks_references(const void *handle);

#endif
