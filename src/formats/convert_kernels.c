/* The conversion kernels of emulated formats and their choice per layout
 * (formats/convert_kernels.h). Pure C. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include "formats/convert_kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Two kinds of kernels, one work-item per pixel (PIXEL counts over rows and slices, both
 * buffers being tight):
 * - prefix_S_B: the spec pixel (S bytes) is the start of the backing pixel (B bytes) and the
 *   other channels are filled (R, RG in RGBA of any channel size): each pixel is one integer
 *   zero-extended and OR-ed with the fill pixel, which a CPU driver vectorises (about four
 *   times faster than moving channels on PoCL). Little-endian devices only: on others the
 *   build fails and the host converts.
 * - any_T_N: channels of T (uchar, ushort, uint), N per spec pixel, moved by a shuffle into 4
 *   (BGRA in RGBA, A in RGBA, RGB in RGBA). */
const char dxcl_convert_program[] =
    "#ifndef __ENDIAN_LITTLE__\n"
    "#error the prefix kernels need a little-endian device\n"
    "#endif\n"
    "#define PIXEL (get_global_id(1) * get_global_size(0) + get_global_id(0))\n"
    "#define PREFIX(S, B, TS, TB, EXTEND, TRUNCATE) \\\n"
    "__kernel void to_prefix_##S##_##B(__global const TS *spec, __global TB *backing, \\\n"
    "                                  TB fill) \\\n"
    "{ size_t p = PIXEL; TS v = spec[p]; backing[p] = EXTEND; } \\\n"
    "__kernel void from_prefix_##S##_##B(__global const TB *backing, __global TS *spec) \\\n"
    "{ size_t p = PIXEL; TB v = backing[p]; spec[p] = TRUNCATE; }\n"
    "PREFIX(1, 4, uchar, uint, (uint)v | fill, (uchar)v)\n"
    "PREFIX(2, 4, ushort, uint, (uint)v | fill, (ushort)v)\n"
    "PREFIX(2, 8, ushort, ulong, (ulong)v | fill, (ushort)v)\n"
    "PREFIX(4, 8, uint, ulong, (ulong)v | fill, (uint)v)\n"
    "PREFIX(4, 16, uint, ulong2, (ulong2)((ulong)v | fill.x, fill.y), (uint)v.x)\n"
    "PREFIX(8, 16, ulong, ulong2, (ulong2)(v | fill.x, fill.y), v.x)\n"
    "#define LOAD1(V, p, s) (V)((s)[p], 0, 0, 0)\n"
    "#define LOAD2(V, p, s) (V)(vload2((p), (s)), 0, 0)\n"
    "#define LOAD3(V, p, s) (V)(vload3((p), (s)), 0)\n"
    "#define LOAD4(V, p, s) vload4((p), (s))\n"
    "#define STORE1(v, p, d) ((d)[p] = (v).x)\n"
    "#define STORE2(v, p, d) vstore2((v).xy, (p), (d))\n"
    "#define STORE3(v, p, d) vstore3((v).xyz, (p), (d))\n"
    "#define STORE4(v, p, d) vstore4((v), (p), (d))\n"
    "#define ANY(T, N) \\\n"
    "__kernel void to_any_##T##_##N(__global const T *spec, __global T *backing, \\\n"
    "                               T##4 index, T##4 keep, T##4 fill) \\\n"
    "{ size_t p = PIXEL; \\\n"
    "  vstore4((shuffle(LOAD##N(T##4, p, spec), index) & keep) | fill, p, backing); } \\\n"
    "__kernel void from_any_##T##_##N(__global const T *backing, __global T *spec, \\\n"
    "                                 T##4 index) \\\n"
    "{ size_t p = PIXEL; T##4 v = shuffle(vload4(p, backing), index); STORE##N(v, p, spec); }\n"
    "#define ALL(T) ANY(T, 1) ANY(T, 2) ANY(T, 3) ANY(T, 4)\n"
    "ALL(uchar)\n"
    "ALL(ushort)\n"
    "ALL(uint)\n";

bool dxcl_convert_supported(const struct dxcl_layout *layout)
{
    return (layout->channel_size == 1 || layout->channel_size == 2 || layout->channel_size == 4) &&
           layout->spec_channels >= 1 && layout->spec_channels <= 4 &&
           layout->backing_channels == 4;
}

/* True when spec channel i sits in backing channel i, the other backing channels are filled,
 * and the spec pixel is one integer of the prefix kernels (1, 2, 4 or 8 bytes). */
static bool is_prefix(const struct dxcl_layout *layout)
{
    unsigned bytes = layout->spec_channels * layout->channel_size;

    for (unsigned b = 0; b < 4; b++)
        if (b < layout->spec_channels ? layout->source[b] != (int)b : layout->source[b] >= 0)
            return false;
    return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}

static const char *type_name(unsigned channel_size)
{
    return channel_size == 1 ? "uchar" : channel_size == 2 ? "ushort" : "uint";
}

/* A T4 argument: four channels of `size` bytes, each the low bytes of v[c] (little-endian, as
 * the device: the program builds only on little-endian devices). */
static struct dxcl_convert_arg t4_arg(unsigned size, const uint32_t v[4])
{
    struct dxcl_convert_arg arg = {4 * size, {0}};

    for (unsigned c = 0; c < 4; c++)
        memcpy(arg.bytes + c * size, &v[c], size);
    return arg;
}

void dxcl_convert_kernels_for(const struct dxcl_layout *layout,
                              struct dxcl_convert_kernels *kernels)
{
    unsigned size = layout->channel_size, spec_bytes = layout->spec_channels * size;
    uint32_t to_index[4] = {0}, keep[4] = {0}, fill[4] = {0}, from_index[4] = {0};
    uint32_t all = size == 4 ? UINT32_MAX : (1u << (8 * size)) - 1;

    memset(kernels, 0, sizeof(*kernels));
    for (unsigned b = 0; b < 4; b++) {
        int source = layout->source[b];
        if (source >= 0 && (unsigned)source < layout->spec_channels) {
            to_index[b] = (uint32_t)source;
            keep[b] = all;
            from_index[source] = b;
        } else {
            fill[b] = source == DXCL_FILL_ONE ? layout->one : 0;
        }
    }
    if (is_prefix(layout)) {
        /* The fill argument is the backing pixel with 0 in the spec's channels. */
        snprintf(kernels->to, sizeof(kernels->to), "to_prefix_%u_%u", spec_bytes, 4 * size);
        snprintf(kernels->from, sizeof(kernels->from), "from_prefix_%u_%u", spec_bytes, 4 * size);
        kernels->to_args[0] = t4_arg(size, fill);
        kernels->to_count = 1;
        return;
    }
    snprintf(kernels->to, sizeof(kernels->to), "to_any_%s_%u", type_name(size),
             layout->spec_channels);
    snprintf(kernels->from, sizeof(kernels->from), "from_any_%s_%u", type_name(size),
             layout->spec_channels);
    kernels->to_args[0] = t4_arg(size, to_index);
    kernels->to_args[1] = t4_arg(size, keep);
    kernels->to_args[2] = t4_arg(size, fill);
    kernels->to_count = 3;
    kernels->from_args[0] = t4_arg(size, from_index);
    kernels->from_count = 1;
}
