/* The NV12 rows' hand-written way (bench_dx9.c, bench_d3d11_nv12.c): the program's own copies
 * of an NV12 picture's two planes, Y in an image and UV in a buffer (a driver may lack CL_RG),
 * and what the program does with them: transfers to and from mapped NV12 bytes, and the copy. */
#ifndef DXCL_BENCH_NV12_OWN_H
#define DXCL_BENCH_NV12_OWN_H

#include "benchlib.h"

/* [in, out]: `in` takes the source's planes, `out` gives the destination's. */
struct nv12_own {
    cl_mem y[2], uv[2];
    size_t width, height;
};

void nv12_own_open(struct nv12_own *own, cl_context context, size_t width, size_t height);
void nv12_own_close(struct nv12_own *own);
/* Between own's planes [which] and mapped NV12 bytes: Y rows `pitch` apart, then UV rows at
 * pitch x height. `write`: into own's planes; else out of them. */
void nv12_own_transfer(const struct nv12_own *own, cl_command_queue queue, int which,
                       unsigned char *bytes, size_t pitch, bool write);
/* Copies own's `in` planes into its `out` planes, finished. */
void nv12_own_copy(const struct nv12_own *own, cl_command_queue queue);

#endif
