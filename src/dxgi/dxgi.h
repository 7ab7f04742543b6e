/* What D3D10 and D3D11 share: DXGI adapters, the DXGI format table, and the rules for
 * buffers and textures of the KHR/NV D3D1x texts. Backends fill the plain descriptions from
 * their own API's structures. */
#ifndef DXCL_DXGI_H
#define DXCL_DXGI_H

#include "engine/acquire.h"
#include "formats/format_query.h"
#include "engine/lifetime.h"
#include "formats/formats.h"
#include "core/registry.h"
#include "dxgi/pool.h"

#include <stddef.h>

/* The adapter LUID of a D3D1x device (IDXGIDevice) or of an IDXGIAdapter; false when the
 * object is neither. */
bool dxcl_dxgi_luid(const void *object, bool is_adapter, LUID *luid);

/* ID3D10Multithread and ID3D11Multithread: the same methods in the same vtable order
 * (d3d10.h, d3d11_4.h), so the protection rules are written once for both; each backend checks
 * the layout at compile time (DXCL_DXGI_PROTECTION). */
struct dxcl_dxgi_multithread_vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(IUnknown *mt, REFIID riid, void **out);
    ULONG(STDMETHODCALLTYPE *AddRef)(IUnknown *mt);
    ULONG(STDMETHODCALLTYPE *Release)(IUnknown *mt);
    void(STDMETHODCALLTYPE *Enter)(IUnknown *mt);
    void(STDMETHODCALLTYPE *Leave)(IUnknown *mt);
    BOOL(STDMETHODCALLTYPE *SetMultithreadProtected)(IUnknown *mt, BOOL protect);
    BOOL(STDMETHODCALLTYPE *GetMultithreadProtected)(IUnknown *mt);
};
struct dxcl_dxgi_multithread {
    const struct dxcl_dxgi_multithread_vtbl *lpVtbl;
};
#define DXCL_DXGI_MULTITHREAD_SLOT(API, method)                                                    \
    _Static_assert(offsetof(API##MultithreadVtbl, method) ==                                       \
                       offsetof(struct dxcl_dxgi_multithread_vtbl, method),                        \
                   #API "Multithread's " #method " is where dxgi.h expects it")
/* The backend's prepare_device and enter_device (<prefix>_prepare_device, _enter_device)
 * over <prefix>_multithread, its protection interface of a context's device (API is D3D10 or
 * D3D11); leave_device is dxcl_dxgi_leave_device. */
#define DXCL_DXGI_PROTECTION(API, prefix)                                                          \
    DXCL_DXGI_MULTITHREAD_SLOT(I##API, Release);                                                   \
    DXCL_DXGI_MULTITHREAD_SLOT(I##API, Enter);                                                     \
    DXCL_DXGI_MULTITHREAD_SLOT(I##API, Leave);                                                     \
    DXCL_DXGI_MULTITHREAD_SLOT(I##API, SetMultithreadProtected);                                   \
    DXCL_DXGI_MULTITHREAD_SLOT(I##API, GetMultithreadProtected);                                   \
    static bool prefix##_prepare_device(struct dxcl_context *ctx)                                  \
    {                                                                                              \
        UINT flags = I##API##Device_GetCreationFlags((I##API##Device *)ctx->device);               \
                                                                                                   \
        return dxcl_dxgi_prepare_device(ctx, flags & API##_CREATE_DEVICE_SINGLETHREADED,           \
                                        prefix##_multithread(ctx));                                \
    }                                                                                              \
    static void *prefix##_enter_device(struct dxcl_context *ctx)                                   \
    {                                                                                              \
        return dxcl_dxgi_enter_device(ctx, prefix##_multithread(ctx));                             \
    }

/* The D3D1x threading rule, decided when a context opens its device (the backend's
 * prepare_device), from its creation flag and its protection interface `mt` (NULL when the
 * runtime has none; its reference is taken over): returns whether dxcl may use the device from
 * its own threads, and turns the protection on when dxcl needs it for that (logged). */
bool dxcl_dxgi_prepare_device(struct dxcl_context *ctx, bool single_threaded,
                              struct dxcl_dxgi_multithread *mt);
/* The device's protection `mt` (its reference is taken over), turned on again if the program
 * turned it off (dxcl's copies must not overlap the program's calls), entered; NULL on a device
 * dxcl uses only inside the program's calls. */
void *dxcl_dxgi_enter_device(struct dxcl_context *ctx, struct dxcl_dxgi_multithread *mt);
void dxcl_dxgi_leave_device(void *protection);

/* A D3D1x resource in plain terms. */
struct dxcl_dxgi_resource {
    bool is_buffer;
    bool is_3d;
    bool immutable;
    bool
        staging; /* textures: a staging texture has no VkImage on DXVK (nothing for the GPU path) */
    UINT byte_width; /* buffers */
    DXGI_FORMAT format;
    UINT width, height, depth;
    UINT mip_levels, array_size;
    UINT sample_count;
    /* The family shares the planes of planar formats (D3D11, while
     * cl_intel_d3d11_nv12_media_sharing is exposed): subresource = plane + 2 x array slice. */
    bool shares_planes;
};

/* Applies the create-function rules (IMMUTABLE, multisampling, subresource range, the DXGI
 * table) and fills `desc` for the core; `lone`: a planar texture's planes each get a
 * surface (core/memobj.h, lone_plane). */
cl_int dxcl_dxgi_describe(const struct dxcl_backend *backend,
                          const struct dxcl_dxgi_resource *resource, UINT subresource, bool lone,
                          struct dxcl_shared_desc *desc);

/* A family's clGetDeviceIDsFromD3D1x tokens. */
struct dxcl_dxgi_tokens {
    cl_uint device_source, adapter_source, preferred_set, all_set;
};

/* The clGetDeviceIDsFromD3D1x rules shared by D3D10 and D3D11. */
cl_int dxcl_dxgi_device_ids(const struct dxcl_dxgi_tokens *tokens, cl_platform_id platform,
                            cl_uint source, const void *object, cl_uint set, cl_uint num_entries,
                            cl_device_id *devices, cl_uint *num_devices);

/* The API-specific halves of a create function: describe and check the resource given (the
 * invalid-resource error when it is not of args->kind or not of the context's device), and
 * create a staging copy of the subresource described by desc. */
struct dxcl_dxgi_args;
typedef cl_int (*dxcl_dxgi_check_fn)(struct dxcl_context *ctx, const struct dxcl_dxgi_args *args,
                                     struct dxcl_dxgi_resource *info);
struct dxcl_dxgi_surface;
typedef HRESULT (*dxcl_dxgi_staging_fn)(void *device, const struct dxcl_dxgi_resource *info,
                                        const struct dxcl_dxgi_surface *surface,
                                        IUnknown **staging);

/* Every map and unmap of a staging resource passes here (the D3D10 and D3D11 backends): after
 * a map, a mapping seen elsewhere than `stable` marks the staging resource `moved`; the fault
 * point `move` swaps in a temporary copy, which goes back into the real mapping before the
 * unmap. */
void dxcl_dxgi_mapped(struct dxcl_surface *surface);
void dxcl_dxgi_unmapping(struct dxcl_surface *surface);
/* A surface's end: its staging copy or twin goes to the context's pool (dxgi/pool.h), and
 * what the pool does not keep is freed; the pool is emptied when the context's record goes
 * (close_device). */
void dxcl_dxgi_destroy_surface(struct dxcl_surface *surface);
void dxcl_dxgi_close_device(struct dxcl_context *ctx);
bool dxcl_dxgi_stable_host_copy(struct dxcl_surface *surface, struct dxcl_mapping *mapping);
/* A plane inside the mapped staging copy of a planar slice: NV12's UV rows follow the Y rows at
 * the same pitch (offset RowPitch x Height, Microsoft's and DXVK's layout). */
void dxcl_dxgi_plane_mapping(const struct dxcl_memobj *mem, const struct dxcl_mapping *surface,
                             struct dxcl_mapping *plane);

/* What the create entry points pass to a backend's prepare function. */
struct dxcl_dxgi_args {
    void *resource;
    enum dxcl_dxgi_kind kind;
    UINT subresource;
};

/* The create functions' work for D3D1x: the backend's check, the shared rules, the staging. */
cl_int dxcl_dxgi_prepare(struct dxcl_context *ctx, const struct dxcl_dxgi_args *args,
                         dxcl_dxgi_check_fn check, dxcl_dxgi_staging_fn create_staging,
                         struct dxcl_shared_desc *desc);

/* Defines the six entry points of a D3D1x sharing family (API is D3D10 or D3D11, api the
 * same in lower case, as extension names are) on a
 * backend and its prepare function, and registers them under the KHR and NV names. The
 * resource parameters are typed void *: the same pointers as the spec's ID3D1x types. */
#define DXCL_DXGI_EXTENSION(API, api, backend, prepare, tokens, acquire_command, release_command,  \
                            khr_version)                                                           \
    static cl_int CL_API_CALL get_device_ids(cl_platform_id platform, cl_uint source,              \
                                             void *object, cl_uint set, cl_uint num_entries,       \
                                             cl_device_id *devices, cl_uint *num_devices)          \
    {                                                                                              \
        DXCL_ROUTE(platform, get_device_ids,                                                       \
                   (platform, source, object, set, num_entries, devices, num_devices));            \
        return dxcl_log_result("clGetDeviceIDsFrom" #API,                                          \
                               dxcl_dxgi_device_ids(&tokens, platform, source, object, set,        \
                                                    num_entries, devices, num_devices));           \
    }                                                                                              \
    static cl_mem create(const char *name, cl_context context, cl_mem_flags flags, void *resource, \
                         enum dxcl_dxgi_kind kind, UINT subresource, cl_int *errcode_ret)          \
    {                                                                                              \
        const struct dxcl_dxgi_args args = {resource, kind, subresource};                          \
        return dxcl_create_shared(name, context, &backend, flags, prepare, &args, errcode_ret);    \
    }                                                                                              \
    static cl_mem CL_API_CALL create_buffer(cl_context context, cl_mem_flags flags,                \
                                            void *resource, cl_int *errcode_ret)                   \
    {                                                                                              \
        DXCL_ROUTE(dxcl_platform_of_context(context), create_buffer,                               \
                   (context, flags, resource, errcode_ret));                                       \
        return create("clCreateFrom" #API "Buffer", context, flags, resource, DXCL_DXGI_BUFFER, 0, \
                      errcode_ret);                                                                \
    }                                                                                              \
    static cl_mem CL_API_CALL create_texture2d(cl_context context, cl_mem_flags flags,             \
                                               void *resource, UINT subresource,                   \
                                               cl_int *errcode_ret)                                \
    {                                                                                              \
        DXCL_ROUTE(dxcl_platform_of_context(context), create_texture2d,                            \
                   (context, flags, resource, subresource, errcode_ret));                          \
        return create("clCreateFrom" #API "Texture2D", context, flags, resource,                   \
                      DXCL_DXGI_TEXTURE2D, subresource, errcode_ret);                              \
    }                                                                                              \
    static cl_mem CL_API_CALL create_texture3d(cl_context context, cl_mem_flags flags,             \
                                               void *resource, UINT subresource,                   \
                                               cl_int *errcode_ret)                                \
    {                                                                                              \
        DXCL_ROUTE(dxcl_platform_of_context(context), create_texture3d,                            \
                   (context, flags, resource, subresource, errcode_ret));                          \
        return create("clCreateFrom" #API "Texture3D", context, flags, resource,                   \
                      DXCL_DXGI_TEXTURE3D, subresource, errcode_ret);                              \
    }                                                                                              \
    DXCL_TRANSFER_ENTRY(acquire, backend, true, acquire_command)                                   \
    DXCL_TRANSFER_ENTRY(release, backend, false, release_command)                                  \
    DXCL_DXGI_FUNCTION_TABLE(API, khr, "KHR")                                                      \
    DXCL_DXGI_FUNCTION_TABLE(API, nv, "NV")                                                        \
    /* KHR and NV: the same tokens and rules, each the other's sibling. NVIDIA assigned its        \
     * variants no version. */                                                                     \
    static const struct dxcl_extension nv_extension;                                               \
    static const struct dxcl_extension khr_extension = {.name = "cl_khr_" #api "_sharing",         \
                                                        .version = khr_version,                    \
                                                        .functions = khr_functions,                \
                                                        .context_properties = api##_properties,    \
                                                        .sibling = &nv_extension};                 \
    static const struct dxcl_extension nv_extension = {.name = "cl_nv_" #api "_sharing",           \
                                                       .version = CL_MAKE_VERSION(0, 0, 0),        \
                                                       .functions = nv_functions,                  \
                                                       .context_properties = api##_properties,     \
                                                       .sibling = &khr_extension};                 \
    DXCL_REGISTER_EXTENSION(khr_extension)                                                         \
    DXCL_REGISTER_EXTENSION(nv_extension)

/* A whole D3D1x family (API is D3D10 or D3D11): the backend, named dxcl_<prefix>_backend,
 * over <prefix>_check_resource, <prefix>_create_staging, <prefix>_copy_to_host,
 * <prefix>_map_host, <prefix>_unmap_host, <prefix>_device_storage, <prefix>_end_hand_overs and
 * <prefix>_context_ready (NULL: no GPU path) and DXCL_DXGI_PROTECTION's functions, and its entry
 * points. All tokens come from the Khronos header of that API. */
#define DXCL_DXGI_FAMILY(API, prefix)                                                              \
    static cl_int prefix##_prepare(struct dxcl_context *ctx, const void *args,                     \
                                   struct dxcl_shared_desc *desc)                                  \
    {                                                                                              \
        return dxcl_dxgi_prepare(ctx, args, prefix##_check_resource, prefix##_create_staging,      \
                                 desc);                                                            \
    }                                                                                              \
    static const cl_context_properties prefix##_properties[] = {CL_CONTEXT_##API##_DEVICE_KHR, 0}; \
    const struct dxcl_backend dxcl_##prefix##_backend = {                                          \
        .name = #API,                                                                              \
        .context_properties = prefix##_properties,                                                 \
        .prefer_shared_query = CL_CONTEXT_##API##_PREFER_SHARED_RESOURCES_KHR,                     \
        .errors = {CL_INVALID_##API##_DEVICE_KHR, CL_INVALID_##API##_RESOURCE_KHR,                 \
                   CL_##API##_RESOURCE_ALREADY_ACQUIRED_KHR,                                       \
                   CL_##API##_RESOURCE_NOT_ACQUIRED_KHR},                                          \
        .device_iid = &IID_I##API##Device,                                                         \
        .copy_to_host = prefix##_copy_to_host,                                                     \
        .map_host = prefix##_map_host,                                                             \
        .unmap_host = prefix##_unmap_host,                                                         \
        .prepare_device = prefix##_prepare_device,                                                 \
        .enter_device = prefix##_enter_device,                                                     \
        .leave_device = dxcl_dxgi_leave_device,                                                    \
        .destroy_surface = dxcl_dxgi_destroy_surface,                                              \
        .keeps_driver_objects = true,                                                              \
        .close_device = dxcl_dxgi_close_device,                                                    \
        .pooled_surfaces = dxcl_dxgi_pooled_surfaces,                                              \
        .stable_host_copy = dxcl_dxgi_stable_host_copy,                                            \
        .device_storage = prefix##_device_storage,                                                 \
        .end_hand_overs = prefix##_end_hand_overs,                                                 \
        .context_ready = prefix##_context_ready,                                                   \
        .plane_mapping = dxcl_dxgi_plane_mapping,                                                  \
        .resource_query = CL_MEM_##API##_RESOURCE_KHR,                                             \
        .subresource_query = CL_IMAGE_##API##_SUBRESOURCE_KHR,                                     \
    };                                                                                             \
    DXCL_REGISTER_BACKEND(dxcl_##prefix##_backend)                                                 \
    static const struct dxcl_dxgi_tokens prefix##_tokens = {                                       \
        CL_##API##_DEVICE_KHR, CL_##API##_DXGI_ADAPTER_KHR, CL_PREFERRED_DEVICES_FOR_##API##_KHR,  \
        CL_ALL_DEVICES_FOR_##API##_KHR};                                                           \
    DXCL_DXGI_EXTENSION(API, prefix, dxcl_##prefix##_backend, prefix##_prepare, prefix##_tokens,   \
                        CL_COMMAND_ACQUIRE_##API##_OBJECTS_KHR,                                    \
                        CL_COMMAND_RELEASE_##API##_OBJECTS_KHR, CL_MAKE_VERSION(1, 0, 0))

/* cl_intel_sharing_format_query_d3d10/_d3d11: the DXGI table on `backend`, with the API's
 * check of what its device can make. */
typedef bool (*dxcl_dxgi_device_backs_fn)(struct dxcl_context *ctx, cl_uint format,
                                          cl_mem_object_type type);
struct dxcl_format_family dxcl_dxgi_format_family(const struct dxcl_backend *backend,
                                                  dxcl_dxgi_device_backs_fn device_backs,
                                                  bool shares_planes);

/* What a D3D1x device can make of a DXGI format for the format query: textures of the image
 * type's dimension (the staging copy is of the same format and dimension). */
#define DXCL_DXGI_DEVICE_BACKS(API, prefix)                                                        \
    static bool prefix##_device_backs(struct dxcl_context *ctx, cl_uint format,                    \
                                      cl_mem_object_type type)                                     \
    {                                                                                              \
        UINT need = type == CL_MEM_OBJECT_IMAGE3D ? API##_FORMAT_SUPPORT_TEXTURE3D                 \
                                                  : API##_FORMAT_SUPPORT_TEXTURE2D;                \
        UINT support = 0;                                                                          \
                                                                                                   \
        /* Planar formats are Texture2D only, whatever CheckFormatSupport says (DXVK on NVIDIA     \
         * reports TEXTURE3D for NV12). */                                                         \
        if (type == CL_MEM_OBJECT_IMAGE3D && dxcl_dxgi_plane_count((DXGI_FORMAT)format))           \
            return false;                                                                          \
        return SUCCEEDED(I##API##Device_CheckFormatSupport((I##API##Device *)ctx->device,          \
                                                           (DXGI_FORMAT)format, &support)) &&      \
               (support & need) == need;                                                           \
    }

#define DXCL_DXGI_FUNCTION_TABLE(API, variant, suffix)                                             \
    static const struct dxcl_ext_function variant##_functions[] = {                                \
        {"clGetDeviceIDsFrom" #API suffix, (void *)get_device_ids},                                \
        {"clCreateFrom" #API "Buffer" suffix, (void *)create_buffer},                              \
        {"clCreateFrom" #API "Texture2D" suffix, (void *)create_texture2d},                        \
        {"clCreateFrom" #API "Texture3D" suffix, (void *)create_texture3d},                        \
        {"clEnqueueAcquire" #API "Objects" suffix, (void *)acquire},                               \
        {"clEnqueueRelease" #API "Objects" suffix, (void *)release},                               \
        {NULL, NULL}};

#endif
