/* cl_nv_d3d9_sharing on D3D9 and D3D9Ex devices: the extension string and the nine functions,
 * clGetDeviceIDsFromD3D9NV (device and adapter-name sources, both sets, every error), contexts
 * (CL_INVALID_D3D9_DEVICE_NV, CL_INVALID_OPERATION), every create error of each resource kind,
 * the image sizes and formats of NVIDIA's table, CL_MEM_D3D9_RESOURCE_NV,
 * CL_IMAGE_D3D9_LEVEL_NV and CL_IMAGE_D3D9_FACE_NV with their errors, acquire/release errors,
 * the enqueue guard's CL_D3D9_RESOURCE_NOT_ACQUIRED_NV, and reference counts. */
#include "nv_d3d9util.h"

#include <CL/cl_d3d11.h>

static void check_functions(cl_platform_id platform)
{
    static const char *names[] = {
        "clGetDeviceIDsFromD3D9NV",        "clCreateFromD3D9VertexBufferNV",
        "clCreateFromD3D9IndexBufferNV",   "clCreateFromD3D9SurfaceNV",
        "clCreateFromD3D9TextureNV",       "clCreateFromD3D9CubeTextureNV",
        "clCreateFromD3D9VolumeTextureNV", "clEnqueueAcquireD3D9ObjectsNV",
        "clEnqueueReleaseD3D9ObjectsNV"};
    char list[8192] = "";

    clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(list), list, NULL);
    CHECK(test_has_word(list, "cl_nv_d3d9_sharing"), "cl_nv_d3d9_sharing advertised");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *fn = clGetExtensionFunctionAddressForPlatform(platform, names[i]);
        CHECK(fn && clGetExtensionFunctionAddress(names[i]) == fn, "%s found", names[i]);
    }
}

static void check_device_ids(struct dx9_env *env)
{
    cl_device_id devices[8];
    cl_uint n = 0;
    IDirect3D9 *d3d = dx9_d3d(env->d3d);
    D3DADAPTER_IDENTIFIER9 id;
    int dummy;

    for (cl_uint set = CL_PREFERRED_DEVICES_FOR_D3D9_NV; set <= CL_ALL_DEVICES_FOR_D3D9_NV; set++) {
        n = 0;
        CHECK_ERR(
            nv.get_device_ids(env->platform, CL_D3D9_DEVICE_NV, env->d3d, set, 8, devices, &n),
            CL_SUCCESS);
        CHECK(n >= 1 && devices[0] == env->device, "device source, set 0x%x: %u devices", set, n);
    }
    IDirect3D9_GetAdapterIdentifier(d3d, D3DADAPTER_DEFAULT, 0, &id);
    IDirect3D9_Release(d3d);
    n = 0;
    CHECK_ERR(nv.get_device_ids(env->platform, CL_D3D9_ADAPTER_NAME_NV, id.DeviceName,
                                CL_ALL_DEVICES_FOR_D3D9_NV, 0, NULL, &n),
              CL_SUCCESS);
    CHECK(n >= 1, "adapter %s: %u devices", id.DeviceName, n);
    CHECK_ERR(nv.get_device_ids(NULL, CL_D3D9_DEVICE_NV, env->d3d, CL_ALL_DEVICES_FOR_D3D9_NV, 0,
                                NULL, &n),
              CL_INVALID_PLATFORM);
    CHECK_ERR(
        nv.get_device_ids(env->platform, 0x4021, env->d3d, CL_ALL_DEVICES_FOR_D3D9_NV, 0, NULL, &n),
        CL_INVALID_VALUE);
    CHECK_ERR(nv.get_device_ids(env->platform, CL_D3D9_DEVICE_NV, env->d3d, 0x4026, 0, NULL, &n),
              CL_INVALID_VALUE);
    CHECK_ERR(nv.get_device_ids(env->platform, CL_D3D9_DEVICE_NV, env->d3d,
                                CL_ALL_DEVICES_FOR_D3D9_NV, 0, devices, &n),
              CL_INVALID_VALUE);
    CHECK_ERR(nv.get_device_ids(env->platform, CL_D3D9_DEVICE_NV, env->d3d,
                                CL_ALL_DEVICES_FOR_D3D9_NV, 0, NULL, NULL),
              CL_INVALID_VALUE);
    CHECK_ERR(nv.get_device_ids(env->platform, CL_D3D9_DEVICE_NV, &dummy,
                                CL_ALL_DEVICES_FOR_D3D9_NV, 0, NULL, &n),
              CL_DEVICE_NOT_FOUND);
    CHECK_ERR(nv.get_device_ids(env->platform, CL_D3D9_ADAPTER_NAME_NV, "\\\\.\\NOSUCHDISPLAY",
                                CL_ALL_DEVICES_FOR_D3D9_NV, 0, NULL, &n),
              CL_DEVICE_NOT_FOUND);
}

static void check_contexts(struct dx9_env *env)
{
    int dummy;
    ID3D11Device *d3d11 = test_d3d11_device(NULL);
    cl_context_properties bad[] = {CL_CONTEXT_D3D9_DEVICE_NV, (cl_context_properties)&dummy, 0};
    cl_context_properties two[] = {CL_CONTEXT_D3D9_DEVICE_NV, (cl_context_properties)env->d3d,
                                   CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d11, 0};
    cl_int err = 0;

    CHECK(clCreateContext(bad, 1, &env->device, NULL, NULL, &err) == NULL &&
              err == CL_INVALID_D3D9_DEVICE_NV,
          "not a D3D9 device: %d", err);
    CHECK(clCreateContext(two, 1, &env->device, NULL, NULL, &err) == NULL &&
              err == CL_INVALID_OPERATION,
          "D3D9 and D3D11: %d", err);
    ID3D11Device_Release(d3d11);
}

/* The create errors common to every kind, on a resource `r` of it. */
static void check_create_errors(struct dx9_env *env, struct dx9_env *other, enum nv_kind kind,
                                IUnknown *r, IUnknown *foreign, IUnknown *wrong_type)
{
    const char *name = nv_kind_name(kind);
    cl_int err = 0;
    cl_mem mem;

    CHECK(nv_create(&(struct dx9_env){.context = NULL}, kind, r, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_CONTEXT,
          "%s: NULL context: %d", name, err);
    CHECK(nv_create(env, kind, r, 0, 0, CL_MEM_USE_HOST_PTR, &err) == NULL &&
              err == CL_INVALID_VALUE,
          "%s: flags: %d", name, err);
    CHECK(nv_create(env, kind, wrong_type, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "%s: wrong type: %d", name, err);
    CHECK(nv_create(env, kind, NULL, 0, 0, 0, &err) == NULL && err == CL_INVALID_D3D9_RESOURCE_NV,
          "%s: NULL: %d", name, err);
    CHECK(nv_create(env, kind, foreign, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "%s: another device's: %d", name, err);
    /* A context of the DX9 media family (KHR property) is not one of this family. */
    CHECK(nv_create(other, kind, r, 0, 0, 0, &err) == NULL && err == CL_INVALID_CONTEXT,
          "%s: KHR DX9 media context: %d", name, err);
    mem = nv_create(env, kind, r, 0, 0, CL_MEM_READ_WRITE, &err);
    CHECK(mem && err == CL_SUCCESS, "%s: create: %d", name, err);
    CHECK(nv_create(env, kind, r, 0, 0, 0, &err) == NULL && err == CL_INVALID_D3D9_RESOURCE_NV,
          "%s: a second cl_mem: %d", name, err);
    if (mem)
        clReleaseMemObject(mem);
}

static IUnknown *make(IDirect3DDevice9 *device, enum nv_kind kind, D3DFORMAT format)
{
    HRESULT hr;
    IUnknown *r = nv_resource(device, kind, format, kind == NV_VERTEX_BUFFER ? 256 : 16, 8, 4, &hr);

    REQUIRE(r != NULL, "%s not created: 0x%08lx", nv_kind_name(kind), (unsigned long)hr);
    return r;
}

static void check_image(cl_mem mem, cl_channel_order order, size_t w, size_t h, size_t d,
                        const char *what)
{
    cl_image_format format = {0};
    size_t width = 0, height = 0, depth = 99;

    clGetImageInfo(mem, CL_IMAGE_FORMAT, sizeof(format), &format, NULL);
    clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof(width), &width, NULL);
    clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof(height), &height, NULL);
    clGetImageInfo(mem, CL_IMAGE_DEPTH, sizeof(depth), &depth, NULL);
    CHECK(format.image_channel_order == order && format.image_channel_data_type == CL_UNORM_INT8 &&
              width == w && height == h && depth == d,
          "%s: format 0x%x/0x%x %zux%zux%zu, want 0x%x %zux%zux%zu", what,
          format.image_channel_order, format.image_channel_data_type, width, height, depth, order,
          w, h, d);
}

static void check_queries(struct dx9_env *env)
{
    IUnknown *tex = make(env->d3d, NV_TEXTURE, D3DFMT_A8R8G8B8);
    IUnknown *cube = make(env->d3d, NV_CUBE, D3DFMT_A8);
    IUnknown *vol = make(env->d3d, NV_VOLUME, D3DFMT_A8R8G8B8);
    IUnknown *surf = make(env->d3d, NV_SURFACE, D3DFMT_X8R8G8B8);
    IUnknown *vb = make(env->d3d, NV_VERTEX_BUFFER, D3DFMT_UNKNOWN);
    ULONG before = test_refcount(tex);
    cl_mem m_tex, m_cube, m_vol, m_surf, m_vb, plain;
    IUnknown *resource = NULL;
    D3DCUBEMAP_FACES face = 0;
    UINT level = 99;
    size_t size = 0;
    cl_int err;

    m_tex = nv_create(env, NV_TEXTURE, tex, 0, 2, 0, &err);
    CHECK(test_refcount(tex) > before, "the memobj holds the texture");
    m_cube = nv_create(env, NV_CUBE, cube, D3DCUBEMAP_FACE_NEGATIVE_X, 1, 0, &err);
    m_vol = nv_create(env, NV_VOLUME, vol, 0, 1, 0, &err);
    m_surf = nv_create(env, NV_SURFACE, surf, 0, 0, 0, &err);
    m_vb = nv_create(env, NV_VERTEX_BUFFER, vb, 0, 0, 0, &err);
    REQUIRE(m_tex && m_cube && m_vol && m_surf && m_vb, "query objects created");
    check_image(m_tex, CL_RGBA, 4, 2, 0, "texture level 2");
    check_image(m_cube, CL_R, 8, 8, 0, "cube A8 level 1");
    check_image(m_vol, CL_RGBA, 8, 4, 2, "volume level 1");
    check_image(m_surf, CL_RGBA, 16, 8, 0, "surface");
    CHECK_ERR(clGetMemObjectInfo(m_vb, CL_MEM_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    CHECK(size == 256, "vertex buffer size %zu", size);

    CHECK_ERR(
        clGetMemObjectInfo(m_cube, CL_MEM_D3D9_RESOURCE_NV, sizeof(resource), &resource, NULL),
        CL_SUCCESS);
    CHECK(resource == cube, "CL_MEM_D3D9_RESOURCE_NV is the cube texture");
    CHECK_ERR(clGetMemObjectInfo(m_vb, CL_MEM_D3D9_RESOURCE_NV, sizeof(resource), &resource, NULL),
              CL_SUCCESS);
    CHECK(resource == vb, "CL_MEM_D3D9_RESOURCE_NV is the vertex buffer");
    CHECK_ERR(clGetImageInfo(m_tex, CL_IMAGE_D3D9_LEVEL_NV, sizeof(level), &level, NULL),
              CL_SUCCESS);
    CHECK(level == 2, "texture level %u", level);
    CHECK_ERR(clGetImageInfo(m_vol, CL_IMAGE_D3D9_LEVEL_NV, sizeof(level), &level, NULL),
              CL_SUCCESS);
    CHECK(level == 1, "volume level %u", level);
    CHECK_ERR(clGetImageInfo(m_cube, CL_IMAGE_D3D9_FACE_NV, sizeof(face), &face, NULL), CL_SUCCESS);
    CHECK(face == D3DCUBEMAP_FACE_NEGATIVE_X, "cube face %u", (unsigned)face);
    CHECK_ERR(clGetImageInfo(m_tex, CL_IMAGE_D3D9_FACE_NV, sizeof(face), &face, NULL),
              CL_INVALID_D3D9_RESOURCE_NV);
    CHECK_ERR(clGetImageInfo(m_surf, CL_IMAGE_D3D9_LEVEL_NV, sizeof(level), &level, NULL),
              CL_INVALID_D3D9_RESOURCE_NV);
    CHECK_ERR(clGetImageInfo(m_tex, CL_IMAGE_D3D9_LEVEL_NV, 1, &level, NULL), CL_INVALID_VALUE);
    plain = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK_ERR(clGetMemObjectInfo(plain, CL_MEM_D3D9_RESOURCE_NV, sizeof(resource), &resource, NULL),
              CL_INVALID_D3D9_RESOURCE_NV);

    /* Acquire and release errors, and the guard. */
    cl_mem pair[2] = {m_tex, m_vb};
    char host[256];
    CHECK_ERR(nv.acquire(env->queue, 0, NULL, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(nv.acquire(env->queue, 0, pair, 0, NULL, NULL), CL_INVALID_VALUE);
    CHECK_ERR(nv.acquire(env->queue, 1, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    CHECK_ERR(nv.acquire(env->queue, 1, &plain, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    CHECK_ERR(nv.acquire(NULL, 1, pair, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    CHECK_ERR(nv.acquire(env->queue, 1, pair, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    CHECK_ERR(nv.release(env->queue, 2, pair, 0, NULL, NULL), CL_D3D9_RESOURCE_NOT_ACQUIRED_NV);
    CHECK_ERR(clEnqueueReadBuffer(env->queue, m_vb, CL_TRUE, 0, 16, host, 0, NULL, NULL),
              CL_D3D9_RESOURCE_NOT_ACQUIRED_NV);
    CHECK_ERR(nv.acquire(env->queue, 2, pair, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(nv.acquire(env->queue, 1, &pair[1], 0, NULL, NULL),
              CL_D3D9_RESOURCE_ALREADY_ACQUIRED_NV);
    CHECK_ERR(clEnqueueReadBuffer(env->queue, m_vb, CL_TRUE, 0, 16, host, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(nv.release(env->queue, 2, pair, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);

    clReleaseMemObject(plain);
    clReleaseMemObject(m_tex), clReleaseMemObject(m_cube), clReleaseMemObject(m_vol);
    clReleaseMemObject(m_surf), clReleaseMemObject(m_vb);
    CHECK(test_refcount(tex) == before, "texture reference dropped with the memobj");
    IUnknown_Release(tex), IUnknown_Release(cube), IUnknown_Release(vol);
    IUnknown_Release(surf), IUnknown_Release(vb);
}

/* Errors particular to a kind: levels, faces, pools, usages, formats. */
static void check_kind_errors(struct dx9_env *env)
{
    IDirect3DDevice9 *d = env->d3d;
    IUnknown *tex = make(d, NV_TEXTURE, D3DFMT_A8R8G8B8), *cube = make(d, NV_CUBE, D3DFMT_A8R8G8B8),
             *vol = make(d, NV_VOLUME, D3DFMT_A8R8G8B8);
    IDirect3DTexture9 *plain_tex = NULL;
    IDirect3DVolumeTexture9 *static_vol = NULL;
    IDirect3DVertexBuffer9 *writeonly = NULL;
    IDirect3DSurface9 *sysmem = NULL, *level = NULL, *r5g6b5 = NULL;
    cl_int err = 0;

    CHECK(nv_create(env, NV_TEXTURE, tex, 0, 3, 0, &err) == NULL && err == CL_INVALID_VALUE,
          "texture level 3 of 3: %d", err);
    CHECK(nv_create(env, NV_CUBE, cube, 0, 2, 0, &err) == NULL && err == CL_INVALID_VALUE,
          "cube level 2 of 2: %d", err);
    CHECK(nv_create(env, NV_CUBE, cube, 6, 0, 0, &err) == NULL && err == CL_INVALID_VALUE,
          "cube face 6: %d", err);
    CHECK(nv_create(env, NV_VOLUME, vol, 0, 2, 0, &err) == NULL && err == CL_INVALID_VALUE,
          "volume level 2 of 2: %d", err);
    IDirect3DDevice9_CreateTexture(d, 16, 8, 1, 0, D3DFMT_A8R8G8B8, D3DPOOL_DEFAULT, &plain_tex,
                                   NULL);
    CHECK(nv_create(env, NV_TEXTURE, (IUnknown *)plain_tex, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "texture that is neither dynamic nor a render target: %d", err);
    IDirect3DDevice9_CreateVolumeTexture(d, 8, 4, 4, 1, 0, D3DFMT_A8R8G8B8, D3DPOOL_DEFAULT,
                                         &static_vol, NULL);
    CHECK(nv_create(env, NV_VOLUME, (IUnknown *)static_vol, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "volume texture that is not dynamic: %d", err);
    IDirect3DDevice9_CreateVertexBuffer(d, 64, D3DUSAGE_WRITEONLY, 0, D3DPOOL_DEFAULT, &writeonly,
                                        NULL);
    CHECK(nv_create(env, NV_VERTEX_BUFFER, (IUnknown *)writeonly, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "WRITEONLY vertex buffer: %d", err);
    IDirect3DDevice9_CreateOffscreenPlainSurface(d, 16, 8, D3DFMT_A8R8G8B8, D3DPOOL_SYSTEMMEM,
                                                 &sysmem, NULL);
    CHECK(nv_create(env, NV_SURFACE, (IUnknown *)sysmem, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "D3DPOOL_SYSTEMMEM surface: %d", err);
    IDirect3DTexture9_GetSurfaceLevel((IDirect3DTexture9 *)tex, 0, &level);
    CHECK(nv_create(env, NV_SURFACE, (IUnknown *)level, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_D3D9_RESOURCE_NV,
          "a texture level as a stand-alone surface: %d", err);
    IDirect3DDevice9_CreateOffscreenPlainSurface(d, 16, 8, D3DFMT_R5G6B5, D3DPOOL_DEFAULT, &r5g6b5,
                                                 NULL);
    CHECK(nv_create(env, NV_SURFACE, (IUnknown *)r5g6b5, 0, 0, 0, &err) == NULL &&
              err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
          "R5G6B5 surface: %d", err);
    REQUIRE(plain_tex && static_vol && writeonly && sysmem && level && r5g6b5,
            "error resources created");
    IDirect3DTexture9_Release(plain_tex), IDirect3DVolumeTexture9_Release(static_vol);
    IDirect3DVertexBuffer9_Release(writeonly), IDirect3DSurface9_Release(sysmem);
    IDirect3DSurface9_Release(level), IDirect3DSurface9_Release(r5g6b5);
    IUnknown_Release(tex), IUnknown_Release(cube), IUnknown_Release(vol);
}

/* A context made with 0x4026 is also an Intel DX9 media context: both families make objects
 * of one surface there, each acquired only through its own family. */
static void check_families(struct dx9_env *env)
{
    IUnknown *surface = make(env->d3d, NV_SURFACE, D3DFMT_A8R8G8B8);
    cl_int err = 0;
    cl_mem mine = nv_create(env, NV_SURFACE, surface, 0, 0, 0, &err);
    cl_mem intel = dx9.intel_create(env->context, 0, (IDirect3DSurface9 *)surface, NULL, 0, &err);

    REQUIRE(mine && intel, "NV and Intel objects of one surface: %d", err);
    CHECK_ERR(nv.acquire(env->queue, 1, &intel, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    CHECK_ERR(dx9.intel_acquire(env->queue, 1, &mine, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    /* One after the other: each family locks the surface itself while acquired. */
    CHECK_ERR(nv.acquire(env->queue, 1, &mine, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(nv.release(env->queue, 1, &mine, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(dx9.intel_acquire(env->queue, 1, &intel, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(dx9.intel_release(env->queue, 1, &intel, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    clReleaseMemObject(mine), clReleaseMemObject(intel);
    IUnknown_Release(surface);
}

int main(void)
{
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env, khr, other_device;

        nv_open(&env, kind);
        dx9_open(&khr, kind, false, DX9_NO_USER_SYNC);
        other_device.d3d = dx9_device(kind);
        if (kind == 0) {
            check_functions(env.platform);
            check_contexts(&env);
        }
        check_device_ids(&env);
        for (int k = 0; k < NV_KIND_COUNT; k++) {
            IUnknown *r = make(env.d3d, k, D3DFMT_A8R8G8B8);
            IUnknown *foreign = make(other_device.d3d, k, D3DFMT_A8R8G8B8);
            /* A resource of another kind (surfaces and render targets are one type). */
            IUnknown *wrong = make(env.d3d,
                                   k == NV_VERTEX_BUFFER  ? NV_INDEX_BUFFER
                                   : k == NV_INDEX_BUFFER ? NV_VOLUME
                                                          : NV_VERTEX_BUFFER,
                                   D3DFMT_A8R8G8B8);
            check_create_errors(&env, &khr, k, r, foreign, wrong);
            IUnknown_Release(r), IUnknown_Release(foreign), IUnknown_Release(wrong);
        }
        check_kind_errors(&env);
        check_queries(&env);
        check_families(&env);
        IDirect3DDevice9_Release(other_device.d3d);
        dx9_close(&khr);
        dx9_close(&env);
    }
    return test_finish("nv_d3d9_api");
}
