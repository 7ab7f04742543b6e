/* Shared memory objects: cl_mem handles created from Direct3D resources, the surfaces they
 * copy from and to, and their acquire state. */
#ifndef DXCL_MEMOBJ_H
#define DXCL_MEMOBJ_H

#include "core/context.h"
#include "core/table.h"

/* One Direct3D resource (or subresource) as the copy engine sees it. Several memobjs share a
 * surface when they are planes of one DX9 surface. */
struct dxcl_surface {
    const struct dxcl_backend *backend;
    struct dxcl_context *context;
    IUnknown *resource; /* referenced by the surface */
    UINT subresource;
    LONG refs;       /* memobjs using the surface; guarded by dxcl_lock */
    LONG lock_count; /* acquired memobjs; the surface is mapped while > 0 */
    bool written;    /* a release copied data into the mapping */
    struct dxcl_mapping mapping;
    void *backend_data; /* staging resource etc. */
};

/* What a backend tells the core about the object to create. */
struct dxcl_shared_desc {
    /* The family that made the object (set by dxcl_create_shared): its errors and its copy
     * functions serve the object, whichever family's property made the context. */
    const struct dxcl_backend *backend;
    IUnknown *resource;
    UINT subresource;
    unsigned plane;
    cl_mem_object_type type; /* CL_MEM_OBJECT_BUFFER, _IMAGE2D or _IMAGE3D */
    size_t size;             /* buffers */
    size_t width, height, depth;
    cl_image_format format; /* the spec's format (images) */
    cl_uint adapter_type;   /* DX9 media: the adapter type given at creation */
    void *shared_handle;    /* DX9 media: the shared handle given at creation */
    /* Reject a second memobj of the same (resource, subresource, plane) in the context. */
    bool unique;
    /* Share the surface with other memobjs of the same resource (planes). */
    bool share_surface;
    /* The backend's per-surface state for a new surface (ownership passes to the core). */
    void *surface_data;
};

struct dxcl_memobj {
    struct dxcl_mirrored mirror;
    cl_mem handle;
    struct dxcl_context *context; /* NULL for ordinary emulated images */
    struct dxcl_surface *surface; /* NULL for ordinary emulated images */
    struct dxcl_shared_desc desc;
    cl_mem_flags flags;
    struct dxcl_backing backing; /* images: spec and driver formats */
    bool acquired;               /* guarded by dxcl_lock */
    /* A command that can write the object was enqueued since the acquire: release downloads
     * and writes back only such objects (the Direct3D data of others is unchanged). */
    volatile LONG written;
    void *convert_buffer;   /* emulated formats: the spec-layout copy while acquired */
    cl_event pending_write; /* the acquire's upload, until release */
    /* Lazy uploads (engine/lazy.h): acquired, and no command has touched the object yet (its
     * surface is not locked for it); touching takes lazy_lock. skipped_uploads counts the
     * acquires whose Direct3D read and upload were skipped. */
    volatile LONG lazy_pending;
    SRWLOCK lazy_lock;
    volatile LONG skipped_uploads;
    cl_command_queue lazy_queue; /* where the deferred upload went (not retained), or NULL */
    /* Zero-copy (engine/zerocopy.h): the surface's host copy is the driver object's storage
     * (data NULL: the copy engine copies); host_mapped while the driver object is mapped for
     * Direct3D's turn; queue (retained) is the queue dxcl last used for the object. */
    struct dxcl_mapping host_copy;
    void *host_mapped;
    cl_command_queue queue;
};

/* Creates the driver object and the record; the backend has validated the resource. */
cl_mem dxcl_memobj_create(struct dxcl_context *ctx, cl_mem_flags flags,
                          const struct dxcl_shared_desc *desc, cl_int *errcode_ret);
/* The record of `handle`, NULL when it is not a shared object. Records live until the
 * program releases the handle; a program racing a release against other use of the same
 * handle is in error, as with any driver. */
struct dxcl_memobj *dxcl_memobj_get(cl_mem handle);
/* The record of `handle` whether shared or an ordinary image of an emulated format (surface
 * NULL, context NULL: never acquired, never guarded); NULL when dxcl keeps none. */
struct dxcl_memobj *dxcl_image_record(cl_mem handle);
/* Records an ordinary emulated image (src/formats/images.c); false when out of memory. */
bool dxcl_image_record_add(struct dxcl_memobj *mem);
/* True when `handle` is a shared object or a sub-buffer of one. */
bool dxcl_memobj_is_shared(cl_mem handle);
/* How a command uses a memory object. */
enum dxcl_use {
    DXCL_USE_READ,      /* reads it (or may: kernels, maps for reading, migrations) */
    DXCL_USE_WRITE,     /* may read it and may change some of it */
    DXCL_USE_OVERWRITE, /* writes all of it before anything reads it */
};
/* The enqueue guard, for a command on `queue`: the family's not-acquired error when `handle`
 * is a shared object (or a sub-buffer of one) that is not acquired, CL_SUCCESS otherwise.
 * A write records that the object may change; the first use after an acquire brings in the
 * Direct3D contents first unless it overwrites them (engine/lazy.h). */
cl_int dxcl_memobj_use(cl_command_queue queue, cl_mem handle, enum dxcl_use use,
                       const char *caller);
static inline cl_int dxcl_memobj_check_acquired(cl_mem handle, const char *caller)
{
    return dxcl_memobj_use(NULL, handle, DXCL_USE_READ, caller);
}
/* DXCL_USE_OVERWRITE when [offset, offset + size) is all of shared buffer `handle`, else
 * DXCL_USE_WRITE. */
enum dxcl_use dxcl_buffer_write_use(cl_mem handle, size_t offset, size_t size);
/* The same for a region of a shared image. */
enum dxcl_use dxcl_image_write_use(cl_mem handle, const size_t *origin, const size_t *region);
/* A map of a buffer range or an image region with `flags`: an overwrite when it invalidates
 * all of the object. */
enum dxcl_use dxcl_map_use(cl_map_flags flags, enum dxcl_use whole);

/* Checks cl_mem_flags for the create functions: only READ_ONLY, WRITE_ONLY, READ_WRITE. */
cl_int dxcl_check_shared_flags(cl_mem_flags flags);

/* A backend's part of a create function: validate the resource given in `args` against the
 * context and fill `desc` (including surface_data). */
typedef cl_int (*dxcl_prepare_fn)(struct dxcl_context *ctx, const void *args,
                                  struct dxcl_shared_desc *desc);
/* The whole create function: CL_INVALID_CONTEXT, the flags, the backend's checks, then the
 * object. `name` is for the log. */
cl_mem dxcl_create_shared(const char *name, cl_context context, const struct dxcl_backend *backend,
                          cl_mem_flags flags, dxcl_prepare_fn prepare, const void *args,
                          cl_int *errcode_ret);

#endif
