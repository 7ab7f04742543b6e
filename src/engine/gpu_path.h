/* The GPU path (docs/design.md, "The GPU path"): where Direct3D is DXVK, the driver is reached
 * through dxcl's Unix side with its Vulkan layer, and the OpenCL device imports memory from the
 * same GPU, a shared 2D texture's OpenCL storage is a twin of its subresource on the GPU. Direct3D
 * copies into the twin and out of it on the GPU (the backend's device_storage, copy_to_host and
 * unmap_host), and OpenCL uses the twin's memory, imported: no byte crosses the host. The object
 * is otherwise a zero-copy object (engine/zerocopy.h): the twin is its surface's memory, handed
 * between the APIs at acquire and release.
 *
 * The test-only import (test builds, DXCL_GPU_IMPORT=host): the twin is host-visible and its
 * mapping is the storage (CL_MEM_USE_HOST_PTR), for drivers that import nothing (PoCL on
 * lavapipe in CI); everything else is the same path. */
#ifndef DXCL_GPU_PATH_H
#define DXCL_GPU_PATH_H

#include "core/backend.h"
#include "core/memobj.h"

/* At creation, before the driver object exists: true when the object's storage is a twin, with
 * `storage` answered (the backend's device_storage). Logs the choice either way. */
bool dxcl_gpu_path_probe(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                         struct dxcl_device_storage *storage);
/* The driver object on the twin's memory: the fd imported (clCreateImageWithProperties). */
cl_mem dxcl_gpu_path_import(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem,
                            const struct dxcl_device_storage *storage, cl_int *err);
/* An imported object's hand-overs: the driver's external-memory acquire after the wait list
 * (to the device), its release after `after` (to Direct3D); a marker where it has neither. */
cl_int dxcl_gpu_path_to_device(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event);
cl_int dxcl_gpu_path_to_host(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                             cl_event *event);

#endif
