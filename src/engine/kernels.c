/* Kernels and the shared objects set as their arguments: a kernel enqueue uses every one of
 * them, so the guard checks and brings in each (engine/guard.h). Every kernel has a record
 * from its creation (clCreateKernel, clCreateKernelsInProgram, clCloneKernel), so that dxcl
 * counts exactly the program's references it sees and a record never outlives its kernel.
 *
 * The hot path (docs/design.md, "The enqueue guard"): clSetKernelArg and a kernel enqueue take
 * dxcl_lock shared at most, and a kernel enqueue allocates nothing (up to INLINE_USES shared
 * arguments). Which arguments take a memory object comes from the driver's argument info,
 * read once at creation; only a kernel whose driver gives none falls back to taking any value
 * of a cl_mem's size that equals a shared object's handle for that object. */
#include "core/api.h"
#include "core/driver.h"
#include "core/fault.h"
#include "core/table.h"
#include "engine/guard.h"

#include <stdlib.h>

enum { INLINE_USES = 16 };

struct dxcl_kernel {
    struct dxcl_mirrored mirror;
    cl_uint num_args;
    /* The driver told which arguments take a memory object (takes_mem); false: any argument
     * may (the handle match). */
    bool kinds_known;
    bool *takes_mem;
    /* The shared objects set as arguments, NULL elsewhere (read and written atomically: a
     * kernel's arguments are set by one thread at a time, but enqueued from any). */
    cl_mem *args;
    volatile LONG shared_args; /* how many entries of args are set */
};

static struct dxcl_table kernels;
/* Kernels with a shared object among their arguments: while none has, an enqueue looks up
 * nothing. Only clSetKernelArg on a kernel (or a clone of it) makes its count nonzero, and the
 * program orders that before the kernel's enqueues. */
static volatile LONG kernels_with_shared_args;

static void count_shared_arg(struct dxcl_kernel *record, cl_mem before, cl_mem after)
{
    if (!before && after && InterlockedIncrement(&record->shared_args) == 1)
        InterlockedIncrement(&kernels_with_shared_args);
    if (before && !after && InterlockedDecrement(&record->shared_args) == 0)
        InterlockedDecrement(&kernels_with_shared_args);
}

static void free_record(struct dxcl_kernel *record)
{
    if (!record)
        return;
    if (record->shared_args)
        InterlockedDecrement(&kernels_with_shared_args);
    free(record);
}

/* Whether argument `index` takes a memory object: a pointer to global or constant memory, an
 * image or a pipe. False when the driver does not say. */
static bool arg_kind(cl_kernel kernel, cl_uint index, bool *takes_mem)
{
    cl_kernel_arg_address_qualifier address;
    cl_kernel_arg_access_qualifier access;

    if (DXCL_DRIVER_CALL_INT(clGetKernelArgInfo, (kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                                  sizeof(address), &address, NULL)) != CL_SUCCESS ||
        DXCL_DRIVER_CALL_INT(clGetKernelArgInfo, (kernel, index, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                                  sizeof(access), &access, NULL)) != CL_SUCCESS)
        return false;
    *takes_mem = address == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
                 address == CL_KERNEL_ARG_ADDRESS_CONSTANT || access != CL_KERNEL_ARG_ACCESS_NONE;
    return true;
}

/* The driver's argument info for every argument, or none (the handle match). */
static void read_arg_kinds(cl_kernel kernel, struct dxcl_kernel *record)
{
    record->kinds_known = true;
    for (cl_uint i = 0; i < record->num_args && record->kinds_known; i++)
        record->kinds_known = arg_kind(kernel, i, &record->takes_mem[i]);
    if (!record->kinds_known && record->num_args)
        DXCL_LOG("kernel %p: the driver gives no argument info: an argument of a cl_mem's size "
                 "whose value is a shared object's handle counts as that object",
                 (void *)kernel);
}

static struct dxcl_kernel *new_record(cl_kernel kernel)
{
    struct dxcl_kernel *record;
    cl_uint num_args;

    if (DXCL_DRIVER_CALL_INT(clGetKernelInfo, (kernel, CL_KERNEL_NUM_ARGS, sizeof(num_args),
                                               &num_args, NULL)) != CL_SUCCESS)
        num_args = 0;
    /* One block: the record, its arguments, then their kinds. */
    if (!(record = dxcl_calloc(1, sizeof(*record) + num_args * (sizeof(cl_mem) + sizeof(bool)))))
        return NULL;
    record->mirror.app_refs = 1;
    record->num_args = num_args;
    record->args = (cl_mem *)(record + 1);
    record->takes_mem = (bool *)(record->args + num_args);
    read_arg_kinds(kernel, record);
    return record;
}

/* A record for a new kernel: `source`'s arguments for a clone, none set otherwise. */
static void record_kernel(cl_kernel kernel, cl_kernel source)
{
    struct dxcl_kernel *record = new_record(kernel), *from;
    bool stored = false;

    if (!record)
        goto untracked;
    dxcl_lock_exclusive();
    if (source && (from = dxcl_table_get(&kernels, source)) && from->num_args == record->num_args)
        for (cl_uint i = 0; i < record->num_args; i++)
            count_shared_arg(record, NULL,
                             record->args[i] = __atomic_load_n(&from->args[i], __ATOMIC_RELAXED));
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
    cl_mem mem = NULL, before;

    if (err != CL_SUCCESS)
        return err;
    if (arg_size == sizeof(cl_mem) && arg_value)
        memcpy(&mem, arg_value, sizeof(mem));
    dxcl_lock_shared();
    if ((record = dxcl_table_get(&kernels, kernel)) && arg_index < record->num_args &&
        (!record->kinds_known || record->takes_mem[arg_index])) {
        if (mem && !dxcl_memobj_resolve(mem))
            mem = NULL; /* an ordinary object */
        before = __atomic_exchange_n(&record->args[arg_index], mem, __ATOMIC_RELAXED);
        count_shared_arg(record, before, mem);
    }
    dxcl_unlock_shared();
    return err;
}

/* The uses of a kernel's shared arguments (a kernel cannot write a read-only object), in
 * `uses` when they fit, else in an allocation (*allocated); found under dxcl_lock. */
static cl_int kernel_uses(cl_kernel kernel, struct dxcl_use_of *uses, size_t *count,
                          struct dxcl_use_of **allocated)
{
    struct dxcl_kernel *record;
    struct dxcl_memobj *mem;
    cl_int err = CL_SUCCESS;
    cl_mem arg;

    *count = 0;
    *allocated = NULL;
    dxcl_lock_shared();
    record = dxcl_table_get(&kernels, kernel);
    if (record && record->shared_args > INLINE_USES &&
        !(uses = *allocated = dxcl_calloc(record->num_args, sizeof(*uses))))
        err = CL_OUT_OF_HOST_MEMORY;
    for (cl_uint i = 0; err == CL_SUCCESS && record && record->shared_args && i < record->num_args;
         i++) {
        if (!(arg = __atomic_load_n(&record->args[i], __ATOMIC_RELAXED)) ||
            !(mem = dxcl_memobj_resolve(arg)) || (*count == INLINE_USES && !*allocated))
            continue; /* released since it was set: no longer shared */
        uses[(*count)++] = (struct dxcl_use_of){
            arg, mem->flags & CL_MEM_READ_ONLY ? DXCL_USE_READ : DXCL_USE_WRITE};
    }
    dxcl_unlock_shared();
    return err;
}

cl_mem dxcl_kernel_shared_arg(cl_kernel kernel)
{
    struct dxcl_kernel *record;
    cl_mem arg, shared = NULL;

    if (!__atomic_load_n(&kernels_with_shared_args, __ATOMIC_ACQUIRE))
        return NULL;
    dxcl_lock_shared();
    record = dxcl_table_get(&kernels, kernel);
    for (cl_uint i = 0; record && record->shared_args && !shared && i < record->num_args; i++)
        if ((arg = __atomic_load_n(&record->args[i], __ATOMIC_RELAXED)) && dxcl_memobj_resolve(arg))
            shared = arg;
    dxcl_unlock_shared();
    return shared;
}

/* The guard's check of every shared argument. */
static cl_int begin_kernel(struct dxcl_guarded *g, cl_command_queue queue, cl_kernel kernel,
                           const char *caller)
{
    struct dxcl_use_of inline_uses[INLINE_USES], *allocated;
    size_t count = 0;
    cl_int err;

    if (!__atomic_load_n(&kernels_with_shared_args, __ATOMIC_ACQUIRE))
        return dxcl_guard_begin(g, queue, NULL, 0, caller);
    if ((err = kernel_uses(kernel, inline_uses, &count, &allocated)) != CL_SUCCESS)
        return DXCL_FAIL(err, "%s: no memory to check the kernel's arguments", caller);
    err = dxcl_guard_begin(g, queue, allocated ? allocated : inline_uses, count, caller);
    free(allocated);
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
