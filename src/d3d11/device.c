#include "d3d11/d3d11.h"
#include "core/com.h"

cl_int d3d11_open_device(struct dxcl_context *ctx, cl_context_properties property, void *object)
{
    ID3D11Device *device;

    (void)property;
    if (FAILED(dxcl_query_interface(object, &IID_ID3D11Device, (void **)&device)))
        return DXCL_FAIL(CL_INVALID_D3D11_DEVICE_KHR, "%p is not an ID3D11Device", object);
    ctx->device = device; /* the reference the context holds */
    return CL_SUCCESS;
}

void d3d11_close_device(struct dxcl_context *ctx)
{
    ID3D11Device_Release((ID3D11Device *)ctx->device);
    ctx->device = NULL;
}

cl_int d3d11_device_ids(cl_platform_id platform, cl_uint source, void *object, cl_uint set,
                        cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices)
{
    if (source != CL_D3D11_DEVICE_KHR && source != CL_D3D11_DXGI_ADAPTER_KHR)
        return DXCL_FAIL(CL_INVALID_VALUE, "d3d_device_source 0x%x", source);
    if (set != CL_PREFERRED_DEVICES_FOR_D3D11_KHR && set != CL_ALL_DEVICES_FOR_D3D11_KHR)
        return DXCL_FAIL(CL_INVALID_VALUE, "d3d_device_set 0x%x", set);
    return dxcl_dxgi_device_ids(platform, object, source == CL_D3D11_DXGI_ADAPTER_KHR,
                                set == CL_PREFERRED_DEVICES_FOR_D3D11_KHR, num_entries, devices,
                                num_devices);
}
