/* The cl_nv_d3d9_sharing backend: vertex and index buffers (buffers), stand-alone surfaces,
 * texture levels and cube texture faces (2D images), volume texture levels (3D images) of a
 * D3D9 or D3D9Ex device, on NVIDIA's format table. Contexts are made with
 * CL_CONTEXT_D3D9_DEVICE_NV, the value cl_intel_dx9_media_sharing took over for its D3D9
 * property: the DX9 media backend opens them, and this family accepts them. Surfaces lock
 * through src/dx9/d3d9_surface.c as DX9 media surfaces do; volumes with LockBox, buffers with
 * Lock. NVIDIA's text requires D3DPOOL_DEFAULT; of those, what the copy engine cannot read is
 * refused at creation with CL_INVALID_D3D9_RESOURCE_NV: buffers with D3DUSAGE_WRITEONLY,
 * texture levels that are neither dynamic nor render targets, volume textures that are not
 * dynamic. */
#include "engine/acquire.h"
#include "core/com.h"
#include "core/devices.h"
#include "core/info.h"
#include "engine/lifetime.h"
#include "formats/formats.h"
#include "core/registry.h"
#include "core/route.h"
#include "dx9/d3d9_device.h"
#include "dx9/d3d9_surface.h"

#include <d3d9.h>
#include <stdlib.h>
#include <dxcl/cl_nv_d3d9.h>

extern const struct dxcl_backend dxcl_dx9_backend;
extern const struct dxcl_backend dxcl_nv_d3d9_backend;

enum nv_kind { NV_VERTEX_BUFFER, NV_INDEX_BUFFER, NV_SURFACE, NV_TEXTURE, NV_CUBE, NV_VOLUME };

static const struct {
    const char *name;
    const IID *iid;
} kinds[] = {
    [NV_VERTEX_BUFFER] = {"vertex buffer", &IID_IDirect3DVertexBuffer9},
    [NV_INDEX_BUFFER] = {"index buffer", &IID_IDirect3DIndexBuffer9},
    [NV_SURFACE] = {"surface", &IID_IDirect3DSurface9},
    [NV_TEXTURE] = {"texture", &IID_IDirect3DTexture9},
    [NV_CUBE] = {"cube texture", &IID_IDirect3DCubeTexture9},
    [NV_VOLUME] = {"volume texture", &IID_IDirect3DVolumeTexture9},
};

/* What the copy engine locks: a surface (its own, a texture level or a cube face, the last
 * two referenced here), a volume level (referenced), or the buffer itself. */
struct nv_surface {
    enum nv_kind kind;
    struct dxcl_d3d9_surface surface;
    IDirect3DSurface9 *level;
    IDirect3DVolume9 *volume;
};

struct nv_args {
    enum nv_kind kind;
    void *resource;
    D3DCUBEMAP_FACES face;
    UINT level;
};

static cl_int resource_invalid(const struct nv_args *args, const char *why)
{
    return DXCL_FAIL(CL_INVALID_D3D9_RESOURCE_NV, "%s %p: %s", kinds[args->kind].name,
                     args->resource, why);
}

/* ---- Devices and contexts ---- */

/* The adapter name names a display device (EnumDisplayDevices). */
static bool adapter_name_exists(const char *name)
{
    DISPLAY_DEVICEA display = {.cb = sizeof(display)};

    for (DWORD i = 0; EnumDisplayDevicesA(NULL, i, &display, 0); i++)
        if (!strcmp(display.DeviceName, name))
            return true;
    return false;
}

static cl_int CL_API_CALL get_device_ids(cl_platform_id platform, cl_d3d9_device_source_nv source,
                                         void *object, cl_d3d9_device_set_nv set,
                                         cl_uint num_entries, cl_device_id *devices,
                                         cl_uint *num_devices)
{
    DXCL_ROUTE(platform, get_device_ids,
               (platform, source, object, set, num_entries, devices, num_devices));
    IUnknown *device;
    LUID luid;
    bool have_luid = false;
    cl_int err = dxcl_check_device_query(platform, num_entries, devices, num_devices);

    if (err != CL_SUCCESS)
        return dxcl_log_result("clGetDeviceIDsFromD3D9NV", err);
    if (source != CL_D3D9_DEVICE_NV && source != CL_D3D9_ADAPTER_NAME_NV)
        err = DXCL_FAIL(CL_INVALID_VALUE, "d3d_device_source 0x%x", source);
    else if (set != CL_PREFERRED_DEVICES_FOR_D3D9_NV && set != CL_ALL_DEVICES_FOR_D3D9_NV)
        err = DXCL_FAIL(CL_INVALID_VALUE, "d3d_device_set 0x%x", set);
    else if (source == CL_D3D9_DEVICE_NV &&
             FAILED(dxcl_query_interface(object, &IID_IDirect3DDevice9, (void **)&device)))
        err = DXCL_FAIL(CL_DEVICE_NOT_FOUND, "%p is not a D3D9 device", object);
    else if (source == CL_D3D9_ADAPTER_NAME_NV && (!object || !adapter_name_exists(object)))
        err = DXCL_FAIL(CL_DEVICE_NOT_FOUND, "no display adapter named %s",
                        object ? (const char *)object : "(null)");
    if (err != CL_SUCCESS)
        return dxcl_log_result("clGetDeviceIDsFromD3D9NV", err);
    if (source == CL_D3D9_DEVICE_NV) {
        have_luid = dxcl_d3d9ex_luid(object, &luid);
        IUnknown_Release(device);
    }
    return dxcl_log_result("clGetDeviceIDsFromD3D9NV",
                           dxcl_interop_devices(platform, have_luid ? &luid : NULL,
                                                set == CL_PREFERRED_DEVICES_FOR_D3D9_NV,
                                                num_entries, devices, num_devices));
}

/* NVIDIA's context property has the value of Intel's D3D9 device property. */
static bool nv_accepts_context(const struct dxcl_context *ctx)
{
    return ctx->backend == &dxcl_dx9_backend && ctx->device_property == CL_CONTEXT_D3D9_DEVICE_NV;
}

/* ---- Creation ---- */

static cl_int image_format(const struct nv_args *args, D3DFORMAT d3d9,
                           struct dxcl_shared_desc *desc)
{
    if (!dxcl_format_from_d3d9_nv(d3d9, &desc->format))
        return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                         "%s %p: D3D9 format 0x%x is not in NVIDIA's table", kinds[args->kind].name,
                         args->resource, (unsigned)d3d9);
    return CL_SUCCESS;
}

static cl_int describe_buffer(const struct nv_args *args, struct dxcl_shared_desc *desc)
{
    D3DVERTEXBUFFER_DESC vb;
    D3DINDEXBUFFER_DESC ib;
    D3DPOOL pool;
    DWORD usage;

    if (args->kind == NV_VERTEX_BUFFER) {
        IDirect3DVertexBuffer9_GetDesc((IDirect3DVertexBuffer9 *)args->resource, &vb);
        pool = vb.Pool, usage = vb.Usage, desc->size = vb.Size;
    } else {
        IDirect3DIndexBuffer9_GetDesc((IDirect3DIndexBuffer9 *)args->resource, &ib);
        pool = ib.Pool, usage = ib.Usage, desc->size = ib.Size;
    }
    if (pool != D3DPOOL_DEFAULT)
        return resource_invalid(args, "not in D3DPOOL_DEFAULT");
    if (usage & D3DUSAGE_WRITEONLY)
        return resource_invalid(args, "D3DUSAGE_WRITEONLY: its contents cannot be read");
    desc->type = CL_MEM_OBJECT_BUFFER;
    return CL_SUCCESS;
}

/* Stand-alone surfaces, texture levels and cube faces: the surface to lock (referenced). */
static cl_int level_surface(const struct nv_args *args, IDirect3DSurface9 **surface)
{
    IDirect3DBaseTexture9 *texture;
    D3DSURFACE_DESC level;
    UINT levels;
    HRESULT hr;

    if (args->kind == NV_SURFACE) {
        *surface = args->resource;
        if (SUCCEEDED(IDirect3DSurface9_GetContainer(*surface, &IID_IDirect3DBaseTexture9,
                                                     (void **)&texture))) {
            IDirect3DBaseTexture9_Release(texture);
            return resource_invalid(args, "a texture level, not a stand-alone surface");
        }
        IDirect3DSurface9_AddRef(*surface);
        return CL_SUCCESS;
    }
    levels = IDirect3DBaseTexture9_GetLevelCount((IDirect3DBaseTexture9 *)args->resource);
    if (args->level >= levels)
        return DXCL_FAIL(CL_INVALID_VALUE, "miplevel %u of a %u-level %s", args->level, levels,
                         kinds[args->kind].name);
    if (args->kind == NV_CUBE && (unsigned)args->face > D3DCUBEMAP_FACE_NEGATIVE_Z)
        return DXCL_FAIL(CL_INVALID_VALUE, "facetype %u is not a cube face", (unsigned)args->face);
    if (args->kind == NV_TEXTURE) {
        IDirect3DTexture9_GetLevelDesc((IDirect3DTexture9 *)args->resource, args->level, &level);
        hr = IDirect3DTexture9_GetSurfaceLevel((IDirect3DTexture9 *)args->resource, args->level,
                                               surface);
    } else {
        IDirect3DCubeTexture9_GetLevelDesc((IDirect3DCubeTexture9 *)args->resource, args->level,
                                           &level);
        hr = IDirect3DCubeTexture9_GetCubeMapSurface((IDirect3DCubeTexture9 *)args->resource,
                                                     args->face, args->level, surface);
    }
    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "no surface for level %u (0x%08lx)", args->level,
                         (unsigned long)hr);
    return CL_SUCCESS;
}

static cl_int describe_surface(const struct nv_args *args, struct nv_surface *s,
                               struct dxcl_shared_desc *desc)
{
    IDirect3DSurface9 *surface;
    D3DSURFACE_DESC sd;
    cl_int err = level_surface(args, &surface);

    if (err != CL_SUCCESS)
        return err;
    s->level = surface;
    IDirect3DSurface9_GetDesc(surface, &sd);
    if (sd.Pool != D3DPOOL_DEFAULT)
        return resource_invalid(args, "not in D3DPOOL_DEFAULT");
    if (!dxcl_d3d9_surface_reachable(surface))
        return resource_invalid(args, "a level that is neither dynamic nor a render target "
                                      "cannot be read back");
    if ((err = image_format(args, sd.Format, desc)) != CL_SUCCESS)
        return err;
    if (FAILED(dxcl_d3d9_surface_init(&s->surface, surface)))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "no system-memory copy of %p", (void *)surface);
    desc->type = CL_MEM_OBJECT_IMAGE2D;
    desc->width = sd.Width;
    desc->height = sd.Height;
    desc->depth = 1;
    return CL_SUCCESS;
}

static cl_int describe_volume(const struct nv_args *args, struct nv_surface *s,
                              struct dxcl_shared_desc *desc)
{
    IDirect3DVolumeTexture9 *texture = args->resource;
    UINT levels = IDirect3DVolumeTexture9_GetLevelCount(texture);
    D3DVOLUME_DESC vd;
    cl_int err;

    if (args->level >= levels)
        return DXCL_FAIL(CL_INVALID_VALUE, "miplevel %u of a %u-level volume texture", args->level,
                         levels);
    IDirect3DVolumeTexture9_GetLevelDesc(texture, args->level, &vd);
    if (vd.Pool != D3DPOOL_DEFAULT)
        return resource_invalid(args, "not in D3DPOOL_DEFAULT");
    if (!(vd.Usage & D3DUSAGE_DYNAMIC))
        return resource_invalid(args, "not D3DUSAGE_DYNAMIC: its levels cannot be locked");
    if ((err = image_format(args, vd.Format, desc)) != CL_SUCCESS)
        return err;
    if (FAILED(IDirect3DVolumeTexture9_GetVolumeLevel(texture, args->level, &s->volume)))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "no volume for level %u", args->level);
    desc->type = CL_MEM_OBJECT_IMAGE3D;
    desc->width = vd.Width;
    desc->height = vd.Height;
    desc->depth = vd.Depth;
    return CL_SUCCESS;
}

static void free_nv_surface(struct nv_surface *s)
{
    dxcl_d3d9_surface_free(&s->surface);
    if (s->level)
        IDirect3DSurface9_Release(s->level);
    if (s->volume)
        IDirect3DVolume9_Release(s->volume);
    free(s);
}

static cl_int nv_prepare(struct dxcl_context *ctx, const void *arg, struct dxcl_shared_desc *desc)
{
    const struct nv_args *args = arg;
    IDirect3DResource9 *resource;
    struct nv_surface *s;
    bool same;
    cl_int err;

    if (FAILED(dxcl_query_interface(args->resource, kinds[args->kind].iid, (void **)&resource)))
        return resource_invalid(args, "not of this type");
    same = dxcl_d3d9_resource_of(resource, ctx->device);
    IDirect3DResource9_Release(resource);
    if (!same)
        return resource_invalid(args, "not made by the context's device");
    if (!(s = calloc(1, sizeof(*s))))
        return CL_OUT_OF_HOST_MEMORY;
    s->kind = args->kind;
    if (args->kind == NV_VERTEX_BUFFER || args->kind == NV_INDEX_BUFFER)
        err = describe_buffer(args, desc);
    else if (args->kind == NV_VOLUME)
        err = describe_volume(args, s, desc);
    else
        err = describe_surface(args, s, desc);
    if (err != CL_SUCCESS) {
        free_nv_surface(s);
        return err;
    }
    desc->resource = (IUnknown *)args->resource;
    desc->subresource = args->level;
    desc->surface_subresource = args->level;
    desc->plane = args->kind == NV_CUBE ? (unsigned)args->face : 0;
    desc->unique = true; /* "if a cl_mem from <resource> has already been created" */
    desc->surface_data = s;
    return CL_SUCCESS;
}

static cl_mem create(const char *name, cl_context context, cl_mem_flags flags, enum nv_kind kind,
                     void *resource, D3DCUBEMAP_FACES face, UINT level, cl_int *errcode_ret)
{
    const struct nv_args args = {kind, resource, face, level};

    return dxcl_create_shared(name, context, &dxcl_nv_d3d9_backend, flags, nv_prepare, &args,
                              errcode_ret);
}

static cl_mem CL_API_CALL create_vertex_buffer(cl_context context, cl_mem_flags flags,
                                               IDirect3DVertexBuffer9 *resource,
                                               cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_vertex_buffer,
               (context, flags, resource, errcode_ret));
    return create("clCreateFromD3D9VertexBufferNV", context, flags, NV_VERTEX_BUFFER, resource, 0,
                  0, errcode_ret);
}

static cl_mem CL_API_CALL create_index_buffer(cl_context context, cl_mem_flags flags,
                                              IDirect3DIndexBuffer9 *resource, cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_index_buffer,
               (context, flags, resource, errcode_ret));
    return create("clCreateFromD3D9IndexBufferNV", context, flags, NV_INDEX_BUFFER, resource, 0, 0,
                  errcode_ret);
}

static cl_mem CL_API_CALL create_surface(cl_context context, cl_mem_flags flags,
                                         IDirect3DSurface9 *resource, cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_surface,
               (context, flags, resource, errcode_ret));
    return create("clCreateFromD3D9SurfaceNV", context, flags, NV_SURFACE, resource, 0, 0,
                  errcode_ret);
}

static cl_mem CL_API_CALL create_texture(cl_context context, cl_mem_flags flags,
                                         IDirect3DTexture9 *resource, UINT miplevel,
                                         cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_texture,
               (context, flags, resource, miplevel, errcode_ret));
    return create("clCreateFromD3D9TextureNV", context, flags, NV_TEXTURE, resource, 0, miplevel,
                  errcode_ret);
}

static cl_mem CL_API_CALL create_cube_texture(cl_context context, cl_mem_flags flags,
                                              IDirect3DCubeTexture9 *resource,
                                              D3DCUBEMAP_FACES facetype, UINT miplevel,
                                              cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_cube_texture,
               (context, flags, resource, facetype, miplevel, errcode_ret));
    return create("clCreateFromD3D9CubeTextureNV", context, flags, NV_CUBE, resource, facetype,
                  miplevel, errcode_ret);
}

static cl_mem CL_API_CALL create_volume_texture(cl_context context, cl_mem_flags flags,
                                                IDirect3DVolumeTexture9 *resource, UINT miplevel,
                                                cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_volume_texture,
               (context, flags, resource, miplevel, errcode_ret));
    return create("clCreateFromD3D9VolumeTextureNV", context, flags, NV_VOLUME, resource, 0,
                  miplevel, errcode_ret);
}

/* ---- The copy engine's half ---- */

static cl_int lock_buffer(struct dxcl_surface *surface, struct nv_surface *s)
{
    void *data = NULL;
    HRESULT hr;
    UINT size;

    if (s->kind == NV_VERTEX_BUFFER) {
        D3DVERTEXBUFFER_DESC desc;
        IDirect3DVertexBuffer9 *vb = (IDirect3DVertexBuffer9 *)surface->resource;
        IDirect3DVertexBuffer9_GetDesc(vb, &desc);
        size = desc.Size;
        hr = IDirect3DVertexBuffer9_Lock(vb, 0, 0, &data, 0);
    } else {
        D3DINDEXBUFFER_DESC desc;
        IDirect3DIndexBuffer9 *ib = (IDirect3DIndexBuffer9 *)surface->resource;
        IDirect3DIndexBuffer9_GetDesc(ib, &desc);
        size = desc.Size;
        hr = IDirect3DIndexBuffer9_Lock(ib, 0, 0, &data, 0);
    }
    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "locking %s %p failed (0x%08lx)", kinds[s->kind].name,
                         (void *)surface->resource, (unsigned long)hr);
    surface->mapping = (struct dxcl_mapping){data, size, size};
    return CL_SUCCESS;
}

static cl_int nv_copy_to_host(struct dxcl_surface *surface)
{
    struct nv_surface *s = surface->backend_data;
    D3DLOCKED_BOX box;
    HRESULT hr;

    if (s->kind == NV_VERTEX_BUFFER || s->kind == NV_INDEX_BUFFER)
        return lock_buffer(surface, s);
    if (s->kind != NV_VOLUME)
        return dxcl_d3d9_surface_lock(&s->surface, &surface->mapping);
    if (FAILED(hr = IDirect3DVolume9_LockBox(s->volume, &box, NULL, 0)))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "locking volume %p failed (0x%08lx)",
                         (void *)s->volume, (unsigned long)hr);
    surface->mapping =
        (struct dxcl_mapping){box.pBits, (size_t)box.RowPitch, (size_t)box.SlicePitch};
    return CL_SUCCESS;
}

/* Buffers and volumes are locked in place: the data is written already. */
static cl_int nv_unmap_host(struct dxcl_surface *surface, bool write_back)
{
    struct nv_surface *s = surface->backend_data;
    cl_int err = CL_SUCCESS;

    if (s->kind == NV_VERTEX_BUFFER)
        IDirect3DVertexBuffer9_Unlock((IDirect3DVertexBuffer9 *)surface->resource);
    else if (s->kind == NV_INDEX_BUFFER)
        IDirect3DIndexBuffer9_Unlock((IDirect3DIndexBuffer9 *)surface->resource);
    else if (s->kind == NV_VOLUME)
        IDirect3DVolume9_UnlockBox(s->volume);
    else
        err = dxcl_d3d9_surface_unlock(&s->surface, write_back);
    surface->mapping.data = NULL;
    return err;
}

static void nv_destroy_surface(struct dxcl_surface *surface)
{
    if (surface->backend_data)
        free_nv_surface(surface->backend_data);
    surface->backend_data = NULL;
}

/* CL_IMAGE_D3D9_LEVEL_NV (textures, cube and volume textures) and CL_IMAGE_D3D9_FACE_NV (cube
 * textures). */
static cl_int nv_query(const struct dxcl_memobj *mem, bool image, cl_uint param, size_t size,
                       void *value, size_t *size_ret)
{
    const struct nv_surface *s = mem ? mem->surface->backend_data : NULL;
    D3DCUBEMAP_FACES face;
    UINT level;

    if (!image || (param != CL_IMAGE_D3D9_LEVEL_NV && param != CL_IMAGE_D3D9_FACE_NV))
        return DXCL_NOT_MY_QUERY;
    if (param == CL_IMAGE_D3D9_FACE_NV) {
        if (!s || s->kind != NV_CUBE)
            return DXCL_FAIL(CL_INVALID_D3D9_RESOURCE_NV, "not made from a D3D9 cube texture");
        face = (D3DCUBEMAP_FACES)mem->desc.plane;
        return dxcl_info_return(&face, sizeof(face), size, value, size_ret);
    }
    if (!s || (s->kind != NV_TEXTURE && s->kind != NV_CUBE && s->kind != NV_VOLUME))
        return DXCL_FAIL(CL_INVALID_D3D9_RESOURCE_NV, "not made from a D3D9 texture");
    level = mem->desc.subresource;
    return dxcl_info_return(&level, sizeof(level), size, value, size_ret);
}

/* Objects of this family only: NVIDIA's command types and errors. */
DXCL_TRANSFER_ENTRY(acquire, dxcl_nv_d3d9_backend, true, CL_COMMAND_ACQUIRE_D3D9_OBJECTS_NV)
DXCL_TRANSFER_ENTRY(release, dxcl_nv_d3d9_backend, false, CL_COMMAND_RELEASE_D3D9_OBJECTS_NV)

const struct dxcl_backend dxcl_nv_d3d9_backend = {
    .name = "NV D3D9",
    .accepts_context = nv_accepts_context,
    .resource_query = CL_MEM_D3D9_RESOURCE_NV,
    .query = nv_query,
    .errors = {CL_INVALID_D3D9_DEVICE_NV, CL_INVALID_D3D9_RESOURCE_NV,
               CL_D3D9_RESOURCE_ALREADY_ACQUIRED_NV, CL_D3D9_RESOURCE_NOT_ACQUIRED_NV},
    .copy_to_host = nv_copy_to_host,
    .unmap_host = nv_unmap_host,
    .destroy_surface = nv_destroy_surface,
};
DXCL_REGISTER_BACKEND(dxcl_nv_d3d9_backend)

static const struct dxcl_ext_function functions[] = {
    {"clGetDeviceIDsFromD3D9NV", (void *)get_device_ids},
    {"clCreateFromD3D9VertexBufferNV", (void *)create_vertex_buffer},
    {"clCreateFromD3D9IndexBufferNV", (void *)create_index_buffer},
    {"clCreateFromD3D9SurfaceNV", (void *)create_surface},
    {"clCreateFromD3D9TextureNV", (void *)create_texture},
    {"clCreateFromD3D9CubeTextureNV", (void *)create_cube_texture},
    {"clCreateFromD3D9VolumeTextureNV", (void *)create_volume_texture},
    {"clEnqueueAcquireD3D9ObjectsNV", (void *)acquire},
    {"clEnqueueReleaseD3D9ObjectsNV", (void *)release},
    {NULL, NULL}};
/* NVIDIA assigned its extension no version. */
static const cl_context_properties nv_properties[] = {CL_CONTEXT_D3D9_DEVICE_NV, 0};
static const struct dxcl_extension nv_d3d9_sharing = {.name = "cl_nv_d3d9_sharing",
                                                      .version = CL_MAKE_VERSION(0, 0, 0),
                                                      .functions = functions,
                                                      .context_properties = nv_properties};
DXCL_REGISTER_EXTENSION(nv_d3d9_sharing)
