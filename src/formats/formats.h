/* The spec's format tables (DXGI for D3D10/D3D11, D3D9 and FourCC for DX9 media) and the
 * choice of a driver format that backs each one (src/formats/formats.c). */
#ifndef DXCL_FORMATS_H
#define DXCL_FORMATS_H

#include "core/common.h"
#include "core/names.h" /* dxcl_channel_order_name, dxcl_channel_type_name */
#include "formats/pixels.h"

#include <d3d9.h>
#include <dxgiformat.h>

/* The CL image format the spec maps a DXGI format to (37 entries, CURRENT.md 1.11.7);
 * false when the format is not in the table. */
bool dxcl_format_from_dxgi(DXGI_FORMAT dxgi, cl_image_format *format);
/* The DXGI table itself, for dxclinfo and tests. */
size_t dxcl_dxgi_format_count(void);
DXGI_FORMAT dxcl_dxgi_format_at(size_t index);

/* A plane of a planar format (D3D9 surfaces, DXGI_FORMAT_NV12): CL format and size relative to
 * the surface (width / width_divisor, height / height_divisor). */
struct dxcl_plane {
    cl_image_format format;
    unsigned width_divisor, height_divisor;
};
/* Number of planes of a D3D9 format in the DX9 media tables: 1 for the 16 D3D9 formats,
 * 2 for NV12, 3 for YV12; 0 when the format is not in the tables. */
unsigned dxcl_d3d9_plane_count(D3DFORMAT d3d9);
/* Plane `plane` of `d3d9`; false when the format or plane is not in the tables. */
bool dxcl_format_from_d3d9(D3DFORMAT d3d9, unsigned plane, struct dxcl_plane *out);
/* cl_intel_d3d11_nv12_media_sharing's planar DXGI format: DXGI_FORMAT_NV12's planes are the
 * D3D9 NV12 planes (Y, then interleaved UV at half size). 0 planes / false for any other
 * format, which the DXGI table serves. */
unsigned dxcl_dxgi_plane_count(DXGI_FORMAT dxgi);
bool dxcl_format_from_dxgi_plane(DXGI_FORMAT dxgi, unsigned plane, struct dxcl_plane *out);
/* The D3D9 table (16 formats, then NV12 and YV12), for dxclinfo and tests. */
size_t dxcl_d3d9_format_count(void);
D3DFORMAT dxcl_d3d9_format_at(size_t index);

/* cl_nv_d3d9_sharing's table (NVIDIA's text: 20 formats, memory-literal orders); false when the
 * format is not in it. The table itself, for tests. */
bool dxcl_format_from_d3d9_nv(D3DFORMAT d3d9, cl_image_format *format);
size_t dxcl_d3d9_nv_format_count(void);
D3DFORMAT dxcl_d3d9_nv_format_at(size_t index);

/* One list of the driver's clGetSupportedImageFormats. */
struct dxcl_format_list {
    cl_image_format *formats;
    cl_uint count;
};
/* The lists a wider backing is chosen from: read-write, read-only and write-only, for 2D and
 * for 3D images. */
#define DXCL_CHOICE_LISTS 6

/* The access part of an image's flags, as the driver's lists are asked for it:
 * READ_WRITE, READ_ONLY, WRITE_ONLY (and KERNEL_READ_AND_WRITE where given); 0, or flags with
 * none of them, is READ_WRITE. */
cl_mem_flags dxcl_image_access(cl_mem_flags flags);

/* The backing of `spec` for an image whose access has `own` as the driver's list: the spec
 * format itself when `own` has it (native); otherwise, of the same channel type in RGBA and in
 * BGRA (each where its layout can hold the spec's channels), the one that the most of `lists`
 * have, the earlier on a tie (emulated: one wider backing per spec format, whatever the
 * access). False when neither is listed. */
bool dxcl_backing_from_lists(const struct dxcl_format_list *own,
                             const struct dxcl_format_list *lists, size_t count,
                             const cl_image_format *spec, struct dxcl_backing *backing);

/* The backing of images of `spec` made with `flags` (only their access counts) and of `type` in
 * this context: dxcl_backing_from_lists with the driver's list for that access and type as
 * `own` and its DXCL_CHOICE_LISTS lists, each without the formats the driver gets wrong for its
 * access. So a format is native wherever the driver serves the access asked, and the images of
 * one spec format in a context have at most two backings, the native one and one wider one
 * (clEnqueueCopyImage between the two converts: src/formats/host_commands.c).
 * CL_IMAGE_FORMAT_NOT_SUPPORTED when nothing can hold it. */
cl_int dxcl_choose_backing(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                           const cl_image_format *spec, struct dxcl_backing *backing);

/* For each of `specs`: whether it has a backing for these flags and image type that the driver
 * lists for them (what clGetSupportedImageFormats and the sharing format queries list). The
 * driver's error when it refuses the flags or type. */
cl_int dxcl_backable_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                             const cl_image_format *specs, size_t count, bool *backable);

/* Whether the context's devices can hold an image of `width` x `height` x `depth` (depth 1 for
 * 2D) whose driver format is `backing`: images supported, the dimensions within the largest
 * device's CL_DEVICE_IMAGE2D/3D_MAX_*, and its bytes within CL_DEVICE_MAX_MEM_ALLOC_SIZE, on
 * one device at least. CL_INVALID_IMAGE_FORMAT_DESCRIPTOR when no device has images,
 * CL_INVALID_IMAGE_SIZE when none holds the size; each with a log line saying why. */
cl_int dxcl_check_image_size(cl_context context, cl_mem_object_type type,
                             const cl_image_format *backing, size_t width, size_t height,
                             size_t depth);
/* The same for a buffer of `size` bytes: CL_INVALID_BUFFER_SIZE over every device's
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
cl_int dxcl_check_buffer_size(cl_context context, size_t size);

/* clGetSupportedImageFormats: the driver's list plus every format of the spec tables that
 * dxcl can back for 2D and 3D images (the argument checks are the driver's). */
cl_int dxcl_supported_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                              cl_uint num_entries, cl_image_format *formats, cl_uint *num_formats);

#endif
