/* Creation and teardown of shared objects (engine/lifetime.h). */
#include "engine/lifetime.h"
#include "core/api.h"
#include "core/driver.h"
#include "core/fault.h"
#include "core/registry.h"
#include "engine/copy.h"
#include "engine/zerocopy.h"
#include "formats/formats.h"

#include <stdlib.h>

cl_int dxcl_check_shared_flags(cl_mem_flags flags)
{
    const cl_mem_flags access = CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE;

    if ((flags & ~access) || (flags && (flags & (flags - 1))))
        return DXCL_FAIL(CL_INVALID_VALUE,
                         "flags 0x%llx: only one of READ_ONLY, WRITE_ONLY, READ_WRITE",
                         (unsigned long long)flags);
    return CL_SUCCESS;
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

cl_mem dxcl_memobj_create(struct dxcl_context *ctx, cl_mem_flags flags,
                          const struct dxcl_shared_desc *desc, cl_int *errcode_ret)
{
    struct dxcl_memobj *mem = dxcl_calloc(1, sizeof(*mem));
    bool surface_taken = false;
    bool duplicate;
    cl_int err;

    if (!mem)
        return fail_memobj(ctx, desc, NULL, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    duplicate = desc->unique && dxcl_memobj_exists(ctx, desc);
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
    if ((err = dxcl_memobj_attach(ctx, mem, &surface_taken)) != CL_SUCCESS) {
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
        dxcl_surface_out(mem, false);
        dxcl_device_leave(surface->backend, protection);
    }
    dxcl_surface_unref(surface);
    free(mem->convert_buffer);
    free(mem);
    dxcl_context_unref(ctx);
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseMemObject)(cl_mem memobj)
{
    cl_int err;
    struct dxcl_memobj *mem;

    dxcl_zero_copy_before_release(memobj);
    err = DXCL_DRIVER_CALL_INT(clReleaseMemObject, (memobj));
    if (err != CL_SUCCESS)
        return err;
    if ((mem = dxcl_memobj_released(memobj)))
        destroy_memobj(mem);
    dxcl_released(memobj);
    return err;
}
