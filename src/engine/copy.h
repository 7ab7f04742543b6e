/* One shared object's bytes: its Direct3D resource copied into host memory (the surface) and
 * back, the upload from there into the driver object and the download back, and the
 * conversion on the way for formats the driver lacks. The orchestration (which objects, in
 * what order, with which events) is the caller's: engine/acquire.c and engine/lazy.c. */
#ifndef DXCL_COPY_H
#define DXCL_COPY_H

#include "core/memobj.h"

/* Brings the object's surface into host memory, copying the resource's contents in, or only
 * mapping it when `contents` is false and the backend can; a surface that another object
 * (a plane) holds already stays as it is. Called inside dxcl_device_enter (core/backend.h). */
cl_int dxcl_surface_in(struct dxcl_memobj *mem, bool contents);
/* The reverse: `changed` when the object's host copy holds new data for the resource; the last
 * object of the surface unmaps it, writing it back when any of its objects changed it. Called
 * inside dxcl_device_enter. An error when the write back failed (the resource keeps its old
 * contents). */
cl_int dxcl_surface_out(struct dxcl_memobj *mem, bool changed);

/* Queues the upload of the object's host copy (its surface is in) into the driver object,
 * converting an emulated format first. */
cl_int dxcl_enqueue_upload(cl_command_queue queue, struct dxcl_memobj *mem, const char *name,
                           cl_uint num_events, const cl_event *wait_list, cl_event *event);
/* Queues the download of the driver object into its host copy after `after`. */
cl_int dxcl_enqueue_download(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                             cl_event *event);
/* After a download completed: an emulated format's pixels go into the surface in the spec's
 * layout. */
void dxcl_download_done(struct dxcl_memobj *mem);
/* What an emulated format's conversions kept (host buffer, device buffers and kernels) goes:
 * the object's teardown. */
void dxcl_conversion_free(struct dxcl_memobj *mem);

#endif
