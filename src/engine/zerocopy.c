/* Zero-copy shared objects (see zerocopy.h and docs/design.md, "Zero-copy"). */
#include "engine/zerocopy.h"
#include "core/context.h"
#include "core/env.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/event.h"
#include "engine/gpu_path.h"
#include "engine/object.h"

#include <stdlib.h>
#include <string.h>

/* DXCL_ZERO_COPY=0 turns zero-copy off (for comparison, and as an escape hatch). */
bool dxcl_zero_copy_allowed(void)
{
    static LONG state; /* 0 unknown, 1 allowed, 2 off */
    char value[8];

    if (state == 0) {
        DWORD len = dxcl_getenv("ZERO_COPY", value, sizeof(value));
        InterlockedExchange(&state, len && !strcmp(value, "0") ? 2 : 1);
    }
    return state == 1;
}

static bool stable_mapping(struct dxcl_surface *surface, struct dxcl_mapping *host)
{
    void *protection = dxcl_device_enter(surface->backend, surface->context);
    bool stable = surface->backend->stable_host_copy(surface, host);

    dxcl_device_leave(surface->backend, protection);
    return stable;
}

static const char *no_zero_copy_reason(struct dxcl_context *ctx, const struct dxcl_memobj *mem)
{
    if (!mem->desc.backend->stable_host_copy)
        return "the backend has no persistent host copy";
    if (mem->desc.share_surface)
        return "planes share their surface";
    if (mem->backing.emulated)
        return "the format is emulated (the layouts differ)";
    if (mem->desc.type == CL_MEM_OBJECT_IMAGE3D)
        return "3D staging memory moves on copies (seen on wined3d)";
    if (!dxcl_zero_copy_allowed())
        return "DXCL_ZERO_COPY=0";
    if (!dxcl_host_unified(ctx->handle))
        return "a device of the context does not share host memory";
    return NULL;
}

bool dxcl_zero_copy_probe(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                          struct dxcl_mapping *host)
{
    struct dxcl_surface probe = {.backend = mem->desc.backend,
                                 .context = ctx,
                                 .resource = mem->desc.resource,
                                 .subresource = mem->desc.surface_subresource,
                                 .backend_data = mem->desc.surface_data};
    const char *reason = no_zero_copy_reason(ctx, mem);

    if (!reason && !stable_mapping(&probe, host))
        reason = "the staging mapping moves (seen between two maps)";
    if (reason)
        DXCL_LOG("%s resource %p: copies (%s)", mem->desc.backend->name, (void *)mem->desc.resource,
                 reason);
    return !reason;
}

bool dxcl_zero_copy_in_place(struct dxcl_memobj *mem, const char *caller)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_mapping *now = &mem->surface->mapping;

    if (obj->imported) /* a twin never moves */
        return true;
    if (now->data == obj->host_copy.data && now->row_pitch == obj->host_copy.row_pitch)
        return true;
    /* The driver keeps the old memory as the object's storage (a cl_mem cannot be re-bound);
     * from now on Direct3D's memory and the driver's are two, and bytes move between them by
     * copies, as for any copied object. The driver's resting mapping of the old memory goes
     * first, so that no hand-over touches it again. */
    DXCL_LOG("%s: the staging copy of %p moved (%p, was %p): zero-copy ends, the object copies "
             "from now on",
             caller, (void *)mem->handle, now->data, obj->host_copy.data);
    InterlockedExchange(&obj->moved, 1);
    if (obj->host_mapped && !dxcl_zero_copy_hand_back(mem))
        DXCL_LOG("%s: %p stays mapped by the driver (the unmap could not be queued)", caller,
                 (void *)mem->handle);
    return false;
}

static void *map_object(cl_command_queue queue, struct dxcl_memobj *mem, cl_map_flags flags,
                        cl_uint num_events, const cl_event *wait_list, cl_event *event, cl_int *err)
{
    const struct dxcl_driver *drv = dxcl_driver();
    size_t origin[3] = {0, 0, 0}, region[3] = {mem->desc.width, mem->desc.height, 1};
    size_t row_pitch, slice_pitch;

    if (mem->desc.type == CL_MEM_OBJECT_BUFFER)
        return drv->clEnqueueMapBuffer(queue, mem->handle, CL_FALSE, flags, 0, mem->desc.size,
                                       num_events, wait_list, event, err);
    if (mem->desc.type == CL_MEM_OBJECT_IMAGE3D)
        region[2] = mem->desc.depth;
    return drv->clEnqueueMapImage(queue, mem->handle, CL_FALSE, flags, origin, region, &row_pitch,
                                  &slice_pitch, num_events, wait_list, event, err);
}

/* The queue dxcl last used for the object, retained, for the waits at the end. */
static void remember_queue(struct dxcl_memobj *mem, cl_command_queue queue)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->queue == queue)
        return;
    dxcl_driver()->clRetainCommandQueue(queue);
    if (obj->queue)
        dxcl_driver()->clReleaseCommandQueue(obj->queue);
    obj->queue = queue;
}

static cl_command_queue own_queue(struct dxcl_memobj *mem);

/* The driver's acquire may go on the program's queue itself: an in-order queue of a context
 * with no user event unset, where nothing queued can make the driver wait in the call (NVIDIA's
 * acquire waits for a user event in its wait list). It saves a wait across queues, which costs
 * NVIDIA's OpenCL a hop of its own behind OpenCL's wait for Direct3D's signal.
 * DXCL_GPU_ACQUIRE_QUEUE=own keeps dxcl's own queue (to compare). */
static bool acquire_on_program_queue(cl_command_queue queue, struct dxcl_memobj *mem)
{
    char value[8];

    if (dxcl_getenv("GPU_ACQUIRE_QUEUE", value, sizeof(value)) && !strcmp(value, "own"))
        return false;
    return dxcl_unset_user_events(mem->context->handle) == 0 && dxcl_queue_in_order(queue);
}

static void drop_held_since(struct dxcl_object *obj)
{
    if (obj->held_since)
        dxcl_driver()->clReleaseEvent(obj->held_since);
    if (obj->held_on)
        dxcl_driver()->clReleaseCommandQueue(obj->held_on);
    obj->held_since = NULL;
    obj->held_on = NULL;
}

/* An imported object: the driver's acquire of the memory at once, on dxcl's own queue (the
 * twin is already Direct3D's copy: nothing of the program's comes before it); a barrier orders
 * the program's queue after it (in order or not), and the program's event follows the wait
 * list. Any number of events: nothing is copied. */
static cl_int import_to_device(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    cl_event acquired = NULL;
    cl_command_queue own;
    cl_int err;

    remember_queue(mem, queue); /* own_queue's device */
    if (!obj->device_held && acquire_on_program_queue(queue, mem)) {
        drop_held_since(obj);
        if ((err = dxcl_gpu_path_acquire_now(queue, mem, &obj->held_since)) != CL_SUCCESS)
            return err;
        if (obj->held_since && dxcl_driver()->clRetainCommandQueue(queue) == CL_SUCCESS)
            obj->held_on = queue;
        obj->device_held = true;
        return dxcl_gpu_path_mark(queue, mem, num_events, wait_list, event);
    }
    if (!(own = own_queue(mem)))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "no queue of dxcl's own on the context");
    if (!obj->device_held) {
        if ((err = dxcl_gpu_path_acquire_now(own, mem, &acquired)) != CL_SUCCESS)
            return err;
        drv->clFlush(own);
        obj->device_held = true;
        err = drv->clEnqueueBarrierWithWaitList(queue, 1, &acquired, NULL);
        drv->clReleaseEvent(acquired);
        if (err != CL_SUCCESS)
            return err;
    }
    return dxcl_gpu_path_mark(queue, mem, num_events, wait_list, event);
}

cl_int dxcl_zero_copy_to_device(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    void *mapped = obj->host_mapped;
    cl_event map_event = NULL;
    cl_int err = CL_SUCCESS;

    if (obj->imported)
        return import_to_device(queue, mem, num_events, wait_list, event);
    if (obj->on_gpu && (err = dxcl_gpu_path_wait_hand_in(mem)) != CL_SUCCESS)
        return err;
    /* Not mapped (new, or not written at the last release): Direct3D has just written the
     * memory, so a map that keeps nothing and an unmap make the driver take it. */
    if (!mapped) {
        mapped = map_object(queue, mem, CL_MAP_WRITE_INVALIDATE_REGION, num_events, wait_list,
                            &map_event, &err);
        if (!mapped)
            return err;
        num_events = 1;
        wait_list = &map_event;
    }
    err = drv->clEnqueueUnmapMemObject(queue, mem->handle, mapped, num_events, wait_list, event);
    if (map_event)
        drv->clReleaseEvent(map_event);
    if (err != CL_SUCCESS)
        return err;
    obj->host_mapped = NULL;
    remember_queue(mem, queue);
    return CL_SUCCESS;
}

cl_int dxcl_zero_copy_to_host(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                              cl_event *event)
{
    cl_int err = CL_SUCCESS;
    void *mapped;

    /* The driver lets go now, and Direct3D's queue waits for that, unless the context has user
     * events the program has not set: NVIDIA's release then waits in the call for a wait list
     * that may hold one (dxcl_zero_copy_hand_back lets go once the release's commands are
     * done). */
    if (dxcl_object_of(mem)->imported && dxcl_object_of(mem)->device_held &&
        dxcl_unset_user_events(mem->context->handle) == 0) {
        if ((err = dxcl_gpu_path_release_for_direct3d(queue, mem, after, event)) == CL_SUCCESS) {
            dxcl_object_of(mem)->device_held = false;
            drop_held_since(dxcl_object_of(mem));
            remember_queue(mem, queue);
        }
        return err;
    }
    if (dxcl_object_of(mem)->imported) { /* the driver lets go at dxcl_zero_copy_hand_back */
        if ((err = dxcl_gpu_path_mark(queue, mem, 1, &after, event)) == CL_SUCCESS)
            remember_queue(mem, queue);
        return err;
    }
    mapped = map_object(queue, mem, CL_MAP_READ | CL_MAP_WRITE, 1, &after, event, &err);
    if (!mapped)
        return err;
    dxcl_object_of(mem)->host_mapped = mapped;
    if (dxcl_object_of(mem)->on_gpu) /* the test-only import: Direct3D waits for the map */
        dxcl_gpu_path_released_at(mem, *event);
    remember_queue(mem, queue);
    return CL_SUCCESS;
}

/* dxcl's own queue on the object's context (on the device dxcl last used it on), or NULL. */
static cl_command_queue own_queue(struct dxcl_memobj *mem)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_context *ctx = mem->context;
    struct dxcl_engine_context *engine = dxcl_engine_context(ctx);
    cl_command_queue queue, made;
    cl_device_id device;
    cl_int err;

    if (!engine)
        return NULL;
    if ((queue = engine->own_queue))
        return queue;
    if (drv->clGetCommandQueueInfo(dxcl_object_of(mem)->queue, CL_QUEUE_DEVICE, sizeof(device),
                                   &device, NULL) != CL_SUCCESS ||
        !(made = drv->clCreateCommandQueue(ctx->handle, device, 0, &err)))
        return NULL;
    if ((queue = InterlockedCompareExchangePointer((void **)&engine->own_queue, made, NULL))) {
        drv->clReleaseCommandQueue(made); /* another thread made one first */
        return queue;
    }
    return made;
}

/* An imported object the driver still holds (its acquire has no release: the program released
 * the object while acquired, or a refused overwrite is read in again) is released on dxcl's own
 * queue, waited for, before its memory can go back to Direct3D. Where the acquire went to the
 * program's queue, the release waits for it: the two queues are not ordered, and a release
 * that ran first would leave the acquire unmatched (NVIDIA's next acquire of the memory then
 * never completes). The program's queue is flushed for that wait. */
static bool give_back_import(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    cl_command_queue queue = own_queue(mem);
    cl_uint after = obj->held_since ? 1 : 0;
    cl_event done;
    cl_int err = CL_OUT_OF_RESOURCES;

    if (after && obj->held_on)
        drv->clFlush(obj->held_on);
    if (!queue || (err = dxcl_gpu_path_wait_ready(queue, mem, NULL)) != CL_SUCCESS ||
        (err = dxcl_gpu_path_release_now(queue, mem, after, after ? &obj->held_since : NULL,
                                         &done)) != CL_SUCCESS) {
        DXCL_LOG("%p: the driver's acquire of its memory could not be released (%d)",
                 (void *)mem->handle, err);
        return false;
    }
    DXCL_LOG("%p: the driver's acquire of its memory is released on dxcl's queue (the object "
             "was released while acquired, or is read in again)",
             (void *)mem->handle);
    drv->clWaitForEvents(1, &done);
    drv->clReleaseEvent(done);
    obj->device_held = false;
    drop_held_since(obj);
    return true;
}

bool dxcl_zero_copy_hand_back(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    cl_command_queue queue;
    cl_event done;

    if (obj->imported && obj->device_held) /* released while acquired: the driver lets go */
        return give_back_import(mem);
    /* Direct3D's signal that no acquire followed (a failed call, a teardown): OpenCL's wait
     * takes it, waited for on dxcl's own queue (nothing of the program's is on it), so that
     * the twin's semaphore rests unsignalled before Direct3D signals it again. */
    if (obj->imported && mem->surface->ready_signalled && (queue = own_queue(mem)) &&
        dxcl_gpu_path_wait_ready(queue, mem, &done) == CL_SUCCESS) {
        drv->clWaitForEvents(1, &done);
        drv->clReleaseEvent(done);
    }
    if (!obj->host_mapped)
        return true;
    if (!(queue = own_queue(mem)) ||
        drv->clEnqueueUnmapMemObject(queue, mem->handle, obj->host_mapped, 0, NULL, &done) !=
            CL_SUCCESS)
        return false;
    drv->clWaitForEvents(1, &done);
    drv->clReleaseEvent(done);
    obj->host_mapped = NULL;
    return true;
}

/* The unmap follows the map on the same queue: nothing needs to wait for it (the queue may
 * wait for the program). */
void dxcl_zero_copy_undo(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->host_mapped)
        dxcl_driver()->clEnqueueUnmapMemObject(obj->queue, mem->handle, obj->host_mapped, 0, NULL,
                                               NULL);
    obj->host_mapped = NULL;
}
