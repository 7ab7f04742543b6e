/* Shared memory object records: the table of cl_mem handles dxcl shares (and sub-buffers of
 * them, and ordinary images of emulated formats), the surfaces they copy through, and the
 * program's references to them. What the objects do lives in src/engine/. */
#include "core/memobj.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

static struct dxcl_table memobjs;

/* Sub-buffers of shared buffers: they alias the Direct3D data, so the guard treats them as
 * their parent. */
struct dxcl_subbuffer {
    struct dxcl_mirrored mirror;
    cl_mem parent;
};
static struct dxcl_table subbuffers;

struct dxcl_memobj *dxcl_memobj_lookup(cl_mem handle)
{
    return dxcl_table_get(&memobjs, handle);
}

struct dxcl_memobj *dxcl_memobj_resolve(cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_table_get(&memobjs, handle);
    struct dxcl_subbuffer *sub;

    if (!mem && (sub = dxcl_table_get(&subbuffers, handle)))
        mem = dxcl_table_get(&memobjs, sub->parent);
    return mem && mem->surface ? mem : NULL;
}

struct find_args {
    const struct dxcl_context *ctx;
    const struct dxcl_shared_desc *desc;
    /* match (resource, subresource, plane), else the surface (resource, surface_subresource) */
    bool same_subresource;
    struct dxcl_memobj *found;
};

static void find_in_context(void *value, void *arg)
{
    struct dxcl_memobj *mem = value;
    struct find_args *find = arg;

    /* Families never share surfaces: their per-surface states differ (NV D3D9 and Intel DX9
     * objects may live in one context). */
    if (find->found || mem->context != find->ctx || mem->desc.resource != find->desc->resource ||
        mem->desc.backend != find->desc->backend)
        return;
    if (find->same_subresource &&
        (mem->desc.subresource != find->desc->subresource || mem->desc.plane != find->desc->plane))
        return;
    if (!find->same_subresource && mem->desc.surface_subresource != find->desc->surface_subresource)
        return;
    find->found = mem;
}

static struct dxcl_memobj *find_memobj(const struct dxcl_context *ctx,
                                       const struct dxcl_shared_desc *desc, bool same_subresource)
{
    struct find_args find = {ctx, desc, same_subresource, NULL};

    dxcl_table_each(&memobjs, find_in_context, &find);
    return find.found;
}

bool dxcl_memobj_exists(const struct dxcl_context *ctx, const struct dxcl_shared_desc *desc)
{
    bool found;

    dxcl_lock_shared();
    found = find_memobj(ctx, desc, true) != NULL;
    dxcl_unlock_shared();
    return found;
}

/* A surface for `desc`, holding its own reference on the resource; made outside dxcl_lock
 * (AddRef is a Direct3D call). */
static struct dxcl_surface *new_surface(struct dxcl_context *ctx,
                                        const struct dxcl_shared_desc *desc)
{
    struct dxcl_surface *surface = calloc(1, sizeof(*surface));

    if (!surface)
        return NULL;
    surface->backend = desc->backend;
    surface->context = ctx;
    surface->resource = desc->resource;
    surface->subresource = desc->surface_subresource;
    surface->backend_data = desc->surface_data;
    surface->refs = 1;
    dxcl_lock_check_call("IUnknown::AddRef", __func__);
    IUnknown_AddRef(surface->resource);
    return surface;
}

/* Drops a reference; true when it was the last. Called with dxcl_lock held exclusively. */
static bool surface_drop(struct dxcl_surface *surface)
{
    return --surface->refs == 0;
}

static void surface_destroy(struct dxcl_surface *surface)
{
    dxcl_lock_check_call("a backend's destroy_surface", __func__);
    surface->backend->destroy_surface(surface);
    if (surface->kept.handle) /* the backend did not keep it */
        dxcl_driver()->clReleaseMemObject(surface->kept.handle);
    if (surface->release_event) /* the backend's last hand-out did not take it */
        dxcl_driver()->clReleaseEvent(surface->release_event);
    IUnknown_Release(surface->resource);
    free(surface);
}

void dxcl_surface_unref(struct dxcl_surface *surface)
{
    bool last;

    dxcl_lock_exclusive();
    last = surface_drop(surface);
    dxcl_unlock_exclusive();
    if (last)
        surface_destroy(surface);
}

/* Frees a surface that was never attached (the backend's surface_data stays the caller's). */
static void discard_surface(struct dxcl_surface *surface)
{
    if (!surface)
        return;
    dxcl_lock_check_call("IUnknown::Release", __func__);
    IUnknown_Release(surface->resource);
    free(surface);
}

cl_int dxcl_memobj_attach(struct dxcl_context *ctx, struct dxcl_memobj *mem, bool *surface_taken)
{
    /* Made before the lock (AddRef is a Direct3D call); unused when a sibling plane has one. */
    struct dxcl_surface *fresh = new_surface(ctx, &mem->desc), *unused = NULL;
    struct dxcl_memobj *sibling;
    cl_int err = CL_SUCCESS;

    *surface_taken = false;
    if (!fresh)
        return CL_OUT_OF_HOST_MEMORY;
    dxcl_lock_exclusive();
    if (mem->desc.unique && find_memobj(ctx, &mem->desc, true)) {
        err = DXCL_FAIL(mem->desc.backend->errors.invalid_resource,
                        "a cl_mem of resource %p subresource %u plane %u exists",
                        (void *)mem->desc.resource, mem->desc.subresource, mem->desc.plane);
    } else if (mem->desc.share_surface && (sibling = find_memobj(ctx, &mem->desc, false))) {
        mem->surface = sibling->surface;
        mem->surface->refs++;
        unused = fresh;
    } else {
        mem->surface = fresh;
    }
    if (err == CL_SUCCESS && !dxcl_table_put(&memobjs, mem->handle, mem)) {
        if (mem->surface != fresh)
            mem->surface->refs--; /* the sibling keeps it */
        err = CL_OUT_OF_HOST_MEMORY;
    }
    if (err != CL_SUCCESS) {
        mem->surface = NULL;
        unused = fresh;
    }
    *surface_taken = err == CL_SUCCESS && mem->surface == fresh;
    dxcl_unlock_exclusive();
    discard_surface(unused);
    return err;
}

struct dxcl_memobj *dxcl_memobj_get(cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_image_record(handle);

    return mem && mem->surface ? mem : NULL;
}

void dxcl_memobj_mark_watched(cl_mem handle)
{
    struct dxcl_memobj *mem;

    dxcl_lock_exclusive();
    if ((mem = dxcl_table_get(&memobjs, handle)))
        mem->watched = true;
    dxcl_unlock_exclusive();
}

struct dxcl_memobj *dxcl_image_record(cl_mem handle)
{
    struct dxcl_memobj *mem;

    dxcl_lock_shared();
    mem = dxcl_table_get(&memobjs, handle);
    dxcl_unlock_shared();
    return mem;
}

bool dxcl_image_record_add(struct dxcl_memobj *mem)
{
    bool stored;

    dxcl_lock_exclusive();
    stored = dxcl_table_put(&memobjs, mem->handle, mem);
    dxcl_unlock_exclusive();
    return stored;
}

bool dxcl_memobj_is_shared(cl_mem handle)
{
    bool shared;

    dxcl_lock_shared();
    shared = dxcl_memobj_resolve(handle) != NULL;
    dxcl_unlock_shared();
    return shared;
}

struct dxcl_memobj *dxcl_memobj_release_program_ref(cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_mirror_release(&memobjs, handle);

    if (!mem)
        free(dxcl_mirror_release(&subbuffers, handle));
    return mem;
}

cl_int CL_API_CALL DXCL_IMPL(clRetainMemObject)(cl_mem memobj)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clRetainMemObject, (memobj));

    if (err == CL_SUCCESS) {
        dxcl_mirror_retain(&memobjs, memobj);
        dxcl_mirror_retain(&subbuffers, memobj);
    }
    return err;
}

cl_mem CL_API_CALL DXCL_IMPL(clCreateSubBuffer)(cl_mem buffer, cl_mem_flags flags,
                                                cl_buffer_create_type buffer_create_type,
                                                const void *buffer_create_info, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_subbuffer *sub;
    cl_mem handle;
    bool stored = false;

    if (!drv->clCreateSubBuffer) {
        if (errcode_ret)
            *errcode_ret = dxcl_driver_missing("clCreateSubBuffer");
        return NULL;
    }
    handle =
        drv->clCreateSubBuffer(buffer, flags, buffer_create_type, buffer_create_info, errcode_ret);
    if (!handle || !dxcl_memobj_is_shared(buffer) || !(sub = malloc(sizeof(*sub))))
        return handle;
    sub->mirror.app_refs = 1;
    sub->parent = buffer;
    dxcl_lock_exclusive();
    stored = dxcl_table_put(&subbuffers, handle, sub);
    dxcl_unlock_exclusive();
    if (!stored)
        free(sub);
    return handle;
}
