/* D3D10 and D3D11 create and describe their resources with parallel types (D3D10_TEXTURE2D_DESC
 * and D3D11_TEXTURE2D_DESC, ID3D10Device_CreateBuffer and ID3D11Device_CreateBuffer...). This
 * macro writes, once for both APIs, the struct test_api operations that differ only in those
 * names (as src/dxgi/dxgi_resources.h does for the backends). API is D3D10 or D3D11.
 *
 * Before it, the API file defines the three operations that differ in shape (D3D11 goes through
 * the immediate context, D3D10 through the device, and D3D10 maps each resource type itself):
 *   static void copy_subresource(I<API>Device *, I<API>Resource *dst, UINT dst_sub,
 *                                I<API>Resource *src, UINT src_sub);
 *   static HRESULT map_staging(I<API>Device *, I<API>Resource *staging, enum test_kind kind,
 *                              bool write, struct test_mapped *mapped);
 *   static void unmap_staging(I<API>Device *, I<API>Resource *staging, enum test_kind kind);
 * It defines create_buffer, create_texture2d, create_texture3d, read_subresource,
 * write_subresource and msaa_quality_levels; TEST_DXGI_TABLE fills a struct test_api with them
 * and TEST_DXGI_TABLES defines the API's KHR and NV tables. */
#ifndef DXCL_TEST_API_DXGI_H
#define DXCL_TEST_API_DXGI_H

#include "interop.h"

#include <stdlib.h>

#define TEST_DXGI_API(API)                                                                         \
    static API##_USAGE usage_of(enum test_usage usage)                                             \
    {                                                                                              \
        return usage == TEST_USAGE_IMMUTABLE ? API##_USAGE_IMMUTABLE : API##_USAGE_DEFAULT;        \
    }                                                                                              \
                                                                                                   \
    static void *create_buffer(void *device, UINT size, enum test_usage usage, const void *data)   \
    {                                                                                              \
        API##_BUFFER_DESC desc = {                                                                 \
            .ByteWidth = size, .Usage = usage_of(usage), .BindFlags = API##_BIND_VERTEX_BUFFER};   \
        API##_SUBRESOURCE_DATA init = {.pSysMem = data};                                           \
        I##API##Buffer *buffer = NULL;                                                             \
        HRESULT hr = I##API##Device_CreateBuffer((I##API##Device *)device, &desc,                  \
                                                 data ? &init : NULL, &buffer);                    \
                                                                                                   \
        CHECK(SUCCEEDED(hr), #API " CreateBuffer(%u bytes): 0x%08lx", size, (unsigned long)hr);    \
        return SUCCEEDED(hr) ? buffer : NULL;                                                      \
    }                                                                                              \
                                                                                                   \
    /* Initial data for every subresource, tightly packed; NULL without data. */                   \
    static API##_SUBRESOURCE_DATA *init_data(const struct test_texture_desc *desc, bool is_3d,     \
                                             const void *const *data)                              \
    {                                                                                              \
        UINT count = test_subresource_count(desc, is_3d);                                          \
        API##_SUBRESOURCE_DATA *init;                                                              \
                                                                                                   \
        if (!data)                                                                                 \
            return NULL;                                                                           \
        init = calloc(count, sizeof(*init));                                                       \
        REQUIRE(init != NULL, "out of memory");                                                    \
        for (UINT i = 0; i < count; i++) {                                                         \
            init[i].pSysMem = data[i];                                                             \
            test_packed_pitches(desc, is_3d, i, &init[i].SysMemPitch, &init[i].SysMemSlicePitch);  \
        }                                                                                          \
        return init;                                                                               \
    }                                                                                              \
                                                                                                   \
    static void *create_texture2d(void *device, const struct test_texture_desc *desc,              \
                                  const void *const *data)                                         \
    {                                                                                              \
        API##_TEXTURE2D_DESC td = {.Width = desc->width,                                           \
                                   .Height = desc->height,                                         \
                                   .MipLevels = desc->mips,                                        \
                                   .ArraySize = desc->array_size,                                  \
                                   .Format = desc->format,                                         \
                                   .SampleDesc = {desc->samples ? desc->samples : 1, 0},           \
                                   .Usage = usage_of(desc->usage),                                 \
                                   .BindFlags =                                                    \
                                       API##_BIND_SHADER_RESOURCE |                                \
                                       (desc->samples > 1 ? API##_BIND_RENDER_TARGET : 0)};        \
        API##_SUBRESOURCE_DATA *init = init_data(desc, false, data);                               \
        I##API##Texture2D *texture = NULL;                                                         \
        HRESULT hr =                                                                               \
            I##API##Device_CreateTexture2D((I##API##Device *)device, &td, init, &texture);         \
                                                                                                   \
        free(init);                                                                                \
        CHECK(SUCCEEDED(hr),                                                                       \
              #API " CreateTexture2D(%ux%u, %u mips, %u slices, format %d, %u samples): 0x%08lx",  \
              desc->width, desc->height, desc->mips, desc->array_size, (int)desc->format,          \
              td.SampleDesc.Count, (unsigned long)hr);                                             \
        return SUCCEEDED(hr) ? texture : NULL;                                                     \
    }                                                                                              \
                                                                                                   \
    static void *create_texture3d(void *device, const struct test_texture_desc *desc,              \
                                  const void *const *data)                                         \
    {                                                                                              \
        API##_TEXTURE3D_DESC td = {.Width = desc->width,                                           \
                                   .Height = desc->height,                                         \
                                   .Depth = desc->depth,                                           \
                                   .MipLevels = desc->mips,                                        \
                                   .Format = desc->format,                                         \
                                   .Usage = usage_of(desc->usage),                                 \
                                   .BindFlags = API##_BIND_SHADER_RESOURCE};                       \
        API##_SUBRESOURCE_DATA *init = init_data(desc, true, data);                                \
        I##API##Texture3D *texture = NULL;                                                         \
        HRESULT hr =                                                                               \
            I##API##Device_CreateTexture3D((I##API##Device *)device, &td, init, &texture);         \
                                                                                                   \
        free(init);                                                                                \
        CHECK(SUCCEEDED(hr), #API " CreateTexture3D(%ux%ux%u, %u mips, format %d): 0x%08lx",       \
              desc->width, desc->height, desc->depth, desc->mips, (int)desc->format,               \
              (unsigned long)hr);                                                                  \
        return SUCCEEDED(hr) ? texture : NULL;                                                     \
    }                                                                                              \
                                                                                                   \
    /* The geometry of one subresource of any resource. */                                         \
    static bool describe(I##API##Resource *resource, UINT subresource,                             \
                         struct test_subresource *sub)                                             \
    {                                                                                              \
        struct test_texture_desc desc = {.depth = 1, .mips = 1, .array_size = 1};                  \
        API##_RESOURCE_DIMENSION type;                                                             \
        enum test_kind kind;                                                                       \
                                                                                                   \
        I##API##Resource_GetType(resource, &type);                                                 \
        if (type == API##_RESOURCE_DIMENSION_BUFFER) {                                             \
            API##_BUFFER_DESC bd;                                                                  \
            I##API##Buffer_GetDesc((I##API##Buffer *)resource, &bd);                               \
            kind = TEST_KIND_BUFFER;                                                               \
            desc.width = bd.ByteWidth;                                                             \
        } else if (type == API##_RESOURCE_DIMENSION_TEXTURE2D) {                                   \
            API##_TEXTURE2D_DESC td;                                                               \
            I##API##Texture2D_GetDesc((I##API##Texture2D *)resource, &td);                         \
            kind = TEST_KIND_TEXTURE2D;                                                            \
            desc = (struct test_texture_desc){.width = td.Width,                                   \
                                              .height = td.Height,                                 \
                                              .depth = 1,                                          \
                                              .mips = td.MipLevels,                                \
                                              .array_size = td.ArraySize,                          \
                                              .format = td.Format};                                \
        } else if (type == API##_RESOURCE_DIMENSION_TEXTURE3D) {                                   \
            API##_TEXTURE3D_DESC vd;                                                               \
            I##API##Texture3D_GetDesc((I##API##Texture3D *)resource, &vd);                         \
            kind = TEST_KIND_TEXTURE3D;                                                            \
            desc = (struct test_texture_desc){.width = vd.Width,                                   \
                                              .height = vd.Height,                                 \
                                              .depth = vd.Depth,                                   \
                                              .mips = vd.MipLevels,                                \
                                              .array_size = 1,                                     \
                                              .format = vd.Format};                                \
        } else {                                                                                   \
            return false;                                                                          \
        }                                                                                          \
        return test_subresource_locate(kind, &desc, subresource, sub);                             \
    }                                                                                              \
                                                                                                   \
    /* A CPU-readable and -writable twin of one subresource. */                                    \
    static HRESULT create_staging(I##API##Device *device, const struct test_subresource *sub,      \
                                  I##API##Resource **staging)                                      \
    {                                                                                              \
        const UINT cpu = API##_CPU_ACCESS_READ | API##_CPU_ACCESS_WRITE;                           \
                                                                                                   \
        if (sub->kind == TEST_KIND_BUFFER) {                                                       \
            API##_BUFFER_DESC bd = {                                                               \
                .ByteWidth = sub->width, .Usage = API##_USAGE_STAGING, .CPUAccessFlags = cpu};     \
            return I##API##Device_CreateBuffer(device, &bd, NULL, (I##API##Buffer **)staging);     \
        }                                                                                          \
        if (sub->kind == TEST_KIND_TEXTURE2D) {                                                    \
            API##_TEXTURE2D_DESC td = {.Width = sub->width,                                        \
                                       .Height = sub->height,                                      \
                                       .MipLevels = 1,                                             \
                                       .ArraySize = 1,                                             \
                                       .Format = sub->format,                                      \
                                       .SampleDesc = {1, 0},                                       \
                                       .Usage = API##_USAGE_STAGING,                               \
                                       .CPUAccessFlags = cpu};                                     \
            return I##API##Device_CreateTexture2D(device, &td, NULL,                               \
                                                  (I##API##Texture2D **)staging);                  \
        }                                                                                          \
        API##_TEXTURE3D_DESC vd = {.Width = sub->width,                                            \
                                   .Height = sub->height,                                          \
                                   .Depth = sub->depth,                                            \
                                   .MipLevels = 1,                                                 \
                                   .Format = sub->format,                                          \
                                   .Usage = API##_USAGE_STAGING,                                   \
                                   .CPUAccessFlags = cpu};                                         \
        return I##API##Device_CreateTexture3D(device, &vd, NULL, (I##API##Texture3D **)staging);   \
    }                                                                                              \
                                                                                                   \
    /* Copies between `data` (tightly packed) and the subresource through a staging copy on the    \
     * resource's own device. */                                                                   \
    static bool transfer(void *object, UINT subresource, void *data, bool write)                   \
    {                                                                                              \
        I##API##Resource *resource = object, *staging = NULL;                                      \
        I##API##Device *device;                                                                    \
        struct test_subresource sub;                                                               \
        struct test_mapped mapped;                                                                 \
        HRESULT hr;                                                                                \
                                                                                                   \
        if (!describe(resource, subresource, &sub)) {                                              \
            CHECK(0, "subresource %u of %p does not exist", subresource, object);                  \
            return false;                                                                          \
        }                                                                                          \
        I##API##Resource_GetDevice(resource, &device);                                             \
        hr = create_staging(device, &sub, &staging);                                               \
        if (SUCCEEDED(hr) && !write)                                                               \
            copy_subresource(device, staging, 0, resource, subresource);                           \
        if (SUCCEEDED(hr))                                                                         \
            hr = map_staging(device, staging, sub.kind, write, &mapped);                           \
        if (SUCCEEDED(hr)) {                                                                       \
            test_copy_mapped(&sub, &mapped, data, write);                                          \
            unmap_staging(device, staging, sub.kind);                                              \
            if (write)                                                                             \
                copy_subresource(device, resource, subresource, staging, 0);                       \
        }                                                                                          \
        if (staging)                                                                               \
            I##API##Resource_Release(staging);                                                     \
        I##API##Device_Release(device);                                                            \
        CHECK(SUCCEEDED(hr), #API " %s subresource %u through staging: 0x%08lx",                   \
              write ? "write" : "read", subresource, (unsigned long)hr);                           \
        return SUCCEEDED(hr);                                                                      \
    }                                                                                              \
                                                                                                   \
    static bool read_subresource(void *resource, UINT subresource, void *out)                      \
    {                                                                                              \
        return transfer(resource, subresource, out, false);                                        \
    }                                                                                              \
                                                                                                   \
    static bool write_subresource(void *resource, UINT subresource, const void *data)              \
    {                                                                                              \
        return transfer(resource, subresource, (void *)data, true);                                \
    }                                                                                              \
                                                                                                   \
    static UINT msaa_quality_levels(void *device, DXGI_FORMAT format, UINT samples)                \
    {                                                                                              \
        UINT levels = 0;                                                                           \
                                                                                                   \
        if (FAILED(I##API##Device_CheckMultisampleQualityLevels((I##API##Device *)device, format,  \
                                                                samples, &levels)))                \
            return 0;                                                                              \
        return levels;                                                                             \
    }

/* A struct test_api initializer for the API's KHR or NV names (suffix "KHR" or "NV"; the NV
 * tokens have the KHR values) on the functions TEST_DXGI_API wrote. fns: the struct
 * test_cl_fns that interop_load() fills; device: the table's create_device; other_property
 * and other_device: another Direct3D API's context property and device. */
#define TEST_DXGI_TABLE(API, api_name, ext, sfx, fns, device, other_property, other_device)        \
    {                                                                                              \
        .name = api_name, .extension = ext, .suffix = sfx,                                         \
        .fn_get_device_ids = "clGetDeviceIDsFrom" #API,                                            \
        .fn_create_buffer = "clCreateFrom" #API "Buffer",                                          \
        .fn_create_texture2d = "clCreateFrom" #API "Texture2D",                                    \
        .fn_create_texture3d = "clCreateFrom" #API "Texture3D",                                    \
        .fn_acquire = "clEnqueueAcquire" #API "Objects",                                           \
        .fn_release = "clEnqueueRelease" #API "Objects",                                           \
        .context_property = CL_CONTEXT_##API##_DEVICE_KHR, .source_device = CL_##API##_DEVICE_KHR, \
        .source_adapter = CL_##API##_DXGI_ADAPTER_KHR,                                             \
        .set_preferred = CL_PREFERRED_DEVICES_FOR_##API##_KHR,                                     \
        .set_all = CL_ALL_DEVICES_FOR_##API##_KHR,                                                 \
        .err_invalid_device = CL_INVALID_##API##_DEVICE_KHR,                                       \
        .err_invalid_resource = CL_INVALID_##API##_RESOURCE_KHR,                                   \
        .err_already_acquired = CL_##API##_RESOURCE_ALREADY_ACQUIRED_KHR,                          \
        .err_not_acquired = CL_##API##_RESOURCE_NOT_ACQUIRED_KHR,                                  \
        .command_acquire = CL_COMMAND_ACQUIRE_##API##_OBJECTS_KHR,                                 \
        .command_release = CL_COMMAND_RELEASE_##API##_OBJECTS_KHR,                                 \
        .mem_resource_query = CL_MEM_##API##_RESOURCE_KHR,                                         \
        .image_subresource_query = CL_IMAGE_##API##_SUBRESOURCE_KHR,                               \
        .prefer_shared_query = CL_CONTEXT_##API##_PREFER_SHARED_RESOURCES_KHR,                     \
        .other_context_property = other_property, .create_other_device = other_device,             \
        .create_device = device, .get_adapter = test_dxgi_adapter, .create_buffer = create_buffer, \
        .create_texture2d = create_texture2d, .create_texture3d = create_texture3d,                \
        .read_subresource = read_subresource, .write_subresource = write_subresource,              \
        .msaa_quality_levels = msaa_quality_levels, .release = test_com_release,                   \
        .refcount = test_com_refcount, .multithread = multithread, .cl = &fns,                     \
    }

/* Checks at compile time that dxcl's NV header (dxcl/cl_nv_d3d1x.h) gives the NV tokens the
 * KHR values. */
#define TEST_DXGI_NV_TOKENS(API)                                                                   \
    _Static_assert(CL_CONTEXT_##API##_DEVICE_NV == CL_CONTEXT_##API##_DEVICE_KHR, "NV token");     \
    _Static_assert(CL_##API##_DEVICE_NV == CL_##API##_DEVICE_KHR, "NV token");                     \
    _Static_assert(CL_##API##_DXGI_ADAPTER_NV == CL_##API##_DXGI_ADAPTER_KHR, "NV token");         \
    _Static_assert(CL_PREFERRED_DEVICES_FOR_##API##_NV == CL_PREFERRED_DEVICES_FOR_##API##_KHR,    \
                   "NV token");                                                                    \
    _Static_assert(CL_ALL_DEVICES_FOR_##API##_NV == CL_ALL_DEVICES_FOR_##API##_KHR, "NV token");   \
    _Static_assert(CL_MEM_##API##_RESOURCE_NV == CL_MEM_##API##_RESOURCE_KHR, "NV token");         \
    _Static_assert(CL_IMAGE_##API##_SUBRESOURCE_NV == CL_IMAGE_##API##_SUBRESOURCE_KHR,            \
                   "NV token");                                                                    \
    _Static_assert(CL_COMMAND_ACQUIRE_##API##_OBJECTS_NV ==                                        \
                       CL_COMMAND_ACQUIRE_##API##_OBJECTS_KHR,                                     \
                   "NV token");                                                                    \
    _Static_assert(CL_COMMAND_RELEASE_##API##_OBJECTS_NV ==                                        \
                       CL_COMMAND_RELEASE_##API##_OBJECTS_KHR,                                     \
                   "NV token");                                                                    \
    _Static_assert(CL_INVALID_##API##_DEVICE_NV == CL_INVALID_##API##_DEVICE_KHR, "NV token");     \
    _Static_assert(CL_INVALID_##API##_RESOURCE_NV == CL_INVALID_##API##_RESOURCE_KHR, "NV token"); \
    _Static_assert(CL_##API##_RESOURCE_ALREADY_ACQUIRED_NV ==                                      \
                       CL_##API##_RESOURCE_ALREADY_ACQUIRED_KHR,                                   \
                   "NV token");                                                                    \
    _Static_assert(CL_##API##_RESOURCE_NOT_ACQUIRED_NV == CL_##API##_RESOURCE_NOT_ACQUIRED_KHR,    \
                   "NV token")

/* Defines api_<api>_khr and api_<api>_nv (api: d3d10 or d3d11) on test_create_<api>_device,
 * with their entry point slots khr_fns and nv_fns, after TEST_DXGI_API(API); checks the NV
 * tokens. */
#define TEST_DXGI_TABLES(API, api, other_property, other_device)                                   \
    static struct test_cl_fns khr_fns, nv_fns;                                                     \
    const struct test_api api_##api##_khr =                                                        \
        TEST_DXGI_TABLE(API, #API " KHR", "cl_khr_" #api "_sharing", "KHR", khr_fns,               \
                        test_create_##api##_device, other_property, other_device);                 \
    const struct test_api api_##api##_nv =                                                         \
        TEST_DXGI_TABLE(API, #API " NV", "cl_nv_" #api "_sharing", "NV", nv_fns,                   \
                        test_create_##api##_device, other_property, other_device);                 \
    TEST_DXGI_NV_TOKENS(API)

#endif
