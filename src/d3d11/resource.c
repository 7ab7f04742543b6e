/* D3D11 resources: validation, the staging copy of one subresource, and the queries. */
#include "d3d11/d3d11.h"
#include "core/com.h"
#include "core/info.h"

#include <d3d11_4.h>
#include <stdlib.h>

struct d3d11_surface {
    ID3D11Resource *staging; /* one subresource, CPU readable and writable */
    bool is_buffer;
};

static cl_int invalid(const char *why, const void *resource)
{
    return DXCL_FAIL(CL_INVALID_D3D11_RESOURCE_KHR, "resource %p: %s", resource, why);
}

static cl_int describe(struct dxcl_context *ctx, ID3D11Resource *resource,
                       D3D11_RESOURCE_DIMENSION expected, struct dxcl_dxgi_resource *out)
{
    D3D11_RESOURCE_DIMENSION type;
    ID3D11Resource *checked;
    ID3D11Device *device;
    bool same_device;

    if (FAILED(dxcl_query_interface(resource, &IID_ID3D11Resource, (void **)&checked)))
        return invalid("not an ID3D11Resource", resource);
    ID3D11Resource_Release(checked);
    ID3D11Resource_GetType(resource, &type);
    if (type != expected)
        return invalid("wrong resource type", resource);
    ID3D11Resource_GetDevice(resource, &device);
    same_device = dxcl_same_object((IUnknown *)device, (IUnknown *)ctx->device);
    ID3D11Device_Release(device);
    if (!same_device)
        return invalid("created on another device than the context's", resource);
    memset(out, 0, sizeof(*out));
    if (type == D3D11_RESOURCE_DIMENSION_BUFFER) {
        D3D11_BUFFER_DESC desc;
        ID3D11Buffer_GetDesc((ID3D11Buffer *)resource, &desc);
        out->is_buffer = true;
        out->immutable = desc.Usage == D3D11_USAGE_IMMUTABLE;
        out->byte_width = desc.ByteWidth;
    } else if (type == D3D11_RESOURCE_DIMENSION_TEXTURE2D) {
        D3D11_TEXTURE2D_DESC desc;
        ID3D11Texture2D_GetDesc((ID3D11Texture2D *)resource, &desc);
        *out = (struct dxcl_dxgi_resource){
            .immutable = desc.Usage == D3D11_USAGE_IMMUTABLE, .format = desc.Format,
            .width = desc.Width, .height = desc.Height, .depth = 1,
            .mip_levels = desc.MipLevels, .array_size = desc.ArraySize,
            .sample_count = desc.SampleDesc.Count};
    } else {
        D3D11_TEXTURE3D_DESC desc;
        ID3D11Texture3D_GetDesc((ID3D11Texture3D *)resource, &desc);
        *out = (struct dxcl_dxgi_resource){
            .is_3d = true, .immutable = desc.Usage == D3D11_USAGE_IMMUTABLE,
            .format = desc.Format, .width = desc.Width, .height = desc.Height,
            .depth = desc.Depth, .mip_levels = desc.MipLevels, .array_size = 1,
            .sample_count = 1};
    }
    return CL_SUCCESS;
}

static HRESULT create_staging(ID3D11Device *device, const struct dxcl_dxgi_resource *resource,
                              const struct dxcl_shared_desc *desc, ID3D11Resource **staging)
{
    const UINT cpu = D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE;

    if (resource->is_buffer) {
        D3D11_BUFFER_DESC bd = {.ByteWidth = resource->byte_width,
                                .Usage = D3D11_USAGE_STAGING, .CPUAccessFlags = cpu};
        return ID3D11Device_CreateBuffer(device, &bd, NULL, (ID3D11Buffer **)staging);
    }
    if (!resource->is_3d) {
        D3D11_TEXTURE2D_DESC td = {.Width = desc->width, .Height = desc->height, .MipLevels = 1,
                                   .ArraySize = 1, .Format = resource->format,
                                   .SampleDesc = {1, 0}, .Usage = D3D11_USAGE_STAGING,
                                   .CPUAccessFlags = cpu};
        return ID3D11Device_CreateTexture2D(device, &td, NULL, (ID3D11Texture2D **)staging);
    }
    D3D11_TEXTURE3D_DESC vd = {.Width = desc->width, .Height = desc->height,
                               .Depth = desc->depth, .MipLevels = 1, .Format = resource->format,
                               .Usage = D3D11_USAGE_STAGING, .CPUAccessFlags = cpu};
    return ID3D11Device_CreateTexture3D(device, &vd, NULL, (ID3D11Texture3D **)staging);
}

static cl_int prepare(struct dxcl_context *ctx, ID3D11Resource *resource,
                      D3D11_RESOURCE_DIMENSION expected, UINT subresource,
                      struct dxcl_shared_desc *desc)
{
    struct dxcl_dxgi_resource info;
    struct d3d11_surface *surface;
    cl_int err;

    if ((err = describe(ctx, resource, expected, &info)) != CL_SUCCESS)
        return err;
    if ((err = dxcl_dxgi_describe(&dxcl_d3d11_backend, &info, subresource, desc)) != CL_SUCCESS)
        return err;
    if (!(surface = calloc(1, sizeof(*surface))))
        return CL_OUT_OF_HOST_MEMORY;
    surface->is_buffer = info.is_buffer;
    if (FAILED(create_staging(ctx->device, &info, desc, &surface->staging))) {
        free(surface);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "cannot create a staging copy of %p",
                         (void *)resource);
    }
    desc->resource = (IUnknown *)resource;
    desc->surface_data = surface;
    return CL_SUCCESS;
}

cl_mem d3d11_create(cl_context context, cl_mem_flags flags, ID3D11Resource *resource,
                    D3D11_RESOURCE_DIMENSION expected, UINT subresource, cl_int *errcode_ret)
{
    struct dxcl_shared_desc desc = {0};
    struct dxcl_context *ctx;
    cl_mem mem = NULL;
    cl_int err = dxcl_context_get(context, &dxcl_d3d11_backend, &ctx);

    if (err == CL_SUCCESS) {
        if ((err = dxcl_check_shared_flags(flags)) == CL_SUCCESS &&
            (err = prepare(ctx, resource, expected, subresource, &desc)) == CL_SUCCESS)
            mem = dxcl_memobj_create(ctx, flags, &desc, &err);
        dxcl_context_unref(ctx);
    }
    if (errcode_ret)
        *errcode_ret = err;
    dxcl_log_result("clCreateFromD3D11*", err);
    return mem;
}

/* The immediate context, inside the program's ID3D11Multithread protection when it turned
 * that on. */
static ID3D11DeviceContext *enter_device(struct dxcl_surface *surface, ID3D11Multithread **mt)
{
    ID3D11DeviceContext *immediate;

    ID3D11Device_GetImmediateContext((ID3D11Device *)surface->context->device, &immediate);
    *mt = NULL;
    if (SUCCEEDED(ID3D11DeviceContext_QueryInterface(immediate, &IID_ID3D11Multithread,
                                                     (void **)mt))) {
        if (ID3D11Multithread_GetMultithreadProtected(*mt)) {
            ID3D11Multithread_Enter(*mt);
        } else {
            ID3D11Multithread_Release(*mt);
            *mt = NULL;
        }
    }
    return immediate;
}

static void leave_device(ID3D11DeviceContext *immediate, ID3D11Multithread *mt)
{
    if (mt) {
        ID3D11Multithread_Leave(mt);
        ID3D11Multithread_Release(mt);
    }
    ID3D11DeviceContext_Release(immediate);
}

static void copy(ID3D11DeviceContext *immediate, struct d3d11_surface *s, ID3D11Resource *dst,
                 UINT dst_sub, ID3D11Resource *src, UINT src_sub)
{
    if (s->is_buffer)
        ID3D11DeviceContext_CopyResource(immediate, dst, src);
    else
        ID3D11DeviceContext_CopySubresourceRegion(immediate, dst, dst_sub, 0, 0, 0, src, src_sub,
                                                  NULL);
}

cl_int d3d11_lock_surface(struct dxcl_surface *surface)
{
    struct d3d11_surface *s = surface->backend_data;
    D3D11_MAPPED_SUBRESOURCE mapped;
    ID3D11Multithread *mt;
    ID3D11DeviceContext *immediate = enter_device(surface, &mt);
    HRESULT hr;

    copy(immediate, s, s->staging, 0, (ID3D11Resource *)surface->resource,
         surface->subresource);
    hr = ID3D11DeviceContext_Map(immediate, s->staging, 0, D3D11_MAP_READ_WRITE, 0, &mapped);
    leave_device(immediate, mt);
    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "mapping the staging copy failed (0x%08lx)",
                         (unsigned long)hr);
    surface->mapping.data = mapped.pData;
    surface->mapping.row_pitch = mapped.RowPitch;
    surface->mapping.slice_pitch = mapped.DepthPitch;
    return CL_SUCCESS;
}

void d3d11_unlock_surface(struct dxcl_surface *surface, bool write_back)
{
    struct d3d11_surface *s = surface->backend_data;
    ID3D11Multithread *mt;
    ID3D11DeviceContext *immediate = enter_device(surface, &mt);

    ID3D11DeviceContext_Unmap(immediate, s->staging, 0);
    if (write_back)
        copy(immediate, s, (ID3D11Resource *)surface->resource, surface->subresource,
             s->staging, 0);
    leave_device(immediate, mt);
    surface->mapping.data = NULL;
}

void d3d11_destroy_surface(struct dxcl_surface *surface)
{
    struct d3d11_surface *s = surface->backend_data;

    if (!s)
        return;
    ID3D11Resource_Release(s->staging);
    free(s);
    surface->backend_data = NULL;
}

cl_int d3d11_query(const struct dxcl_memobj *mem, bool image, cl_uint param, size_t size,
                   void *value, size_t *size_ret)
{
    if (!image && param == CL_MEM_D3D11_RESOURCE_KHR) {
        ID3D11Resource *resource = mem ? (ID3D11Resource *)mem->desc.resource : NULL;
        if (!mem)
            return DXCL_FAIL(CL_INVALID_D3D11_RESOURCE_KHR, "not a D3D11 shared object");
        return dxcl_info_return(&resource, sizeof(resource), size, value, size_ret);
    }
    if (image && param == CL_IMAGE_D3D11_SUBRESOURCE_KHR) {
        UINT subresource = mem ? mem->desc.subresource : 0;
        if (!mem || mem->desc.type == CL_MEM_OBJECT_BUFFER)
            return DXCL_FAIL(CL_INVALID_D3D11_RESOURCE_KHR, "not a D3D11 texture object");
        return dxcl_info_return(&subresource, sizeof(subresource), size, value, size_ret);
    }
    return DXCL_NOT_MY_QUERY;
}
