/* Lazy uploads (engine/lazy.h). */
#include "engine/lazy.h"
#include "engine/copy.h"
#include "engine/object.h"
#include "engine/zerocopy.h"
#include "core/env.h"
#include "core/fault.h"
#include "core/driver.h"

bool dxcl_lazy_allowed(void)
{
    static volatile LONG off;

    return !dxcl_setting_is(&off, "LAZY", "0");
}

/* DXCL_GPU_LAZY=1: objects on the GPU path are deferred too (as before 2026-11-29's fifth
 * session). By default an acquire hands them in at once, all of its objects in one batch of
 * the layer's, whose ~0.3 ms on NVIDIA then passes while the program queues its commands; a
 * first touch is one batch per object, on the calling thread (perf.md, "The H200, fifth
 * session"). What deferring saves there is small: a copy on the GPU, or a batch for an
 * overwrite (empty hand-ins). */
static bool gpu_objects_deferred(void)
{
    static volatile LONG deferred;

    return dxcl_setting_is(&deferred, "GPU_LAZY", "1");
}

bool dxcl_lazy_eligible(const struct dxcl_memobj *mem)
{
    /* Every family and format: the upload (and its conversion) is what is deferred. */
    return dxcl_lazy_allowed() && (!dxcl_object_of_const(mem)->on_gpu || gpu_objects_deferred());
}

/* Brings the surface in for `mem` as an acquire does (with its contents, or only mapped for a
 * command that overwrote them). The caller holds the program's Direct3D protection and the
 * object's lazy lock. */
static cl_int surface_in(struct dxcl_memobj *mem, bool contents)
{
    const struct dxcl_backend *backend = mem->surface->backend;
    cl_int err;

    dxcl_lock_device();
    err = dxcl_surface_in(mem, contents);
    if (err == CL_SUCCESS && (err = dxcl_device_hand_overs(backend, mem->context)) != CL_SUCCESS) {
        dxcl_surface_out(mem, false);
        dxcl_device_hand_overs(backend, mem->context);
    }
    dxcl_unlock_device();
    return err;
}

static void surface_out(struct dxcl_memobj *mem)
{
    dxcl_lock_device();
    dxcl_surface_out(mem, false);
    dxcl_device_hand_overs(mem->surface->backend, mem->context);
    dxcl_unlock_device();
}

/* The upload, and on an out-of-order queue a barrier so that every later command waits for it.
 * When the barrier fails the upload stays queued (*upload set, with the error): it reads the
 * mapping, which must then stay, and a later command orders itself after it
 * (order_after_upload). Nothing waits: the queue may wait for the program. */
static cl_int queue_upload(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller,
                           cl_event *upload)
{
    cl_int err;

    *upload = NULL;
    err = dxcl_fault_hit(DXCL_FAULT_UPLOAD)
              ? CL_OUT_OF_RESOURCES
              : dxcl_enqueue_upload(queue, mem, caller, 0, NULL, upload);
    if (err == CL_SUCCESS && !dxcl_queue_in_order(queue))
        err = DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList, (queue, 1, upload, NULL));
    return err;
}

/* The upload went to `queue` (NULL: later commands must order themselves after it). */
static void uploaded(struct dxcl_memobj *mem, cl_event upload, cl_command_queue queue)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->pending_write)
        dxcl_driver()->clReleaseEvent(obj->pending_write);
    obj->pending_write = upload;
    obj->lazy_queue = queue;
    obj->lazy_pending = 0;
}

static cl_int bring_in(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller)
{
    cl_event upload;
    cl_int err = surface_in(mem, true);

    if (err != CL_SUCCESS)
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the %s resource of %p could not be read", caller,
                         mem->desc.backend->name, (void *)mem->handle);
    if ((err = queue_upload(queue, mem, caller, &upload)) != CL_SUCCESS) {
        if (upload)
            uploaded(mem, upload, NULL); /* queued: its mapping stays */
        else
            surface_out(mem);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the upload of %p could not be queued (%d)",
                         caller, (void *)mem->handle, err);
    }
    uploaded(mem, upload, queue);
    DXCL_LOG("%s: %p needs its Direct3D contents: uploaded now", caller, (void *)mem->handle);
    return CL_SUCCESS;
}

/* A later command on another queue than the one the upload went to waits for it. */
static cl_int order_after_upload(cl_command_queue queue, struct dxcl_memobj *mem,
                                 const char *caller)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    cl_int err;

    if (!obj->pending_write || obj->lazy_queue == queue)
        return CL_SUCCESS;
    err = DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList, (queue, 1, &obj->pending_write, NULL));
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%s: cannot order the queue after the upload of %p", caller,
                         (void *)mem->handle);
    return CL_SUCCESS;
}

/* The program's protection, then the object's lazy lock, in that order (core/lock.h). */
static void *enter(struct dxcl_memobj *mem)
{
    const struct dxcl_backend *backend = mem->surface->backend;
    void *protection = backend->enter_device ? backend->enter_device(mem->context) : NULL;

    dxcl_take(&dxcl_object_of(mem)->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
    return protection;
}

static void leave(struct dxcl_memobj *mem, void *protection)
{
    dxcl_leave(&dxcl_object_of(mem)->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
    if (protection)
        mem->surface->backend->leave_device(protection);
}

/* Runs `step` inside enter() and leave(). */
static cl_int locked(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller,
                     cl_int (*step)(cl_command_queue, struct dxcl_memobj *, const char *))
{
    void *protection = enter(mem);
    cl_int err = step(queue, mem, caller);

    leave(mem, protection);
    return err;
}

/* A stale copied object (dxcl_lazy_rejected): its surface was only mapped for an overwrite the
 * driver refused; the resource is read in and uploaded as a first touch does. */
static cl_int reload(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller)
{
    cl_event upload = NULL;
    cl_int err;

    surface_out(mem);
    err = surface_in(mem, true);
    if (err == CL_SUCCESS)
        err = queue_upload(queue, mem, caller, &upload);
    if (upload)
        uploaded(mem, upload, err == CL_SUCCESS ? queue : NULL);
    if (err != CL_SUCCESS)
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the contents of %p could not be read in (%d)",
                         caller, (void *)mem->handle, err);
    dxcl_object_of(mem)->stale = false;
    DXCL_LOG("%s: %p read in again after a refused overwrite", caller, (void *)mem->handle);
    return CL_SUCCESS;
}

static cl_int touch(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (obj->lazy_pending)
        return bring_in(queue, mem, caller);
    if (obj->stale)
        return reload(queue, mem, caller);
    /* Another thread's first touch won: this command still comes after its upload. */
    return order_after_upload(queue, mem, caller);
}

cl_int dxcl_lazy_touch(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (!obj->lazy_pending && !obj->stale && (!obj->lazy_queue || obj->lazy_queue == queue))
        return CL_SUCCESS; /* touched already, on this queue (a hint: checked again locked) */
    return locked(queue, mem, caller, touch);
}

/* A copied object: its surface only mapped, for the release to download into. */
static cl_int map_for_overwrite(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    cl_int err;

    if ((err = surface_in(mem, false)) != CL_SUCCESS)
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the %s resource of %p could not be mapped",
                         caller, mem->desc.backend->name, (void *)mem->handle);
    obj->lazy_queue = queue;
    obj->lazy_pending = 0;
    InterlockedIncrement(&obj->skipped_uploads);
    DXCL_LOG("%s: %p overwritten: the Direct3D read and upload are skipped", caller,
             (void *)mem->handle);
    return CL_SUCCESS;
}

/* DXVK gives a staging resource new memory at a Map only below this size (its default
 * d3d11.maxImplicitDiscardSize); larger ones are mapped where they are. */
#define IMPLICIT_DISCARD_MAX (256u * 1024u)

static size_t host_bytes(const struct dxcl_memobj *mem)
{
    size_t depth = mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1;

    if (dxcl_object_of_const(mem)->on_gpu)
        return SIZE_MAX; /* a twin is no staging resource: nothing to read in first */
    if (mem->desc.type == CL_MEM_OBJECT_BUFFER)
        return mem->desc.size;
    return dxcl_object_of_const(mem)->host_copy.row_pitch * mem->desc.height * depth;
}

/* A zero-copy object: its storage handed over; a small one gets the resource copied in first
 * (the copy keeps DXVK from giving the staging resource new memory at the map: design.md,
 * "Staging that moves"); no upload moves bytes. */
static cl_int hand_over_untouched(cl_command_queue queue, struct dxcl_memobj *mem,
                                  const char *caller)
{
    cl_event upload;
    cl_int err;

    if ((err = surface_in(mem, host_bytes(mem) <= IMPLICIT_DISCARD_MAX)) != CL_SUCCESS)
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the %s resource of %p could not be read", caller,
                         mem->desc.backend->name, (void *)mem->handle);
    if ((err = queue_upload(queue, mem, caller, &upload)) != CL_SUCCESS) {
        if (upload)
            uploaded(mem, upload, NULL);
        else
            surface_out(mem);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the storage of %p could not be handed over (%d)",
                         caller, (void *)mem->handle, err);
    }
    uploaded(mem, upload, queue);
    InterlockedIncrement(&dxcl_object_of(mem)->skipped_uploads);
    DXCL_LOG("%s: %p overwritten: its storage is handed over as it is", caller,
             (void *)mem->handle);
    return CL_SUCCESS;
}

cl_int dxcl_lazy_overwrite(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller,
                           bool *prepared)
{
    void *protection = enter(mem);
    cl_int err;

    *prepared = dxcl_object_of(mem)->lazy_pending;
    /* Another thread's command may have touched it first: then this one is an ordinary touch. */
    if (!*prepared)
        err = touch(queue, mem, caller);
    else if (dxcl_memobj_zero_copy(mem))
        err = hand_over_untouched(queue, mem, caller);
    else
        err = map_for_overwrite(queue, mem, caller);
    *prepared &= err == CL_SUCCESS;
    leave(mem, protection);
    return err;
}

void dxcl_lazy_rejected(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    dxcl_take(&obj->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
    /* A small zero-copy object's storage got the resource's contents before it went to the
     * driver; a larger one's did not, and the next touch reads them in (reload). */
    obj->stale = !dxcl_memobj_zero_copy(mem) || host_bytes(mem) > IMPLICIT_DISCARD_MAX;
    InterlockedDecrement(&obj->skipped_uploads); /* it will be read after all */
    dxcl_leave(&obj->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
}
