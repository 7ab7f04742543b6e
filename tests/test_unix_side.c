/* dxcl's Unix side (issue 25; docs/proxy.md, "The Unix side"). dxclGetInfo's route tells how
 * dxcl reaches the driver.
 *   - Through the Unix side (the .unix variants): what Wine's opencl.dll lacks reaches the
 *     program from the host driver. clCreateBufferWithProperties (OpenCL 3.0) is the driver's
 *     own, not dxcl's stand-in, and its buffer holds data; clCloneKernel (2.1) is the driver's
 *     and a clone of a kernel with an argument set runs with that argument (test_guard_edges
 *     runs the guard's clone path on a shared argument); an extension with functions that the
 *     device lists is reachable: cl_khr_command_buffer (PoCL) records a buffer copy and replays
 *     it, or, on a driver without it, every function of another listed extension resolves.
 *     Callbacks reach the program although the pair never hands the host a PE function
 *     (test_callbacks_* and test_link_errcode check them in the same variants).
 *     The driver's extension functions keep shared objects behind dxcl's guard
 *     (docs/design.md, "Extension functions of the driver"): a command buffer refuses to
 *     record a Direct3D buffer, acquired or not, or a sub-buffer of one, with
 *     CL_INVALID_OPERATION, and records ordinary buffers of the same context.
 *   - Through Wine's opencl.dll: that DLL's limits, so that the two routes are told apart:
 *     no clCreateBufferWithProperties of the driver and no extension function.
 * A variant run through the Unix side must take it (DXCL_UNIX=1); as a 32-bit program
 * (<test>.x32_unix), through the i386 pair and the i386 host library. */
#include "testlib.h"
#include "interop.h"

#include <dxcl/dxcl.h>
#include <CL/cl_ext.h>
#include <stdlib.h>
#include <string.h>

static const char *source = "__kernel void add(__global uint *b, uint n) {\n"
                            "    b[get_global_id(0)] += n;\n"
                            "}\n";

/* Extensions with functions, for a device without cl_khr_command_buffer. */
static const struct {
    const char *extension;
    const char *functions[4];
} other_extensions[] = {
    {"cl_khr_external_memory",
     {"clEnqueueAcquireExternalMemObjectsKHR", "clEnqueueReleaseExternalMemObjectsKHR"}},
    {"cl_khr_semaphore",
     {"clCreateSemaphoreWithPropertiesKHR", "clEnqueueWaitSemaphoresKHR",
      "clEnqueueSignalSemaphoresKHR", "clReleaseSemaphoreKHR"}},
    {"cl_khr_suggested_local_work_size", {"clGetKernelSuggestedLocalWorkSizeKHR"}},
    {"cl_khr_il_program", {"clCreateProgramWithILKHR"}},
};

static void route_of_dxcl(char *route, size_t size)
{
    dxclGetInfo_fn info =
        (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");

    REQUIRE(info != NULL, "dxcl exports no dxclGetInfo");
    CHECK_ERR(info(DXCL_INFO_DRIVER_ROUTE, size, route, NULL), CL_SUCCESS);
}

static char *device_extensions(cl_device_id device)
{
    size_t size = 0;
    char *text;

    CHECK_ERR(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size), CL_SUCCESS);
    REQUIRE((text = calloc(1, size + 1)) != NULL, "out of memory");
    CHECK_ERR(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, text, NULL), CL_SUCCESS);
    return text;
}

static void check_buffer_with_properties(cl_context context, cl_command_queue queue)
{
    const cl_mem_properties none[] = {0};
    cl_uint in[4] = {7, 8, 9, 10}, out[4] = {0};
    cl_int err;

    CHECK(test_driver()->clCreateBufferWithProperties != NULL,
          "the host driver's clCreateBufferWithProperties does not reach dxcl");
    cl_mem buffer =
        clCreateBufferWithProperties(context, none, CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
    REQUIRE(buffer && err == CL_SUCCESS, "clCreateBufferWithProperties: %d", err);
    CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(in, out, sizeof(in)), "the buffer holds %u %u %u %u", out[0], out[1], out[2],
          out[3]);
    size_t size = 0;
    CHECK_ERR(clGetMemObjectInfo(buffer, CL_MEM_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
    CHECK(size == sizeof(none), "CL_MEM_PROPERTIES: %zu bytes, want the list {0}", size);
    clReleaseMemObject(buffer);
}

static void check_clone(cl_context context, cl_device_id device, cl_command_queue queue)
{
    cl_uint data[4] = {1, 2, 3, 4};
    const cl_uint n = 5;
    const size_t global = 4;
    cl_int err;

    CHECK(test_driver()->clCloneKernel != NULL,
          "the host driver's clCloneKernel does not reach dxcl");
    cl_kernel kernel = test_kernel(context, device, source, "add");
    cl_mem buffer = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof(data), data, &err);
    REQUIRE(buffer != NULL, "clCreateBuffer: %d", err);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(buffer), &buffer), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(n), &n), CL_SUCCESS);
    cl_kernel clone = clCloneKernel(kernel, &err);
    REQUIRE(clone && err == CL_SUCCESS, "clCloneKernel: %d", err);
    clReleaseKernel(kernel); /* the clone keeps its own arguments */
    CHECK_ERR(clEnqueueNDRangeKernel(queue, clone, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(data), data, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(data[0] == 6 && data[3] == 9, "the clone added %u and %u, want 6 and 9", data[0],
          data[3]);
    clReleaseKernel(clone);
    clReleaseMemObject(buffer);
}

#define LOOKUP(platform, type, name)                                                               \
    ((type)clGetExtensionFunctionAddressForPlatform(platform, name))

/* cl_khr_command_buffer through its functions: a recorded copy, replayed. */
static void check_command_buffer(cl_platform_id platform, cl_context context,
                                 cl_command_queue queue)
{
    clCreateCommandBufferKHR_fn create =
        LOOKUP(platform, clCreateCommandBufferKHR_fn, "clCreateCommandBufferKHR");
    clCommandCopyBufferKHR_fn copy =
        LOOKUP(platform, clCommandCopyBufferKHR_fn, "clCommandCopyBufferKHR");
    clFinalizeCommandBufferKHR_fn finalize =
        LOOKUP(platform, clFinalizeCommandBufferKHR_fn, "clFinalizeCommandBufferKHR");
    clEnqueueCommandBufferKHR_fn enqueue =
        LOOKUP(platform, clEnqueueCommandBufferKHR_fn, "clEnqueueCommandBufferKHR");
    clGetCommandBufferInfoKHR_fn info =
        LOOKUP(platform, clGetCommandBufferInfoKHR_fn, "clGetCommandBufferInfoKHR");
    clReleaseCommandBufferKHR_fn release =
        LOOKUP(platform, clReleaseCommandBufferKHR_fn, "clReleaseCommandBufferKHR");
    cl_uint in[4] = {11, 12, 13, 14}, out[4] = {0};
    cl_command_buffer_state_khr state = 0;
    cl_int err;

    REQUIRE(create && copy && finalize && enqueue && info && release,
            "cl_khr_command_buffer is listed but its functions are not all found (%p %p %p %p "
            "%p %p)",
            (void *)create, (void *)copy, (void *)finalize, (void *)enqueue, (void *)info,
            (void *)release);
    cl_mem src = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
    cl_mem dst = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(out), NULL, &err);
    REQUIRE(src && dst, "clCreateBuffer: %d", err);
    cl_command_buffer_khr commands = create(1, &queue, NULL, &err);
    REQUIRE(commands && err == CL_SUCCESS, "clCreateCommandBufferKHR: %d", err);
    CHECK_ERR(copy(commands, NULL, src, dst, 0, 0, sizeof(in), 0, NULL, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(finalize(commands), CL_SUCCESS);
    CHECK_ERR(info(commands, CL_COMMAND_BUFFER_STATE_KHR, sizeof(state), &state, NULL), CL_SUCCESS);
    CHECK(state == CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, "command buffer state %u", state);
    CHECK_ERR(enqueue(0, NULL, commands, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(in, out, sizeof(in)), "the replayed copy gave %u %u %u %u", out[0], out[1],
          out[2], out[3]);
    CHECK_ERR(release(commands), CL_SUCCESS);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
}

/* A kernel in a command buffer: refused while a shared object is one of its arguments,
 * recorded once an ordinary buffer took its place. */
static void check_kernel_recording(struct interop_env *env, cl_command_buffer_khr commands,
                                   cl_mem shared, cl_mem plain)
{
    static const char one_source[] =
        "__kernel void one(__global uint *a) { a[get_global_id(0)] = 1; }\n";
    clCommandNDRangeKernelKHR_fn record =
        LOOKUP(env->platform, clCommandNDRangeKernelKHR_fn, "clCommandNDRangeKernelKHR");
    cl_kernel kernel = test_kernel(env->context, env->device, one_source, "one");
    const size_t items = 64;

    REQUIRE(record != NULL, "clCommandNDRangeKernelKHR is missing");
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &shared), CL_SUCCESS);
    CHECK_ERR(record(commands, NULL, NULL, kernel, 1, NULL, &items, NULL, 0, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &plain), CL_SUCCESS);
    CHECK_ERR(record(commands, NULL, NULL, kernel, 1, NULL, &items, NULL, 0, NULL, NULL, NULL),
              CL_SUCCESS);
    clReleaseKernel(kernel);
}

/* A shared object in a command buffer: refused, acquired or not, whole or as a sub-buffer; an
 * ordinary buffer beside it still records. */
static void check_command_buffer_refuses_shared(struct interop_env *env)
{
    clCreateCommandBufferKHR_fn create =
        LOOKUP(env->platform, clCreateCommandBufferKHR_fn, "clCreateCommandBufferKHR");
    clCommandCopyBufferKHR_fn copy =
        LOOKUP(env->platform, clCommandCopyBufferKHR_fn, "clCommandCopyBufferKHR");
    clCommandFillBufferKHR_fn fill =
        LOOKUP(env->platform, clCommandFillBufferKHR_fn, "clCommandFillBufferKHR");
    clReleaseCommandBufferKHR_fn release =
        LOOKUP(env->platform, clReleaseCommandBufferKHR_fn, "clReleaseCommandBufferKHR");
    const cl_buffer_region half = {0, 128};
    const cl_uint pattern = 0x5a5a5a5a;
    cl_int err;

    REQUIRE(create && copy && fill && release, "cl_khr_command_buffer's functions are missing");
    void *resource = env->api->create_buffer(env->d3d, 256, TEST_USAGE_DEFAULT, NULL);
    REQUIRE(resource != NULL, "no D3D11 buffer");
    cl_mem shared = env->cl->create_buffer(env->context, CL_MEM_READ_WRITE, resource, &err);
    REQUIRE(shared && err == CL_SUCCESS, "clCreateFromD3D11BufferKHR: %d", err);
    cl_mem sub =
        clCreateSubBuffer(shared, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &half, &err);
    REQUIRE(sub && err == CL_SUCCESS, "clCreateSubBuffer of the shared buffer: %d", err);
    cl_mem plain = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 256, NULL, &err);
    REQUIRE(plain && err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_command_buffer_khr commands = create(1, &env->queue, NULL, &err);
    REQUIRE(commands && err == CL_SUCCESS, "clCreateCommandBufferKHR: %d", err);

    CHECK_ERR(copy(commands, NULL, shared, plain, 0, 0, 256, 0, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    CHECK_ERR(copy(commands, NULL, plain, sub, 0, 0, 128, 0, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &shared, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(fill(commands, NULL, shared, &pattern, sizeof(pattern), 0, 256, 0, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    CHECK_ERR(copy(commands, NULL, plain, shared, 0, 0, 256, 0, NULL, NULL, NULL),
              CL_INVALID_OPERATION);
    CHECK_ERR(env->cl->release(env->queue, 1, &shared, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(fill(commands, NULL, plain, &pattern, sizeof(pattern), 0, 256, 0, NULL, NULL, NULL),
              CL_SUCCESS);
    check_kernel_recording(env, commands, shared, plain);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK_ERR(release(commands), CL_SUCCESS);
    clReleaseMemObject(plain);
    clReleaseMemObject(sub);
    clReleaseMemObject(shared);
    env->api->release(resource);
}

/* Without cl_khr_command_buffer: every function of the first other listed extension. */
static void check_other_extension(cl_platform_id platform, const char *extensions)
{
    for (size_t e = 0; e < sizeof(other_extensions) / sizeof(other_extensions[0]); e++) {
        if (!test_has_word(extensions, other_extensions[e].extension))
            continue;
        for (const char *const *name = other_extensions[e].functions; *name; name++)
            CHECK(clGetExtensionFunctionAddressForPlatform(platform, *name) != NULL,
                  "%s is listed but %s is not found", other_extensions[e].extension, *name);
        printf("unix_side: %s's functions found\n", other_extensions[e].extension);
        return;
    }
    CHECK(false, "the device lists no extension with functions this test knows: %s", extensions);
}

/* A variant run through the Unix side (wine-run.sh's DXCL_WINE_UNIX sets DXCL_UNIX=1) must
 * take it, not Wine's opencl.dll; a 32-bit program's pair is the i386 one (<test>.x32_unix:
 * build/lib/wine's i386-windows and i386-unix), which opened the i386 host library. */
static void check_route_wanted(const char *route)
{
    const char *wanted = getenv("DXCL_UNIX");
    bool unix_side = !strncmp(route, "the Unix side", strlen("the Unix side"));

    if (wanted && !strcmp(wanted, "1"))
        CHECK(unix_side, "DXCL_UNIX=1, but dxcl reaches the driver through %s", route);
#ifndef _WIN64
    if (unix_side)
        CHECK(strstr(route, "i386-linux-gnu") != NULL,
              "a 32-bit program's Unix side opened no i386 host library: %s", route);
#endif
}

int main(void)
{
    struct interop_env env;
    char route[MAX_PATH + 64] = "";

    route_of_dxcl(route, sizeof(route));
    printf("unix_side: dxcl reaches the driver through %s\n", route);
    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    char *extensions = device_extensions(env.device);

    check_route_wanted(route);
    if (!strncmp(route, "the Unix side", strlen("the Unix side"))) {
        check_buffer_with_properties(env.context, env.queue);
        check_clone(env.context, env.device, env.queue);
        if (test_has_word(extensions, "cl_khr_command_buffer")) {
            check_command_buffer(env.platform, env.context, env.queue);
            check_command_buffer_refuses_shared(&env);
        } else {
            check_other_extension(env.platform, extensions);
        }
    } else {
        CHECK(!strcmp(route, "Wine's opencl.dll"), "route \"%s\"", route);
        CHECK(test_driver()->clCreateBufferWithProperties == NULL,
              "Wine's opencl.dll has clCreateBufferWithProperties: a newer Wine?");
        CHECK(clGetExtensionFunctionAddressForPlatform(env.platform, "clCreateCommandBufferKHR") ==
                  NULL,
              "Wine's opencl.dll hands out an extension function: a newer Wine?");
    }
    free(extensions);
    interop_close(&env);
    return test_finish("unix_side");
}
