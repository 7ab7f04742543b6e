/* Context records: contexts created with an interop device or CL_CONTEXT_INTEROP_USER_SYNC. */
#ifndef DXCL_CONTEXT_H
#define DXCL_CONTEXT_H

#include "core/backend.h"

struct dxcl_context {
    cl_context handle;
    LONG app_refs;    /* the program's references: its clRetain/clRelease calls */
    LONG record_refs; /* dxcl records (memobjs, in-flight calls) that need this record */
    bool user_sync;   /* CL_CONTEXT_INTEROP_USER_SYNC is CL_TRUE */
    cl_context_properties *properties;  /* the program's list, as given (NULL if none) */
    size_t properties_size;             /* in bytes, including the terminating 0 */
    const struct dxcl_backend *backend; /* the interop API named, or NULL */
    cl_context_properties device_property;
    void *device;       /* the backend's device object, referenced */
    void *backend_data; /* backend per-context state */
};

/* Finds the record of `handle` for `backend` and takes a record reference.
 * CL_INVALID_CONTEXT when the handle is not a context created with that API's device. */
cl_int dxcl_context_get(cl_context handle, const struct dxcl_backend *backend,
                        struct dxcl_context **ctx);
/* The record of `handle` with a record reference, or NULL when dxcl keeps none. */
struct dxcl_context *dxcl_context_find(cl_context handle);
/* Command queues keep their context's record (and so its interop device) alive, as they keep
 * the driver's context alive: called for every queue created. */
void dxcl_queue_created(cl_command_queue queue, cl_context context);
/* The queue runs its commands in order: a command needs no barrier to follow the one before. */
bool dxcl_queue_in_order(cl_command_queue queue);
/* Takes/drops a record reference; the last one (with no program reference left) frees the
 * record and releases the device. */
void dxcl_context_ref(struct dxcl_context *ctx);
void dxcl_context_unref(struct dxcl_context *ctx);

#endif
