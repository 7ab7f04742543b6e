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

/* Every device of the context shares memory with the host (zero-copy's condition, and the
 * test-only import's). */
bool dxcl_host_unified(cl_context context);
/* At creation, before the driver object exists: true when the object's storage is a twin, with
 * `storage` answered (the backend's device_storage). Logs the choice either way. */
bool dxcl_gpu_path_probe(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                         struct dxcl_device_storage *storage);
/* The driver object on the twin's memory: the fd imported (clCreateImageWithProperties). */
cl_mem dxcl_gpu_path_import(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem,
                            const struct dxcl_device_storage *storage, cl_int *err);
/* An imported object's hand-overs (called by engine/zerocopy.c): the driver's external-memory
 * acquire and release, queued at once on `own` (dxcl's own queue of the context, with no wait
 * list: the driver may wait in the call for its wait list, and never does here), or markers
 * where the driver has neither; and the program's event of a hand-over, a marker after the
 * wait list (and a stamp where times are wanted). */
cl_int dxcl_gpu_path_acquire_now(cl_command_queue own, struct dxcl_memobj *mem, cl_event *done);
cl_int dxcl_gpu_path_release_now(cl_command_queue own, struct dxcl_memobj *mem, cl_event *done);
cl_int dxcl_gpu_path_mark(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                          const cl_event *wait_list, cl_event *event);

#endif
