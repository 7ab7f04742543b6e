/* clEnqueueAcquireDX9MediaSurfacesKHR / clEnqueueReleaseDX9MediaSurfacesKHR on D3D9 and
 * D3D9Ex contexts: every error of both, and the rule of the extension that a command using a
 * surface that is not acquired returns CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR (read, write,
 * copy both ways, fill, map, migrate, kernel arguments), while acquired surfaces and plain
 * objects work. */
#include "dx9util.h"

#include <CL/cl_d3d11.h>

typedef cl_int(CL_API_CALL *transfer_fn)(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                         const cl_event *, cl_event *);

/* A failing call creates no event. */
static void expect_transfer(transfer_fn fn, cl_command_queue queue, cl_uint count,
                            const cl_mem *mems, cl_uint num_events, const cl_event *wait_list,
                            cl_int want, const char *what)
{
    cl_event event = NULL;
    cl_int err = fn(queue, count, mems, num_events, wait_list, &event);

    CHECK(err == want, "%s: got %d, want %d", what, err, want);
    CHECK(event == NULL, "%s: an event was returned by a failing call", what);
    if (event)
        clReleaseEvent(event);
}

static cl_mem d3d11_object(cl_platform_id platform, cl_device_id device, ID3D11Device *d3d11,
                           cl_context *context, ID3D11Texture2D **texture)
{
    clCreateFromD3D11Texture2DKHR_fn create =
        clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11Texture2DKHR");
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d11, 0};
    D3D11_TEXTURE2D_DESC desc = {16,
                                 8,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE,
                                 0,
                                 0};
    HRESULT hr = ID3D11Device_CreateTexture2D(d3d11, &desc, NULL, texture);
    cl_int err;
    cl_mem mem;

    REQUIRE(create != NULL, "clCreateFromD3D11Texture2DKHR not found");
    REQUIRE(SUCCEEDED(hr), "D3D11 texture: 0x%08lx", (unsigned long)hr);
    *context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "D3D11 context: %d", err);
    mem = create(*context, 0, *texture, 0, &err);
    REQUIRE(err == CL_SUCCESS && mem, "D3D11 memobj: %d", err);
    return mem;
}

static void transfer_errors(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    IDirect3DDevice9 *other_d3d = dx9_device(env->kind);
    IDirect3DSurface9 *other_surface = dx9_surface(other_d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    cl_context_properties other_props[] = {dx9_khr_property(env->kind),
                                           (cl_context_properties)other_d3d, 0};
    ID3D11Device *d3d11 = test_d3d11_device(NULL);
    ID3D11Texture2D *texture;
    cl_context plain, other, d3d11_context;
    cl_command_queue plain_queue, other_queue, d3d11_queue;
    cl_mem mems[2], buffer, foreign, d3d11_mem, list[3];
    cl_event user, events[1];
    cl_int err;
    transfer_fn fns[2] = {dx9.acquire, dx9.release};

    for (cl_uint p = 0; p < 2; p++) {
        mems[p] = dx9_create(env, false, surface, p, 0, &err);
        REQUIRE(err == CL_SUCCESS, "create plane %u: %d", p, err);
    }
    buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    plain = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    plain_queue = clCreateCommandQueue(plain, env->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "plain queue: %d", err);
    other = clCreateContext(other_props, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "second DX9 context: %d", err);
    other_queue = clCreateCommandQueue(other, env->device, 0, &err);
    {
        cl_dx9_surface_info_khr info = {other_surface, NULL};
        foreign = dx9.create(other, 0, dx9_adapter_type(env->kind), &info, 0, &err);
        REQUIRE(err == CL_SUCCESS, "memobj of the second context: %d", err);
    }
    d3d11_mem = d3d11_object(env->platform, env->device, d3d11, &d3d11_context, &texture);
    d3d11_queue = clCreateCommandQueue(d3d11_context, env->device, 0, &err);
    user = clCreateUserEvent(env->context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    clSetUserEventStatus(user, CL_COMPLETE);

    for (int f = 0; f < 2; f++) {
        transfer_fn fn = fns[f];
        const char *name = f ? "release" : "acquire";
        char what[160];

        /* Releases are tried on acquired objects, so that each case has one error only. */
        if (f) {
            CHECK_ERR(dx9.acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
            CHECK_ERR(dx9.acquire(other_queue, 1, &foreign, 0, NULL, NULL), CL_SUCCESS);
        }

#define EXPECT(count, objects, n, waits, want, label)                                              \
    do {                                                                                           \
        snprintf(what, sizeof(what), "%s %s: %s", dx9_kind_name(env->kind), name, label);          \
        expect_transfer(fn, env->queue, count, objects, n, waits, want, what);                     \
    } while (0)

        EXPECT(0, mems, 0, NULL, CL_INVALID_VALUE, "0 objects with a list");
        EXPECT(1, NULL, 0, NULL, CL_INVALID_VALUE, "1 object, NULL list");
        EXPECT(1, &buffer, 0, NULL, CL_INVALID_MEM_OBJECT, "a plain buffer");
        list[0] = NULL;
        EXPECT(1, list, 0, NULL, CL_INVALID_MEM_OBJECT, "a NULL memobj");
        EXPECT(1, &d3d11_mem, 0, NULL, CL_INVALID_MEM_OBJECT, "a D3D11 memobj");
        list[0] = mems[0];
        list[1] = buffer;
        EXPECT(2, list, 0, NULL, CL_INVALID_MEM_OBJECT, "a DX9 memobj and a plain buffer");
        EXPECT(1, mems, 1, NULL, CL_INVALID_EVENT_WAIT_LIST, "1 event, NULL wait list");
        events[0] = user;
        EXPECT(1, mems, 0, events, CL_INVALID_EVENT_WAIT_LIST, "0 events with a wait list");
        events[0] = NULL;
        EXPECT(1, mems, 1, events, CL_INVALID_EVENT_WAIT_LIST, "a NULL event in the list");
        EXPECT(1, &foreign, 0, NULL, CL_INVALID_CONTEXT, "a memobj of another DX9 context");
#undef EXPECT
        snprintf(what, sizeof(what), "%s %s: NULL queue", dx9_kind_name(env->kind), name);
        expect_transfer(fn, NULL, 1, mems, 0, NULL, CL_INVALID_COMMAND_QUEUE, what);
        snprintf(what, sizeof(what), "%s %s: queue of a context without adapter",
                 dx9_kind_name(env->kind), name);
        expect_transfer(fn, plain_queue, 1, mems, 0, NULL, CL_INVALID_CONTEXT, what);
        snprintf(what, sizeof(what), "%s %s: queue of a D3D11 context", dx9_kind_name(env->kind),
                 name);
        expect_transfer(fn, d3d11_queue, 1, mems, 0, NULL, CL_INVALID_CONTEXT, what);
        snprintf(what, sizeof(what), "%s %s: queue of another DX9 context",
                 dx9_kind_name(env->kind), name);
        expect_transfer(fn, other_queue, 1, mems, 0, NULL, CL_INVALID_CONTEXT, what);
    }
    /* The failed releases released nothing. */
    CHECK_ERR(dx9.release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(dx9.release(other_queue, 1, &foreign, 0, NULL, NULL), CL_SUCCESS);

    /* The failed acquires acquired nothing. */
    expect_transfer(dx9.release, env->queue, 1, mems, 0, NULL,
                    CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR, "release of an object never acquired");
    /* 0 objects and a NULL list: nothing to do, success. */
    CHECK_ERR(dx9.acquire(env->queue, 0, NULL, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(dx9.release(env->queue, 0, NULL, 0, NULL, NULL), CL_SUCCESS);

    /* Acquired state. */
    CHECK_ERR(dx9.acquire(env->queue, 1, &mems[0], 0, NULL, NULL), CL_SUCCESS);
    expect_transfer(dx9.acquire, env->queue, 1, &mems[0], 0, NULL,
                    CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR, "second acquire");
    expect_transfer(dx9.acquire, env->queue, 2, mems, 0, NULL,
                    CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR,
                    "acquire of a list holding an acquired object");
    /* The failed list acquired nothing: plane 1 is still not acquired. */
    expect_transfer(dx9.release, env->queue, 1, &mems[1], 0, NULL,
                    CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR, "release of the other plane");
    expect_transfer(dx9.release, env->queue, 2, mems, 0, NULL,
                    CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR,
                    "release of a list holding an object not acquired");
    CHECK_ERR(dx9.release(env->queue, 1, &mems[0], 0, NULL, NULL), CL_SUCCESS);
    expect_transfer(dx9.release, env->queue, 1, &mems[0], 0, NULL,
                    CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR, "second release");
    list[0] = list[1] = mems[1];
    expect_transfer(dx9.acquire, env->queue, 2, list, 0, NULL,
                    CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR, "the same object twice in a list");
    CHECK_ERR(dx9.acquire(env->queue, 1, &mems[1], 0, NULL, NULL), CL_SUCCESS);
    expect_transfer(dx9.release, env->queue, 2, list, 0, NULL,
                    CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR,
                    "release of the same object twice in a list");
    CHECK_ERR(dx9.release(env->queue, 1, &mems[1], 0, NULL, NULL), CL_SUCCESS);

    clReleaseEvent(user);
    clReleaseMemObject(foreign);
    clReleaseMemObject(d3d11_mem);
    clReleaseMemObject(buffer);
    for (int p = 0; p < 2; p++)
        clReleaseMemObject(mems[p]);
    clReleaseCommandQueue(plain_queue);
    clReleaseCommandQueue(other_queue);
    clReleaseCommandQueue(d3d11_queue);
    clReleaseContext(plain);
    clReleaseContext(other);
    clReleaseContext(d3d11_context);
    ID3D11Texture2D_Release(texture);
    ID3D11Device_Release(d3d11);
    IDirect3DSurface9_Release(other_surface);
    IDirect3DSurface9_Release(surface);
    CHECK(IDirect3DDevice9_Release(other_d3d) == 0, "second device still referenced");
}

/* Every enqueue that uses `mem`, with `plain` (a plain image of the same format and size) and
 * `buffer` as the other side. want: the result when mem is not acquired (the NOT_ACQUIRED
 * error) or CL_SUCCESS. */
static void uses(struct dx9_env *env, cl_mem mem, cl_mem plain, cl_mem buffer, cl_kernel kernel,
                 UINT w, UINT h, unsigned element, cl_int want, const char *what)
{
    size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1}, pitch = 0;
    unsigned char *data = calloc((size_t)w * h, element);
    cl_float4 color = {{0.25f, 0.5f, 0.75f, 1.0f}};
    cl_event event;
    cl_int err;
    void *mapped;
    char label[200];

#define USE(call, name)                                                                            \
    do {                                                                                           \
        event = NULL;                                                                              \
        err = (call);                                                                              \
        snprintf(label, sizeof(label), "%s: %s", what, name);                                      \
        CHECK(err == want, "%s: got %d, want %d", label, err, want);                               \
        CHECK(want == CL_SUCCESS || event == NULL, "%s: failing call returned an event", label);   \
        if (event)                                                                                 \
            clReleaseEvent(event);                                                                 \
    } while (0)

    REQUIRE(data, "out of memory");
    USE(clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, data, 0, NULL, &event),
        "clEnqueueReadImage");
    USE(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, data, 0, NULL, &event),
        "clEnqueueWriteImage");
    USE(clEnqueueCopyImage(env->queue, mem, plain, origin, origin, region, 0, NULL, &event),
        "clEnqueueCopyImage (source)");
    USE(clEnqueueCopyImage(env->queue, plain, mem, origin, origin, region, 0, NULL, &event),
        "clEnqueueCopyImage (destination)");
    USE(clEnqueueCopyImageToBuffer(env->queue, mem, buffer, origin, region, 0, 0, NULL, &event),
        "clEnqueueCopyImageToBuffer");
    USE(clEnqueueCopyBufferToImage(env->queue, buffer, mem, 0, origin, region, 0, NULL, &event),
        "clEnqueueCopyBufferToImage");
    USE(clEnqueueFillImage(env->queue, mem, &color, origin, region, 0, NULL, &event),
        "clEnqueueFillImage");
    USE(clEnqueueMigrateMemObjects(env->queue, 1, &mem, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
                                   NULL, &event),
        "clEnqueueMigrateMemObjects");
    for (int write = 0; write < 2; write++) {
        event = NULL;
        err = -1;
        mapped = clEnqueueMapImage(env->queue, mem, CL_TRUE, write ? CL_MAP_WRITE : CL_MAP_READ,
                                   origin, region, &pitch, NULL, 0, NULL, &event, &err);
        snprintf(label, sizeof(label), "%s: clEnqueueMapImage(%s)", what,
                 write ? "CL_MAP_WRITE" : "CL_MAP_READ");
        CHECK(err == want && (want == CL_SUCCESS) == (mapped != NULL), "%s: got %d (%p), want %d",
              label, err, mapped, want);
        if (event)
            clReleaseEvent(event);
        if (mapped) {
            CHECK_ERR(clEnqueueUnmapMemObject(env->queue, mem, mapped, 0, NULL, NULL), CL_SUCCESS);
            CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        }
    }
    /* Kernel arguments: the image in either place. */
    for (int arg = 0; arg < 2; arg++) {
        size_t global[2] = {w, h};
        CHECK_ERR(clSetKernelArg(kernel, arg, sizeof(cl_mem), &mem), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 1 - arg, sizeof(cl_mem), &plain), CL_SUCCESS);
        USE(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, &event),
            arg ? "clEnqueueNDRangeKernel (destination argument)"
                : "clEnqueueNDRangeKernel (source argument)");
    }
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
#undef USE
    free(data);
}

static void not_acquired(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    IDirect3DSurface9 *rgba = dx9_surface(env->d3d, 16, 8, D3DFMT_A8B8G8R8, DX9_PLAIN);
    cl_kernel kernel = dx9_kernel(env, "invert");
    cl_image_format r8 = {CL_R, CL_UNORM_INT8}, rgba8 = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, 16, 8, 0, 0, 0, 0, 0, 0, {NULL}};
    cl_mem luma, color, plain_r8, plain_rgba, buffer, other_plain;
    cl_int err;
    char what[160];

    luma = dx9_create(env, false, surface, 0, 0, &err);
    REQUIRE(err == CL_SUCCESS, "NV12 plane 0: %d", err);
    color = dx9_create(env, false, rgba, 0, 0, &err);
    REQUIRE(err == CL_SUCCESS, "A8B8G8R8: %d", err);
    plain_r8 = clCreateImage(env->context, CL_MEM_READ_WRITE, &r8, &desc, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain R8 image: %d", err);
    plain_rgba = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
    other_plain = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain RGBA8 images: %d", err);
    buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 16 * 8 * 4, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "buffer: %d", err);

    /* Never acquired, acquired, released again. */
    for (int round = 0; round < 3; round++) {
        cl_int want = round == 1 ? CL_SUCCESS : CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR;
        const char *state = round == 0 ? "never acquired" : round == 1 ? "acquired" : "released";
        cl_mem both[2] = {luma, color};

        if (round == 1)
            CHECK_ERR(dx9.acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
        snprintf(what, sizeof(what), "%s NV12 plane 0, %s", dx9_kind_name(env->kind), state);
        uses(env, luma, plain_r8, buffer, kernel, 16, 8, 1, want, what);
        snprintf(what, sizeof(what), "%s A8B8G8R8, %s", dx9_kind_name(env->kind), state);
        uses(env, color, plain_rgba, buffer, kernel, 16, 8, 4, want, what);
        if (round == 1)
            CHECK_ERR(dx9.release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    }
    /* Plain objects need no acquire, also in a kernel that once had a shared argument. */
    snprintf(what, sizeof(what), "%s plain RGBA8 image", dx9_kind_name(env->kind));
    uses(env, plain_rgba, other_plain, buffer, kernel, 16, 8, 4, CL_SUCCESS, what);

    clReleaseKernel(kernel);
    clReleaseMemObject(luma);
    clReleaseMemObject(color);
    clReleaseMemObject(plain_r8);
    clReleaseMemObject(plain_rgba);
    clReleaseMemObject(other_plain);
    clReleaseMemObject(buffer);
    IDirect3DSurface9_Release(surface);
    IDirect3DSurface9_Release(rgba);
}

int main(void)
{
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;

        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        transfer_errors(&env);
        not_acquired(&env);
        dx9_close(&env);
    }
    return test_finish("dx9_acquire");
}
