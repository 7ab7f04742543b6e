/* Moving an IDirect3DSurface9's bytes for both D3D9 families (d3d9_surface.h): LockRect, or
 * GetRenderTargetData / UpdateSurface through a system-memory copy. */
#include "dx9/d3d9_surface.h"

bool dxcl_d3d9_surface_reachable(IDirect3DSurface9 *surface)
{
    IDirect3DBaseTexture9 *texture;
    D3DSURFACE_DESC desc;

    IDirect3DSurface9_GetDesc(surface, &desc);
    if (desc.Pool != D3DPOOL_DEFAULT || (desc.Usage & (D3DUSAGE_RENDERTARGET | D3DUSAGE_DYNAMIC)))
        return true;
    if (FAILED(
            IDirect3DSurface9_GetContainer(surface, &IID_IDirect3DBaseTexture9, (void **)&texture)))
        return true; /* stand-alone */
    IDirect3DBaseTexture9_Release(texture);
    return false;
}

/* Render targets that are not lockable are read and written through a system-memory copy. */
static HRESULT make_sysmem_copy(struct dxcl_d3d9_surface *s)
{
    IDirect3DDevice9 *device;
    HRESULT hr;

    if (!(s->desc.Usage & D3DUSAGE_RENDERTARGET))
        return S_OK;
    if (FAILED(hr = IDirect3DSurface9_GetDevice(s->surface, &device)))
        return hr;
    hr = IDirect3DDevice9_CreateOffscreenPlainSurface(
        device, s->desc.Width, s->desc.Height, s->desc.Format, D3DPOOL_SYSTEMMEM, &s->sysmem, NULL);
    IDirect3DDevice9_Release(device);
    return hr;
}

HRESULT dxcl_d3d9_surface_init(struct dxcl_d3d9_surface *s, IDirect3DSurface9 *surface)
{
    HRESULT hr;

    *s = (struct dxcl_d3d9_surface){.surface = surface};
    IDirect3DSurface9_GetDesc(surface, &s->desc);
    if (FAILED(hr = make_sysmem_copy(s)))
        *s = (struct dxcl_d3d9_surface){0};
    return hr;
}

void dxcl_d3d9_surface_free(struct dxcl_d3d9_surface *s)
{
    if (s->sysmem)
        IDirect3DSurface9_Release(s->sysmem);
    *s = (struct dxcl_d3d9_surface){0};
}

cl_int dxcl_d3d9_surface_lock(struct dxcl_d3d9_surface *s, struct dxcl_mapping *mapping)
{
    IDirect3DSurface9 *target = s->surface;
    IDirect3DDevice9 *device;
    D3DLOCKED_RECT locked;
    HRESULT hr = E_FAIL;

    if (s->sysmem && SUCCEEDED(IDirect3DSurface9_GetDevice(s->surface, &device))) {
        hr = IDirect3DDevice9_GetRenderTargetData(device, s->surface, s->sysmem);
        IDirect3DDevice9_Release(device);
        target = s->sysmem;
    }
    s->locked_directly = !s->sysmem;
    if (s->sysmem && FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "reading render target %p failed (0x%08lx)",
                         (void *)s->surface, (unsigned long)hr);
    if (FAILED(hr = IDirect3DSurface9_LockRect(target, &locked, NULL, 0)))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "locking surface %p failed (0x%08lx)", (void *)target,
                         (unsigned long)hr);
    *mapping = (struct dxcl_mapping){locked.pBits, (size_t)locked.Pitch, 0};
    return CL_SUCCESS;
}

cl_int dxcl_d3d9_surface_unlock(struct dxcl_d3d9_surface *s, bool write_back)
{
    IDirect3DDevice9 *device;
    HRESULT hr;

    if (s->locked_directly) {
        IDirect3DSurface9_UnlockRect(s->surface); /* the data is in place */
        return CL_SUCCESS;
    }
    IDirect3DSurface9_UnlockRect(s->sysmem);
    if (!write_back)
        return CL_SUCCESS;
    if (FAILED(hr = IDirect3DSurface9_GetDevice(s->surface, &device)))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "surface %p has no device (0x%08lx): not written",
                         (void *)s->surface, (unsigned long)hr);
    hr = IDirect3DDevice9_UpdateSurface(device, s->sysmem, NULL, s->surface, NULL);
    IDirect3DDevice9_Release(device);
    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "writing render target %p failed (0x%08lx)",
                         (void *)s->surface, (unsigned long)hr);
    return CL_SUCCESS;
}
