/* Shared machinery of the sharing-API suites: entry point lookup, the DXGI format table,
 * test data, textures with known contents, and an OpenCL context on an API device. */
#include "interop.h"
#include <dxcl/dxcl.h>

#include <d3d10.h>
#include <stdlib.h>

/* The GPU path's variants (<test>.gpu, DXCL_TEST_EXPECT_GPU=1): every 2D texture a suite
 * shares is counted by how dxcl moves its data, and interop_close requires that the GPU path
 * served some (formats it does not serve, such as emulated ones, still copy). A program may load
 * several families (test_soak: D3D11 and D3D10), so each keeps its own real function: one
 * counting wrapper per family, in the order the families are loaded. */
enum { COUNTED_FAMILIES = 4 };
static struct {
    struct test_cl_fns *cl;
    test_create_texture_fn real;
} counted[COUNTED_FAMILIES];
static volatile LONG textures_shared, textures_on_gpu;

static bool gpu_expected(void)
{
    const char *value = getenv("DXCL_TEST_EXPECT_GPU");

    return value && !strcmp(value, "1");
}

cl_uint interop_transfer_mode(cl_mem mem)
{
    static dxclGetTransferMode_fn transfer_mode;
    cl_uint mode = 0;

    if (!transfer_mode)
        transfer_mode = (dxclGetTransferMode_fn)(void (*)(void))GetProcAddress(
            test_dxcl_module(), "dxclGetTransferMode");
    if (!transfer_mode || transfer_mode(mem, &mode) != CL_SUCCESS)
        return 0;
    return mode;
}

static cl_mem count_texture(int family, cl_context context, cl_mem_flags flags, void *resource,
                            UINT subresource, cl_int *errcode_ret)
{
    cl_mem mem = counted[family].real(context, flags, resource, subresource, errcode_ret);

    if (!mem)
        return mem;
    InterlockedIncrement(&textures_shared);
    if (interop_transfer_mode(mem) >= DXCL_TRANSFER_GPU)
        InterlockedIncrement(&textures_on_gpu);
    return mem;
}

#define COUNTED_WRAPPER(i)                                                                         \
    static cl_mem CL_API_CALL counted_texture2d_##i(cl_context context, cl_mem_flags flags,        \
                                                    void *resource, UINT subresource,              \
                                                    cl_int *errcode_ret)                           \
    {                                                                                              \
        return count_texture(i, context, flags, resource, subresource, errcode_ret);               \
    }
COUNTED_WRAPPER(0)
COUNTED_WRAPPER(1)
COUNTED_WRAPPER(2)
COUNTED_WRAPPER(3)
static const test_create_texture_fn counted_wrappers[COUNTED_FAMILIES] = {
    counted_texture2d_0, counted_texture2d_1, counted_texture2d_2, counted_texture2d_3};

/* The family's create_texture2d goes through its own counting wrapper (once). */
static void count_textures_of(struct test_cl_fns *cl)
{
    int i = 0;

    while (i < COUNTED_FAMILIES && counted[i].cl && counted[i].cl != cl)
        i++;
    REQUIRE(i < COUNTED_FAMILIES, "more than %d sharing families in one program", COUNTED_FAMILIES);
    if (counted[i].cl == cl && cl->create_texture2d == counted_wrappers[i])
        return;
    counted[i].cl = cl;
    counted[i].real = cl->create_texture2d;
    cl->create_texture2d = counted_wrappers[i];
}

void interop_load(const struct test_api *api, cl_platform_id platform)
{
    struct {
        const char *prefix;
        void *slot;
    } entries[] = {
        {api->fn_get_device_ids, &api->cl->get_device_ids},
        {api->fn_create_buffer, &api->cl->create_buffer},
        {api->fn_create_texture2d, &api->cl->create_texture2d},
        {api->fn_create_texture3d, &api->cl->create_texture3d},
        {api->fn_acquire, &api->cl->acquire},
        {api->fn_release, &api->cl->release},
    };

    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        char name[128];
        void *address;

        snprintf(name, sizeof(name), "%s%s", entries[i].prefix, api->suffix);
        address = clGetExtensionFunctionAddressForPlatform(platform, name);
        REQUIRE(address != NULL, "%s: %s not found", api->name, name);
        memcpy(entries[i].slot, &address, sizeof(address));
    }
    if (gpu_expected())
        count_textures_of(api->cl);
}

/* ---- Formats ---- */

#define F(fmt, order, type, n, size, cls)                                                          \
    {                                                                                              \
        DXGI_FORMAT_##fmt, #fmt, order, type, n, size, cls                                         \
    }

const struct test_format test_formats[TEST_FORMAT_COUNT] = {
    F(R32G32B32A32_FLOAT, CL_RGBA, CL_FLOAT, 4, 4, CLASS_FLOAT),
    F(R32G32B32A32_UINT, CL_RGBA, CL_UNSIGNED_INT32, 4, 4, CLASS_UINT),
    F(R32G32B32A32_SINT, CL_RGBA, CL_SIGNED_INT32, 4, 4, CLASS_SINT),
    F(R16G16B16A16_FLOAT, CL_RGBA, CL_HALF_FLOAT, 4, 2, CLASS_HALF),
    F(R16G16B16A16_UNORM, CL_RGBA, CL_UNORM_INT16, 4, 2, CLASS_UNORM),
    F(R16G16B16A16_UINT, CL_RGBA, CL_UNSIGNED_INT16, 4, 2, CLASS_UINT),
    F(R16G16B16A16_SNORM, CL_RGBA, CL_SNORM_INT16, 4, 2, CLASS_SNORM),
    F(R16G16B16A16_SINT, CL_RGBA, CL_SIGNED_INT16, 4, 2, CLASS_SINT),
    F(B8G8R8A8_UNORM, CL_BGRA, CL_UNORM_INT8, 4, 1, CLASS_UNORM),
    F(R8G8B8A8_UNORM, CL_RGBA, CL_UNORM_INT8, 4, 1, CLASS_UNORM),
    F(R8G8B8A8_UINT, CL_RGBA, CL_UNSIGNED_INT8, 4, 1, CLASS_UINT),
    F(R8G8B8A8_SNORM, CL_RGBA, CL_SNORM_INT8, 4, 1, CLASS_SNORM),
    F(R8G8B8A8_SINT, CL_RGBA, CL_SIGNED_INT8, 4, 1, CLASS_SINT),
    F(R32G32_FLOAT, CL_RG, CL_FLOAT, 2, 4, CLASS_FLOAT),
    F(R32G32_UINT, CL_RG, CL_UNSIGNED_INT32, 2, 4, CLASS_UINT),
    F(R32G32_SINT, CL_RG, CL_SIGNED_INT32, 2, 4, CLASS_SINT),
    F(R16G16_FLOAT, CL_RG, CL_HALF_FLOAT, 2, 2, CLASS_HALF),
    F(R16G16_UNORM, CL_RG, CL_UNORM_INT16, 2, 2, CLASS_UNORM),
    F(R16G16_UINT, CL_RG, CL_UNSIGNED_INT16, 2, 2, CLASS_UINT),
    F(R16G16_SNORM, CL_RG, CL_SNORM_INT16, 2, 2, CLASS_SNORM),
    F(R16G16_SINT, CL_RG, CL_SIGNED_INT16, 2, 2, CLASS_SINT),
    F(R8G8_UNORM, CL_RG, CL_UNORM_INT8, 2, 1, CLASS_UNORM),
    F(R8G8_UINT, CL_RG, CL_UNSIGNED_INT8, 2, 1, CLASS_UINT),
    F(R8G8_SNORM, CL_RG, CL_SNORM_INT8, 2, 1, CLASS_SNORM),
    F(R8G8_SINT, CL_RG, CL_SIGNED_INT8, 2, 1, CLASS_SINT),
    F(R32_FLOAT, CL_R, CL_FLOAT, 1, 4, CLASS_FLOAT),
    F(R32_UINT, CL_R, CL_UNSIGNED_INT32, 1, 4, CLASS_UINT),
    F(R32_SINT, CL_R, CL_SIGNED_INT32, 1, 4, CLASS_SINT),
    F(R16_FLOAT, CL_R, CL_HALF_FLOAT, 1, 2, CLASS_HALF),
    F(R16_UNORM, CL_R, CL_UNORM_INT16, 1, 2, CLASS_UNORM),
    F(R16_UINT, CL_R, CL_UNSIGNED_INT16, 1, 2, CLASS_UINT),
    F(R16_SNORM, CL_R, CL_SNORM_INT16, 1, 2, CLASS_SNORM),
    F(R16_SINT, CL_R, CL_SIGNED_INT16, 1, 2, CLASS_SINT),
    F(R8_UNORM, CL_R, CL_UNORM_INT8, 1, 1, CLASS_UNORM),
    F(R8_UINT, CL_R, CL_UNSIGNED_INT8, 1, 1, CLASS_UINT),
    F(R8_SNORM, CL_R, CL_SNORM_INT8, 1, 1, CLASS_SNORM),
    F(R8_SINT, CL_R, CL_SIGNED_INT8, 1, 1, CLASS_SINT),
};

#undef F

const struct test_format *test_format_find(DXGI_FORMAT dxgi)
{
    for (size_t i = 0; i < TEST_FORMAT_COUNT; i++)
        if (test_formats[i].dxgi == dxgi)
            return &test_formats[i];
    return NULL;
}

UINT test_format_bytes(DXGI_FORMAT dxgi)
{
    const struct test_format *format = test_format_find(dxgi);

    if (format)
        return format->channels * format->channel_size;
    switch (dxgi) {
    case DXGI_FORMAT_R10G10B10A2_UNORM:
    case DXGI_FORMAT_R8G8B8A8_UNORM_SRGB:
    case DXGI_FORMAT_B8G8R8X8_UNORM:
    case DXGI_FORMAT_B8G8R8A8_UNORM_SRGB:
    case DXGI_FORMAT_R11G11B10_FLOAT:
        return 4;
    case DXGI_FORMAT_A8_UNORM:
        return 1;
    default:
        REQUIRE(0, "test_format_bytes: format %d unknown to the tests", (int)dxgi);
    }
    return 0;
}

const char *test_class_name(enum test_class cls)
{
    static const char *names[] = {"float", "half", "unorm", "snorm", "uint", "sint"};
    return names[cls];
}

/* The kernel of a format class and what it does to each channel's bits. */
const char *test_class_kernel(enum test_class cls, bool is_3d)
{
    static const char *names[][2] = {
        [CLASS_FLOAT] = {"neg2", "neg3"}, [CLASS_HALF] = {"neg2", "neg3"},
        [CLASS_SNORM] = {"neg2", "neg3"}, [CLASS_UNORM] = {"omx2", "omx3"},
        [CLASS_UINT] = {"xor2", "xor3"},  [CLASS_SINT] = {"not2", "not3"},
    };
    return names[cls][is_3d];
}

/* Host model of the kernels: FLOAT/HALF -x (sign flip), UNORM 1-x (max - v), SNORM -x (the
 * most negative value reads as -1.0 and becomes max), UINT x ^ max, SINT ~x. */
void test_class_expected(const struct test_format *format, const void *src, void *dst, size_t bytes)
{
    const unsigned size = format->channel_size;
    const unsigned char *s = src;
    unsigned char *d = dst;

    for (size_t i = 0; i < bytes; i += size) {
        uint32_t v = 0, out;
        memcpy(&v, s + i, size);
        switch (format->cls) {
        case CLASS_FLOAT:
        case CLASS_HALF:
            out = v ^ (1u << (size * 8 - 1));
            break;
        case CLASS_SNORM: {
            int32_t sv = size == 1 ? (int8_t)v : (int16_t)v;
            int32_t min = size == 1 ? -128 : -32768;
            out = (uint32_t)(sv == min ? -(min + 1) : -sv);
            break;
        }
        default: /* UNORM (max - v), UINT (v ^ max), SINT (~v): all invert every bit */
            out = ~v;
            break;
        }
        memcpy(d + i, &out, size);
    }
}

void test_class_kernel_args(cl_kernel kernel, const struct test_format *format, cl_mem src,
                            cl_mem dst)
{
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(src), &src), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(dst), &dst), CL_SUCCESS);
    if (format->cls == CLASS_UINT) {
        cl_uint max =
            format->channel_size == 4 ? 0xffffffffu : (1u << format->channel_size * 8) - 1;
        cl_uint4 mask = {{max, max, max, max}};
        CHECK_ERR(clSetKernelArg(kernel, 2, sizeof(mask), &mask), CL_SUCCESS);
    }
}

const struct test_format *test_format_by_cl(cl_channel_order order, cl_channel_type type)
{
    for (size_t i = 0; i < TEST_FORMAT_COUNT; i++)
        if (test_formats[i].order == order && test_formats[i].type == type)
            return &test_formats[i];
    return NULL;
}

size_t test_unlisted_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                             const struct test_format **out, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < TEST_FORMAT_COUNT && n < max; i++) {
        const cl_image_format format = {test_formats[i].order, test_formats[i].type};
        if (!test_driver_lists(context, flags, type, &format) &&
            test_driver_can_back(context, flags, type, &format))
            out[n++] = &test_formats[i];
    }
    return n;
}

/* The memory position of each RGBA component in a pixel of the order (-1: not stored). */
static void component_slots(cl_channel_order order, int slot[4])
{
    static const int r[4] = {0, -1, -1, -1}, rg[4] = {0, 1, -1, -1}, rgba[4] = {0, 1, 2, 3},
                     bgra[4] = {2, 1, 0, 3};
    memcpy(slot,
           order == CL_R      ? r
           : order == CL_RG   ? rg
           : order == CL_BGRA ? bgra
                              : rgba,
           sizeof(rgba));
}

void test_fill_model(const struct test_format *format, void *color, unsigned char *pixel)
{
    /* Values every type of the class stores exactly (snorm -1.0 is -max, not min). */
    static const float floats[4] = {1.0f, -2.0f, 0.5f, 0.25f};
    static const uint16_t halves[4] = {0x3c00, 0xc000, 0x3800, 0x3400};
    static const float unorms[4] = {1.0f, 0.0f, 1.0f, 0.0f}, snorms[4] = {1.0f, -1.0f, 0.0f, 1.0f};
    static const cl_uint uints[4] = {7, 8, 9, 10};
    static const cl_int sints[4] = {-7, 8, -9, 10};
    const unsigned size = format->channel_size;
    int slot[4];

    component_slots(format->order, slot);
    switch (format->cls) {
    case CLASS_FLOAT:
    case CLASS_HALF:
        memcpy(color, floats, sizeof(floats));
        break;
    case CLASS_UNORM:
        memcpy(color, unorms, sizeof(unorms));
        break;
    case CLASS_SNORM:
        memcpy(color, snorms, sizeof(snorms));
        break;
    case CLASS_UINT:
        memcpy(color, uints, sizeof(uints));
        break;
    case CLASS_SINT:
        memcpy(color, sints, sizeof(sints));
        break;
    }
    for (int c = 0; c < 4; c++) {
        uint32_t bits = 0;
        if (slot[c] < 0)
            continue;
        switch (format->cls) {
        case CLASS_FLOAT:
            memcpy(&bits, &floats[c], 4);
            break;
        case CLASS_HALF:
            bits = halves[c];
            break;
        case CLASS_UNORM:
            bits = unorms[c] == 1.0f ? (size == 1 ? 0xffu : 0xffffu) : 0;
            break;
        case CLASS_SNORM: {
            int32_t max = size == 1 ? 127 : 32767;
            bits = (uint32_t)(int32_t)(snorms[c] * max);
            break;
        }
        case CLASS_UINT:
            bits = uints[c];
            break;
        case CLASS_SINT:
            bits = (uint32_t)sints[c];
            break;
        }
        memcpy(pixel + slot[c] * size, &bits, size); /* little-endian: the low bytes */
    }
}

/* ---- Geometry ---- */

UINT test_mip_size(UINT size, UINT mip)
{
    size >>= mip;
    return size ? size : 1;
}

UINT test_subresource_count(const struct test_texture_desc *desc, bool is_3d)
{
    return is_3d ? desc->mips : desc->mips * desc->array_size;
}

void test_subresource_size(const struct test_texture_desc *desc, bool is_3d, UINT subresource,
                           UINT *width, UINT *height, UINT *depth)
{
    UINT mip = subresource % desc->mips;

    *width = test_mip_size(desc->width, mip);
    *height = test_mip_size(desc->height, mip);
    *depth = is_3d ? test_mip_size(desc->depth, mip) : 1;
}

size_t test_subresource_bytes(const struct test_texture_desc *desc, bool is_3d, UINT subresource)
{
    UINT w, h, d;

    test_subresource_size(desc, is_3d, subresource, &w, &h, &d);
    return (size_t)w * h * d * test_format_bytes(desc->format);
}

bool test_subresource_locate(enum test_kind kind, const struct test_texture_desc *desc,
                             UINT subresource, struct test_subresource *sub)
{
    memset(sub, 0, sizeof(*sub));
    sub->kind = kind;
    if (kind == TEST_KIND_BUFFER) {
        sub->width = desc->width;
        sub->height = sub->depth = sub->bytes_per_pixel = 1;
        return subresource == 0;
    }
    if (subresource >= test_subresource_count(desc, kind == TEST_KIND_TEXTURE3D))
        return false;
    test_subresource_size(desc, kind == TEST_KIND_TEXTURE3D, subresource, &sub->width, &sub->height,
                          &sub->depth);
    sub->format = desc->format;
    sub->bytes_per_pixel = test_format_bytes(desc->format);
    return true;
}

void test_packed_pitches(const struct test_texture_desc *desc, bool is_3d, UINT subresource,
                         UINT *row_pitch, UINT *slice_pitch)
{
    UINT w, h, d;

    test_subresource_size(desc, is_3d, subresource, &w, &h, &d);
    *row_pitch = w * test_format_bytes(desc->format);
    *slice_pitch = *row_pitch * h;
}

void test_copy_mapped(const struct test_subresource *sub, const struct test_mapped *mapped,
                      void *data, bool to_mapped)
{
    const size_t row = (size_t)sub->width * sub->bytes_per_pixel;

    for (UINT z = 0; z < sub->depth; z++) {
        for (UINT y = 0; y < sub->height; y++) {
            char *m = (char *)mapped->data + (size_t)z * mapped->depth_pitch +
                      (size_t)y * mapped->row_pitch;
            char *p = (char *)data + ((size_t)z * sub->height + y) * row;
            if (to_mapped)
                memcpy(m, p, row);
            else
                memcpy(p, m, row);
        }
    }
}

/* ---- COM ---- */

void *test_dxgi_adapter(void *device)
{
    IDXGIDevice *dxgi = NULL;
    IDXGIAdapter *adapter = NULL;

    if (FAILED(IUnknown_QueryInterface((IUnknown *)device, &IID_IDXGIDevice, (void **)&dxgi)))
        return NULL;
    if (FAILED(IDXGIDevice_GetAdapter(dxgi, &adapter)))
        adapter = NULL;
    IDXGIDevice_Release(dxgi);
    return adapter;
}

ULONG test_com_release(void *object)
{
    return IUnknown_Release((IUnknown *)object);
}

ULONG test_com_refcount(void *object)
{
    return test_refcount(object);
}

/* ---- Data ---- */

static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

void test_fill_bytes(void *data, size_t bytes, uint32_t seed)
{
    uint32_t state = seed * 2654435761u + 0x9e3779b9u;
    unsigned char *p = data;

    if (!state)
        state = 1;
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)(next_random(&state) >> 11);
}

void test_fill_random(void *data, size_t bytes, const struct test_format *format, uint32_t seed)
{
    uint32_t state = seed * 2654435761u + 0x85ebca6bu;

    if (!state)
        state = 1;
    if (format && format->cls == CLASS_FLOAT) {
        /* Finite normal floats: exponent 1..254, any sign and mantissa. */
        uint32_t *p = data;
        for (size_t i = 0; i < bytes / 4; i++) {
            uint32_t r = next_random(&state);
            uint32_t exponent = 1 + next_random(&state) % 254;
            p[i] = (r & 0x807fffffu) | exponent << 23;
        }
    } else if (format && format->cls == CLASS_HALF) {
        uint16_t *p = data;
        for (size_t i = 0; i < bytes / 2; i++) {
            uint32_t r = next_random(&state);
            uint32_t exponent = 1 + next_random(&state) % 30;
            p[i] = (uint16_t)((r & 0x83ffu) | exponent << 10);
        }
    } else {
        test_fill_bytes(data, bytes, seed);
    }
}

bool test_same_bytes(const void *got, const void *want, size_t bytes, const char *what)
{
    const unsigned char *g = got, *w = want;

    for (size_t i = 0; i < bytes; i++) {
        if (g[i] != w[i]) {
            size_t diffs = 0;
            for (size_t j = i; j < bytes; j++)
                diffs += g[j] != w[j];
            CHECK(0, "%s: %zu of %zu bytes differ, first at byte %zu: got 0x%02x, want 0x%02x",
                  what, diffs, bytes, i, g[i], w[i]);
            return false;
        }
    }
    CHECK(1, "%s", what);
    return true;
}

bool test_texture_create(const struct test_api *api, void *device, struct test_texture *tex,
                         const struct test_texture_desc *desc, bool is_3d, uint32_t seed)
{
    const struct test_format *format = test_format_find(desc->format);

    memset(tex, 0, sizeof(*tex));
    tex->desc = *desc;
    tex->is_3d = is_3d;
    tex->count = test_subresource_count(desc, is_3d);
    tex->data = calloc(tex->count, sizeof(void *));
    REQUIRE(tex->data != NULL, "out of memory");
    for (UINT i = 0; i < tex->count; i++) {
        size_t bytes = test_subresource_bytes(desc, is_3d, i);
        tex->data[i] = malloc(bytes);
        REQUIRE(tex->data[i] != NULL, "out of memory");
        test_fill_random(tex->data[i], bytes, format, seed * 131u + i);
        /* X channels have no defined contents (wined3d reads 0xff back): keep them 0xff. */
        if (desc->format == DXGI_FORMAT_B8G8R8X8_UNORM)
            for (size_t b = 3; b < bytes; b += 4)
                ((unsigned char *)tex->data[i])[b] = 0xff;
    }
    tex->resource = is_3d ? api->create_texture3d(device, desc, (const void *const *)tex->data)
                          : api->create_texture2d(device, desc, (const void *const *)tex->data);
    return tex->resource != NULL;
}

void test_texture_free(const struct test_api *api, struct test_texture *tex)
{
    if (tex->resource)
        api->release(tex->resource);
    for (UINT i = 0; tex->data && i < tex->count; i++)
        free(tex->data[i]);
    free(tex->data);
    memset(tex, 0, sizeof(*tex));
}

bool test_texture_intact(const struct test_api *api, const struct test_texture *tex,
                         const char *what)
{
    bool ok = true;

    for (UINT i = 0; i < tex->count; i++) {
        size_t bytes = test_subresource_bytes(&tex->desc, tex->is_3d, i);
        void *got = malloc(bytes);
        char label[256];

        REQUIRE(got != NULL, "out of memory");
        snprintf(label, sizeof(label), "%s: subresource %u intact", what, i);
        if (!api->read_subresource(tex->resource, i, got)) {
            CHECK(0, "%s: reading subresource %u failed", what, i);
            ok = false;
        } else {
            ok &= test_same_bytes(got, tex->data[i], bytes, label);
        }
        free(got);
    }
    return ok;
}

/* ---- OpenCL ---- */

static const char *program_source =
    "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n"
    "#define P2 int2 p = (int2)(get_global_id(0), get_global_id(1))\n"
    "#define P3 int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0)\n"
    "#define I2 __read_only image2d_t s, __write_only image2d_t d\n"
    "#define I3 __read_only image3d_t s, __write_only image3d_t d\n"
    "__kernel void neg2(I2) { P2; write_imagef(d, p, -read_imagef(s, p)); }\n"
    "__kernel void neg3(I3) { P3; write_imagef(d, p, -read_imagef(s, p)); }\n"
    "__kernel void omx2(I2) { P2; write_imagef(d, p, (float4)(1.0f) - read_imagef(s, p)); }\n"
    "__kernel void omx3(I3) { P3; write_imagef(d, p, (float4)(1.0f) - read_imagef(s, p)); }\n"
    "__kernel void xor2(I2, uint4 m) { P2; write_imageui(d, p, read_imageui(s, p) ^ m); }\n"
    "__kernel void xor3(I3, uint4 m) { P3; write_imageui(d, p, read_imageui(s, p) ^ m); }\n"
    "__kernel void not2(I2) { P2; write_imagei(d, p, ~read_imagei(s, p)); }\n"
    "__kernel void not3(I3) { P3; write_imagei(d, p, ~read_imagei(s, p)); }\n"
    "__kernel void sample2f(__read_only image2d_t s, __global float4 *out)\n"
    "{ P2; out[p.y * get_global_size(0) + p.x] = read_imagef(s, p); }\n"
    "__kernel void sample2ui(__read_only image2d_t s, __global uint4 *out)\n"
    "{ P2; out[p.y * get_global_size(0) + p.x] = read_imageui(s, p); }\n"
    "__kernel void sample2i(__read_only image2d_t s, __global int4 *out)\n"
    "{ P2; out[p.y * get_global_size(0) + p.x] = read_imagei(s, p); }\n"
    "__kernel void bufxf(__global const uint *s, __global uint *d)\n"
    "{ size_t i = get_global_id(0); d[i] = s[i] * 3u + 7u; }\n"
    "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1u; }\n";

cl_program interop_program(cl_context context, cl_device_id device)
{
    return test_program(context, device, program_source);
}

cl_kernel interop_kernel(struct interop_env *env, const char *name)
{
    if (!env->program)
        env->program = interop_program(env->context, env->device);
    return test_program_kernel(env->program, name);
}

cl_context interop_context(struct interop_env *env, const cl_context_properties *extra, cl_int *err)
{
    cl_context_properties props[32];
    size_t n = 0;

    props[n++] = CL_CONTEXT_PLATFORM;
    props[n++] = (cl_context_properties)env->platform;
    props[n++] = env->api->context_property;
    props[n++] = (cl_context_properties)env->d3d;
    for (size_t i = 0; extra && extra[i] && n + 3 < sizeof(props) / sizeof(props[0]); i += 2) {
        props[n++] = extra[i];
        props[n++] = extra[i + 1];
    }
    props[n] = 0;
    return clCreateContext(props, 1, &env->device, NULL, NULL, err);
}

void interop_open(struct interop_env *env, const struct test_api *api, int user_sync,
                  cl_command_queue_properties queue_properties)
{
    cl_context_properties extra[3] = {0};
    cl_int err;

    memset(env, 0, sizeof(*env));
    env->api = api;
    env->platform = test_platform();
    env->device = test_device(env->platform);
    interop_load(api, env->platform);
    env->cl = api->cl;
    env->d3d = api->create_device();
    REQUIRE(env->d3d != NULL, "%s: no Direct3D device", api->name);
    if (user_sync != INTEROP_NO_USER_SYNC) {
        extra[0] = CL_CONTEXT_INTEROP_USER_SYNC;
        extra[1] = user_sync ? CL_TRUE : CL_FALSE;
    }
    env->context = interop_context(env, extra, &err);
    REQUIRE(err == CL_SUCCESS && env->context, "%s: context with the device: %d", api->name, err);
    env->queue = clCreateCommandQueue(env->context, env->device, queue_properties, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
}

void interop_check_gpu_served(const char *what)
{
    if (!gpu_expected() || !textures_shared)
        return;
    CHECK(textures_on_gpu > 0, "%s: the GPU path served none of %ld shared 2D textures", what,
          textures_shared);
    printf("%s: the GPU path served %ld of %ld shared 2D textures so far\n", what, textures_on_gpu,
           textures_shared);
}

void interop_close(struct interop_env *env)
{
    interop_check_gpu_served(env->api->name);
    if (env->program)
        clReleaseProgram(env->program);
    if (env->queue)
        clReleaseCommandQueue(env->queue);
    if (env->context)
        clReleaseContext(env->context);
    if (env->d3d)
        env->api->release(env->d3d);
    memset(env, 0, sizeof(*env));
}

/* Type, flags and context: what every shared object reports like any other. */
static void check_mem_basics(const struct interop_env *env, cl_mem mem, cl_mem_object_type want,
                             cl_mem_flags flags, const char *what)
{
    cl_mem_object_type type = 0;
    cl_mem_flags got_flags = 0;
    cl_context context = NULL;

    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == want, "%s: CL_MEM_TYPE 0x%x, want 0x%x", what, type, want);
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof(got_flags), &got_flags, NULL),
              CL_SUCCESS);
    CHECK(got_flags == flags, "%s: CL_MEM_FLAGS 0x%llx, want 0x%llx", what,
          (unsigned long long)got_flags, (unsigned long long)flags);
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof(context), &context, NULL), CL_SUCCESS);
    CHECK(context == env->context, "%s: CL_MEM_CONTEXT %p, want %p", what, (void *)context,
          (void *)env->context);
}

void interop_check_buffer(const struct interop_env *env, cl_mem mem, size_t size,
                          cl_mem_flags flags, void *resource, const char *what)
{
    const struct test_api *api = env->api;
    size_t got_size = 0, ret = 0;
    void *got_resource = NULL;
    cl_uint sub = 0;

    check_mem_basics(env, mem, CL_MEM_OBJECT_BUFFER, flags, what);
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(got_size), &got_size, NULL), CL_SUCCESS);
    CHECK(got_size == size, "%s: CL_MEM_SIZE %zu, want %zu", what, got_size, size);
    CHECK_ERR(
        clGetMemObjectInfo(mem, api->mem_resource_query, sizeof(got_resource), &got_resource, &ret),
        CL_SUCCESS);
    CHECK(got_resource == resource && ret == sizeof(void *),
          "%s: resource query %p (size %zu), want %p", what, got_resource, ret, resource);
    /* A buffer is no image: clGetImageInfo refuses it, as core OpenCL or as the API's. */
    {
        cl_int err = clGetImageInfo(mem, api->image_subresource_query, sizeof(sub), &sub, NULL);
        CHECK(err == CL_INVALID_MEM_OBJECT || err == api->err_invalid_resource,
              "%s: subresource query on a buffer: %d", what, err);
    }
}

void interop_check_image(const struct interop_env *env, cl_mem mem,
                         const struct test_format *format, bool is_3d, UINT width, UINT height,
                         UINT depth, cl_mem_flags flags, void *resource, UINT subresource,
                         const char *what)
{
    const struct test_api *api = env->api;
    size_t element = format->channels * format->channel_size;
    size_t value = 0, ret = 0;
    void *got_resource = NULL;
    cl_uint sub = ~0u;
    cl_image_format got_format = {0, 0};

    check_mem_basics(env, mem, is_3d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D, flags, what);
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(value), &value, NULL), CL_SUCCESS);
    CHECK(value == element * width * height * depth, "%s: CL_MEM_SIZE %zu, want %zu", what, value,
          element * width * height * depth);
    CHECK_ERR(
        clGetMemObjectInfo(mem, api->mem_resource_query, sizeof(got_resource), &got_resource, &ret),
        CL_SUCCESS);
    CHECK(got_resource == resource && ret == sizeof(void *),
          "%s: resource query %p (size %zu), want %p", what, got_resource, ret, resource);
    ret = 0;
    CHECK_ERR(clGetImageInfo(mem, api->image_subresource_query, sizeof(sub), &sub, &ret),
              CL_SUCCESS);
    CHECK(sub == subresource && ret == sizeof(cl_uint),
          "%s: subresource query %u (size %zu), "
          "want %u",
          what, sub, ret, subresource);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_FORMAT, sizeof(got_format), &got_format, NULL),
              CL_SUCCESS);
    CHECK(got_format.image_channel_order == format->order &&
              got_format.image_channel_data_type == format->type,
          "%s: CL_IMAGE_FORMAT 0x%x/0x%x, want 0x%x/0x%x", what, got_format.image_channel_order,
          got_format.image_channel_data_type, format->order, format->type);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_ELEMENT_SIZE, sizeof(value), &value, NULL), CL_SUCCESS);
    CHECK(value == element, "%s: CL_IMAGE_ELEMENT_SIZE %zu, want %zu", what, value, element);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof(value), &value, NULL), CL_SUCCESS);
    CHECK(value == width, "%s: CL_IMAGE_WIDTH %zu, want %u", what, value, width);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof(value), &value, NULL), CL_SUCCESS);
    CHECK(value == height, "%s: CL_IMAGE_HEIGHT %zu, want %u", what, value, height);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_DEPTH, sizeof(value), &value, NULL), CL_SUCCESS);
    CHECK(value == (is_3d ? depth : 0), "%s: CL_IMAGE_DEPTH %zu, want %u", what, value,
          is_3d ? depth : 0);
}

ULONG interop_pooled_staging(cl_context context)
{
    dxclGetPooledStagingCount_fn pooled =
        (dxclGetPooledStagingCount_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                     "dxclGetPooledStagingCount");
    cl_uint count = 0;

    REQUIRE(pooled, "dxclGetPooledStagingCount is exported");
    CHECK_ERR(pooled(context, &count), CL_SUCCESS);
    return count;
}

void *interop_protected_texture(const struct test_api *api, void *device, void *multithread,
                                UINT width, UINT height, const unsigned *data)
{
    const struct test_texture_desc desc = {
        width, height, 1, 1, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT, 1};
    const void *levels[1] = {data};
    void *texture;

    ID3D10Multithread_Enter((ID3D10Multithread *)multithread);
    texture = api->create_texture2d(device, &desc, levels);
    ID3D10Multithread_Leave((ID3D10Multithread *)multithread);
    return texture;
}

bool interop_protected_holds(const struct test_api *api, void *multithread, void *texture,
                             UINT width, UINT height, unsigned first)
{
    unsigned *data = malloc(sizeof(unsigned) * width * height);
    bool ok = data != NULL;

    ID3D10Multithread_Enter((ID3D10Multithread *)multithread);
    ok = ok && api->read_subresource(texture, 0, data);
    ID3D10Multithread_Leave((ID3D10Multithread *)multithread);
    for (UINT i = 0; ok && i < width * height; i++)
        ok = data[i] == first + i;
    free(data);
    return ok;
}

/* ---- Hand-overs of one RGBA8 UINT 2D texture object (test_zero_copy, test_gpu_path) ---- */

void interop_check_hand_overs(struct interop_env *env, cl_mem mem, struct test_texture *tex)
{
    const struct test_api *api = env->api;
    const size_t w = tex->desc.width, h = tex->desc.height, bytes = w * h * 4;
    const size_t origin[3] = {3, 2, 0}, region[3] = {20, 9, 1}, whole[3] = {w, h, 1};
    const cl_uint4 color = {{7, 8, 9, 10}};
    unsigned char *got = malloc(bytes), *data = tex->data[0];

    REQUIRE(got != NULL, "out of memory");
    for (int cycle = 0; cycle < 3; cycle++) {
        char what[64];
        snprintf(what, sizeof(what), "%s cycle %d", api->name, cycle);
        /* 0: released unwritten; 1: a partial fill; 2: a whole write. Direct3D changes the data
         * before each acquire. */
        test_fill_bytes(data, bytes, 100 + (uint32_t)cycle);
        REQUIRE(api->write_subresource(tex->resource, 0, data), "D3D write");
        CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueReadImage(env->queue, mem, CL_TRUE, (size_t[3]){0, 0, 0}, whole, 0, 0,
                                     got, 0, NULL, NULL),
                  CL_SUCCESS);
        test_same_bytes(got, data, bytes, what);
        if (cycle == 1) {
            CHECK_ERR(clEnqueueFillImage(env->queue, mem, &color, origin, region, 0, NULL, NULL),
                      CL_SUCCESS);
            for (size_t y = origin[1]; y < origin[1] + region[1]; y++)
                for (size_t x = origin[0]; x < origin[0] + region[0]; x++)
                    for (int c = 0; c < 4; c++)
                        data[(y * w + x) * 4 + c] = (unsigned char)(7 + c);
        } else if (cycle == 2) {
            test_fill_bytes(data, bytes, 555);
            CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, (size_t[3]){0, 0, 0}, whole, 0,
                                          0, data, 0, NULL, NULL),
                      CL_SUCCESS);
        }
        CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        test_texture_intact(api, tex, what);
    }
    /* Released while acquired: the Direct3D texture keeps what it had; where the object's
     * storage is the texture's own memory (a direct twin, as a vendor driver shares it), what
     * OpenCL wrote is there. */
    bool own_memory = interop_transfer_mode(mem) == DXCL_TRANSFER_GPU_DIRECT;
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueFillImage(env->queue, mem, &color, (size_t[3]){0, 0, 0}, whole, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    for (size_t i = 0; own_memory && i < bytes; i++)
        data[i] = (unsigned char)(7 + i % 4);
    test_texture_intact(api, tex,
                        own_memory
                            ? "released while acquired: OpenCL's fill in the texture's memory"
                            : "released while acquired");
    free(got);
}
