/* The GPU path's hand-overs: the batch gathered inside dxcl_device_enter (under
 * dxcl_lock_device), one a process. The backends reach it through gpu/twins.h. */
#ifndef DXCL_GPU_BATCH_H
#define DXCL_GPU_BATCH_H

#include "dxgi/pool.h"

struct dxcl_gpu_batch_item {
    struct dxcl_surface *surface; /* NULL for a new or retired twin */
    struct dxcl_dxgi_twin *twin;
    bool
        dxvk_copies_back; /* after the batch: DXVK's copy of the twin's texture into the resource */
};

/* A twin surface's hand-in to OpenCL, with Direct3D's contents (copy_to_host) or without them
 * (map_host: OpenCL overwrites them; a direct twin keeps them all the same), gathered for the
 * next batch. */
cl_int dxcl_dxgi_twin_in(struct dxcl_surface *surface, bool contents);
/* Its hand-out (unmap_host): Direct3D's queue waits for OpenCL's release (the surface's
 * release_event) and, with write_back, the twin's contents go back into the resource. */
cl_int dxcl_dxgi_twin_out(struct dxcl_surface *surface, bool write_back);
/* The backend's end_hand_overs: the gathered hand-overs in one batch. */
cl_int dxcl_dxgi_end_hand_overs(struct dxcl_context *ctx);
/* The twin's memory as the driver sees it: mapped with the test-only import, else none. */
void dxcl_dxgi_twin_mapping(const struct dxcl_dxgi_twin *twin, struct dxcl_mapping *mapping);

/* A slot of the batch for the context's device (the batch of another device is sent first). */
struct dxcl_hand_over_item *dxcl_gpu_batch_add(struct dxcl_context *ctx,
                                               const struct dxcl_gpu_batch_item *item);
/* The batch to the layer, through DXVK's flush and its held submissions; each surface settled. */
cl_int dxcl_gpu_batch_send(void);
/* A new twin DXVK wraps, moved into the layout DXVK takes it to be in: a batch of its own. */
void dxcl_gpu_batch_prepare(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin);
/* The batches' step times so far, in the log. */
void dxcl_gpu_batch_log_times(void);

#endif
