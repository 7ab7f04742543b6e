/* The copy engine. Acquire: Direct3D contents -> staging (mapped) -> a non-blocking write into
 * the driver object, in queue order after the wait list; the staging stays mapped until
 * release (or, with lazy uploads, until the first command: engine/lazy.h). Release: after
 * every earlier command and the wait list, a read brings the data back into the mapping and
 * the backend copies it into the resource: before the call returns, or, when the downloads may
 * wait for the program (a user event it has not set, or CL_CONTEXT_INTEROP_USER_SYNC), on the
 * waiter once they are done, with the call's event completing after that (a pending
 * release). One host copy per direction; formats the driver lacks convert on the host, or on
 * the device with DXCL_CONVERT=device (engine/device_convert.h). */
#include "engine/acquire.h"
#include "core/driver.h"
#include "core/event.h"
#include "core/fault.h"
#include "core/memobj.h"
#include "core/waiter.h"
#include "core/watch.h"
#include "engine/copy.h"
#include "engine/lazy.h"
#include "engine/lifetime.h"
#include "engine/object.h"
#include "engine/timing.h"
#include "engine/zerocopy.h"

#include <stdlib.h>

#define MAX_TRANSFER 64 /* objects in one acquire/release call handled without allocation */

struct transfer {
    const struct dxcl_backend *backend;
    cl_command_type command;
    const char *name; /* for diagnostics */
    bool acquire;
    cl_command_queue queue;
    struct dxcl_queue *held_queue; /* the queue's record, held while the call uses it */
    cl_context context;
    struct dxcl_context *ctx;
    cl_uint count;
    struct dxcl_memobj **mems;
    struct dxcl_memobj *inline_mems[MAX_TRANSFER];
    cl_event *events; /* one per object, and a release's stamp (engine/timing.h) */
    cl_event inline_events[MAX_TRANSFER + 1];
    bool *deferred; /* one per object: its Direct3D read and upload wait (engine/lazy.h) */
    bool inline_deferred[MAX_TRANSFER];
    bool claimed; /* the objects are this call's (ACQUIRING or RELEASING) */
    bool moved;   /* the objects went where the call takes them */
    bool pending; /* a pending release owns the claims now (struct dxcl_pending_release) */
    /* A release's barrier after its wait list, kept until the release's end: PoCL 3.1 aborts
     * (pocl_update_event_failed) when a failed wait list reaches an event the caller released. */
    cl_event barrier;
};

/* A release whose end (the Direct3D write back, the objects' return to IDLE) waits for its
 * downloads on the waiter, or on the acquire that needs the objects again first. */
struct dxcl_pending_release {
    struct transfer t; /* the call's, with its lists on the heap */
    cl_event final;    /* after the downloads; read by the poller and joiners until the last
                        * reference goes (pending_unref), so it is released there, never at the end */
    cl_event gate;     /* a user event of dxcl's: the program's event waits for it */
    cl_event marker;   /* the program's event (a reference of dxcl's): it waits for the gate */
    /* What the program may release before the end (releasing does not cancel what was
     * queued): the queue's record (and so the driver's queue) and a driver reference to the
     * context, kept until the program's event completed (pending_unref). */
    struct dxcl_queue *queue;
    cl_context context;
    volatile LONG refs;  /* the poller's, and each acquire joining it */
    volatile LONG taken; /* the end is run by one thread */
    bool unpolled;       /* no waiter took it: the poller's reference is its joiner's to drop */
    ULONGLONG failed_at; /* when the poller first saw `final` failed (GetTickCount64), or 0 */
    HANDLE done;         /* set when the end ran */
};

static cl_int check_wait_list(struct transfer *t, cl_uint num_events, const cl_event *wait_list)
{
    if ((num_events == 0) != (wait_list == NULL))
        return DXCL_FAIL(CL_INVALID_EVENT_WAIT_LIST, "%s: %u events with list %p", t->name,
                         num_events, (const void *)wait_list);
    for (cl_uint i = 0; i < num_events; i++) {
        cl_context context;
        if (DXCL_DRIVER_CALL_INT(clGetEventInfo, (wait_list[i], CL_EVENT_CONTEXT, sizeof(context),
                                                  &context, NULL)) != CL_SUCCESS)
            return DXCL_FAIL(CL_INVALID_EVENT_WAIT_LIST, "%s: wait list entry %u is not an event",
                             t->name, i);
        if (context != t->context)
            return DXCL_FAIL(CL_INVALID_CONTEXT, "%s: wait list event %u is of another context",
                             t->name, i);
    }
    return CL_SUCCESS;
}

/* Called with dxcl_lock held exclusively. */
static cl_int check_object(struct transfer *t, cl_uint index, cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_memobj_lookup(handle);
    enum dxcl_transfer_state want = t->acquire ? DXCL_IDLE : DXCL_ACQUIRED;

    if (!mem || !mem->surface || mem->desc.backend != t->backend)
        return DXCL_FAIL(CL_INVALID_MEM_OBJECT,
                         "%s: object %u (%p) was not created from a %s resource", t->name, index,
                         (void *)handle, t->backend->name);
    if (mem->context->handle != t->context)
        return DXCL_FAIL(CL_INVALID_CONTEXT, "%s: object %u belongs to another context", t->name,
                         index);
    for (cl_uint i = 0; i < index; i++)
        if (t->mems[i] == mem)
            return DXCL_FAIL(t->acquire ? t->backend->errors.already_acquired
                                        : t->backend->errors.not_acquired,
                             "%s: object %u is listed twice", t->name, index);
    if (mem->state != want && t->acquire && dxcl_object_of(mem)->pending_release)
        return DXCL_FAIL(t->backend->errors.already_acquired,
                         "%s: object %u: its release waits for a user event the program has not "
                         "set",
                         t->name, index);
    if (mem->state != want && t->acquire)
        return DXCL_FAIL(t->backend->errors.already_acquired, "%s: object %u is %s", t->name, index,
                         mem->state == DXCL_ACQUIRING ? "being acquired" : "acquired");
    if (mem->state != want)
        return DXCL_FAIL(t->backend->errors.not_acquired, "%s: object %u is %s", t->name, index,
                         mem->state == DXCL_RELEASING ? "being released" : "not acquired");
    t->mems[index] = mem;
    return CL_SUCCESS;
}

static void join_pending(cl_mem handle);

/* One exclusive take checks every object and claims them all, or none: of two calls racing
 * for an object, one wins and the other gets the family's error. The claim holds each record
 * until the call ends. */
static cl_int claim(struct transfer *t, const cl_mem *handles)
{
    cl_int err = CL_SUCCESS;

    for (cl_uint i = 0; t->acquire && i < t->count; i++)
        join_pending(handles[i]);
    dxcl_lock_exclusive();
    for (cl_uint i = 0; i < t->count && err == CL_SUCCESS; i++)
        err = check_object(t, i, handles[i]);
    for (cl_uint i = 0; i < t->count && err == CL_SUCCESS; i++) {
        t->mems[i]->state = t->acquire ? DXCL_ACQUIRING : DXCL_RELEASING;
        dxcl_memobj_hold(t->mems[i]);
    }
    t->claimed = err == CL_SUCCESS;
    dxcl_unlock_exclusive();
    return err;
}

/* The end of the call: each claimed object goes where the call took it (`done`) or back. */
static void settle(struct transfer *t, bool done)
{
    enum dxcl_transfer_state to = t->acquire == done ? DXCL_ACQUIRED : DXCL_IDLE;

    dxcl_lock_exclusive();
    for (cl_uint i = 0; i < t->count; i++)
        t->mems[i]->state = to;
    dxcl_unlock_exclusive();
}

/* The context's record, through the queue's record: the program may have released the context
 * itself, which the queue still holds. */
static cl_int transfer_context(struct transfer *t)
{
    const struct dxcl_backend *backend = t->backend;

    if (!(t->ctx = dxcl_queue_context(t->queue)))
        return dxcl_context_get(t->context, backend, &t->ctx);
    if (t->ctx->backend == backend ||
        (backend->accepts_context && backend->accepts_context(t->ctx)))
        return CL_SUCCESS;
    return DXCL_FAIL(CL_INVALID_CONTEXT, "%s: the queue's context was not created with a %s device",
                     t->name, backend->name);
}

static void finish_transfer(struct transfer *t)
{
    for (cl_uint i = 0; t->claimed && !t->pending && i < t->count; i++)
        dxcl_memobj_put(t->mems[i]);
    if (t->barrier && !t->pending)
        dxcl_driver()->clReleaseEvent(t->barrier);
    if (t->held_queue)
        dxcl_queue_put(t->held_queue);
    if (t->mems != t->inline_mems)
        free(t->mems);
    if (t->events != t->inline_events)
        free(t->events);
    if (t->deferred != t->inline_deferred)
        free(t->deferred);
    if (t->ctx)
        dxcl_context_unref(t->ctx);
}

/* Every check of the spec, before anything changes. */
static cl_int begin_transfer(struct transfer *t, cl_uint num_objects, const cl_mem *mem_objects,
                             cl_uint num_events, const cl_event *wait_list)
{
    cl_int err;

    if ((num_objects == 0) != (mem_objects == NULL))
        return DXCL_FAIL(CL_INVALID_VALUE, "%s: %u objects with list %p", t->name, num_objects,
                         (const void *)mem_objects);
    /* From dxcl's records, not the driver's answer: a driver may take another object for a
     * queue, and one that reads garbage crashes. */
    if (!(t->held_queue = dxcl_queue_hold(t->queue)) ||
        DXCL_DRIVER_CALL_INT(clGetCommandQueueInfo, (t->queue, CL_QUEUE_CONTEXT, sizeof(t->context),
                                                     &t->context, NULL)) != CL_SUCCESS)
        return DXCL_FAIL(CL_INVALID_COMMAND_QUEUE, "%s: %p is not a command queue", t->name,
                         (void *)t->queue);
    if ((err = transfer_context(t)) != CL_SUCCESS)
        return err;
    if ((err = check_wait_list(t, num_events, wait_list)) != CL_SUCCESS)
        return err;
    t->count = num_objects;
    t->mems = t->inline_mems;
    t->events = t->inline_events;
    t->deferred = t->inline_deferred;
    if (num_objects > MAX_TRANSFER &&
        (!(t->mems = dxcl_calloc(num_objects, sizeof(*t->mems))) ||
         !(t->events = dxcl_calloc(num_objects + 1, sizeof(cl_event))) ||
         !(t->deferred = dxcl_calloc(num_objects, sizeof(bool)))))
        return DXCL_FAIL(CL_OUT_OF_HOST_MEMORY, "%s: no memory for %u objects", t->name,
                         num_objects);
    return claim(t, mem_objects);
}

/* Objects whose reading and upload wait for their first command (engine/lazy.h): on acquire the
 * eligible ones, on release the ones no command touched (decided under each object's lazy
 * lock as the release begins). */
static bool deferred(const struct transfer *t, cl_uint index)
{
    return t->deferred[index];
}

/* Brings in the surfaces of the objects that are not deferred. */
static cl_int surfaces_in(struct transfer *t)
{
    void *protection = dxcl_device_enter(t->backend, t->ctx);
    cl_int err = CL_SUCCESS;
    cl_uint i;

    for (i = 0; i < t->count && err == CL_SUCCESS; i++)
        if (!deferred(t, i))
            err = dxcl_surface_in(t->mems[i], true);
    /* The GPU path's hand-overs go in one batch (struct dxcl_backend's end_hand_overs). */
    if (err == CL_SUCCESS && (err = dxcl_device_hand_overs(t->backend, t->ctx)) != CL_SUCCESS)
        i++; /* every surface brought in is given back */
    /* On failure, give back what this call brought in: nothing was written. */
    for (cl_uint j = 0; err != CL_SUCCESS && j + 1 < i; j++)
        if (!deferred(t, j))
            dxcl_surface_out(t->mems[j], false);
    if (err != CL_SUCCESS)
        dxcl_device_hand_overs(t->backend, t->ctx);
    dxcl_device_leave(t->backend, protection);
    if (err != CL_SUCCESS)
        DXCL_LOG("%s: the %s resource could not be read", t->name, t->backend->name);
    return err;
}

/* A surface is written back when any of its objects may have changed while acquired. Called
 * inside dxcl_device_enter; the first write back that failed, or CL_SUCCESS. */
static cl_int surfaces_out_entered(struct transfer *t, bool write_back)
{
    cl_int err = CL_SUCCESS, out;

    for (cl_uint i = 0; i < t->count; i++) {
        if (deferred(t, i))
            continue;
        out = dxcl_surface_out(t->mems[i], write_back && dxcl_object_of(t->mems[i])->written);
        err = err == CL_SUCCESS ? out : err;
    }
    out = dxcl_device_hand_overs(t->backend, t->ctx);
    return err == CL_SUCCESS ? out : err;
}

static cl_int surfaces_out(struct transfer *t, bool write_back)
{
    void *protection = dxcl_device_enter(t->backend, t->ctx);
    cl_int err = surfaces_out_entered(t, write_back);

    dxcl_device_leave(t->backend, protection);
    return err;
}

/* Waits for the commands a failed call did queue (the failed one left its event NULL): they
 * use the mapping, which is unmapped next. */
static void wait_queued(const cl_event *events, cl_uint count)
{
    for (cl_uint i = 0; i < count; i++)
        if (events[i])
            dxcl_driver()->clWaitForEvents(1, &events[i]);
}

/* The call's lists move to the heap (the pending release outlives the call). */
static bool detach_lists(struct transfer *from, struct transfer *to)
{
    *to = *from;
    to->mems = dxcl_calloc(from->count, sizeof(*to->mems));
    to->events = dxcl_calloc(from->count + 1, sizeof(cl_event));
    to->deferred = dxcl_calloc(from->count, sizeof(bool));
    if (!to->mems || !to->events || !to->deferred) {
        free(to->mems), free(to->events), free(to->deferred);
        return false;
    }
    memcpy(to->mems, from->mems, from->count * sizeof(*to->mems));
    memcpy(to->events, from->events, (from->count + 1) * sizeof(cl_event));
    memcpy(to->deferred, from->deferred, from->count * sizeof(bool));
    return true;
}

static void release_events(cl_event *events, cl_uint count)
{
    for (cl_uint i = 0; i < count; i++)
        if (events[i])
            dxcl_driver()->clReleaseEvent(events[i]);
}

/* A failed acquire whose queued uploads may wait for the program: they read the mapping, so
 * it goes back to Direct3D on the waiter once they are done (struct failed_acquire). */
struct failed_acquire {
    struct transfer t; /* the call's, with its lists on the heap and its claims' holds */
    cl_uint uploads;
};

static bool poll_failed_acquire(void *arg)
{
    struct failed_acquire *f = arg;

    for (cl_uint i = 0; i < f->uploads; i++) {
        cl_int status = CL_COMPLETE;
        dxcl_driver()->clGetEventInfo(f->t.events[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                      sizeof(status), &status, NULL);
        if (status > CL_COMPLETE)
            return false;
    }
    release_events(f->t.events, f->uploads);
    surfaces_out(&f->t, false);
    finish_transfer(&f->t);
    free(f);
    return true;
}

/* True when the waiter took over the undo of a failed acquire (the objects are IDLE again);
 * false when the caller undoes it now, which then waits for nothing of the program's. */
static bool undo_later(struct transfer *t, cl_uint uploads)
{
    struct failed_acquire *f;

    if (!uploads || !t->ctx->any_thread || dxcl_unset_user_events(t->context) == 0)
        return false;
    if (!(f = dxcl_calloc(1, sizeof(*f))) || !detach_lists(t, &f->t)) {
        free(f);
        return false;
    }
    f->uploads = uploads;
    settle(t, false);
    t->pending = true; /* the claims' holds, the queue's and the context's are the undo's */
    t->ctx = NULL;
    t->held_queue = NULL;
    if (!dxcl_waiter_poll(poll_failed_acquire, f)) {
        t->ctx = f->t.ctx;
        t->held_queue = f->t.held_queue;
        t->pending = false;
        free(f->t.mems), free(f->t.events), free(f->t.deferred), free(f);
        return false;
    }
    return true;
}

/* The event the program gets: the final marker or barrier, reporting the spec's type, and on a
 * profiling queue the times of the call's commands (`kept`, taken). */
static cl_int hand_out_event(struct transfer *t, cl_event final, cl_event *event,
                             struct dxcl_event_commands *kept)
{
    if (!event) {
        if (final)
            dxcl_driver()->clReleaseEvent(final);
        dxcl_event_commands_drop(kept);
        return CL_SUCCESS;
    }
    /* The transfer happened: the call succeeds and the program gets its event even when the
     * record cannot be kept (out of memory), which then reports the driver's command type. */
    if (dxcl_event_register(final, t->command, kept) != CL_SUCCESS)
        DXCL_LOG("%s: no memory for the event's record: it reports the driver's command type",
                 t->name);
    *event = final;
    return CL_SUCCESS;
}

/* The acquire's barrier (not a marker: later commands of an out-of-order queue must wait for
 * the data) after its uploads, or after the wait list when every upload is deferred. Nothing
 * needs it when the program asked for no event and the queue already orders what follows:
 * an in-order queue after uploads, any queue with no uploads and no wait list (deferred
 * uploads order themselves). */
static bool acquire_needs_barrier(struct transfer *t, cl_uint uploads, cl_uint num_events,
                                  const cl_event *event)
{
    if (event)
        return true;
    if (uploads)
        return !dxcl_queue_in_order(t->queue);
    return num_events > 0;
}

static cl_int do_acquire(struct transfer *t, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event)
{
    bool timed = dxcl_timing_wanted(t->queue, event);
    struct dxcl_event_commands *kept = NULL;
    cl_event final = NULL, stamp = NULL;
    cl_int err;
    cl_uint i, uploads = 0;

    /* An event with profiling times covers the transfer: the uploads are not deferred then. */
    for (i = 0; i < t->count; i++)
        t->deferred[i] = !timed && dxcl_lazy_eligible(t->mems[i]);
    if ((err = surfaces_in(t)) != CL_SUCCESS)
        return err;
    memset(t->events, 0, t->count * sizeof(cl_event));
    for (i = 0; i < t->count && err == CL_SUCCESS; i++) {
        if (deferred(t, i))
            continue;
        err = dxcl_fault_hit(DXCL_FAULT_UPLOAD)
                  ? CL_OUT_OF_RESOURCES
                  : dxcl_enqueue_upload(t->queue, t->mems[i], t->name, num_events, wait_list,
                                        &t->events[uploads]);
        uploads += err == CL_SUCCESS;
    }
    /* Nothing to upload: a command with times stands in for the transfer (engine/timing.h). */
    if (err == CL_SUCCESS && timed && !uploads)
        dxcl_enqueue_stamp(t->context, t->queue, num_events, wait_list, &stamp);
    if (err == CL_SUCCESS && acquire_needs_barrier(t, uploads, num_events, event))
        err = uploads ? DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList,
                                             (t->queue, uploads, t->events, &final))
              : stamp ? DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList,
                                             (t->queue, 1, &stamp, &final))
                      : DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList,
                                             (t->queue, num_events, wait_list, &final));
    if (err == CL_SUCCESS && timed)
        kept = dxcl_event_commands_keep(NULL, uploads ? t->events : &stamp,
                                        uploads ? uploads : stamp != NULL);
    release_events(&stamp, 1);
    if (err != CL_SUCCESS) {
        /* Nothing is acquired; the uploads that were queued only read the mapping. */
        if (!undo_later(t, uploads)) {
            wait_queued(t->events, uploads);
            release_events(t->events, t->count);
            surfaces_out(t, false);
        }
        return DXCL_FAIL(err, "%s: the upload could not be queued", t->name);
    }
    /* Still ACQUIRING: no command can touch the objects before settle() publishes these. */
    for (i = 0, uploads = 0; i < t->count; i++) {
        struct dxcl_object *obj = dxcl_object_of(t->mems[i]);
        obj->written = 0;
        obj->lazy_pending = deferred(t, i);
        obj->stale = false;
        obj->lazy_queue = NULL;
        obj->pending_write = deferred(t, i) ? NULL : t->events[uploads++];
    }
    t->moved = true;
    return hand_out_event(t, final, event, kept);
}

/* What a release brings back: what a command may have written, of objects whose surface is in
 * host memory. */
static bool brought_back(const struct transfer *t, cl_uint index)
{
    const struct dxcl_object *obj = dxcl_object_of(t->mems[index]);

    /* On the GPU path every object comes back: its release is what Direct3D's queue waits
     * for before its next use of the twin. */
    return !deferred(t, index) && (obj->written || obj->on_gpu);
}

/* Every object the release brings back has OpenCL's release queued for Direct3D's queue to
 * wait for (gpu/gpu_path.h): the call need not wait for OpenCL's commands. */
static bool ordered_on_gpu(const struct transfer *t)
{
    cl_uint signalled = 0;

    for (cl_uint i = 0; i < t->count; i++) {
        if (deferred(t, i))
            continue;
        if (!t->mems[i]->surface->release_event)
            return false;
        signalled++;
    }
    return signalled > 0;
}

/* A release closes the door on first touches: under each object's lazy lock, whether a command
 * touched it is settled (a touch still waiting for the lock then finds nothing to do). */
static void take_first_touches(struct transfer *t)
{
    for (cl_uint i = 0; i < t->count; i++) {
        struct dxcl_object *obj = dxcl_object_of(t->mems[i]);
        dxcl_take(&obj->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
        t->deferred[i] = obj->lazy_pending;
        obj->lazy_pending = 0;
        dxcl_leave(&obj->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
    }
}

/* A release that failed: the objects stay acquired, untouched ones still waiting. */
static void give_back_first_touches(struct transfer *t)
{
    for (cl_uint i = 0; i < t->count; i++)
        dxcl_object_of(t->mems[i])->lazy_pending = t->deferred[i];
}

/* The end of a release, once `final` (after the downloads) is done: the data into the
 * resources, the objects' upload events given back. CL_SUCCESS exactly when every resource got
 * what OpenCL wrote; otherwise the resources keep their contents and the error says why. */
static cl_int release_end(struct transfer *t, cl_event final)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_int status = CL_COMPLETE, err;

    if (drv->clGetEventInfo(final, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                            NULL) != CL_SUCCESS)
        status = CL_OUT_OF_RESOURCES;
    if (status > CL_COMPLETE && ordered_on_gpu(t))
        status = CL_COMPLETE; /* still running: Direct3D's queue waits for it, bounded */
    release_events(t->events, t->count + 1);
    for (cl_uint i = 0; i < t->count && status == CL_COMPLETE; i++)
        if (brought_back(t, i))
            dxcl_download_done(t->mems[i]);
    if (status != CL_COMPLETE)
        DXCL_LOG("%s: a command before the release failed (%d); the %s resources keep their "
                 "contents",
                 t->name, status, t->backend->name);
    err = surfaces_out(t, status == CL_COMPLETE);
    for (cl_uint i = 0; i < t->count; i++) {
        struct dxcl_object *obj = dxcl_object_of(t->mems[i]);
        cl_event upload;
        dxcl_take(&obj->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
        upload = obj->pending_write;
        obj->pending_write = NULL;
        dxcl_leave(&obj->lazy_lock, DXCL_LOCK_LAZY, true, __func__);
        if (upload)
            drv->clReleaseEvent(upload);
        if (deferred(t, i))
            InterlockedIncrement(&obj->skipped_uploads); /* no command touched it */
    }
    if (status != CL_COMPLETE)
        return status < 0 ? status : CL_OUT_OF_RESOURCES;
    return err;
}

/* A user event of the wait list the program has not set. */
static bool unset_user_event_in(cl_uint num_events, const cl_event *wait_list)
{
    const struct dxcl_driver *drv = dxcl_driver();

    for (cl_uint i = 0; i < num_events; i++) {
        cl_command_type type = 0;
        cl_int status = CL_COMPLETE;
        drv->clGetEventInfo(wait_list[i], CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL);
        drv->clGetEventInfo(wait_list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                            &status, NULL);
        if (type == CL_COMMAND_USER && status > CL_COMPLETE)
            return true;
    }
    return false;
}

/* The reads complete within a short grace: what the driver alone does (a user event the
 * program has not set elsewhere in the context, unrelated to this release, keeps it exact). */
static bool done_soon(cl_event final)
{
    for (int waited = 0; waited < 50; waited++) {
        cl_int status = CL_COMPLETE;
        dxcl_driver()->clGetEventInfo(final, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                      &status, NULL);
        if (status <= CL_COMPLETE)
            return true;
        Sleep(1);
    }
    return false;
}

/* A release's wait may be a wait for the program when the context has user events it has not
 * set (one of them may be in the wait list, or before the release in a queue). dxcl then ends
 * the release on its own thread (a pending release), where the device allows that (struct
 * dxcl_backend's prepare_device): always with CL_CONTEXT_INTEROP_USER_SYNC CL_TRUE (the call
 * returns at once), with implicit synchronisation when the wait list holds an unset user event
 * or the reads are not done after a short grace. */
static bool release_pends(const struct transfer *t, cl_uint num_events, const cl_event *wait_list,
                          cl_event final)
{
    static volatile LONG said;
    bool user_events = dxcl_unset_user_events(t->context) > 0;

    if (!t->ctx->user_sync && !user_events)
        return false;
    if (!t->ctx->any_thread) {
        if (user_events)
            DXCL_LOG("%s: may wait for the program's user events: the %s device is used only "
                     "inside the program's calls, so the call waits",
                     t->name, t->backend->name);
        return false;
    }
    if (t->ctx->user_sync)
        return true;
    dxcl_driver()->clFlush(t->queue);
    if (!unset_user_event_in(num_events, wait_list) && done_soon(final))
        return false;
    if (!InterlockedExchange(&said, 1))
        DXCL_LOG("%s: returns before its reads are done (they wait for a user event): Direct3D "
                 "sees OpenCL's writes once the release's event completes, not when the call "
                 "returns (docs/design.md, \"When the release waits, and when it is pending\")",
                 t->name);
    return true;
}

/* The program's Direct3D protection alone (no dxcl lock), where the device has one. */
static void *enter_protection(const struct dxcl_backend *backend, struct dxcl_context *ctx)
{
    return backend->enter_device ? backend->enter_device(ctx) : NULL;
}

static void leave_protection(const struct dxcl_backend *backend, void *protection)
{
    if (protection)
        backend->leave_device(protection);
}

static bool still_running(cl_event event)
{
    cl_int status = CL_COMPLETE;

    return dxcl_driver()->clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                         &status, NULL) == CL_SUCCESS &&
           status > CL_COMPLETE;
}

/* The last reference goes after the end ran and the program's event completed (the poller
 * waits for both; a joiner holds it only across the end, which sets the gate: the event then
 * completes by the driver alone), so dxcl's references to the queue and the context are never
 * the ones whose release leaves work of the program's in a queue no one holds. */
static void pending_unref(struct dxcl_pending_release *p)
{
    const struct dxcl_driver *drv = dxcl_driver();

    if (InterlockedDecrement(&p->refs))
        return;
    drv->clReleaseEvent(p->final);
    drv->clReleaseEvent(p->marker);
    dxcl_queue_put(p->queue);
    drv->clReleaseContext(p->context);
    CloseHandle(p->done);
    free(p);
}

/* Runs the end of a pending release, once: inside the device's protection, so that an acquire
 * that joins it (and holds the protection) never waits for a thread that needs it. False when
 * another thread ran it or runs it. */
static bool pending_end(struct dxcl_pending_release *p)
{
    struct transfer *t = &p->t;
    void *protection = enter_protection(t->backend, t->ctx);
    cl_int err;

    if (InterlockedExchange(&p->taken, 1)) {
        leave_protection(t->backend, protection);
        return false;
    }
    err = release_end(t, p->final);
    leave_protection(t->backend, protection);
    dxcl_lock_exclusive();
    for (cl_uint i = 0; i < t->count; i++) {
        t->mems[i]->state = DXCL_IDLE;
        dxcl_object_of(t->mems[i])->pending_release = NULL;
    }
    dxcl_unlock_exclusive();
    /* The claims' holds go before the program's event completes: a program that waits for it
     * and then releases its objects and the context finds no hold of dxcl's left, so the
     * teardowns (and the Direct3D references) end in its own calls. */
    finish_transfer(t);
    /* The program's event completes now: with the error when a write was lost. */
    dxcl_driver()->clSetUserEventStatus(p->gate, err == CL_SUCCESS ? CL_COMPLETE : err);
    dxcl_driver()->clReleaseEvent(p->gate);
    SetEvent(p->done);
    return true;
}

/* Whether the poller leaves a failed release for a later round: PoCL 3.1 may still be failing
 * the commands behind the failed one when `final` reads failed, and aborts when one of their
 * events (the barrier) is released then. The watch wakes the waiter as `final` fails; the end
 * comes at a round of the backoff DXCL_FAILED_END_DELAY_MS later, as it came when the waiter
 * polled. */
#define DXCL_FAILED_END_DELAY_MS 10
static bool failure_settling(struct dxcl_pending_release *p)
{
    cl_int status = CL_COMPLETE;
    ULONGLONG now = GetTickCount64();

    if (dxcl_driver()->clGetEventInfo(p->final, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                      &status, NULL) != CL_SUCCESS ||
        status >= CL_COMPLETE)
        return false;
    if (!p->failed_at)
        p->failed_at = now;
    return now - p->failed_at < DXCL_FAILED_END_DELAY_MS;
}

static bool poll_pending(void *arg)
{
    struct dxcl_pending_release *p = arg;

    if (!p->taken && (still_running(p->final) || failure_settling(p)))
        return false;
    if (!p->taken)
        pending_end(p);
    if (still_running(p->marker)) /* the gate is set: the driver alone completes it */
        return false;
    pending_unref(p);
    return true;
}

/* What the pending release keeps of the call's: the queue's hold, and driver references to the
 * context and to the program's event (a release of the program's may come before the end). */
static void keep_alive(struct dxcl_pending_release *p, struct transfer *t, cl_event marker)
{
    const struct dxcl_driver *drv = dxcl_driver();

    p->queue = t->held_queue;
    p->t.held_queue = NULL;
    p->context = t->context;
    drv->clRetainContext(p->context);
    p->marker = marker;
    drv->clRetainEvent(p->marker);
}

/* Hands the end of the release to the waiter: the program gets a marker that waits for a user
 * event of dxcl's, set once the resources have the data. False (nothing changed) when that
 * cannot be set up: the call then ends the release itself. */
static bool pend(struct transfer *t, cl_event final, cl_event *marker)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_pending_release *p = dxcl_calloc(1, sizeof(*p));
    cl_int err;

    if (!p || !(p->done = CreateEventW(NULL, TRUE, FALSE, NULL)) || !detach_lists(t, &p->t)) {
        if (p && p->done)
            CloseHandle(p->done);
        free(p);
        return false;
    }
    p->final = final;
    p->refs = 2; /* the poller's, and this call's until it handed the rest over */
    if (!(p->gate = drv->clCreateUserEvent(t->context, &err)) ||
        drv->clEnqueueMarkerWithWaitList(t->queue, 1, &p->gate, marker) != CL_SUCCESS) {
        if (p->gate)
            drv->clReleaseEvent(p->gate);
        free(p->t.mems), free(p->t.events), free(p->t.deferred);
        CloseHandle(p->done);
        free(p);
        return false;
    }
    keep_alive(p, t, *marker);
    dxcl_lock_exclusive();
    for (cl_uint i = 0; i < t->count; i++)
        dxcl_object_of(t->mems[i])->pending_release = p;
    dxcl_unlock_exclusive();
    drv->clFlush(t->queue);
    t->pending = true; /* the claims, holds, queue and context are the pending release's */
    t->ctx = NULL;
    t->held_queue = NULL;
    if (!dxcl_waiter_poll_event(poll_pending, p, final)) {
        /* No waiter (out of memory): the next acquire of the objects ends it. */
        DXCL_LOG("%s: no waiter thread: the release ends at the objects' next acquire", t->name);
        p->unpolled = true;
    }
    pending_unref(p);
    return true;
}

/* An acquire of an object whose release is pending ends that release first, where that waits
 * for nothing of the program's: its downloads are done, or the context has no user event left
 * to set. Otherwise the object stays RELEASING and the acquire fails (check_object). While
 * this thread holds the device's protection, the thread that runs the end has passed the part
 * that needs it (pending_end), so waiting for it cannot deadlock. */
static void join_pending(cl_mem handle)
{
    struct dxcl_pending_release *p = NULL;
    struct dxcl_memobj *mem;
    struct transfer *t;
    void *protection;
    cl_int status = CL_COMPLETE;

    dxcl_lock_shared();
    if ((mem = dxcl_memobj_lookup(handle)) && mem->surface &&
        (p = dxcl_object_of(mem)->pending_release))
        InterlockedIncrement(&p->refs);
    dxcl_unlock_shared();
    if (!p)
        return;
    t = &p->t;
    dxcl_driver()->clGetEventInfo(p->final, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                  &status, NULL);
    if (status > CL_COMPLETE && !p->taken && dxcl_unset_user_events(t->context) > 0) {
        pending_unref(p); /* its downloads may wait for a user event the program has not set */
        return;
    }
    if (status > CL_COMPLETE && !p->taken)
        dxcl_watch_wait(p->final); /* the driver's own work */
    protection = enter_protection(t->backend, t->ctx);
    if (!pending_end(p))
        WaitForSingleObject(p->done, INFINITE); /* another thread runs it: never a wait for us */
    else if (p->unpolled)
        pending_unref(p); /* no poller: its reference was the objects' */
    leave_protection(t->backend, protection);
    pending_unref(p);
}

static cl_int do_release(struct transfer *t, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event)
{
    const struct dxcl_driver *drv = dxcl_driver();
    bool timed = dxcl_timing_wanted(t->queue, event);
    struct dxcl_event_commands *kept = NULL;
    cl_event after = NULL, final = NULL, marker = NULL;
    cl_uint i, downloads = 0, stamped = 0;
    cl_int err;

    take_first_touches(t);
    /* Everything queued before the release, and the wait list, precede the downloads. Only
     * objects that a command may have written come back. */
    err = DXCL_DRIVER_CALL_INT(clEnqueueBarrierWithWaitList,
                               (t->queue, num_events, wait_list, &after));
    memset(t->events, 0, (t->count + 1) * sizeof(cl_event));
    for (i = 0; i < t->count && err == CL_SUCCESS; i++)
        if (brought_back(t, i))
            err = dxcl_fault_hit(DXCL_FAULT_DOWNLOAD)
                      ? CL_OUT_OF_RESOURCES
                      : dxcl_enqueue_download(t->queue, t->mems[i], after, &t->events[downloads++]);
    /* A command with times after the downloads (engine/timing.h): it stands in where nothing
     * moves, and gives the end where a download reports none (a map that moves nothing may be a
     * marker, which some drivers time as 0). */
    if (err == CL_SUCCESS && timed)
        stamped =
            dxcl_enqueue_stamp(t->context, t->queue, downloads ? downloads : 1,
                               downloads ? t->events : &after, &t->events[downloads]) == CL_SUCCESS;
    if (err == CL_SUCCESS && downloads + stamped)
        err = DXCL_DRIVER_CALL_INT(clEnqueueMarkerWithWaitList,
                                   (t->queue, downloads + stamped, t->events, &final));
    if (err == CL_SUCCESS && timed)
        kept = dxcl_event_commands_keep(final ? after : NULL, t->events, downloads + stamped);
    /* Without downloads (or a stand-in) the barrier is the last command. */
    if (err == CL_SUCCESS && !final)
        final = after;
    else if (after)
        t->barrier = after;
    if (err != CL_SUCCESS) {
        /* The objects stay acquired and mapped: the queued downloads may still write into the
         * mapping, which stays, so nothing waits for them (they may wait for the program). */
        release_events(t->events, t->count + 1);
        for (i = 0; i < t->count; i++)
            dxcl_zero_copy_undo(t->mems[i]);
        give_back_first_touches(t);
        return DXCL_FAIL(err, "%s: the download could not be queued; objects stay acquired",
                         t->name);
    }
    if (release_pends(t, num_events, wait_list, final) && pend(t, final, &marker)) {
        t->moved = true;
        return hand_out_event(t, marker, event, kept);
    }
    drv->clFlush(t->queue);
    if (!ordered_on_gpu(t))
        dxcl_watch_wait(final);
    err = release_end(t, final);
    t->moved = true; /* the objects are released, whether or not the resources got the data */
    if (err != CL_SUCCESS) {
        drv->clReleaseEvent(final);
        dxcl_event_commands_drop(kept);
        return DXCL_FAIL(err, "%s: the %s resources did not get OpenCL's data", t->name,
                         t->backend->name);
    }
    return hand_out_event(t, final, event, kept);
}

/* num_objects == 0: nothing to move, but the call still orders the queue and gives an event. */
static cl_int empty_transfer(struct transfer *t, cl_uint num_events, const cl_event *wait_list,
                             cl_event *event)
{
    struct dxcl_event_commands *kept = NULL;
    cl_event final = NULL, stamp = NULL;
    cl_int err;

    if (dxcl_timing_wanted(t->queue, event))
        dxcl_enqueue_stamp(t->context, t->queue, num_events, wait_list, &stamp);
    err = DXCL_DRIVER_CALL_INT(
        clEnqueueMarkerWithWaitList,
        (t->queue, stamp ? 1 : num_events, stamp ? &stamp : wait_list, event ? &final : NULL));
    if (err == CL_SUCCESS && stamp)
        kept = dxcl_event_commands_keep(NULL, &stamp, 1);
    release_events(&stamp, 1);
    if (err != CL_SUCCESS || !event)
        return err;
    return hand_out_event(t, final, event, kept);
}

static cl_int transfer(struct transfer *t, cl_uint num_objects, const cl_mem *mem_objects,
                       cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    cl_int err = begin_transfer(t, num_objects, mem_objects, num_events, wait_list);

    if (err == CL_SUCCESS && num_objects == 0)
        err = empty_transfer(t, num_events, wait_list, event);
    else if (err == CL_SUCCESS)
        err = t->acquire ? do_acquire(t, num_events, wait_list, event)
                         : do_release(t, num_events, wait_list, event);
    if (t->claimed && !t->pending)
        settle(t, t->moved);
    finish_transfer(t);
    return dxcl_log_result(t->name, err);
}

cl_int dxcl_enqueue_transfer(const struct dxcl_backend *backend, bool acquire,
                             cl_command_type command, cl_command_queue queue, cl_uint num_objects,
                             const cl_mem *mem_objects, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event)
{
    struct transfer t = {.backend = backend,
                         .command = command,
                         .acquire = acquire,
                         .queue = queue,
                         .name = acquire ? "acquire" : "release"};

    dxcl_finish_parked();
    return transfer(&t, num_objects, mem_objects, num_events, wait_list, event);
}
