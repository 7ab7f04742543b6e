/* Pixel layout conversion between a spec format and the driver format that backs it. Pure C:
 * built into the DLL and, with the host compiler, into the native sanitizer tests. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include "formats/pixels.h"

#include <string.h>

unsigned dxcl_channel_count(cl_channel_order order)
{
    /* Storage channels: the x of CL_Rx/CL_RGx/CL_RGBx is padding that still takes room. */
    switch (order) {
    case CL_R:
    case CL_A:
    case CL_INTENSITY:
    case CL_LUMINANCE:
    case CL_DEPTH:
        return 1;
    case CL_RG:
    case CL_RA:
    case CL_Rx:
    case CL_DEPTH_STENCIL:
        return 2;
    case CL_RGB:
    case CL_RGx:
    case CL_sRGB:
        return 3;
    case CL_RGBA:
    case CL_BGRA:
    case CL_ARGB:
    case CL_RGBx:
    case CL_sRGBx:
    case CL_sRGBA:
    case CL_sBGRA:
    case CL_ABGR:
        return 4;
    default:
        return 0;
    }
}

unsigned dxcl_channel_size(cl_channel_type type)
{
    switch (type) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
        return 1;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
        return 2;
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT32:
    case CL_FLOAT:
        return 4;
    default:
        return 0;
    }
}

/* Bytes per pixel of the packed types, where channels share bytes. */
static size_t packed_element_size(cl_channel_type type)
{
    switch (type) {
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
        return 2;
    case CL_UNORM_INT_101010:
    case CL_UNORM_INT_101010_2:
    case CL_UNORM_INT24: /* CL_DEPTH: 24 bits in 32; CL_DEPTH_STENCIL: 24 + 8 */
        return 4;
    default:
        return 0;
    }
}

size_t dxcl_element_size(const cl_image_format *format)
{
    unsigned channels = dxcl_channel_count(format->image_channel_order);
    unsigned size = dxcl_channel_size(format->image_channel_data_type);

    if (!channels)
        return 0;
    if (!size)
        return packed_element_size(format->image_channel_data_type);
    return (size_t)channels * size;
}

uint32_t dxcl_channel_one(cl_channel_type type)
{
    switch (type) {
    case CL_FLOAT:
        return 0x3f800000u;
    case CL_HALF_FLOAT:
        return 0x3c00u;
    case CL_UNORM_INT8:
        return 0xffu;
    case CL_UNORM_INT16:
        return 0xffffu;
    case CL_SNORM_INT8:
        return 0x7fu;
    case CL_SNORM_INT16:
        return 0x7fffu;
    case CL_SIGNED_INT8:
    case CL_SIGNED_INT16:
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT8:
    case CL_UNSIGNED_INT16:
    case CL_UNSIGNED_INT32:
        return 1;
    default:
        return 0;
    }
}

enum { COMP_R, COMP_G, COMP_B, COMP_A };

/* The components of an order, position by position; 0 for orders whose channels are not plain
 * RGBA components (luminance, intensity, depth, sRGB, padding), which only map to themselves. */
static unsigned order_components(cl_channel_order order, int comp[4])
{
    static const struct {
        cl_channel_order order;
        unsigned count;
        int comp[4];
    } orders[] = {
        {CL_R, 1, {COMP_R}},
        {CL_A, 1, {COMP_A}},
        {CL_RG, 2, {COMP_R, COMP_G}},
        {CL_RA, 2, {COMP_R, COMP_A}},
        {CL_RGB, 3, {COMP_R, COMP_G, COMP_B}},
        {CL_RGBA, 4, {COMP_R, COMP_G, COMP_B, COMP_A}},
        {CL_BGRA, 4, {COMP_B, COMP_G, COMP_R, COMP_A}},
        {CL_ARGB, 4, {COMP_A, COMP_R, COMP_G, COMP_B}},
        {CL_ABGR, 4, {COMP_A, COMP_B, COMP_G, COMP_R}},
    };

    for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
        if (orders[i].order == order) {
            memcpy(comp, orders[i].comp, sizeof(orders[i].comp));
            return orders[i].count;
        }
    }
    return 0;
}

bool dxcl_layout_for(const cl_image_format *spec, const cl_image_format *backing,
                     struct dxcl_layout *layout)
{
    cl_channel_type type = spec->image_channel_data_type;
    int spec_comp[4], backing_comp[4];
    unsigned spec_count, backing_count;

    if (type != backing->image_channel_data_type)
        return false;
    memset(layout, 0, sizeof(*layout));
    layout->one = dxcl_channel_one(type);
    if (spec->image_channel_order == backing->image_channel_order) {
        unsigned channels = dxcl_channel_count(spec->image_channel_order);
        unsigned size = dxcl_channel_size(type);

        if (!channels)
            return false;
        if (!size) {
            /* A packed format is copied whole: one "channel" per pixel. */
            channels = 1;
            size = (unsigned)packed_element_size(type);
            if (!size)
                return false;
        }
        layout->channel_size = size;
        layout->spec_channels = layout->backing_channels = channels;
        for (unsigned i = 0; i < 4; i++)
            layout->source[i] = i < channels ? (int)i : DXCL_FILL_ZERO;
        return true;
    }
    /* Rearranging needs whole channels and plain components on both sides. */
    layout->channel_size = dxcl_channel_size(type);
    spec_count = order_components(spec->image_channel_order, spec_comp);
    backing_count = order_components(backing->image_channel_order, backing_comp);
    if (!layout->channel_size || !spec_count || !backing_count)
        return false;
    /* Every spec channel needs a home, or reading back would lose it. */
    for (unsigned s = 0; s < spec_count; s++) {
        bool found = false;

        for (unsigned b = 0; b < backing_count; b++)
            found |= spec_comp[s] == backing_comp[b];
        if (!found)
            return false;
    }
    layout->spec_channels = spec_count;
    layout->backing_channels = backing_count;
    for (unsigned b = 0; b < 4; b++) {
        layout->source[b] = DXCL_FILL_ZERO;
        if (b >= backing_count)
            continue;
        /* What a native spec image reads for a missing component: 0 for R, G, B, 1 for A
         * (so CL_A gives (0,0,0,a) and CL_R gives (r,0,0,1)). */
        if (backing_comp[b] == COMP_A)
            layout->source[b] = DXCL_FILL_ONE;
        for (unsigned s = 0; s < spec_count; s++)
            if (spec_comp[s] == backing_comp[b])
                layout->source[b] = (int)s;
    }
    return true;
}

bool dxcl_layout_is_identity(const struct dxcl_layout *layout)
{
    if (layout->spec_channels != layout->backing_channels)
        return false;
    for (unsigned i = 0; i < layout->backing_channels; i++)
        if (layout->source[i] != (int)i)
            return false;
    return true;
}

void dxcl_copy_box(const struct dxcl_pixel_box *src, const struct dxcl_pixel_box *dst,
                   size_t row_bytes, size_t height, size_t depth)
{
    const unsigned char *s = src->data;
    unsigned char *d = dst->data;

    if (!row_bytes || !height || !depth)
        return;
    /* Tightly packed on both sides: one copy. */
    if (src->row_pitch == row_bytes && dst->row_pitch == row_bytes &&
        (depth == 1 ||
         (src->slice_pitch == row_bytes * height && dst->slice_pitch == row_bytes * height))) {
        memcpy(d, s, row_bytes * height * depth);
        return;
    }
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < height; y++)
            memcpy(d + z * dst->slice_pitch + y * dst->row_pitch,
                   s + z * src->slice_pitch + y * src->row_pitch, row_bytes);
}

/* The conversion, precomputed so that the pixel loops do not branch on fill codes: every
 * backing channel is (spec[index] & mask) | fill, with mask 0 for filled channels. */
struct plan {
    unsigned index[4]; /* to backing: spec channel per backing channel; back: the reverse */
    uint32_t mask[4];
    uint32_t fill[4];
};

typedef void (*row_fn)(const struct plan *plan, const unsigned char *src, unsigned char *dst,
                       size_t width, unsigned stride);

/* Channels are loaded and stored with fixed-size memcpy: pitches need not be aligned, and the
 * compiler turns each into one (unaligned) move. */
#define DEFINE_LOAD(T)                                                                             \
    static inline T load_##T(const unsigned char *p)                                               \
    {                                                                                              \
        T v;                                                                                       \
        memcpy(&v, p, sizeof(v));                                                                  \
        return v;                                                                                  \
    }
DEFINE_LOAD(uint8_t)
DEFINE_LOAD(uint16_t)
DEFINE_LOAD(uint32_t)

/* The channel loops are unrolled by hand into scalars so that the plan stays in registers. */
#define TO_CHANNEL(T, N, c)                                                                        \
    if ((c) < (N)) {                                                                               \
        T v = (T)((load_##T(src + i##c) & m##c) | f##c);                                           \
        memcpy(dst + (c) * sizeof(T), &v, sizeof(T));                                              \
    }
#define FROM_CHANNEL(T, N, c)                                                                      \
    if ((c) < (N)) {                                                                               \
        T v = load_##T(src + i##c);                                                                \
        memcpy(dst + (c) * sizeof(T), &v, sizeof(T));                                              \
    }

/* Any layout; N = channels written per pixel. */
#define DEFINE_ROWS(T, N)                                                                          \
    static void to_backing_##T##_##N(const struct plan *plan, const unsigned char *src,            \
                                     unsigned char *dst, size_t width, unsigned stride)            \
    {                                                                                              \
        const size_t i0 = plan->index[0] * sizeof(T), i1 = plan->index[1] * sizeof(T);             \
        const size_t i2 = plan->index[2] * sizeof(T), i3 = plan->index[3] * sizeof(T);             \
        const T m0 = (T)plan->mask[0], m1 = (T)plan->mask[1];                                      \
        const T m2 = (T)plan->mask[2], m3 = (T)plan->mask[3];                                      \
        const T f0 = (T)plan->fill[0], f1 = (T)plan->fill[1];                                      \
        const T f2 = (T)plan->fill[2], f3 = (T)plan->fill[3];                                      \
        for (size_t x = 0; x < width; x++, src += stride, dst += (N) * sizeof(T)) {                \
            TO_CHANNEL(T, N, 0)                                                                    \
            TO_CHANNEL(T, N, 1)                                                                    \
            TO_CHANNEL(T, N, 2)                                                                    \
            TO_CHANNEL(T, N, 3)                                                                    \
        }                                                                                          \
    }                                                                                              \
    static void from_backing_##T##_##N(const struct plan *plan, const unsigned char *src,          \
                                       unsigned char *dst, size_t width, unsigned stride)          \
    {                                                                                              \
        const size_t i0 = plan->index[0] * sizeof(T), i1 = plan->index[1] * sizeof(T);             \
        const size_t i2 = plan->index[2] * sizeof(T), i3 = plan->index[3] * sizeof(T);             \
        for (size_t x = 0; x < width; x++, src += stride, dst += (N) * sizeof(T)) {                \
            FROM_CHANNEL(T, N, 0)                                                                  \
            FROM_CHANNEL(T, N, 1)                                                                  \
            FROM_CHANNEL(T, N, 2)                                                                  \
            FROM_CHANNEL(T, N, 3)                                                                  \
        }                                                                                          \
    }

/* The common emulation (R or RG in RGBA): the spec pixel is the start of the backing pixel,
 * the rest is constant. Whole-pixel moves of constant size, about twice as fast. */
#define DEFINE_PREFIX_ROWS(T, NS)                                                                  \
    static void to_prefix_##T##_##NS(const struct plan *plan, const unsigned char *src,            \
                                     unsigned char *dst, size_t width, unsigned stride)            \
    {                                                                                              \
        T pixel[4] = {(T)plan->fill[0], (T)plan->fill[1], (T)plan->fill[2], (T)plan->fill[3]};     \
        (void)stride;                                                                              \
        for (size_t x = 0; x < width; x++, src += (NS) * sizeof(T), dst += sizeof(pixel)) {        \
            memcpy(pixel, src, (NS) * sizeof(T));                                                  \
            memcpy(dst, pixel, sizeof(pixel));                                                     \
        }                                                                                          \
    }                                                                                              \
    static void from_prefix_##T##_##NS(const struct plan *plan, const unsigned char *src,          \
                                       unsigned char *dst, size_t width, unsigned stride)          \
    {                                                                                              \
        (void)plan;                                                                                \
        for (size_t x = 0; x < width; x++, src += stride, dst += (NS) * sizeof(T))                 \
            memcpy(dst, src, (NS) * sizeof(T));                                                    \
    }

#define DEFINE_ALL_ROWS(T)                                                                         \
    DEFINE_ROWS(T, 1)                                                                              \
    DEFINE_ROWS(T, 2)                                                                              \
    DEFINE_ROWS(T, 3)                                                                              \
    DEFINE_ROWS(T, 4)                                                                              \
    DEFINE_PREFIX_ROWS(T, 1)                                                                       \
    DEFINE_PREFIX_ROWS(T, 2)                                                                       \
    DEFINE_PREFIX_ROWS(T, 3)
DEFINE_ALL_ROWS(uint8_t)
DEFINE_ALL_ROWS(uint16_t)
DEFINE_ALL_ROWS(uint32_t)

#define ROWS_OF(kind, T) kind##_##T##_1, kind##_##T##_2, kind##_##T##_3, kind##_##T##_4
#define PREFIX_ROWS_OF(kind, T) kind##_##T##_1, kind##_##T##_2, kind##_##T##_3, NULL
/* [channel size 1, 2, 4][channels written - 1] */
static const row_fn to_backing_rows[3][4] = {{ROWS_OF(to_backing, uint8_t)},
                                             {ROWS_OF(to_backing, uint16_t)},
                                             {ROWS_OF(to_backing, uint32_t)}};
static const row_fn from_backing_rows[3][4] = {{ROWS_OF(from_backing, uint8_t)},
                                               {ROWS_OF(from_backing, uint16_t)},
                                               {ROWS_OF(from_backing, uint32_t)}};
/* [channel size 1, 2, 4][spec channels - 1]; the backing has 4 channels */
static const row_fn to_prefix_rows[3][4] = {{PREFIX_ROWS_OF(to_prefix, uint8_t)},
                                            {PREFIX_ROWS_OF(to_prefix, uint16_t)},
                                            {PREFIX_ROWS_OF(to_prefix, uint32_t)}};
/* [channel size 1, 2, 4][spec channels - 1]; any backing */
static const row_fn from_prefix_rows[3][4] = {{PREFIX_ROWS_OF(from_prefix, uint8_t)},
                                              {PREFIX_ROWS_OF(from_prefix, uint16_t)},
                                              {PREFIX_ROWS_OF(from_prefix, uint32_t)}};

static int size_slot(unsigned channel_size)
{
    return channel_size == 1 ? 0 : channel_size == 2 ? 1 : channel_size == 4 ? 2 : -1;
}

static bool layout_usable(const struct dxcl_layout *layout)
{
    return size_slot(layout->channel_size) >= 0 && layout->spec_channels >= 1 &&
           layout->spec_channels <= 4 && layout->backing_channels >= 1 &&
           layout->backing_channels <= 4;
}

/* True when spec channel i sits in backing channel i and the backing only adds channels. */
static bool is_prefix(const struct dxcl_layout *layout)
{
    if (layout->spec_channels >= layout->backing_channels)
        return false;
    for (unsigned b = 0; b < layout->backing_channels; b++)
        if (b < layout->spec_channels ? layout->source[b] != (int)b : layout->source[b] >= 0)
            return false;
    return true;
}

static void convert_box(row_fn row, const struct plan *plan, const struct dxcl_pixel_box *src,
                        const struct dxcl_pixel_box *dst, size_t width, size_t height, size_t depth,
                        unsigned src_stride)
{
    const unsigned char *s = src->data;
    unsigned char *d = dst->data;

    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < height; y++)
            row(plan, s + z * src->slice_pitch + y * src->row_pitch,
                d + z * dst->slice_pitch + y * dst->row_pitch, width, src_stride);
}

/* Nothing to convert (an empty box or an unusable layout) or a plain copy (identity): true
 * when that settled it. */
static bool done_without_plan(const struct dxcl_layout *layout, const struct dxcl_pixel_box *src,
                              const struct dxcl_pixel_box *dst, size_t width, size_t height,
                              size_t depth)
{
    if (!layout_usable(layout) || !width || !height || !depth)
        return true;
    if (!dxcl_layout_is_identity(layout))
        return false;
    dxcl_copy_box(src, dst, width * layout->spec_channels * layout->channel_size, height, depth);
    return true;
}

void dxcl_pixels_to_backing(const struct dxcl_layout *layout, const struct dxcl_pixel_box *src,
                            const struct dxcl_pixel_box *dst, size_t width, size_t height,
                            size_t depth)
{
    struct plan plan = {{0}, {0}, {0}};
    row_fn row;
    int slot;

    if (done_without_plan(layout, src, dst, width, height, depth))
        return;
    for (unsigned b = 0; b < layout->backing_channels; b++) {
        int source = layout->source[b];

        if (source >= 0 && (unsigned)source < layout->spec_channels) {
            plan.index[b] = (unsigned)source;
            plan.mask[b] = UINT32_MAX;
        } else {
            plan.fill[b] = source == DXCL_FILL_ONE ? layout->one : 0;
        }
    }
    slot = size_slot(layout->channel_size);
    if (layout->backing_channels == 4 && is_prefix(layout))
        row = to_prefix_rows[slot][layout->spec_channels - 1];
    else
        row = to_backing_rows[slot][layout->backing_channels - 1];
    convert_box(row, &plan, src, dst, width, height, depth,
                layout->spec_channels * layout->channel_size);
}

void dxcl_pixels_from_backing(const struct dxcl_layout *layout, const struct dxcl_pixel_box *src,
                              const struct dxcl_pixel_box *dst, size_t width, size_t height,
                              size_t depth)
{
    struct plan plan = {{0}, {0}, {0}};
    row_fn row;
    int slot;

    if (done_without_plan(layout, src, dst, width, height, depth))
        return;
    /* Each spec channel comes from the backing channel that holds it (a valid layout has one
     * for every spec channel). */
    for (unsigned b = 0; b < layout->backing_channels; b++) {
        int source = layout->source[b];

        if (source >= 0 && (unsigned)source < layout->spec_channels)
            plan.index[source] = b;
    }
    slot = size_slot(layout->channel_size);
    if (is_prefix(layout))
        row = from_prefix_rows[slot][layout->spec_channels - 1];
    else
        row = from_backing_rows[slot][layout->spec_channels - 1];
    convert_box(row, &plan, src, dst, width, height, depth,
                layout->backing_channels * layout->channel_size);
}
