/* Command queues of contexts dxcl keeps a record of. A queue holds its context in the
 * driver, so it holds the record (and the context's interop device reference) too. */
#include "core/context.h"
#include "core/registry.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

struct dxcl_queue {
    struct dxcl_mirrored mirror;
    struct dxcl_context *ctx; /* a record reference */
};

static struct dxcl_table queues;

void dxcl_queue_created(cl_command_queue queue, cl_context context)
{
    struct dxcl_context *ctx = queue ? dxcl_context_find(context) : NULL;
    struct dxcl_queue *record;
    bool stored = false;

    if (!ctx)
        return;
    if ((record = malloc(sizeof(*record)))) {
        record->ctx = ctx;
        record->mirror.app_refs = 1;
        dxcl_lock_exclusive();
        stored = dxcl_table_put(&queues, queue, record);
        dxcl_unlock_exclusive();
    }
    if (!stored) {
        free(record);
        dxcl_context_unref(ctx);
    }
}

struct dxcl_context *dxcl_queue_context(cl_command_queue queue)
{
    struct dxcl_queue *record;
    struct dxcl_context *ctx = NULL;

    dxcl_lock_shared();
    if ((record = dxcl_table_get(&queues, queue))) {
        ctx = record->ctx;
        dxcl_context_ref(ctx);
    }
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
     * reference, and with it the queue's hold on its context's record. */
    struct dxcl_queue *record = dxcl_mirror_release(&queues, command_queue);
    cl_int err;

    if (record) {
        dxcl_context_unref(record->ctx);
        free(record);
    }
    err = DXCL_DRIVER_CALL_INT(clReleaseCommandQueue, (command_queue));
    if (err == CL_SUCCESS)
        dxcl_released(command_queue); /* a queue holds its context */
    return err;
}
