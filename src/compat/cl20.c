/* OpenCL 2.0/3.0 entry points implemented on the 1.2 ones when the driver lacks them (Wine's
 * opencl.dll stops at 1.2). Each forwards when the driver has the real one. The set is listed
 * in docs/proxy.md. */
#include "core/context.h"
#include "core/driver.h"
#include "core/api.h"

static cl_int set_error(cl_int *errcode_ret, cl_int err)
{
    if (errcode_ret)
        *errcode_ret = err;
    return err;
}

static cl_int queue_properties_to_1_2(const cl_queue_properties *props,
                                      cl_command_queue_properties *out)
{
    const cl_command_queue_properties known =
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
    bool seen_properties = false;

    *out = 0;
    for (; props && props[0]; props += 2) {
        if (props[0] == CL_QUEUE_PROPERTIES && !seen_properties) {
            seen_properties = true;
            if (props[1] & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT))
                return DXCL_FAIL(CL_INVALID_QUEUE_PROPERTIES,
                                 "on-device queues need an OpenCL 2.0 driver");
            if (props[1] & ~known)
                return DXCL_FAIL(CL_INVALID_VALUE, "unknown queue property bits 0x%llx",
                                 (unsigned long long)(props[1] & ~known));
            *out = props[1];
        } else if (props[0] == CL_QUEUE_SIZE) {
            return DXCL_FAIL(CL_INVALID_QUEUE_PROPERTIES,
                             "CL_QUEUE_SIZE needs an on-device queue (OpenCL 2.0 driver)");
        } else {
            return DXCL_FAIL(CL_INVALID_VALUE, "queue property 0x%llx unknown or repeated",
                             (unsigned long long)props[0]);
        }
    }
    return CL_SUCCESS;
}

static bool wants_queue_on_device(const cl_queue_properties *properties)
{
    for (const cl_queue_properties *p = properties; p && p[0]; p += 2)
        if (p[0] == CL_QUEUE_PROPERTIES && (p[1] & CL_QUEUE_ON_DEVICE))
            return true;
    return false;
}

/* False when the device reports no queue on it (CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE 0). A device
 * that does not answer is left to the driver. */
static bool has_queues_on_device(cl_device_id device)
{
    cl_uint max_size = 1;

    if (DXCL_DRIVER_CALL_INT(clGetDeviceInfo, (device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
                                               sizeof(max_size), &max_size, NULL)) != CL_SUCCESS)
        return true;
    return max_size != 0;
}

cl_command_queue CL_API_CALL DXCL_IMPL(clCreateCommandQueueWithProperties)(
    cl_context context, cl_device_id device, const cl_queue_properties *properties,
    cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_command_queue_properties props_1_2;
    cl_command_queue queue;
    cl_int err;

    if (drv->clCreateCommandQueueWithProperties) {
        /* Some 2.0+ drivers stop the process for an on-device queue they cannot make (PoCL
         * 3.1 aborts): a device with no queues on it gets the spec's error from dxcl. */
        if (wants_queue_on_device(properties) && !has_queues_on_device(device)) {
            set_error(errcode_ret, DXCL_FAIL(CL_INVALID_QUEUE_PROPERTIES,
                                             "clCreateCommandQueueWithProperties: device %p has "
                                             "no on-device queues",
                                             (void *)device));
            return NULL;
        }
        queue = drv->clCreateCommandQueueWithProperties(context, device, properties, errcode_ret);
        dxcl_queue_created(queue, context);
        return queue;
    }
    if ((err = queue_properties_to_1_2(properties, &props_1_2)) != CL_SUCCESS) {
        set_error(errcode_ret, err);
        return NULL;
    }
    return DXCL_IMPL(clCreateCommandQueue)(context, device, props_1_2, errcode_ret);
}

cl_sampler CL_API_CALL DXCL_IMPL(clCreateSamplerWithProperties)(
    cl_context context, const cl_sampler_properties *properties, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_bool normalized = CL_TRUE;
    cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
    cl_filter_mode filter = CL_FILTER_NEAREST;
    unsigned seen = 0;

    if (drv->clCreateSamplerWithProperties) {
        /* NULL means the defaults, as an empty list does; PoCL 3.1 refuses NULL. */
        static const cl_sampler_properties defaults[] = {0};

        return drv->clCreateSamplerWithProperties(context, properties ? properties : defaults,
                                                  errcode_ret);
    }
    for (const cl_sampler_properties *p = properties; p && p[0]; p += 2) {
        unsigned bit = p[0] == CL_SAMPLER_NORMALIZED_COORDS ? 1
                       : p[0] == CL_SAMPLER_ADDRESSING_MODE ? 2
                       : p[0] == CL_SAMPLER_FILTER_MODE     ? 4
                                                            : 0;
        if (!bit || (seen & bit)) {
            set_error(errcode_ret,
                      DXCL_FAIL(CL_INVALID_VALUE, "sampler property 0x%llx unknown or repeated",
                                (unsigned long long)p[0]));
            return NULL;
        }
        seen |= bit;
        if (bit == 1)
            normalized = (cl_bool)p[1];
        else if (bit == 2)
            addressing = (cl_addressing_mode)p[1];
        else
            filter = (cl_filter_mode)p[1];
    }
    if (!drv->clCreateSampler) {
        set_error(errcode_ret, dxcl_driver_missing("clCreateSampler"));
        return NULL;
    }
    return drv->clCreateSampler(context, normalized, addressing, filter, errcode_ret);
}

/* The 3.0 memory properties: none are defined by core OpenCL, so a 1.2 driver can take only
 * an empty list. */
static bool empty_mem_properties(const cl_mem_properties *properties, cl_int *errcode_ret)
{
    if (!properties || !properties[0])
        return true;
    set_error(errcode_ret,
              DXCL_FAIL(CL_INVALID_PROPERTY, "memory property 0x%llx needs an OpenCL 3.0 driver",
                        (unsigned long long)properties[0]));
    return false;
}

cl_mem CL_API_CALL DXCL_IMPL(clCreateBufferWithProperties)(cl_context context,
                                                           const cl_mem_properties *properties,
                                                           cl_mem_flags flags, size_t size,
                                                           void *host_ptr, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();

    if (drv->clCreateBufferWithProperties)
        return drv->clCreateBufferWithProperties(context, properties, flags, size, host_ptr,
                                                 errcode_ret);
    if (!empty_mem_properties(properties, errcode_ret))
        return NULL;
    if (!drv->clCreateBuffer) {
        set_error(errcode_ret, dxcl_driver_missing("clCreateBuffer"));
        return NULL;
    }
    return drv->clCreateBuffer(context, flags, size, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL DXCL_IMPL(clCreateImageWithProperties)(cl_context context,
                                                          const cl_mem_properties *properties,
                                                          cl_mem_flags flags,
                                                          const cl_image_format *image_format,
                                                          const cl_image_desc *image_desc,
                                                          void *host_ptr, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();

    /* Without properties it is clCreateImage, which emulates the formats the driver lacks. */
    if (drv->clCreateImageWithProperties && properties && properties[0])
        return drv->clCreateImageWithProperties(context, properties, flags, image_format,
                                                image_desc, host_ptr, errcode_ret);
    if (!empty_mem_properties(properties, errcode_ret))
        return NULL;
    return DXCL_IMPL(clCreateImage)(context, flags, image_format, image_desc, host_ptr,
                                    errcode_ret);
}
