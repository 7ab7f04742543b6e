/* How the driver holds an image of a spec format: plain data that the records carry and
 * src/formats/ computes (the choice of backing, the pixel conversions). No functions here, so
 * every layer may hold one. */
#ifndef DXCL_BACKING_H
#define DXCL_BACKING_H

#include <stdbool.h>
#include <stdint.h>
#include <CL/cl.h>

/* Values of dxcl_layout.source[] that do not name a spec channel. */
#define DXCL_FILL_ZERO (-1) /* the channel a native image of the spec's format reads as 0 */
#define DXCL_FILL_ONE (-2)  /* ... reads as 1 (alpha of R/RG formats): 1.0 or integer 1 */

/* How one spec-format pixel sits in one backing-format pixel. Channel type (and so channel
 * size) is the same on both sides; only the order and number of channels differ. */
struct dxcl_layout {
    unsigned channel_size;     /* bytes per channel: 1, 2 or 4 */
    unsigned spec_channels;    /* channels per pixel of the spec format */
    unsigned backing_channels; /* channels per pixel of the driver's format */
    int source[4];             /* per backing channel: a spec channel index or DXCL_FILL_* */
    uint32_t one;              /* bit pattern of 1 in this channel type (1.0f, 0x3c00, 0xff..) */
};

/* How a spec-format image is created on the driver. */
struct dxcl_backing {
    cl_image_format spec;   /* what the program sees in queries */
    cl_image_format driver; /* what the driver image really is */
    struct dxcl_layout layout;
    bool emulated; /* driver != spec: the copy engine converts */
};

#endif
