/* The GPU path's hand-overs of an imported object (engine/object.h: imported), which the
 * engine's zero-copy calls reach through the GPU path's hooks (engine/gpu_hooks.h) where a
 * zero-copy object's memory would be unmapped and mapped: the driver's external-memory acquire
 * and release instead (gpu/gpu_path.h), on the program's queue or dxcl's own. */
#ifndef DXCL_GPU_HANDOVER_H
#define DXCL_GPU_HANDOVER_H

#include "core/memobj.h"

/* Acquire: the driver's acquire of the memory at once, and the program's event after the wait
 * list. */
cl_int dxcl_gpu_hand_in(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event);
/* Release: the driver's release after `after`, for Direct3D's wait (or a marker: the driver
 * lets go at dxcl_gpu_give_back). */
cl_int dxcl_gpu_hand_out(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                         cl_event *event);
/* The memory goes back to Direct3D (dxcl_zero_copy_hand_back): an acquire with no release is
 * released on dxcl's own queue, and a `ready` Direct3D signalled that no acquire took is
 * waited for; false when the release could not be queued. */
bool dxcl_gpu_give_back(struct dxcl_memobj *mem);

#endif
