/* The enqueue guard (engine/guard.h): the use decision, and the entry points of the commands
 * that use memory objects (kernels: engine/kernels.c). */
#include "engine/guard.h"
#include "core/api.h"
#include "core/driver.h"
#include "core/fault.h"
#include "engine/lazy.h"
#include "engine/lifetime.h"
#include "engine/object.h"
#include "formats/host_commands.h"

#include <stdlib.h>

/* Finds and holds the shared object `use` names, if it is one; the not-acquired error when it
 * is not acquired. Everything read of the record is read under dxcl_lock or while held. */
static cl_int hold_object(struct dxcl_guarded *g, const struct dxcl_use_of *use)
{
    const struct dxcl_backend *backend = NULL;
    struct dxcl_memobj *mem;
    bool acquired = true, whole = false;

    dxcl_lock_shared();
    if ((mem = dxcl_memobj_resolve(use->mem))) {
        acquired = mem->state == DXCL_ACQUIRED;
        whole = mem->handle == use->mem; /* not a sub-buffer */
        backend = mem->desc.backend;
        if (acquired)
            dxcl_memobj_hold(mem);
    }
    dxcl_unlock_shared();
    if (!acquired)
        return DXCL_FAIL(backend->errors.not_acquired, "%s: %s object %p is not acquired",
                         g->caller, backend->name, (void *)use->mem);
    if (mem) {
        g->objects[g->count++] =
            (struct dxcl_guarded_object){.mem = mem,
                                         .use = use->use,
                                         .overwrite = whole && use->use == DXCL_USE_OVERWRITE &&
                                                      dxcl_object_of(mem)->lazy_pending};
    }
    return CL_SUCCESS;
}

cl_int dxcl_guard_begin(struct dxcl_guarded *g, cl_command_queue queue,
                        const struct dxcl_use_of *uses, size_t count, const char *caller)
{
    cl_int err = CL_SUCCESS;

    /* Field by field: the inline objects need no zeroing (an enqueue's cost). */
    g->queue = queue;
    g->caller = caller;
    g->count = 0;
    g->objects = g->inline_objects;
    if (!count)
        return CL_SUCCESS;
    if (count > DXCL_ARRAY_SIZE(g->inline_objects) &&
        !(g->objects = dxcl_calloc(count, sizeof(*g->objects))))
        return DXCL_FAIL(CL_OUT_OF_HOST_MEMORY, "%s: no memory to check %zu objects", caller,
                         count);
    for (size_t i = 0; i < count && err == CL_SUCCESS; i++)
        err = hold_object(g, &uses[i]);
    for (size_t i = 0; i < g->count && err == CL_SUCCESS && queue; i++) {
        struct dxcl_guarded_object *object = &g->objects[i];
        if (object->overwrite)
            err = dxcl_lazy_overwrite(queue, object->mem, caller, &object->prepared);
        else
            err = dxcl_lazy_touch(queue, object->mem, caller);
    }
    if (err != CL_SUCCESS)
        dxcl_guard_end(g, err);
    return err;
}

cl_int dxcl_guard_end(struct dxcl_guarded *g, cl_int result)
{
    for (size_t i = 0; i < g->count; i++) {
        struct dxcl_guarded_object *object = &g->objects[i];
        if (result == CL_SUCCESS && object->use != DXCL_USE_READ)
            InterlockedExchange(&dxcl_object_of(object->mem)->written, 1);
        if (result != CL_SUCCESS && object->prepared)
            dxcl_lazy_rejected(object->mem);
        dxcl_memobj_put(object->mem);
    }
    if (g->objects != g->inline_objects)
        free(g->objects);
    g->count = 0;
    return result;
}

enum dxcl_use dxcl_buffer_write_use(cl_mem handle, size_t offset, size_t size)
{
    struct dxcl_memobj *mem;
    bool whole;

    dxcl_lock_shared();
    mem = dxcl_memobj_lookup(handle);
    whole = mem && mem->surface && offset == 0 && size == mem->desc.size;
    dxcl_unlock_shared();
    return whole ? DXCL_USE_OVERWRITE : DXCL_USE_WRITE;
}

enum dxcl_use dxcl_map_use(cl_map_flags flags, enum dxcl_use whole)
{
    if (flags & CL_MAP_WRITE_INVALIDATE_REGION)
        return whole;
    return flags & CL_MAP_WRITE ? DXCL_USE_WRITE : DXCL_USE_READ;
}

/* The spec's image of `mem` is exactly `region` from `origin`. */
static bool whole_image(const struct dxcl_memobj *mem, const size_t *origin, const size_t *region)
{
    size_t depth = mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1;

    return !origin[0] && !origin[1] && !origin[2] && region[0] == mem->desc.width &&
           region[1] == mem->desc.height && region[2] == depth;
}

enum dxcl_use dxcl_image_write_use(cl_mem handle, const size_t *origin, const size_t *region)
{
    struct dxcl_memobj *mem;
    bool whole;

    if (!origin || !region)
        return DXCL_USE_WRITE;
    dxcl_lock_shared();
    mem = dxcl_memobj_lookup(handle);
    whole = mem && mem->surface && whole_image(mem, origin, region);
    dxcl_unlock_shared();
    return whole ? DXCL_USE_OVERWRITE : DXCL_USE_WRITE;
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
    FORMATS, {src_image, DXCL_USE_READ}, {dst_image, dxcl_image_write_use(dst_image, dst_origin, region)}
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
        const struct dxcl_use_of uses[] = {__VA_ARGS__};                                           \
        struct dxcl_guarded g;                                                                     \
        cl_int err = dxcl_guard_begin(&g, command_queue, uses, DXCL_ARRAY_SIZE(uses), #name);      \
        if (err != CL_SUCCESS)                                                                     \
            return err;                                                                            \
        return dxcl_guard_end(&g, DXCL_TARGET_##target(name, args));                               \
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

/* A map: the driver's error code through errcode_ret, which the program may leave NULL. */
static void *end_map(struct dxcl_guarded *g, void *mapped, cl_int err, cl_int *errcode_ret)
{
    dxcl_guard_end(g, mapped ? CL_SUCCESS : err);
    if (errcode_ret)
        *errcode_ret = mapped ? CL_SUCCESS : err;
    return mapped;
}

void *CL_API_CALL DXCL_IMPL(clEnqueueMapBuffer)(cl_command_queue command_queue, cl_mem buffer,
                                                cl_bool blocking_map, cl_map_flags map_flags,
                                                size_t offset, size_t size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event,
                                                cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    const struct dxcl_use_of use = {
        buffer, dxcl_map_use(map_flags, dxcl_buffer_write_use(buffer, offset, size))};
    struct dxcl_guarded g;
    cl_int err = dxcl_guard_begin(&g, command_queue, &use, 1, "clEnqueueMapBuffer");
    void *mapped;

    if (err == CL_SUCCESS && !drv->clEnqueueMapBuffer)
        err = dxcl_guard_end(&g, dxcl_driver_missing("clEnqueueMapBuffer"));
    if (err != CL_SUCCESS) {
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    mapped = drv->clEnqueueMapBuffer(command_queue, buffer, blocking_map, map_flags, offset, size,
                                     num_events_in_wait_list, event_wait_list, event, &err);
    return end_map(&g, mapped, err, errcode_ret);
}

void *CL_API_CALL DXCL_IMPL(clEnqueueMapImage)(cl_command_queue command_queue, cl_mem image,
                                               cl_bool blocking_map, cl_map_flags map_flags,
                                               const size_t *origin, const size_t *region,
                                               size_t *image_row_pitch, size_t *image_slice_pitch,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event,
                                               cl_int *errcode_ret)
{
    const struct dxcl_use_of use = {
        image, dxcl_map_use(map_flags, dxcl_image_write_use(image, origin, region))};
    struct dxcl_guarded g;
    cl_int err = dxcl_guard_begin(&g, command_queue, &use, 1, "clEnqueueMapImage");
    void *mapped;

    if (err != CL_SUCCESS) {
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    mapped = dxcl_emulated_map_image(command_queue, image, blocking_map, map_flags, origin, region,
                                     image_row_pitch, image_slice_pitch, num_events_in_wait_list,
                                     event_wait_list, event, &err);
    return end_map(&g, mapped, err, errcode_ret);
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueUnmapMemObject)(cl_command_queue command_queue, cl_mem memobj,
                                                      void *mapped_ptr,
                                                      cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list,
                                                      cl_event *event)
{
    const struct dxcl_use_of use = {memobj, DXCL_USE_READ};
    struct dxcl_guarded g;
    /* An unmap moves no data of the object's own: it needs no first touch. */
    cl_int err = dxcl_guard_begin(&g, NULL, &use, 1, "clEnqueueUnmapMemObject");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_guard_end(&g, dxcl_emulated_unmap(command_queue, memobj, mapped_ptr,
                                                  num_events_in_wait_list, event_wait_list, event));
}

cl_int dxcl_guard_begin_list(struct dxcl_guarded *g, cl_command_queue queue, const cl_mem *mems,
                             cl_uint count, enum dxcl_use use, const char *caller)
{
    struct dxcl_use_of inline_uses[8] = {{NULL, DXCL_USE_READ}}, *uses = inline_uses;
    cl_int err;

    if (!mems)
        count = 0; /* the driver answers for the list */
    if (count > DXCL_ARRAY_SIZE(inline_uses) && !(uses = dxcl_calloc(count, sizeof(*uses))))
        return DXCL_FAIL(CL_OUT_OF_HOST_MEMORY, "%s: no memory to check %u objects", caller, count);
    for (cl_uint i = 0; i < count; i++)
        uses[i] = (struct dxcl_use_of){mems[i], use};
    err = dxcl_guard_begin(g, queue, uses, count, caller);
    if (uses != inline_uses)
        free(uses);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueMigrateMemObjects)(
    cl_command_queue command_queue, cl_uint num_mem_objects, const cl_mem *mem_objects,
    cl_mem_migration_flags flags, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event)
{
    struct dxcl_guarded g;
    cl_int err = dxcl_guard_begin_list(&g, command_queue, mem_objects, num_mem_objects,
                                       DXCL_USE_READ, "clEnqueueMigrateMemObjects");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_guard_end(&g,
                          DXCL_DRIVER_CALL_INT(clEnqueueMigrateMemObjects,
                                               (command_queue, num_mem_objects, mem_objects, flags,
                                                num_events_in_wait_list, event_wait_list, event)));
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueNativeKernel)(
    cl_command_queue command_queue, void(CL_CALLBACK *user_func)(void *), void *args,
    size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list, const void **args_mem_loc,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    struct dxcl_guarded g;
    cl_int err = dxcl_guard_begin_list(&g, command_queue, mem_list, num_mem_objects, DXCL_USE_WRITE,
                                       "clEnqueueNativeKernel");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_guard_end(
        &g,
        DXCL_DRIVER_CALL_INT(clEnqueueNativeKernel,
                             (command_queue, user_func, args, cb_args, num_mem_objects, mem_list,
                              args_mem_loc, num_events_in_wait_list, event_wait_list, event)));
}
