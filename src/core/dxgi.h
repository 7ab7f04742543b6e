/* What D3D10 and D3D11 share: DXGI adapters, the DXGI format table, and the rules for
 * buffers and textures of the KHR/NV D3D1x texts. Backends fill the plain descriptions from
 * their own API's structures. */
#ifndef DXCL_DXGI_H
#define DXCL_DXGI_H

#include "core/memobj.h"

/* The adapter LUID of a D3D1x device (IDXGIDevice) or of an IDXGIAdapter; false when the
 * object is neither. */
bool dxcl_dxgi_luid(const void *object, bool is_adapter, LUID *luid);

/* A D3D1x resource in plain terms. */
struct dxcl_dxgi_resource {
    bool is_buffer;
    bool is_3d;
    bool immutable;
    UINT byte_width; /* buffers */
    DXGI_FORMAT format;
    UINT width, height, depth;
    UINT mip_levels, array_size;
    UINT sample_count;
};

/* Applies the create-function rules (IMMUTABLE, multisampling, subresource range, the DXGI
 * table) and fills `desc` for the core. */
cl_int dxcl_dxgi_describe(const struct dxcl_backend *backend,
                          const struct dxcl_dxgi_resource *resource, UINT subresource,
                          struct dxcl_shared_desc *desc);

/* The clGetDeviceIDsFromD3D1x rules shared by D3D10 and D3D11. `object` is a device when
 * is_adapter is false. */
cl_int dxcl_dxgi_device_ids(cl_platform_id platform, const void *object, bool is_adapter,
                            bool preferred, cl_uint num_entries, cl_device_id *devices,
                            cl_uint *num_devices);

#endif
