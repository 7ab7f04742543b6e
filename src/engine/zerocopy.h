/* Zero-copy: on devices that share host memory, a D3D1x shared object's driver storage is the
 * staging resource's own memory (CL_MEM_USE_HOST_PTR), so acquire and release move each byte
 * once, between Direct3D and that memory, instead of twice. Ownership of the memory passes
 * between Direct3D and OpenCL with map and unmap commands: the driver object is mapped for the
 * host while Direct3D fills or empties the staging resource, and unmapped while OpenCL uses it.
 * On a driver that aliases the memory (PoCL, integrated GPUs) map and unmap move nothing; on
 * one that copies anyway they are exactly the copies the copy engine would make. */
#ifndef DXCL_ZEROCOPY_H
#define DXCL_ZEROCOPY_H

#include "core/memobj.h"

/* Every device of the context shares memory with the host (zero-copy's condition, and the GPU
 * path's test-only import's). */
bool dxcl_host_unified(cl_context context);
/* False when DXCL_ZERO_COPY=0 turns zero-copy off for every object. */
bool dxcl_zero_copy_allowed(void);
/* At creation, before the driver object exists: true (and *host, the memory to use) when the
 * object can use its surface's host copy as storage. Logs the choice either way. */
bool dxcl_zero_copy_probe(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                          struct dxcl_mapping *host);
/* After the surface was brought in for an acquire or a first touch of a zero-copy object: true
 * when the mapping is still where the driver object's storage is. When Direct3D mapped it
 * elsewhere, zero-copy ends for the object, for good (a log line): its resting mapping is
 * handed back to the driver, mem->moved is set, and the caller copies as for any object. */
bool dxcl_zero_copy_in_place(struct dxcl_memobj *mem, const char *caller);
/* Acquire: hands the memory to the driver after the wait list (the event is the unmap). An
 * object on the GPU path (engine/object.h, on_gpu) is handed over here too: an imported one
 * by the GPU path's hand-overs (engine/gpu_hooks.h), a twin of the test-only import as any
 * zero-copy object, after the host's wait for Direct3D's hand-in. */
cl_int dxcl_zero_copy_to_device(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event);
/* Release: hands the memory back to the host after `after` (the event is the map). */
cl_int dxcl_zero_copy_to_host(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                              cl_event *event);
/* A failed release: gives back to the driver what dxcl_zero_copy_to_host took. */
void dxcl_zero_copy_undo(struct dxcl_memobj *mem);
/* An object resting mapped for Direct3D (between a release and the next acquire, or for good
 * when zero-copy ended) gives the mapping back to the driver: an unmap on dxcl's own queue of
 * the context, where nothing of the program's is queued before it, waited for. False when it
 * could not be queued (the object stays mapped). */
bool dxcl_zero_copy_hand_back(struct dxcl_memobj *mem);
/* The queue dxcl last used for the object (retained, for the waits at the end), and dxcl's own
 * queue on the object's context (on the device dxcl last used it on: made on first use), or
 * NULL; shared with the GPU path's hand-overs (gpu/handover.c). */
void dxcl_remember_queue(struct dxcl_memobj *mem, cl_command_queue queue);
cl_command_queue dxcl_own_queue(struct dxcl_memobj *mem);

#endif
