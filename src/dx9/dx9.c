/* The DX9 media backend: cl_khr_dx9_media_sharing and cl_intel_dx9_media_sharing on one
 * implementation. Adapters are IDirect3DDevice9, IDirect3DDevice9Ex or IDXVAHD_Device; shared
 * objects are planes of IDirect3DSurface9 (NV12: Y and UV; YV12: Y, V and U; one plane for
 * the D3D9 RGB formats). The planes of a surface share one copy: acquiring several planes
 * locks the surface once. DXVA-HD adapters are served through the surface's own device. */
#include "engine/acquire.h"
#include "core/com.h"
#include "core/devices.h"
#include "core/info.h"
#include "engine/lifetime.h"
#include "formats/formats.h"
#include "core/registry.h"
#include "dx9/d3d9_device.h"
#include "dx9/d3d9_surface.h"

#include <d3d9.h>
#include <dxvahd.h>
#include <stdlib.h>
#include <CL/cl_dx9_media_sharing.h>

extern const struct dxcl_backend dxcl_dx9_backend;

/* The adapter kinds, whichever spelling (KHR or Intel) named them. */
static const struct {
    cl_uint khr_type;            /* CL_ADAPTER_*_KHR */
    cl_context_properties khr;   /* CL_CONTEXT_ADAPTER_*_KHR */
    cl_context_properties intel; /* CL_CONTEXT_*_DEVICE_INTEL */
    cl_uint intel_source;        /* CL_*_DEVICE_INTEL device source */
    const IID *iid;
} adapters[] = {
    {CL_ADAPTER_D3D9_KHR, CL_CONTEXT_ADAPTER_D3D9_KHR, CL_CONTEXT_D3D9_DEVICE_INTEL,
     CL_D3D9_DEVICE_INTEL, &IID_IDirect3DDevice9},
    {CL_ADAPTER_D3D9EX_KHR, CL_CONTEXT_ADAPTER_D3D9EX_KHR, CL_CONTEXT_D3D9EX_DEVICE_INTEL,
     CL_D3D9EX_DEVICE_INTEL, &IID_IDirect3DDevice9Ex},
    {CL_ADAPTER_DXVA_KHR, CL_CONTEXT_ADAPTER_DXVA_KHR, CL_CONTEXT_DXVA_DEVICE_INTEL,
     CL_DXVA_DEVICE_INTEL, &IID_IDXVAHD_Device},
};

static int adapter_by_type(cl_uint khr_type)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(adapters); i++)
        if (adapters[i].khr_type == khr_type)
            return (int)i;
    return -1;
}

static int adapter_by_property(cl_context_properties property)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(adapters); i++)
        if (adapters[i].khr == property || adapters[i].intel == property)
            return (int)i;
    return -1;
}

static int adapter_by_intel_source(cl_uint source)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(adapters); i++)
        if (adapters[i].intel_source == source)
            return (int)i;
    return -1;
}

static cl_int dx9_open_device(struct dxcl_context *ctx, cl_context_properties property,
                              void *object)
{
    int kind = adapter_by_property(property);

    if (FAILED(dxcl_query_interface(object, adapters[kind].iid, &ctx->device)))
        return DXCL_FAIL(CL_INVALID_DX9_MEDIA_ADAPTER_KHR,
                         "%p is not a media adapter of "
                         "type 0x%x",
                         object, adapters[kind].khr_type);
    return CL_SUCCESS;
}

/* The adapter's LUID (D3D9Ex only: plain D3D9 and DXVA-HD do not tell it). */
static bool adapter_luid(int kind, void *object, LUID *luid)
{
    return adapters[kind].khr_type == CL_ADAPTER_D3D9EX_KHR && dxcl_d3d9ex_luid(object, luid);
}

static bool adapter_valid(int kind, void *object)
{
    IUnknown *checked;

    if (kind < 0 || FAILED(dxcl_query_interface(object, adapters[kind].iid, (void **)&checked)))
        return false;
    IUnknown_Release(checked);
    return true;
}

/* Preferred devices of several adapters (types are CL_ADAPTER_*_KHR): those of the first
 * adapter that tells its LUID. */
static cl_int devices_for_adapters(cl_platform_id platform, cl_uint count, const cl_uint *types,
                                   void *const *objects, bool preferred, cl_uint num_entries,
                                   cl_device_id *devices, cl_uint *num_devices)
{
    LUID luid;
    bool have_luid = false;

    for (cl_uint i = 0; i < count && !have_luid; i++)
        have_luid = adapter_luid(adapter_by_type(types[i]), objects[i], &luid);
    return dxcl_interop_devices(platform, have_luid ? &luid : NULL, preferred, num_entries, devices,
                                num_devices);
}

static cl_int CL_API_CALL get_device_ids_khr(cl_platform_id platform, cl_uint num_media_adapters,
                                             cl_dx9_media_adapter_type_khr *media_adapter_type,
                                             void *media_adapters,
                                             cl_dx9_media_adapter_set_khr media_adapter_set,
                                             cl_uint num_entries, cl_device_id *devices,
                                             cl_uint *num_devices)
{
    DXCL_ROUTE(platform, get_device_ids_khr,
               (platform, num_media_adapters, media_adapter_type, media_adapters, media_adapter_set,
                num_entries, devices, num_devices));
    void *const *objects = media_adapters;
    cl_int err = dxcl_check_device_query(platform, num_entries, devices, num_devices);

    if (err != CL_SUCCESS)
        return err;
    if (num_media_adapters == 0 || !media_adapter_type || !media_adapters)
        return DXCL_FAIL(CL_INVALID_VALUE, "%u media adapters, types %p, adapters %p",
                         num_media_adapters, (void *)media_adapter_type, media_adapters);
    for (cl_uint i = 0; i < num_media_adapters; i++) {
        if (!adapter_valid(adapter_by_type(media_adapter_type[i]), objects[i]))
            return DXCL_FAIL(CL_INVALID_VALUE, "media adapter %u (type 0x%x, %p) is invalid", i,
                             media_adapter_type[i], objects[i]);
    }
    if (media_adapter_set != CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR &&
        media_adapter_set != CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR)
        return DXCL_FAIL(CL_INVALID_VALUE, "media_adapter_set 0x%x", media_adapter_set);
    return dxcl_log_result(
        "clGetDeviceIDsFromDX9MediaAdapterKHR",
        devices_for_adapters(platform, num_media_adapters, media_adapter_type, objects,
                             media_adapter_set == CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR,
                             num_entries, devices, num_devices));
}

static cl_int CL_API_CALL get_device_ids_intel(cl_platform_id platform, cl_uint source,
                                               void *object, cl_uint set, cl_uint num_entries,
                                               cl_device_id *devices, cl_uint *num_devices)
{
    DXCL_ROUTE(platform, get_device_ids_intel,
               (platform, source, object, set, num_entries, devices, num_devices));
    int kind = adapter_by_intel_source(source);
    cl_int err = dxcl_check_device_query(platform, num_entries, devices, num_devices);

    if (err != CL_SUCCESS)
        return err;
    if (kind < 0 || !adapter_valid(kind, object))
        return DXCL_FAIL(CL_INVALID_VALUE, "dx9_device_source 0x%x with object %p", source, object);
    if (set != CL_PREFERRED_DEVICES_FOR_DX9_INTEL && set != CL_ALL_DEVICES_FOR_DX9_INTEL)
        return DXCL_FAIL(CL_INVALID_VALUE, "dx9_device_set 0x%x", set);
    return dxcl_log_result("clGetDeviceIDsFromDX9INTEL",
                           devices_for_adapters(platform, 1, &adapters[kind].khr_type, &object,
                                                set == CL_PREFERRED_DEVICES_FOR_DX9_INTEL,
                                                num_entries, devices, num_devices));
}

struct dx9_args {
    cl_uint adapter_type;
    IDirect3DSurface9 *resource;
    HANDLE shared_handle;
    UINT plane;
    bool unique;          /* Intel: a second cl_mem of the same surface and plane is an error */
    bool no_surface_info; /* KHR: surface_info was NULL */
};

static cl_int surface_invalid(const char *why, const void *resource)
{
    return DXCL_FAIL(CL_INVALID_DX9_MEDIA_SURFACE_KHR, "surface %p: %s", resource, why);
}

/* The surface must belong to the adapter: the context's device (D3D9, D3D9Ex), or any D3D9
 * device for DXVA-HD, and a D3D9Ex device for the D3D9EX type. */
static cl_int check_surface_device(struct dxcl_context *ctx, const struct dx9_args *args)
{
    IDirect3DDevice9 *device;
    IUnknown *ex;
    bool ok = true;

    if (FAILED(IDirect3DSurface9_GetDevice(args->resource, &device)))
        return surface_invalid("has no device", args->resource);
    if (args->adapter_type == CL_ADAPTER_D3D9EX_KHR) {
        ok = SUCCEEDED(
            IDirect3DDevice9_QueryInterface(device, &IID_IDirect3DDevice9Ex, (void **)&ex));
        if (ok)
            IUnknown_Release(ex);
    }
    if (ok && adapter_by_property(ctx->device_property) != adapter_by_type(CL_ADAPTER_DXVA_KHR))
        ok = dxcl_same_object((IUnknown *)device, ctx->device);
    IDirect3DDevice9_Release(device);
    return ok ? CL_SUCCESS
              : surface_invalid("not a surface of the context's adapter", args->resource);
}

/* The surface and its shared handle, as the spec's CL_INVALID_DX9_MEDIA_SURFACE_KHR rules
 * them. The handle is checked before anything here makes a kernel handle, which could take
 * the value of a handle the program closed. */
static cl_int check_surface(struct dxcl_context *ctx, const struct dx9_args *args,
                            const D3DSURFACE_DESC *surface)
{
    cl_int err;

    if (surface->Pool != D3DPOOL_DEFAULT)
        return surface_invalid("not in D3DPOOL_DEFAULT", args->resource);
    if (!dxcl_d3d9_surface_reachable(args->resource))
        return surface_invalid("a texture level that is neither dynamic nor a render target "
                               "cannot be read back",
                               args->resource);
    if ((err = check_surface_device(ctx, args)) != CL_SUCCESS)
        return err;
    if (!dxcl_d3d9_shared_handle_valid(args->resource, args->shared_handle))
        return DXCL_FAIL(CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                         "shared_handle %p is neither NULL nor a valid handle",
                         (void *)args->shared_handle);
    return CL_SUCCESS;
}

static cl_int describe_plane(const struct dx9_args *args, const D3DSURFACE_DESC *surface,
                             struct dxcl_shared_desc *desc)
{
    struct dxcl_plane plane;
    unsigned planes = dxcl_d3d9_plane_count(surface->Format);

    if (!planes)
        return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                         "D3D9 format 0x%x is not in the media sharing tables",
                         (unsigned)surface->Format);
    if (args->plane >= planes || !dxcl_format_from_d3d9(surface->Format, args->plane, &plane))
        return DXCL_FAIL(CL_INVALID_VALUE, "plane %u of a %u-plane surface", args->plane, planes);
    desc->type = CL_MEM_OBJECT_IMAGE2D;
    desc->format = plane.format;
    desc->width = surface->Width / plane.width_divisor;
    desc->height = surface->Height / plane.height_divisor;
    desc->depth = 1;
    return CL_SUCCESS;
}

static cl_int dx9_prepare(struct dxcl_context *ctx, const void *arg, struct dxcl_shared_desc *desc)
{
    const struct dx9_args *args = arg;
    IDirect3DSurface9 *checked;
    struct dxcl_d3d9_surface *s;
    cl_int err;

    if (args->no_surface_info)
        return DXCL_FAIL(CL_INVALID_VALUE, "surface_info is NULL");
    if (adapter_by_type(args->adapter_type) < 0)
        return DXCL_FAIL(CL_INVALID_OPERATION, "no device supports adapter type 0x%x",
                         args->adapter_type);
    if (FAILED(dxcl_query_interface(args->resource, &IID_IDirect3DSurface9, (void **)&checked)))
        return surface_invalid("not an IDirect3DSurface9", args->resource);
    IDirect3DSurface9_Release(checked);
    if (!(s = calloc(1, sizeof(*s))))
        return CL_OUT_OF_HOST_MEMORY;
    IDirect3DSurface9_GetDesc(args->resource, &s->desc);
    if ((err = check_surface(ctx, args, &s->desc)) == CL_SUCCESS &&
        (err = describe_plane(args, &s->desc, desc)) == CL_SUCCESS &&
        FAILED(dxcl_d3d9_surface_init(s, args->resource)))
        err = DXCL_FAIL(CL_OUT_OF_RESOURCES, "no system-memory copy of %p", (void *)args->resource);
    if (err != CL_SUCCESS) {
        free(s);
        return err;
    }
    desc->resource = (IUnknown *)args->resource;
    desc->plane = args->plane;
    desc->adapter_type = args->adapter_type;
    desc->shared_handle = args->shared_handle;
    desc->unique = args->unique;
    desc->share_surface = true;
    desc->surface_data = s;
    return CL_SUCCESS;
}

static cl_mem CL_API_CALL create_khr(cl_context context, cl_mem_flags flags,
                                     cl_dx9_media_adapter_type_khr adapter_type, void *surface_info,
                                     cl_uint plane, cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_khr,
               (context, flags, adapter_type, surface_info, plane, errcode_ret));
    const cl_dx9_surface_info_khr *info = surface_info;
    struct dx9_args args = {
        adapter_type, info ? info->resource : NULL, info ? info->shared_handle : NULL, plane, false,
        !info};

    return dxcl_create_shared("clCreateFromDX9MediaSurfaceKHR", context, &dxcl_dx9_backend, flags,
                              dx9_prepare, &args, errcode_ret);
}

static cl_int intel_prepare(struct dxcl_context *ctx, const void *arg,
                            struct dxcl_shared_desc *desc)
{
    struct dx9_args args = *(const struct dx9_args *)arg;

    /* The Intel call names no adapter type: it is the context's. */
    args.adapter_type = adapters[adapter_by_property(ctx->device_property)].khr_type;
    return dx9_prepare(ctx, &args, desc);
}

static cl_mem CL_API_CALL create_intel(cl_context context, cl_mem_flags flags,
                                       IDirect3DSurface9 *resource, HANDLE shared_handle,
                                       UINT plane, cl_int *errcode_ret)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), create_intel,
               (context, flags, resource, shared_handle, plane, errcode_ret));
    struct dx9_args args = {0, resource, shared_handle, plane, true, false};

    return dxcl_create_shared("clCreateFromDX9MediaSurfaceINTEL", context, &dxcl_dx9_backend, flags,
                              intel_prepare, &args, errcode_ret);
}

static cl_int dx9_copy_to_host(struct dxcl_surface *surface)
{
    return dxcl_d3d9_surface_lock(surface->backend_data, &surface->mapping);
}

static cl_int dx9_unmap_host(struct dxcl_surface *surface, bool write_back)
{
    return dxcl_d3d9_surface_unlock(surface->backend_data, write_back);
}

static void dx9_destroy_surface(struct dxcl_surface *surface)
{
    struct dxcl_d3d9_surface *s = surface->backend_data;

    if (!s)
        return;
    dxcl_d3d9_surface_free(s);
    free(s);
    surface->backend_data = NULL;
}

/* Planar layouts: NV12 is Y then interleaved UV at the same pitch; YV12 is Y, then V and U at
 * half the pitch. */
static void dx9_plane_mapping(const struct dxcl_memobj *mem, const struct dxcl_mapping *surface,
                              struct dxcl_mapping *plane)
{
    const struct dxcl_d3d9_surface *s = mem->surface->backend_data;
    const D3DFORMAT yv12 = (D3DFORMAT)MAKEFOURCC('Y', 'V', '1', '2');
    size_t luma = surface->row_pitch * s->desc.Height;
    size_t chroma_pitch = surface->row_pitch / 2;

    *plane = *surface;
    if (mem->desc.plane == 0)
        return;
    plane->data = (char *)surface->data + luma;
    if (s->desc.Format != yv12)
        return;
    plane->row_pitch = chroma_pitch;
    if (mem->desc.plane == 2)
        plane->data = (char *)plane->data + chroma_pitch * (s->desc.Height / 2);
}

static cl_int dx9_query(const struct dxcl_memobj *mem, bool image, cl_uint param, size_t size,
                        void *value, size_t *size_ret)
{
    cl_dx9_surface_info_khr info;
    cl_uint plane;

    if (!image && param != CL_MEM_DX9_MEDIA_ADAPTER_TYPE_KHR &&
        param != CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR && param != CL_MEM_DX9_SHARED_HANDLE_INTEL)
        return DXCL_NOT_MY_QUERY;
    if (image && param != CL_IMAGE_DX9_MEDIA_PLANE_KHR && param != CL_IMAGE_DX9_PLANE_INTEL)
        return DXCL_NOT_MY_QUERY;
    if (!mem)
        return DXCL_FAIL(CL_INVALID_DX9_MEDIA_SURFACE_KHR, "not a DX9 media surface object");
    if (image) {
        plane = mem->desc.plane;
        return dxcl_info_return(&plane, sizeof(plane), size, value, size_ret);
    }
    if (param == CL_MEM_DX9_MEDIA_ADAPTER_TYPE_KHR)
        return dxcl_info_return(&mem->desc.adapter_type, sizeof(cl_dx9_media_adapter_type_khr),
                                size, value, size_ret);
    if (param == CL_MEM_DX9_SHARED_HANDLE_INTEL)
        return dxcl_info_return(&mem->desc.shared_handle, sizeof(HANDLE), size, value, size_ret);
    info.resource = (IDirect3DSurface9 *)mem->desc.resource;
    info.shared_handle = mem->desc.shared_handle;
    return dxcl_info_return(&info, sizeof(info), size, value, size_ret);
}

static const cl_context_properties dx9_properties[] = {CL_CONTEXT_ADAPTER_D3D9_KHR,
                                                       CL_CONTEXT_ADAPTER_D3D9EX_KHR,
                                                       CL_CONTEXT_ADAPTER_DXVA_KHR,
                                                       CL_CONTEXT_D3D9_DEVICE_INTEL,
                                                       CL_CONTEXT_D3D9EX_DEVICE_INTEL,
                                                       CL_CONTEXT_DXVA_DEVICE_INTEL,
                                                       0};

const struct dxcl_backend dxcl_dx9_backend = {
    .name = "DX9 media",
    .context_properties = dx9_properties,
    .errors = {CL_INVALID_DX9_MEDIA_ADAPTER_KHR, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
               CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR, CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR},
    .open_device = dx9_open_device,
    .prepare_device = dxcl_d3d9_prepare_device,
    .copy_to_host = dx9_copy_to_host,
    .unmap_host = dx9_unmap_host,
    .destroy_surface = dx9_destroy_surface,
    .plane_mapping = dx9_plane_mapping,
    .resource_query = CL_MEM_DX9_RESOURCE_INTEL,
    .query = dx9_query,
};
DXCL_REGISTER_BACKEND(dxcl_dx9_backend)

DXCL_TRANSFER_ENTRY(acquire_khr, dxcl_dx9_backend, true, CL_COMMAND_ACQUIRE_DX9_MEDIA_SURFACES_KHR)
DXCL_TRANSFER_ENTRY(release_khr, dxcl_dx9_backend, false, CL_COMMAND_RELEASE_DX9_MEDIA_SURFACES_KHR)
DXCL_TRANSFER_ENTRY(acquire_intel, dxcl_dx9_backend, true, CL_COMMAND_ACQUIRE_DX9_OBJECTS_INTEL)
DXCL_TRANSFER_ENTRY(release_intel, dxcl_dx9_backend, false, CL_COMMAND_RELEASE_DX9_OBJECTS_INTEL)

static const struct dxcl_ext_function khr_functions[] = {
    {"clGetDeviceIDsFromDX9MediaAdapterKHR", (void *)get_device_ids_khr},
    {"clCreateFromDX9MediaSurfaceKHR", (void *)create_khr},
    {"clEnqueueAcquireDX9MediaSurfacesKHR", (void *)acquire_khr},
    {"clEnqueueReleaseDX9MediaSurfacesKHR", (void *)release_khr},
    {NULL, NULL}};
static const struct dxcl_ext_function intel_functions[] = {
    {"clGetDeviceIDsFromDX9INTEL", (void *)get_device_ids_intel},
    {"clCreateFromDX9MediaSurfaceINTEL", (void *)create_intel},
    {"clEnqueueAcquireDX9ObjectsINTEL", (void *)acquire_intel},
    {"clEnqueueReleaseDX9ObjectsINTEL", (void *)release_intel},
    {NULL, NULL}};

static const cl_context_properties khr_properties[] = {
    CL_CONTEXT_ADAPTER_D3D9_KHR, CL_CONTEXT_ADAPTER_D3D9EX_KHR, CL_CONTEXT_ADAPTER_DXVA_KHR, 0};
static const cl_context_properties intel_properties[] = {
    CL_CONTEXT_D3D9_DEVICE_INTEL, CL_CONTEXT_D3D9EX_DEVICE_INTEL, CL_CONTEXT_DXVA_DEVICE_INTEL, 0};
/* KHR and Intel name different tokens: neither serves the other. */
static const struct dxcl_extension khr_dx9_media_sharing = {.name = "cl_khr_dx9_media_sharing",
                                                            .version = CL_MAKE_VERSION(1, 0, 0),
                                                            .functions = khr_functions,
                                                            .context_properties = khr_properties};
static const struct dxcl_extension intel_dx9_media_sharing = {.name = "cl_intel_dx9_media_sharing",
                                                              .version = CL_MAKE_VERSION(0, 0, 0),
                                                              .functions = intel_functions,
                                                              .context_properties =
                                                                  intel_properties};
DXCL_REGISTER_EXTENSION(khr_dx9_media_sharing)
DXCL_REGISTER_EXTENSION(intel_dx9_media_sharing)
