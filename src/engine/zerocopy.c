/* Zero-copy shared objects (see zerocopy.h and docs/design.md, "Zero-copy"). */
#include "engine/zerocopy.h"
#include "core/context.h"
#include "core/env.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/event.h"
#include "engine/gpu_hooks.h"
#include "engine/object.h"

#include <stdlib.h>
#include <string.h>

/* DXCL_ZERO_COPY=0 turns zero-copy off (for comparison, and as an escape hatch). */
bool dxcl_zero_copy_allowed(void)
{
    static volatile LONG off;

    return !dxcl_setting_is(&off, "ZERO_COPY", "0");
}

bool dxcl_host_unified(cl_context context)
{
    const struct dxcl_driver *drv = dxcl_driver();
    size_t count;
    cl_device_id *devices = dxcl_driver_context_devices(context, &count);
    cl_bool unified = count > 0;

    for (size_t i = 0; i < count && unified; i++)
        if (drv->clGetDeviceInfo(devices[i], CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified),
                                 &unified, NULL) != CL_SUCCESS)
            unified = CL_FALSE;
    free(devices);
    return unified;
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
    struct dxcl_surface probe = dxcl_surface_to_be(ctx, mem);
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

void dxcl_remember_queue(struct dxcl_memobj *mem, cl_command_queue queue)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->queue == queue)
        return;
    dxcl_driver()->clRetainCommandQueue(queue);
    if (obj->queue)
        dxcl_driver()->clReleaseCommandQueue(obj->queue);
    obj->queue = queue;
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
        return dxcl_gpu_hooks()->hand_in(queue, mem, num_events, wait_list, event);
    if (obj->on_gpu && (err = dxcl_gpu_hooks()->wait_hand_in(mem)) != CL_SUCCESS)
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
    dxcl_remember_queue(mem, queue);
    return CL_SUCCESS;
}

cl_int dxcl_zero_copy_to_host(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                              cl_event *event)
{
    cl_int err = CL_SUCCESS;
    void *mapped;

    if (dxcl_object_of(mem)->imported)
        return dxcl_gpu_hooks()->hand_out(queue, mem, after, event);
    mapped = map_object(queue, mem, CL_MAP_READ | CL_MAP_WRITE, 1, &after, event, &err);
    if (!mapped)
        return err;
    dxcl_object_of(mem)->host_mapped = mapped;
    if (dxcl_object_of(mem)->on_gpu) /* the test-only import: Direct3D waits for the map */
        dxcl_gpu_hooks()->released_at(mem, *event);
    dxcl_remember_queue(mem, queue);
    return CL_SUCCESS;
}

cl_command_queue dxcl_own_queue(struct dxcl_memobj *mem)
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

bool dxcl_zero_copy_hand_back(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    cl_command_queue queue;
    cl_event done;

    if (obj->imported)
        return dxcl_gpu_hooks()->give_back(mem);
    if (!obj->host_mapped)
        return true;
    if (!(queue = dxcl_own_queue(mem)) ||
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
