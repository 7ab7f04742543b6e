/* Kernels and the shared objects set as their arguments: a kernel enqueue uses every one of
 * them, so the guard checks and brings in each (engine/guard.h). Every kernel has a record
 * from its creation (clCreateKernel, clCreateKernelsInProgram, clCloneKernel), so that dxcl
 * counts exactly the program's references it sees and a record never outlives its kernel. */
#include "core/api.h"
#include "core/driver.h"
#include "core/fault.h"
#include "core/table.h"
#include "engine/guard.h"

#include <stdlib.h>

struct dxcl_kernel {
    struct dxcl_mirrored mirror;
    cl_uint num_args;
    cl_mem *args; /* the shared objects set as arguments, NULL elsewhere; num_args of them */
};

static struct dxcl_table kernels;

static void free_record(struct dxcl_kernel *record)
{
    if (record) {
        free(record->args);
        free(record);
    }
}

/* A record for a new kernel: `source`'s arguments for a clone, none set otherwise. */
static void record_kernel(cl_kernel kernel, cl_kernel source)
{
    struct dxcl_kernel *record = dxcl_calloc(1, sizeof(*record)), *from;
    bool stored = false;

    if (!record)
        goto untracked;
    record->mirror.app_refs = 1;
    if (DXCL_DRIVER_CALL_INT(clGetKernelInfo, (kernel, CL_KERNEL_NUM_ARGS, sizeof(record->num_args),
                                               &record->num_args, NULL)) != CL_SUCCESS)
        record->num_args = 0;
    if (record->num_args && !(record->args = dxcl_calloc(record->num_args, sizeof(cl_mem))))
        goto untracked;
    dxcl_lock_exclusive();
    if (source && (from = dxcl_table_get(&kernels, source)) && from->num_args == record->num_args)
        memcpy(record->args, from->args, record->num_args * sizeof(cl_mem));
    stored = dxcl_table_put(&kernels, kernel, record);
    dxcl_unlock_exclusive();
    if (stored)
        return;
untracked:
    /* The kernel works; only the guard cannot see its shared arguments. */
    DXCL_LOG("kernel %p: no record (out of memory): its shared arguments are not guarded",
             (void *)kernel);
    free_record(record);
}

cl_kernel CL_API_CALL DXCL_IMPL(clCreateKernel)(cl_program program, const char *kernel_name,
                                                cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_kernel kernel;

    if (!drv->clCreateKernel) {
        if (errcode_ret)
            *errcode_ret = dxcl_driver_missing("clCreateKernel");
        return NULL;
    }
    if ((kernel = drv->clCreateKernel(program, kernel_name, errcode_ret)))
        record_kernel(kernel, NULL);
    return kernel;
}

cl_int CL_API_CALL DXCL_IMPL(clCreateKernelsInProgram)(cl_program program, cl_uint num_kernels,
                                                       cl_kernel *kernels_out,
                                                       cl_uint *num_kernels_ret)
{
    cl_uint made = 0;
    cl_int err =
        DXCL_DRIVER_CALL_INT(clCreateKernelsInProgram, (program, num_kernels, kernels_out, &made));

    if (num_kernels_ret)
        *num_kernels_ret = made;
    for (cl_uint i = 0; err == CL_SUCCESS && kernels_out && i < made && i < num_kernels; i++)
        record_kernel(kernels_out[i], NULL);
    return err;
}

cl_kernel CL_API_CALL DXCL_IMPL(clCloneKernel)(cl_kernel source_kernel, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_kernel kernel;

    if (!drv->clCloneKernel) {
        if (errcode_ret)
            *errcode_ret = dxcl_driver_missing("clCloneKernel");
        return NULL;
    }
    if ((kernel = drv->clCloneKernel(source_kernel, errcode_ret)))
        record_kernel(kernel, source_kernel);
    return kernel;
}

cl_int CL_API_CALL DXCL_IMPL(clSetKernelArg)(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                             const void *arg_value)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clSetKernelArg, (kernel, arg_index, arg_size, arg_value));
    struct dxcl_kernel *record;
    cl_mem mem = NULL;

    if (err != CL_SUCCESS)
        return err;
    if (arg_size == sizeof(cl_mem) && arg_value) {
        memcpy(&mem, arg_value, sizeof(mem));
        if (!dxcl_memobj_is_shared(mem))
            mem = NULL;
    }
    dxcl_lock_exclusive();
    if ((record = dxcl_table_get(&kernels, kernel)) && arg_index < record->num_args)
        record->args[arg_index] = mem;
    dxcl_unlock_exclusive();
    return err;
}

/* The guard's check of every shared argument; `read_only` objects are only read. */
static cl_int begin_kernel(struct dxcl_guarded *g, cl_command_queue queue, cl_kernel kernel,
                           const char *caller)
{
    struct dxcl_use_of *uses = NULL;
    struct dxcl_kernel *record;
    size_t count = 0;
    cl_int err = CL_SUCCESS;

    dxcl_lock_shared();
    if ((record = dxcl_table_get(&kernels, kernel)) && record->num_args &&
        !(uses = dxcl_calloc(record->num_args, sizeof(*uses))))
        err = CL_OUT_OF_HOST_MEMORY;
    for (cl_uint i = 0; uses && i < record->num_args; i++)
        if (record->args[i])
            uses[count++] = (struct dxcl_use_of){record->args[i], DXCL_USE_WRITE};
    dxcl_unlock_shared();
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%s: no memory to check the kernel's arguments", caller);
    for (size_t i = 0; i < count; i++) {
        struct dxcl_memobj *mem = dxcl_memobj_get(uses[i].mem);
        if (mem && (mem->flags & CL_MEM_READ_ONLY))
            uses[i].use = DXCL_USE_READ; /* a kernel cannot write it */
    }
    err = dxcl_guard_begin(g, queue, uses, count, caller);
    free(uses);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueNDRangeKernel)(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size, const size_t *local_work_size,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    struct dxcl_guarded g;
    cl_int err = begin_kernel(&g, command_queue, kernel, "clEnqueueNDRangeKernel");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_guard_end(
        &g,
        DXCL_DRIVER_CALL_INT(clEnqueueNDRangeKernel,
                             (command_queue, kernel, work_dim, global_work_offset, global_work_size,
                              local_work_size, num_events_in_wait_list, event_wait_list, event)));
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueTask)(cl_command_queue command_queue, cl_kernel kernel,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event)
{
    struct dxcl_guarded g;
    cl_int err = begin_kernel(&g, command_queue, kernel, "clEnqueueTask");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_guard_end(
        &g, DXCL_DRIVER_CALL_INT(clEnqueueTask, (command_queue, kernel, num_events_in_wait_list,
                                                 event_wait_list, event)));
}

cl_int CL_API_CALL DXCL_IMPL(clRetainKernel)(cl_kernel kernel)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clRetainKernel, (kernel));

    if (err == CL_SUCCESS)
        dxcl_mirror_retain(&kernels, kernel);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseKernel)(cl_kernel kernel)
{
    /* The record goes before the driver can hand the handle out again. */
    free_record(dxcl_mirror_release(&kernels, kernel));
    return DXCL_DRIVER_CALL_INT(clReleaseKernel, (kernel));
}
