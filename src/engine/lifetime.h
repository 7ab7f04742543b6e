/* Shared objects are born and die here: the create functions' common part (flags, the
 * backend's checks, the driver object, possibly on the staging memory) and the teardown after
 * the program's last release. */
#ifndef DXCL_LIFETIME_H
#define DXCL_LIFETIME_H

#include "core/memobj.h"

/* Checks cl_mem_flags for the create functions: only READ_ONLY, WRITE_ONLY, READ_WRITE. */
cl_int dxcl_check_shared_flags(cl_mem_flags flags);

/* Creates the driver object and the record; the backend has validated the resource. */
cl_mem dxcl_memobj_create(struct dxcl_context *ctx, cl_mem_flags flags,
                          const struct dxcl_shared_desc *desc, cl_int *errcode_ret);

/* A backend's part of a create function: validate the resource given in `args` against the
 * context and fill `desc` (including surface_data). */
typedef cl_int (*dxcl_prepare_fn)(struct dxcl_context *ctx, const void *args,
                                  struct dxcl_shared_desc *desc);
/* The whole create function: CL_INVALID_CONTEXT, the flags, the backend's checks, then the
 * object. `name` is for the log. */
cl_mem dxcl_create_shared(const char *name, cl_context context, const struct dxcl_backend *backend,
                          cl_mem_flags flags, dxcl_prepare_fn prepare, const void *args,
                          cl_int *errcode_ret);

/* Driver objects outlive their objects for the next of their description (docs/design.md,
 * "Kept driver objects"); false with DXCL_KEEP_DRIVER_OBJECTS=0. */
bool dxcl_keeping_allowed(void);

/* Drops a hold on a shared object's record (core/memobj.h); the last one tears the object
 * down, at once or, while the driver still uses dxcl's memory for it, later: never waiting. */
void dxcl_memobj_put(struct dxcl_memobj *mem);
/* Finishes the teardowns that waited for the driver and can go now and that only a program
 * thread may finish (called by creations, acquires, releases and clReleaseMemObject; the
 * waiter finishes the others). Costs one load when none waits. */
void dxcl_finish_parked(void);

#endif
