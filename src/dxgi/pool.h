/* A D3D1x surface (the staging copy of one subresource, or its twin on the GPU) and the small
 * pool of idle ones each context keeps: staging resources outlive their surfaces, so that
 * programs that create and destroy a shared object every frame do not create a staging
 * resource every frame. Freeing what the pool does not keep is dxgi.c's (it knows twins). */
#ifndef DXCL_DXGI_POOL_H
#define DXCL_DXGI_POOL_H

#include "core/backend.h"
#include "core/memobj.h"
#include "core/twin.h"

#include <dxgi.h>

/* The GPU path's twin of a surface (gpu/twins.h; the backend's device_storage): what the layer
 * said of it (core/twin.h), and the texture DXVK wraps it in (the surface's `staging`), or NULL
 * where DXVK cannot wrap it (3D textures, planes): the layer copies then (layer_copies). */
struct dxcl_dxgi_twin {
    struct dxcl_twin vk;
    bool layer_copies;
    /* The VkImageLayout DXVK keeps the twin's image in: the wrapping texture's, or a direct
     * twin's texture's. */
    uint32_t layout;
    /* A hand-in went and no hand-out since (or the hand-out failed): the twin is OpenCL's, as
     * the layer knows it; it is never pooled so, and its next hand-in takes it back first. */
    bool handed_in;
    /* DXVK was made to submit its texture's initial data (the layer reads the image): for the
     * texture of its current object (a pooled ordinary twin's next texture may be another). */
    bool initial_flushed;
    /* Its `ready` imported into the context's driver (once: it stays with the twin in the
     * pool), or NULL. */
    cl_semaphore_khr cl_ready;
    /* The driver's import of its memory that its last object left (core/memobj.h, the
     * surface's kept object), made with cl_import_flags, for its next object; or NULL. */
    cl_mem cl_import;
    cl_mem_flags cl_import_flags;
    /* For dxcl's log when it is given up. */
    LONG hand_ins, ready_signals, hand_outs;
};

/* A D3D1x surface: the staging copy of one subresource, or its twin on the GPU. */
struct dxcl_dxgi_surface {
    IUnknown
        *staging; /* CPU readable and writable, the subresource's size; or the twin's texture */
    struct dxcl_dxgi_twin *twin; /* the GPU path, or NULL */
    enum dxcl_dxgi_kind { DXCL_DXGI_BUFFER, DXCL_DXGI_TEXTURE2D, DXCL_DXGI_TEXTURE3D } kind;
    /* What the staging resource was created as: the key of the context's staging pool (a
     * planar format's staging holds the whole slice, every plane). */
    DXGI_FORMAT format;
    UINT width, height, depth, byte_width;
    /* A lone plane's surface (core/memobj.h): which plane its twin holds. */
    bool lone_plane;
    unsigned plane;
    /* The program's texture is a staging one: no GPU path (DXVK has no image behind it). */
    bool of_staging;
    /* A direct twin's (core/twin.h): the VkImage of the program's texture, which the twin is;
     * part of the pool's key (a direct twin serves only its own texture). 0 for the others. */
    uint64_t direct_image;
    /* A staging copy's (not a twin's): the copy engine's driver objects its last objects left
     * (core/memobj.h), one for each access (dxcl_dxgi_kept_slot), for the next object of this
     * description: a program that alternates a read-only and a write-only object of one size
     * (OpenCV's convertFrom and convertTo) finds each its own. Released before the staging
     * resource, whose memory they may stand on. */
    struct dxcl_kept_object kept[3];
    struct dxcl_dxgi_surface *next_pooled;
    /* The staging resource's mapping, once seen to stay put (data NULL: not yet checked). */
    struct dxcl_mapping stable;
    /* Its mapping was once seen elsewhere (between the two maps of the check, or later at an
     * acquire): Direct3D moves it, so no object uses it as storage again, pooled or not. */
    bool moved;
    /* The fault point `move` (core/fault.h): the staging resource's real mapping while dxcl
     * hands out a temporary copy of it, as a Direct3D that maps through other memory would. */
    void *moved_by_fault;
};

/* The slot of kept[] for an object's access flags (never 0): READ_ONLY, WRITE_ONLY, READ_WRITE. */
static inline unsigned dxcl_dxgi_kept_slot(cl_mem_flags flags)
{
    return flags == CL_MEM_READ_ONLY ? 0 : flags == CL_MEM_WRITE_ONLY ? 1 : 2;
}

/* Releases a staging copy's kept driver objects (before its staging resource goes). */
void dxcl_dxgi_release_kept(struct dxcl_dxgi_surface *s);

/* The first idle surface like `want` (true, with its staging, twin and kept driver object
 * moved into `want`); one whose kept driver object (a twin's import, or a staging copy's
 * object) was made with `flags` first. */
bool dxcl_dxgi_pool_take(struct dxcl_context *ctx, struct dxcl_dxgi_surface *want,
                         cl_mem_flags flags);
unsigned dxcl_dxgi_pooled_surfaces(struct dxcl_context *ctx);
/* The GPU path: an idle twin of the pool for `want`'s kind, format and size (true, with its
 * staging and twin moved into `want`; one whose kept import was made with `flags` first), and
 * the pool's keeping of surfaces whose staging is replaced by a twin (false: none idle, or the
 * pool is full and the caller frees it). */
bool dxcl_dxgi_pool_take_twin(struct dxcl_context *ctx, struct dxcl_dxgi_surface *want,
                              cl_mem_flags flags);
bool dxcl_dxgi_pool_put(struct dxcl_context *ctx, struct dxcl_dxgi_surface *surface);
/* Puts `s` first in the pool; a full pool gives up its oldest entry, which the caller frees. */
struct dxcl_dxgi_surface *dxcl_dxgi_pool_put_evicting(struct dxcl_context *ctx,
                                                      struct dxcl_dxgi_surface *s);

#endif
