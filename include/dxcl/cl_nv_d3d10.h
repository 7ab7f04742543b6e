/* cl_nv_d3d10_sharing: NVIDIA's names for D3D10 sharing. No Khronos header declares them;
 * the values equal the cl_khr_d3d10_sharing ones (OpenCL-Registry nv/cl_nv_d3d10_sharing.txt).
 * The functions are reached through clGetExtensionFunctionAddress[ForPlatform]. */
#ifndef DXCL_CL_NV_D3D10_H
#define DXCL_CL_NV_D3D10_H

#include <CL/cl.h>
#include <d3d10.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cl_nv_d3d10_sharing 1
#define CL_NV_D3D10_SHARING_EXTENSION_NAME "cl_nv_d3d10_sharing"

typedef cl_uint cl_d3d10_device_source_nv;
typedef cl_uint cl_d3d10_device_set_nv;

#define CL_INVALID_D3D10_DEVICE_NV -1002
#define CL_INVALID_D3D10_RESOURCE_NV -1003
#define CL_D3D10_RESOURCE_ALREADY_ACQUIRED_NV -1004
#define CL_D3D10_RESOURCE_NOT_ACQUIRED_NV -1005

#define CL_D3D10_DEVICE_NV 0x4010
#define CL_D3D10_DXGI_ADAPTER_NV 0x4011
#define CL_PREFERRED_DEVICES_FOR_D3D10_NV 0x4012
#define CL_ALL_DEVICES_FOR_D3D10_NV 0x4013
#define CL_CONTEXT_D3D10_DEVICE_NV 0x4014
#define CL_MEM_D3D10_RESOURCE_NV 0x4015
#define CL_IMAGE_D3D10_SUBRESOURCE_NV 0x4016
#define CL_COMMAND_ACQUIRE_D3D10_OBJECTS_NV 0x4017
#define CL_COMMAND_RELEASE_D3D10_OBJECTS_NV 0x4018

typedef cl_int(CL_API_CALL *clGetDeviceIDsFromD3D10NV_fn)(
    cl_platform_id platform, cl_d3d10_device_source_nv d3d_device_source, void *d3d_object,
    cl_d3d10_device_set_nv d3d_device_set, cl_uint num_entries, cl_device_id *devices,
    cl_uint *num_devices);
typedef cl_mem(CL_API_CALL *clCreateFromD3D10BufferNV_fn)(cl_context context, cl_mem_flags flags,
                                                          ID3D10Buffer *resource,
                                                          cl_int *errcode_ret);
typedef cl_mem(CL_API_CALL *clCreateFromD3D10Texture2DNV_fn)(cl_context context, cl_mem_flags flags,
                                                             ID3D10Texture2D *resource,
                                                             UINT subresource, cl_int *errcode_ret);
typedef cl_mem(CL_API_CALL *clCreateFromD3D10Texture3DNV_fn)(cl_context context, cl_mem_flags flags,
                                                             ID3D10Texture3D *resource,
                                                             UINT subresource, cl_int *errcode_ret);
typedef cl_int(CL_API_CALL *clEnqueueAcquireD3D10ObjectsNV_fn)(
    cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);
typedef cl_int(CL_API_CALL *clEnqueueReleaseD3D10ObjectsNV_fn)(
    cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
