/* Profiling times of acquire and release events (engine/timing.h). */
#include "engine/timing.h"
#include "core/driver.h"

bool dxcl_timing_wanted(cl_command_queue queue, const cl_event *event)
{
    cl_command_queue_properties properties = 0;

    return event &&
           DXCL_DRIVER_CALL_INT(clGetCommandQueueInfo, (queue, CL_QUEUE_PROPERTIES,
                                                        sizeof(properties), &properties, NULL)) ==
               CL_SUCCESS &&
           (properties & CL_QUEUE_PROFILING_ENABLE);
}

cl_int dxcl_enqueue_stamp(cl_context context, cl_command_queue queue, cl_uint num_events,
                          const cl_event *wait_list, cl_event *stamp)
{
    static const cl_uint pattern = 0;
    const struct dxcl_driver *drv = dxcl_driver();
    cl_int err = CL_SUCCESS;
    cl_mem buffer;

    *stamp = NULL;
    if (!drv->clCreateBuffer)
        return dxcl_driver_missing("clCreateBuffer");
    if (!(buffer = drv->clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(pattern), NULL, &err)))
        return err;
    err =
        DXCL_DRIVER_CALL_INT(clEnqueueFillBuffer, (queue, buffer, &pattern, sizeof(pattern), 0,
                                                   sizeof(pattern), num_events, wait_list, stamp));
    DXCL_DRIVER_CALL_INT(clReleaseMemObject, (buffer));
    return err;
}
