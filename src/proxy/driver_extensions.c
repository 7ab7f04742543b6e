/* The driver's extension functions that take memory objects, as handed to the program
 * (docs/design.md, "Extension functions of the driver"). The driver's address is wrapped where
 * a function could use a shared object behind the enqueue guard's back:
 *   - cl_khr_command_buffer's commands on memory objects record them for replays that dxcl
 *     cannot check (the object need not be acquired when it replays): a shared object, or a
 *     sub-buffer of one, is refused with CL_INVALID_OPERATION and a log line, and so is a
 *     kernel recorded with one set as an argument.
 *     clUpdateMutableCommandsKHR (mutable dispatch) is not handed out: it can set a shared
 *     object as a recorded kernel's argument inside a structure whose layout changed between
 *     the extension's provisional versions.
 *   - cl_khr_external_memory's acquire and release take objects made from external memory
 *     handles: a shared object is none (CL_INVALID_MEM_OBJECT), whatever dxcl made it from.
 *   - cl_ext_migrate_memobject's migration is a command like clEnqueueMigrateMemObjects: it
 *     passes the guard.
 *   - cl_khr_create_command_queue's queue gets dxcl's record, as clCreateCommandQueue* do: an
 *     acquire or release takes only a queue dxcl saw made (core/context.h, dxcl_queue_hold).
 * Every other extension function goes to the program as the driver gives it: none takes a
 * memory object of a command (creation, queries, semaphores, SVM and USM pointers). */
#include "proxy/driver_extensions.h"
#include "core/common.h"
#include "core/context.h"
#include "core/log.h"
#include "core/memobj.h"
#include "engine/guard.h"

#include <CL/cl_ext.h>
#include <string.h>

/* A recording command's arguments: cl_khr_command_buffer's signatures gained a properties
 * argument in version 0.9.5, so the wrappers take every argument as an integer slot and pass
 * all of them on; the slots that may hold a memory object are those of either version. On
 * x86-64 a wrapper takes 16 slots (extra slots are harmless to a Win64 callee, as they are for
 * the caller's frame to read). On i686 the functions are stdcall: the callee pops what its
 * prototype says, so a wrapper takes exactly the slots of the build's Khronos headers' version
 * (`n`), 4 bytes each (every argument of these is a handle, a pointer, a size_t or a cl_uint),
 * as the i686 thunks of dxcl's Unix side do (src/unix/dxclunix_ext.h). */
#ifdef _WIN64
#define SLOT_COUNT(n) 16
#else
#define SLOT_COUNT(n) n
#endif
#define SLOT_PARAMS(n) SLOT_CAT(SLOT_PARAMS_, SLOT_COUNT(n))
#define SLOT_ARGS(n) SLOT_CAT(SLOT_ARGS_, SLOT_COUNT(n))
#define SLOT_CAT(a, b) SLOT_CAT_(a, b)
#define SLOT_CAT_(a, b) a##b
#define SLOT_PARAMS_10                                                                             \
    UINT_PTR s0, UINT_PTR s1, UINT_PTR s2, UINT_PTR s3, UINT_PTR s4, UINT_PTR s5, UINT_PTR s6,     \
        UINT_PTR s7, UINT_PTR s8, UINT_PTR s9
#define SLOT_PARAMS_11 SLOT_PARAMS_10, UINT_PTR s10
#define SLOT_PARAMS_12 SLOT_PARAMS_11, UINT_PTR s11
#define SLOT_PARAMS_13 SLOT_PARAMS_12, UINT_PTR s12
#define SLOT_PARAMS_14 SLOT_PARAMS_13, UINT_PTR s13
#define SLOT_PARAMS_15 SLOT_PARAMS_14, UINT_PTR s14
#define SLOT_PARAMS_16 SLOT_PARAMS_15, UINT_PTR s15
#define SLOT_ARGS_10 s0, s1, s2, s3, s4, s5, s6, s7, s8, s9
#define SLOT_ARGS_11 SLOT_ARGS_10, s10
#define SLOT_ARGS_12 SLOT_ARGS_11, s11
#define SLOT_ARGS_13 SLOT_ARGS_12, s12
#define SLOT_ARGS_14 SLOT_ARGS_13, s13
#define SLOT_ARGS_15 SLOT_ARGS_14, s14
#define SLOT_ARGS_16 SLOT_ARGS_15, s15

/* The first memory object of `mems` (count of them) that is shared with Direct3D, or NULL. */
static cl_mem first_shared(const cl_mem *mems, size_t count)
{
    for (size_t i = 0; mems && i < count; i++)
        if (mems[i] && dxcl_memobj_is_shared(mems[i]))
            return mems[i];
    return NULL;
}

/* A recording with a shared object: CL_INVALID_OPERATION (the text names no error for it; the
 * object is valid, so it is the command buffer that cannot hold it). */
static cl_int refuse_recording(const char *name, const UINT_PTR *slots, const unsigned char *which,
                               size_t count)
{
    cl_mem mems[4], shared;

    for (size_t i = 0; i < count; i++)
        mems[i] = (cl_mem)(UINT_PTR)slots[which[i]];
    if (!(shared = first_shared(mems, count)))
        return CL_SUCCESS;
    return DXCL_FAIL(CL_INVALID_OPERATION,
                     "%s: memory object %p is shared with Direct3D: a command buffer cannot "
                     "record it (its replays would use it without an acquire dxcl can check)",
                     name, (void *)shared);
}

#define RECORDING(name, n, ...)                                                                    \
    static void *volatile driver_##name;                                                           \
    typedef cl_int(CL_API_CALL *name##_slots_fn)(SLOT_PARAMS(n));                                  \
    static cl_int CL_API_CALL guarded_##name(SLOT_PARAMS(n))                                       \
    {                                                                                              \
        static const unsigned char which[] = {__VA_ARGS__};                                        \
        const UINT_PTR slots[] = {SLOT_ARGS(n)};                                                   \
        cl_int err = refuse_recording(#name, slots, which, sizeof(which));                         \
        if (err != CL_SUCCESS)                                                                     \
            return err;                                                                            \
        return ((name##_slots_fn)driver_##name)(SLOT_ARGS(n));                                     \
    }
/* (command_buffer, command_queue, [properties,] then the objects); n: the headers' count. */
RECORDING(clCommandCopyBufferKHR, 11, 2, 3, 4)
RECORDING(clCommandCopyBufferRectKHR, 15, 2, 3, 4)
RECORDING(clCommandCopyBufferToImageKHR, 11, 2, 3, 4)
RECORDING(clCommandCopyImageKHR, 11, 2, 3, 4)
RECORDING(clCommandCopyImageToBufferKHR, 11, 2, 3, 4)
RECORDING(clCommandFillBufferKHR, 11, 2, 3)
RECORDING(clCommandFillImageKHR, 10, 2, 3)

/* A kernel recorded with a shared object among its arguments: refused like the copies (its
 * replays would run without dxcl seeing the kernel's arguments again). The kernel follows the
 * properties in every version of the extension. */
static void *volatile driver_clCommandNDRangeKernelKHR;
typedef cl_int(CL_API_CALL *ndrange_slots_fn)(SLOT_PARAMS(12));
static cl_int CL_API_CALL guarded_clCommandNDRangeKernelKHR(SLOT_PARAMS(12))
{
    cl_mem shared = dxcl_kernel_shared_arg((cl_kernel)(UINT_PTR)s3);

    if (shared)
        return DXCL_FAIL(CL_INVALID_OPERATION,
                         "clCommandNDRangeKernelKHR: kernel %p has memory object %p, shared with "
                         "Direct3D, as an argument: a command buffer cannot record it (its "
                         "replays would use it without an acquire dxcl can check)",
                         (void *)(UINT_PTR)s3, (void *)shared);
    return ((ndrange_slots_fn)driver_clCommandNDRangeKernelKHR)(SLOT_ARGS(12));
}

typedef cl_int(CL_API_CALL *list_fn)(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                     const cl_event *, cl_event *);

#define EXTERNAL(name)                                                                             \
    static void *volatile driver_##name;                                                           \
    static cl_int CL_API_CALL guarded_##name(cl_command_queue queue, cl_uint count,                \
                                             const cl_mem *mems, cl_uint num_events,               \
                                             const cl_event *wait_list, cl_event *event)           \
    {                                                                                              \
        cl_mem shared = first_shared(mems, count);                                                 \
        if (shared)                                                                                \
            return DXCL_FAIL(CL_INVALID_MEM_OBJECT,                                                \
                             #name ": memory object %p is shared with Direct3D, not made from "    \
                                   "an external memory handle",                                    \
                             (void *)shared);                                                      \
        return ((list_fn)driver_##name)(queue, count, mems, num_events, wait_list, event);         \
    }
EXTERNAL(clEnqueueAcquireExternalMemObjectsKHR)
EXTERNAL(clEnqueueReleaseExternalMemObjectsKHR)

static void *volatile driver_clEnqueueMigrateMemObjectEXT;
static cl_int CL_API_CALL guarded_clEnqueueMigrateMemObjectEXT(
    cl_command_queue queue, cl_uint count, const cl_mem *mems, cl_mem_migration_flags_ext flags,
    cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clEnqueueMigrateMemObjectEXT_fn driver =
        (clEnqueueMigrateMemObjectEXT_fn)driver_clEnqueueMigrateMemObjectEXT;
    struct dxcl_guarded g;
    cl_int err = dxcl_guard_begin_list(&g, queue, mems, count, DXCL_USE_READ,
                                       "clEnqueueMigrateMemObjectEXT");

    if (err != CL_SUCCESS)
        return err;
    return dxcl_guard_end(&g, driver(queue, count, mems, flags, num_events, wait_list, event));
}

static void *volatile driver_clCreateCommandQueueWithPropertiesKHR;
static cl_command_queue CL_API_CALL guarded_clCreateCommandQueueWithPropertiesKHR(
    cl_context context, cl_device_id device, const cl_queue_properties_khr *properties,
    cl_int *errcode_ret)
{
    clCreateCommandQueueWithPropertiesKHR_fn driver =
        (clCreateCommandQueueWithPropertiesKHR_fn)driver_clCreateCommandQueueWithPropertiesKHR;
    cl_command_queue queue = driver(context, device, properties, errcode_ret);

    dxcl_queue_created(queue, context);
    return queue;
}

#define WRAPPED(name)                                                                              \
    {                                                                                              \
#name, (void *)guarded_##name, &driver_##name                                              \
    }
static const struct {
    const char *name;
    void *wrapper;
    void *volatile *driver;
} wrapped[] = {
    WRAPPED(clCommandCopyBufferKHR),
    WRAPPED(clCommandCopyBufferRectKHR),
    WRAPPED(clCommandCopyBufferToImageKHR),
    WRAPPED(clCommandCopyImageKHR),
    WRAPPED(clCommandCopyImageToBufferKHR),
    WRAPPED(clCommandFillBufferKHR),
    WRAPPED(clCommandFillImageKHR),
    WRAPPED(clCommandNDRangeKernelKHR),
    WRAPPED(clEnqueueAcquireExternalMemObjectsKHR),
    WRAPPED(clEnqueueReleaseExternalMemObjectsKHR),
    WRAPPED(clEnqueueMigrateMemObjectEXT),
    WRAPPED(clCreateCommandQueueWithPropertiesKHR),
};

void *dxcl_driver_extension(const char *name, void *address)
{
    void *bound;

    if (!name || !address)
        return address;
    if (!strcmp(name, "clUpdateMutableCommandsKHR")) {
        DXCL_LOG("%s: not handed out (it could give a recorded kernel a shared object as an "
                 "argument, which dxcl cannot see)",
                 name);
        return NULL;
    }
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(wrapped); i++) {
        if (strcmp(name, wrapped[i].name))
            continue;
        bound = InterlockedCompareExchangePointer(wrapped[i].driver, address, NULL);
        if (bound && bound != address) {
            DXCL_LOG("%s: a second platform's function is handed out as it is, unguarded (dxcl "
                     "wraps one platform's)",
                     name);
            return address;
        }
        return wrapped[i].wrapper;
    }
    return address;
}
