/* The GPU path of D3D1x on DXVK (docs/design.md, "The GPU path"): a surface's twin, made by dxcl's
 * Vulkan layer (core/twin.h) on the device of the program's texture, kept with the context's
 * staging pool, and handed between Direct3D's queue and OpenCL in batches: every hand-over the
 * surfaces of one acquire, release or teardown ask for goes in one submission of the layer's on
 * DXVK's queue, with one flush of DXVK and one hold of its submissions (dxcl_dxgi_end_hand_overs).
 * The same for D3D10 and D3D11: DXVK's D3D10 objects are its D3D11 ones, so the twins reach DXVK
 * through the D3D11 interfaces of the program's device and resources; a backend only chooses to
 * use them. */
#ifndef DXCL_GPU_TWINS_H
#define DXCL_GPU_TWINS_H

#include "dxgi/pool.h"
#include "gpu/batch.h"

/* The resource is DXVK's (it has IDXGIVkInteropSurface). */
bool dxcl_gpu_is_dxvk(void *resource);
/* The driver's context exists: sharing starts on the Vulkan device of the context's Direct3D
 * device (ctx->gpu_device) where the GPU path may serve (DXVK, the Unix side, the layer, a driver
 * that imports). Logged either way. */
void dxcl_dxgi_share(struct dxcl_context *ctx);
/* The backend's device_storage (struct dxcl_backend). */
bool dxcl_dxgi_device_storage(struct dxcl_surface *surface, struct dxcl_device_storage *storage);
/* A twin of the pool, once no surface uses it: given up to the layer, which frees it after the
 * GPU is done with it (the caller is not inside dxcl_device_enter). */
void dxcl_dxgi_twin_release(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s);

#endif
