/* The pfn_notify of clBuildProgram, clCompileProgram and clLinkProgram. Wine's opencl.dll
 * passes NULL to the driver instead (the build then completes before the call returns), so the
 * program's callback would never run. dxcl hands the driver a trampoline: whichever of the
 * driver and dxcl sees the finished build first calls the program's callback, once. When the
 * build is finished at return and the driver did not call it, dxcl learns that the driver drops
 * build callbacks and from then on calls the program's callback itself after the driver
 * returns (a synchronous build is allowed to notify before returning). */
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

typedef void(CL_CALLBACK *build_notify_fn)(cl_program, void *);

struct build_notify {
    LONG refs; /* the driver's (the trampoline) and dxcl's */
    LONG fired;
    build_notify_fn notify;
    void *user_data;
};

static LONG driver_drops_notify;

static void unref_notify(struct build_notify *n)
{
    if (InterlockedDecrement(&n->refs) == 0)
        free(n);
}

static void CL_CALLBACK build_trampoline(cl_program program, void *data)
{
    struct build_notify *n = data;

    if (!InterlockedExchange(&n->fired, 1))
        n->notify(program, n->user_data);
    unref_notify(n);
}

/* A build that started: the driver calls its callback (if it keeps it) when it ends. */
static bool build_started(cl_int err)
{
    return err == CL_SUCCESS || err == CL_BUILD_PROGRAM_FAILURE ||
           err == CL_COMPILE_PROGRAM_FAILURE || err == CL_LINK_PROGRAM_FAILURE;
}

/* The program's devices (malloc'ed), or NULL with *count 0. */
static cl_device_id *program_devices(cl_program program, size_t *count)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_device_id *devices;
    size_t size = 0;

    *count = 0;
    if (drv->clGetProgramInfo(program, CL_PROGRAM_DEVICES, 0, NULL, &size) != CL_SUCCESS ||
        size < sizeof(*devices) || !(devices = malloc(size)))
        return NULL;
    if (drv->clGetProgramInfo(program, CL_PROGRAM_DEVICES, size, devices, NULL) != CL_SUCCESS) {
        free(devices);
        return NULL;
    }
    *count = size / sizeof(*devices);
    return devices;
}

static bool build_in_progress(cl_program program)
{
    const struct dxcl_driver *drv = dxcl_driver();
    size_t count;
    cl_device_id *devices = program_devices(program, &count);
    bool in_progress = false;

    for (size_t i = 0; i < count && !in_progress; i++) {
        cl_build_status status = CL_BUILD_NONE;

        drv->clGetProgramBuildInfo(program, devices[i], CL_PROGRAM_BUILD_STATUS, sizeof(status),
                                   &status, NULL);
        in_progress = status == CL_BUILD_IN_PROGRESS;
    }
    free(devices);
    return in_progress;
}

/* The trampoline to hand the driver for `notify`, or NULL (no callback, or the driver is known
 * to drop it). */
static struct build_notify *notify_begin(build_notify_fn notify, void *user_data)
{
    struct build_notify *n;

    if (!notify || InterlockedCompareExchange(&driver_drops_notify, 0, 0))
        return NULL;
    if (!(n = malloc(sizeof(*n))))
        return NULL;
    n->refs = 2;
    n->fired = 0;
    n->notify = notify;
    n->user_data = user_data;
    return n;
}

/* After the driver returned `err` for `program`: calls the program's callback if the build is
 * over and nobody called it yet. */
static void notify_end(struct build_notify *n, build_notify_fn notify, void *user_data,
                       cl_program program, cl_int err)
{
    bool finished = program && build_started(err) && !build_in_progress(program);

    if (n && !build_started(err)) {
        free(n); /* no build began: the driver never calls the trampoline */
        return;
    }
    if (!n) {
        if (notify && finished)
            notify(program, user_data);
        return;
    }
    if (finished && !InterlockedExchange(&n->fired, 1)) {
        DXCL_LOG("the driver dropped a build callback; dxcl delivers them");
        InterlockedExchange(&driver_drops_notify, 1);
        notify(program, user_data);
    }
    unref_notify(n);
}

cl_int CL_API_CALL DXCL_IMPL(clBuildProgram)(cl_program program, cl_uint num_devices,
                                             const cl_device_id *device_list, const char *options,
                                             build_notify_fn notify, void *user_data)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct build_notify *n;
    cl_int err;

    if (!drv->clBuildProgram)
        return dxcl_driver_missing("clBuildProgram");
    if (!notify && user_data)
        return drv->clBuildProgram(program, num_devices, device_list, options, notify, user_data);
    n = notify_begin(notify, user_data);
    err = drv->clBuildProgram(program, num_devices, device_list, options,
                              n ? build_trampoline : NULL, n);
    dxcl_driver_note_signals();
    notify_end(n, notify, user_data, program, err);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clCompileProgram)(cl_program program, cl_uint num_devices,
                                               const cl_device_id *device_list, const char *options,
                                               cl_uint num_input_headers,
                                               const cl_program *input_headers,
                                               const char **header_include_names,
                                               build_notify_fn notify, void *user_data)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct build_notify *n;
    cl_int err;

    if (!drv->clCompileProgram)
        return dxcl_driver_missing("clCompileProgram");
    if (!notify && user_data)
        return drv->clCompileProgram(program, num_devices, device_list, options, num_input_headers,
                                     input_headers, header_include_names, notify, user_data);
    n = notify_begin(notify, user_data);
    err =
        drv->clCompileProgram(program, num_devices, device_list, options, num_input_headers,
                              input_headers, header_include_names, n ? build_trampoline : NULL, n);
    notify_end(n, notify, user_data, program, err);
    return err;
}

/* A linked program, or NULL: errcode_ret may be NULL (the export tail-calls this when the log
 * is off), and then the returned value is all the caller has. A driver may return something
 * other than NULL with an error (Wine 8's clLinkProgram stub returns garbage with
 * CL_INVALID_OPERATION); by the spec a failed link returns NULL, so dxcl does. That value is
 * not passed on nor released: it cannot be told apart from garbage. */
static cl_program link_result(cl_program program, cl_int err, cl_int *errcode_ret)
{
    if (errcode_ret)
        *errcode_ret = err;
    if (err != CL_SUCCESS) {
        if (program)
            DXCL_LOG("clLinkProgram: the driver returned %p with error %d; dxcl returns NULL",
                     (void *)program, err);
        return NULL;
    }
    return program;
}

cl_program CL_API_CALL DXCL_IMPL(clLinkProgram)(cl_context context, cl_uint num_devices,
                                                const cl_device_id *device_list,
                                                const char *options, cl_uint num_input_programs,
                                                const cl_program *input_programs,
                                                build_notify_fn notify, void *user_data,
                                                cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct build_notify *n;
    cl_program program;
    cl_int err = CL_SUCCESS;

    if (!drv->clLinkProgram)
        return link_result(NULL, dxcl_driver_missing("clLinkProgram"), errcode_ret);
    if (!notify && user_data) {
        /* the driver's CL_INVALID_VALUE for user data without a callback */
        program = drv->clLinkProgram(context, num_devices, device_list, options, num_input_programs,
                                     input_programs, notify, user_data, &err);
        return link_result(program, err, errcode_ret);
    }
    n = notify_begin(notify, user_data);
    program = drv->clLinkProgram(context, num_devices, device_list, options, num_input_programs,
                                 input_programs, n ? build_trampoline : NULL, n, &err);
    notify_end(n, notify, user_data, program, program ? err : CL_INVALID_VALUE);
    return link_result(program, err, errcode_ret);
}
