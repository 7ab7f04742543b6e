/* The GPU path's hand-overs of an imported object (see handover.h and docs/design.md, "The GPU
 * path"). */
#include "gpu/handover.h"
#include "core/env.h"
#include "core/driver.h"
#include "core/event.h"
#include "engine/object.h"
#include "engine/zerocopy.h"
#include "gpu/gpu_path.h"

#include <string.h>

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
cl_int dxcl_gpu_hand_in(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    cl_event acquired = NULL;
    cl_command_queue own;
    cl_int err;

    dxcl_remember_queue(mem, queue); /* dxcl_own_queue's device */
    if (!obj->device_held && acquire_on_program_queue(queue, mem)) {
        drop_held_since(obj);
        if ((err = dxcl_gpu_path_acquire_now(queue, mem, &obj->held_since)) != CL_SUCCESS)
            return err;
        if (obj->held_since && dxcl_driver()->clRetainCommandQueue(queue) == CL_SUCCESS)
            obj->held_on = queue;
        obj->device_held = true;
        return dxcl_gpu_path_mark(queue, mem, num_events, wait_list, event);
    }
    if (!(own = dxcl_own_queue(mem)))
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
    cl_command_queue queue = dxcl_own_queue(mem);
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

cl_int dxcl_gpu_hand_out(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                         cl_event *event)
{
    cl_int err = CL_SUCCESS;

    /* The driver lets go now, and Direct3D's queue waits for that, unless the context has user
     * events the program has not set: NVIDIA's release then waits in the call for a wait list
     * that may hold one (dxcl_zero_copy_hand_back lets go once the release's commands are
     * done). */
    if (dxcl_object_of(mem)->device_held && dxcl_unset_user_events(mem->context->handle) == 0) {
        if ((err = dxcl_gpu_path_release_for_direct3d(queue, mem, after, event)) == CL_SUCCESS) {
            dxcl_object_of(mem)->device_held = false;
            drop_held_since(dxcl_object_of(mem));
            dxcl_remember_queue(mem, queue);
        }
        return err;
    }
    /* Not now: the driver lets go at dxcl_zero_copy_hand_back. */
    if ((err = dxcl_gpu_path_mark(queue, mem, 1, &after, event)) == CL_SUCCESS)
        dxcl_remember_queue(mem, queue);
    return err;
}

bool dxcl_gpu_give_back(struct dxcl_memobj *mem)
{
    cl_command_queue queue;
    cl_event done;

    if (dxcl_object_of(mem)->device_held) /* released while acquired: the driver lets go */
        return give_back_import(mem);
    /* Direct3D's signal that no acquire followed (a failed call, a teardown): OpenCL's wait
     * takes it, waited for on dxcl's own queue (nothing of the program's is on it), so that
     * the twin's semaphore rests unsignalled before Direct3D signals it again. */
    if (mem->surface->ready_signalled && (queue = dxcl_own_queue(mem)) &&
        dxcl_gpu_path_wait_ready(queue, mem, &done) == CL_SUCCESS) {
        dxcl_driver()->clWaitForEvents(1, &done);
        dxcl_driver()->clReleaseEvent(done);
    }
    return true;
}
