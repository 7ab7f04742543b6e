/* Callbacks the driver cannot deliver: clSetEventCallback, clSetMemObjectDestructorCallback
 * and clSetContextDestructorCallback. Wine's opencl.dll answers CL_INVALID_OPERATION for the
 * first two and lacks the third. dxcl tries the driver once; when it cannot, one waiter thread
 * (started on first use) watches every pending callback:
 *   - an event callback holds a driver reference to its event; the waiter reads the event's
 *     execution status and runs the callback once the status reached the callback's type;
 *   - an object with destructor callbacks holds one driver reference of dxcl; after the
 *     program's first release of it the waiter waits for the driver's count to fall to dxcl's
 *     own (the program's references, queued commands and dependent objects all count there),
 *     runs the callbacks newest first and drops dxcl's reference.
 * The waiter (core/waiter.h) runs them as one of its sources. A CL_COMPLETE callback's event
 * is watched (core/watch.h): the waiter wakes when it completes. The rest it polls with an
 * exponential backoff (1 to 16 ms for SUBMITTED and RUNNING callbacks; up to 1 s when only
 * watched events and destructors wait), reset by progress, a new registration or a release.
 * Callbacks run on the waiter thread with no dxcl lock held.
 * docs/design.md has the rest. */
#include "compat/callbacks.h"
#include "core/context.h"
#include "core/waiter.h"
#include "core/watch.h"
#include "core/registry.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/memobj.h"
#include "core/api.h"

#include <stdlib.h>

/* Who delivers a kind of callback: not known yet, the driver, or dxcl. */
enum capability { CAPABILITY_UNKNOWN, CAPABILITY_DRIVER, CAPABILITY_DXCL };

typedef void(CL_CALLBACK *event_notify_fn)(cl_event, cl_int, void *);
typedef void(CL_CALLBACK *mem_notify_fn)(cl_mem, void *);
typedef void(CL_CALLBACK *context_notify_fn)(cl_context, void *);

struct event_callback {
    struct event_callback *next;
    cl_event event; /* a driver reference of dxcl */
    event_notify_fn notify;
    void *user_data;
    bool watched; /* the waiter's round comes when the event completes (core/watch.h) */
};

/* Pending event callbacks, one FIFO per callback type (CL_COMPLETE 0, CL_RUNNING 1,
 * CL_SUBMITTED 2), so that the waiter runs an event's SUBMITTED, RUNNING and COMPLETE
 * callbacks in that order. */
struct event_list {
    struct event_callback *head, **tail;
};

struct destructor_callback {
    struct destructor_callback *next;
    void *notify;
    void *user_data;
};

/* A cl_mem or cl_context with destructor callbacks dxcl delivers. Its driver count is the
 * program's references, what the driver counts of its own (sub-buffers, programs; queued
 * commands and queues on some drivers, PoCL, not on others, NVIDIA) and dxcl's one. The object
 * is gone once that count is dxcl's alone, no queue of it (a context) is left, and markers put
 * behind everything queued on its context's queues at that moment have completed. */
struct watched_object {
    struct watched_object *next; /* in the dying list */
    void *handle;                /* a driver reference of dxcl */
    bool is_context;
    bool dying;       /* the program released it at least once */
    bool fenced;      /* fences are queued */
    cl_event *fences; /* fence_count markers */
    size_t fence_count;
    struct destructor_callback *callbacks; /* newest first: the order they run in */
};

/* Guards the registrations on their way to the waiter: the new callbacks, the table of
 * watched objects and the newly dying ones. */
static SRWLOCK callbacks_lock = SRWLOCK_INIT;
static struct event_list pending_events[3];
static struct dxcl_table watched; /* handle -> watched_object, until the program's last release */
static struct watched_object *dying;
static LONG watched_count;

static enum capability event_capability, mem_capability, context_capability;

static void list_append(struct event_list *list, struct event_callback *cb)
{
    if (!list->tail)
        list->tail = &list->head;
    cb->next = NULL;
    *list->tail = cb;
    list->tail = &cb->next;
}

/* Moves every entry of `from` to the end of `to`. */
static void list_splice(struct event_list *to, struct event_list *from)
{
    if (!from->head)
        return;
    if (!to->tail)
        to->tail = &to->head;
    *to->tail = from->head;
    to->tail = from->tail;
    from->head = NULL;
    from->tail = &from->head;
}

static cl_int event_status(cl_event event)
{
    cl_int status = CL_COMPLETE;
    cl_int err = dxcl_driver()->clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                               sizeof(status), &status, NULL);

    return err == CL_SUCCESS ? status : err;
}

/* Runs the callbacks of `list` (all of one type) whose event reached `type`; keeps the others
 * in `list`. True when any ran. */
static bool run_event_callbacks(struct event_list *list, cl_int type)
{
    struct event_callback *cb = list->head, *next;
    struct event_list keep = {NULL, &keep.head};
    bool progress = false;

    for (; cb; cb = next) {
        cl_int status = event_status(cb->event);

        next = cb->next;
        if (status > type) {
            list_append(&keep, cb);
            continue;
        }
        /* A failed command reports its negative status to every callback. */
        cb->notify(cb->event, status < 0 ? status : type, cb->user_data);
        dxcl_driver()->clReleaseEvent(cb->event);
        free(cb);
        progress = true;
    }
    *list = keep;
    if (!list->head)
        list->tail = &list->head;
    return progress;
}

static cl_uint driver_refcount(const struct watched_object *object)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_uint refs = 0;
    cl_int err = object->is_context
                     ? drv->clGetContextInfo((cl_context)object->handle, CL_CONTEXT_REFERENCE_COUNT,
                                             sizeof(refs), &refs, NULL)
                     : drv->clGetMemObjectInfo((cl_mem)object->handle, CL_MEM_REFERENCE_COUNT,
                                               sizeof(refs), &refs, NULL);

    return err == CL_SUCCESS ? refs : 0; /* 0: the driver does not know the object */
}

static void release_object(void *handle, bool is_context)
{
    if (is_context)
        dxcl_driver()->clReleaseContext((cl_context)handle);
    else
        dxcl_driver()->clReleaseMemObject((cl_mem)handle);
}

static void destroy_watched(struct watched_object *object)
{
    struct destructor_callback *cb, *next;

    /* Leaves the table first: a registration from now on starts a new record. */
    dxcl_take(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    dxcl_table_remove(&watched, object->handle);
    InterlockedDecrement(&watched_count);
    cb = object->callbacks;
    object->callbacks = NULL;
    dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    for (; cb; cb = next) {
        next = cb->next;
        if (object->is_context)
            ((context_notify_fn)cb->notify)((cl_context)object->handle, cb->user_data);
        else
            ((mem_notify_fn)cb->notify)((cl_mem)object->handle, cb->user_data);
        free(cb);
    }
    release_object(object->handle, object->is_context);
    free(object);
}

/* The context of a watched object: itself, or the one a cl_mem was made in. */
static cl_context context_of(const struct watched_object *object)
{
    cl_context context = NULL;

    if (object->is_context)
        return (cl_context)object->handle;
    dxcl_driver()->clGetMemObjectInfo((cl_mem)object->handle, CL_MEM_CONTEXT, sizeof(context),
                                      &context, NULL);
    return context;
}

/* Markers behind everything queued so far on the queues of the object's context. */
static void fence(struct watched_object *object)
{
    object->fenced = true;
    object->fences = dxcl_fence_context_queues(context_of(object), 0, &object->fence_count);
}

static bool fences_done(const struct watched_object *object)
{
    for (size_t i = 0; i < object->fence_count; i++)
        if (event_status(object->fences[i]) > CL_COMPLETE)
            return false;
    return true;
}

static void release_fences(struct watched_object *object)
{
    for (size_t i = 0; i < object->fence_count; i++)
        dxcl_driver()->clReleaseEvent(object->fences[i]);
    free(object->fences);
}

/* The program and the driver let go of the object, as far as the driver tells. */
static bool released_by_all(const struct watched_object *object)
{
    return driver_refcount(object) <= 1 &&
           (!object->is_context || !dxcl_context_queue_count((cl_context)object->handle));
}

/* Destroys the dying objects that are gone (struct watched_object); keeps the others. */
static bool run_destructors(struct watched_object **list)
{
    struct watched_object **link = list, *object;
    bool progress = false;

    while ((object = *link)) {
        if (!released_by_all(object) || (object->fenced && !fences_done(object))) {
            link = &object->next;
            continue;
        }
        if (!object->fenced) {
            fence(object); /* done in a later round */
            progress = true;
            link = &object->next;
            continue;
        }
        *link = object->next;
        release_fences(object);
        destroy_watched(object);
        progress = true;
    }
    return progress;
}

/* What the waiter runs of the callbacks, and the dying objects it watches; the waiter
 * thread's own. */
static struct event_list waiting_events[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
static struct watched_object *waiting_objects;

/* Whether every callback of `list` (CL_COMPLETE's) comes with its event's completion. */
static bool all_watched(const struct event_list *list)
{
    for (const struct event_callback *cb = list->head; cb; cb = cb->next)
        if (!cb->watched)
            return false;
    return true;
}

/* The waiter's round (struct dxcl_waiter_source). A CL_COMPLETE callback whose event is
 * watched runs when the event completes (the waiter is woken then); the others (SUBMITTED and
 * RUNNING, and events no watch could be set on) are polled at most 16 ms apart; an object
 * waiting for the driver's last internal reference (a queue holding a context the program
 * released) at most a second apart: the program's releases wake the waiter sooner. */
static bool callbacks_round(DWORD *max_wait_ms)
{
    struct watched_object **tail;
    bool progress = false;

    dxcl_take(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    for (unsigned i = 0; i < 3; i++)
        list_splice(&waiting_events[i], &pending_events[i]);
    for (tail = &waiting_objects; *tail; tail = &(*tail)->next)
        ;
    *tail = dying;
    dying = NULL;
    dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);

    /* SUBMITTED, then RUNNING, then COMPLETE: an event's callbacks in status order. */
    for (int i = 2; i >= 0; i--)
        progress |= run_event_callbacks(&waiting_events[i], i);
    progress |= run_destructors(&waiting_objects);
    if (waiting_events[1].head || waiting_events[2].head || !all_watched(&waiting_events[0]))
        *max_wait_ms = 16;
    else
        *max_wait_ms = waiting_events[0].head || waiting_objects ? 1000 : 0;
    return progress;
}

static struct dxcl_waiter_source callbacks_source = {callbacks_round, NULL};
DXCL_WAITER_SOURCE(callbacks_source)

/* First call for a capability: ask the driver; CL_INVALID_OPERATION for an object it
 * otherwise knows (checked by `valid`) means it cannot deliver that callback. */
static bool use_driver(enum capability *capability, cl_int driver_result, bool valid)
{
    if (driver_result == CL_SUCCESS) {
        *capability = CAPABILITY_DRIVER;
        return true;
    }
    if (driver_result == CL_INVALID_OPERATION && valid) {
        DXCL_LOG("callbacks: the driver cannot deliver them; dxcl does");
        *capability = CAPABILITY_DXCL;
        return false;
    }
    return true; /* the driver's answer for bad arguments stands */
}

static bool event_valid(cl_event event)
{
    cl_int status;

    return dxcl_driver()->clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                         &status, NULL) == CL_SUCCESS;
}

cl_int CL_API_CALL DXCL_IMPL(clSetEventCallback)(cl_event event, cl_int type,
                                                 event_notify_fn notify, void *user_data)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct event_callback *cb;
    cl_int err;

    if (event_capability != CAPABILITY_DXCL && drv->clSetEventCallback) {
        err = drv->clSetEventCallback(event, type, notify, user_data);
        if (event_capability == CAPABILITY_DRIVER ||
            use_driver(&event_capability, err, err == CL_INVALID_OPERATION && event_valid(event)))
            return err;
    }
    if (!notify)
        return DXCL_FAIL(CL_INVALID_VALUE, "clSetEventCallback: pfn_notify is NULL");
    if (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE)
        return DXCL_FAIL(CL_INVALID_VALUE, "clSetEventCallback: callback type %d", type);
    if (!drv->clRetainEvent || !drv->clGetEventInfo)
        return dxcl_driver_missing("clRetainEvent");
    if ((err = drv->clRetainEvent(event)) != CL_SUCCESS)
        return DXCL_FAIL(err, "clSetEventCallback: event %p not retained", (void *)event);
    if (!(cb = malloc(sizeof(*cb))) || !dxcl_waiter_start()) {
        free(cb);
        drv->clReleaseEvent(event);
        return DXCL_FAIL(CL_OUT_OF_HOST_MEMORY, "clSetEventCallback: no waiter");
    }
    cb->event = event;
    cb->notify = notify;
    cb->user_data = user_data;
    cb->watched = type == CL_COMPLETE && dxcl_watch_event(event);
    dxcl_take(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    list_append(&pending_events[type], cb);
    dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    dxcl_waiter_wake();
    return CL_SUCCESS;
}

/* Adds a destructor callback to the watched record of `handle`, creating it (with one driver
 * reference of dxcl and the program's current count) on the first registration. */
static cl_int watch_destructor(void *handle, bool is_context, void *notify, void *user_data)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct watched_object probe = {.handle = handle, .is_context = is_context}, *object;
    struct destructor_callback *cb = malloc(sizeof(*cb));
    bool extra_reference = false;
    cl_int err = is_context ? drv->clRetainContext((cl_context)handle)
                            : drv->clRetainMemObject((cl_mem)handle);

    if (err != CL_SUCCESS) {
        free(cb);
        return err;
    }
    if (!cb || !dxcl_waiter_start()) {
        free(cb);
        release_object(handle, is_context);
        return CL_OUT_OF_HOST_MEMORY;
    }
    cb->notify = notify;
    cb->user_data = user_data;
    dxcl_take(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    if ((object = dxcl_table_get(&watched, handle))) {
        extra_reference = true; /* one dxcl reference is enough */
    } else if ((object = malloc(sizeof(*object))) && dxcl_table_put(&watched, handle, object)) {
        *object = probe;
        InterlockedIncrement(&watched_count);
    } else {
        dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
        free(object);
        free(cb);
        release_object(handle, is_context);
        return CL_OUT_OF_HOST_MEMORY;
    }
    cb->next = object->callbacks;
    object->callbacks = cb;
    dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    if (extra_reference)
        release_object(handle, is_context);
    return CL_SUCCESS;
}

cl_uint dxcl_callbacks_references(const void *handle)
{
    cl_uint refs;

    if (!InterlockedCompareExchange(&watched_count, 0, 0))
        return 0;
    dxcl_take(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    refs = dxcl_table_get(&watched, handle) ? 1 : 0;
    dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    return refs;
}

/* A released cl_mem, cl_context or cl_command_queue: an object with destructor callbacks
 * that dxcl delivers may have lost its last reference. Cheap when no object has such callbacks. */
static void object_released(const void *handle)
{
    struct watched_object *object;

    if (!InterlockedCompareExchange(&watched_count, 0, 0))
        return;
    dxcl_take(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    if ((object = dxcl_table_get(&watched, handle)) && !object->dying) {
        object->dying = true;
        object->next = dying;
        dying = object;
    }
    dxcl_leave(&callbacks_lock, DXCL_LOCK_CALLBACKS, true, __func__);
    dxcl_waiter_wake(); /* a last reference (of this object or of one holding it) may be gone */
}

static struct dxcl_release_listener release_listener = {object_released, NULL, NULL};
DXCL_LISTEN_TO_RELEASES(release_listener)

/* clSetMemObjectDestructorCallback and clSetContextDestructorCallback: the driver's when it
 * delivers them, dxcl's otherwise. */
static cl_int set_destructor_callback(void *handle, bool is_context, void *notify, void *user_data)
{
    const struct dxcl_driver *drv = dxcl_driver();
    const char *name =
        is_context ? "clSetContextDestructorCallback" : "clSetMemObjectDestructorCallback";
    enum capability *capability = is_context ? &context_capability : &mem_capability;
    bool driver_has = is_context ? drv->clSetContextDestructorCallback != NULL
                                 : drv->clSetMemObjectDestructorCallback != NULL;
    struct watched_object probe = {.handle = handle, .is_context = is_context};
    cl_int err;

    if (*capability != CAPABILITY_DXCL && driver_has) {
        err =
            is_context
                ? drv->clSetContextDestructorCallback(handle, (context_notify_fn)notify, user_data)
                : drv->clSetMemObjectDestructorCallback(handle, (mem_notify_fn)notify, user_data);
        if (*capability == CAPABILITY_DRIVER ||
            use_driver(capability, err, err == CL_INVALID_OPERATION && driver_refcount(&probe) > 0))
            return err;
    }
    if (!notify)
        return DXCL_FAIL(CL_INVALID_VALUE, "%s: pfn_notify is NULL", name);
    if ((err = watch_destructor(handle, is_context, notify, user_data)) != CL_SUCCESS)
        return DXCL_FAIL(err == CL_OUT_OF_HOST_MEMORY ? err
                         : is_context                 ? CL_INVALID_CONTEXT
                                                      : CL_INVALID_MEM_OBJECT,
                         "%s: object %p", name, handle);
    return CL_SUCCESS;
}

cl_int CL_API_CALL DXCL_IMPL(clSetMemObjectDestructorCallback)(cl_mem memobj, mem_notify_fn notify,
                                                               void *user_data)
{
    cl_int err = set_destructor_callback(memobj, false, (void *)notify, user_data);

    if (err == CL_SUCCESS)
        dxcl_memobj_mark_watched(memobj);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clSetContextDestructorCallback)(cl_context context,
                                                             context_notify_fn notify,
                                                             void *user_data)
{
    return set_destructor_callback(context, true, (void *)notify, user_data);
}
