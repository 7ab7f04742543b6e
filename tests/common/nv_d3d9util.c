#include "nv_d3d9util.h"

#include <stdlib.h>

struct nv_fns nv;

static void *nv_function(cl_platform_id platform, const char *name)
{
    void *fn = clGetExtensionFunctionAddressForPlatform(platform, name);

    REQUIRE(fn != NULL, "%s not found", name);
    return fn;
}

void nv_open(struct dx9_env *env, enum dx9_kind kind)
{
    cl_platform_id platform = test_platform();

    nv.get_device_ids = nv_function(platform, "clGetDeviceIDsFromD3D9NV");
    nv.create_vertex_buffer = nv_function(platform, "clCreateFromD3D9VertexBufferNV");
    nv.create_index_buffer = nv_function(platform, "clCreateFromD3D9IndexBufferNV");
    nv.create_surface = nv_function(platform, "clCreateFromD3D9SurfaceNV");
    nv.create_texture = nv_function(platform, "clCreateFromD3D9TextureNV");
    nv.create_cube_texture = nv_function(platform, "clCreateFromD3D9CubeTextureNV");
    nv.create_volume_texture = nv_function(platform, "clCreateFromD3D9VolumeTextureNV");
    nv.acquire = nv_function(platform, "clEnqueueAcquireD3D9ObjectsNV");
    nv.release = nv_function(platform, "clEnqueueReleaseD3D9ObjectsNV");
    dx9_open_property(env, kind, CL_CONTEXT_D3D9_DEVICE_NV, DX9_NO_USER_SYNC);
}

static const char *const kind_names[NV_KIND_COUNT] = {
    "vertex buffer", "index buffer", "surface", "render target", "dynamic texture",
    "RT texture",    "cube texture", "RT cube", "volume texture"};

const char *nv_kind_name(enum nv_kind kind)
{
    return kind_names[kind];
}

bool nv_kind_is_buffer(enum nv_kind kind)
{
    return kind == NV_VERTEX_BUFFER || kind == NV_INDEX_BUFFER;
}

IUnknown *nv_resource(IDirect3DDevice9 *device, enum nv_kind kind, D3DFORMAT format, UINT width,
                      UINT height, UINT depth, HRESULT *hr)
{
    void *r = NULL;

    switch (kind) {
    case NV_VERTEX_BUFFER:
        *hr =
            IDirect3DDevice9_CreateVertexBuffer(device, width, D3DUSAGE_DYNAMIC, 0, D3DPOOL_DEFAULT,
                                                (IDirect3DVertexBuffer9 **)&r, NULL);
        break;
    case NV_INDEX_BUFFER:
        *hr =
            IDirect3DDevice9_CreateIndexBuffer(device, width, D3DUSAGE_DYNAMIC, D3DFMT_INDEX16,
                                               D3DPOOL_DEFAULT, (IDirect3DIndexBuffer9 **)&r, NULL);
        break;
    case NV_SURFACE:
        *hr = IDirect3DDevice9_CreateOffscreenPlainSurface(
            device, width, height, format, D3DPOOL_DEFAULT, (IDirect3DSurface9 **)&r, NULL);
        break;
    case NV_RT_SURFACE:
        *hr =
            IDirect3DDevice9_CreateRenderTarget(device, width, height, format, D3DMULTISAMPLE_NONE,
                                                0, FALSE, (IDirect3DSurface9 **)&r, NULL);
        break;
    case NV_TEXTURE:
    case NV_RT_TEXTURE:
        *hr = IDirect3DDevice9_CreateTexture(
            device, width, height, kind == NV_TEXTURE ? 3 : 1,
            kind == NV_TEXTURE ? D3DUSAGE_DYNAMIC : D3DUSAGE_RENDERTARGET, format, D3DPOOL_DEFAULT,
            (IDirect3DTexture9 **)&r, NULL);
        break;
    case NV_CUBE:
    case NV_RT_CUBE:
        *hr = IDirect3DDevice9_CreateCubeTexture(
            device, width, kind == NV_CUBE ? 2 : 1,
            kind == NV_CUBE ? D3DUSAGE_DYNAMIC : D3DUSAGE_RENDERTARGET, format, D3DPOOL_DEFAULT,
            (IDirect3DCubeTexture9 **)&r, NULL);
        break;
    default:
        *hr = IDirect3DDevice9_CreateVolumeTexture(device, width, height, depth, 2,
                                                   D3DUSAGE_DYNAMIC, format, D3DPOOL_DEFAULT,
                                                   (IDirect3DVolumeTexture9 **)&r, NULL);
        break;
    }
    return SUCCEEDED(*hr) ? r : NULL;
}

cl_mem nv_create(struct dx9_env *env, enum nv_kind kind, IUnknown *resource, D3DCUBEMAP_FACES face,
                 UINT level, cl_mem_flags flags, cl_int *err)
{
    cl_context c = env->context;

    switch (kind) {
    case NV_VERTEX_BUFFER:
        return nv.create_vertex_buffer(c, flags, (IDirect3DVertexBuffer9 *)resource, err);
    case NV_INDEX_BUFFER:
        return nv.create_index_buffer(c, flags, (IDirect3DIndexBuffer9 *)resource, err);
    case NV_SURFACE:
    case NV_RT_SURFACE:
        return nv.create_surface(c, flags, (IDirect3DSurface9 *)resource, err);
    case NV_TEXTURE:
    case NV_RT_TEXTURE:
        return nv.create_texture(c, flags, (IDirect3DTexture9 *)resource, level, err);
    case NV_CUBE:
    case NV_RT_CUBE:
        return nv.create_cube_texture(c, flags, (IDirect3DCubeTexture9 *)resource, face, level,
                                      err);
    default:
        return nv.create_volume_texture(c, flags, (IDirect3DVolumeTexture9 *)resource, level, err);
    }
}

void nv_level_size(enum nv_kind kind, UINT width, UINT height, UINT depth, UINT level, UINT *w,
                   UINT *h, UINT *d)
{
    *w = width >> level ? width >> level : 1;
    *h = height >> level ? height >> level : 1;
    *d = kind == NV_VOLUME ? (depth >> level ? depth >> level : 1) : 1;
    if (nv_kind_is_buffer(kind))
        *w = width, *h = 1, *d = 1;
    if (kind == NV_CUBE || kind == NV_RT_CUBE)
        *h = *w;
}

/* The surface of a level (referenced); NULL for buffers and volumes. */
static IDirect3DSurface9 *level_surface(IUnknown *resource, enum nv_kind kind,
                                        D3DCUBEMAP_FACES face, UINT level)
{
    IDirect3DSurface9 *s = NULL;

    if (kind == NV_SURFACE || kind == NV_RT_SURFACE) {
        s = (IDirect3DSurface9 *)resource;
        IDirect3DSurface9_AddRef(s);
    } else if (kind == NV_TEXTURE || kind == NV_RT_TEXTURE) {
        IDirect3DTexture9_GetSurfaceLevel((IDirect3DTexture9 *)resource, level, &s);
    } else if (kind == NV_CUBE || kind == NV_RT_CUBE) {
        IDirect3DCubeTexture9_GetCubeMapSurface((IDirect3DCubeTexture9 *)resource, face, level, &s);
    }
    return s;
}

static void copy_rows(char *mapped, size_t pitch, size_t slice_pitch, char *data, size_t row,
                      UINT rows, UINT slices, bool to_mapped)
{
    for (UINT z = 0; z < slices; z++)
        for (UINT y = 0; y < rows; y++) {
            char *m = mapped + z * slice_pitch + y * pitch;
            char *p = data + ((size_t)z * rows + y) * row;
            memcpy(to_mapped ? m : p, to_mapped ? p : m, row);
        }
}

static bool transfer_surface(IDirect3DSurface9 *surface, unsigned bpp, void *data, bool write)
{
    D3DSURFACE_DESC desc;
    IDirect3DSurface9 *target = surface, *sysmem = NULL;
    IDirect3DDevice9 *device;
    D3DLOCKED_RECT locked;
    HRESULT hr = S_OK;

    IDirect3DSurface9_GetDesc(surface, &desc);
    IDirect3DSurface9_GetDevice(surface, &device);
    if (desc.Usage & D3DUSAGE_RENDERTARGET) {
        hr = IDirect3DDevice9_CreateOffscreenPlainSurface(
            device, desc.Width, desc.Height, desc.Format, D3DPOOL_SYSTEMMEM, &sysmem, NULL);
        if (SUCCEEDED(hr) && !write)
            hr = IDirect3DDevice9_GetRenderTargetData(device, surface, sysmem);
        target = sysmem;
    }
    if (SUCCEEDED(hr) && SUCCEEDED(hr = IDirect3DSurface9_LockRect(target, &locked, NULL, 0))) {
        copy_rows(locked.pBits, locked.Pitch, 0, data, (size_t)desc.Width * bpp, desc.Height, 1,
                  write);
        IDirect3DSurface9_UnlockRect(target);
        if (sysmem && write)
            hr = IDirect3DDevice9_UpdateSurface(device, sysmem, NULL, surface, NULL);
    }
    if (sysmem)
        IDirect3DSurface9_Release(sysmem);
    IDirect3DDevice9_Release(device);
    CHECK(SUCCEEDED(hr), "D3D9 %s of a surface: 0x%08lx", write ? "write" : "read",
          (unsigned long)hr);
    return SUCCEEDED(hr);
}

static bool transfer(IUnknown *resource, enum nv_kind kind, D3DCUBEMAP_FACES face, UINT level,
                     unsigned bpp, void *data, bool write)
{
    IDirect3DSurface9 *surface = level_surface(resource, kind, face, level);
    IDirect3DVolume9 *volume;
    D3DVOLUME_DESC vd;
    D3DLOCKED_BOX box;
    void *mapped;
    HRESULT hr;
    bool ok;

    if (surface) {
        ok = transfer_surface(surface, bpp, data, write);
        IDirect3DSurface9_Release(surface);
        return ok;
    }
    if (kind == NV_VERTEX_BUFFER || kind == NV_INDEX_BUFFER) {
        UINT size;
        if (kind == NV_VERTEX_BUFFER) {
            D3DVERTEXBUFFER_DESC d;
            IDirect3DVertexBuffer9_GetDesc((IDirect3DVertexBuffer9 *)resource, &d);
            size = d.Size;
            hr = IDirect3DVertexBuffer9_Lock((IDirect3DVertexBuffer9 *)resource, 0, 0, &mapped, 0);
        } else {
            D3DINDEXBUFFER_DESC d;
            IDirect3DIndexBuffer9_GetDesc((IDirect3DIndexBuffer9 *)resource, &d);
            size = d.Size;
            hr = IDirect3DIndexBuffer9_Lock((IDirect3DIndexBuffer9 *)resource, 0, 0, &mapped, 0);
        }
        if (SUCCEEDED(hr)) {
            memcpy(write ? mapped : data, write ? data : mapped, size);
            if (kind == NV_VERTEX_BUFFER)
                IDirect3DVertexBuffer9_Unlock((IDirect3DVertexBuffer9 *)resource);
            else
                IDirect3DIndexBuffer9_Unlock((IDirect3DIndexBuffer9 *)resource);
        }
        CHECK(SUCCEEDED(hr), "D3D9 lock of a %s: 0x%08lx", nv_kind_name(kind), (unsigned long)hr);
        return SUCCEEDED(hr);
    }
    hr =
        IDirect3DVolumeTexture9_GetVolumeLevel((IDirect3DVolumeTexture9 *)resource, level, &volume);
    if (SUCCEEDED(hr)) {
        IDirect3DVolume9_GetDesc(volume, &vd);
        if (SUCCEEDED(hr = IDirect3DVolume9_LockBox(volume, &box, NULL, 0))) {
            copy_rows(box.pBits, box.RowPitch, box.SlicePitch, data, (size_t)vd.Width * bpp,
                      vd.Height, vd.Depth, write);
            IDirect3DVolume9_UnlockBox(volume);
        }
        IDirect3DVolume9_Release(volume);
    }
    CHECK(SUCCEEDED(hr), "D3D9 LockBox: 0x%08lx", (unsigned long)hr);
    return SUCCEEDED(hr);
}

bool nv_write(IUnknown *resource, enum nv_kind kind, D3DCUBEMAP_FACES face, UINT level,
              unsigned bpp, const void *data)
{
    return transfer(resource, kind, face, level, bpp, (void *)data, true);
}

bool nv_read(IUnknown *resource, enum nv_kind kind, D3DCUBEMAP_FACES face, UINT level, unsigned bpp,
             void *data)
{
    return transfer(resource, kind, face, level, bpp, data, false);
}
