/* What both D3D9 families ask of a D3D9 device (d3d9_device.h): a D3D9Ex adapter's LUID, whether
 * a resource is the device's, and whether a shared handle is one Direct3D would accept. */
#include "dx9/d3d9_device.h"
#include "core/com.h"
#include "core/context.h"

bool dxcl_d3d9ex_luid(const void *object, LUID *luid)
{
    IDirect3DDevice9Ex *device;
    D3DDEVICE_CREATION_PARAMETERS params;
    IDirect3D9 *d3d9;
    IDirect3D9Ex *d3d9ex;
    bool found = false;

    if (FAILED(dxcl_query_interface(object, &IID_IDirect3DDevice9Ex, (void **)&device)))
        return false;
    if (SUCCEEDED(IDirect3DDevice9Ex_GetDirect3D(device, &d3d9))) {
        if (SUCCEEDED(IDirect3D9_QueryInterface(d3d9, &IID_IDirect3D9Ex, (void **)&d3d9ex))) {
            IDirect3DDevice9Ex_GetCreationParameters(device, &params);
            found = SUCCEEDED(IDirect3D9Ex_GetAdapterLUID(d3d9ex, params.AdapterOrdinal, luid));
            IDirect3D9Ex_Release(d3d9ex);
        }
        IDirect3D9_Release(d3d9);
    }
    IDirect3DDevice9Ex_Release(device);
    return found;
}

bool dxcl_d3d9_prepare_device(struct dxcl_context *ctx)
{
    D3DDEVICE_CREATION_PARAMETERS params;
    IDirect3DDevice9 *device;
    bool multithreaded;

    if (FAILED(dxcl_query_interface(ctx->device, &IID_IDirect3DDevice9, (void **)&device))) {
        DXCL_LOG("%s adapter %p is no D3D9 device: dxcl uses it only inside the program's "
                 "OpenCL calls",
                 ctx->backend->name, ctx->device);
        return false;
    }
    multithreaded = SUCCEEDED(IDirect3DDevice9_GetCreationParameters(device, &params)) &&
                    (params.BehaviorFlags & D3DCREATE_MULTITHREADED);
    IDirect3DDevice9_Release(device);
    if (!multithreaded)
        DXCL_LOG("%s device %p was created without D3DCREATE_MULTITHREADED: dxcl uses it only "
                 "inside the program's OpenCL calls",
                 ctx->backend->name, ctx->device);
    return multithreaded;
}

bool dxcl_d3d9_resource_of(IDirect3DResource9 *resource, void *device)
{
    IDirect3DDevice9 *owner;
    bool same;

    if (FAILED(IDirect3DResource9_GetDevice(resource, &owner)))
        return false;
    same = dxcl_same_object((IUnknown *)owner, device);
    IDirect3DDevice9_Release(owner);
    return same;
}

/* A resource of `surface`'s kind and description on `device`, as D3D9Ex makes a shared one:
 * *handle NULL creates a new shared resource and returns its handle there; otherwise the
 * resource of that handle is opened. A texture level's handle is its texture's. */
static HRESULT create_shared_like(IDirect3DDevice9Ex *device, IDirect3DSurface9 *surface,
                                  HANDLE *handle)
{
    IDirect3DTexture9 *texture;
    IDirect3DCubeTexture9 *cube;
    IUnknown *made = NULL;
    D3DSURFACE_DESC desc;
    HRESULT hr;

    if (SUCCEEDED(
            IDirect3DSurface9_GetContainer(surface, &IID_IDirect3DTexture9, (void **)&texture))) {
        IDirect3DTexture9_GetLevelDesc(texture, 0, &desc);
        hr = IDirect3DDevice9Ex_CreateTexture(
            device, desc.Width, desc.Height, IDirect3DTexture9_GetLevelCount(texture), desc.Usage,
            desc.Format, D3DPOOL_DEFAULT, (IDirect3DTexture9 **)&made, handle);
        IDirect3DTexture9_Release(texture);
    } else if (SUCCEEDED(IDirect3DSurface9_GetContainer(surface, &IID_IDirect3DCubeTexture9,
                                                        (void **)&cube))) {
        IDirect3DCubeTexture9_GetLevelDesc(cube, 0, &desc);
        hr = IDirect3DDevice9Ex_CreateCubeTexture(
            device, desc.Width, IDirect3DCubeTexture9_GetLevelCount(cube), desc.Usage, desc.Format,
            D3DPOOL_DEFAULT, (IDirect3DCubeTexture9 **)&made, handle);
        IDirect3DCubeTexture9_Release(cube);
    } else {
        IDirect3DSurface9_GetDesc(surface, &desc);
        if (desc.Usage & D3DUSAGE_RENDERTARGET)
            hr = IDirect3DDevice9Ex_CreateRenderTarget(
                device, desc.Width, desc.Height, desc.Format, desc.MultiSampleType,
                desc.MultiSampleQuality, FALSE, (IDirect3DSurface9 **)&made, handle);
        else
            hr = IDirect3DDevice9Ex_CreateOffscreenPlainSurface(
                device, desc.Width, desc.Height, desc.Format, D3DPOOL_DEFAULT,
                (IDirect3DSurface9 **)&made, handle);
    }
    if (made)
        IUnknown_Release(made);
    return hr;
}

/* Whether the device's Direct3D 9 implements shared resources: a new shared resource like
 * `surface` gets a handle. Where it does not, a successful "open" proves nothing: Wine 8's
 * wined3d leaves the handle NULL and ignores a handle given to open, making a new resource;
 * DXVK without VK_KHR_external_memory_win32 (lavapipe) returns INVALID_HANDLE_VALUE and does
 * the same. */
static bool hands_out_shared_handles(IDirect3DDevice9Ex *device, IDirect3DSurface9 *surface)
{
    HANDLE created = NULL;

    return SUCCEEDED(create_shared_like(device, surface, &created)) && created &&
           created != INVALID_HANDLE_VALUE;
}

bool dxcl_d3d9_shared_handle_valid(IDirect3DSurface9 *surface, HANDLE handle)
{
    IDirect3DDevice9 *device;
    IDirect3DDevice9Ex *ex;
    bool valid = false;

    if (!handle)
        return true;
    if ((INT_PTR)handle < 0) /* INVALID_HANDLE_VALUE and the pseudo-handles: never a resource's */
        return false;
    if (FAILED(IDirect3DSurface9_GetDevice(surface, &device)))
        return false;
    if (SUCCEEDED(IDirect3DDevice9_QueryInterface(device, &IID_IDirect3DDevice9Ex, (void **)&ex))) {
        valid = hands_out_shared_handles(ex, surface) &&
                SUCCEEDED(create_shared_like(ex, surface, &handle));
        IDirect3DDevice9Ex_Release(ex);
    }
    IDirect3DDevice9_Release(device);
    return valid;
}
