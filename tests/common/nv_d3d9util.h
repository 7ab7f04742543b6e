/* cl_nv_d3d9_sharing helpers for tests/test_nv_d3d9_*.c: the nine entry points, contexts on
 * CL_CONTEXT_D3D9_DEVICE_NV, the six resource kinds NVIDIA's text shares (made so that the
 * copy engine reaches them: D3DPOOL_DEFAULT, dynamic or render target) and their contents
 * read and written through Direct3D. */
#ifndef DXCL_TEST_NV_D3D9UTIL_H
#define DXCL_TEST_NV_D3D9UTIL_H

#include "dx9util.h"

#include <dxcl/cl_nv_d3d9.h>

struct nv_fns {
    clGetDeviceIDsFromD3D9NV_fn get_device_ids;
    clCreateFromD3D9VertexBufferNV_fn create_vertex_buffer;
    clCreateFromD3D9IndexBufferNV_fn create_index_buffer;
    clCreateFromD3D9SurfaceNV_fn create_surface;
    clCreateFromD3D9TextureNV_fn create_texture;
    clCreateFromD3D9CubeTextureNV_fn create_cube_texture;
    clCreateFromD3D9VolumeTextureNV_fn create_volume_texture;
    clEnqueueAcquireD3D9ObjectsNV_fn acquire;
    clEnqueueReleaseD3D9ObjectsNV_fn release;
};
extern struct nv_fns nv;

/* Fills `nv` (aborts when a function is missing) and opens a dx9_env whose context names the
 * device with CL_CONTEXT_D3D9_DEVICE_NV. */
void nv_open(struct dx9_env *env, enum dx9_kind kind);

enum nv_kind {
    NV_VERTEX_BUFFER,
    NV_INDEX_BUFFER,
    NV_SURFACE,    /* offscreen plain, D3DPOOL_DEFAULT */
    NV_RT_SURFACE, /* render target, not lockable */
    NV_TEXTURE,    /* D3DUSAGE_DYNAMIC, 3 levels */
    NV_RT_TEXTURE, /* D3DUSAGE_RENDERTARGET, 1 level */
    NV_CUBE,       /* D3DUSAGE_DYNAMIC, 2 levels */
    NV_RT_CUBE,    /* D3DUSAGE_RENDERTARGET, 1 level */
    NV_VOLUME,     /* D3DUSAGE_DYNAMIC, 2 levels */
    NV_KIND_COUNT
};
const char *nv_kind_name(enum nv_kind kind);
bool nv_kind_is_buffer(enum nv_kind kind);

/* A resource of `kind` (buffers: width bytes; volumes: width x height x depth), or NULL with
 * the HRESULT in *hr. */
IUnknown *nv_resource(IDirect3DDevice9 *device, enum nv_kind kind, D3DFORMAT format, UINT width,
                      UINT height, UINT depth, HRESULT *hr);
/* The CL object of level `level` (and cube face `face`) of the resource. */
cl_mem nv_create(struct dx9_env *env, enum nv_kind kind, IUnknown *resource, D3DCUBEMAP_FACES face,
                 UINT level, cl_mem_flags flags, cl_int *err);
/* Size of level `level` (buffers: bytes in *width). */
void nv_level_size(enum nv_kind kind, UINT width, UINT height, UINT depth, UINT level, UINT *w,
                   UINT *h, UINT *d);
/* Writes / reads one level (and face) through Direct3D: `bpp` bytes per pixel, tightly packed
 * rows and slices. */
bool nv_write(IUnknown *resource, enum nv_kind kind, D3DCUBEMAP_FACES face, UINT level,
              unsigned bpp, const void *data);
bool nv_read(IUnknown *resource, enum nv_kind kind, D3DCUBEMAP_FACES face, UINT level, unsigned bpp,
             void *data);

#endif
