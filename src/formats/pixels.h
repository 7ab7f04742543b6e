/* Pixel layout conversion between a spec format and the driver format that backs it.
 * Pure C: no Windows or driver calls, unit-tested natively with sanitizers. */
#ifndef DXCL_PIXELS_H
#define DXCL_PIXELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <CL/cl.h>

#include "core/backing.h"

/* Channels of a CL channel order (CL_R 1, CL_RG 2, CL_RGBA 4 ...); 0 when unknown. */
unsigned dxcl_channel_count(cl_channel_order order);
/* Bytes per channel of a CL channel type; 0 for packed or unknown types. */
unsigned dxcl_channel_size(cl_channel_type type);
/* Bytes per pixel; 0 when unknown. */
size_t dxcl_element_size(const cl_image_format *format);
/* The bit pattern a "1" channel has in this channel type (used for DXCL_FILL_ONE). */
uint32_t dxcl_channel_one(cl_channel_type type);

/* Builds the layout that stores `spec` pixels in `backing` pixels so that a kernel reading
 * the backing image sees what it would read from a native `spec` image (R -> (r,0,0,1),
 * RG -> (r,g,0,1), A -> (0,0,0,a), BGRA stored as RGBA with swizzle...). Returns false when
 * `backing` cannot represent `spec` (different channel type, missing channels). */
bool dxcl_layout_for(const cl_image_format *spec, const cl_image_format *backing,
                     struct dxcl_layout *layout);
/* True when the layout is the identity (no conversion needed). */
bool dxcl_layout_is_identity(const struct dxcl_layout *layout);

/* A box of pixels in memory: row and slice pitches in bytes. */
struct dxcl_pixel_box {
    void *data;
    size_t row_pitch;
    size_t slice_pitch;
};

/* Converts width x height x depth pixels from spec layout (src) to backing layout (dst),
 * filling the channels the spec format lacks. */
void dxcl_pixels_to_backing(const struct dxcl_layout *layout, const struct dxcl_pixel_box *src,
                            const struct dxcl_pixel_box *dst, size_t width, size_t height,
                            size_t depth);
/* The reverse: keeps only the spec's channels. */
void dxcl_pixels_from_backing(const struct dxcl_layout *layout, const struct dxcl_pixel_box *src,
                              const struct dxcl_pixel_box *dst, size_t width, size_t height,
                              size_t depth);
/* Copies rows between two boxes with different pitches (row_bytes per row). */
void dxcl_copy_box(const struct dxcl_pixel_box *src, const struct dxcl_pixel_box *dst,
                   size_t row_bytes, size_t height, size_t depth);

#endif
