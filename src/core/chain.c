/* Driver commands chained on one queue (core/chain.h). */
#include "core/chain.h"
#include "core/context.h"
#include "core/driver.h"

struct dxcl_chain dxcl_chain_start(cl_command_queue queue, cl_uint num_events,
                                   const cl_event *wait_list, enum dxcl_fault_point fault)
{
    return (struct dxcl_chain){.queue = queue,
                               .in_order = dxcl_queue_in_order(queue),
                               .num_events = num_events,
                               .wait_list = wait_list,
                               .fault = fault,
                               .err = CL_SUCCESS};
}

cl_uint dxcl_chain_wait_count(const struct dxcl_chain *c)
{
    return !c->started ? c->num_events : c->in_order ? 0 : 1;
}

const cl_event *dxcl_chain_wait_list(const struct dxcl_chain *c)
{
    return !c->started ? c->wait_list : c->in_order ? NULL : &c->last;
}

bool dxcl_chain_wants(const struct dxcl_chain *c, bool needed)
{
    return needed || !c->in_order;
}

bool dxcl_chain_next(struct dxcl_chain *c)
{
    if (c->err == CL_SUCCESS && dxcl_fault_hit(c->fault))
        c->err = CL_OUT_OF_RESOURCES;
    return c->err == CL_SUCCESS;
}

void dxcl_chain_step(struct dxcl_chain *c, cl_int err, bool wanted, cl_event next)
{
    /* Wine's opencl.dll returns no event from some commands (clEnqueueFillBuffer,
     * clEnqueueCopyBufferToImage): a marker without a wait list stands for everything
     * enqueued before it, in any queue mode. */
    if (err == CL_SUCCESS && wanted && !next)
        err = dxcl_driver()->clEnqueueMarkerWithWaitList(c->queue, 0, NULL, &next);
    if (err != CL_SUCCESS) {
        c->err = err;
        return;
    }
    c->started = true;
    if (!wanted)
        return;
    if (c->last)
        dxcl_driver()->clReleaseEvent(c->last);
    c->last = next;
}

void dxcl_chain_abandon(struct dxcl_chain *c)
{
    if (!c->last)
        return;
    if (c->uses_host)
        dxcl_driver()->clWaitForEvents(1, &c->last);
    dxcl_driver()->clReleaseEvent(c->last);
    c->last = NULL;
}
