/* cl_intel_dx9_media_sharing on D3D9 and D3D9Ex devices: contexts named with
 * CL_CONTEXT_D3D9_DEVICE_INTEL / _D3D9EX_DEVICE_INTEL, clCreateFromDX9MediaSurfaceINTEL
 * (resource, shared handle, plane) with its queries, its duplicate rule and an invalid shared
 * handle refused,
 * clEnqueueAcquire/ReleaseDX9ObjectsINTEL with their events (0x402A / 0x402B) and errors,
 * and bit-exact round trips of NV12, YV12 and an RGB format through the Intel functions. */
#include "dx9util.h"

static void check_intel_queries(struct dx9_env *env, cl_mem mem, IDirect3DSurface9 *surface,
                                cl_uint plane, const char *what)
{
    IDirect3DSurface9 *resource = NULL;
    HANDLE handle = (HANDLE)1;
    cl_uint got_plane = 99;
    cl_dx9_media_adapter_type_khr type = 0;
    cl_dx9_surface_info_khr info = {NULL, (HANDLE)1};
    size_t size = 0;

    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_RESOURCE_INTEL, sizeof(resource), &resource, &size),
        CL_SUCCESS);
    CHECK(resource == surface && size == sizeof(resource), "%s: resource %p (size %zu), want %p",
          what, (void *)resource, size, (void *)surface);
    size = 0;
    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_SHARED_HANDLE_INTEL, sizeof(handle), &handle, &size),
        CL_SUCCESS);
    CHECK(handle == NULL && size == sizeof(HANDLE), "%s: shared handle %p (size %zu)", what, handle,
          size);
    size = 0;
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_DX9_PLANE_INTEL, sizeof(got_plane), &got_plane, &size),
              CL_SUCCESS);
    CHECK(got_plane == plane && size == sizeof(cl_uint), "%s: plane %u (size %zu), want %u", what,
          got_plane, size, plane);
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_DX9_RESOURCE_INTEL, 2, &resource, NULL),
              CL_INVALID_VALUE);
    /* The KHR view of the same object: the context's adapter type. */
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_ADAPTER_TYPE_KHR, sizeof(type), &type, NULL),
              CL_SUCCESS);
    CHECK(type == dx9_adapter_type(env->kind), "%s: adapter type 0x%x, want 0x%x", what, type,
          dx9_adapter_type(env->kind));
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR, sizeof(info), &info, NULL),
              CL_SUCCESS);
    CHECK(info.resource == surface && info.shared_handle == NULL, "%s: surface info {%p, %p}", what,
          (void *)info.resource, info.shared_handle);
}

static void creation(struct dx9_env *env)
{
    static const D3DFORMAT formats[] = {DX9_FMT_NV12, DX9_FMT_YV12, D3DFMT_A8R8G8B8, D3DFMT_R32F};
    char what[160];

    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
        IDirect3DSurface9 *surface = dx9_surface(env->d3d, 32, 16, formats[f], DX9_PLAIN);
        ULONG base = test_refcount((IUnknown *)surface);

        for (cl_uint p = 0; p < dx9_plane_count(formats[f]); p++) {
            cl_int err = -1, err2 = -1;
            cl_mem mem, again;

            snprintf(what, sizeof(what), "Intel %s %s plane %u", dx9_kind_name(env->kind),
                     dx9_format_name(formats[f]), p);
            mem = dx9.intel_create(env->context, CL_MEM_READ_WRITE, surface, NULL, p, &err);
            CHECK(err == CL_SUCCESS && mem, "%s: create: %d", what, err);
            if (!mem)
                continue;
            dx9_check_plane_image(mem, formats[f], 32, 16, p, what);
            check_intel_queries(env, mem, surface, p, what);
            CHECK(test_refcount((IUnknown *)surface) > base, "%s: no surface reference", what);
            /* The duplicate rule: the same surface and plane again. */
            again = dx9.intel_create(env->context, CL_MEM_READ_ONLY, surface, NULL, p, &err2);
            CHECK(err2 == CL_INVALID_DX9_RESOURCE_INTEL && !again,
                  "%s: second create of the same plane: %d (%p)", what, err2, (void *)again);
            if (again)
                clReleaseMemObject(again);
            again = dx9.intel_create(env->context, CL_MEM_READ_ONLY, surface, NULL, p, NULL);
            CHECK(!again, "%s: second create without errcode_ret succeeded", what);
            if (again)
                clReleaseMemObject(again);
            /* Once the first is gone, the plane can be shared again. */
            CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
            again = dx9.intel_create(env->context, 0, surface, NULL, p, &err2);
            CHECK(err2 == CL_SUCCESS && again, "%s: create after the release: %d", what, err2);
            if (again)
                clReleaseMemObject(again);
        }
        /* Several planes of one surface at once are not duplicates. */
        if (dx9_plane_count(formats[f]) > 1) {
            cl_mem planes[3] = {0};
            for (cl_uint p = 0; p < dx9_plane_count(formats[f]); p++) {
                cl_int err = -1;
                planes[p] = dx9.intel_create(env->context, 0, surface, NULL, p, &err);
                CHECK(err == CL_SUCCESS, "Intel %s: plane %u beside the others: %d",
                      dx9_format_name(formats[f]), p, err);
            }
            for (cl_uint p = 0; p < 3; p++)
                if (planes[p])
                    clReleaseMemObject(planes[p]);
        }
        CHECK(test_refcount((IUnknown *)surface) == base,
              "Intel %s: surface refcount %lu, "
              "%lu before",
              dx9_format_name(formats[f]), (unsigned long)test_refcount((IUnknown *)surface),
              (unsigned long)base);
        IDirect3DSurface9_Release(surface);
    }
}

static void create_errors(struct dx9_env *env)
{
    IDirect3DSurface9 *nv12 = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    IDirect3DSurface9 *rgb = dx9_surface(env->d3d, 16, 8, D3DFMT_X8R8G8B8, DX9_PLAIN);
    IDirect3DSurface9 *sysmem = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_SYSMEM);
    IDirect3DSurface9 *r5g6b5 = dx9_surface(env->d3d, 16, 8, D3DFMT_R5G6B5, DX9_PLAIN);
    IDirect3DDevice9 *other_d3d = dx9_device(env->kind);
    IDirect3DSurface9 *foreign = dx9_surface(other_d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    cl_context plain = clCreateContext(NULL, 1, &env->device, NULL, NULL, NULL);
    int not_a_surface = 5;
    cl_int err;
    cl_mem mem;

#define EXPECT(context, flags, resource, plane, want, label)                                       \
    do {                                                                                           \
        err = CL_SUCCESS;                                                                          \
        mem = dx9.intel_create(context, flags, resource, NULL, plane, &err);                       \
        CHECK(err == (want) && !mem, "Intel %s: %s: got %d, want %d", dx9_kind_name(env->kind),    \
              label, err, want);                                                                   \
        if (mem)                                                                                   \
            clReleaseMemObject(mem);                                                               \
    } while (0)

    REQUIRE(plain != NULL, "plain context");
    EXPECT(NULL, 0, nv12, 0, CL_INVALID_CONTEXT, "NULL context");
    EXPECT(plain, 0, nv12, 0, CL_INVALID_CONTEXT, "context without a DX9 device");
    EXPECT(env->context, CL_MEM_USE_HOST_PTR, nv12, 0, CL_INVALID_VALUE, "CL_MEM_USE_HOST_PTR");
    EXPECT(env->context, CL_MEM_READ_ONLY | CL_MEM_READ_WRITE, nv12, 0, CL_INVALID_VALUE,
           "two access flags");
    EXPECT(env->context, 0, nv12, 2, CL_INVALID_VALUE, "NV12 plane 2");
    EXPECT(env->context, 0, rgb, 1, CL_INVALID_VALUE, "X8R8G8B8 plane 1");
    EXPECT(env->context, 0, NULL, 0, CL_INVALID_DX9_RESOURCE_INTEL, "NULL resource");
    EXPECT(env->context, 0, (IDirect3DSurface9 *)&not_a_surface, 0, CL_INVALID_DX9_RESOURCE_INTEL,
           "a pointer to an int");
    EXPECT(env->context, 0, (IDirect3DSurface9 *)env->d3d, 0, CL_INVALID_DX9_RESOURCE_INTEL,
           "the device as the resource");
    EXPECT(env->context, 0, sysmem, 0, CL_INVALID_DX9_RESOURCE_INTEL, "a SYSTEMMEM surface");
    EXPECT(env->context, 0, foreign, 0, CL_INVALID_DX9_RESOURCE_INTEL,
           "a surface of another device");
    EXPECT(env->context, 0, r5g6b5, 0, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "an R5G6B5 surface");
#undef EXPECT

    /* A shared handle that is neither NULL nor a valid handle (what the KHR text says of its
     * shared_handle; test_dx9_shared_handle has the KHR function). */
    err = CL_SUCCESS;
    mem = dx9.intel_create(env->context, 0, nv12, (HANDLE)(uintptr_t)0x12345678, 0, &err);
    CHECK(err == CL_INVALID_DX9_RESOURCE_INTEL && !mem,
          "Intel %s: shared handle 0x12345678: got %d, want CL_INVALID_DX9_RESOURCE_INTEL",
          dx9_kind_name(env->kind), err);
    if (mem)
        clReleaseMemObject(mem);

    clReleaseContext(plain);
    IDirect3DSurface9_Release(foreign);
    CHECK(IDirect3DDevice9_Release(other_d3d) == 0, "second device still referenced");
    IDirect3DSurface9_Release(nv12);
    IDirect3DSurface9_Release(rgb);
    IDirect3DSurface9_Release(sysmem);
    IDirect3DSurface9_Release(r5g6b5);
}

static void transfers(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    size_t origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
    unsigned char data[16 * 8];
    cl_event event = NULL;
    cl_command_type type = 0;
    cl_mem mems[2], buffer;
    cl_int err;

    for (cl_uint p = 0; p < 2; p++) {
        mems[p] = dx9.intel_create(env->context, 0, surface, NULL, p, &err);
        REQUIRE(err == CL_SUCCESS, "create plane %u: %d", p, err);
    }
    buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);

    CHECK_ERR(
        clEnqueueReadImage(env->queue, mems[0], CL_TRUE, origin, region, 0, 0, data, 0, NULL, NULL),
        CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL);
    CHECK_ERR(dx9.intel_release(env->queue, 1, mems, 0, NULL, NULL),
              CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL);
    CHECK_ERR(dx9.intel_acquire(env->queue, 1, &buffer, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    CHECK_ERR(dx9.intel_acquire(env->queue, 1, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    CHECK_ERR(dx9.intel_acquire(NULL, 1, mems, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    CHECK_ERR(dx9.intel_acquire(env->queue, 1, mems, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);

    CHECK_ERR(dx9.intel_acquire(env->queue, 2, mems, 0, NULL, &event), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == CL_COMMAND_ACQUIRE_DX9_OBJECTS_INTEL,
          "Intel acquire event type 0x%x, want "
          "0x402A",
          type);
    clReleaseEvent(event);
    CHECK_ERR(dx9.intel_acquire(env->queue, 1, mems, 0, NULL, NULL),
              CL_DX9_RESOURCE_ALREADY_ACQUIRED_INTEL);
    CHECK_ERR(
        clEnqueueReadImage(env->queue, mems[0], CL_TRUE, origin, region, 0, 0, data, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(dx9.intel_release(env->queue, 1, &buffer, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    event = NULL;
    CHECK_ERR(dx9.intel_release(env->queue, 2, mems, 0, NULL, &event), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
    type = 0;
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == CL_COMMAND_RELEASE_DX9_OBJECTS_INTEL,
          "Intel release event type 0x%x, want "
          "0x402B",
          type);
    clReleaseEvent(event);
    CHECK_ERR(dx9.intel_release(env->queue, 2, mems, 0, NULL, NULL),
              CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL);

    clReleaseMemObject(buffer);
    clReleaseMemObject(mems[0]);
    clReleaseMemObject(mems[1]);
    IDirect3DSurface9_Release(surface);
}

static bool khr_served_by_driver(void)
{
    char value[32];
    DWORD len = GetEnvironmentVariableA("DXCL_TEST_CHAIN", value, sizeof(value));

    return len && !strcmp(value, "khr_only");
}

static void intel_on_drivers_context(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    cl_int err = CL_SUCCESS;
    cl_mem mem = dx9.intel_create(env->context, 0, surface, NULL, 0, &err);

    CHECK(!mem && err == CL_INVALID_CONTEXT, "Intel %s: on the driver's KHR context: %p %d",
          dx9_kind_name(env->kind), (void *)mem, err);
    IDirect3DSurface9_Release(surface);
}

int main(void)
{
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;

        dx9_open(&env, kind, true, DX9_NO_USER_SYNC);
        creation(&env);
        create_errors(&env);
        transfers(&env);
        dx9_roundtrip(&env, DX9_FMT_NV12, DX9_PLAIN, 16, 8, true, 700 + kind);
        dx9_roundtrip(&env, DX9_FMT_NV12, DX9_PLAIN, 64, 32, true, 710 + kind);
        dx9_roundtrip(&env, DX9_FMT_YV12, DX9_PLAIN, 32, 16, true, 720 + kind);
        dx9_roundtrip(&env, D3DFMT_A8R8G8B8, DX9_RT, 32, 16, true, 730 + kind);
        dx9_close(&env);

        /* The Intel functions on a context named with the KHR property: the copy engine
         * serves both. Where the driver serves only the KHR extension (the chained khr_only
         * configuration, docs/testing.md) that context is the driver's own, and the emulated
         * Intel functions refuse it. */
        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        if (!khr_served_by_driver())
            dx9_roundtrip(&env, DX9_FMT_NV12, DX9_PLAIN, 16, 8, true, 740 + kind);
        else
            intel_on_drivers_context(&env);
        dx9_close(&env);
    }
    return test_finish("dx9_intel");
}
