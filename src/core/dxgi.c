#include "core/dxgi.h"
#include "core/com.h"
#include "core/devices.h"
#include "core/fault.h"

#include <dxgi.h>
#include <stdlib.h>

bool dxcl_dxgi_luid(const void *object, bool is_adapter, LUID *luid)
{
    IDXGIAdapter *adapter = NULL;
    IDXGIDevice *device = NULL;
    DXGI_ADAPTER_DESC desc;
    HRESULT hr;

    if (is_adapter) {
        hr = dxcl_query_interface(object, &IID_IDXGIAdapter, (void **)&adapter);
    } else if (SUCCEEDED(hr = dxcl_query_interface(object, &IID_IDXGIDevice, (void **)&device))) {
        hr = IDXGIDevice_GetAdapter(device, &adapter);
        IDXGIDevice_Release(device);
    }
    if (FAILED(hr))
        return false;
    hr = IDXGIAdapter_GetDesc(adapter, &desc);
    IDXGIAdapter_Release(adapter);
    if (FAILED(hr))
        return false;
    *luid = desc.AdapterLuid;
    return true;
}

cl_int dxcl_dxgi_device_ids(const struct dxcl_dxgi_tokens *tokens, cl_platform_id platform,
                            cl_uint source, const void *object, cl_uint set, cl_uint num_entries,
                            cl_device_id *devices, cl_uint *num_devices)
{
    bool is_adapter = source == tokens->adapter_source;
    bool preferred = set == tokens->preferred_set;
    LUID luid;
    cl_int err = dxcl_check_device_query(platform, num_entries, devices, num_devices);

    if (err != CL_SUCCESS)
        return err;
    if (source != tokens->device_source && source != tokens->adapter_source)
        return DXCL_FAIL(CL_INVALID_VALUE, "d3d_device_source 0x%x", source);
    if (set != tokens->preferred_set && set != tokens->all_set)
        return DXCL_FAIL(CL_INVALID_VALUE, "d3d_device_set 0x%x", set);
    if (!dxcl_dxgi_luid(object, is_adapter, &luid))
        return DXCL_FAIL(CL_INVALID_VALUE, "d3d_object %p is not %s", object,
                         is_adapter ? "an IDXGIAdapter" : "a Direct3D device");
    return dxcl_interop_devices(platform, &luid, preferred, num_entries, devices, num_devices);
}

cl_int dxcl_dxgi_prepare(struct dxcl_context *ctx, const struct dxcl_dxgi_args *args,
                         dxcl_dxgi_check_fn check, dxcl_dxgi_staging_fn create_staging,
                         struct dxcl_shared_desc *desc)
{
    struct dxcl_dxgi_resource info;
    struct dxcl_dxgi_surface *surface;
    cl_int err;

    if ((err = check(ctx, args, &info)) != CL_SUCCESS ||
        (err = dxcl_dxgi_describe(ctx->backend, &info, args->subresource, desc)) != CL_SUCCESS)
        return err;
    if (!(surface = calloc(1, sizeof(*surface))))
        return CL_OUT_OF_HOST_MEMORY;
    surface->kind = args->kind;
    if (dxcl_fault_hit(DXCL_FAULT_STAGING) ||
        FAILED(create_staging(ctx->device, &info, desc, &surface->staging))) {
        free(surface);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "cannot create a staging copy of %p", args->resource);
    }
    desc->resource = args->resource;
    desc->surface_data = surface;
    return CL_SUCCESS;
}

void dxcl_dxgi_destroy_surface(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;

    if (!s)
        return;
    IUnknown_Release(s->staging);
    free(s);
    surface->backend_data = NULL;
}

static UINT mip_size(UINT size, UINT mip)
{
    size >>= mip;
    return size ? size : 1;
}

cl_int dxcl_dxgi_describe(const struct dxcl_backend *backend,
                          const struct dxcl_dxgi_resource *resource, UINT subresource,
                          struct dxcl_shared_desc *desc)
{
    UINT mip, count = resource->is_3d ? resource->mip_levels
                                      : resource->mip_levels * resource->array_size;

    if (resource->immutable)
        return DXCL_FAIL(backend->errors.invalid_resource, "the resource has IMMUTABLE usage");
    desc->unique = true;
    if (resource->is_buffer) {
        desc->type = CL_MEM_OBJECT_BUFFER;
        desc->size = resource->byte_width;
        return CL_SUCCESS;
    }
    if (resource->sample_count > 1)
        return DXCL_FAIL(backend->errors.invalid_resource, "the texture is multisampled (%u)",
                         resource->sample_count);
    if (subresource >= count)
        return DXCL_FAIL(CL_INVALID_VALUE, "subresource %u out of range (%u subresources)",
                         subresource, count);
    if (!dxcl_format_from_dxgi(resource->format, &desc->format))
        return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                         "DXGI format %d is not in the sharing table", (int)resource->format);
    mip = subresource % resource->mip_levels;
    desc->subresource = subresource;
    desc->type = resource->is_3d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D;
    desc->width = mip_size(resource->width, mip);
    desc->height = mip_size(resource->height, mip);
    desc->depth = resource->is_3d ? mip_size(resource->depth, mip) : 1;
    return CL_SUCCESS;
}
