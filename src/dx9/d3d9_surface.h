/* What the D3D9 families (DX9 media, cl_nv_d3d9_sharing) share to move the bytes of an
 * IDirect3DSurface9: which surfaces the copy engine reaches, and locking them (LockRect, or
 * GetRenderTargetData into a system-memory copy for render targets) and writing them back
 * (src/dx9/d3d9_surface.c). */
#ifndef DXCL_D3D9_SURFACE_H
#define DXCL_D3D9_SURFACE_H

#include "core/backend.h"

#include <d3d9.h>

struct dxcl_d3d9_surface {
    IDirect3DSurface9 *surface; /* kept alive by the caller */
    IDirect3DSurface9 *sysmem;  /* for render targets (they may not lock), else NULL */
    bool locked_directly;       /* the mapping is a lock of the surface itself */
    D3DSURFACE_DESC desc;
};

/* Whether the copy engine can read and write `surface`: anything outside D3DPOOL_DEFAULT,
 * render targets, dynamic surfaces and stand-alone (offscreen plain) surfaces. A level of a
 * D3DPOOL_DEFAULT texture that is neither dynamic nor a render target can only be read by
 * drawing with it. */
bool dxcl_d3d9_surface_reachable(IDirect3DSurface9 *surface);
/* Prepares what locking `surface` needs (the caller keeps it alive until
 * dxcl_d3d9_surface_free); E_* on failure (then `s` holds nothing). */
HRESULT dxcl_d3d9_surface_init(struct dxcl_d3d9_surface *s, IDirect3DSurface9 *surface);
void dxcl_d3d9_surface_free(struct dxcl_d3d9_surface *s);
/* Maps the surface's contents (for a render target: a fresh copy). */
cl_int dxcl_d3d9_surface_lock(struct dxcl_d3d9_surface *s, struct dxcl_mapping *mapping);
/* Unmaps; with write_back, the copy's contents go back into a render target. */
cl_int dxcl_d3d9_surface_unlock(struct dxcl_d3d9_surface *s, bool write_back);

#endif
