/* Command queues: every queue the program makes has a record with its context. A queue of a
 * context dxcl keeps a record of holds that record (and so the context's interop device
 * reference), as it holds the driver's context. The records also tell which queues a context
 * has (compat/callbacks.c fences destructor callbacks behind them). */
#include "core/context.h"
#include "core/registry.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

struct dxcl_queue {
    struct dxcl_mirrored mirror;
    /* One for the program while it holds the queue, one for each dxcl call that uses the
     * queue outside dxcl_lock: the last one releases the driver's queue. */
    volatile LONG holds;
    cl_command_queue handle;
    cl_context context;
    struct dxcl_context *ctx; /* a record reference, or NULL: a context dxcl keeps none of */
};

static struct dxcl_table queues;

void dxcl_queue_created(cl_command_queue queue, cl_context context)
{
    struct dxcl_context *ctx;
    struct dxcl_queue *record;
    bool stored = false;

    if (!queue)
        return;
    ctx = dxcl_context_find(context);
    if ((record = malloc(sizeof(*record)))) {
        *record = (struct dxcl_queue){{1}, 1, queue, context, ctx};
        dxcl_lock_exclusive();
        stored = dxcl_table_put(&queues, queue, record);
        dxcl_unlock_exclusive();
    }
    if (stored)
        return;
    DXCL_LOG("queue %p: no record (out of memory)", (void *)queue);
    free(record);
    if (ctx)
        dxcl_context_unref(ctx);
}

struct queues_of {
    cl_context context;
    struct dxcl_queue **found; /* NULL: count only */
    size_t count;
};

static void queue_of_context(void *value, void *arg)
{
    struct dxcl_queue *record = value;
    struct queues_of *of = arg;

    if (record->context != of->context)
        return;
    if (of->found) {
        InterlockedIncrement(&record->holds);
        of->found[of->count] = record;
    }
    of->count++;
}

struct dxcl_queue **dxcl_context_queues(cl_context context, size_t *count)
{
    struct queues_of of = {context, NULL, 0};

    dxcl_lock_shared();
    dxcl_table_each(&queues, queue_of_context, &of);
    if (of.count && (of.found = malloc(of.count * sizeof(*of.found)))) {
        of.count = 0;
        dxcl_table_each(&queues, queue_of_context, &of);
    }
    dxcl_unlock_shared();
    *count = of.found ? of.count : 0;
    return of.found;
}

size_t dxcl_context_queue_count(cl_context context)
{
    struct queues_of of = {context, NULL, 0};

    dxcl_lock_shared();
    dxcl_table_each(&queues, queue_of_context, &of);
    dxcl_unlock_shared();
    return of.count;
}

cl_command_queue dxcl_queue_handle(const struct dxcl_queue *queue)
{
    return queue->handle;
}

/* The last hold releases the driver's queue: the program's release, or dxcl's later. */
static cl_int queue_unhold(struct dxcl_queue *queue)
{
    cl_int err;

    if (InterlockedDecrement(&queue->holds) > 0)
        return CL_SUCCESS;
    err = DXCL_DRIVER_CALL_INT(clReleaseCommandQueue, (queue->handle));
    free(queue);
    return err;
}

void dxcl_queue_put(struct dxcl_queue *queue)
{
    queue_unhold(queue);
}

struct dxcl_queue *dxcl_queue_hold(cl_command_queue queue)
{
    struct dxcl_queue *record;

    dxcl_lock_shared();
    if ((record = dxcl_table_get(&queues, queue)))
        InterlockedIncrement(&record->holds); /* the program's hold is still there */
    dxcl_unlock_shared();
    return record;
}

cl_platform_id dxcl_platform_of_queue(cl_command_queue queue)
{
    struct dxcl_queue *held = dxcl_queue_hold(queue);
    cl_device_id device = NULL;
    cl_int err;

    if (!held)
        return NULL; /* no queue: dxcl's own path says so, without the driver reading it */
    err = DXCL_DRIVER_CALL_INT(clGetCommandQueueInfo,
                               (queue, CL_QUEUE_DEVICE, sizeof(device), &device, NULL));
    dxcl_queue_put(held);
    return err == CL_SUCCESS ? dxcl_platform_of_device(device) : NULL;
}

struct dxcl_context *dxcl_queue_context(cl_command_queue queue)
{
    struct dxcl_queue *record;
    struct dxcl_context *ctx = NULL;

    dxcl_lock_shared();
    if ((record = dxcl_table_get(&queues, queue)) && (ctx = record->ctx))
        dxcl_context_ref(ctx);
    dxcl_unlock_shared();
    return ctx;
}

bool dxcl_queue_in_order(cl_command_queue queue)
{
    cl_command_queue_properties properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;

    dxcl_driver()->clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(properties),
                                         &properties, NULL);
    return !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

cl_command_queue CL_API_CALL DXCL_IMPL(clCreateCommandQueue)(cl_context context,
                                                             cl_device_id device,
                                                             cl_command_queue_properties properties,
                                                             cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_command_queue queue;

    if (!drv->clCreateCommandQueue) {
        if (errcode_ret)
            *errcode_ret = dxcl_driver_missing("clCreateCommandQueue");
        return NULL;
    }
    queue = drv->clCreateCommandQueue(context, device, properties, errcode_ret);
    dxcl_queue_created(queue, context);
    return queue;
}

cl_int CL_API_CALL DXCL_IMPL(clRetainCommandQueue)(cl_command_queue command_queue)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clRetainCommandQueue, (command_queue));

    if (err == CL_SUCCESS)
        dxcl_mirror_retain(&queues, command_queue);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseCommandQueue)(cl_command_queue command_queue)
{
    /* Before the driver's release: the record leaves the table with the program's last
     * reference, and with it the queue's hold on its context's record. A dxcl call still
     * using the queue releases it in the driver when it is done: this call never waits. */
    struct dxcl_queue *record = dxcl_mirror_release(&queues, command_queue);
    cl_int err;

    if (record && record->ctx)
        dxcl_context_unref(record->ctx);
    err = record ? queue_unhold(record)
                 : DXCL_DRIVER_CALL_INT(clReleaseCommandQueue, (command_queue));
    if (err == CL_SUCCESS)
        dxcl_released(command_queue); /* a queue holds its context */
    return err;
}

cl_event *dxcl_fence_context_queues(cl_context context, size_t extra, size_t *count)
{
    const struct dxcl_driver *drv = dxcl_driver();
    size_t queue_count;
    struct dxcl_queue **held = dxcl_context_queues(context, &queue_count);
    cl_event *fences = queue_count + extra ? calloc(queue_count + extra, sizeof(cl_event)) : NULL;

    *count = 0;
    for (size_t i = 0; i < queue_count; i++) {
        cl_command_queue queue = dxcl_queue_handle(held[i]);
        if (fences &&
            drv->clEnqueueMarkerWithWaitList(queue, 0, NULL, &fences[*count]) == CL_SUCCESS) {
            drv->clFlush(queue);
            ++*count;
        }
        dxcl_queue_put(held[i]);
    }
    free(held);
    return fences;
}
