#include "core/dxgi.h"
#include "core/com.h"
#include "core/devices.h"

#include <dxgi.h>

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

cl_int dxcl_dxgi_device_ids(cl_platform_id platform, const void *object, bool is_adapter,
                            bool preferred, cl_uint num_entries, cl_device_id *devices,
                            cl_uint *num_devices)
{
    LUID luid;
    cl_int err = dxcl_check_device_query(platform, num_entries, devices, num_devices);

    if (err != CL_SUCCESS)
        return err;
    if (!dxcl_dxgi_luid(object, is_adapter, &luid))
        return DXCL_FAIL(CL_INVALID_VALUE, "d3d_object %p is not %s", object,
                         is_adapter ? "an IDXGIAdapter" : "a Direct3D device");
    return dxcl_interop_devices(platform, &luid, preferred, num_entries, devices, num_devices);
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
