/* Emulated formats converted on the device (engine/device_convert.h). An upload is three
 * driver commands, each waiting for the one before it: the spec-layout bytes from host memory
 * into a tight device buffer (clEnqueueWriteBufferRect, the spec's size), the conversion
 * kernel from there into a tight backing-layout buffer (the channels the spec lacks filled
 * with 0 or 1, as a native image reads them), and clEnqueueCopyBufferToImage into the image.
 * A download is the same backwards (copy out of the image, kernel, read into host memory).
 * The kernels move bits, never values, so every format converts bit-exactly.
 *
 * The program is built once per context, for its devices, on the first conversion (from the
 * binary of an earlier build where the context has one device); each
 * object keeps its two buffers and two kernels (arguments set once, so no two threads ever
 * share a kernel's arguments) until its teardown. */
#include "engine/device_convert.h"
#include "core/chain.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/fault.h"
#include "engine/object.h"
#include "formats/convert_kernels.h"

#include <stdio.h>
#include <stdlib.h>

/* The context's program: dxcl_engine_context.convert_state. */
enum { PROGRAM_NONE, PROGRAM_BUILDING, PROGRAM_READY, PROGRAM_FAILED };

struct dxcl_device_convert {
    cl_mem spec, backing; /* the whole image, tight, in each layout */
    cl_kernel to, from;
    size_t width, rows; /* the kernels' global size: pixels per row, rows of all slices */
    bool failed;        /* the device path is not available for this object */
};

/* Off unless DXCL_CONVERT=device: under DXVK on PoCL a process that made a context per cycle
 * grew 6-14 KB a cycle with these transfers and 0.4 KB without (docs/perf.md). */
static bool device_allowed(void)
{
    static volatile LONG on_device;

    return dxcl_setting_is(&on_device, "CONVERT", "device");
}

static double now_ms(void)
{
    LARGE_INTEGER t, f;

    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return 1000.0 * (double)t.QuadPart / (double)f.QuadPart;
}

/* The first lines of the build log of the context's first device, for the log line. */
static void log_build_failure(cl_context context, cl_program program, cl_int err)
{
    char text[512] = "";
    size_t count = 0;
    cl_device_id *devices;

    if (!dxcl_log_on)
        return;
    devices = program ? dxcl_driver_context_devices(context, &count) : NULL;
    if (count)
        dxcl_driver()->clGetProgramBuildInfo(program, devices[0], CL_PROGRAM_BUILD_LOG,
                                             sizeof(text) - 1, text, NULL);
    free(devices);
    DXCL_LOG("context %p: the conversion kernels of emulated formats did not build (%s): "
             "emulated formats convert on the host. %.300s",
             (void *)context, dxcl_error_name(err), text);
}

/* The program's binary for one device, kept from its first build from source: later contexts
 * on that device build from it. PoCL keeps memory for every build from source (a program
 * that makes a context per frame grew by kilobytes a context), and a binary builds faster.
 * Entries are published once and never change. */
#define MAX_CACHED_DEVICES 8
struct cached_binary {
    cl_device_id device;
    size_t size;
    unsigned char bytes[];
};
static struct cached_binary *volatile cached[MAX_CACHED_DEVICES];

static const struct cached_binary *cached_for(cl_device_id device)
{
    for (int i = 0; i < MAX_CACHED_DEVICES; i++) {
        const struct cached_binary *entry = cached[i];
        if (entry && entry->device == device)
            return entry;
    }
    return NULL;
}

/* Keeps the binary of a program built from source for `device` (its only device). */
static void keep_binary(cl_program program, cl_device_id device)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct cached_binary *entry;
    unsigned char *bytes;
    size_t size = 0;

    if (cached_for(device) || !drv->clGetProgramInfo ||
        drv->clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL) !=
            CL_SUCCESS ||
        !size || !(entry = malloc(sizeof(*entry) + size)))
        return;
    entry->device = device;
    entry->size = size;
    bytes = entry->bytes;
    if (drv->clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(bytes), &bytes, NULL) ==
        CL_SUCCESS)
        for (int i = 0; i < MAX_CACHED_DEVICES; i++)
            if (!InterlockedCompareExchangePointer((void *volatile *)&cached[i], entry, NULL))
                return;
    free(entry); /* no binary, or the cache is full */
}

/* Builds from the kept binary of the context's only device; NULL where there is none or it
 * does not build (the caller builds from source). */
static cl_program build_from_binary(cl_context context, cl_device_id device)
{
    const struct dxcl_driver *drv = dxcl_driver();
    const struct cached_binary *entry = cached_for(device);
    const unsigned char *bytes;
    cl_program program;
    cl_int err, status;

    if (!entry || !drv->clCreateProgramWithBinary)
        return NULL;
    bytes = entry->bytes;
    program =
        drv->clCreateProgramWithBinary(context, 1, &device, &entry->size, &bytes, &status, &err);
    if (program && err == CL_SUCCESS &&
        drv->clBuildProgram(program, 1, &device, "", NULL, NULL) == CL_SUCCESS)
        return program;
    if (program)
        drv->clReleaseProgram(program);
    return NULL;
}

static cl_program build_from_source(cl_context context, cl_int *err)
{
    const struct dxcl_driver *drv = dxcl_driver();
    const char *source = dxcl_convert_program;
    size_t length = strlen(dxcl_convert_program);
    cl_program program = NULL;

    if (!drv->clCreateProgramWithSource || !drv->clBuildProgram)
        *err = CL_INVALID_OPERATION;
    else
        program = drv->clCreateProgramWithSource(context, 1, &source, &length, err);
    if (program && *err == CL_SUCCESS)
        *err = drv->clBuildProgram(program, 0, NULL, "", NULL, NULL);
    return program;
}

/* A root device: its handle lives as long as the process (a sub-device's may be reused). */
static bool root_device(cl_device_id device)
{
    cl_device_id parent = NULL;

    return dxcl_driver()->clGetDeviceInfo(device, CL_DEVICE_PARENT_DEVICE, sizeof(parent), &parent,
                                          NULL) == CL_SUCCESS &&
           !parent;
}

static cl_program build(cl_context context)
{
    double start = now_ms();
    size_t count = 0;
    cl_device_id *devices = dxcl_driver_context_devices(context, &count);
    cl_device_id only = count == 1 && root_device(devices[0]) ? devices[0] : NULL;
    cl_program program = NULL;
    cl_int err = CL_SUCCESS;

    free(devices);
    if (dxcl_fault_hit(DXCL_FAULT_CONVERT))
        err = CL_BUILD_PROGRAM_FAILURE;
    else if (!only || !(program = build_from_binary(context, only)))
        program = build_from_source(context, &err);
    if (err == CL_SUCCESS) {
        if (only)
            keep_binary(program, only);
        DXCL_LOG("context %p: the conversion kernels of emulated formats built in %.1f ms",
                 (void *)context, now_ms() - start);
        return program;
    }
    log_build_failure(context, program, err);
    if (program)
        dxcl_driver()->clReleaseProgram(program);
    return NULL;
}

/* The context's program, built by the first caller; NULL while another thread builds it (that
 * transfer converts on the host) or when it failed. */
static cl_program context_program(struct dxcl_context *ctx)
{
    struct dxcl_engine_context *engine = dxcl_engine_context(ctx);
    cl_program program;
    LONG state;

    if (!engine)
        return NULL;
    state = InterlockedCompareExchange(&engine->convert_state, PROGRAM_BUILDING, PROGRAM_NONE);
    if (state == PROGRAM_READY)
        return engine->convert_program;
    if (state != PROGRAM_NONE)
        return NULL;
    program = build(ctx->handle);
    engine->convert_program = program;
    InterlockedExchange(&engine->convert_state, program ? PROGRAM_READY : PROGRAM_FAILED);
    return program;
}

/* A kernel of the program on (from, to), with its constant arguments. */
static cl_kernel make_kernel(cl_program program, const char *name, cl_mem from, cl_mem to,
                             const struct dxcl_convert_arg *args, unsigned count, cl_int *err)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_kernel kernel = drv->clCreateKernel(program, name, err);

    if (*err == CL_SUCCESS)
        *err = drv->clSetKernelArg(kernel, 0, sizeof(cl_mem), &from);
    if (*err == CL_SUCCESS)
        *err = drv->clSetKernelArg(kernel, 1, sizeof(cl_mem), &to);
    for (unsigned i = 0; i < count && *err == CL_SUCCESS; i++)
        *err = drv->clSetKernelArg(kernel, 2 + i, args[i].size, args[i].bytes);
    return kernel;
}

static size_t depth_of(const struct dxcl_memobj *mem)
{
    return mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1;
}

static void free_state(struct dxcl_device_convert *dc)
{
    const struct dxcl_driver *drv = dxcl_driver();

    if (dc->to)
        drv->clReleaseKernel(dc->to);
    if (dc->from)
        drv->clReleaseKernel(dc->from);
    if (dc->spec)
        drv->clReleaseMemObject(dc->spec);
    if (dc->backing)
        drv->clReleaseMemObject(dc->backing);
    memset(dc, 0, sizeof(*dc));
}

static cl_int make_state(struct dxcl_memobj *mem, cl_program program,
                         struct dxcl_device_convert *dc)
{
    const struct dxcl_driver *drv = dxcl_driver();
    const struct dxcl_layout *layout = &mem->backing.layout;
    size_t pixels = mem->desc.width * mem->desc.height * depth_of(mem);
    cl_context context = mem->context->handle;
    struct dxcl_convert_kernels kernels;
    cl_int err;

    dxcl_convert_kernels_for(layout, &kernels);
    dc->width = mem->desc.width;
    dc->rows = mem->desc.height * depth_of(mem);
    dc->spec =
        drv->clCreateBuffer(context, CL_MEM_READ_WRITE,
                            pixels * layout->spec_channels * layout->channel_size, NULL, &err);
    if (err == CL_SUCCESS)
        dc->backing = drv->clCreateBuffer(context, CL_MEM_READ_WRITE,
                                          pixels * 4 * layout->channel_size, NULL, &err);
    if (err == CL_SUCCESS)
        dc->to = make_kernel(program, kernels.to, dc->spec, dc->backing, kernels.to_args,
                             kernels.to_count, &err);
    if (err == CL_SUCCESS)
        dc->from = make_kernel(program, kernels.from, dc->backing, dc->spec, kernels.from_args,
                               kernels.from_count, &err);
    return err;
}

/* The object's state, made on first use; NULL when the host converts (the device path is off,
 * not built, or failed for this object) or, with *oom set, when its record cannot be
 * allocated: the transfer then fails as the host path's would without its buffer. */
static struct dxcl_device_convert *state_of(struct dxcl_memobj *mem, bool *oom)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    struct dxcl_device_convert *dc = obj->device_convert;
    cl_program program;
    cl_int err;

    *oom = false;
    if (dc)
        return dc->failed ? NULL : dc;
    if (!device_allowed() || !mem->context || !mem->backing.emulated ||
        mem->desc.type == CL_MEM_OBJECT_BUFFER || !dxcl_convert_supported(&mem->backing.layout) ||
        !(program = context_program(mem->context)))
        return NULL;
    if (!(dc = dxcl_calloc(1, sizeof(*dc)))) {
        *oom = true;
        return NULL;
    }
    obj->device_convert = dc;
    if ((err = make_state(mem, program, dc)) != CL_SUCCESS) {
        DXCL_LOG("memobj %p: no buffers or kernels to convert on the device (%s): the host "
                 "converts",
                 (void *)mem->handle, dxcl_error_name(err));
        free_state(dc);
        dc->failed = true;
        return NULL;
    }
    DXCL_LOG("memobj %p: %s %s converts on the device", (void *)mem->handle,
             dxcl_channel_order_name(mem->backing.spec.image_channel_order),
             dxcl_channel_type_name(mem->backing.spec.image_channel_data_type));
    return dc;
}

static void kernel_step(struct dxcl_chain *c, struct dxcl_device_convert *dc, cl_kernel kernel,
                        bool needed)
{
    const size_t global[2] = {dc->width, dc->rows};
    bool wanted = dxcl_chain_wants(c, needed);
    cl_event done = NULL;

    if (dxcl_chain_next(c))
        dxcl_chain_step(c,
                        dxcl_driver()->clEnqueueNDRangeKernel(c->queue, kernel, 2, NULL, global,
                                                              NULL, DXCL_CHAIN_WAIT(c),
                                                              wanted ? &done : NULL),
                        wanted, done);
}

/* A chain that failed part-way: a command already queued may use the host memory (the
 * surface's mapping), which the caller may give back, or the object's buffers, which its next
 * transfer uses, so every chain waits for what it queued (uses_host) before the host takes
 * over. */
static bool chain_end(struct dxcl_chain *c, struct dxcl_memobj *mem, const char *what,
                      cl_event *event, cl_int *err)
{
    if (c->err == CL_SUCCESS) {
        if (event)
            *event = c->last;
        else
            dxcl_driver()->clReleaseEvent(c->last);
        *err = CL_SUCCESS;
        return true;
    }
    DXCL_LOG("memobj %p: the %s on the device could not be queued (%s): the host converts",
             (void *)mem->handle, what, dxcl_error_name(c->err));
    dxcl_chain_abandon(c);
    return false;
}

/* The spec layout's byte region of the whole image, and the tight buffer's pitches. */
static void spec_region(const struct dxcl_memobj *mem, size_t region[3], size_t *row, size_t *slice)
{
    region[0] = mem->desc.width * dxcl_element_size(&mem->backing.spec);
    region[1] = mem->desc.height;
    region[2] = depth_of(mem);
    *row = region[0];
    *slice = region[0] * region[1];
}

bool dxcl_device_upload(cl_command_queue queue, struct dxcl_memobj *mem,
                        const struct dxcl_pixel_box *src, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event, cl_int *err)
{
    const struct dxcl_driver *drv = dxcl_driver();
    bool oom;
    struct dxcl_device_convert *dc = state_of(mem, &oom);
    const size_t zero[3] = {0, 0, 0};
    size_t bytes[3], row, slice, image[3] = {mem->desc.width, mem->desc.height, depth_of(mem)};
    struct dxcl_chain c;
    cl_event done = NULL;

    *err = CL_OUT_OF_HOST_MEMORY;
    if (!dc)
        return oom;
    c = dxcl_chain_start(queue, num_events, wait_list, DXCL_FAULT_CONVERT);
    c.uses_host = true; /* see chain_end */
    spec_region(mem, bytes, &row, &slice);
    if (dxcl_chain_next(&c))
        dxcl_chain_step(&c,
                        drv->clEnqueueWriteBufferRect(queue, dc->spec, CL_FALSE, zero, zero, bytes,
                                                      row, slice, src->row_pitch,
                                                      bytes[2] > 1 ? src->slice_pitch : 0,
                                                      src->data, DXCL_CHAIN_WAIT(&c), &done),
                        true, done);
    kernel_step(&c, dc, dc->to, false);
    done = NULL;
    if (dxcl_chain_next(&c))
        dxcl_chain_step(&c,
                        drv->clEnqueueCopyBufferToImage(queue, dc->backing, mem->handle, 0, zero,
                                                        image, DXCL_CHAIN_WAIT(&c), &done),
                        true, done);
    return chain_end(&c, mem, "upload", event, err);
}

bool dxcl_device_download(cl_command_queue queue, struct dxcl_memobj *mem,
                          const struct dxcl_pixel_box *dst, cl_event after, cl_event *event,
                          cl_int *err)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    const struct dxcl_driver *drv = dxcl_driver();
    bool oom;
    struct dxcl_device_convert *dc = state_of(mem, &oom);
    const size_t zero[3] = {0, 0, 0};
    size_t bytes[3], row, slice, image[3] = {mem->desc.width, mem->desc.height, depth_of(mem)};
    bool wanted;
    struct dxcl_chain c;
    cl_event done = NULL;

    obj->downloaded_on_device = false;
    *err = CL_OUT_OF_HOST_MEMORY;
    if (!dc)
        return oom;
    c = dxcl_chain_start(queue, 1, &after, DXCL_FAULT_CONVERT);
    c.uses_host = true; /* see chain_end */
    spec_region(mem, bytes, &row, &slice);
    wanted = dxcl_chain_wants(&c, false);
    if (dxcl_chain_next(&c))
        dxcl_chain_step(&c,
                        drv->clEnqueueCopyImageToBuffer(queue, mem->handle, dc->backing, zero,
                                                        image, 0, DXCL_CHAIN_WAIT(&c),
                                                        wanted ? &done : NULL),
                        wanted, done);
    kernel_step(&c, dc, dc->from, false);
    done = NULL;
    if (dxcl_chain_next(&c))
        dxcl_chain_step(&c,
                        drv->clEnqueueReadBufferRect(queue, dc->spec, CL_FALSE, zero, zero, bytes,
                                                     row, slice, dst->row_pitch,
                                                     bytes[2] > 1 ? dst->slice_pitch : 0, dst->data,
                                                     DXCL_CHAIN_WAIT(&c), &done),
                        true, done);
    obj->downloaded_on_device = chain_end(&c, mem, "download", event, err);
    return obj->downloaded_on_device;
}

void dxcl_device_convert_free(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    if (!obj->device_convert)
        return;
    free_state(obj->device_convert);
    free(obj->device_convert);
    obj->device_convert = NULL;
}
