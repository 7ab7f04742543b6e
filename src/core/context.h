/* Context records: contexts created with an interop device or CL_CONTEXT_INTEROP_USER_SYNC. */
#ifndef DXCL_CONTEXT_H
#define DXCL_CONTEXT_H

#include "core/backend.h"
#include "core/table.h"

struct dxcl_context_part;

struct dxcl_context {
    struct dxcl_mirrored mirror; /* the program's references: its clRetain/clRelease calls */
    cl_context handle;
    /* Holders of the record: the table while the program holds the context, and dxcl's
     * records and calls that need it (shared objects, queues, calls in flight). The driver's
     * context lives at least as long: each holder stands for a driver object that holds it. */
    LONG record_refs;
    bool user_sync;                     /* CL_CONTEXT_INTEROP_USER_SYNC is CL_TRUE */
    cl_context_properties *properties;  /* the program's list, as given (NULL if none) */
    size_t properties_size;             /* in bytes, including the terminating 0 */
    const struct dxcl_backend *backend; /* the interop API named, or NULL */
    cl_context_properties device_property;
    void *device; /* the backend's device object, referenced */
    /* dxcl may use the device from its own thread (backend->prepare_device). */
    bool any_thread;
    void *backend_data; /* backend per-context state */
    /* The GPU path: the Vulkan layer's id of the Vulkan device of the context's Direct3D device
     * once sharing started on it (the backend's context_ready), else 0. */
    uint64_t gpu_device;
    /* The upper layers' state of the context (struct dxcl_context_part), newest first. */
    struct dxcl_context_part *volatile parts;
};

/* State an upper layer keeps per context (the copy engine's, engine/object.h), made on its first
 * use and freed with the record: the layer's struct begins with this header. Core never looks
 * past it. */
struct dxcl_context_part_kind {
    void (*free)(struct dxcl_context_part *part); /* releases what the part holds, and the part */
};
struct dxcl_context_part {
    const struct dxcl_context_part_kind *kind;
    struct dxcl_context_part *next; /* the record's list */
};
/* The part of `kind` of `ctx`, or NULL when it has none yet. */
struct dxcl_context_part *dxcl_context_part(struct dxcl_context *ctx,
                                            const struct dxcl_context_part_kind *kind);
/* Gives `part` to `ctx` unless a part of its kind came first: the part of its kind `ctx` has
 * now (`part`, or the earlier one: the caller then frees its own). */
struct dxcl_context_part *dxcl_context_add_part(struct dxcl_context *ctx,
                                                struct dxcl_context_part *part);

/* Finds the record of `handle` for `backend` and takes a record reference.
 * CL_INVALID_CONTEXT when the handle is not a context created with that API's device. */
cl_int dxcl_context_get(cl_context handle, const struct dxcl_backend *backend,
                        struct dxcl_context **ctx);
/* The record of `handle` with a record reference, or NULL when dxcl keeps none. */
struct dxcl_context *dxcl_context_find(cl_context handle);
/* Command queues keep their context's record (and so its interop device) alive, as they keep
 * the driver's context alive: called for every queue created. */
void dxcl_queue_created(cl_command_queue queue, cl_context context);
/* The record of the context of `queue` (found through the queue's record, so also after the
 * program released the context), with a record reference; NULL when dxcl keeps none. */
struct dxcl_context *dxcl_queue_context(cl_command_queue queue);
/* The queues of `context` the program holds, each held (dxcl_queue_put) so that it stays
 * valid in the driver while dxcl uses it; NULL (and *count 0) when there is none. The caller
 * frees the array. */
struct dxcl_queue;
struct dxcl_queue **dxcl_context_queues(cl_context context, size_t *count);
cl_command_queue dxcl_queue_handle(const struct dxcl_queue *queue);
void dxcl_queue_put(struct dxcl_queue *queue);
/* The record of `queue`, held (dxcl_queue_put): the driver's queue stays valid while held,
 * whatever the program releases meanwhile. NULL when `queue` is no command queue the program
 * holds: dxcl saw every queue made (clCreateCommandQueue*), so anything else (a memory
 * object, a context, garbage) is no queue; the value itself is never read. */
struct dxcl_queue *dxcl_queue_hold(cl_command_queue queue);
/* The platform of `queue`'s device. NULL for a value that is no queue the program holds
 * (dxcl_queue_hold), never read. */
cl_platform_id dxcl_platform_of_queue(cl_command_queue queue);
/* Markers behind everything queued so far on each queue of `context` the program holds (each
 * flushed), plus `extra` free slots at the end: a malloc'ed array of *count events, or NULL
 * (then *count is 0). The caller releases the events and frees the array. */
cl_event *dxcl_fence_context_queues(cl_context context, size_t extra, size_t *count);
/* How many queues of `context` the program holds. */
size_t dxcl_context_queue_count(cl_context context);
/* The queue runs its commands in order: a command needs no barrier to follow the one before. */
bool dxcl_queue_in_order(cl_command_queue queue);
/* Takes/drops a record reference; the last one (the program's references are gone: the record
 * has left the table) frees the record and releases the device. */
void dxcl_context_ref(struct dxcl_context *ctx);
void dxcl_context_unref(struct dxcl_context *ctx);

#endif
