/* The enqueue guard: every command that uses a shared object passes here first. An object
 * that is not acquired fails the command with the family's NOT_ACQUIRED error (required by DX9
 * media and NV, allowed by the KHR D3D texts); one that may change is marked for the release to
 * bring back; the first command after an acquire decides whether the Direct3D contents are
 * brought in (engine/lazy.h). */
#ifndef DXCL_GUARD_H
#define DXCL_GUARD_H

#include "core/memobj.h"

/* How a command uses a memory object. */
enum dxcl_use {
    DXCL_USE_READ,      /* reads it (or may: kernels, maps for reading, migrations) */
    DXCL_USE_WRITE,     /* may read it and may change some of it */
    DXCL_USE_OVERWRITE, /* writes all of it before anything reads it */
};
/* For a command on `queue`: the family's not-acquired error when `handle` is a shared object
 * (or a sub-buffer of one) that is not acquired, CL_SUCCESS otherwise. A write records that the
 * object may change; the first use after an acquire brings in the Direct3D contents first
 * unless it overwrites them (engine/lazy.h). */
cl_int dxcl_memobj_use(cl_command_queue queue, cl_mem handle, enum dxcl_use use,
                       const char *caller);
static inline cl_int dxcl_memobj_check_acquired(cl_mem handle, const char *caller)
{
    return dxcl_memobj_use(NULL, handle, DXCL_USE_READ, caller);
}
/* DXCL_USE_OVERWRITE when [offset, offset + size) is all of shared buffer `handle`, else
 * DXCL_USE_WRITE. */
enum dxcl_use dxcl_buffer_write_use(cl_mem handle, size_t offset, size_t size);
/* The same for a region of a shared image. */
enum dxcl_use dxcl_image_write_use(cl_mem handle, const size_t *origin, const size_t *region);
/* A map of a buffer range or an image region with `flags`: an overwrite when it invalidates
 * all of the object. */
enum dxcl_use dxcl_map_use(cl_map_flags flags, enum dxcl_use whole);

#endif
