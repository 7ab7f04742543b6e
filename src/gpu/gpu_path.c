/* The GPU path (see gpu_path.h and docs/design.md, "The GPU path"). */
#include "gpu/gpu_path.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/fault.h"
#include "core/lock.h"
#include "engine/object.h"
#include "engine/timing.h"
#include "engine/zerocopy.h"

#include <CL/cl_ext.h>
#include <stdlib.h>
#include <string.h>

/* DXCL_PATH=engine: the copy engine serves everything (as for the native paths). */
static bool forced_copies(void)
{
    char value[16];

    return dxcl_getenv("PATH", value, sizeof(value)) &&
           (!strcmp(value, "engine") || !strcmp(value, "emulate"));
}

/* The test-only import, asked for by DXCL_GPU_IMPORT=host in test builds only. */
static bool host_import_asked(void)
{
#ifdef DXCL_TEST_HOOKS
    char value[8];

    return dxcl_getenv("GPU_IMPORT", value, sizeof(value)) && !strcmp(value, "host");
#else
    return false;
#endif
}

/* The device's list `param` of handle types (cl_uint each) holds `want`. */
static bool device_lists(cl_device_id device, cl_device_info param, cl_uint want)
{
    cl_uint types[16];
    size_t size = 0;

    if (dxcl_driver()->clGetDeviceInfo(device, param, sizeof(types), types, &size) != CL_SUCCESS)
        return false;
    for (size_t i = 0; i < size / sizeof(types[0]); i++)
        if (types[i] == want)
            return true;
    return false;
}

static bool imports_opaque_fd(cl_device_id device)
{
    return device_lists(device, CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
                        CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR);
}

/* Every device of the context imports opaque fds, and all are one GPU (its UUID into `uuid`);
 * NULL, or why not. */
static const char *no_import(cl_context context, unsigned char uuid[CL_UUID_SIZE_KHR])
{
    const struct dxcl_driver *drv = dxcl_driver();
    unsigned char each[CL_UUID_SIZE_KHR];
    cl_device_id *devices;
    const char *why;
    size_t count;

    if (!drv->clCreateImageWithProperties)
        return "the driver has no clCreateImageWithProperties (OpenCL 3.0: the Unix side)";
    devices = dxcl_driver_context_devices(context, &count);
    why = count ? NULL : "the context's devices are unknown";
    for (size_t i = 0; i < count && !why; i++) {
        if (!imports_opaque_fd(devices[i]))
            why = "a device of the context imports no opaque fd (cl_khr_external_memory_opaque_fd)";
        else if (drv->clGetDeviceInfo(devices[i], CL_DEVICE_UUID_KHR, sizeof(each), each, NULL) !=
                 CL_SUCCESS)
            why = "a device of the context has no UUID (cl_khr_device_uuid)";
        else if (i && memcmp(each, uuid, sizeof(each)))
            why = "the context's devices are several GPUs";
        else
            memcpy(uuid, each, sizeof(each));
    }
    free(devices);
    return why;
}

static const char *no_sync_import(cl_context context);

/* no_import and no_sync_import of the context: asked of the driver once (its devices never
 * change), kept in the engine's part of the context. */
static const char *context_imports(struct dxcl_context *ctx, unsigned char uuid[CL_UUID_SIZE_KHR],
                                   const char **sync_why)
{
    struct dxcl_engine_context *engine = dxcl_engine_context(ctx);
    const char *why;

    if (engine && InterlockedCompareExchange(&engine->import_checked, 0, 0) == 2) {
        memcpy(uuid, engine->import_uuid, CL_UUID_SIZE_KHR);
        *sync_why = engine->sync_why;
        return engine->import_why;
    }
    why = no_import(ctx->handle, uuid);
    *sync_why = why ? NULL : no_sync_import(ctx->handle);
    if (engine && InterlockedCompareExchange(&engine->import_checked, 1, 0) == 0) {
        memcpy(engine->import_uuid, uuid, CL_UUID_SIZE_KHR);
        engine->import_why = why;
        engine->sync_why = *sync_why;
        InterlockedExchange(&engine->import_checked, 2);
    }
    return why;
}

/* DXCL_GPU_SYNC=cpu: the GPU path without semaphores. */
static bool cpu_sync_asked(void)
{
    char value[8];

    return dxcl_getenv("GPU_SYNC", value, sizeof(value)) && !strcmp(value, "cpu");
}

bool dxcl_gpu_path_may_serve(struct dxcl_context *ctx)
{
    unsigned char uuid[CL_UUID_SIZE_KHR];
    const char *sync_why;

    if (forced_copies())
        return false;
    return host_import_asked() ? dxcl_host_unified(ctx->handle)
                               : !context_imports(ctx, uuid, &sync_why);
}

static const char *no_gpu_path(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                               struct dxcl_device_storage *storage)
{
    const char *why, *sync_why;

    if (!mem->desc.backend->device_storage)
        return "the backend has no GPU path";
    if (mem->desc.type != CL_MEM_OBJECT_IMAGE2D && mem->desc.type != CL_MEM_OBJECT_IMAGE3D)
        return "the GPU path shares 2D and 3D textures";
    if (mem->desc.share_surface)
        return "planes share their surface";
    if (mem->backing.emulated)
        return "the format is emulated";
    if (forced_copies())
        return "DXCL_PATH=engine";
    if ((storage->host_import = host_import_asked()))
        return dxcl_host_unified(ctx->handle) ? NULL : "the test-only import needs host memory";
    if ((why = context_imports(ctx, storage->device_uuid, &sync_why)))
        return why;
    if ((why = cpu_sync_asked() ? "DXCL_GPU_SYNC=cpu" : sync_why))
        DXCL_LOG("%s resource %p: the GPU path without semaphores (%s)", mem->desc.backend->name,
                 (void *)mem->desc.resource, why);
    storage->sync_import = !why;
    return NULL;
}

bool dxcl_gpu_path_probe(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                         struct dxcl_device_storage *storage)
{
    struct dxcl_surface probe = dxcl_surface_to_be(ctx, mem);
    const char *why;
    void *protection;
    bool made;

    memset(storage, 0, sizeof(*storage));
    storage->fd = -1;
    storage->flags = mem->flags ? mem->flags : CL_MEM_READ_WRITE;
    if ((why = no_gpu_path(ctx, mem, storage))) {
        if (mem->desc.backend->device_storage)
            DXCL_LOG("%s resource %p: no GPU path (%s)", mem->desc.backend->name,
                     (void *)mem->desc.resource, why);
        return false;
    }
    protection = dxcl_device_enter(probe.backend, ctx);
    made = probe.backend->device_storage(&probe, storage);
    dxcl_device_leave(probe.backend, protection);
    if (made)
        DXCL_LOG("%s resource %p: the GPU path (%s, %s)", probe.backend->name,
                 (void *)mem->desc.resource,
                 storage->direct ? "the texture's own memory, no copies" : "a twin on the GPU",
                 storage->host_import ? "the test-only import"
                 : storage->import    ? "its memory imported for an earlier object, kept"
                                      : "its memory imported");
    return made;
}

cl_mem dxcl_gpu_path_import(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem,
                            const struct dxcl_device_storage *storage, cl_int *err)
{
    const cl_mem_properties properties[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                            (cl_mem_properties)storage->fd, 0};
    cl_image_desc image = {.image_type = mem->desc.type,
                           .image_width = dxcl_fault_hit(DXCL_FAULT_IMPORT) ? 0 : mem->desc.width,
                           .image_height = mem->desc.height,
                           .image_depth =
                               mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1};

    cl_mem image_object = dxcl_driver()->clCreateImageWithProperties(
        ctx->handle, properties, flags, &mem->backing.driver, &image, NULL, err);

    if (!image_object)
        dxcl_driver_close_fd(storage->fd); /* a refused import leaves its fd handle with dxcl */
    return image_object;
}

cl_int dxcl_gpu_path_wait_ready(cl_command_queue own, struct dxcl_memobj *mem, cl_event *waited)
{
    cl_int err;

    if (!mem->surface->ready_signalled)
        return CL_SUCCESS;
    err = dxcl_driver_external(mem->context->handle)
              .wait_semaphore(own, 1, &dxcl_object_of(mem)->ready, NULL, 0, NULL, waited);
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%p: OpenCL's wait for Direct3D's copy could not be queued",
                         (void *)mem->handle);
    mem->surface->ready_signalled = false;
    return CL_SUCCESS;
}

/* The driver's external-memory acquire of the object on `own`, dxcl's own queue of the
 * context, with no wait list: it does not wait for the program's events, which the driver may
 * wait for in the call itself (NVIDIA's acquire with a user event in its wait list does not
 * return until the event is set). Where the twin's `ready` was signalled, OpenCL's wait for it
 * comes first. A marker where the driver has no acquire. */
cl_int dxcl_gpu_path_acquire_now(cl_command_queue own, struct dxcl_memobj *mem, cl_event *done)
{
    struct dxcl_external_functions fn = dxcl_driver_external(mem->context->handle);
    cl_int err;

    if ((err = dxcl_gpu_path_wait_hand_in(mem)) != CL_SUCCESS ||
        (err = dxcl_gpu_path_wait_ready(own, mem, NULL)) != CL_SUCCESS)
        return err;
    if (!fn.acquire)
        return dxcl_driver()->clEnqueueMarkerWithWaitList(own, 0, NULL, done);
    return fn.acquire(own, 1, &mem->handle, 0, NULL, done);
}

cl_int dxcl_gpu_path_release_now(cl_command_queue own, struct dxcl_memobj *mem, cl_uint num_events,
                                 const cl_event *wait_list, cl_event *done)
{
    struct dxcl_external_functions fn = dxcl_driver_external(mem->context->handle);

    if (!fn.release)
        return dxcl_driver()->clEnqueueMarkerWithWaitList(own, num_events, wait_list, done);
    return fn.release(own, 1, &mem->handle, num_events, wait_list, done);
}

void dxcl_gpu_path_released_at(struct dxcl_memobj *mem, cl_event event)
{
    struct dxcl_surface *surface = mem->surface;

    if (!event || dxcl_driver()->clRetainEvent(event) != CL_SUCCESS)
        return;
    if (surface->release_event)
        dxcl_driver()->clReleaseEvent(surface->release_event);
    surface->release_event = event;
}

cl_int dxcl_gpu_path_release_for_direct3d(cl_command_queue queue, struct dxcl_memobj *mem,
                                          cl_event after, cl_event *event)
{
    struct dxcl_external_functions fn = dxcl_driver_external(mem->context->handle);
    cl_event released = NULL;
    cl_int err = fn.release
                     ? fn.release(queue, 1, &mem->handle, 1, &after, &released)
                     : dxcl_driver()->clEnqueueMarkerWithWaitList(queue, 1, &after, &released);

    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "%p: OpenCL's release for Direct3D could not be queued",
                         (void *)mem->handle);
    dxcl_gpu_path_released_at(mem, released);
    *event = released;
    return CL_SUCCESS;
}

cl_int dxcl_gpu_path_wait_hand_in(struct dxcl_memobj *mem)
{
    struct dxcl_surface *surface = mem->surface;
    struct dxcl_layer_wait wait = {surface->hand_in_device, surface->hand_in_value, 10000, -1};
    char why[256];

    if (!surface->hand_in_value)
        return CL_SUCCESS;
    surface->hand_in_value = 0;
    if (dxcl_driver_layer_call(DXCL_LAYER_WAIT, &wait, why, sizeof(why)) == 0 && !wait.result)
        return CL_SUCCESS;
    return DXCL_FAIL(CL_OUT_OF_RESOURCES,
                     "%p: Direct3D's hand-in to OpenCL was not done within %u ms (%d)",
                     (void *)mem->handle, wait.timeout_ms, (int)wait.result);
}

/* The device imports binary semaphores as opaque fds. */
static bool imports_semaphores(cl_device_id device)
{
    return device_lists(device, CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR,
                        CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR);
}

static const char *no_sync_import(cl_context context)
{
    struct dxcl_external_functions fn = dxcl_driver_external(context);
    cl_device_id *devices;
    const char *why = NULL;
    size_t count;

    if (!fn.create_semaphore || !fn.wait_semaphore || !fn.signal_semaphore || !fn.release_semaphore)
        return "the driver has no cl_khr_semaphore functions";
    devices = dxcl_driver_context_devices(context, &count);
    for (size_t i = 0; i < count && !why; i++)
        if (!imports_semaphores(devices[i]))
            why = "a device of the context imports no opaque fd semaphores";
    free(devices);
    return why;
}

cl_int dxcl_gpu_path_mark(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                          const cl_event *wait_list, cl_event *event)
{
    const struct dxcl_driver *drv = dxcl_driver();
    bool stamp = dxcl_timing_wanted(queue, event);
    cl_event done = NULL;
    cl_int err =
        drv->clEnqueueMarkerWithWaitList(queue, num_events, wait_list, stamp ? &done : event);

    /* Markers may be timed as 0 (NVIDIA's are): a stamp follows where times are wanted. */
    if (err != CL_SUCCESS || !stamp)
        return err;
    err = dxcl_enqueue_stamp(mem->context->handle, queue, 1, &done, event);
    drv->clReleaseEvent(done);
    return err;
}
