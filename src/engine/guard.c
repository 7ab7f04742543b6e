/* The enqueue guard (engine/guard.h). Kernel arguments are tracked through clSetKernelArg. */
#include "engine/guard.h"
#include "engine/lazy.h"
#include "formats/host_commands.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

cl_int dxcl_memobj_use(cl_command_queue queue, cl_mem handle, enum dxcl_use use, const char *caller)
{
    cl_int err = CL_SUCCESS;
    struct dxcl_memobj *mem;
    bool whole;

    dxcl_lock_shared();
    mem = dxcl_memobj_resolve(handle);
    whole = mem && mem->handle == handle; /* not a sub-buffer */
    if (mem && !mem->acquired)
        err = mem->desc.backend->errors.not_acquired;
    else if (mem && use != DXCL_USE_READ)
        InterlockedExchange(&mem->written, 1);
    dxcl_unlock_shared();
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%s: %s object %p is not acquired", caller, mem->desc.backend->name,
                         (void *)handle);
    if (!mem || !queue)
        return CL_SUCCESS;
    if (mem->lazy_pending)
        return dxcl_lazy_touch(queue, mem, whole && use == DXCL_USE_OVERWRITE, caller);
    if (mem->lazy_queue && mem->lazy_queue != queue)
        return dxcl_lazy_order(queue, mem, caller);
    return CL_SUCCESS;
}

enum dxcl_use dxcl_buffer_write_use(cl_mem handle, size_t offset, size_t size)
{
    struct dxcl_memobj *mem = dxcl_memobj_get(handle);

    return mem && offset == 0 && size == mem->desc.size ? DXCL_USE_OVERWRITE : DXCL_USE_WRITE;
}

enum dxcl_use dxcl_map_use(cl_map_flags flags, enum dxcl_use whole)
{
    if (flags & CL_MAP_WRITE_INVALIDATE_REGION)
        return whole;
    return flags & CL_MAP_WRITE ? DXCL_USE_WRITE : DXCL_USE_READ;
}

enum dxcl_use dxcl_image_write_use(cl_mem handle, const size_t *origin, const size_t *region)
{
    struct dxcl_memobj *mem = dxcl_memobj_get(handle);
    size_t depth;

    if (!mem || !origin || !region || origin[0] || origin[1] || origin[2])
        return DXCL_USE_WRITE;
    depth = mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1;
    return region[0] == mem->desc.width && region[1] == mem->desc.height && region[2] == depth
               ? DXCL_USE_OVERWRITE
               : DXCL_USE_WRITE;
}

struct use {
    cl_mem mem;
    enum dxcl_use use;
};

static cl_int check_uses(cl_command_queue queue, const char *caller, const struct use *uses,
                         size_t count)
{
    for (size_t i = 0; i < count; i++) {
        cl_int err = dxcl_memobj_use(queue, uses[i].mem, uses[i].use, caller);
        if (err != CL_SUCCESS)
            return err;
    }
    return CL_SUCCESS;
}

static cl_int check_mems(cl_command_queue queue, const char *caller, const cl_mem *mems,
                         size_t count, enum dxcl_use use)
{
    for (size_t i = 0; i < count; i++) {
        cl_int err = dxcl_memobj_use(queue, mems[i], use, caller);
        if (err != CL_SUCCESS)
            return err;
    }
    return CL_SUCCESS;
}

/* Each GRD entry of cl_api.h: where the command goes once the guard passed it (the driver, or
 * formats/ for the host commands that images of emulated formats turn into chains), then its
 * cl_mem parameters and how the command uses them (whole overwrites let a deferred upload be
 * skipped: engine/lazy.h). */
// clang-format off
#define DXCL_GUARD_clEnqueueReadBuffer DRIVER, {buffer, DXCL_USE_READ}
#define DXCL_GUARD_clEnqueueReadBufferRect DRIVER, {buffer, DXCL_USE_READ}
#define DXCL_GUARD_clEnqueueWriteBuffer DRIVER, {buffer, dxcl_buffer_write_use(buffer, offset, size)}
#define DXCL_GUARD_clEnqueueWriteBufferRect DRIVER, {buffer, DXCL_USE_WRITE}
#define DXCL_GUARD_clEnqueueFillBuffer DRIVER, {buffer, dxcl_buffer_write_use(buffer, offset, size)}
#define DXCL_GUARD_clEnqueueCopyBuffer                                                             \
    DRIVER, {src_buffer, DXCL_USE_READ}, {dst_buffer, dxcl_buffer_write_use(dst_buffer, dst_offset, size)}
#define DXCL_GUARD_clEnqueueCopyBufferRect DRIVER, {src_buffer, DXCL_USE_READ}, {dst_buffer, DXCL_USE_WRITE}
#define DXCL_GUARD_clEnqueueCopyImage                                                              \
    DRIVER, {src_image, DXCL_USE_READ}, {dst_image, dxcl_image_write_use(dst_image, dst_origin, region)}
#define DXCL_GUARD_clEnqueueReadImage FORMATS, {image, DXCL_USE_READ}
#define DXCL_GUARD_clEnqueueWriteImage FORMATS, {image, dxcl_image_write_use(image, origin, region)}
#define DXCL_GUARD_clEnqueueFillImage FORMATS, {image, dxcl_image_write_use(image, origin, region)}
#define DXCL_GUARD_clEnqueueCopyImageToBuffer FORMATS, {src_image, DXCL_USE_READ}, {dst_buffer, DXCL_USE_WRITE}
#define DXCL_GUARD_clEnqueueCopyBufferToImage                                                      \
    FORMATS, {src_buffer, DXCL_USE_READ}, {dst_image, dxcl_image_write_use(dst_image, dst_origin, region)}
// clang-format on

#define DXCL_TARGET_DRIVER(name, args) DXCL_DRIVER_CALL_INT(name, args)
#define DXCL_TARGET_FORMATS(name, args) DXCL_EMULATED_IMAGE(name) args

#define DXCL_GUARDED(ret, name, params, args, ...)                                                 \
    DXCL_GUARDED_(ret, name, params, args, __VA_ARGS__)
#define DXCL_GUARDED_(ret, name, params, args, target, ...)                                        \
    ret CL_API_CALL DXCL_IMPL(name) params                                                         \
    {                                                                                              \
        const struct use uses[] = {__VA_ARGS__};                                                   \
        cl_int err = check_uses(command_queue, #name, uses, DXCL_ARRAY_SIZE(uses));                \
        if (err != CL_SUCCESS)                                                                     \
            return err;                                                                            \
        return DXCL_TARGET_##target(name, args);                                                   \
    }

#define DXCL_STUB_FWD(kind, ret, name, params, args)
#define DXCL_STUB_OWN(kind, ret, name, params, args)
#define DXCL_STUB_QRY(kind, ret, name, params, args)
#define DXCL_STUB_GRD(kind, ret, name, params, args)                                               \
    DXCL_GUARDED(ret, name, params, args, DXCL_GUARD_##name)
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCL_STUB_##route(kind, ret, name, params, args)
#include "core/cl_api.h"
#undef DXCL_API_FN

static void *fail_map(const char *caller, cl_int err, cl_int *errcode_ret)
{
    if (errcode_ret)
        *errcode_ret = err;
    (void)caller;
    return NULL;
}

void *CL_API_CALL DXCL_IMPL(clEnqueueMapBuffer)(cl_command_queue command_queue, cl_mem buffer,
                                                cl_bool blocking_map, cl_map_flags map_flags,
                                                size_t offset, size_t size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event,
                                                cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_int err = dxcl_memobj_use(
        command_queue, buffer, dxcl_map_use(map_flags, dxcl_buffer_write_use(buffer, offset, size)),
        "clEnqueueMapBuffer");

    if (err != CL_SUCCESS)
        return fail_map("clEnqueueMapBuffer", err, errcode_ret);
    if (!drv->clEnqueueMapBuffer)
        return fail_map("clEnqueueMapBuffer", dxcl_driver_missing("clEnqueueMapBuffer"),
                        errcode_ret);
    return drv->clEnqueueMapBuffer(command_queue, buffer, blocking_map, map_flags, offset, size,
                                   num_events_in_wait_list, event_wait_list, event, errcode_ret);
}

void *CL_API_CALL DXCL_IMPL(clEnqueueMapImage)(cl_command_queue command_queue, cl_mem image,
                                               cl_bool blocking_map, cl_map_flags map_flags,
                                               const size_t *origin, const size_t *region,
                                               size_t *image_row_pitch, size_t *image_slice_pitch,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event,
                                               cl_int *errcode_ret)
{
    cl_int err = dxcl_memobj_use(
        command_queue, image, dxcl_map_use(map_flags, dxcl_image_write_use(image, origin, region)),
        "clEnqueueMapImage");

    if (err != CL_SUCCESS)
        return fail_map("clEnqueueMapImage", err, errcode_ret);
    return dxcl_emulated_map_image(command_queue, image, blocking_map, map_flags, origin, region,
                                   image_row_pitch, image_slice_pitch, num_events_in_wait_list,
                                   event_wait_list, event, errcode_ret);
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueUnmapMemObject)(cl_command_queue command_queue, cl_mem memobj,
                                                      void *mapped_ptr,
                                                      cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list,
                                                      cl_event *event)
{
    cl_int err = dxcl_memobj_check_acquired(memobj, "clEnqueueUnmapMemObject");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_emulated_unmap(command_queue, memobj, mapped_ptr, num_events_in_wait_list,
                               event_wait_list, event);
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueMigrateMemObjects)(
    cl_command_queue command_queue, cl_uint num_mem_objects, const cl_mem *mem_objects,
    cl_mem_migration_flags flags, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event)
{
    cl_int err = mem_objects ? check_mems(command_queue, "clEnqueueMigrateMemObjects", mem_objects,
                                          num_mem_objects, DXCL_USE_READ)
                             : CL_SUCCESS;

    if (err != CL_SUCCESS)
        return err;
    return DXCL_DRIVER_CALL_INT(clEnqueueMigrateMemObjects,
                                (command_queue, num_mem_objects, mem_objects, flags,
                                 num_events_in_wait_list, event_wait_list, event));
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueNativeKernel)(
    cl_command_queue command_queue, void(CL_CALLBACK *user_func)(void *), void *args,
    size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list, const void **args_mem_loc,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    cl_int err = mem_list ? check_mems(command_queue, "clEnqueueNativeKernel", mem_list,
                                       num_mem_objects, DXCL_USE_WRITE)
                          : CL_SUCCESS;

    if (err != CL_SUCCESS)
        return err;
    return DXCL_DRIVER_CALL_INT(clEnqueueNativeKernel,
                                (command_queue, user_func, args, cb_args, num_mem_objects, mem_list,
                                 args_mem_loc, num_events_in_wait_list, event_wait_list, event));
}

/* Kernels with a shared object among their arguments. */
struct dxcl_kernel {
    struct dxcl_mirrored mirror;
    cl_uint num_args;
    cl_mem *args; /* the shared objects set as arguments, NULL elsewhere */
};

static struct dxcl_table kernels;

static struct dxcl_kernel *new_kernel_record(cl_kernel kernel)
{
    struct dxcl_kernel *record = calloc(1, sizeof(*record));
    cl_uint refs = 1;

    if (!record)
        return NULL;
    /* The program may have retained the kernel before its first shared argument. */
    DXCL_DRIVER_CALL_INT(clGetKernelInfo,
                         (kernel, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
    DXCL_DRIVER_CALL_INT(clGetKernelInfo, (kernel, CL_KERNEL_NUM_ARGS, sizeof(record->num_args),
                                           &record->num_args, NULL));
    record->mirror.app_refs = refs;
    if (!record->num_args || !(record->args = calloc(record->num_args, sizeof(cl_mem)))) {
        free(record);
        return NULL;
    }
    return record;
}

cl_int CL_API_CALL DXCL_IMPL(clSetKernelArg)(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                             const void *arg_value)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clSetKernelArg, (kernel, arg_index, arg_size, arg_value));
    cl_mem mem = NULL;
    struct dxcl_kernel *record, *fresh = NULL;

    if (err != CL_SUCCESS)
        return err;
    if (arg_size == sizeof(cl_mem) && arg_value) {
        memcpy(&mem, arg_value, sizeof(mem));
        if (!dxcl_memobj_is_shared(mem))
            mem = NULL;
    }
    dxcl_lock_shared();
    record = dxcl_table_get(&kernels, kernel);
    dxcl_unlock_shared();
    if (!record && !mem)
        return err;
    if (!record && !(fresh = new_kernel_record(kernel)))
        return err;
    dxcl_lock_exclusive();
    if (!(record = dxcl_table_get(&kernels, kernel)) && dxcl_table_put(&kernels, kernel, fresh)) {
        record = fresh;
        fresh = NULL;
    }
    if (record && arg_index < record->num_args)
        record->args[arg_index] = mem;
    dxcl_unlock_exclusive();
    if (fresh) {
        free(fresh->args);
        free(fresh);
    }
    return err;
}

static cl_int check_kernel(cl_command_queue queue, cl_kernel kernel, const char *caller)
{
    struct dxcl_kernel *record;
    cl_mem args[64];
    size_t count = 0;
    cl_int err = CL_SUCCESS;

    dxcl_lock_shared();
    if ((record = dxcl_table_get(&kernels, kernel)))
        for (cl_uint i = 0; i < record->num_args; i++)
            if (record->args[i] && count < DXCL_ARRAY_SIZE(args))
                args[count++] = record->args[i];
    dxcl_unlock_shared();
    for (size_t i = 0; i < count && err == CL_SUCCESS; i++) {
        struct dxcl_memobj *mem = dxcl_memobj_get(args[i]);
        bool writes = !mem || !(mem->flags & CL_MEM_READ_ONLY);
        err = dxcl_memobj_use(queue, args[i], writes ? DXCL_USE_WRITE : DXCL_USE_READ, caller);
    }
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueNDRangeKernel)(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size, const size_t *local_work_size,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    cl_int err = check_kernel(command_queue, kernel, "clEnqueueNDRangeKernel");

    if (err != CL_SUCCESS)
        return err;
    return DXCL_DRIVER_CALL_INT(clEnqueueNDRangeKernel,
                                (command_queue, kernel, work_dim, global_work_offset,
                                 global_work_size, local_work_size, num_events_in_wait_list,
                                 event_wait_list, event));
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueTask)(cl_command_queue command_queue, cl_kernel kernel,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event)
{
    cl_int err = check_kernel(command_queue, kernel, "clEnqueueTask");

    if (err != CL_SUCCESS)
        return err;
    return DXCL_DRIVER_CALL_INT(
        clEnqueueTask, (command_queue, kernel, num_events_in_wait_list, event_wait_list, event));
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
    cl_int err = DXCL_DRIVER_CALL_INT(clReleaseKernel, (kernel));
    struct dxcl_kernel *record = err == CL_SUCCESS ? dxcl_mirror_release(&kernels, kernel) : NULL;

    if (record) {
        free(record->args);
        free(record);
    }
    return err;
}
