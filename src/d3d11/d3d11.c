/* The D3D11 backend (cl_khr_d3d11_sharing, cl_nv_d3d11_sharing, and the NV12 planes of
 * cl_intel_d3d11_nv12_media_sharing): ID3D11Device, buffers, 2D and 3D textures, copied
 * through the device's immediate context. */
#include "dxgi/dxgi_resources.h"
#include "gpu/twins.h"
#include "core/driver.h"
#include "core/fault.h"
#include "core/route.h"

#include <d3d11_4.h>
#include <stdio.h>
#include <stdlib.h>
#include <CL/cl_d3d11.h>

/* cl_intel_d3d11_nv12_media_sharing changes the D3D11 create functions only (no functions or
 * tokens of its own). Every driver with images holds both planes: CL_R and CL_RG of
 * UNORM_INT8 are native, or emulated in CL_RGBA/UNORM_INT8, which OpenCL requires of every
 * device with images (as for cl_khr_dx9_media_sharing's NV12). Unlike Intel's driver, dxcl
 * does not require D3D11_RESOURCE_MISC_SHARED: it copies whole slices, both planes at once. */
static const struct dxcl_extension nv12_media_sharing;

/* Without the extension (DXCL_FAMILIES leaves it out), NV12 is what the KHR text makes it:
 * a format outside the table. */
static bool d3d11_shares_planes(void)
{
    for (size_t i = 0; i < dxcl_extension_count(); i++)
        if (dxcl_extension_at(i) == &nv12_media_sharing)
            return true;
    return false;
}

DXCL_DXGI_RESOURCES(D3D11, d3d11, d3d11_shares_planes())

/* The immediate context's ID3D11Multithread, or NULL (a runtime without it). */
static struct dxcl_dxgi_multithread *d3d11_multithread(struct dxcl_context *ctx)
{
    ID3D11DeviceContext *immediate;
    void *mt;

    ID3D11Device_GetImmediateContext((ID3D11Device *)ctx->device, &immediate);
    if (FAILED(ID3D11DeviceContext_QueryInterface(immediate, &IID_ID3D11Multithread, &mt)))
        mt = NULL;
    ID3D11DeviceContext_Release(immediate);
    return mt;
}

DXCL_DXGI_PROTECTION(D3D11, d3d11)

/* The immediate context, inside the program's protection. */
static ID3D11DeviceContext *enter_device(struct dxcl_surface *surface, void **protection)
{
    ID3D11DeviceContext *immediate;

    *protection = d3d11_enter_device(surface->context);
    ID3D11Device_GetImmediateContext((ID3D11Device *)surface->context->device, &immediate);
    return immediate;
}

static void leave_device(ID3D11DeviceContext *immediate, void *protection)
{
    ID3D11DeviceContext_Release(immediate);
    dxcl_dxgi_leave_device(protection);
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

/* The GPU path on DXVK (gpu/twins.h; docs/design.md, "The GPU path"). */
#define d3d11_context_ready dxcl_dxgi_share
#define d3d11_device_storage dxcl_dxgi_device_storage
#define d3d11_end_hand_overs dxcl_dxgi_end_hand_overs

static cl_int d3d11_copy_to_host(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    void *mt;
    ID3D11DeviceContext *immediate;
    cl_int err;

    if (s->twin)
        return dxcl_dxgi_twin_in(surface, true);
    immediate = enter_device(surface, &mt);
    copy(immediate, s, (ID3D11Resource *)s->staging, 0, (ID3D11Resource *)surface->resource,
         surface->subresource);
    err = map_staging(immediate, surface, &surface->mapping);
    leave_device(immediate, mt);
    if (err == CL_SUCCESS)
        dxcl_dxgi_mapped(surface);
    return err;
}

static cl_int d3d11_map_host(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    void *mt;
    ID3D11DeviceContext *immediate;
    cl_int err;

    if (s->twin)
        return dxcl_dxgi_twin_in(surface, false);
    immediate = enter_device(surface, &mt);
    err = map_staging(immediate, surface, &surface->mapping);
    leave_device(immediate, mt);
    if (err == CL_SUCCESS)
        dxcl_dxgi_mapped(surface);
    return err;
}

static cl_int d3d11_unmap_host(struct dxcl_surface *surface, bool write_back)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    void *mt;
    ID3D11DeviceContext *immediate;

    if (s->twin)
        return dxcl_dxgi_twin_out(surface, write_back);
    dxcl_dxgi_unmapping(surface);
    immediate = enter_device(surface, &mt);
    ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)s->staging, 0);
    if (write_back)
        copy(immediate, s, (ID3D11Resource *)surface->resource, surface->subresource,
             (ID3D11Resource *)s->staging, 0);
    leave_device(immediate, mt);
    surface->mapping.data = NULL;
    return CL_SUCCESS;
}

DXCL_DXGI_FAMILY(D3D11, d3d11)

/* Offered where the copy engine serves cl_khr_d3d11_sharing (route.h). */
static const struct dxcl_ext_function no_functions[] = {{NULL, NULL}};
static const struct dxcl_extension nv12_media_sharing = {.name =
                                                             "cl_intel_d3d11_nv12_media_sharing",
                                                         .version = CL_MAKE_VERSION(0, 0, 0),
                                                         .functions = no_functions,
                                                         .extends = &khr_extension};
DXCL_REGISTER_EXTENSION(nv12_media_sharing)

/* cl_intel_sharing_format_query_d3d11: the DXGI table, and NV12 under plane 0 (Y) and plane 1
 * (UV) while cl_intel_d3d11_nv12_media_sharing is exposed. */
DXCL_DXGI_DEVICE_BACKS(D3D11, d3d11)

static cl_int CL_API_CALL get_supported_formats(cl_context context, cl_mem_flags flags,
                                                cl_mem_object_type image_type, cl_uint plane,
                                                cl_uint num_entries, DXGI_FORMAT *formats,
                                                cl_uint *num_formats)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), get_supported_formats,
               (context, flags, image_type, plane, num_entries, formats, num_formats));
    const struct dxcl_format_family family =
        dxcl_dxgi_format_family(&dxcl_d3d11_backend, d3d11_device_backs, d3d11_shares_planes());

    return dxcl_query_sharing_formats("clGetSupportedD3D11TextureFormatsINTEL", &family, context,
                                      flags, image_type, plane, num_entries, (cl_uint *)formats,
                                      num_formats);
}

DXCL_FORMAT_QUERY_EXTENSION(format_query_d3d11, "cl_intel_sharing_format_query_d3d11",
                            "clGetSupportedD3D11TextureFormatsINTEL", get_supported_formats)
