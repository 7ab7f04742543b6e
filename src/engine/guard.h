/* The enqueue guard: every command that uses a shared object passes here, before the driver
 * sees it and after the driver answered. Before: an object that is not acquired fails the
 * command with the family's NOT_ACQUIRED error (required by DX9 media and NV, allowed by the
 * KHR D3D texts), and the first command after an acquire brings in the Direct3D contents
 * (engine/lazy.h). After: a command the driver accepted and that may write an object marks it
 * for the release to bring back, and a whole overwrite of a copied object maps its surface
 * instead of reading it. A command the driver rejected changes nothing the program can see:
 * a zero-copy object it was to overwrite (whose storage had to go to the driver first) reads
 * the resource in at its next touch. */
#ifndef DXCL_GUARD_H
#define DXCL_GUARD_H

#include "core/memobj.h"

/* How a command uses a memory object. */
enum dxcl_use {
    DXCL_USE_READ,      /* reads it (or may: kernels, maps for reading, migrations) */
    DXCL_USE_WRITE,     /* may read it and may change some of it */
    DXCL_USE_OVERWRITE, /* writes all of it before anything reads it */
};

struct dxcl_use_of {
    cl_mem mem;
    enum dxcl_use use;
};

/* One shared object a command uses, held from the check to the driver's answer. */
struct dxcl_guarded_object {
    struct dxcl_memobj *mem;
    enum dxcl_use use;
    bool overwrite; /* a whole overwrite of an untouched object (dxcl_lazy_overwrite) */
    bool prepared;  /* its storage went to the driver without the resource's data */
};

struct dxcl_guarded {
    cl_command_queue queue;
    const char *caller;
    size_t count;
    struct dxcl_guarded_object *objects;
    /* A command with up to this many shared objects allocates nothing. */
    struct dxcl_guarded_object inline_objects[16];
};

/* Before a command on `queue` (NULL for one that moves no data: an unmap) that uses `uses`:
 * the family's not-acquired error when one of them is a shared object, or a sub-buffer of one,
 * that is not acquired; nothing stays held then and no end is needed. CL_SUCCESS otherwise:
 * call dxcl_guard_end with the driver's answer. */
cl_int dxcl_guard_begin(struct dxcl_guarded *g, cl_command_queue queue,
                        const struct dxcl_use_of *uses, size_t count, const char *caller);
/* dxcl_guard_begin for a command on a list of `count` memory objects, all used as `use`
 * (a NULL list: the driver answers for it). */
cl_int dxcl_guard_begin_list(struct dxcl_guarded *g, cl_command_queue queue, const cl_mem *mems,
                             cl_uint count, enum dxcl_use use, const char *caller);
/* After the driver answered `result` (returned): see the top of this file. */
cl_int dxcl_guard_end(struct dxcl_guarded *g, cl_int result);

/* A shared object set as an argument of `kernel` (engine/kernels.c), or NULL when none is, or
 * dxcl keeps no record of the kernel: what a command recorded for later replays would use. */
cl_mem dxcl_kernel_shared_arg(cl_kernel kernel);

/* DXCL_USE_OVERWRITE when [offset, offset + size) is all of shared buffer `handle`, else
 * DXCL_USE_WRITE. */
enum dxcl_use dxcl_buffer_write_use(cl_mem handle, size_t offset, size_t size);
/* The same for a region of a shared image. */
enum dxcl_use dxcl_image_write_use(cl_mem handle, const size_t *origin, const size_t *region);
/* A map of a buffer range or an image region with `flags`: an overwrite when it invalidates
 * all of the object. */
enum dxcl_use dxcl_map_use(cl_map_flags flags, enum dxcl_use whole);

#endif
