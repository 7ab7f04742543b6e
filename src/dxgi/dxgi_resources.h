/* D3D10 and D3D11 describe their resources with parallel types (D3D10_TEXTURE2D_DESC and
 * D3D11_TEXTURE2D_DESC, ID3D10Buffer_GetDesc and ID3D11Buffer_GetDesc...). This macro writes,
 * once for both APIs, a backend's <prefix>_check_resource and <prefix>_create_staging
 * (see dxcl_dxgi_check_fn and dxcl_dxgi_staging_fn). API is D3D10 or D3D11; planes_shared, an
 * expression, tells whether the API shares the planes of planar textures now. */
#ifndef DXCL_DXGI_RESOURCES_H
#define DXCL_DXGI_RESOURCES_H

#include "core/com.h"
#include "dxgi/dxgi.h"

#define DXCL_DXGI_RESOURCES(API, prefix, planes_shared)                                            \
    static void prefix##_describe(void *resource, API##_RESOURCE_DIMENSION type,                   \
                                  struct dxcl_dxgi_resource *out)                                  \
    {                                                                                              \
        API##_BUFFER_DESC b;                                                                       \
        API##_TEXTURE2D_DESC t;                                                                    \
        API##_TEXTURE3D_DESC v;                                                                    \
                                                                                                   \
        if (type == API##_RESOURCE_DIMENSION_BUFFER) {                                             \
            I##API##Buffer_GetDesc((I##API##Buffer *)resource, &b);                                \
            *out = (struct dxcl_dxgi_resource){.is_buffer = true,                                  \
                                               .immutable = b.Usage == API##_USAGE_IMMUTABLE,      \
                                               .byte_width = b.ByteWidth};                         \
        } else if (type == API##_RESOURCE_DIMENSION_TEXTURE2D) {                                   \
            I##API##Texture2D_GetDesc((I##API##Texture2D *)resource, &t);                          \
            *out = (struct dxcl_dxgi_resource){.immutable = t.Usage == API##_USAGE_IMMUTABLE,      \
                                               .staging = t.Usage == API##_USAGE_STAGING,          \
                                               .format = t.Format,                                 \
                                               .width = t.Width,                                   \
                                               .height = t.Height,                                 \
                                               .depth = 1,                                         \
                                               .mip_levels = t.MipLevels,                          \
                                               .array_size = t.ArraySize,                          \
                                               .sample_count = t.SampleDesc.Count,                 \
                                               .shares_planes = (planes_shared)};                  \
        } else {                                                                                   \
            I##API##Texture3D_GetDesc((I##API##Texture3D *)resource, &v);                          \
            *out = (struct dxcl_dxgi_resource){.is_3d = true,                                      \
                                               .immutable = v.Usage == API##_USAGE_IMMUTABLE,      \
                                               .staging = v.Usage == API##_USAGE_STAGING,          \
                                               .format = v.Format,                                 \
                                               .width = v.Width,                                   \
                                               .height = v.Height,                                 \
                                               .depth = v.Depth,                                   \
                                               .mip_levels = v.MipLevels,                          \
                                               .array_size = 1,                                    \
                                               .sample_count = 1};                                 \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static cl_int prefix##_check_resource(struct dxcl_context *ctx,                                \
                                          const struct dxcl_dxgi_args *args,                       \
                                          struct dxcl_dxgi_resource *info)                         \
    {                                                                                              \
        static const API##_RESOURCE_DIMENSION expected[] = {                                       \
            [DXCL_DXGI_BUFFER] = API##_RESOURCE_DIMENSION_BUFFER,                                  \
            [DXCL_DXGI_TEXTURE2D] = API##_RESOURCE_DIMENSION_TEXTURE2D,                            \
            [DXCL_DXGI_TEXTURE3D] = API##_RESOURCE_DIMENSION_TEXTURE3D};                           \
        I##API##Resource *resource;                                                                \
        API##_RESOURCE_DIMENSION type;                                                             \
        I##API##Device *device;                                                                    \
        bool same;                                                                                 \
                                                                                                   \
        if (FAILED(                                                                                \
                dxcl_query_interface(args->resource, &IID_I##API##Resource, (void **)&resource)))  \
            return DXCL_FAIL(CL_INVALID_##API##_RESOURCE_KHR, "%p is not an I" #API "Resource",    \
                             args->resource);                                                      \
        I##API##Resource_GetType(resource, &type);                                                 \
        /* NULL for a resource of another API's device (a D3D11 texture seen as a D3D10 one). */   \
        device = NULL;                                                                             \
        I##API##Resource_GetDevice(resource, &device);                                             \
        same = device && dxcl_same_object((IUnknown *)device, ctx->device);                        \
        if (device)                                                                                \
            I##API##Device_Release(device);                                                        \
        I##API##Resource_Release(resource);                                                        \
        if (type != expected[args->kind])                                                          \
            return DXCL_FAIL(CL_INVALID_##API##_RESOURCE_KHR, "%p: wrong resource type",           \
                             args->resource);                                                      \
        if (!same)                                                                                 \
            return DXCL_FAIL(CL_INVALID_##API##_RESOURCE_KHR,                                      \
                             "%p: another device than the context's", args->resource);             \
        prefix##_describe(args->resource, type, info);                                             \
        return CL_SUCCESS;                                                                         \
    }                                                                                              \
                                                                                                   \
    static HRESULT prefix##_create_staging(void *object, const struct dxcl_dxgi_resource *info,    \
                                           const struct dxcl_dxgi_surface *surface,                \
                                           IUnknown **staging)                                     \
    {                                                                                              \
        I##API##Device *device = object;                                                           \
        const UINT cpu = API##_CPU_ACCESS_READ | API##_CPU_ACCESS_WRITE;                           \
        API##_BUFFER_DESC b = {                                                                    \
            .ByteWidth = info->byte_width, .Usage = API##_USAGE_STAGING, .CPUAccessFlags = cpu};   \
        API##_TEXTURE2D_DESC t = {.Width = surface->width,                                         \
                                  .Height = surface->height,                                       \
                                  .MipLevels = 1,                                                  \
                                  .ArraySize = 1,                                                  \
                                  .Format = info->format,                                          \
                                  .SampleDesc = {1, 0},                                            \
                                  .Usage = API##_USAGE_STAGING,                                    \
                                  .CPUAccessFlags = cpu};                                          \
        API##_TEXTURE3D_DESC v = {.Width = surface->width,                                         \
                                  .Height = surface->height,                                       \
                                  .Depth = surface->depth,                                         \
                                  .MipLevels = 1,                                                  \
                                  .Format = info->format,                                          \
                                  .Usage = API##_USAGE_STAGING,                                    \
                                  .CPUAccessFlags = cpu};                                          \
                                                                                                   \
        if (info->is_buffer)                                                                       \
            return I##API##Device_CreateBuffer(device, &b, NULL, (I##API##Buffer **)staging);      \
        if (!info->is_3d)                                                                          \
            return I##API##Device_CreateTexture2D(device, &t, NULL,                                \
                                                  (I##API##Texture2D **)staging);                  \
        return I##API##Device_CreateTexture3D(device, &v, NULL, (I##API##Texture3D **)staging);    \
    }

#endif
