/* The GPU path's twins on DXVK for the D3D10 and D3D11 backends (docs/design.md, "The GPU
 * path"): a surface's twin on the GPU, made and handed over through DXVK's D3D11 interfaces and
 * dxcl's Vulkan layer. Each runs inside the program's Direct3D protection, which the backend
 * entered (the probe enters it for the storage). */
#ifndef DXCL_DXGI_GPU_TWIN_H
#define DXCL_DXGI_GPU_TWIN_H

#include "dxgi/dxgi.h"

/* The backend's device_storage: a twin of the surface's subresource (pooled or new) and the
 * driver's way to it (an fd, a kept import, or the test-only mapping) in `storage`; false, with
 * a log line saying why, where the GPU path cannot take it. */
bool dxcl_dxgi_twin_storage(struct dxcl_surface *surface, struct dxcl_device_storage *storage);
/* The backend's copy_to_host for a surface with a twin: the subresource copied into the twin
 * on the GPU, handed to OpenCL (the semaphore, or the CPU waits). */
cl_int dxcl_dxgi_twin_in(struct dxcl_surface *surface);
/* The backend's map_host (a first command that overwrites the whole object): no copy in. */
void dxcl_dxgi_twin_map(struct dxcl_surface *surface);
/* The backend's unmap_host: Direct3D's queue waits for OpenCL's release, and the twin is
 * copied back where write_back. */
cl_int dxcl_dxgi_twin_out(struct dxcl_surface *surface, bool write_back);

#endif
