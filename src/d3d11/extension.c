/* cl_khr_d3d11_sharing and cl_nv_d3d11_sharing: one implementation under both names. */
#include "d3d11/d3d11.h"
#include "core/acquire.h"
#include "core/registry.h"

static cl_int CL_API_CALL get_device_ids(cl_platform_id platform, cl_d3d11_device_source_khr source,
                                         void *d3d_object, cl_d3d11_device_set_khr set,
                                         cl_uint num_entries, cl_device_id *devices,
                                         cl_uint *num_devices)
{
    return dxcl_log_result("clGetDeviceIDsFromD3D11",
                           d3d11_device_ids(platform, source, d3d_object, set, num_entries,
                                            devices, num_devices));
}

static cl_mem CL_API_CALL create_from_buffer(cl_context context, cl_mem_flags flags,
                                             ID3D11Buffer *resource, cl_int *errcode_ret)
{
    return d3d11_create(context, flags, (ID3D11Resource *)resource,
                        D3D11_RESOURCE_DIMENSION_BUFFER, 0, errcode_ret);
}

static cl_mem CL_API_CALL create_from_texture2d(cl_context context, cl_mem_flags flags,
                                                ID3D11Texture2D *resource, UINT subresource,
                                                cl_int *errcode_ret)
{
    return d3d11_create(context, flags, (ID3D11Resource *)resource,
                        D3D11_RESOURCE_DIMENSION_TEXTURE2D, subresource, errcode_ret);
}

static cl_mem CL_API_CALL create_from_texture3d(cl_context context, cl_mem_flags flags,
                                                ID3D11Texture3D *resource, UINT subresource,
                                                cl_int *errcode_ret)
{
    return d3d11_create(context, flags, (ID3D11Resource *)resource,
                        D3D11_RESOURCE_DIMENSION_TEXTURE3D, subresource, errcode_ret);
}

static cl_int CL_API_CALL acquire(cl_command_queue queue, cl_uint num_objects,
                                  const cl_mem *mem_objects, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event)
{
    return dxcl_enqueue_acquire(&dxcl_d3d11_backend, CL_COMMAND_ACQUIRE_D3D11_OBJECTS_KHR, queue,
                                num_objects, mem_objects, num_events, wait_list, event);
}

static cl_int CL_API_CALL release(cl_command_queue queue, cl_uint num_objects,
                                  const cl_mem *mem_objects, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event)
{
    return dxcl_enqueue_release(&dxcl_d3d11_backend, CL_COMMAND_RELEASE_D3D11_OBJECTS_KHR, queue,
                                num_objects, mem_objects, num_events, wait_list, event);
}

static const cl_context_properties d3d11_properties[] = {CL_CONTEXT_D3D11_DEVICE_KHR, 0};

const struct dxcl_backend dxcl_d3d11_backend = {
    .name = "D3D11",
    .context_properties = d3d11_properties,
    .prefer_shared_query = CL_CONTEXT_D3D11_PREFER_SHARED_RESOURCES_KHR,
    .errors = {CL_INVALID_D3D11_DEVICE_KHR, CL_INVALID_D3D11_RESOURCE_KHR,
               CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR, CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR},
    .open_device = d3d11_open_device,
    .close_device = d3d11_close_device,
    .lock_surface = d3d11_lock_surface,
    .unlock_surface = d3d11_unlock_surface,
    .destroy_surface = d3d11_destroy_surface,
    .query = d3d11_query,
};
DXCL_REGISTER_BACKEND(dxcl_d3d11_backend)

#define D3D11_FUNCTIONS(suffix)                                                                    \
    {"clGetDeviceIDsFromD3D11" suffix, (void *)get_device_ids},                                    \
        {"clCreateFromD3D11Buffer" suffix, (void *)create_from_buffer},                            \
        {"clCreateFromD3D11Texture2D" suffix, (void *)create_from_texture2d},                      \
        {"clCreateFromD3D11Texture3D" suffix, (void *)create_from_texture3d},                      \
        {"clEnqueueAcquireD3D11Objects" suffix, (void *)acquire},                                  \
        {"clEnqueueReleaseD3D11Objects" suffix, (void *)release},                                  \
    {                                                                                              \
        NULL, NULL                                                                                 \
    }

static const struct dxcl_ext_function khr_functions[] = {D3D11_FUNCTIONS("KHR")};
static const struct dxcl_ext_function nv_functions[] = {D3D11_FUNCTIONS("NV")};

static const struct dxcl_extension khr_d3d11_sharing = {
    "cl_khr_d3d11_sharing", CL_MAKE_VERSION(1, 0, 0), khr_functions};
/* NVIDIA assigned the NV variants no version. */
static const struct dxcl_extension nv_d3d11_sharing = {"cl_nv_d3d11_sharing",
                                                       CL_MAKE_VERSION(0, 0, 0), nv_functions};
DXCL_REGISTER_EXTENSION(khr_d3d11_sharing)
DXCL_REGISTER_EXTENSION(nv_d3d11_sharing)
