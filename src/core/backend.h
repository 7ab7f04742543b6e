/* What a sharing backend (D3D11, D3D10, DX9 media) provides to the core. The core does
 * validation, the acquire/release state machine, events, reference counts, the enqueue guard
 * and the copy engine; a backend only describes its API's objects and moves bytes between a
 * Direct3D resource and host memory. */
#ifndef DXCL_BACKEND_H
#define DXCL_BACKEND_H

#include "core/common.h"
#include "core/backing.h"
#include "core/lock.h"

struct dxcl_context;
struct dxcl_surface;
struct dxcl_memobj;

/* Host view of a locked surface (a mapped staging resource or a locked D3D9 surface). */
struct dxcl_mapping {
    void *data;
    size_t row_pitch;
    size_t slice_pitch;
};

/* The GPU path (docs/design.md, "The GPU path"): an object's OpenCL storage is a twin of its
 * subresource on the GPU, made by dxcl's Vulkan layer, which Direct3D copies into and out of on
 * the GPU. What the engine asks of the backend and what it answers. */
struct dxcl_device_storage {
    /* Asked: the test-only import (the twin host-visible and mapped, for a driver that imports
     * nothing), else the UUID of the OpenCL device that imports (the twin must be on it). */
    bool host_import;
    unsigned char device_uuid[16];
    /* Asked: the driver imports binary semaphores as opaque fds (cl_khr_external_semaphore). */
    bool sync_import;
    /* Asked: the object's access flags, which a kept import must have been made with. */
    cl_mem_flags flags;
    /* Answered: the driver's import of a pooled twin that its last object left (dxcl's only
     * reference; a handle the program released), made with `flags`: the object takes it, and
     * no fd is handed out. NULL: import `fd`. */
    cl_mem import;
    /* Answered: the twin's memory as an opaque fd for the driver's import (its ownership passes
     * to the import), named by the Unix side's fd handle (src/unix/dxclunix.h: the import's
     * property takes the handle), and the allocation's size; or, with host_import, -1 and the
     * mapping. */
    int fd;
    uint64_t size;
    struct dxcl_mapping host;
    /* Answered where sync_import was asked and the twin has one: its `ready` (core/twin.h)
     * imported into the context's driver, kept with the twin (a pooled twin brings it to its next
     * object); else NULL: the host waits for the hand-ins (struct dxcl_surface). */
    cl_semaphore_khr ready;
    /* Answered: the Vulkan layer's id of the device the twin is on (the hosts' waits name it). */
    uint64_t layer_device;
    /* Answered: the twin is the texture itself (a direct twin, core/twin.h): OpenCL imports the
     * texture's own memory, and no copy is made at a hand-over. */
    bool direct;
};

/* The family's error codes (the KHR, NV and Intel names of a family share the values). */
struct dxcl_backend_errors {
    cl_int invalid_device;
    cl_int invalid_resource;
    cl_int already_acquired;
    cl_int not_acquired;
};

struct dxcl_backend {
    const char *name; /* "D3D11": for logs */
    /* Context properties naming this API's device, 0-terminated. */
    const cl_context_properties *context_properties;
    /* clGetContextInfo token for PREFER_SHARED_RESOURCES, or 0. */
    cl_context_info prefer_shared_query;
    struct dxcl_backend_errors errors;

    /* The interface a context's device must have: the core QueryInterfaces the property's
     * value for it (the family's invalid-device error when it fails) and holds that
     * reference as ctx->device. */
    const IID *device_iid;
    /* Optional, instead of device_iid: checks `object` (the value of context property
     * `property`) and takes a reference on it into ctx->device. */
    cl_int (*open_device)(struct dxcl_context *ctx, cl_context_properties property, void *object);
    /* Optional: whether this family also works on `ctx`, a context another family's property
     * made (cl_nv_d3d9_sharing on CL_CONTEXT_D3D9_DEVICE_NV, the value Intel's DX9 family took
     * over). The memobjs it makes are still its own (their errors, copies and queries). */
    bool (*accepts_context)(const struct dxcl_context *ctx);
    /* Optional: undoes open_device (default: Release ctx->device). */
    void (*close_device)(struct dxcl_context *ctx);

    /* Copies the surface's resource into host-visible memory and maps it
     * (surface->mapping); called without dxcl_lock. */
    cl_int (*copy_to_host)(struct dxcl_surface *surface);
    /* Optional: maps the surface's host memory as copy_to_host does, without copying the
     * resource's contents in (a command will overwrite them: engine/lazy.h). */
    cl_int (*map_host)(struct dxcl_surface *surface);
    /* Unmaps; with write_back, copies the mapped contents back into the resource first.
     * CL_SUCCESS, or an error when the write back failed (the resource keeps its contents). */
    cl_int (*unmap_host)(struct dxcl_surface *surface, bool write_back);
    /* Optional: once ctx->device is open, makes the device safe for dxcl to use beside the
     * program's own threads (D3D10, D3D11: turns on its multithread protection) and tells
     * whether dxcl may use it from a thread of its own (the waiter: deferred releases and
     * teardowns). Absent or false: dxcl uses the device only inside the program's OpenCL
     * calls (docs/design.md, "Threads"). */
    bool (*prepare_device)(struct dxcl_context *ctx);
    /* Optional: the driver's context exists (ctx->handle): the GPU path starts sharing on the
     * device where it may serve (ctx->gpu_device). */
    void (*context_ready)(struct dxcl_context *ctx);
    /* Optional: enters the device's multithread protection (D3D10, D3D11), returning what
     * leave_device needs (NULL: nothing entered). Every sequence of dxcl's Direct3D calls runs
     * inside it, so that it is atomic with respect to the program's calls. The core enters it
     * before dxcl_device_lock: a program may hold the protection while it calls OpenCL, so
     * taking it inside dxcl_device_lock would invert the order. */
    void *(*enter_device)(struct dxcl_context *ctx);
    void (*leave_device)(void *protection);
    /* Frees the backend's per-surface state (the core releases the resource reference). */
    void (*destroy_surface)(struct dxcl_surface *surface);
    /* destroy_surface keeps the surface's kept driver object (struct dxcl_surface) with the
     * idle surface, and prepare hands it to the next object of that description
     * (struct dxcl_shared_desc): the copy engine keeps its driver objects only for such a
     * backend. */
    bool keeps_driver_objects;
    /* Optional: true, with its address, when the surface's host copy (the mapping copy_to_host
     * gives) stays at one address across locks, so the driver may use that memory as the
     * object's storage (zero-copy, engine/zerocopy.h). Called under dxcl_device_lock. */
    bool (*stable_host_copy)(struct dxcl_surface *surface, struct dxcl_mapping *mapping);
    /* Optional, the GPU path: at creation, replaces the surface's staging copy with a twin on the
     * GPU (its copies then stay on the GPU: copy_to_host copies the resource into the twin and
     * waits for the GPU, map_host waits only, unmap_host's write back copies out) and answers
     * `storage`. False (logged) when the surface keeps its staging copy. Called under
     * dxcl_device_enter. */
    bool (*device_storage)(struct dxcl_surface *surface, struct dxcl_device_storage *storage);
    /* Optional, the GPU path: sends the hand-overs that copy_to_host, map_host and unmap_host
     * asked for since the last call as one batch on Direct3D's queue (docs/design.md,
     * "Hand-overs"). Called inside dxcl_device_enter before its leave, by every caller of those
     * three (dxcl_device_hand_overs); CL_SUCCESS, or the error of a batch that failed. */
    cl_int (*end_hand_overs)(struct dxcl_context *ctx);
    /* Optional: how many idle surfaces the context keeps for reuse (dxclGetPooledStagingCount). */
    unsigned (*pooled_surfaces)(struct dxcl_context *ctx);
    /* Optional: the view of plane mem->plane inside a locked multi-planar surface. */
    void (*plane_mapping)(const struct dxcl_memobj *mem, const struct dxcl_mapping *surface,
                          struct dxcl_mapping *plane);

    /* clGetMemObjectInfo token returning the resource given at creation, and clGetImageInfo
     * token returning the subresource (0 when the family has none). */
    cl_mem_info resource_query;
    cl_image_info subresource_query;
    /* Optional: answers the family's other clGetMemObjectInfo (image == false) or
     * clGetImageInfo (image == true) tokens. `mem` is NULL when the object was not shared
     * through this backend. Returns DXCL_NOT_MY_QUERY when `param` is not one of them. */
    cl_int (*query)(const struct dxcl_memobj *mem, bool image, cl_uint param, size_t size,
                    void *value, size_t *size_ret);
};

#define DXCL_NOT_MY_QUERY 1

/* dxcl_device_lock (core/lock.h) serialises dxcl's own use of Direct3D (immediate contexts
 * are not thread-safe); taken around copy_to_host and unmap_host. */

/* dxcl's own Direct3D work on ctx's device: the program's protection, then dxcl_device_lock. */
static inline void *dxcl_device_enter(const struct dxcl_backend *backend, struct dxcl_context *ctx)
{
    void *protection = backend->enter_device ? backend->enter_device(ctx) : NULL;

    dxcl_lock_device();
    return protection;
}

/* The hand-overs the backend gathered inside dxcl_device_enter, sent (struct dxcl_backend's
 * end_hand_overs); CL_SUCCESS where it has none. */
static inline cl_int dxcl_device_hand_overs(const struct dxcl_backend *backend,
                                            struct dxcl_context *ctx)
{
    return backend->end_hand_overs ? backend->end_hand_overs(ctx) : CL_SUCCESS;
}

static inline void dxcl_device_leave(const struct dxcl_backend *backend, void *protection)
{
    dxcl_unlock_device();
    if (protection)
        backend->leave_device(protection);
}

void dxcl_register_backend(const struct dxcl_backend *backend);
size_t dxcl_backend_count(void);
const struct dxcl_backend *dxcl_backend_at(size_t index);
/* The backend whose context_properties contain `property`, or NULL. */
const struct dxcl_backend *dxcl_backend_for_property(cl_context_properties property);

#define DXCL_REGISTER_BACKEND(var)                                                                 \
    __attribute__((constructor)) static void dxcl_register_backend_##var(void)                     \
    {                                                                                              \
        dxcl_register_backend(&var);                                                               \
    }

#endif
