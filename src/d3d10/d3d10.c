/* The D3D10 backend (cl_khr_d3d10_sharing, cl_nv_d3d10_sharing): ID3D10Device and
 * ID3D10Device1, buffers, 2D and 3D textures. Unlike D3D11, the device is its own immediate
 * context and each resource type maps itself. On DXVK (unless DXCL_GPU_D3D10=0), textures take the
 * GPU path's twins (gpu/twins.h), which reach DXVK through the D3D11 objects behind its D3D10
 * ones. */
#include "dxgi/dxgi_resources.h"
#include "gpu/twins.h"
#include "core/env.h"
#include "core/route.h"

#include <d3d10.h>
#include <stdlib.h>
#include <CL/cl_d3d10.h>

DXCL_DXGI_RESOURCES(D3D10, d3d10, false)

/* The device's ID3D10Multithread, or NULL (a runtime without it). */
static struct dxcl_dxgi_multithread *d3d10_multithread(struct dxcl_context *ctx)
{
    void *mt;

    if (FAILED(
            ID3D10Device_QueryInterface((ID3D10Device *)ctx->device, &IID_ID3D10Multithread, &mt)))
        return NULL;
    return mt;
}

DXCL_DXGI_PROTECTION(D3D10, d3d10)

static HRESULT map(struct dxcl_dxgi_surface *s, struct dxcl_mapping *mapping)
{
    D3D10_MAPPED_TEXTURE2D m2;
    D3D10_MAPPED_TEXTURE3D m3;
    HRESULT hr;

    memset(mapping, 0, sizeof(*mapping));
    switch (s->kind) {
    case DXCL_DXGI_BUFFER:
        return ID3D10Buffer_Map((ID3D10Buffer *)s->staging, D3D10_MAP_READ_WRITE, 0,
                                &mapping->data);
    case DXCL_DXGI_TEXTURE2D:
        hr = ID3D10Texture2D_Map((ID3D10Texture2D *)s->staging, 0, D3D10_MAP_READ_WRITE, 0, &m2);
        *mapping = (struct dxcl_mapping){m2.pData, m2.RowPitch, 0};
        return hr;
    default:
        hr = ID3D10Texture3D_Map((ID3D10Texture3D *)s->staging, 0, D3D10_MAP_READ_WRITE, 0, &m3);
        *mapping = (struct dxcl_mapping){m3.pData, m3.RowPitch, m3.DepthPitch};
        return hr;
    }
}

static void unmap(struct dxcl_dxgi_surface *s)
{
    if (s->kind == DXCL_DXGI_BUFFER)
        ID3D10Buffer_Unmap((ID3D10Buffer *)s->staging);
    else if (s->kind == DXCL_DXGI_TEXTURE2D)
        ID3D10Texture2D_Unmap((ID3D10Texture2D *)s->staging, 0);
    else
        ID3D10Texture3D_Unmap((ID3D10Texture3D *)s->staging, 0);
}

/* ---- The GPU path on DXVK (gpu/twins.h; docs/design.md, "The GPU path") ---- */

/* D3D10 textures take the GPU path as D3D11's do (DXVK's D3D10 objects are D3D11's);
 * DXCL_GPU_D3D10=0 keeps them on the copy engine. The path's soak growth on NVIDIA, which kept
 * them off until 2026-11-29, is the host heap's warm-up, the same with D3D10 on or off
 * (docs/perf.md, "The GPU path's soak on NVIDIA levels off"). */
static bool gpu_path_wanted(void)
{
    static volatile LONG off;

    return !dxcl_setting_is(&off, "GPU_D3D10", "0");
}

static void d3d10_context_ready(struct dxcl_context *ctx)
{
    if (gpu_path_wanted())
        dxcl_dxgi_share(ctx);
}

static bool d3d10_device_storage(struct dxcl_surface *surface, struct dxcl_device_storage *storage)
{
    const struct dxcl_dxgi_surface *s = surface->backend_data;

    if (s->kind != DXCL_DXGI_BUFFER && !gpu_path_wanted()) {
        DXCL_LOG("D3D10 resource %p: no GPU path (DXCL_GPU_D3D10=0)", (void *)surface->resource);
        return false;
    }
    return dxcl_dxgi_device_storage(surface, storage);
}

#define d3d10_end_hand_overs dxcl_dxgi_end_hand_overs

/* The staging copy mapped for the host, after copying the resource into it (copy_in), or the
 * twin handed in. */
static cl_int map_staging(struct dxcl_surface *surface, bool copy_in)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    ID3D10Device *device = surface->context->device;
    void *mt;
    HRESULT hr;

    if (s->twin)
        return dxcl_dxgi_twin_in(surface, copy_in);
    mt = d3d10_enter_device(surface->context);
    if (copy_in)
        ID3D10Device_CopySubresourceRegion(device, (ID3D10Resource *)s->staging, 0, 0, 0, 0,
                                           (ID3D10Resource *)surface->resource,
                                           surface->subresource, NULL);
    hr = map(s, &surface->mapping);
    dxcl_dxgi_leave_device(mt);
    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "mapping the staging copy failed (0x%08lx)",
                         (unsigned long)hr);
    dxcl_dxgi_mapped(surface);
    return CL_SUCCESS;
}

static cl_int d3d10_copy_to_host(struct dxcl_surface *surface)
{
    return map_staging(surface, true);
}

static cl_int d3d10_map_host(struct dxcl_surface *surface)
{
    return map_staging(surface, false);
}

static cl_int d3d10_unmap_host(struct dxcl_surface *surface, bool write_back)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    ID3D10Device *device = surface->context->device;
    void *mt;

    if (s->twin)
        return dxcl_dxgi_twin_out(surface, write_back);
    dxcl_dxgi_unmapping(surface);
    mt = d3d10_enter_device(surface->context);
    unmap(s);
    if (write_back)
        ID3D10Device_CopySubresourceRegion(device, (ID3D10Resource *)surface->resource,
                                           surface->subresource, 0, 0, 0,
                                           (ID3D10Resource *)s->staging, 0, NULL);
    dxcl_dxgi_leave_device(mt);
    surface->mapping.data = NULL;
    return CL_SUCCESS;
}

DXCL_DXGI_FAMILY(D3D10, d3d10)

/* cl_intel_sharing_format_query_d3d10. */
DXCL_DXGI_DEVICE_BACKS(D3D10, d3d10)

static cl_int CL_API_CALL get_supported_formats(cl_context context, cl_mem_flags flags,
                                                cl_mem_object_type image_type, cl_uint num_entries,
                                                DXGI_FORMAT *formats, cl_uint *num_formats)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), get_supported_formats,
               (context, flags, image_type, num_entries, formats, num_formats));
    const struct dxcl_format_family family =
        dxcl_dxgi_format_family(&dxcl_d3d10_backend, d3d10_device_backs, false);

    return dxcl_query_sharing_formats("clGetSupportedD3D10TextureFormatsINTEL", &family, context,
                                      flags, image_type, 0, num_entries, (cl_uint *)formats,
                                      num_formats);
}

DXCL_FORMAT_QUERY_EXTENSION(format_query_d3d10, "cl_intel_sharing_format_query_d3d10",
                            "clGetSupportedD3D10TextureFormatsINTEL", get_supported_formats)
