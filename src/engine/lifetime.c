/* Creation and teardown of shared objects (engine/lifetime.h). */
#include "engine/lifetime.h"
#include "core/api.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/event.h"
#include "core/fault.h"
#include "core/registry.h"
#include "core/waiter.h"
#include "core/watch.h"
#include "engine/copy.h"
#include "engine/gpu_hooks.h"
#include "engine/object.h"
#include "engine/zerocopy.h"
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>

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
    void *host = dxcl_object_of_const(mem)->host_copy.data;

    return dxcl_driver()->clCreateBuffer(ctx->handle, flags | (host ? CL_MEM_USE_HOST_PTR : 0),
                                         mem->desc.size, host, err);
}

static cl_mem create_image(struct dxcl_context *ctx, cl_mem_flags flags,
                           const struct dxcl_memobj *mem, cl_int *err)
{
    const struct dxcl_object *obj = dxcl_object_of_const(mem);
    const struct dxcl_shared_desc *desc = &mem->desc;
    bool is_3d = desc->type == CL_MEM_OBJECT_IMAGE3D;
    void *host = obj->host_copy.data;
    cl_image_desc image = {.image_type = desc->type,
                           .image_width = desc->width,
                           .image_height = desc->height,
                           .image_depth = is_3d ? desc->depth : 1};

    if (host) {
        image.image_row_pitch = obj->host_copy.row_pitch;
        image.image_slice_pitch = is_3d ? obj->host_copy.slice_pitch : 0;
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

static bool same_choice(const struct dxcl_backing_choice *c, cl_mem_flags flags,
                        const struct dxcl_shared_desc *desc)
{
    return c->flags == flags && c->type == desc->type &&
           c->format.image_channel_order == desc->format.image_channel_order &&
           c->format.image_channel_data_type == desc->format.image_channel_data_type &&
           c->width == desc->width && c->height == desc->height && c->depth == desc->depth;
}

/* A backing chosen before on the context for the same flags, format and size. */
static bool chosen_before(struct dxcl_engine_context *engine, cl_mem_flags flags,
                          struct dxcl_memobj *mem)
{
    bool found = false;

    AcquireSRWLockShared(&engine->backing_lock);
    for (unsigned i = 0; i < engine->backing_count && !found; i++)
        if ((found = same_choice(&engine->backing_choices[i], flags, &mem->desc)))
            mem->backing = engine->backing_choices[i].backing;
    ReleaseSRWLockShared(&engine->backing_lock);
    return found;
}

static void remember_choice(struct dxcl_engine_context *engine, cl_mem_flags flags,
                            const struct dxcl_memobj *mem)
{
    struct dxcl_backing_choice choice = {flags,           mem->desc.type,   mem->desc.format,
                                         mem->desc.width, mem->desc.height, mem->desc.depth,
                                         mem->backing};

    AcquireSRWLockExclusive(&engine->backing_lock);
    engine->backing_choices[engine->backing_next] = choice;
    engine->backing_next = (engine->backing_next + 1) % DXCL_BACKING_CHOICES;
    if (engine->backing_count < DXCL_BACKING_CHOICES)
        engine->backing_count++;
    ReleaseSRWLockExclusive(&engine->backing_lock);
}

/* choose_backing, once for each flags, format and size on a context (objects made every frame
 * would otherwise read the driver's format lists and limits each time); failures are not kept,
 * so that each says why in the log. */
static cl_int choose_backing_once(struct dxcl_context *ctx, cl_mem_flags flags,
                                  struct dxcl_memobj *mem)
{
    struct dxcl_engine_context *engine = dxcl_engine_context(ctx);
    cl_int err;

    if (mem->desc.type == CL_MEM_OBJECT_BUFFER || !engine)
        return choose_backing(ctx, flags, mem);
    if (chosen_before(engine, flags, mem))
        return CL_SUCCESS;
    if ((err = choose_backing(ctx, flags, mem)) == CL_SUCCESS)
        remember_choice(engine, flags, mem);
    return err;
}

static cl_mem create_object(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem, cl_int *err)
{
    return mem->desc.type == CL_MEM_OBJECT_BUFFER ? create_buffer(ctx, flags, mem, err)
                                                  : create_image(ctx, flags, mem, err);
}

/* The driver object the surface kept from its last object, where it was made for this one's
 * access and stands on the memory this one would (the staging mapping for zero-copy, else the
 * driver's own); released otherwise. */
static cl_mem take_kept(struct dxcl_kept_object *kept, cl_mem_flags flags, const void *host)
{
    struct dxcl_kept_object was = *kept;

    if (!was.handle)
        return NULL;
    *kept = (struct dxcl_kept_object){0};
    if (was.flags == flags && was.host == host) {
        DXCL_LOG("driver object %p: kept from the last object of this description, taken again",
                 (void *)was.handle);
        return was.handle;
    }
    dxcl_driver()->clReleaseMemObject(was.handle);
    return NULL;
}

/* The driver object: on the surface's host copy when it can be (zero-copy), else its own; a
 * kept one of the last object of the same description where it fits. */
static cl_mem create_driver_object(struct dxcl_context *ctx, cl_mem_flags flags,
                                   struct dxcl_memobj *mem, cl_int *err)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    struct dxcl_kept_object kept = mem->desc.kept;
    struct dxcl_device_storage twin;
    cl_mem handle;

    mem->desc.kept = (struct dxcl_kept_object){0};
    flags = flags ? flags : CL_MEM_READ_WRITE;
    if ((*err = choose_backing_once(ctx, flags, mem)) != CL_SUCCESS) {
        take_kept(&kept, 0, NULL);
        return NULL;
    }
    if (dxcl_gpu_hooks()->probe(ctx, mem, &twin)) {
        take_kept(&kept, 0, NULL); /* a staging copy's: the twin replaced it */
        obj->on_gpu = true;
        obj->imported = !twin.host_import;
        obj->direct = twin.direct;
        obj->host_copy = twin.host;
        obj->ready = twin.ready; /* the twin's: it goes with it */
        obj->layer_device = twin.layer_device;
        if (twin.import) { /* the pooled twin's, its last object's handle, dxcl's alone now */
            *err = CL_SUCCESS;
            obj->from_kept = true;
            return twin.import;
        }
        if (twin.host_import && !(handle = create_object(ctx, flags, mem, err)))
            *err = DXCL_FAIL(*err, "the driver refused CL_MEM_USE_HOST_PTR on the twin");
        else if (!twin.host_import &&
                 !(handle = dxcl_gpu_hooks()->import(ctx, flags, mem, &twin, err)))
            *err = DXCL_FAIL(*err, "the driver could not import the twin of resource %p",
                             (void *)mem->desc.resource);
        return handle;
    }
    if (mem->desc.lone_plane) { /* the copy engine copies whole slices: planes share them */
        take_kept(&kept, 0, NULL);
        *err = DXCL_FAIL(CL_OUT_OF_RESOURCES,
                         "plane %u of resource %p has no twin on the GPU (see above)",
                         mem->desc.plane, (void *)mem->desc.resource);
        return NULL;
    }
    if (dxcl_zero_copy_probe(ctx, mem, &obj->host_copy)) {
        if ((handle = take_kept(&kept, flags, obj->host_copy.data))) {
            obj->from_kept = true;
            *err = CL_SUCCESS;
            return handle;
        }
        if ((handle = create_object(ctx, flags, mem, err)))
            return handle;
        DXCL_LOG("the driver refused CL_MEM_USE_HOST_PTR on the staging copy (%d): copies", *err);
        obj->host_copy = (struct dxcl_mapping){0};
    }
    if ((handle = take_kept(&kept, flags, NULL))) {
        obj->from_kept = true;
        *err = CL_SUCCESS;
        return handle;
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
    /* Not taken yet (the object failed before its driver object): released. */
    cl_mem kept = mem ? mem->desc.kept.handle : desc->kept.handle;

    if (kept)
        dxcl_driver()->clReleaseMemObject(kept);
    if (desc->surface_data) {
        struct dxcl_surface temp = {.backend = desc->backend,
                                    .context = ctx,
                                    .resource = desc->resource,
                                    .backend_data = desc->surface_data};
        desc->backend->destroy_surface(&temp);
    }
    free(mem ? dxcl_object_of(mem) : NULL);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_mem dxcl_memobj_create(struct dxcl_context *ctx, cl_mem_flags flags,
                          const struct dxcl_shared_desc *desc, cl_int *errcode_ret)
{
    struct dxcl_object *object = dxcl_calloc(1, sizeof(*object));
    struct dxcl_memobj *mem = object ? &object->record : NULL;
    bool surface_taken = false;
    bool duplicate;
    cl_int err;

    if (!mem)
        return fail_memobj(ctx, desc, NULL, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    mem->desc = *desc;
    duplicate = desc->unique && dxcl_memobj_exists(ctx, desc);
    if (duplicate)
        return fail_memobj(ctx, desc, mem,
                           DXCL_FAIL(desc->backend->errors.invalid_resource,
                                     "a cl_mem of resource %p subresource %u plane %u exists",
                                     (void *)desc->resource, desc->subresource, desc->plane),
                           errcode_ret);
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
    mem->surface->gpu_synced = object->ready != NULL;
    mem->surface->hand_in_device = object->layer_device;
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
             dxcl_object_of(mem)->on_gpu           ? " (GPU path)"
             : dxcl_object_of(mem)->host_copy.data ? " (zero-copy)"
                                                   : "");
    return mem->handle;
}

cl_mem dxcl_create_shared(const char *name, cl_context context, const struct dxcl_backend *backend,
                          cl_mem_flags flags, dxcl_prepare_fn prepare, const void *args,
                          cl_int *errcode_ret)
{
    struct dxcl_shared_desc desc = {.access = flags ? flags : CL_MEM_READ_WRITE};
    struct dxcl_context *ctx;
    cl_mem mem = NULL;
    cl_int err;

    dxcl_finish_parked();
    err = dxcl_context_get(context, backend, &ctx);

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
 * driver object's storage is the staging memory). dxcl knows the driver is done from its own
 * events: the upload's, and markers it queues behind everything the program queued on the
 * context's queues (fences), never from reference counts (the spec calls them unfit for
 * that). Until then the record is parked: the waiter finishes it where the device allows
 * dxcl's own thread (struct dxcl_context's any_thread), otherwise the program's next call into
 * dxcl (a creation, an acquire, a release, a clReleaseMemObject) on any thread. */

static struct dxcl_memobj *parked; /* teardowns for program threads; guarded by dxcl_lock */
static volatile LONG parked_count;

static cl_int event_status(cl_event event)
{
    cl_int status = CL_COMPLETE;

    if (dxcl_driver()->clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                      &status, NULL) != CL_SUCCESS)
        return CL_COMPLETE; /* no such event: nothing to wait for */
    return status;
}

/* Markers behind what the program queued: on each queue of the context it holds, and on the
 * queue dxcl last used for the object (the program may have released that one). */
static void fence(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    obj->fenced = true;
    obj->fences = dxcl_fence_context_queues(mem->context->handle, 1, &obj->fence_count);
    if (obj->fences && obj->queue &&
        dxcl_driver()->clEnqueueMarkerWithWaitList(obj->queue, 0, NULL,
                                                   &obj->fences[obj->fence_count]) == CL_SUCCESS)
        dxcl_driver()->clFlush(obj->queue), obj->fence_count++;
}

/* DXCL_KEEP_DRIVER_OBJECTS=0: the copy engine's driver objects die with their objects (for
 * comparison; the GPU path's imports are kept either way). */
bool dxcl_keeping_allowed(void)
{
    static volatile LONG off;

    return !dxcl_setting_is(&off, "KEEP_DRIVER_OBJECTS", "0");
}

/* Whether the object's driver object may outlive it for the next object of its description
 * (docs/design.md, "Kept driver objects"): the GPU path's imports, and the copy engine's
 * objects where the backend keeps driver objects with its idle surfaces; never one the program
 * watches (its destructor callback runs at its end), nor one whose storage is memory that
 * zero-copy left behind (the staging mapping moved). */
static bool may_keep(const struct dxcl_memobj *mem)
{
    const struct dxcl_object *obj = dxcl_object_of_const(mem);

    if (mem->watched || obj->moved)
        return false;
    return obj->on_gpu || (mem->desc.backend->keeps_driver_objects && dxcl_keeping_allowed());
}

/* A copied object (the driver's own memory) that may be kept: the next object's upload into
 * that memory must not overtake a command of this one still queued. */
static bool copied_and_kept(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    return !obj->on_gpu && !obj->host_copy.data && may_keep(mem);
}

/* Whether the teardown waits for the driver's commands (the fences). dxcl's memory under the
 * driver object (a host copy) must outlive them, and a kept driver object must be done with
 * them before the next object uses it. An imported object's memory is the driver's import,
 * which keeps it alive (Vulkan's external-memory payloads are counted), and the next user of
 * the texture waits for this object's release on the GPU (its hand-out): only an import the
 * driver still holds (released while acquired) or with `ready` signalled for it is handed back
 * first, and that waits (dxcl_zero_copy_hand_back). */
static bool needs_fences(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->host_copy.data || copied_and_kept(mem))
        return true;
    return obj->imported && (obj->device_held || mem->surface->ready_signalled);
}

/* The driver still uses dxcl's memory for the object. Never blocks on the program's work. */
static bool driver_busy(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->pending_write) {
        if (event_status(obj->pending_write) > CL_COMPLETE)
            return true;
        dxcl_driver()->clReleaseEvent(obj->pending_write);
        obj->pending_write = NULL;
    }
    if (!needs_fences(mem))
        return false;
    if (!obj->fenced)
        fence(mem);
    while (obj->fence_count) {
        if (event_status(obj->fences[obj->fence_count - 1]) > CL_COMPLETE)
            return true;
        dxcl_driver()->clReleaseEvent(obj->fences[--obj->fence_count]);
    }
    /* A zero-copy object rests mapped for Direct3D between a release and the next acquire:
     * the driver's mapping goes before its object (no command of the program's is left). */
    dxcl_zero_copy_hand_back(mem);
    return false;
}

/* The driver is still busy after a few milliseconds: the fences of an idle queue complete
 * sooner, and a teardown finished here leaves nothing for the waiter (nor in the driver when
 * the program exits right after). Longer work, which may wait for the program, parks. */
static bool driver_busy_for_long(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    /* The GPU path, and a copied object to be kept: the commands complete by themselves while
     * the context has no user event unset (a release waited for them, or the GPU path's did
     * not); waiting for them here costs less than polls that sleep (objects made and destroyed
     * every frame). */
    if ((obj->imported || copied_and_kept(mem)) && needs_fences(mem) &&
        dxcl_unset_user_events(mem->context->handle) == 0) {
        if (!obj->fenced)
            fence(mem);
        DXCL_LOG("memobj %p: its teardown waits for %zu fences", (void *)mem->handle,
                 obj->fence_count);
        if (obj->fence_count)
            dxcl_driver()->clWaitForEvents((cl_uint)obj->fence_count, obj->fences);
    }
    for (int polls = 0; polls < 8; polls++) {
        if (!driver_busy(mem))
            return false;
        Sleep(polls < 4 ? 0 : 1);
    }
    return true;
}

/* An object released while acquired has its surface in host memory: it goes back to Direct3D
 * unwritten (the program dropped the object, and its OpenCL contents with it). */
static void give_surface_back(struct dxcl_memobj *mem)
{
    struct dxcl_surface *surface = mem->surface;
    void *protection;
    bool acquired;

    dxcl_lock_exclusive();
    acquired = mem->state == DXCL_ACQUIRED && !dxcl_object_of(mem)->lazy_pending;
    if (acquired)
        mem->state = DXCL_IDLE; /* the record is no one else's any more */
    dxcl_unlock_exclusive();
    if (!acquired)
        return;
    DXCL_LOG("memobj %p released while acquired: its OpenCL contents are dropped",
             (void *)mem->handle);
    protection = dxcl_device_enter(surface->backend, mem->context);
    dxcl_surface_out(mem, false);
    dxcl_device_hand_overs(surface->backend, mem->context);
    dxcl_device_leave(surface->backend, protection);
}

/* The driver object stays with the surface for the next object of its description
 * (may_keep), unless something else may still see it: the driver's count is above dxcl's one
 * reference (an image or sub-buffer the program made from it), or the program left it mapped.
 * The driver is done with the object's commands when this is asked (the fences). */
static bool keep_driver_object(struct dxcl_memobj *mem)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_uint refs = 0, maps = 0;

    if (!may_keep(mem) || mem->surface->kept.handle)
        return false;
    return drv->clGetMemObjectInfo(mem->handle, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs,
                                   NULL) == CL_SUCCESS &&
           refs == 1 &&
           drv->clGetMemObjectInfo(mem->handle, CL_MEM_MAP_COUNT, sizeof(maps), &maps, NULL) ==
               CL_SUCCESS &&
           maps == 0;
}

/* dxcl's reference on the driver object, at the end of the teardown: kept with the surface, or
 * released. */
static void let_go(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (keep_driver_object(mem)) {
        mem->surface->kept = (struct dxcl_kept_object){
            mem->handle, mem->flags ? mem->flags : CL_MEM_READ_WRITE, obj->host_copy.data};
        return;
    }
    dxcl_driver()->clReleaseMemObject(mem->handle);
}

/* Everything the object owns goes: dxcl's driver object before the staging memory it may stand
 * on returns to the pool, and the context's record last (dxcl's driver reference holds the
 * driver's context until then). */
static void finish(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    struct dxcl_surface *surface = mem->surface;
    struct dxcl_context *ctx = mem->context;

    give_surface_back(mem);
    if (obj->held_since)
        dxcl_driver()->clReleaseEvent(obj->held_since);
    if (obj->held_on)
        dxcl_driver()->clReleaseCommandQueue(obj->held_on);
    if (obj->queue)
        dxcl_driver()->clReleaseCommandQueue(obj->queue);
    let_go(mem);
    dxcl_surface_unref(surface);
    dxcl_context_unref(ctx);
    free(obj->fences);
    dxcl_conversion_free(mem);
    DXCL_LOG("memobj %p: torn down", (void *)mem->handle);
    free(obj);
}

/* What a busy object's teardown waits for now (driver_busy stopped at it). */
static cl_event awaited_event(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->pending_write)
        return obj->pending_write;
    return obj->fence_count ? obj->fences[obj->fence_count - 1] : NULL;
}

/* The waiter finishes a parked teardown once the driver is done, where the device allows it;
 * the next round comes when what it waits for completes (core/watch.h). */
static bool poll_teardown(void *arg)
{
    struct dxcl_memobj *mem = arg;

    if (driver_busy(mem)) {
        dxcl_watch_event(awaited_event(mem));
        return false;
    }
    finish(mem);
    return true;
}

static void park(struct dxcl_memobj *mem)
{
    DXCL_LOG("memobj %p: the driver still uses it; its teardown waits", (void *)mem->handle);
    if (mem->context->any_thread && dxcl_waiter_poll(poll_teardown, mem))
        return;
    dxcl_lock_exclusive();
    dxcl_object_of(mem)->next_parked = parked;
    parked = mem;
    InterlockedIncrement(&parked_count);
    dxcl_unlock_exclusive();
}

/* On a program thread. An object released while acquired gives its surface back to Direct3D
 * at once: the surface keeps its resource and staging copy referenced until the driver is
 * done, and their memory stays where the driver reads it while Direct3D has it unmapped (what
 * zero-copy relies on between acquires anyway); so the rest waits for the driver without the
 * immediate context. */
static void teardown(struct dxcl_memobj *mem)
{
    give_surface_back(mem);
    if (driver_busy_for_long(mem))
        park(mem);
    else
        finish(mem);
}

void dxcl_memobj_put(struct dxcl_memobj *mem)
{
    if (dxcl_memobj_unhold(mem))
        teardown(mem);
}

void dxcl_finish_parked(void)
{
    struct dxcl_memobj *list, *next, *kept = NULL;

    if (!InterlockedCompareExchange(&parked_count, 0, 0))
        return;
    dxcl_lock_exclusive();
    list = parked;
    parked = NULL;
    InterlockedExchange(&parked_count, 0);
    dxcl_unlock_exclusive();
    for (; list; list = next) {
        next = dxcl_object_of(list)->next_parked;
        if (!driver_busy(list)) {
            finish(list);
            continue;
        }
        dxcl_object_of(list)->next_parked = kept;
        kept = list;
    }
    for (; kept; kept = next) {
        next = dxcl_object_of(kept)->next_parked;
        dxcl_lock_exclusive();
        dxcl_object_of(kept)->next_parked = parked;
        parked = kept;
        InterlockedIncrement(&parked_count);
        dxcl_unlock_exclusive();
    }
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
