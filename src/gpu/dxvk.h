/* DXVK's side of the GPU path, for its other files: DXVK's D3D11 interfaces behind either
 * Direct3D version's objects (DXVK's D3D10 objects are its D3D11 ones). Nothing here is DXVK's
 * without asking: each answers NULL or 0 where Direct3D is not DXVK. */
#ifndef DXCL_GPU_DXVK_H
#define DXCL_GPU_DXVK_H

#include "dxgi/pool.h"
#include "gpu/dxvk_interop.h"

/* The Vulkan image behind a D3D1x resource and the layout DXVK keeps it in; 0 when DXVK gives
 * none (or the resource is not DXVK's). */
uint64_t dxcl_gpu_vulkan_image(IUnknown *resource, int32_t *layout,
                               struct dxvk_image_create_info *info);
/* DXVK's interop interface of the context's device, referenced, or NULL. */
IDXGIVkInteropDevice1 *dxcl_gpu_interop_of(struct dxcl_context *ctx);
/* DXVK's copy of the surface's subresource into its twin's texture (to_twin) or back, on the
 * device's immediate context; inside dxcl_device_enter. */
void dxcl_gpu_dxvk_copy(struct dxcl_surface *surface, bool to_twin);
/* An event query ended on the immediate context, so that DXVK's next flush submits (a new
 * texture's initial data goes with the context's next commands). */
void dxcl_gpu_dxvk_nudge(struct dxcl_context *ctx);
/* A 1x1 default texture of the context's device, referenced, or NULL: its Vulkan image names
 * the device to the layer. */
IUnknown *dxcl_gpu_dxvk_probe(struct dxcl_context *ctx);

#endif
