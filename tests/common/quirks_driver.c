/* quirks_cl.dll: the system driver with NVIDIA's answers (quirks_driver.h). Every export is
 * generated from src/core/cl_api.h as a call of the system driver's function; the calls whose
 * answers change are renamed while the list expands and written out below. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include "quirks_driver.h"

#include <windows.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include <CL/cl_gl.h>
#include <CL/cl_ext.h>

#include "real_driver.h"

static HMODULE real;
static real_driver_lookup_fn real_lookup;

static BOOL CALLBACK load_real(INIT_ONCE *once, void *param, void **context)
{
    (void)once, (void)param, (void)context;
    real = real_driver_load(&real_lookup);
    return TRUE;
}

static FARPROC real_function(const char *name)
{
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

    InitOnceExecuteOnce(&once, load_real, NULL, NULL);
    return real_driver_proc(real, real_lookup, name);
}

#define QUIRKS_CAT_(a, b) a##b
#define QUIRKS_CAT(a, b) QUIRKS_CAT_(a, b)

/* OpenCL 1.x functions are exported; the 2.0+ ones (which Wine's 1.2 driver lacks) are not, so
 * that dxcl sees a 1.2 driver, as without this stand-in. */
#define QUIRKS_STORAGE_10 __declspec(dllexport)
#define QUIRKS_STORAGE_11 __declspec(dllexport)
#define QUIRKS_STORAGE_12 __declspec(dllexport)
#define QUIRKS_STORAGE_20 static __attribute__((unused))
#define QUIRKS_STORAGE_21 static __attribute__((unused))
#define QUIRKS_STORAGE_22 static __attribute__((unused))
#define QUIRKS_STORAGE_30 static __attribute__((unused))
#define QUIRKS_NAME_10(name) name
#define QUIRKS_NAME_11(name) name
#define QUIRKS_NAME_12(name) name
#define QUIRKS_NAME_20(name) unexported_##name
#define QUIRKS_NAME_21(name) unexported_##name
#define QUIRKS_NAME_22(name) unexported_##name
#define QUIRKS_NAME_30(name) unexported_##name

/* Per kind of cl_api.h: the result when the system driver lacks the function (as dxcl's own
 * stubs answer; an OBJ function's errcode_ret is left alone, as no 1.x one is missing in Wine's
 * driver but for GL sharing), and the call of the driver's. */
#define QUIRKS_FAIL_INT(ret) return CL_INVALID_OPERATION
#define QUIRKS_FAIL_OBJ(ret) return (ret)0
#define QUIRKS_FAIL_PTR(ret) return (ret)0
#define QUIRKS_FAIL_NONE(ret) return
#define QUIRKS_CALL_INT(call) return call
#define QUIRKS_CALL_OBJ(call) return call
#define QUIRKS_CALL_PTR(call) return call
#define QUIRKS_CALL_NONE(call) call

/* The calls written out below: their generated forwarders get other names. */
__declspec(dllexport) cl_int CL_API_CALL
    forward_clGetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t value_size,
                                    void *value, size_t *size_ret);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                       cl_mem_object_type type, cl_uint num_entries,
                                       cl_image_format *formats, cl_uint *num_formats);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param,
                               size_t value_size, void *value, size_t *size_ret);
#define clGetEventProfilingInfo forward_clGetEventProfilingInfo
#define clGetSupportedImageFormats forward_clGetSupportedImageFormats
#define clGetKernelArgInfo forward_clGetKernelArgInfo
/* A queue deleted at its last release (below). */
__declspec(dllexport) cl_command_queue CL_API_CALL
    forward_clCreateCommandQueue(cl_context context, cl_device_id device,
                                 cl_command_queue_properties properties, cl_int *errcode_ret);
__declspec(dllexport) cl_int CL_API_CALL forward_clRetainCommandQueue(cl_command_queue queue);
__declspec(dllexport) cl_int CL_API_CALL forward_clReleaseCommandQueue(cl_command_queue queue);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events,
                                        const cl_event *wait_list, cl_event *event);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                   const size_t *offset, const size_t *global, const size_t *local,
                                   cl_uint num_events, const cl_event *wait_list, cl_event *event);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                size_t offset, size_t size, void *ptr, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                               const size_t *origin, const size_t *region, size_t row_pitch,
                               size_t slice_pitch, void *ptr, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clGetEventInfo(cl_event event, cl_event_info param, size_t value_size, void *value,
                           size_t *size_ret);
__declspec(dllexport) cl_int CL_API_CALL
    forward_clWaitForEvents(cl_uint num_events, const cl_event *events);
#define clCreateCommandQueue forward_clCreateCommandQueue
#define clRetainCommandQueue forward_clRetainCommandQueue
#define clReleaseCommandQueue forward_clReleaseCommandQueue
#define clEnqueueMarkerWithWaitList forward_clEnqueueMarkerWithWaitList
#define clEnqueueBarrierWithWaitList forward_clEnqueueBarrierWithWaitList
#define clEnqueueNDRangeKernel forward_clEnqueueNDRangeKernel
#define clEnqueueReadBuffer forward_clEnqueueReadBuffer
#define clEnqueueReadImage forward_clEnqueueReadImage
#define clGetEventInfo forward_clGetEventInfo
#define clWaitForEvents forward_clWaitForEvents

#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    QUIRKS_CAT(QUIRKS_STORAGE_, version)                                                           \
    ret CL_API_CALL QUIRKS_CAT(QUIRKS_NAME_, version)(name) params                                 \
    {                                                                                              \
        static ret(CL_API_CALL *fn) params;                                                        \
        if (!fn)                                                                                   \
            fn = (ret(CL_API_CALL *) params)(void (*)(void))real_function(#name);                  \
        if (!fn)                                                                                   \
            QUIRKS_CAT(QUIRKS_FAIL_, kind)(ret);                                                   \
        QUIRKS_CAT(QUIRKS_CALL_, kind)(fn args);                                                   \
    }
#include "core/cl_api.h"
#undef DXCL_API_FN
#undef clGetEventProfilingInfo
#undef clGetSupportedImageFormats
#undef clGetKernelArgInfo
#undef clCreateCommandQueue
#undef clRetainCommandQueue
#undef clReleaseCommandQueue
#undef clEnqueueMarkerWithWaitList
#undef clEnqueueBarrierWithWaitList
#undef clEnqueueNDRangeKernel
#undef clEnqueueReadBuffer
#undef clEnqueueReadImage
#undef clGetEventInfo
#undef clWaitForEvents

/* No argument info for any kernel, as OpenCL 1.2 allows for a program built without
 * -cl-kernel-arg-info: dxcl falls back to matching shared objects' handles. */
__declspec(dllexport) cl_int CL_API_CALL
    clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param, size_t value_size,
                       void *value, size_t *size_ret)
{
    (void)kernel;
    (void)index;
    (void)param;
    (void)value_size;
    (void)value;
    (void)size_ret;
    return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
}

static bool profiling_queue(cl_event event)
{
    cl_command_queue queue = NULL;
    cl_command_queue_properties properties = 0;

    return clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof(queue), &queue, NULL) ==
               CL_SUCCESS &&
           queue &&
           clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(properties), &properties,
                                 NULL) == CL_SUCCESS &&
           (properties & CL_QUEUE_PROFILING_ENABLE);
}

static cl_int zero_time(size_t value_size, void *value, size_t *size_ret)
{
    if (value && value_size < sizeof(cl_ulong))
        return CL_INVALID_VALUE;
    if (value)
        memset(value, 0, sizeof(cl_ulong));
    if (size_ret)
        *size_ret = sizeof(cl_ulong);
    return CL_SUCCESS;
}

__declspec(dllexport) cl_int CL_API_CALL
    clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name, size_t value_size,
                            void *value, size_t *size_ret)
{
    cl_int err = forward_clGetEventProfilingInfo(event, param_name, value_size, value, size_ret);
    cl_command_type type = 0;
    cl_int status = CL_COMPLETE;
    bool known =
        param_name >= CL_PROFILING_COMMAND_QUEUED && param_name <= CL_PROFILING_COMMAND_COMPLETE;

    /* Not complete yet, on a profiling queue: NVIDIA answers 0. */
    if (err == CL_PROFILING_INFO_NOT_AVAILABLE && known &&
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL) ==
            CL_SUCCESS &&
        status != CL_COMPLETE && profiling_queue(event))
        return zero_time(value_size, value, size_ret);
    /* Markers and barriers: NVIDIA answers 0 for every time. */
    if (err == CL_SUCCESS && value &&
        clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL) == CL_SUCCESS &&
        (type == CL_COMMAND_MARKER || type == CL_COMMAND_BARRIER))
        memset(value, 0, sizeof(cl_ulong));
    return err;
}

static bool dropped(cl_mem_flags flags, const cl_image_format *format)
{
    cl_channel_order order = format->image_channel_order;

    if (format->image_channel_data_type == CL_SNORM_INT8 &&
        (order == CL_R || order == CL_RG || order == CL_RGBA))
        return true;
    return order == QUIRKS_READ_ONLY_ORDER &&
           format->image_channel_data_type == QUIRKS_READ_ONLY_TYPE && flags != CL_MEM_READ_ONLY;
}

__declspec(dllexport) cl_int CL_API_CALL
    clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                               cl_uint num_entries, cl_image_format *formats, cl_uint *num_formats)
{
    cl_image_format *all;
    cl_uint count = 0, kept = 0;
    cl_int err;

    if (flags != CL_MEM_READ_WRITE && flags != CL_MEM_READ_ONLY && flags != CL_MEM_WRITE_ONLY &&
        flags != CL_MEM_KERNEL_READ_AND_WRITE)
        return CL_INVALID_VALUE;
    if (formats && !num_entries)
        return CL_INVALID_VALUE;
    if (flags == CL_MEM_KERNEL_READ_AND_WRITE) { /* NVIDIA has no read-write images */
        if (num_formats)
            *num_formats = 0;
        return context ? CL_SUCCESS : CL_INVALID_CONTEXT;
    }
    if ((err = forward_clGetSupportedImageFormats(context, flags, type, 0, NULL, &count)) !=
        CL_SUCCESS)
        return err;
    if (!(all = calloc(count + 1, sizeof(*all))))
        return CL_OUT_OF_HOST_MEMORY;
    if (count)
        err = forward_clGetSupportedImageFormats(context, flags, type, count, all, NULL);
    for (cl_uint i = 0; err == CL_SUCCESS && i < count; i++) {
        if (dropped(flags, &all[i]))
            continue;
        if (formats && kept < num_entries)
            formats[kept] = all[i];
        kept++;
    }
    free(all);
    if (err == CL_SUCCESS && num_formats)
        *num_formats = kept;
    return err;
}

/* ---- A queue deleted at its last release ----
 * NVIDIA's reference counts leave queued commands out (docs/design.md, "Releases never block"),
 * and on the H200 a release pending on a user event lost its data once the program released the
 * queue and the context (issue 39). This stand-in deletes a queue when the count of references
 * taken through clCreateCommandQueue, clRetainCommandQueue and clReleaseCommandQueue reaches
 * zero, and drops what it had not finished: the events of its markers, barriers, kernels and
 * reads then end with QUIRKS_DROPPED (the commands still run in the system driver, whose
 * answers about them are replaced). Whoever still needs a queue's work must hold the queue.
 * The stand-in holds each tracked event until it is seen complete (so that its handle stays
 * the event's); a dropped one it holds to the end. */

struct tracked {
    void *handle;           /* a queue, or an event */
    cl_command_queue queue; /* events: their queue */
    LONG refs;              /* queues: the references counted */
    bool dropped;           /* events: their queue was deleted before they finished */
};

static SRWLOCK tracked_lock = SRWLOCK_INIT;
static struct tracked *tracked;
static size_t tracked_count, tracked_capacity;

/* The entry of `handle`, or a new one (NULL when out of memory). Called with the lock held. */
static struct tracked *entry(void *handle, bool add)
{
    struct tracked *grown;

    for (size_t i = 0; i < tracked_count; i++)
        if (tracked[i].handle == handle)
            return &tracked[i];
    if (!add)
        return NULL;
    if (tracked_count == tracked_capacity) {
        size_t capacity = tracked_capacity ? tracked_capacity * 2 : 64;
        if (!(grown = realloc(tracked, capacity * sizeof(*tracked))))
            return NULL;
        tracked = grown;
        tracked_capacity = capacity;
    }
    tracked[tracked_count] = (struct tracked){.handle = handle};
    return &tracked[tracked_count++];
}

static void forget(void *handle)
{
    struct tracked *found = entry(handle, false);

    if (found)
        *found = tracked[--tracked_count];
}

static bool complete(cl_event event)
{
    cl_int status = CL_COMPLETE;

    forward_clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    return status <= CL_COMPLETE;
}

/* Lets go of the tracked events seen complete (and not dropped). Called with the lock held. */
static void prune(void)
{
    for (size_t i = 0; i < tracked_count;) {
        struct tracked *e = &tracked[i];
        if (!e->queue || e->dropped || !complete(e->handle)) {
            i++;
            continue;
        }
        clReleaseEvent(e->handle);
        *e = tracked[--tracked_count];
    }
}

/* A command's event, on a queue that is counted. */
static cl_int track_event(cl_command_queue queue, cl_int err, const cl_event *event)
{
    struct tracked *e;

    if (err != CL_SUCCESS || !event)
        return err;
    AcquireSRWLockExclusive(&tracked_lock);
    prune();
    if (entry(queue, false) && (e = entry(*event, true))) {
        *e = (struct tracked){.handle = *event, .queue = queue};
        clRetainEvent(*event);
    }
    ReleaseSRWLockExclusive(&tracked_lock);
    return err;
}

static bool is_dropped(cl_event event)
{
    struct tracked *e;
    bool dropped;

    AcquireSRWLockShared(&tracked_lock);
    dropped = (e = entry(event, false)) && e->dropped;
    ReleaseSRWLockShared(&tracked_lock);
    return dropped;
}

/* The queue's last reference went: its unfinished tracked commands are dropped. */
static void delete_queue(cl_command_queue queue)
{
    prune();
    for (size_t i = 0; i < tracked_count; i++)
        if (tracked[i].queue == queue)
            tracked[i].dropped = true;
    forget(queue);
}

__declspec(dllexport) cl_command_queue CL_API_CALL
    clCreateCommandQueue(cl_context context, cl_device_id device,
                         cl_command_queue_properties properties, cl_int *errcode_ret)
{
    cl_command_queue queue = forward_clCreateCommandQueue(context, device, properties, errcode_ret);
    struct tracked *q;

    AcquireSRWLockExclusive(&tracked_lock);
    if (queue && (q = entry(queue, true)))
        *q = (struct tracked){.handle = queue, .refs = 1};
    ReleaseSRWLockExclusive(&tracked_lock);
    return queue;
}

__declspec(dllexport) cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue queue)
{
    cl_int err = forward_clRetainCommandQueue(queue);
    struct tracked *q;

    AcquireSRWLockExclusive(&tracked_lock);
    if (err == CL_SUCCESS && (q = entry(queue, false)))
        q->refs++;
    ReleaseSRWLockExclusive(&tracked_lock);
    return err;
}

__declspec(dllexport) cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue queue)
{
    struct tracked *q;

    AcquireSRWLockExclusive(&tracked_lock);
    if ((q = entry(queue, false)) && --q->refs == 0)
        delete_queue(queue);
    ReleaseSRWLockExclusive(&tracked_lock);
    return forward_clReleaseCommandQueue(queue);
}

__declspec(dllexport) cl_int CL_API_CALL
    clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event)
{
    return track_event(
        queue, forward_clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event), event);
}

__declspec(dllexport) cl_int CL_API_CALL
    clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_events,
                                 const cl_event *wait_list, cl_event *event)
{
    return track_event(
        queue, forward_clEnqueueBarrierWithWaitList(queue, num_events, wait_list, event), event);
}

__declspec(dllexport) cl_int CL_API_CALL
    clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                           const size_t *offset, const size_t *global, const size_t *local,
                           cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    return track_event(queue,
                       forward_clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local,
                                                      num_events, wait_list, event),
                       event);
}

__declspec(dllexport) cl_int CL_API_CALL
    clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                        size_t size, void *ptr, cl_uint num_events, const cl_event *wait_list,
                        cl_event *event)
{
    return track_event(queue,
                       forward_clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr,
                                                   num_events, wait_list, event),
                       event);
}

__declspec(dllexport) cl_int CL_API_CALL
    clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t *origin,
                       const size_t *region, size_t row_pitch, size_t slice_pitch, void *ptr,
                       cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    return track_event(queue,
                       forward_clEnqueueReadImage(queue, image, blocking, origin, region, row_pitch,
                                                  slice_pitch, ptr, num_events, wait_list, event),
                       event);
}

__declspec(dllexport) cl_int CL_API_CALL
    clGetEventInfo(cl_event event, cl_event_info param, size_t value_size, void *value,
                   size_t *size_ret)
{
    cl_int err;

    if (param == CL_EVENT_REFERENCE_COUNT) { /* without the stand-in's own, once complete */
        AcquireSRWLockExclusive(&tracked_lock);
        prune();
        ReleaseSRWLockExclusive(&tracked_lock);
    }
    err = forward_clGetEventInfo(event, param, value_size, value, size_ret);

    if (err == CL_SUCCESS && value && param == CL_EVENT_COMMAND_EXECUTION_STATUS &&
        is_dropped(event))
        *(cl_int *)value = QUIRKS_DROPPED;
    return err;
}

/* QUIRKS_WAIT_SPINS=1 (quirks_driver.h). */
static bool wait_spins(void)
{
    static volatile LONG spins = -1;
    char value[4] = "";

    if (spins < 0) {
        GetEnvironmentVariableA("QUIRKS_WAIT_SPINS", value, sizeof(value));
        InterlockedExchange(&spins, !strcmp(value, "1"));
    }
    return spins == 1;
}

/* Spins until every event completed (or failed), as NVIDIA's wait does: each queue is flushed
 * first, as clWaitForEvents does, then the statuses are read in a loop with no sleep. */
static cl_int spin_on(cl_uint num_events, const cl_event *events)
{
    cl_int status, err = CL_SUCCESS;

    if (!num_events || !events)
        return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < num_events; i++) {
        cl_command_queue queue = NULL;

        if (forward_clGetEventInfo(events[i], CL_EVENT_COMMAND_QUEUE, sizeof(queue), &queue,
                                   NULL) != CL_SUCCESS)
            return CL_INVALID_EVENT;
        if (queue)
            clFlush(queue);
    }
    for (cl_uint i = 0; i < num_events; i++) {
        do {
            if (forward_clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                       &status, NULL) != CL_SUCCESS)
                return CL_INVALID_EVENT;
            YieldProcessor();
        } while (status > CL_COMPLETE);
        if (status < 0)
            err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    return err;
}

__declspec(dllexport) cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *events)
{
    cl_int err =
        wait_spins() ? spin_on(num_events, events) : forward_clWaitForEvents(num_events, events);

    for (cl_uint i = 0; err == CL_SUCCESS && events && i < num_events; i++)
        if (is_dropped(events[i]))
            err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return err;
}
