/* What the D3D9 families (DX9 media, cl_nv_d3d9_sharing) ask of a D3D9 device
 * (src/dx9/d3d9_device.c). */
#ifndef DXCL_D3D9_DEVICE_H
#define DXCL_D3D9_DEVICE_H

#include "core/common.h"

#include <d3d9.h>

/* The adapter LUID of a D3D9Ex device; false for anything else (plain D3D9 devices do not
 * tell it). */
bool dxcl_d3d9ex_luid(const void *object, LUID *luid);
/* The D3D9 threading rule (struct dxcl_backend's prepare_device): dxcl may use a device from
 * its own threads only when the program created it with D3DCREATE_MULTITHREADED. */
struct dxcl_context;
bool dxcl_d3d9_prepare_device(struct dxcl_context *ctx);
/* Whether `resource` (any IDirect3DResource9) was made by `device`. */
bool dxcl_d3d9_resource_of(IDirect3DResource9 *resource, void *device);
/* Whether `handle` may be given as the shared handle of `surface` (docs/design.md, "The DX9
 * shared handle"): NULL, or, on a D3D9Ex device whose Direct3D hands out shared handles, one
 * that opens as a shared resource of the surface's kind and description. A handle of the
 * process is none (D3D9Ex shared handles are not kernel handles, and an event's is no
 * resource's); neither is a pseudo-handle, nor anything where Direct3D shares nothing. */
bool dxcl_d3d9_shared_handle_valid(IDirect3DSurface9 *surface, HANDLE handle);

#endif
