/* The GPU path (docs/design.md, "The GPU path"), which the engine reaches through its hooks
 * (engine/gpu_hooks.h): where Direct3D is DXVK, the driver is reached through dxcl's Unix side
 * with its Vulkan layer, and the OpenCL device imports memory from the same GPU, a shared
 * texture's OpenCL storage (2D and 3D subresources, NV12 planes) is a twin of its subresource on
 * the GPU (or the texture's own memory: a direct twin). Direct3D (or dxcl's layer, on
 * Direct3D's queue) copies into the twin and out of it on the GPU, and OpenCL uses the twin's
 * memory, imported: no byte crosses the host. The object is otherwise handed over as a
 * zero-copy object is (engine/zerocopy.h), by the driver's external-memory acquire and release
 * (gpu/handover.h): the twin is its surface's memory, handed between the APIs at acquire and
 * release.
 *
 * Hand-overs (the backend's, in batches on Direct3D's queue: core/twin.h): to OpenCL, the layer
 * releases the twin's ownership to the external queue family and signals the twin's `ready`,
 * which OpenCL waits for on the GPU where the driver imports semaphores
 * (cl_khr_external_semaphore_opaque_fd; the surface is gpu_synced); elsewhere, or with
 * DXCL_GPU_SYNC=cpu, or where everything of Direct3D's was already done, the host waits for the
 * layer's timeline before OpenCL uses the twin (dxcl_gpu_path_wait_hand_in), outside every lock
 * of the program's. Back, OpenCL's release (the driver's external-memory release) is queued, and
 * Direct3D's queue waits for a timeline of the layer's that the host signals once that release
 * is done (the driver's event callback, through the Unix side), or once its bound passed: the
 * release call waits for nothing, and Direct3D never waits for OpenCL without a bound.
 *
 * The test-only import (test builds, DXCL_GPU_IMPORT=host): the twin is host-visible and its
 * mapping is the storage (CL_MEM_USE_HOST_PTR), for drivers that import nothing (PoCL on
 * lavapipe in CI); everything else is the same path, the same Vulkan calls included. */
#ifndef DXCL_GPU_PATH_H
#define DXCL_GPU_PATH_H

#include "core/backend.h"
#include "core/memobj.h"

/* Whether objects of the context may take the GPU path, as far as the context tells (not
 * DXCL_PATH=engine, and the import the path would use is there); quiet. */
bool dxcl_gpu_path_may_serve(struct dxcl_context *ctx);
/* At creation, before the driver object exists: true when the object's storage is a twin, with
 * `storage` answered (the backend's device_storage). Logs the choice either way. */
bool dxcl_gpu_path_probe(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                         struct dxcl_device_storage *storage);
/* The driver object on the twin's memory: the fd imported (clCreateImageWithProperties). */
cl_mem dxcl_gpu_path_import(struct dxcl_context *ctx, cl_mem_flags flags,
                            const struct dxcl_memobj *mem,
                            const struct dxcl_device_storage *storage, cl_int *err);
/* An imported object's hand-overs (called by gpu/handover.c): the driver's external-memory
 * acquire and release, queued at once on `own` (dxcl's own queue of the context, with no wait
 * list: the driver may wait in the call for its wait list, and never does here), or markers
 * where the driver has neither; the acquire first waits for `ready` where the surface has it
 * signalled. And the program's event of a hand-over, a marker after the wait list (and a stamp
 * where times are wanted). */
/* Before OpenCL uses the twin: the host waits for the layer's timeline where the backend's last
 * hand-in asked for that (no `ready` for OpenCL to wait on); CL_SUCCESS, or an error (logged)
 * when Direct3D's queue did not get there in time. Called outside every lock. */
cl_int dxcl_gpu_path_wait_hand_in(struct dxcl_memobj *mem);
/* OpenCL's wait for the twin's `ready`, queued on `own` where the surface has it signalled (its
 * event into *waited where asked, else none). */
cl_int dxcl_gpu_path_wait_ready(cl_command_queue own, struct dxcl_memobj *mem, cl_event *waited);
cl_int dxcl_gpu_path_acquire_now(cl_command_queue own, struct dxcl_memobj *mem, cl_event *done);
cl_int dxcl_gpu_path_release_now(cl_command_queue own, struct dxcl_memobj *mem, cl_uint num_events,
                                 const cl_event *wait_list, cl_event *done);
/* An imported object's release on the release's queue after `after` (the release's barrier),
 * its event into *event and, for Direct3D's wait at the hand-out, the surface's release_event. */
cl_int dxcl_gpu_path_release_for_direct3d(cl_command_queue queue, struct dxcl_memobj *mem,
                                          cl_event after, cl_event *event);
/* The event after which OpenCL no longer uses the twin of a host-mapped object (the release's
 * map), kept for Direct3D's wait at the hand-out. */
void dxcl_gpu_path_released_at(struct dxcl_memobj *mem, cl_event event);
cl_int dxcl_gpu_path_mark(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                          const cl_event *wait_list, cl_event *event);

#endif
