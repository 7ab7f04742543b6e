/* The D3D11 backend (cl_khr_d3d11_sharing, cl_nv_d3d11_sharing): ID3D11Device, buffers,
 * 2D and 3D textures, copied through the device's immediate context. */
#include "core/dxgi_resources.h"

#include <d3d11_4.h>
#include <stdlib.h>
#include <CL/cl_d3d11.h>

DXCL_DXGI_RESOURCES(D3D11, d3d11)

/* The immediate context, inside the program's ID3D11Multithread protection when it turned
 * that on. */
static ID3D11DeviceContext *enter_device(struct dxcl_surface *surface, ID3D11Multithread **mt)
{
    ID3D11DeviceContext *immediate;

    ID3D11Device_GetImmediateContext((ID3D11Device *)surface->context->device, &immediate);
    *mt = NULL;
    if (SUCCEEDED(
            ID3D11DeviceContext_QueryInterface(immediate, &IID_ID3D11Multithread, (void **)mt))) {
        if (ID3D11Multithread_GetMultithreadProtected(*mt)) {
            ID3D11Multithread_Enter(*mt);
        } else {
            ID3D11Multithread_Release(*mt);
            *mt = NULL;
        }
    }
    return immediate;
}

static void leave_device(ID3D11DeviceContext *immediate, ID3D11Multithread *mt)
{
    if (mt) {
        ID3D11Multithread_Leave(mt);
        ID3D11Multithread_Release(mt);
    }
    ID3D11DeviceContext_Release(immediate);
}

static void copy(ID3D11DeviceContext *immediate, struct dxcl_dxgi_surface *s, ID3D11Resource *dst,
                 UINT dst_sub, ID3D11Resource *src, UINT src_sub)
{
    if (s->kind == DXCL_DXGI_BUFFER)
        ID3D11DeviceContext_CopyResource(immediate, dst, src);
    else
        ID3D11DeviceContext_CopySubresourceRegion(immediate, dst, dst_sub, 0, 0, 0, src, src_sub,
                                                  NULL);
}

/* The staging copy as it is. */
static cl_int map_staging(ID3D11DeviceContext *immediate, struct dxcl_surface *surface,
                          struct dxcl_mapping *mapping)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    D3D11_MAPPED_SUBRESOURCE mapped;
    HRESULT hr = ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)s->staging, 0,
                                         D3D11_MAP_READ_WRITE, 0, &mapped);

    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "mapping the staging copy failed (0x%08lx)",
                         (unsigned long)hr);
    *mapping = (struct dxcl_mapping){mapped.pData, mapped.RowPitch, mapped.DepthPitch};
    return CL_SUCCESS;
}

static cl_int d3d11_lock_surface(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    ID3D11Multithread *mt;
    ID3D11DeviceContext *immediate = enter_device(surface, &mt);
    cl_int err;

    copy(immediate, s, (ID3D11Resource *)s->staging, 0, (ID3D11Resource *)surface->resource,
         surface->subresource);
    err = map_staging(immediate, surface, &surface->mapping);
    leave_device(immediate, mt);
    return err;
}

static void d3d11_unlock_surface(struct dxcl_surface *surface, bool write_back)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    ID3D11Multithread *mt;
    ID3D11DeviceContext *immediate = enter_device(surface, &mt);

    ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)s->staging, 0);
    if (write_back)
        copy(immediate, s, (ID3D11Resource *)surface->resource, surface->subresource,
             (ID3D11Resource *)s->staging, 0);
    leave_device(immediate, mt);
    surface->mapping.data = NULL;
}

DXCL_DXGI_FAMILY(D3D11, d3d11)
