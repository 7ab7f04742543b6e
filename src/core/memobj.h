/* Shared memory objects: cl_mem handles created from Direct3D resources, the surfaces they
 * copy from and to, and their acquire state. */
#ifndef DXCL_MEMOBJ_H
#define DXCL_MEMOBJ_H

#include "core/context.h"
#include "core/table.h"

/* A driver object that outlived its shared object for the next one of the same description
 * (docs/design.md, "Kept driver objects"): dxcl's only reference, the access flags it was made
 * with, and the host memory it stands on (zero-copy's staging mapping; NULL for the driver's own
 * memory or an import). */
struct dxcl_kept_object {
    cl_mem handle;
    cl_mem_flags flags;
    void *host;
};

/* One Direct3D resource (or subresource) as the copy engine sees it. Several memobjs share a
 * surface when they are planes of one DX9 surface. */
struct dxcl_surface {
    const struct dxcl_backend *backend;
    struct dxcl_context *context;
    IUnknown *resource; /* referenced by the surface */
    UINT subresource;
    LONG refs;       /* memobjs using the surface; guarded by dxcl_lock */
    LONG host_users; /* acquired memobjs; the surface is mapped while > 0 */
    bool written;    /* a release copied data into the mapping */
    /* The GPU path's hand-overs (gpu/gpu_path.h). gpu_synced: OpenCL waits for Direct3D's
     * hand-ins on the GPU (the twin's `ready`, imported); ready_signalled: the backend's last
     * hand-in signalled it and OpenCL has not queued its wait yet (one signal, one wait: it
     * rests unsignalled). hand_in_value: else, the host waits until the Vulkan layer's timeline
     * of device hand_in_device reaches it before OpenCL uses the twin (0: nothing to wait for).
     * release_event: the driver's event after which OpenCL no longer uses the twin (its
     * release), which Direct3D's queue waits for at the next hand-out (dxcl's reference), or
     * NULL. */
    bool gpu_synced, ready_signalled;
    uint64_t hand_in_device, hand_in_value;
    cl_event release_event;
    /* The driver object its last object's teardown left (the program's handle, now dxcl's
     * alone): the GPU path's import of the twin, or the copy engine's object, on the staging
     * memory where zero-copy. A backend that keeps_driver_objects (backend.h) keeps it with the
     * idle surface for the next object of its description; surface_destroy releases what the
     * backend leaves. */
    struct dxcl_kept_object kept;
    struct dxcl_mapping mapping;
    void *backend_data; /* staging resource etc. */
};

/* What a backend tells the core about the object to create. */
struct dxcl_shared_desc {
    /* The family that made the object (set by dxcl_create_shared): its errors and its copy
     * functions serve the object, whichever family's property made the context. */
    const struct dxcl_backend *backend;
    IUnknown *resource;
    UINT subresource; /* as the program gave it (what the subresource query answers) */
    unsigned plane;
    /* The Direct3D subresource the surface copies: `subresource`, except for the planes of a
     * planar texture (the array slice's whole subresource, every plane in one copy). */
    UINT surface_subresource;
    cl_mem_object_type type; /* CL_MEM_OBJECT_BUFFER, _IMAGE2D or _IMAGE3D */
    size_t size;             /* buffers */
    size_t width, height, depth;
    cl_image_format format; /* the spec's format (images) */
    cl_uint adapter_type;   /* DX9 media: the adapter type given at creation */
    void *shared_handle;    /* DX9 media: the shared handle given at creation */
    /* Reject a second memobj of the same (resource, subresource, plane) in the context. */
    bool unique;
    /* Share the surface with other memobjs of the same resource and surface_subresource
     * (planes). */
    bool share_surface;
    /* A plane on a surface of its own (surface_subresource = subresource): only where the GPU
     * path takes it, a twin of the plane alone. The copy engine copies whole slices, so its
     * planes share their slice's surface. */
    bool lone_plane;
    /* The backend's per-surface state for a new surface (ownership passes to the core). */
    void *surface_data;
    /* Asked (set before the backend's prepare): the object's access flags, never 0. */
    cl_mem_flags access;
    /* Answered: a driver object the backend's idle surface kept (struct dxcl_kept_object), which
     * the object takes where it fits and releases otherwise; handle NULL: none. */
    struct dxcl_kept_object kept;
};

/* Where a shared object is between OpenCL and Direct3D. Changed only under dxcl_lock held
 * exclusively, by the one acquire or release call that claimed the object: the claim moves it
 * from IDLE to ACQUIRING or from ACQUIRED to RELEASING, and the end of the call to where it
 * went (or back, when the call failed). Commands may use it only while ACQUIRED. */
enum dxcl_transfer_state { DXCL_IDLE, DXCL_ACQUIRING, DXCL_ACQUIRED, DXCL_RELEASING };

/* The record of a shared object (or of an ordinary image of an emulated format): what the
 * tables, the backends and the formats need. The copy engine keeps its state of a shared object
 * around the record (engine/object.h); core never sees it. */
struct dxcl_memobj {
    struct dxcl_mirrored mirror;
    /* The record's holders: one while the program holds the object (it is in the table), and
     * one for each call using it outside dxcl_lock (an acquire or release, a command's use).
     * The last one to let go tears the object down (engine/lifetime.h). */
    volatile LONG holds;
    cl_mem handle;
    struct dxcl_context *context; /* NULL for ordinary emulated images */
    struct dxcl_surface *surface; /* NULL for ordinary emulated images */
    struct dxcl_shared_desc desc;
    cl_mem_flags flags;
    struct dxcl_backing backing; /* images: spec and driver formats */
    enum dxcl_transfer_state state;
    /* The program set a destructor callback on the handle: the driver object must die with the
     * object, so its handle is never kept for another (the GPU path's kept imports). */
    bool watched;
};

/* The surface an object will have, before it exists: what a creation's probes (zero-copy's,
 * the GPU path's) ask the backend about. */
static inline struct dxcl_surface dxcl_surface_to_be(struct dxcl_context *ctx,
                                                     const struct dxcl_memobj *mem)
{
    return (struct dxcl_surface){.backend = mem->desc.backend,
                                 .context = ctx,
                                 .resource = mem->desc.resource,
                                 .subresource = mem->desc.surface_subresource,
                                 .backend_data = mem->desc.surface_data};
}

/* A call that uses a record outside dxcl_lock holds it; take the hold while dxcl_lock is held
 * (shared is enough) and the record was found in the table. */
static inline void dxcl_memobj_hold(struct dxcl_memobj *mem)
{
    InterlockedIncrement(&mem->holds);
}
/* True when that was the last hold: the caller tears the object down (engine/lifetime.h,
 * dxcl_memobj_put, does both). */
static inline bool dxcl_memobj_unhold(struct dxcl_memobj *mem)
{
    return InterlockedDecrement(&mem->holds) == 0;
}

/* The record of `handle`, NULL when it is not a shared object. */
struct dxcl_memobj *dxcl_memobj_get(cl_mem handle);
/* The record of `handle` whether shared or an ordinary image of an emulated format (surface
 * NULL, context NULL: never acquired, never guarded); NULL when dxcl keeps none. */
struct dxcl_memobj *dxcl_image_record(cl_mem handle);
/* Records an ordinary emulated image (src/formats/images.c); false when out of memory. */
bool dxcl_image_record_add(struct dxcl_memobj *mem);
/* True when `handle` is a shared object or a sub-buffer of one. */
bool dxcl_memobj_is_shared(cl_mem handle);
/* The shared record `handle` stands for: its own, or its parent's for a sub-buffer; NULL when
 * it is neither. Called with dxcl_lock held. */
struct dxcl_memobj *dxcl_memobj_resolve(cl_mem handle);
/* The record of `handle` itself (shared or an ordinary emulated image), no sub-buffers.
 * Called with dxcl_lock held. */
struct dxcl_memobj *dxcl_memobj_lookup(cl_mem handle);

/* A new shared record: attached to the surface of a sibling plane (desc.share_surface) or to
 * a new surface (*surface_taken: the backend's surface_data is now the surface's), and put in
 * the table under its handle, in one exclusive take: a second object of a subresource that
 * must be unique (desc.unique) loses there with the family's invalid-resource error, however
 * close the two creations ran. CL_OUT_OF_HOST_MEMORY when the table cannot grow. */
cl_int dxcl_memobj_attach(struct dxcl_context *ctx, struct dxcl_memobj *mem, bool *surface_taken);
/* True when the context has a shared object of desc's resource, subresource and plane. */
bool dxcl_memobj_exists(const struct dxcl_context *ctx, const struct dxcl_shared_desc *desc);
/* Before the program's clReleaseMemObject reaches the driver: the record, out of the table,
 * when that is the program's last reference (the caller drops the table's hold); NULL
 * otherwise. A sub-buffer's record is freed here. */
struct dxcl_memobj *dxcl_memobj_release_program_ref(cl_mem handle);
/* The program set a destructor callback on `handle` (nothing when it is not a shared object). */
void dxcl_memobj_mark_watched(cl_mem handle);
/* Drops the record's reference on its surface; the last one destroys the surface. */
void dxcl_surface_unref(struct dxcl_surface *surface);

#endif
