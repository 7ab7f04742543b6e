/* The D3D11 backend: ID3D11Device, buffers, 2D and 3D textures. */
#ifndef DXCL_D3D11_H
#define DXCL_D3D11_H

#include "core/dxgi.h"

#include <d3d11.h>
#include <CL/cl_d3d11.h>

extern const struct dxcl_backend dxcl_d3d11_backend;

/* device.c */
cl_int d3d11_open_device(struct dxcl_context *ctx, cl_context_properties property,
                         void *object);
void d3d11_close_device(struct dxcl_context *ctx);
cl_int d3d11_device_ids(cl_platform_id platform, cl_uint source, void *object, cl_uint set,
                        cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices);

/* resource.c */
cl_mem d3d11_create(cl_context context, cl_mem_flags flags, ID3D11Resource *resource,
                    D3D11_RESOURCE_DIMENSION expected, UINT subresource, cl_int *errcode_ret);
cl_int d3d11_lock_surface(struct dxcl_surface *surface);
void d3d11_unlock_surface(struct dxcl_surface *surface, bool write_back);
void d3d11_destroy_surface(struct dxcl_surface *surface);
cl_int d3d11_query(const struct dxcl_memobj *mem, bool image, cl_uint param, size_t size,
                   void *value, size_t *size_ret);

#endif
