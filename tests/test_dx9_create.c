/* clCreateFromDX9MediaSurfaceKHR on D3D9 and D3D9Ex contexts: the images made from NV12 and
 * YV12 planes and from the 16 D3D9 formats (offscreen plain surfaces and render targets,
 * lockable or not), their queries (KHR and Intel tokens), the adapter types, and every
 * error. */
#include "dx9util.h"

#include <CL/cl_d3d11.h>

static cl_platform_id platform;
static cl_device_id device;

/* The KHR and Intel queries of a DX9 media image. */
static void check_queries(cl_mem mem, cl_context context, IDirect3DSurface9 *surface,
                          cl_dx9_media_adapter_type_khr type, cl_uint plane, cl_mem_flags flags,
                          const char *what)
{
    cl_dx9_media_adapter_type_khr got_type = 0;
    cl_dx9_surface_info_khr info;
    IDirect3DSurface9 *resource = NULL;
    HANDLE handle = (HANDLE)1;
    cl_uint got_plane = 99;
    cl_context got_context = NULL;
    cl_mem_flags got_flags = 0;
    size_t size = 0;

    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_ADAPTER_TYPE_KHR, sizeof(got_type),
                                 &got_type, &size),
              CL_SUCCESS);
    CHECK(got_type == type && size == sizeof(got_type),
          "%s: adapter type 0x%x (size %zu), "
          "want 0x%x",
          what, got_type, size, type);

    memset(&info, 0xab, sizeof(info));
    size = 0;
    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR, sizeof(info), &info, &size),
        CL_SUCCESS);
    CHECK(info.resource == surface && info.shared_handle == NULL,
          "%s: surface info {%p, %p}, want {%p, NULL}", what, (void *)info.resource,
          info.shared_handle, (void *)surface);
    CHECK(size == sizeof(cl_dx9_surface_info_khr), "%s: surface info size %zu, want %zu", what,
          size, sizeof(cl_dx9_surface_info_khr));
    size = 0;
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR, 0, NULL, &size),
              CL_SUCCESS);
    CHECK(size == sizeof(cl_dx9_surface_info_khr), "%s: surface info size query %zu", what, size);
    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR, sizeof(info) - 1, &info, NULL),
        CL_INVALID_VALUE);
    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR, sizeof(void *), &info, NULL),
        CL_INVALID_VALUE);

    size = 0;
    CHECK_ERR(
        clGetImageInfo(mem, CL_IMAGE_DX9_MEDIA_PLANE_KHR, sizeof(got_plane), &got_plane, &size),
        CL_SUCCESS);
    CHECK(got_plane == plane && size == sizeof(cl_uint), "%s: plane %u (size %zu), want %u", what,
          got_plane, size, plane);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_DX9_MEDIA_PLANE_KHR, 1, &got_plane, NULL),
              CL_INVALID_VALUE);

    /* The Intel tokens answer for every DX9 media object. */
    size = 0;
    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_RESOURCE_INTEL, sizeof(resource), &resource, &size),
        CL_SUCCESS);
    CHECK(resource == surface && size == sizeof(resource),
          "%s: CL_MEM_DX9_RESOURCE_INTEL %p "
          "(size %zu), want %p",
          what, (void *)resource, size, (void *)surface);
    size = 0;
    CHECK_ERR(
        clGetMemObjectInfo(mem, CL_MEM_DX9_SHARED_HANDLE_INTEL, sizeof(handle), &handle, &size),
        CL_SUCCESS);
    CHECK(handle == NULL && size == sizeof(HANDLE),
          "%s: CL_MEM_DX9_SHARED_HANDLE_INTEL %p "
          "(size %zu)",
          what, handle, size);
    got_plane = 99;
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_DX9_PLANE_INTEL, sizeof(got_plane), &got_plane, NULL),
              CL_SUCCESS);
    CHECK(got_plane == plane, "%s: CL_IMAGE_DX9_PLANE_INTEL %u, want %u", what, got_plane, plane);

    /* Core queries. */
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof(got_context), &got_context, NULL),
              CL_SUCCESS);
    CHECK(got_context == context, "%s: CL_MEM_CONTEXT %p, want %p", what, (void *)got_context,
          (void *)context);
    if (flags) {
        CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof(got_flags), &got_flags, NULL),
                  CL_SUCCESS);
        CHECK(got_flags == flags, "%s: CL_MEM_FLAGS 0x%llx, want 0x%llx", what,
              (unsigned long long)got_flags, (unsigned long long)flags);
    }
}

/* Every plane of a surface of `format` and `kind`: image description and queries. */
static void create_planes(struct dx9_env *env, D3DFORMAT format, enum dx9_surface_kind kind, UINT w,
                          UINT h, cl_mem_flags flags)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, w, h, format, kind);
    cl_dx9_surface_info_khr info = {surface, NULL};
    ULONG before = test_refcount((IUnknown *)surface);
    char what[200];

    for (cl_uint plane = 0; plane < dx9_plane_count(format); plane++) {
        cl_int err = -1;
        cl_mem mem;

        snprintf(what, sizeof(what), "%s %s %s %ux%u plane %u flags 0x%llx",
                 dx9_kind_name(env->kind), dx9_format_name(format), dx9_surface_kind_name(kind), w,
                 h, plane, (unsigned long long)flags);
        mem = dx9.create(env->context, flags, dx9_adapter_type(env->kind), &info, plane, &err);
        CHECK(err == CL_SUCCESS && mem, "%s: create: %d", what, err);
        if (!mem)
            continue;
        CHECK(test_refcount((IUnknown *)surface) == before + 1,
              "%s: the memobj holds no reference on the surface", what);
        dx9_check_plane_image(mem, format, w, h, plane, what);
        check_queries(mem, env->context, surface, dx9_adapter_type(env->kind), plane, flags, what);
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
        CHECK(test_refcount((IUnknown *)surface) == before,
              "%s: surface reference not dropped with the memobj", what);
    }
    IDirect3DSurface9_Release(surface);
}

static void formats(struct dx9_env *env)
{
    static const cl_mem_flags flag_sets[] = {0, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                             CL_MEM_READ_WRITE};

    for (size_t i = 0; i < 4; i++) {
        create_planes(env, DX9_FMT_NV12, DX9_PLAIN, 64, 32, flag_sets[i]);
        create_planes(env, DX9_FMT_YV12, DX9_PLAIN, 64, 32, flag_sets[i]);
    }
    create_planes(env, DX9_FMT_NV12, DX9_PLAIN, 250, 6, 0);
    create_planes(env, DX9_FMT_YV12, DX9_PLAIN, 250, 6, 0);
    for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT; f++) {
        const struct dx9_format *format = &dx9_formats[f];
        HRESULT rt = dx9_check_format(env->d3d, format->format, DX9_RT);

        CHECK(SUCCEEDED(dx9_check_format(env->d3d, format->format, DX9_PLAIN)),
              "%s: CheckDeviceFormat(%s, offscreen plain) fails", dx9_kind_name(env->kind),
              format->name);
        create_planes(env, format->format, DX9_PLAIN, 20, 10, CL_MEM_READ_WRITE);
        if (SUCCEEDED(rt)) {
            create_planes(env, format->format, DX9_RT, 20, 10, CL_MEM_READ_ONLY);
            create_planes(env, format->format, DX9_RT_LOCKABLE, 20, 10, 0);
        } else {
            printf("not testable: %s %s as a render target (CheckDeviceFormat 0x%08lx); tested "
                   "as an offscreen plain surface\n",
                   dx9_kind_name(env->kind), format->name, (unsigned long)rt);
        }
    }
}

/* No "already created" rule in the KHR extension: two images of one plane. */
static void same_plane_twice(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    cl_dx9_surface_info_khr info = {surface, NULL};
    cl_dx9_media_adapter_type_khr type = dx9_adapter_type(env->kind);
    cl_int err1 = -1, err2 = -1;
    cl_mem a = dx9.create(env->context, 0, type, &info, 1, &err1);
    cl_mem b = dx9.create(env->context, CL_MEM_READ_ONLY, type, &info, 1, &err2);

    CHECK(err1 == CL_SUCCESS && err2 == CL_SUCCESS && a && b && a != b,
          "%s: two images of NV12 plane 1: %d %d (%p %p)", dx9_kind_name(env->kind), err1, err2,
          (void *)a, (void *)b);
    if (a && b) {
        cl_mem both[2] = {a, b};
        check_queries(b, env->context, surface, type, 1, CL_MEM_READ_ONLY, "second image");
        CHECK_ERR(dx9.acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(dx9.release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    }
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    IDirect3DSurface9_Release(surface);
}

/* Adapter types other than the context's: D3D9 on a D3D9Ex context, DXVA (served through the
 * surface's device), D3D9EX on a D3D9 context (the surface is no D3D9Ex surface). */
static void adapter_types(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    cl_dx9_surface_info_khr info = {surface, NULL};
    const char *kind = dx9_kind_name(env->kind);
    unsigned char luma[16 * 8];
    cl_int err = -1;
    cl_mem mem;

    mem = dx9.create(env->context, 0, CL_ADAPTER_DXVA_KHR, &info, 0, &err);
    CHECK(err == CL_SUCCESS && mem, "%s: CL_ADAPTER_DXVA_KHR: %d", kind, err);
    if (mem) {
        size_t origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
        D3DLOCKED_RECT locked;
        unsigned bad = 0;

        check_queries(mem, env->context, surface, CL_ADAPTER_DXVA_KHR, 0, 0, "DXVA type");
        for (size_t i = 0; i < sizeof(luma); i++)
            luma[i] = (unsigned char)(i * 3 + 1);
        CHECK_ERR(dx9.acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, luma, 0, NULL,
                                      NULL),
                  CL_SUCCESS);
        CHECK_ERR(dx9.release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        REQUIRE(SUCCEEDED(IDirect3DSurface9_LockRect(surface, &locked, NULL, D3DLOCK_READONLY)),
                "LockRect");
        for (UINT y = 0; y < 8; y++)
            for (UINT x = 0; x < 16; x++)
                bad += ((unsigned char *)locked.pBits)[y * locked.Pitch + x] != luma[y * 16 + x];
        IDirect3DSurface9_UnlockRect(surface);
        CHECK(bad == 0, "%s: DXVA-type image: %u luma bytes did not reach the surface", kind, bad);
        clReleaseMemObject(mem);
    }
    if (env->kind == DX9_D3D9EX) {
        mem = dx9.create(env->context, 0, CL_ADAPTER_D3D9_KHR, &info, 1, &err);
        CHECK(err == CL_SUCCESS && mem, "D3D9Ex context, CL_ADAPTER_D3D9_KHR: %d", err);
        if (mem) {
            check_queries(mem, env->context, surface, CL_ADAPTER_D3D9_KHR, 1, 0, "D3D9 type");
            clReleaseMemObject(mem);
        }
    } else {
        mem = dx9.create(env->context, 0, CL_ADAPTER_D3D9EX_KHR, &info, 0, &err);
        CHECK(err == CL_INVALID_DX9_MEDIA_SURFACE_KHR && !mem,
              "D3D9 context, CL_ADAPTER_D3D9EX_KHR with a D3D9 surface: %d", err);
    }
    IDirect3DSurface9_Release(surface);
}

static void expect_create(cl_context context, cl_mem_flags flags,
                          cl_dx9_media_adapter_type_khr type, void *info, cl_uint plane,
                          cl_int want, const char *what)
{
    cl_int err = CL_SUCCESS;
    cl_mem mem = dx9.create(context, flags, type, info, plane, &err);

    CHECK(err == want && !mem, "%s: got %d (memobj %p), want %d", what, err, (void *)mem, want);
    if (mem)
        clReleaseMemObject(mem);
    /* errcode_ret may be NULL. */
    mem = dx9.create(context, flags, type, info, plane, NULL);
    CHECK(!mem, "%s: a memobj without errcode_ret", what);
    if (mem)
        clReleaseMemObject(mem);
}

static void errors(struct dx9_env *env)
{
    const cl_dx9_media_adapter_type_khr type = dx9_adapter_type(env->kind);
    IDirect3DSurface9 *nv12 = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    IDirect3DSurface9 *yv12 = dx9_surface(env->d3d, 16, 8, DX9_FMT_YV12, DX9_PLAIN);
    IDirect3DSurface9 *rgb = dx9_surface(env->d3d, 16, 8, D3DFMT_A8R8G8B8, DX9_PLAIN);
    IDirect3DSurface9 *sysmem = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_SYSMEM);
    IDirect3DSurface9 *scratch = NULL, *foreign;
    IDirect3DDevice9 *other = dx9_device(env->kind);
    cl_dx9_surface_info_khr info = {nv12, NULL};
    cl_context plain, null_adapter, d3d11_context;
    cl_context_properties null_props[] = {dx9_khr_property(env->kind), 0, 0};
    ID3D11Device *d3d11 = test_d3d11_device(NULL);
    cl_context_properties d3d11_props[] = {CL_CONTEXT_D3D11_DEVICE_KHR,
                                           (cl_context_properties)d3d11, 0};
    int not_a_context = 7;
    char what[200];
    cl_int err;
    HRESULT hr;

    foreign = dx9_surface(other, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    snprintf(what, sizeof(what), "%s context", dx9_kind_name(env->kind));

    /* CL_INVALID_CONTEXT. */
    plain = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    null_adapter = clCreateContext(null_props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context with a NULL adapter: %d", err);
    d3d11_context = clCreateContext(d3d11_props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "D3D11 context: %d", err);
    expect_create(NULL, 0, type, &info, 0, CL_INVALID_CONTEXT, "NULL context");
    expect_create((cl_context)&not_a_context, 0, type, &info, 0, CL_INVALID_CONTEXT,
                  "a pointer that is no context");
    expect_create(plain, 0, type, &info, 0, CL_INVALID_CONTEXT, "context without an adapter");
    expect_create(null_adapter, 0, type, &info, 0, CL_INVALID_CONTEXT,
                  "context with a NULL adapter property");
    expect_create(d3d11_context, 0, type, &info, 0, CL_INVALID_CONTEXT, "D3D11 context");

    /* CL_INVALID_VALUE: flags, planes, no surface info. */
    expect_create(env->context, CL_MEM_USE_HOST_PTR, type, &info, 0, CL_INVALID_VALUE,
                  "CL_MEM_USE_HOST_PTR");
    expect_create(env->context, CL_MEM_COPY_HOST_PTR, type, &info, 0, CL_INVALID_VALUE,
                  "CL_MEM_COPY_HOST_PTR");
    expect_create(env->context, CL_MEM_ALLOC_HOST_PTR, type, &info, 0, CL_INVALID_VALUE,
                  "CL_MEM_ALLOC_HOST_PTR");
    expect_create(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, type, &info, 0,
                  CL_INVALID_VALUE, "READ_ONLY | WRITE_ONLY");
    expect_create(env->context, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, type, &info, 0,
                  CL_INVALID_VALUE, "READ_WRITE | READ_ONLY");
    expect_create(env->context, (cl_mem_flags)1 << 40, type, &info, 0, CL_INVALID_VALUE,
                  "flags bit 40");
    expect_create(env->context, 0, type, &info, 2, CL_INVALID_VALUE, "NV12 plane 2");
    expect_create(env->context, 0, type, &info, 0xffffffffu, CL_INVALID_VALUE,
                  "NV12 plane 0xffffffff");
    info.resource = yv12;
    expect_create(env->context, 0, type, &info, 3, CL_INVALID_VALUE, "YV12 plane 3");
    info.resource = rgb;
    expect_create(env->context, 0, type, &info, 1, CL_INVALID_VALUE, "A8R8G8B8 plane 1");
    expect_create(env->context, 0, type, NULL, 0, CL_INVALID_VALUE, "NULL surface_info");

    /* CL_INVALID_DX9_MEDIA_SURFACE_KHR. */
    info.resource = NULL;
    expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  "NULL resource");
    info.resource = (IDirect3DSurface9 *)env->d3d;
    expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  "the device as the resource");
    info.resource = (IDirect3DSurface9 *)&not_a_context;
    expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  "a pointer to an int as the resource");
    info.resource = sysmem;
    expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  "a D3DPOOL_SYSTEMMEM surface");
    hr = IDirect3DDevice9_CreateOffscreenPlainSurface(env->d3d, 16, 8, D3DFMT_A8R8G8B8,
                                                      D3DPOOL_SCRATCH, &scratch, NULL);
    CHECK(SUCCEEDED(hr), "D3DPOOL_SCRATCH surface: 0x%08lx", (unsigned long)hr);
    if (scratch) {
        info.resource = scratch;
        expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                      "a D3DPOOL_SCRATCH surface");
    }
    /* A D3DPOOL_DEFAULT texture level that is neither dynamic nor a render target: it does
     * not lock and cannot be read back, so the copy engine refuses it at creation. */
    {
        IDirect3DSurface9 *level = NULL;
        D3DLOCKED_RECT locked;

        hr = dx9_try_surface(env->d3d, 16, 8, D3DFMT_A8R8G8B8, DX9_TEX_PLAIN, &level);
        REQUIRE(SUCCEEDED(hr), "texture level: 0x%08lx", (unsigned long)hr);
        hr = IDirect3DSurface9_LockRect(level, &locked, NULL, D3DLOCK_READONLY);
        CHECK(FAILED(hr), "LockRect of a non-dynamic D3DPOOL_DEFAULT texture level succeeds");
        if (SUCCEEDED(hr))
            IDirect3DSurface9_UnlockRect(level);
        info.resource = level;
        expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                      "a level of a texture without D3DUSAGE_DYNAMIC or _RENDERTARGET");
        IDirect3DSurface9_Release(level);
    }
    info.resource = foreign;
    expect_create(env->context, 0, type, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  "a surface of another device");
    expect_create(env->context, 0, CL_ADAPTER_DXVA_KHR, &info, 0, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  "a surface of another device, DXVA type");

    /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: formats outside the tables. */
    {
        static const D3DFORMAT outside[] = {D3DFMT_R5G6B5, D3DFMT_A2R10G10B10, D3DFMT_YUY2,
                                            D3DFMT_UYVY, D3DFMT_A1R5G5B5};
        for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
            IDirect3DSurface9 *surface;
            char label[120];

            hr = dx9_try_surface(env->d3d, 16, 8, outside[i], DX9_PLAIN, &surface);
            if (FAILED(hr)) {
                printf("not testable: %s surface cannot be created (0x%08lx)\n",
                       dx9_format_name(outside[i]), (unsigned long)hr);
                continue;
            }
            info.resource = surface;
            snprintf(label, sizeof(label), "%s surface", dx9_format_name(outside[i]));
            expect_create(env->context, 0, type, &info, 0, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                          label);
            IDirect3DSurface9_Release(surface);
        }
    }

    /* CL_INVALID_OPERATION: adapter types no device supports. */
    info.resource = nv12;
    expect_create(env->context, 0, 0x1234, &info, 0, CL_INVALID_OPERATION, "adapter type 0x1234");
    expect_create(env->context, 0, 0, &info, 0, CL_INVALID_OPERATION, "adapter type 0");
    expect_create(env->context, 0, CL_D3D9_DEVICE_INTEL, &info, 0, CL_INVALID_OPERATION,
                  "the Intel source token as adapter type");

    CHECK_ERR(clReleaseContext(plain), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(null_adapter), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(d3d11_context), CL_SUCCESS);
    ID3D11Device_Release(d3d11);
    if (scratch)
        IDirect3DSurface9_Release(scratch);
    IDirect3DSurface9_Release(foreign);
    IDirect3DDevice9_Release(other);
    IDirect3DSurface9_Release(nv12);
    IDirect3DSurface9_Release(yv12);
    IDirect3DSurface9_Release(rgb);
    IDirect3DSurface9_Release(sysmem);
}

/* The DX9 tokens asked of objects that no DX9 surface made. */
static void foreign_objects(struct dx9_env *env)
{
    static const cl_mem_info mem_tokens[] = {
        CL_MEM_DX9_MEDIA_ADAPTER_TYPE_KHR, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR,
        CL_MEM_DX9_RESOURCE_INTEL, CL_MEM_DX9_SHARED_HANDLE_INTEL};
    static const cl_image_info image_tokens[] = {CL_IMAGE_DX9_MEDIA_PLANE_KHR,
                                                 CL_IMAGE_DX9_PLANE_INTEL};
    cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, 16, 8, 0, 0, 0, 0, 0, 0, {NULL}};
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 256, NULL, &err);
    cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
    char value[64];

    REQUIRE(buffer && image, "plain buffer and image: %d", err);
    for (size_t i = 0; i < sizeof(mem_tokens) / sizeof(mem_tokens[0]); i++) {
        CHECK_ERR(clGetMemObjectInfo(buffer, mem_tokens[i], sizeof(value), value, NULL),
                  CL_INVALID_DX9_MEDIA_SURFACE_KHR);
        CHECK_ERR(clGetMemObjectInfo(image, mem_tokens[i], sizeof(value), value, NULL),
                  CL_INVALID_DX9_MEDIA_SURFACE_KHR);
    }
    for (size_t i = 0; i < sizeof(image_tokens) / sizeof(image_tokens[0]); i++)
        CHECK_ERR(clGetImageInfo(image, image_tokens[i], sizeof(value), value, NULL),
                  CL_INVALID_DX9_MEDIA_SURFACE_KHR);
    CHECK_ERR(
        clGetMemObjectInfo(NULL, CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR, sizeof(value), value, NULL),
        CL_INVALID_MEM_OBJECT);
    clReleaseMemObject(buffer);
    clReleaseMemObject(image);
}

int main(void)
{
    platform = test_platform();
    device = test_device(platform);
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;

        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        formats(&env);
        same_plane_twice(&env);
        adapter_types(&env);
        errors(&env);
        foreign_objects(&env);
        dx9_close(&env);
    }
    return test_finish("dx9_create");
}
