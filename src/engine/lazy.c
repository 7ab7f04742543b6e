/* Lazy uploads (engine/lazy.h). */
#include "engine/lazy.h"
#include "engine/copy.h"
#include "core/env.h"
#include "core/fault.h"
#include "core/driver.h"

static bool lazy_allowed(void)
{
    static LONG state; /* 0 unknown, 1 allowed, 2 off */
    char value[8];

    if (!state)
        InterlockedExchange(&state,
                            dxcl_getenv("LAZY", value, sizeof(value)) && value[0] == '0' ? 2 : 1);
    return state == 1;
}

bool dxcl_lazy_eligible(const struct dxcl_memobj *mem)
{
    (void)mem; /* every family and format: the upload (and its conversion) is what is deferred */
    return lazy_allowed();
}

/* Brings the surface in for `mem` as an acquire does; without copying the resource's contents
 * in when the command overwrites them and the backend can map without copying (D3D10/D3D11).
 * The caller holds the program's Direct3D protection. */
static cl_int surface_in(struct dxcl_memobj *mem, bool overwrites)
{
    cl_int err;

    dxcl_lock_device();
    err = dxcl_surface_in(mem, !overwrites);
    dxcl_unlock_device();
    return err;
}

static void surface_out(struct dxcl_memobj *mem)
{
    dxcl_lock_device();
    dxcl_surface_out(mem, false);
    dxcl_unlock_device();
}

/* The upload, and on an out-of-order queue a barrier so that every later command waits for it.
 * Zero-copy objects always hand their memory over, even when overwritten. */
static cl_int queue_upload(cl_command_queue queue, struct dxcl_memobj *mem, bool overwrites,
                           const char *caller, cl_event *upload)
{
    cl_int err;

    *upload = NULL;
    if (overwrites && !mem->host_copy.data)
        return CL_SUCCESS;
    err = dxcl_fault_hit(DXCL_FAULT_UPLOAD)
              ? CL_OUT_OF_RESOURCES
              : dxcl_enqueue_upload(queue, mem, caller, 0, NULL, upload);
    if (err == CL_SUCCESS && !dxcl_queue_in_order(queue))
        err = DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList, (queue, 1, upload, NULL));
    if (err != CL_SUCCESS && *upload) {
        dxcl_driver()->clWaitForEvents(1, upload);
        dxcl_driver()->clReleaseEvent(*upload);
        *upload = NULL;
    }
    return err;
}

static cl_int bring_in(cl_command_queue queue, struct dxcl_memobj *mem, bool overwrites,
                       const char *caller)
{
    cl_event upload;
    cl_int err = surface_in(mem, overwrites);

    if (err != CL_SUCCESS)
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the %s resource of %p could not be read", caller,
                         mem->desc.backend->name, (void *)mem->handle);
    if ((err = queue_upload(queue, mem, overwrites, caller, &upload)) != CL_SUCCESS) {
        surface_out(mem);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s: the upload of %p could not be queued (%d)",
                         caller, (void *)mem->handle, err);
    }
    mem->pending_write = upload;
    mem->lazy_queue = queue;
    if (overwrites)
        InterlockedIncrement(&mem->skipped_uploads);
    DXCL_LOG("%s: %p %s", caller, (void *)mem->handle,
             overwrites ? "overwritten: the Direct3D read and upload are skipped"
                        : "needs its Direct3D contents: uploaded now");
    InterlockedExchange(&mem->lazy_pending, 0);
    return CL_SUCCESS;
}

cl_int dxcl_lazy_touch(cl_command_queue queue, struct dxcl_memobj *mem, bool overwrites,
                       const char *caller)
{
    const struct dxcl_backend *backend = mem->surface->backend;
    /* The program's protection first, as everywhere (core/lock.h). */
    void *protection = backend->enter_device ? backend->enter_device(mem->context) : NULL;
    cl_int err = CL_SUCCESS;

    AcquireSRWLockExclusive(&mem->lazy_lock);
    if (mem->lazy_pending)
        err = bring_in(queue, mem, overwrites, caller);
    ReleaseSRWLockExclusive(&mem->lazy_lock);
    if (protection)
        backend->leave_device(protection);
    return err;
}

cl_int dxcl_lazy_order(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller)
{
    cl_event upload = mem->pending_write;
    cl_int err;

    if (!upload)
        return CL_SUCCESS;
    err = DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList, (queue, 1, &upload, NULL));
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%s: cannot order the queue after the upload of %p", caller,
                         (void *)mem->handle);
    return CL_SUCCESS;
}
