/* The OpenCL C kernels that convert emulated formats on the device (engine/device_convert.h),
 * and which kernel with which arguments converts a layout. Pure C: built into the DLL and,
 * with the host compiler, into a native test that runs every kernel on the host's OpenCL
 * driver against pixels.c. */
#ifndef DXCL_CONVERT_KERNELS_H
#define DXCL_CONVERT_KERNELS_H

#include "formats/pixels.h"

/* The program's source: kernels "to_*" (spec layout -> backing layout) and "from_*". Every
 * kernel takes (source buffer, destination buffer, constant arguments...), one work-item per
 * pixel over a 2D range (pixels of a row, rows of all slices), both buffers tight. */
extern const char dxcl_convert_program[];

/* A constant kernel argument: its size and bytes (clSetKernelArg). */
struct dxcl_convert_arg {
    size_t size;
    unsigned char bytes[16];
};

/* The kernels that convert a layout, and their constant arguments (from index 2). */
struct dxcl_convert_kernels {
    char to[32], from[32];
    struct dxcl_convert_arg to_args[3], from_args[1];
    unsigned to_count, from_count;
};

/* True when the kernels convert this layout: channels of 1, 2 or 4 bytes, 1-4 spec channels,
 * 4 backing channels (every backing dxcl chooses: RGBA or BGRA). */
bool dxcl_convert_supported(const struct dxcl_layout *layout);
/* The kernels of a supported layout. */
void dxcl_convert_kernels_for(const struct dxcl_layout *layout,
                              struct dxcl_convert_kernels *kernels);

#endif
