/* Shared memory objects: the driver object that holds the data while CL uses it, the surface
 * the copy engine moves it through, and the spec's view of both in queries. */
#include "core/memobj.h"
#include "core/fault.h"
#include "compat/callbacks.h"
#include "core/info.h"
#include "engine/lazy.h"
#include "core/route.h"
#include "core/table.h"
#include "engine/zerocopy.h"
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

/* The shared record `handle` stands for: its own, or its parent's for a sub-buffer. Called
 * with dxcl_lock held. */
static struct dxcl_memobj *resolve(cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_table_get(&memobjs, handle);
    struct dxcl_subbuffer *sub;

    if (!mem && (sub = dxcl_table_get(&subbuffers, handle)))
        mem = dxcl_table_get(&memobjs, sub->parent);
    return mem && mem->surface ? mem : NULL;
}

cl_int dxcl_check_shared_flags(cl_mem_flags flags)
{
    const cl_mem_flags access = CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE;

    if ((flags & ~access) || (flags && (flags & (flags - 1))))
        return DXCL_FAIL(CL_INVALID_VALUE,
                         "flags 0x%llx: only one of READ_ONLY, WRITE_ONLY, READ_WRITE",
                         (unsigned long long)flags);
    return CL_SUCCESS;
}

struct find_args {
    const struct dxcl_context *ctx;
    const struct dxcl_shared_desc *desc;
    bool same_subresource; /* match (resource, subresource, plane), else the resource */
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
    find->found = mem;
}

static struct dxcl_memobj *find_memobj(const struct dxcl_context *ctx,
                                       const struct dxcl_shared_desc *desc, bool same_subresource)
{
    struct find_args find = {ctx, desc, same_subresource, NULL};

    dxcl_table_each(&memobjs, find_in_context, &find);
    return find.found;
}

static struct dxcl_surface *new_surface(struct dxcl_context *ctx,
                                        const struct dxcl_shared_desc *desc)
{
    struct dxcl_surface *surface = calloc(1, sizeof(*surface));

    if (!surface)
        return NULL;
    surface->backend = desc->backend;
    surface->context = ctx;
    surface->resource = desc->resource;
    surface->subresource = desc->subresource;
    surface->backend_data = desc->surface_data;
    surface->refs = 1;
    IUnknown_AddRef(surface->resource);
    return surface;
}

static void surface_unref(struct dxcl_surface *surface)
{
    /* refs is changed under dxcl_lock only. */
    if (--surface->refs > 0)
        return;
    surface->backend->destroy_surface(surface);
    IUnknown_Release(surface->resource);
    free(surface);
}

static cl_mem create_buffer(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem, cl_int *err)
{
    void *host = mem->host_copy.data;

    return dxcl_driver()->clCreateBuffer(ctx->handle, flags | (host ? CL_MEM_USE_HOST_PTR : 0),
                                         mem->desc.size, host, err);
}

static cl_mem create_image(struct dxcl_context *ctx, cl_mem_flags flags,
                           const struct dxcl_memobj *mem, cl_int *err)
{
    const struct dxcl_shared_desc *desc = &mem->desc;
    bool is_3d = desc->type == CL_MEM_OBJECT_IMAGE3D;
    void *host = mem->host_copy.data;
    cl_image_desc image = {.image_type = desc->type,
                           .image_width = desc->width,
                           .image_height = desc->height,
                           .image_depth = is_3d ? desc->depth : 1};

    if (host) {
        image.image_row_pitch = mem->host_copy.row_pitch;
        image.image_slice_pitch = is_3d ? mem->host_copy.slice_pitch : 0;
        flags |= CL_MEM_USE_HOST_PTR;
    }
    return dxcl_driver()->clCreateImage(ctx->handle, flags, &mem->backing.driver, &image, host,
                                        err);
}

static cl_int choose_backing(struct dxcl_context *ctx, cl_mem_flags flags, struct dxcl_memobj *mem)
{
    const struct dxcl_shared_desc *desc = &mem->desc;

    if (desc->type == CL_MEM_OBJECT_BUFFER ||
        dxcl_choose_backing(ctx->handle, flags, desc->type, &desc->format, &mem->backing) ==
            CL_SUCCESS)
        return CL_SUCCESS;
    return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                     "the driver has no image format that can hold %s/%s",
                     dxcl_channel_order_name(desc->format.image_channel_order),
                     dxcl_channel_type_name(desc->format.image_channel_data_type));
}

/* The driver object: on the surface's host copy when it can be (zero-copy), else its own. */
static cl_mem create_driver_object(struct dxcl_context *ctx, cl_mem_flags flags,
                                   struct dxcl_memobj *mem, cl_int *err)
{
    bool buffer = mem->desc.type == CL_MEM_OBJECT_BUFFER;
    cl_mem handle;

    flags = flags ? flags : CL_MEM_READ_WRITE;
    if ((*err = choose_backing(ctx, flags, mem)) != CL_SUCCESS)
        return NULL;
    if (dxcl_zero_copy_probe(ctx, mem, &mem->host_copy)) {
        handle = buffer ? create_buffer(ctx, flags, mem, err) : create_image(ctx, flags, mem, err);
        if (handle)
            return handle;
        DXCL_LOG("the driver refused CL_MEM_USE_HOST_PTR on the staging copy (%d): copies", *err);
        mem->host_copy = (struct dxcl_mapping){0};
    }
    return buffer ? create_buffer(ctx, flags, mem, err) : create_image(ctx, flags, mem, err);
}

static cl_mem fail_memobj(struct dxcl_context *ctx, const struct dxcl_shared_desc *desc,
                          struct dxcl_memobj *mem, cl_int err, cl_int *errcode_ret)
{
    if (desc->surface_data) {
        struct dxcl_surface temp = {.backend = desc->backend,
                                    .context = ctx,
                                    .resource = desc->resource,
                                    .backend_data = desc->surface_data};
        desc->backend->destroy_surface(&temp);
    }
    free(mem);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

/* Attaches the record to a surface (shared with other planes or new) and the table. */
static cl_int attach(struct dxcl_context *ctx, struct dxcl_memobj *mem, bool *surface_taken)
{
    struct dxcl_memobj *sibling;
    cl_int err = CL_SUCCESS;

    dxcl_lock_exclusive();
    sibling = mem->desc.share_surface ? find_memobj(ctx, &mem->desc, false) : NULL;
    if (sibling) {
        mem->surface = sibling->surface;
        mem->surface->refs++;
    } else if ((mem->surface = new_surface(ctx, &mem->desc))) {
        *surface_taken = true;
    } else {
        err = CL_OUT_OF_HOST_MEMORY;
    }
    if (err == CL_SUCCESS && !dxcl_table_put(&memobjs, mem->handle, mem)) {
        surface_unref(mem->surface);
        err = CL_OUT_OF_HOST_MEMORY;
    }
    dxcl_unlock_exclusive();
    return err;
}

cl_mem dxcl_memobj_create(struct dxcl_context *ctx, cl_mem_flags flags,
                          const struct dxcl_shared_desc *desc, cl_int *errcode_ret)
{
    struct dxcl_memobj *mem = dxcl_calloc(1, sizeof(*mem));
    bool surface_taken = false;
    bool duplicate;
    cl_int err;

    if (!mem)
        return fail_memobj(ctx, desc, NULL, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    dxcl_lock_shared();
    duplicate = desc->unique && find_memobj(ctx, desc, true);
    dxcl_unlock_shared();
    if (duplicate)
        return fail_memobj(ctx, desc, mem,
                           DXCL_FAIL(desc->backend->errors.invalid_resource,
                                     "a cl_mem of resource %p subresource %u plane %u exists",
                                     (void *)desc->resource, desc->subresource, desc->plane),
                           errcode_ret);
    mem->desc = *desc;
    mem->flags = flags;
    mem->context = ctx;
    mem->mirror.app_refs = 1;
    mem->backing.spec = desc->format;
    if (!(mem->handle = create_driver_object(ctx, flags, mem, &err)))
        return fail_memobj(ctx, desc, mem, err, errcode_ret);
    if ((err = attach(ctx, mem, &surface_taken)) != CL_SUCCESS) {
        dxcl_driver()->clReleaseMemObject(mem->handle);
        return fail_memobj(ctx, desc, mem, err, errcode_ret);
    }
    if (!surface_taken && desc->surface_data) {
        struct dxcl_surface temp = {.backend = desc->backend,
                                    .context = ctx,
                                    .resource = desc->resource,
                                    .backend_data = desc->surface_data};
        desc->backend->destroy_surface(&temp); /* a sibling plane's surface is used instead */
    }
    dxcl_context_ref(ctx);
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    DXCL_LOG("created %s memobj %p from resource %p subresource %u plane %u%s%s",
             desc->backend->name, (void *)mem->handle, (void *)desc->resource, desc->subresource,
             desc->plane, mem->backing.emulated ? " (emulated format)" : "",
             mem->host_copy.data ? " (zero-copy)" : "");
    return mem->handle;
}

cl_mem dxcl_create_shared(const char *name, cl_context context, const struct dxcl_backend *backend,
                          cl_mem_flags flags, dxcl_prepare_fn prepare, const void *args,
                          cl_int *errcode_ret)
{
    struct dxcl_shared_desc desc = {0};
    struct dxcl_context *ctx;
    cl_mem mem = NULL;
    cl_int err = dxcl_context_get(context, backend, &ctx);

    if (err == CL_SUCCESS) {
        if ((err = dxcl_check_shared_flags(flags)) == CL_SUCCESS &&
            (err = prepare(ctx, args, &desc)) == CL_SUCCESS) {
            desc.backend = backend;
            mem = dxcl_memobj_create(ctx, flags, &desc, &err);
        }
        dxcl_context_unref(ctx);
    }
    if (errcode_ret)
        *errcode_ret = err;
    dxcl_log_result(name, err);
    return mem;
}

struct dxcl_memobj *dxcl_memobj_get(cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_image_record(handle);

    return mem && mem->surface ? mem : NULL;
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
    shared = resolve(handle) != NULL;
    dxcl_unlock_shared();
    return shared;
}

cl_int dxcl_memobj_use(cl_command_queue queue, cl_mem handle, enum dxcl_use use, const char *caller)
{
    cl_int err = CL_SUCCESS;
    struct dxcl_memobj *mem;
    bool whole;

    dxcl_lock_shared();
    mem = resolve(handle);
    whole = mem && mem->handle == handle; /* not a sub-buffer */
    if (mem && !mem->acquired)
        err = mem->desc.backend->errors.not_acquired;
    else if (mem && use != DXCL_USE_READ)
        InterlockedExchange(&mem->written, 1);
    dxcl_unlock_shared();
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%s: %s object %p is not acquired", caller, mem->desc.backend->name,
                         (void *)handle);
    if (!mem || !queue)
        return CL_SUCCESS;
    if (mem->lazy_pending)
        return dxcl_lazy_touch(queue, mem, whole && use == DXCL_USE_OVERWRITE, caller);
    if (mem->lazy_queue && mem->lazy_queue != queue)
        return dxcl_lazy_order(queue, mem, caller);
    return CL_SUCCESS;
}

enum dxcl_use dxcl_buffer_write_use(cl_mem handle, size_t offset, size_t size)
{
    struct dxcl_memobj *mem = dxcl_memobj_get(handle);

    return mem && offset == 0 && size == mem->desc.size ? DXCL_USE_OVERWRITE : DXCL_USE_WRITE;
}

enum dxcl_use dxcl_map_use(cl_map_flags flags, enum dxcl_use whole)
{
    if (flags & CL_MAP_WRITE_INVALIDATE_REGION)
        return whole;
    return flags & CL_MAP_WRITE ? DXCL_USE_WRITE : DXCL_USE_READ;
}

enum dxcl_use dxcl_image_write_use(cl_mem handle, const size_t *origin, const size_t *region)
{
    struct dxcl_memobj *mem = dxcl_memobj_get(handle);
    size_t depth;

    if (!mem || !origin || !region || origin[0] || origin[1] || origin[2])
        return DXCL_USE_WRITE;
    depth = mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1;
    return region[0] == mem->desc.width && region[1] == mem->desc.height && region[2] == depth
               ? DXCL_USE_OVERWRITE
               : DXCL_USE_WRITE;
}

/* Called when the program's last reference is gone: the driver object is released already. */
static void destroy_memobj(struct dxcl_memobj *mem)
{
    struct dxcl_surface *surface = mem->surface;
    struct dxcl_context *ctx = mem->context;

    dxcl_zero_copy_finish(mem);
    if (!surface) { /* an ordinary emulated image: only the record */
        free(mem);
        return;
    }
    if (mem->pending_write) {
        /* Released while acquired: the upload may still read the mapping. */
        dxcl_driver()->clWaitForEvents(1, &mem->pending_write);
        dxcl_driver()->clReleaseEvent(mem->pending_write);
    }
    if (mem->acquired && !mem->lazy_pending) {
        DXCL_LOG("memobj %p released while acquired: its CL contents are dropped",
                 (void *)mem->handle);
        void *protection = dxcl_device_enter(surface->backend, surface->context);
        if (--surface->lock_count == 0)
            surface->backend->unlock_surface(surface, surface->written);
        dxcl_device_leave(surface->backend, protection);
    }
    dxcl_lock_exclusive();
    surface_unref(surface);
    dxcl_unlock_exclusive();
    free(mem->convert_buffer);
    free(mem);
    dxcl_context_unref(ctx);
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

cl_int CL_API_CALL DXCL_IMPL(clReleaseMemObject)(cl_mem memobj)
{
    cl_int err;
    struct dxcl_memobj *mem;

    dxcl_zero_copy_before_release(memobj);
    err = DXCL_DRIVER_CALL_INT(clReleaseMemObject, (memobj));
    mem = err == CL_SUCCESS ? dxcl_mirror_release(&memobjs, memobj) : NULL;

    if (mem)
        destroy_memobj(mem);
    else if (err == CL_SUCCESS)
        free(dxcl_mirror_release(&subbuffers, memobj));
    if (err == CL_SUCCESS)
        dxcl_callbacks_released(memobj);
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

/* The resource and subresource queries every family has. */
static cl_int common_query(const struct dxcl_backend *backend, const struct dxcl_memobj *mem,
                           bool image, cl_uint param, size_t size, void *value, size_t *size_ret)
{
    if (!image && backend->resource_query && param == backend->resource_query) {
        IUnknown *resource = mem ? mem->desc.resource : NULL;
        if (!mem)
            return DXCL_FAIL(backend->errors.invalid_resource, "not a %s shared object",
                             backend->name);
        return dxcl_info_return(&resource, sizeof(resource), size, value, size_ret);
    }
    if (image && backend->subresource_query && param == backend->subresource_query) {
        UINT subresource = mem ? mem->desc.subresource : 0;
        if (!mem || mem->desc.type == CL_MEM_OBJECT_BUFFER)
            return DXCL_FAIL(backend->errors.invalid_resource, "not a %s texture object",
                             backend->name);
        return dxcl_info_return(&subresource, sizeof(subresource), size, value, size_ret);
    }
    if (backend->query)
        return backend->query(mem, image, param, size, value, size_ret);
    return DXCL_NOT_MY_QUERY;
}

/* An object of a context of the driver's own sharing (see core/route.h). */
static bool drivers_object(cl_mem handle)
{
    struct dxcl_context *ctx;
    cl_context context;

    if (!dxcl_any_routed() ||
        DXCL_DRIVER_CALL_INT(clGetMemObjectInfo, (handle, CL_MEM_CONTEXT, sizeof(context), &context,
                                                  NULL)) != CL_SUCCESS)
        return false;
    if ((ctx = dxcl_context_find(context))) {
        dxcl_context_unref(ctx);
        return false;
    }
    return dxcl_context_is_drivers(context);
}

/* The backends' own tokens. `mem` is the record if it belongs to the backend asked. */
static cl_int backend_query(cl_mem handle, bool image, cl_uint param, size_t size, void *value,
                            size_t *size_ret, bool *answered)
{
    struct dxcl_memobj *mem = dxcl_memobj_get(handle);

    /* The object's own family first: families may share token values (NV D3D9 and Intel DX9). */
    for (size_t i = 0; i <= dxcl_backend_count(); i++) {
        const struct dxcl_backend *backend =
            i == 0 ? (mem ? mem->desc.backend : NULL) : dxcl_backend_at(i - 1);
        const struct dxcl_memobj *own = mem && mem->desc.backend == backend ? mem : NULL;

        if (!backend || (i > 0 && own))
            continue;
        cl_int err = common_query(backend, own, image, param, size, value, size_ret);
        if (err == DXCL_NOT_MY_QUERY)
            continue;
        if (!mem && err != CL_SUCCESS && drivers_object(handle))
            break; /* an object of the driver's own sharing: it answers */
        *answered = true;
        if (!mem && err != CL_SUCCESS) {
            /* An invalid handle is CL_INVALID_MEM_OBJECT before it is a foreign object. */
            cl_mem_object_type type;
            if (DXCL_DRIVER_CALL_INT(clGetMemObjectInfo, (handle, CL_MEM_TYPE, sizeof(type), &type,
                                                          NULL)) != CL_SUCCESS)
                err = CL_INVALID_MEM_OBJECT;
        }
        return err;
    }
    *answered = false;
    return CL_SUCCESS;
}

static size_t spec_element_size(const struct dxcl_memobj *mem)
{
    return dxcl_element_size(&mem->backing.spec);
}

/* Emulated formats and zero-copy objects: the spec's format and tight pitches, not the backing
 * image's format or the staging resource's pitches. */
static cl_int emulated_image_info(const struct dxcl_memobj *mem, cl_image_info param, size_t size,
                                  void *value, size_t *size_ret, bool *answered)
{
    size_t element = spec_element_size(mem);
    size_t row = element * mem->desc.width;
    size_t slice = mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? row * mem->desc.height : 0;

    *answered = true;
    switch (param) {
    case CL_IMAGE_FORMAT:
        return dxcl_info_return(&mem->backing.spec, sizeof(cl_image_format), size, value, size_ret);
    case CL_IMAGE_ELEMENT_SIZE:
        return dxcl_info_return(&element, sizeof(element), size, value, size_ret);
    case CL_IMAGE_ROW_PITCH:
        return dxcl_info_return(&row, sizeof(row), size, value, size_ret);
    case CL_IMAGE_SLICE_PITCH:
        return dxcl_info_return(&slice, sizeof(slice), size, value, size_ret);
    }
    *answered = false;
    return CL_SUCCESS;
}

/* Emulated formats and zero-copy objects: what a driver object of the spec's format, created
 * without a host pointer, reports. */
static cl_int spec_mem_info(const struct dxcl_memobj *mem, cl_mem_info param, size_t size,
                            void *value, size_t *size_ret, bool *answered)
{
    bool image = mem->desc.type != CL_MEM_OBJECT_BUFFER;
    size_t bytes = image ? spec_element_size(mem) * mem->desc.width * mem->desc.height *
                               (mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1)
                         : mem->desc.size;
    cl_mem_flags flags = mem->flags ? mem->flags : CL_MEM_READ_WRITE;
    void *host_ptr = NULL;

    *answered = true;
    switch (param) {
    case CL_MEM_SIZE:
        return dxcl_info_return(&bytes, sizeof(bytes), size, value, size_ret);
    case CL_MEM_FLAGS:
        return dxcl_info_return(&flags, sizeof(flags), size, value, size_ret);
    case CL_MEM_HOST_PTR:
        return dxcl_info_return(&host_ptr, sizeof(host_ptr), size, value, size_ret);
    }
    *answered = false;
    return CL_SUCCESS;
}

cl_int CL_API_CALL DXCL_IMPL(clGetMemObjectInfo)(cl_mem memobj, cl_mem_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
    bool answered;
    cl_int err = backend_query(memobj, false, param_name, param_value_size, param_value,
                               param_value_size_ret, &answered);
    struct dxcl_memobj *mem;

    if (answered)
        return err;
    mem = dxcl_image_record(memobj);
    if (mem && (mem->backing.emulated || mem->host_copy.data)) {
        err = spec_mem_info(mem, param_name, param_value_size, param_value, param_value_size_ret,
                            &answered);
        if (answered)
            return err;
    }
    return DXCL_DRIVER_CALL_INT(clGetMemObjectInfo, (memobj, param_name, param_value_size,
                                                     param_value, param_value_size_ret));
}

cl_int CL_API_CALL DXCL_IMPL(clGetImageInfo)(cl_mem image, cl_image_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret)
{
    bool answered;
    cl_int err = backend_query(image, true, param_name, param_value_size, param_value,
                               param_value_size_ret, &answered);
    struct dxcl_memobj *mem;

    if (answered)
        return err;
    mem = dxcl_image_record(image);
    if (mem && (mem->backing.emulated || mem->host_copy.data)) {
        err = emulated_image_info(mem, param_name, param_value_size, param_value,
                                  param_value_size_ret, &answered);
        if (answered)
            return err;
    }
    return DXCL_DRIVER_CALL_INT(
        clGetImageInfo, (image, param_name, param_value_size, param_value, param_value_size_ret));
}
