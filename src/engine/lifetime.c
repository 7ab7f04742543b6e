/* Creation and teardown of shared objects (engine/lifetime.h). */
#include "engine/lifetime.h"
#include "compat/callbacks.h"
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

/* The driver format behind the object, for its access (formats/formats.h), once the devices
 * are known to hold its size: what they cannot hold fails here with a log line, not in the
 * driver. */
static cl_int choose_backing(struct dxcl_context *ctx, cl_mem_flags flags, struct dxcl_memobj *mem)
{
    const struct dxcl_shared_desc *desc = &mem->desc;
    size_t depth = desc->type == CL_MEM_OBJECT_IMAGE3D ? desc->depth : 1;
    cl_int err;

    if (desc->type == CL_MEM_OBJECT_BUFFER)
        return dxcl_check_buffer_size(ctx->handle, desc->size);
    if ((err = dxcl_check_image_size(ctx->handle, desc->type, &desc->format, desc->width,
                                     desc->height, depth)) != CL_SUCCESS)
        return err;
    if (dxcl_choose_backing(ctx->handle, flags, desc->type, &desc->format, &mem->backing) !=
        CL_SUCCESS)
        return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                         "the driver has no image format that can hold %s/%s",
                         dxcl_channel_order_name(desc->format.image_channel_order),
                         dxcl_channel_type_name(desc->format.image_channel_data_type));
    return mem->backing.emulated
               ? dxcl_check_image_size(ctx->handle, desc->type, &mem->backing.driver, desc->width,
                                       desc->height, depth)
               : CL_SUCCESS;
}

static cl_mem create_object(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem, cl_int *err)
{
    return mem->desc.type == CL_MEM_OBJECT_BUFFER ? create_buffer(ctx, flags, mem, err)
                                                  : create_image(ctx, flags, mem, err);
}

/* The driver object: on the surface's host copy when it can be (zero-copy), else its own. */
static cl_mem create_driver_object(struct dxcl_context *ctx, cl_mem_flags flags,
                                   struct dxcl_memobj *mem, cl_int *err)
{
    cl_mem handle;

    flags = flags ? flags : CL_MEM_READ_WRITE;
    if ((*err = choose_backing(ctx, flags, mem)) != CL_SUCCESS)
        return NULL;
    if (dxcl_zero_copy_probe(ctx, mem, &mem->host_copy)) {
        if ((handle = create_object(ctx, flags, mem, err)))
            return handle;
        DXCL_LOG("the driver refused CL_MEM_USE_HOST_PTR on the staging copy (%d): copies", *err);
        mem->host_copy = (struct dxcl_mapping){0};
    }
    if (!(handle = create_object(ctx, flags, mem, err)))
        *err = DXCL_FAIL(*err, "the driver could not create the %s of resource %p (%ux%ux%u)",
                         mem->desc.type == CL_MEM_OBJECT_BUFFER ? "buffer" : "image",
                         (void *)mem->desc.resource, (unsigned)mem->desc.width,
                         (unsigned)mem->desc.height, (unsigned)mem->desc.depth);
    return handle;
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
    mem->holds = 1; /* the program's, while the record is in the table */
    mem->backing.spec = desc->format;
    if (!(mem->handle = create_driver_object(ctx, flags, mem, &err)))
        return fail_memobj(ctx, desc, mem, err, errcode_ret);
    dxcl_context_ref(ctx);
    if ((err = dxcl_memobj_attach(ctx, mem, &surface_taken)) != CL_SUCCESS) {
        dxcl_context_unref(ctx);
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

/* Teardown. The program's clReleaseMemObject only drops its reference: the record leaves the
 * table at once, but what the object owns (the surface and its staging resource, the
 * references on the Direct3D resource and the context, dxcl's own driver reference) goes when
 * no dxcl call uses the record any more and the driver no longer uses dxcl's memory for it: an
 * upload still reading the staging mapping, or for a zero-copy object any command at all (the
 * driver object's storage is the staging memory). Until then the record is parked; parked
 * records are finished by later dxcl calls (creations, acquires, releases), on the program's
 * threads, because dxcl calls Direct3D only from inside the program's own OpenCL calls. */

static struct dxcl_memobj *parked; /* guarded by dxcl_lock */
static volatile LONG parked_count;

/* The driver still uses dxcl's memory for the object. Never blocks on the program's work. */
static bool driver_busy(struct dxcl_memobj *mem)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_int status = CL_COMPLETE;
    cl_uint refs = 1;

    if (mem->pending_write) {
        drv->clGetEventInfo(mem->pending_write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                            &status, NULL);
        if (status > CL_COMPLETE)
            return true;
        drv->clReleaseEvent(mem->pending_write);
        mem->pending_write = NULL;
    }
    if (!mem->host_copy.data)
        return false;
    /* A zero-copy object rests mapped for Direct3D between a release and the next acquire, and a
     * mapping holds the object in the driver (PoCL counts it). */
    dxcl_zero_copy_hand_back(mem);
    /* dxcl's own references are the last ones once no queued command holds the object: the
     * engine's, and the callback waiter's while it watches for the program's destructor
     * callbacks (which run once the engine's is gone). */
    drv->clGetMemObjectInfo(mem->handle, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL);
    return refs > 1 + dxcl_callbacks_references(mem->handle);
}

/* An object released while acquired has its surface in host memory: it goes back to Direct3D
 * unwritten (the program dropped the object, and its OpenCL contents with it). */
static void give_surface_back(struct dxcl_memobj *mem)
{
    struct dxcl_surface *surface = mem->surface;
    void *protection;

    if (mem->state != DXCL_ACQUIRED || mem->lazy_pending)
        return;
    DXCL_LOG("memobj %p released while acquired: its OpenCL contents are dropped",
             (void *)mem->handle);
    protection = dxcl_device_enter(surface->backend, mem->context);
    dxcl_surface_out(mem, false);
    dxcl_device_leave(surface->backend, protection);
    mem->state = DXCL_IDLE; /* the record is no one else's any more */
}

/* Everything the object owns goes, in an order that keeps each handle dxcl's until its record
 * is gone: the context's record before dxcl's driver reference (which holds the driver's
 * context) is dropped. */
static void finish(struct dxcl_memobj *mem)
{
    struct dxcl_surface *surface = mem->surface;
    struct dxcl_context *ctx = mem->context;

    give_surface_back(mem);
    if (mem->queue)
        dxcl_driver()->clReleaseCommandQueue(mem->queue);
    dxcl_surface_unref(surface);
    dxcl_context_unref(ctx);
    dxcl_driver()->clReleaseMemObject(mem->handle);
    dxcl_conversion_free(mem);
    free(mem);
}

/* A teardown that waited for the driver finishes on the callback waiter when the API's objects
 * may be released on any thread; otherwise inside the program's next call into dxcl. */
static bool needs_program_thread(const struct dxcl_memobj *mem)
{
    return !mem->surface->backend->free_threaded_release;
}

static volatile LONG waiter_polls; /* the waiter polls the parked list */
static bool poll_parked(void *arg);

static void park(struct dxcl_memobj *mem)
{
    bool waiter_may_finish = !needs_program_thread(mem); /* read before the waiter may free it */

    DXCL_LOG("memobj %p: the driver still uses it; its teardown waits", (void *)mem->handle);
    dxcl_lock_exclusive();
    mem->next_parked = parked;
    parked = mem;
    InterlockedIncrement(&parked_count);
    dxcl_unlock_exclusive();
    if (!waiter_may_finish)
        return;
    if (InterlockedExchange(&waiter_polls, 1))
        dxcl_waiter_wake(); /* the waiter polls already: look at this one now */
    else if (!dxcl_waiter_poll(poll_parked, NULL))
        InterlockedExchange(&waiter_polls, 0); /* program threads finish it */
}

/* On a program thread. An object released while acquired gives its surface back to Direct3D
 * at once: the surface keeps its resource and staging copy referenced until the driver is
 * done, and their memory stays where the driver reads it while Direct3D has it unmapped (what
 * zero-copy relies on between acquires anyway); so the rest waits for the driver without the
 * immediate context. */
static void teardown(struct dxcl_memobj *mem)
{
    give_surface_back(mem);
    if (driver_busy(mem))
        park(mem);
    else
        finish(mem);
}

void dxcl_memobj_put(struct dxcl_memobj *mem)
{
    if (dxcl_memobj_unhold(mem))
        teardown(mem);
}

/* Finishes the parked teardowns that can go now, on the waiter only those it may do; returns
 * whether some that the waiter may do are still waiting for the driver. */
static bool finish_parked(bool on_waiter)
{
    struct dxcl_memobj *list, *next, *kept = NULL;
    bool waiter_work = false;

    dxcl_lock_exclusive();
    list = parked;
    parked = NULL;
    InterlockedExchange(&parked_count, 0);
    dxcl_unlock_exclusive();
    for (; list; list = next) {
        next = list->next_parked;
        if ((!on_waiter || !needs_program_thread(list)) && !driver_busy(list)) {
            finish(list);
            continue;
        }
        waiter_work |= !needs_program_thread(list);
        list->next_parked = kept;
        kept = list;
    }
    for (; kept; kept = next) {
        next = kept->next_parked;
        dxcl_lock_exclusive();
        kept->next_parked = parked;
        parked = kept;
        InterlockedIncrement(&parked_count);
        dxcl_unlock_exclusive();
    }
    return waiter_work;
}

void dxcl_finish_parked(void)
{
    if (InterlockedCompareExchange(&parked_count, 0, 0))
        finish_parked(false);
}

/* A parked teardown the waiter may finish. */
static bool waiter_work_parked(void)
{
    bool found = false;

    dxcl_lock_exclusive();
    for (struct dxcl_memobj *mem = parked; mem && !found; mem = mem->next_parked)
        found = !needs_program_thread(mem);
    dxcl_unlock_exclusive();
    return found;
}

static bool poll_parked(void *arg)
{
    (void)arg;
    if (finish_parked(true))
        return false;
    InterlockedExchange(&waiter_polls, 0);
    /* A park between the pass and the reset registered no poller: it is this one's. */
    return !(waiter_work_parked() && !InterlockedExchange(&waiter_polls, 1));
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseMemObject)(cl_mem memobj)
{
    /* Before the driver's release: the program's last reference takes the record out of the
     * table, and dxcl keeps a driver reference of its own until the teardown, so that the
     * handle stays this object's until the record is gone. */
    struct dxcl_memobj *mem = dxcl_memobj_release_program_ref(memobj);
    cl_int err;

    if (mem && mem->surface)
        dxcl_driver()->clRetainMemObject(memobj);
    err = DXCL_DRIVER_CALL_INT(clReleaseMemObject, (memobj));
    if (err == CL_SUCCESS)
        dxcl_released(memobj);
    if (mem && !mem->surface) /* an ordinary emulated image: the driver's release was the last */
        free(mem);
    else if (mem)
        dxcl_memobj_put(mem); /* the program's hold */
    dxcl_finish_parked();
    return err;
}
