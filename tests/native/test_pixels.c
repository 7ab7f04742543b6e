/* Native unit tests of src/formats/pixels.c (built with the host compiler and sanitizers). */
#define CL_TARGET_OPENCL_VERSION 300
#include "formats/pixels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_check.h"

/* The orders under test, spelled as their components in memory order. */
static const struct {
    cl_channel_order order;
    const char *components;
} orders[] = {
    {CL_R, "R"}, {CL_RG, "RG"}, {CL_A, "A"}, {CL_BGRA, "BGRA"}, {CL_RGBA, "RGBA"},
};

/* Every channel type of the DXGI and D3D9 tables, with its size and the bits of "1". */
static const struct {
    cl_channel_type type;
    unsigned size;
    uint32_t one;
} types[] = {
    {CL_FLOAT, 4, 0x3f800000u},   {CL_HALF_FLOAT, 2, 0x3c00u}, {CL_UNORM_INT8, 1, 0xffu},
    {CL_UNORM_INT16, 2, 0xffffu}, {CL_SNORM_INT8, 1, 0x7fu},   {CL_SNORM_INT16, 2, 0x7fffu},
    {CL_SIGNED_INT8, 1, 1},       {CL_SIGNED_INT16, 2, 1},     {CL_SIGNED_INT32, 4, 1},
    {CL_UNSIGNED_INT8, 1, 1},     {CL_UNSIGNED_INT16, 2, 1},   {CL_UNSIGNED_INT32, 4, 1},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *components_of(cl_channel_order order)
{
    for (size_t i = 0; i < COUNT(orders); i++)
        if (orders[i].order == order)
            return orders[i].components;
    return NULL;
}

/* What a native spec image reads in backing channel b: a spec channel index, or a fill. */
static int expected_source(const char *spec, const char *backing, unsigned b)
{
    const char *at = strchr(spec, backing[b]);

    if (at)
        return (int)(at - spec);
    return backing[b] == 'A' ? DXCL_FILL_ONE : DXCL_FILL_ZERO;
}

static bool is_subset(const char *spec, const char *backing)
{
    for (const char *c = spec; *c; c++)
        if (!strchr(backing, *c))
            return false;
    return true;
}

static void test_sizes(void)
{
    static const struct {
        cl_channel_order order;
        unsigned count;
    } counts[] = {
        {CL_R, 1},    {CL_A, 1},     {CL_RG, 2},   {CL_RA, 2},        {CL_RGB, 3},
        {CL_RGBA, 4}, {CL_BGRA, 4},  {CL_ARGB, 4}, {CL_INTENSITY, 1}, {CL_LUMINANCE, 1},
        {CL_ABGR, 4}, {CL_DEPTH, 1}, {0, 0},       {0x1234, 0},
    };
    cl_image_format format;

    for (size_t i = 0; i < COUNT(counts); i++)
        CHECK(dxcl_channel_count(counts[i].order) == counts[i].count,
              "channel count of 0x%x: %u, want %u", (unsigned)counts[i].order,
              dxcl_channel_count(counts[i].order), counts[i].count);
    for (size_t i = 0; i < COUNT(types); i++) {
        CHECK(dxcl_channel_size(types[i].type) == types[i].size, "channel size of 0x%x: %u",
              (unsigned)types[i].type, dxcl_channel_size(types[i].type));
        CHECK(dxcl_channel_one(types[i].type) == types[i].one, "one of 0x%x: 0x%x",
              (unsigned)types[i].type, dxcl_channel_one(types[i].type));
        for (size_t o = 0; o < COUNT(orders); o++) {
            format.image_channel_order = orders[o].order;
            format.image_channel_data_type = types[i].type;
            CHECK(dxcl_element_size(&format) == strlen(orders[o].components) * types[i].size,
                  "element size of %s/0x%x: %zu", orders[o].components, (unsigned)types[i].type,
                  dxcl_element_size(&format));
        }
    }
    CHECK(dxcl_channel_size(CL_UNORM_SHORT_565) == 0, "packed types have no channel size");
    CHECK(dxcl_channel_size(0x1234) == 0, "unknown type has no channel size");
    format.image_channel_order = CL_RGB;
    format.image_channel_data_type = CL_UNORM_SHORT_565;
    CHECK(dxcl_element_size(&format) == 2, "RGB/565 is 2 bytes: %zu", dxcl_element_size(&format));
    format.image_channel_data_type = CL_UNORM_INT_101010;
    CHECK(dxcl_element_size(&format) == 4, "RGB/101010 is 4 bytes: %zu",
          dxcl_element_size(&format));
    format.image_channel_order = 0x1234;
    format.image_channel_data_type = CL_FLOAT;
    CHECK(dxcl_element_size(&format) == 0, "unknown order has no element size");
}

static void test_layouts(void)
{
    static const cl_channel_order backings[] = {CL_RGBA, CL_BGRA};
    struct dxcl_layout layout;

    for (size_t t = 0; t < COUNT(types); t++) {
        for (size_t s = 0; s < COUNT(orders); s++) {
            for (size_t b = 0; b < COUNT(backings); b++) {
                cl_image_format spec = {orders[s].order, types[t].type};
                cl_image_format backing = {backings[b], types[t].type};
                const char *sc = orders[s].components, *bc = components_of(backings[b]);
                bool ok = dxcl_layout_for(&spec, &backing, &layout);

                CHECK(ok, "layout %s in %s (type 0x%x)", sc, bc, (unsigned)types[t].type);
                if (!ok)
                    continue;
                CHECK(layout.channel_size == types[t].size && layout.spec_channels == strlen(sc) &&
                          layout.backing_channels == 4 && layout.one == types[t].one,
                      "layout %s in %s: size %u, channels %u/%u, one 0x%x", sc, bc,
                      layout.channel_size, layout.spec_channels, layout.backing_channels,
                      layout.one);
                for (unsigned c = 0; c < 4; c++)
                    CHECK(layout.source[c] == expected_source(sc, bc, c),
                          "layout %s in %s: source[%u] = %d, want %d", sc, bc, c, layout.source[c],
                          expected_source(sc, bc, c));
                CHECK(dxcl_layout_is_identity(&layout) ==
                          (spec.image_channel_order == backing.image_channel_order),
                      "identity of %s in %s", sc, bc);

                /* A different channel type never fits. */
                backing.image_channel_data_type = types[(t + 1) % COUNT(types)].type;
                CHECK(!dxcl_layout_for(&spec, &backing, &layout), "%s in %s of another type", sc,
                      bc);
            }
            /* Identity for the spec order itself, and no room in smaller orders. */
            for (size_t o = 0; o < COUNT(orders); o++) {
                cl_image_format spec = {orders[s].order, types[t].type};
                cl_image_format backing = {orders[o].order, types[t].type};
                bool want = is_subset(orders[s].components, orders[o].components);

                CHECK(dxcl_layout_for(&spec, &backing, &layout) == want, "%s in %s: want %d",
                      orders[s].components, orders[o].components, want);
                if (want && s == o)
                    CHECK(dxcl_layout_is_identity(&layout), "%s in itself is the identity",
                          orders[s].components);
            }
        }
    }
    {
        /* CL_RA: R and A kept, G and B read as 0. */
        cl_image_format spec = {CL_RA, CL_UNORM_INT8}, backing = {CL_RGBA, CL_UNORM_INT8};

        CHECK(dxcl_layout_for(&spec, &backing, &layout) && layout.source[0] == 0 &&
                  layout.source[1] == DXCL_FILL_ZERO && layout.source[2] == DXCL_FILL_ZERO &&
                  layout.source[3] == 1,
              "RA in RGBA");
        backing.image_channel_order = CL_RG;
        CHECK(!dxcl_layout_for(&spec, &backing, &layout), "RA does not fit in RG");
        spec.image_channel_order = CL_INTENSITY;
        backing.image_channel_order = CL_RGBA;
        CHECK(!dxcl_layout_for(&spec, &backing, &layout), "INTENSITY is not emulated");
        backing.image_channel_order = CL_INTENSITY;
        CHECK(dxcl_layout_for(&spec, &backing, &layout) && dxcl_layout_is_identity(&layout),
              "INTENSITY in itself");
        spec.image_channel_order = backing.image_channel_order = CL_RGB;
        spec.image_channel_data_type = backing.image_channel_data_type = CL_UNORM_SHORT_565;
        CHECK(dxcl_layout_for(&spec, &backing, &layout) && dxcl_layout_is_identity(&layout) &&
                  layout.channel_size * layout.spec_channels == 2,
              "RGB/565 in itself copies 2-byte pixels");
        backing.image_channel_order = CL_RGBA;
        CHECK(!dxcl_layout_for(&spec, &backing, &layout), "packed formats are not rearranged");
    }
}

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static uint32_t channel_at(const unsigned char *p, unsigned size)
{
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;

    switch (size) {
    case 1:
        memcpy(&v8, p, 1);
        return v8;
    case 2:
        memcpy(&v16, p, 2);
        return v16;
    default:
        memcpy(&v32, p, 4);
        return v32;
    }
}

struct box {
    unsigned char *data;
    size_t row_pitch, slice_pitch, size;
    unsigned char sentinel;
};

/* A box with odd padding after each row and slice, prefilled with a sentinel byte. */
static struct box make_box(size_t row_bytes, size_t height, size_t depth, size_t row_pad,
                           size_t slice_pad, unsigned char sentinel)
{
    struct box box;

    box.row_pitch = row_bytes + row_pad;
    box.slice_pitch = box.row_pitch * height + slice_pad;
    box.size = box.slice_pitch * depth;
    box.data = malloc(box.size);
    box.sentinel = sentinel;
    memset(box.data, sentinel, box.size);
    return box;
}

/* True when every byte outside the pixels still holds the sentinel. */
static bool padding_intact(const struct box *box, size_t row_bytes, size_t height, size_t depth)
{
    for (size_t i = 0; i < box->size; i++) {
        size_t z = i / box->slice_pitch, in_slice = i % box->slice_pitch;
        size_t y = in_slice / box->row_pitch, x = in_slice % box->row_pitch;
        bool pixel = z < depth && y < height && x < row_bytes;

        if (!pixel && box->data[i] != box->sentinel)
            return false;
    }
    return true;
}

static struct dxcl_pixel_box pixel_box(const struct box *box)
{
    struct dxcl_pixel_box pb = {box->data, box->row_pitch, box->slice_pitch};
    return pb;
}

static void test_round_trip(cl_channel_order spec_order, cl_channel_order backing_order,
                            cl_channel_type type, size_t width, size_t height, size_t depth)
{
    cl_image_format spec = {spec_order, type}, backing = {backing_order, type};
    const char *sc = components_of(spec_order), *bc = components_of(backing_order);
    size_t se = dxcl_element_size(&spec), be = dxcl_element_size(&backing);
    unsigned size = dxcl_channel_size(type);
    struct dxcl_layout layout;
    struct box src, mid, back;
    struct dxcl_pixel_box psrc, pmid, pback;
    size_t wrong = 0;

    if (!dxcl_layout_for(&spec, &backing, &layout)) {
        CHECK(false, "no layout for %s in %s", sc, bc);
        return;
    }
    src = make_box(width * se, height, depth, 3, 5, 0xa5);
    mid = make_box(width * be, height, depth, 7, 1, 0x5a);
    back = make_box(width * se, height, depth, 1, 9, 0x3c);
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < height; y++)
            for (size_t x = 0; x < width * se; x++)
                src.data[z * src.slice_pitch + y * src.row_pitch + x] = (unsigned char)rng();
    psrc = pixel_box(&src);
    pmid = pixel_box(&mid);
    pback = pixel_box(&back);

    dxcl_pixels_to_backing(&layout, &psrc, &pmid, width, height, depth);
    CHECK(padding_intact(&src, width * se, height, depth) &&
              padding_intact(&mid, width * be, height, depth),
          "%s -> %s (0x%x): padding changed", sc, bc, (unsigned)type);
    /* Every backing channel is its spec channel or the fill a native image reads. */
    for (size_t z = 0; z < depth; z++) {
        for (size_t y = 0; y < height; y++) {
            for (size_t x = 0; x < width; x++) {
                const unsigned char *s =
                    src.data + z * src.slice_pitch + y * src.row_pitch + x * se;
                const unsigned char *m =
                    mid.data + z * mid.slice_pitch + y * mid.row_pitch + x * be;
                for (unsigned c = 0; c < 4; c++) {
                    int from = expected_source(sc, bc, c);
                    uint32_t want = from >= 0 ? channel_at(s + (unsigned)from * size, size)
                                    : from == DXCL_FILL_ONE ? dxcl_channel_one(type)
                                                            : 0;
                    wrong += channel_at(m + c * size, size) != want;
                }
            }
        }
    }
    CHECK(wrong == 0, "%s -> %s (0x%x) %zux%zux%zu: %zu channels wrong", sc, bc, (unsigned)type,
          width, height, depth, wrong);

    dxcl_pixels_from_backing(&layout, &pmid, &pback, width, height, depth);
    CHECK(padding_intact(&back, width * se, height, depth) &&
              padding_intact(&mid, width * be, height, depth),
          "%s <- %s (0x%x): padding changed", sc, bc, (unsigned)type);
    wrong = 0;
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < height; y++)
            wrong += memcmp(src.data + z * src.slice_pitch + y * src.row_pitch,
                            back.data + z * back.slice_pitch + y * back.row_pitch, width * se) != 0;
    CHECK(wrong == 0, "%s -> %s -> %s (0x%x): %zu rows differ", sc, bc, sc, (unsigned)type, wrong);
    free(src.data);
    free(mid.data);
    free(back.data);
}

static void test_round_trips(void)
{
    static const cl_channel_order backings[] = {CL_RGBA, CL_BGRA};
    static const size_t sizes[][3] = {{1, 1, 1}, {7, 5, 1}, {13, 3, 4}, {64, 2, 2}};

    for (size_t t = 0; t < COUNT(types); t++)
        for (size_t s = 0; s < COUNT(orders); s++)
            for (size_t b = 0; b < COUNT(backings); b++)
                for (size_t i = 0; i < COUNT(sizes); i++)
                    test_round_trip(orders[s].order, backings[b], types[t].type, sizes[i][0],
                                    sizes[i][1], sizes[i][2]);
}

/* Converts one pixel of spec into backing and returns the backing pixel. */
static void one_pixel(cl_channel_order spec_order, cl_channel_order backing_order,
                      cl_channel_type type, const void *in, void *out)
{
    cl_image_format spec = {spec_order, type}, backing = {backing_order, type};
    struct dxcl_layout layout;
    struct dxcl_pixel_box src = {(void *)in, 0, 0}, dst = {out, 0, 0};

    src.row_pitch = dxcl_element_size(&spec);
    dst.row_pitch = dxcl_element_size(&backing);
    if (!dxcl_layout_for(&spec, &backing, &layout)) {
        CHECK(false, "no layout for 0x%x in 0x%x", (unsigned)spec_order, (unsigned)backing_order);
        return;
    }
    dxcl_pixels_to_backing(&layout, &src, &dst, 1, 1, 1);
}

static void test_fill_values(void)
{
    {
        uint8_t in[2] = {0x12, 0x34}, out[4] = {0};

        one_pixel(CL_RG, CL_RGBA, CL_UNORM_INT8, in, out);
        CHECK(out[0] == 0x12 && out[1] == 0x34 && out[2] == 0 && out[3] == 0xff,
              "RG8 -> RGBA8: %02x %02x %02x %02x", out[0], out[1], out[2], out[3]);
        one_pixel(CL_RG, CL_BGRA, CL_UNORM_INT8, in, out);
        CHECK(out[0] == 0 && out[1] == 0x34 && out[2] == 0x12 && out[3] == 0xff,
              "RG8 -> BGRA8: %02x %02x %02x %02x", out[0], out[1], out[2], out[3]);
    }
    {
        float in[2] = {0.25f, -3.5f}, out[4] = {9, 9, 9, 9};

        one_pixel(CL_RG, CL_RGBA, CL_FLOAT, in, out);
        CHECK(out[0] == 0.25f && out[1] == -3.5f && out[2] == 0.0f && out[3] == 1.0f,
              "RG float -> RGBA: %g %g %g %g", out[0], out[1], out[2], out[3]);
    }
    {
        int32_t in[1] = {-123456}, out[4] = {9, 9, 9, 9};

        one_pixel(CL_R, CL_RGBA, CL_SIGNED_INT32, in, out);
        CHECK(out[0] == -123456 && out[1] == 0 && out[2] == 0 && out[3] == 1,
              "R int32 -> RGBA: %d %d %d %d", out[0], out[1], out[2], out[3]);
    }
    {
        uint8_t in[1] = {0x77}, out[4] = {9, 9, 9, 9};

        one_pixel(CL_A, CL_RGBA, CL_UNORM_INT8, in, out);
        CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0x77,
              "A8 -> RGBA8: %02x %02x %02x %02x", out[0], out[1], out[2], out[3]);
        one_pixel(CL_A, CL_BGRA, CL_UNORM_INT8, in, out);
        CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0x77,
              "A8 -> BGRA8: %02x %02x %02x %02x", out[0], out[1], out[2], out[3]);
    }
    {
        uint8_t in[4] = {1, 2, 3, 4}, out[4] = {0};

        one_pixel(CL_BGRA, CL_RGBA, CL_UNORM_INT8, in, out);
        CHECK(out[0] == 3 && out[1] == 2 && out[2] == 1 && out[3] == 4, "BGRA -> RGBA: %u %u %u %u",
              out[0], out[1], out[2], out[3]);
        one_pixel(CL_RGBA, CL_BGRA, CL_UNORM_INT8, in, out);
        CHECK(out[0] == 3 && out[1] == 2 && out[2] == 1 && out[3] == 4, "RGBA -> BGRA: %u %u %u %u",
              out[0], out[1], out[2], out[3]);
    }
    {
        uint16_t in[1] = {0xbeef}, out[4] = {9, 9, 9, 9};

        one_pixel(CL_R, CL_BGRA, CL_HALF_FLOAT, in, out);
        CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0xbeef && out[3] == 0x3c00,
              "R half -> BGRA: %04x %04x %04x %04x", out[0], out[1], out[2], out[3]);
        one_pixel(CL_R, CL_RGBA, CL_SNORM_INT16, in, out);
        CHECK(out[0] == 0xbeef && out[1] == 0 && out[2] == 0 && out[3] == 0x7fff,
              "R snorm16 -> RGBA: %04x %04x %04x %04x", out[0], out[1], out[2], out[3]);
    }
}

static void test_copy_box(void)
{
    enum { W = 11, H = 4, D = 3 };
    struct box src = make_box(W, H, D, 5, 3, 0x11), dst = make_box(W, H, D, 2, 7, 0x22);
    struct box tight = make_box(W, H, D, 0, 0, 0x33);
    struct dxcl_pixel_box psrc = pixel_box(&src), pdst = pixel_box(&dst);
    struct dxcl_pixel_box ptight = pixel_box(&tight);
    size_t wrong = 0;

    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++)
                src.data[z * src.slice_pitch + y * src.row_pitch + x] = (unsigned char)rng();
    dxcl_copy_box(&psrc, &pdst, W, H, D);
    dxcl_copy_box(&pdst, &ptight, W, H, D);
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++) {
            wrong += memcmp(src.data + z * src.slice_pitch + y * src.row_pitch,
                            dst.data + z * dst.slice_pitch + y * dst.row_pitch, W) != 0;
            wrong += memcmp(src.data + z * src.slice_pitch + y * src.row_pitch,
                            tight.data + (z * H + y) * W, W) != 0;
        }
    CHECK(wrong == 0, "copy_box: %zu rows differ", wrong);
    CHECK(padding_intact(&dst, W, H, D), "copy_box: padding changed");
    free(src.data);
    free(dst.data);
    free(tight.data);
}

int main(void)
{
    test_sizes();
    test_layouts();
    test_round_trips();
    test_fill_values();
    test_copy_box();
    printf("pixels: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
