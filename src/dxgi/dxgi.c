/* What D3D10 and D3D11 share (dxgi.h): adapters and device queries, the D3D1x resource rules,
 * the staging pool of a context and its mappings, the DXGI format family. */
#include "dxgi/dxgi.h"
#include "core/com.h"
#include "core/devices.h"
#include "core/driver.h"
#include "core/fault.h"
#include "engine/gpu_hooks.h"
#include "formats/pixels.h"

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

/* A surface's Direct3D resources, once the pool does not keep them. */
static void free_staging(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    dxcl_dxgi_release_kept(s); /* before the staging memory they may stand on */
    if (s->twin)
        dxcl_gpu_hooks()->twin_release(ctx, s);
    else
        IUnknown_Release(s->staging);
    free(s);
}

static bool same_mapping(const struct dxcl_mapping *a, const struct dxcl_mapping *b)
{
    return a->data == b->data && a->row_pitch == b->row_pitch && a->slice_pitch == b->slice_pitch;
}

/* The bytes a mapping of the staging resource spans: its last row holds only its pixels. */
static size_t mapped_extent(const struct dxcl_dxgi_surface *s, const struct dxcl_mapping *mapping)
{
    cl_image_format format;
    size_t slices;

    if (s->kind == DXCL_DXGI_BUFFER)
        return s->byte_width;
    if (dxcl_dxgi_plane_count(s->format)) /* NV12: Y rows, then half as many UV rows */
        return (s->height + s->height / 2 - 1) * mapping->row_pitch + s->width;
    if (!dxcl_format_from_dxgi(s->format, &format))
        return 0;
    slices = s->kind == DXCL_DXGI_TEXTURE3D ? s->depth : 1;
    return (slices - 1) * mapping->slice_pitch + (s->height - 1) * mapping->row_pitch +
           s->width * dxcl_element_size(&format);
}

void dxcl_dxgi_mapped(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxcl_mapping *mapping = &surface->mapping;
    size_t extent;
    void *copy;

    if (dxcl_fault_hit(DXCL_FAULT_MOVE) && (extent = mapped_extent(s, mapping)) &&
        (copy = malloc(extent))) {
        memcpy(copy, mapping->data, extent);
        s->moved_by_fault = mapping->data;
        mapping->data = copy;
    }
    if (s->stable.data && !same_mapping(&s->stable, mapping)) {
        DXCL_LOG("staging copy %p mapped at %p, not %p: it moves, and is no object's storage again",
                 (void *)s->staging, mapping->data, s->stable.data);
        s->stable = (struct dxcl_mapping){0};
        s->moved = true;
    }
}

void dxcl_dxgi_unmapping(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxcl_mapping *mapping = &surface->mapping;

    if (!s->moved_by_fault)
        return;
    memcpy(s->moved_by_fault, mapping->data, mapped_extent(s, mapping));
    free(mapping->data);
    mapping->data = s->moved_by_fault;
    s->moved_by_fault = NULL;
}

/* Locks twice, copying the resource in each time as an acquire does; a pooled staging
 * resource remembers the answer, so objects created every frame do not pay the check again.
 * One that moved, then or since, is never used as storage. */
bool dxcl_dxgi_stable_host_copy(struct dxcl_surface *surface, struct dxcl_mapping *mapping)
{
    const struct dxcl_backend *backend = surface->backend;
    struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxcl_mapping first;
    bool stable = false;

    if (s->moved)
        return false;
    if (s->stable.data) {
        *mapping = s->stable;
        return true;
    }
    if (backend->copy_to_host(surface) != CL_SUCCESS)
        return false;
    first = surface->mapping;
    backend->unmap_host(surface, false);
    if (backend->copy_to_host(surface) != CL_SUCCESS)
        return false;
    stable = same_mapping(&first, &surface->mapping);
    backend->unmap_host(surface, false);
    if (stable)
        *mapping = s->stable = first;
    s->moved = !stable;
    return stable;
}

void dxcl_dxgi_close_device(struct dxcl_context *ctx)
{
    struct dxcl_dxgi_surface *s = ctx->backend_data, *next;

    for (; s; s = next) {
        next = s->next_pooled;
        free_staging(ctx, s);
    }
    ctx->backend_data = NULL;
    IUnknown_Release((IUnknown *)ctx->device);
}

static bool lone_planes(struct dxcl_context *ctx, const struct dxcl_dxgi_resource *resource,
                        void *d3d_resource);

cl_int dxcl_dxgi_prepare(struct dxcl_context *ctx, const struct dxcl_dxgi_args *args,
                         dxcl_dxgi_check_fn check, dxcl_dxgi_staging_fn create_staging,
                         struct dxcl_shared_desc *desc)
{
    struct dxcl_dxgi_resource info;
    struct dxcl_dxgi_surface *surface;
    bool planar;
    cl_int err;

    if ((err = check(ctx, args, &info)) != CL_SUCCESS ||
        (err = dxcl_dxgi_describe(ctx->backend, &info, args->subresource,
                                  lone_planes(ctx, &info, args->resource), desc)) != CL_SUCCESS)
        return err;
    if (!(surface = calloc(1, sizeof(*surface))))
        return CL_OUT_OF_HOST_MEMORY;
    /* A plane's staging copy holds its whole slice (mip 0: the planar rule has no levels). */
    planar = desc->share_surface || desc->lone_plane;
    *surface = (struct dxcl_dxgi_surface){.kind = args->kind,
                                          .format = info.format,
                                          .width = planar ? info.width : (UINT)desc->width,
                                          .height = planar ? info.height : (UINT)desc->height,
                                          .depth = (UINT)desc->depth,
                                          .byte_width = info.byte_width,
                                          .of_staging = info.staging,
                                          .lone_plane = desc->lone_plane,
                                          .plane = desc->lone_plane ? desc->plane : 0};
    if (dxcl_fault_hit(DXCL_FAULT_STAGING) ||
        (!dxcl_dxgi_pool_take(ctx, surface, desc->access) &&
         FAILED(create_staging(ctx->device, &info, surface, &surface->staging)))) {
        free(surface);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "cannot create a staging copy of %p", args->resource);
    }
    /* The object takes the kept driver object of its access or releases it; the others stay. */
    desc->kept = surface->kept[dxcl_dxgi_kept_slot(desc->access)];
    surface->kept[dxcl_dxgi_kept_slot(desc->access)] = (struct dxcl_kept_object){0};
    desc->resource = args->resource;
    desc->surface_data = surface;
    return CL_SUCCESS;
}

void dxcl_dxgi_destroy_surface(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data, *next;

    if (!s)
        return;
    /* The kept driver object goes with the twin (its import) or the staging copy; what finds
     * its place taken is released by the core. */
    if (surface->kept.handle && s->twin && !s->twin->cl_import) {
        s->twin->cl_import = surface->kept.handle;
        s->twin->cl_import_flags = surface->kept.flags;
        surface->kept = (struct dxcl_kept_object){0};
    } else if (surface->kept.handle && !s->twin &&
               !s->kept[dxcl_dxgi_kept_slot(surface->kept.flags)].handle) {
        s->kept[dxcl_dxgi_kept_slot(surface->kept.flags)] = surface->kept;
        surface->kept = (struct dxcl_kept_object){0};
    }
    surface->backend_data = NULL;
    /* A twin still OpenCL's (a hand-out that failed, or never went) is given up, not pooled. */
    if (s->twin && s->twin->handed_in) {
        DXCL_LOG("%s resource %p: its twin is given up, not pooled (still OpenCL's)",
                 surface->backend->name, (void *)surface->resource);
        free_staging(surface->context, s);
        return;
    }
    for (s = dxcl_dxgi_pool_put_evicting(surface->context, s); s; s = next) {
        next = s->next_pooled;
        free_staging(surface->context, s);
    }
}

static UINT mip_size(UINT size, UINT mip)
{
    size >>= mip;
    return size ? size : 1;
}

/* cl_intel_d3d11_nv12_media_sharing: subresource = plane + planes x array slice, each plane of
 * a slice at mip 0 (the text's rule names no level); the planes of a slice share one staging
 * copy of the slice. */
static cl_int describe_plane(const struct dxcl_dxgi_resource *resource, UINT subresource, bool lone,
                             struct dxcl_shared_desc *desc)
{
    UINT planes = dxcl_dxgi_plane_count(resource->format);
    struct dxcl_plane plane;

    if (subresource >= planes * resource->array_size)
        return DXCL_FAIL(CL_INVALID_VALUE,
                         "subresource %u out of range (%u planes x %u array slices)", subresource,
                         planes, resource->array_size);
    dxcl_format_from_dxgi_plane(resource->format, subresource % planes, &plane);
    desc->format = plane.format;
    desc->subresource = subresource;
    desc->plane = subresource % planes;
    desc->surface_subresource = lone ? subresource : subresource / planes * resource->mip_levels;
    desc->share_surface = !lone;
    desc->lone_plane = lone;
    desc->type = CL_MEM_OBJECT_IMAGE2D;
    desc->width = resource->width / plane.width_divisor;
    desc->height = resource->height / plane.height_divisor;
    desc->depth = 1;
    return CL_SUCCESS;
}

void dxcl_dxgi_plane_mapping(const struct dxcl_memobj *mem, const struct dxcl_mapping *surface,
                             struct dxcl_mapping *plane)
{
    const struct dxcl_dxgi_surface *s = mem->surface->backend_data;

    *plane = *surface;
    if (mem->desc.plane > 0 && !mem->desc.lone_plane)
        plane->data = (char *)surface->data + surface->row_pitch * s->height;
}

/* The planes of a planar texture get a surface each (a twin each) where the GPU path will take
 * them: the backend has the path, the texture is DXVK's, the context may take the path, and the
 * driver has every plane's format natively. Elsewhere they share their slice's surface. */
static bool lone_planes(struct dxcl_context *ctx, const struct dxcl_dxgi_resource *resource,
                        void *d3d_resource)
{
    struct dxcl_backing backing;
    struct dxcl_plane plane;
    unsigned planes = dxcl_dxgi_plane_count(resource->format);

    if (!planes || !resource->shares_planes || resource->staging || !ctx->backend->device_storage ||
        !dxcl_gpu_hooks()->serves_resource(ctx, d3d_resource))
        return false;
    for (unsigned p = 0; p < planes; p++)
        if (!dxcl_format_from_dxgi_plane(resource->format, p, &plane) ||
            dxcl_choose_backing(ctx->handle, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                &plane.format, &backing) != CL_SUCCESS ||
            backing.emulated)
            return false;
    return true;
}

cl_int dxcl_dxgi_describe(const struct dxcl_backend *backend,
                          const struct dxcl_dxgi_resource *resource, UINT subresource, bool lone,
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
    if (resource->shares_planes && dxcl_dxgi_plane_count(resource->format))
        return describe_plane(resource, subresource, lone, desc);
    if (subresource >= count)
        return DXCL_FAIL(CL_INVALID_VALUE, "subresource %u out of range (%u subresources)",
                         subresource, count);
    if (!dxcl_format_from_dxgi(resource->format, &desc->format))
        return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                         "DXGI format %d is not in the sharing table", (int)resource->format);
    mip = subresource % resource->mip_levels;
    desc->subresource = subresource;
    desc->surface_subresource = subresource;
    desc->type = resource->is_3d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D;
    desc->width = mip_size(resource->width, mip);
    desc->height = mip_size(resource->height, mip);
    desc->depth = resource->is_3d ? mip_size(resource->depth, mip) : 1;
    return CL_SUCCESS;
}

/* cl_intel_sharing_format_query_d3d10/_d3d11: the DXGI table, with NV12 after it where the
 * family shares planes (each plane's own CL format). */
static size_t dxgi_count(void)
{
    return dxcl_dxgi_format_count();
}

static cl_uint dxgi_format_at(size_t index)
{
    return (cl_uint)dxcl_dxgi_format_at(index);
}

static bool dxgi_plane_format(cl_uint format, cl_uint plane, cl_image_format *out)
{
    return plane == 0 && dxcl_format_from_dxgi((DXGI_FORMAT)format, out);
}

static size_t planar_count(void)
{
    return dxcl_dxgi_format_count() + 1;
}

static cl_uint planar_format_at(size_t index)
{
    return index < dxcl_dxgi_format_count() ? dxgi_format_at(index) : DXGI_FORMAT_NV12;
}

static bool planar_plane_format(cl_uint format, cl_uint plane, cl_image_format *out)
{
    struct dxcl_plane planar;

    if (!dxcl_dxgi_plane_count((DXGI_FORMAT)format))
        return dxgi_plane_format(format, plane, out);
    if (!dxcl_format_from_dxgi_plane((DXGI_FORMAT)format, plane, &planar))
        return false;
    *out = planar.format;
    return true;
}

/* Texture2D (and each slice of an array) gives 2D images, Texture3D 3D images. */
static bool dxgi_creates_type(cl_mem_object_type type)
{
    return type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D;
}

struct dxcl_format_family dxcl_dxgi_format_family(const struct dxcl_backend *backend,
                                                  dxcl_dxgi_device_backs_fn device_backs,
                                                  bool shares_planes)
{
    if (shares_planes)
        return (struct dxcl_format_family){backend,           planar_count,
                                           planar_format_at,  planar_plane_format,
                                           dxgi_creates_type, device_backs};
    return (struct dxcl_format_family){backend,           dxgi_count,        dxgi_format_at,
                                       dxgi_plane_format, dxgi_creates_type, device_backs};
}

/* Whether dxcl may use the device from its own threads, from what the device tells: created
 * single-threaded, has a protection interface, protected now (else turned on). */
static bool thread_rule(struct dxcl_context *ctx, bool single_threaded,
                        struct dxcl_dxgi_multithread *mt)
{
    if (single_threaded) {
        DXCL_LOG("%s device %p was created single-threaded: dxcl uses it only inside the "
                 "program's OpenCL calls",
                 ctx->backend->name, ctx->device);
        return false;
    }
    if (!mt) {
        DXCL_LOG("%s device %p has no multithread protection: dxcl uses it only inside the "
                 "program's OpenCL calls",
                 ctx->backend->name, ctx->device);
        return false;
    }
    if (!mt->lpVtbl->GetMultithreadProtected((IUnknown *)mt)) {
        DXCL_LOG("%s device %p: dxcl turns on its multithread protection, so that its copies "
                 "never overlap the program's own calls",
                 ctx->backend->name, ctx->device);
        mt->lpVtbl->SetMultithreadProtected((IUnknown *)mt, TRUE);
    }
    return true;
}

bool dxcl_dxgi_prepare_device(struct dxcl_context *ctx, bool single_threaded,
                              struct dxcl_dxgi_multithread *mt)
{
    bool any_thread = thread_rule(ctx, single_threaded, mt);

    if (mt)
        mt->lpVtbl->Release((IUnknown *)mt);
    return any_thread;
}

/* The program turned the protection off after dxcl turned it on: whether to turn it on again
 * (the device is ctx->any_thread; logged once). */
static bool protect_again(struct dxcl_context *ctx)
{
    static volatile LONG said;

    if (ctx->any_thread && !InterlockedExchange(&said, 1))
        DXCL_LOG("%s device %p: the program turned multithread protection off; dxcl turns it "
                 "on again for its copies",
                 ctx->backend->name, ctx->device);
    return ctx->any_thread;
}

void *dxcl_dxgi_enter_device(struct dxcl_context *ctx, struct dxcl_dxgi_multithread *mt)
{
    IUnknown *unknown = (IUnknown *)mt;

    if (!mt)
        return NULL;
    if (!mt->lpVtbl->GetMultithreadProtected(unknown)) {
        if (!protect_again(ctx)) {
            mt->lpVtbl->Release(unknown);
            return NULL;
        }
        mt->lpVtbl->SetMultithreadProtected(unknown, TRUE);
    }
    mt->lpVtbl->Enter(unknown);
    return mt;
}

void dxcl_dxgi_leave_device(void *protection)
{
    struct dxcl_dxgi_multithread *mt = protection;

    if (!mt)
        return;
    mt->lpVtbl->Leave((IUnknown *)mt);
    mt->lpVtbl->Release((IUnknown *)mt);
}
