/* DXVK's side of the GPU path (gpu/dxvk.h): its interop interfaces, the Vulkan image behind a
 * resource, its copies and a nudge on the immediate context, and the probe texture that names a
 * device to the layer. */
#include "gpu/gpu_path.h"
#include "gpu/twins.h"

/* Defines the IIDs of DXVK's interop interfaces (and no others: every other header is in). */
#include <initguid.h>
#include "gpu/dxvk_interop.h"

#include "gpu/dxvk.h"

/* The Vulkan image behind a D3D1x resource and the layout DXVK keeps it in; 0 when DXVK gives
 * none (or the resource is not DXVK's). */
uint64_t dxcl_gpu_vulkan_image(IUnknown *resource, int32_t *layout,
                               struct dxvk_image_create_info *info)
{
    IDXGIVkInteropSurface *image;
    dxvk_vk_image handle = 0;
    HRESULT hr;

    *info = (struct dxvk_image_create_info){.s_type = DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    if (FAILED(IUnknown_QueryInterface(resource, &IID_IDXGIVkInteropSurface, (void **)&image)))
        return 0;
    hr = image->lpVtbl->GetVulkanImageInfo(image, &handle, layout, info);
    image->lpVtbl->Release(image);
    return SUCCEEDED(hr) ? handle : 0;
}

IDXGIVkInteropDevice1 *dxcl_gpu_interop_of(struct dxcl_context *ctx)
{
    IDXGIVkInteropDevice1 *interop;

    if (FAILED(IUnknown_QueryInterface((IUnknown *)ctx->device, &IID_IDXGIVkInteropDevice1,
                                       (void **)&interop)))
        return NULL;
    return interop;
}

/* DXVK's D3D11 device behind the context's device, referenced: the device itself for D3D11,
 * and for D3D10 the D3D11 device DXVK's D3D10 device is part of (each answers QueryInterface
 * for the other). NULL where Direct3D is not DXVK. */
static ID3D11Device *d3d11_device_of(struct dxcl_context *ctx)
{
    ID3D11Device *device;

    if (FAILED(
            IUnknown_QueryInterface((IUnknown *)ctx->device, &IID_ID3D11Device, (void **)&device)))
        return NULL;
    return device;
}

/* DXVK's copy of the surface's subresource into its twin's texture (to_twin) or back, on the
 * device's immediate context; inside dxcl_device_enter. */
void dxcl_gpu_dxvk_copy(struct dxcl_surface *surface, bool to_twin)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    ID3D11Device *device = d3d11_device_of(surface->context);
    ID3D11Resource *resource = NULL, *twin = (ID3D11Resource *)s->staging;
    ID3D11DeviceContext *immediate;

    if (!device)
        return;
    if (SUCCEEDED(
            IUnknown_QueryInterface(surface->resource, &IID_ID3D11Resource, (void **)&resource))) {
        ID3D11Device_GetImmediateContext(device, &immediate);
        if (to_twin)
            ID3D11DeviceContext_CopySubresourceRegion(immediate, twin, 0, 0, 0, 0, resource,
                                                      surface->subresource, NULL);
        else
            ID3D11DeviceContext_CopySubresourceRegion(immediate, resource, surface->subresource, 0,
                                                      0, 0, twin, 0, NULL);
        ID3D11DeviceContext_Release(immediate);
        ID3D11Resource_Release(resource);
    }
    ID3D11Device_Release(device);
}

/* An event query ended on the immediate context: DXVK's flush skips a context with nothing
 * recorded, and a new texture's initial data goes to the GPU with the context's next commands,
 * which the layer's own copies and hand-overs must come after. */
void dxcl_gpu_dxvk_nudge(struct dxcl_context *ctx)
{
    D3D11_QUERY_DESC event = {D3D11_QUERY_EVENT, 0};
    ID3D11Device *device = d3d11_device_of(ctx);
    ID3D11DeviceContext *immediate;
    ID3D11Query *query = NULL;

    if (!device)
        return;
    if (SUCCEEDED(ID3D11Device_CreateQuery(device, &event, &query))) {
        ID3D11Device_GetImmediateContext(device, &immediate);
        ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)query);
        ID3D11DeviceContext_Release(immediate);
        ID3D11Query_Release(query);
    }
    ID3D11Device_Release(device);
}

/* A 1x1 default texture of the context's device, referenced, or NULL: its Vulkan image names
 * the device to the layer. */
IUnknown *dxcl_gpu_dxvk_probe(struct dxcl_context *ctx)
{
    D3D11_TEXTURE2D_DESC desc = {1,
                                 1,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE,
                                 0,
                                 0};
    ID3D11Device *device = d3d11_device_of(ctx);
    ID3D11Texture2D *texture = NULL;

    if (!device)
        return NULL;
    if (FAILED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture)))
        texture = NULL;
    ID3D11Device_Release(device);
    return (IUnknown *)texture;
}

bool dxcl_gpu_is_dxvk(void *resource)
{
    IUnknown *interop;

    if (FAILED(IUnknown_QueryInterface((IUnknown *)resource, &IID_IDXGIVkInteropSurface,
                                       (void **)&interop)))
        return false;
    IUnknown_Release(interop);
    return true;
}
