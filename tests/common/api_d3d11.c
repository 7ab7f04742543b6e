/* The D3D11 sharing APIs for the shared suites: cl_khr_d3d11_sharing and cl_nv_d3d11_sharing.
 * Both use the same token values and the same Direct3D 11 operations; only the entry point
 * names differ. */
#include "interop.h"

#include <d3d10.h>
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <dxcl/cl_nv_d3d11.h>
#include <stdlib.h>

static void *create_device(void)
{
    static const D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;
    ID3D11Device *device = NULL;
    HRESULT hr = D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level, 1,
                                   D3D11_SDK_VERSION, &device, NULL, NULL);

    CHECK(SUCCEEDED(hr) && device, "D3D11CreateDevice: 0x%08lx", (unsigned long)hr);
    return SUCCEEDED(hr) ? device : NULL;
}

static void *create_d3d10_device(void)
{
    ID3D10Device *device = NULL;
    HRESULT hr =
        D3D10CreateDevice(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_SDK_VERSION, &device);

    CHECK(SUCCEEDED(hr) && device, "D3D10CreateDevice: 0x%08lx", (unsigned long)hr);
    return SUCCEEDED(hr) ? device : NULL;
}

static void *get_adapter(void *object)
{
    IDXGIDevice *dxgi = NULL;
    IDXGIAdapter *adapter = NULL;

    if (FAILED(
            ID3D11Device_QueryInterface((ID3D11Device *)object, &IID_IDXGIDevice, (void **)&dxgi)))
        return NULL;
    if (FAILED(IDXGIDevice_GetAdapter(dxgi, &adapter)))
        adapter = NULL;
    IDXGIDevice_Release(dxgi);
    return adapter;
}

static D3D11_USAGE usage_of(enum test_usage usage)
{
    return usage == TEST_USAGE_IMMUTABLE ? D3D11_USAGE_IMMUTABLE : D3D11_USAGE_DEFAULT;
}

static void *create_buffer(void *object, UINT size, enum test_usage usage, const void *data)
{
    D3D11_BUFFER_DESC desc = {
        .ByteWidth = size, .Usage = usage_of(usage), .BindFlags = D3D11_BIND_VERTEX_BUFFER};
    D3D11_SUBRESOURCE_DATA init = {.pSysMem = data};
    ID3D11Buffer *buffer = NULL;
    HRESULT hr =
        ID3D11Device_CreateBuffer((ID3D11Device *)object, &desc, data ? &init : NULL, &buffer);

    CHECK(SUCCEEDED(hr), "CreateBuffer(%u bytes): 0x%08lx", size, (unsigned long)hr);
    return SUCCEEDED(hr) ? buffer : NULL;
}

/* D3D11_SUBRESOURCE_DATA for every subresource, tightly packed. */
static D3D11_SUBRESOURCE_DATA *init_data(const struct test_texture_desc *desc, bool is_3d,
                                         const void *const *data)
{
    UINT count = test_subresource_count(desc, is_3d);
    D3D11_SUBRESOURCE_DATA *init;

    if (!data)
        return NULL;
    init = calloc(count, sizeof(*init));
    REQUIRE(init != NULL, "out of memory");
    for (UINT i = 0; i < count; i++) {
        UINT w, h, d;
        test_subresource_size(desc, is_3d, i, &w, &h, &d);
        init[i].pSysMem = data[i];
        init[i].SysMemPitch = w * test_format_bytes(desc->format);
        init[i].SysMemSlicePitch = init[i].SysMemPitch * h;
    }
    return init;
}

static void *create_texture2d(void *object, const struct test_texture_desc *desc,
                              const void *const *data)
{
    D3D11_TEXTURE2D_DESC td = {.Width = desc->width,
                               .Height = desc->height,
                               .MipLevels = desc->mips,
                               .ArraySize = desc->array_size,
                               .Format = desc->format,
                               .SampleDesc = {desc->samples ? desc->samples : 1, 0},
                               .Usage = usage_of(desc->usage),
                               .BindFlags = D3D11_BIND_SHADER_RESOURCE |
                                            (desc->samples > 1 ? D3D11_BIND_RENDER_TARGET : 0)};
    D3D11_SUBRESOURCE_DATA *init = init_data(desc, false, data);
    ID3D11Texture2D *texture = NULL;
    HRESULT hr = ID3D11Device_CreateTexture2D((ID3D11Device *)object, &td, init, &texture);

    free(init);
    CHECK(SUCCEEDED(hr),
          "CreateTexture2D(%ux%u, %u mips, %u slices, format %d, %u samples): "
          "0x%08lx",
          desc->width, desc->height, desc->mips, desc->array_size, (int)desc->format,
          td.SampleDesc.Count, (unsigned long)hr);
    return SUCCEEDED(hr) ? texture : NULL;
}

static void *create_texture3d(void *object, const struct test_texture_desc *desc,
                              const void *const *data)
{
    D3D11_TEXTURE3D_DESC td = {.Width = desc->width,
                               .Height = desc->height,
                               .Depth = desc->depth,
                               .MipLevels = desc->mips,
                               .Format = desc->format,
                               .Usage = usage_of(desc->usage),
                               .BindFlags = D3D11_BIND_SHADER_RESOURCE};
    D3D11_SUBRESOURCE_DATA *init = init_data(desc, true, data);
    ID3D11Texture3D *texture = NULL;
    HRESULT hr = ID3D11Device_CreateTexture3D((ID3D11Device *)object, &td, init, &texture);

    free(init);
    CHECK(SUCCEEDED(hr), "CreateTexture3D(%ux%ux%u, %u mips, format %d): 0x%08lx", desc->width,
          desc->height, desc->depth, desc->mips, (int)desc->format, (unsigned long)hr);
    return SUCCEEDED(hr) ? texture : NULL;
}

/* The geometry of one subresource of any D3D11 resource, and a staging twin of it. */
struct sub_info {
    D3D11_RESOURCE_DIMENSION type;
    UINT width, height, depth, bytes_per_pixel;
    DXGI_FORMAT format;
};

static bool describe(ID3D11Resource *resource, UINT subresource, struct sub_info *info)
{
    memset(info, 0, sizeof(*info));
    ID3D11Resource_GetType(resource, &info->type);
    if (info->type == D3D11_RESOURCE_DIMENSION_BUFFER) {
        D3D11_BUFFER_DESC bd;
        ID3D11Buffer_GetDesc((ID3D11Buffer *)resource, &bd);
        info->width = bd.ByteWidth;
        info->height = info->depth = info->bytes_per_pixel = 1;
        return subresource == 0;
    }
    if (info->type == D3D11_RESOURCE_DIMENSION_TEXTURE2D) {
        D3D11_TEXTURE2D_DESC td;
        ID3D11Texture2D_GetDesc((ID3D11Texture2D *)resource, &td);
        if (subresource >= td.MipLevels * td.ArraySize)
            return false;
        info->width = test_mip_size(td.Width, subresource % td.MipLevels);
        info->height = test_mip_size(td.Height, subresource % td.MipLevels);
        info->depth = 1;
        info->format = td.Format;
    } else if (info->type == D3D11_RESOURCE_DIMENSION_TEXTURE3D) {
        D3D11_TEXTURE3D_DESC vd;
        ID3D11Texture3D_GetDesc((ID3D11Texture3D *)resource, &vd);
        if (subresource >= vd.MipLevels)
            return false;
        info->width = test_mip_size(vd.Width, subresource);
        info->height = test_mip_size(vd.Height, subresource);
        info->depth = test_mip_size(vd.Depth, subresource);
        info->format = vd.Format;
    } else {
        return false;
    }
    info->bytes_per_pixel = test_format_bytes(info->format);
    return true;
}

static HRESULT create_staging(ID3D11Device *device, const struct sub_info *info,
                              ID3D11Resource **staging)
{
    const UINT cpu = D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE;

    if (info->type == D3D11_RESOURCE_DIMENSION_BUFFER) {
        D3D11_BUFFER_DESC bd = {
            .ByteWidth = info->width, .Usage = D3D11_USAGE_STAGING, .CPUAccessFlags = cpu};
        return ID3D11Device_CreateBuffer(device, &bd, NULL, (ID3D11Buffer **)staging);
    }
    if (info->type == D3D11_RESOURCE_DIMENSION_TEXTURE2D) {
        D3D11_TEXTURE2D_DESC td = {.Width = info->width,
                                   .Height = info->height,
                                   .MipLevels = 1,
                                   .ArraySize = 1,
                                   .Format = info->format,
                                   .SampleDesc = {1, 0},
                                   .Usage = D3D11_USAGE_STAGING,
                                   .CPUAccessFlags = cpu};
        return ID3D11Device_CreateTexture2D(device, &td, NULL, (ID3D11Texture2D **)staging);
    }
    D3D11_TEXTURE3D_DESC vd = {.Width = info->width,
                               .Height = info->height,
                               .Depth = info->depth,
                               .MipLevels = 1,
                               .Format = info->format,
                               .Usage = D3D11_USAGE_STAGING,
                               .CPUAccessFlags = cpu};
    return ID3D11Device_CreateTexture3D(device, &vd, NULL, (ID3D11Texture3D **)staging);
}

/* Copies between `data` (tightly packed) and the subresource through a staging resource. */
static bool transfer(void *object, UINT subresource, void *data, bool write)
{
    ID3D11Resource *resource = object;
    ID3D11Device *device;
    ID3D11DeviceContext *immediate;
    ID3D11Resource *staging = NULL;
    D3D11_MAPPED_SUBRESOURCE mapped;
    struct sub_info info;
    size_t row;
    HRESULT hr;

    if (!describe(resource, subresource, &info)) {
        CHECK(0, "subresource %u of %p does not exist", subresource, object);
        return false;
    }
    row = (size_t)info.width * info.bytes_per_pixel;
    ID3D11Resource_GetDevice(resource, &device);
    ID3D11Device_GetImmediateContext(device, &immediate);
    hr = create_staging(device, &info, &staging);
    if (SUCCEEDED(hr) && write) {
        hr = ID3D11DeviceContext_Map(immediate, staging, 0, D3D11_MAP_WRITE, 0, &mapped);
        if (SUCCEEDED(hr)) {
            for (UINT z = 0; z < info.depth; z++)
                for (UINT y = 0; y < info.height; y++)
                    memcpy((char *)mapped.pData + z * mapped.DepthPitch + y * mapped.RowPitch,
                           (char *)data + (z * info.height + y) * row, row);
            ID3D11DeviceContext_Unmap(immediate, staging, 0);
            ID3D11DeviceContext_CopySubresourceRegion(immediate, resource, subresource, 0, 0, 0,
                                                      staging, 0, NULL);
        }
    } else if (SUCCEEDED(hr)) {
        ID3D11DeviceContext_CopySubresourceRegion(immediate, staging, 0, 0, 0, 0, resource,
                                                  subresource, NULL);
        hr = ID3D11DeviceContext_Map(immediate, staging, 0, D3D11_MAP_READ, 0, &mapped);
        if (SUCCEEDED(hr)) {
            for (UINT z = 0; z < info.depth; z++)
                for (UINT y = 0; y < info.height; y++)
                    memcpy((char *)data + (z * info.height + y) * row,
                           (char *)mapped.pData + z * mapped.DepthPitch + y * mapped.RowPitch, row);
            ID3D11DeviceContext_Unmap(immediate, staging, 0);
        }
    }
    if (staging)
        ID3D11Resource_Release(staging);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(device);
    CHECK(SUCCEEDED(hr), "%s subresource %u through staging: 0x%08lx", write ? "write" : "read",
          subresource, (unsigned long)hr);
    return SUCCEEDED(hr);
}

static bool read_subresource(void *resource, UINT subresource, void *out)
{
    return transfer(resource, subresource, out, false);
}

static bool write_subresource(void *resource, UINT subresource, const void *data)
{
    return transfer(resource, subresource, (void *)data, true);
}

static UINT msaa_quality_levels(void *object, DXGI_FORMAT format, UINT samples)
{
    UINT levels = 0;

    if (FAILED(ID3D11Device_CheckMultisampleQualityLevels((ID3D11Device *)object, format, samples,
                                                          &levels)))
        return 0;
    return levels;
}

static ULONG release(void *object)
{
    return IUnknown_Release((IUnknown *)object);
}

static ULONG refcount(void *object)
{
    IUnknown_AddRef((IUnknown *)object);
    return IUnknown_Release((IUnknown *)object);
}

static struct test_cl_fns khr_fns, nv_fns;

#define D3D11_API(api_name, ext, sfx, fns)                                                         \
    {                                                                                              \
        .name = api_name, .extension = ext, .suffix = sfx,                                         \
        .fn_get_device_ids = "clGetDeviceIDsFromD3D11",                                            \
        .fn_create_buffer = "clCreateFromD3D11Buffer",                                             \
        .fn_create_texture2d = "clCreateFromD3D11Texture2D",                                       \
        .fn_create_texture3d = "clCreateFromD3D11Texture3D",                                       \
        .fn_acquire = "clEnqueueAcquireD3D11Objects",                                              \
        .fn_release = "clEnqueueReleaseD3D11Objects",                                              \
        .context_property = CL_CONTEXT_D3D11_DEVICE_KHR, .source_device = CL_D3D11_DEVICE_KHR,     \
        .source_adapter = CL_D3D11_DXGI_ADAPTER_KHR,                                               \
        .set_preferred = CL_PREFERRED_DEVICES_FOR_D3D11_KHR,                                       \
        .set_all = CL_ALL_DEVICES_FOR_D3D11_KHR,                                                   \
        .err_invalid_device = CL_INVALID_D3D11_DEVICE_KHR,                                         \
        .err_invalid_resource = CL_INVALID_D3D11_RESOURCE_KHR,                                     \
        .err_already_acquired = CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR,                            \
        .err_not_acquired = CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR,                                    \
        .command_acquire = CL_COMMAND_ACQUIRE_D3D11_OBJECTS_KHR,                                   \
        .command_release = CL_COMMAND_RELEASE_D3D11_OBJECTS_KHR,                                   \
        .mem_resource_query = CL_MEM_D3D11_RESOURCE_KHR,                                           \
        .image_subresource_query = CL_IMAGE_D3D11_SUBRESOURCE_KHR,                                 \
        .prefer_shared_query = CL_CONTEXT_D3D11_PREFER_SHARED_RESOURCES_KHR,                       \
        .other_context_property = CL_CONTEXT_D3D10_DEVICE_KHR,                                     \
        .create_other_device = create_d3d10_device, .create_device = create_device,                \
        .get_adapter = get_adapter, .create_buffer = create_buffer,                                \
        .create_texture2d = create_texture2d, .create_texture3d = create_texture3d,                \
        .read_subresource = read_subresource, .write_subresource = write_subresource,              \
        .msaa_quality_levels = msaa_quality_levels, .release = release, .refcount = refcount,      \
        .cl = &fns,                                                                                \
    }

const struct test_api api_d3d11_khr =
    D3D11_API("D3D11 KHR", "cl_khr_d3d11_sharing", "KHR", khr_fns);
const struct test_api api_d3d11_nv = D3D11_API("D3D11 NV", "cl_nv_d3d11_sharing", "NV", nv_fns);

/* The NV header's tokens are the KHR values (checked at compile time). */
_Static_assert(CL_CONTEXT_D3D11_DEVICE_NV == CL_CONTEXT_D3D11_DEVICE_KHR, "NV token");
_Static_assert(CL_D3D11_DEVICE_NV == CL_D3D11_DEVICE_KHR, "NV token");
_Static_assert(CL_D3D11_DXGI_ADAPTER_NV == CL_D3D11_DXGI_ADAPTER_KHR, "NV token");
_Static_assert(CL_PREFERRED_DEVICES_FOR_D3D11_NV == CL_PREFERRED_DEVICES_FOR_D3D11_KHR, "NV");
_Static_assert(CL_ALL_DEVICES_FOR_D3D11_NV == CL_ALL_DEVICES_FOR_D3D11_KHR, "NV token");
_Static_assert(CL_MEM_D3D11_RESOURCE_NV == CL_MEM_D3D11_RESOURCE_KHR, "NV token");
_Static_assert(CL_IMAGE_D3D11_SUBRESOURCE_NV == CL_IMAGE_D3D11_SUBRESOURCE_KHR, "NV token");
_Static_assert(CL_COMMAND_ACQUIRE_D3D11_OBJECTS_NV == CL_COMMAND_ACQUIRE_D3D11_OBJECTS_KHR, "NV");
_Static_assert(CL_COMMAND_RELEASE_D3D11_OBJECTS_NV == CL_COMMAND_RELEASE_D3D11_OBJECTS_KHR, "NV");
_Static_assert(CL_INVALID_D3D11_DEVICE_NV == CL_INVALID_D3D11_DEVICE_KHR, "NV token");
_Static_assert(CL_INVALID_D3D11_RESOURCE_NV == CL_INVALID_D3D11_RESOURCE_KHR, "NV token");
_Static_assert(CL_D3D11_RESOURCE_ALREADY_ACQUIRED_NV == CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR,
               "NV token");
_Static_assert(CL_D3D11_RESOURCE_NOT_ACQUIRED_NV == CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR, "NV");
