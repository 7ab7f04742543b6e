/* The format tables of src/formats/formats.c against the spec (CURRENT.md 1.11.7), written out
 * again here, and the choice of driver formats on the real driver. formats.c and what it
 * needs are linked into this program (tests/CMakeLists.txt): they are internal to the DLL. */
#include "testlib.h"

#include "formats/formats.h"
#include "core/driver.h"

#include <stdlib.h>

static const struct {
    DXGI_FORMAT dxgi;
    cl_channel_order order;
    cl_channel_type type;
} want_dxgi[] = {
    {DXGI_FORMAT_R32G32B32A32_FLOAT, CL_RGBA, CL_FLOAT},
    {DXGI_FORMAT_R32G32B32A32_UINT, CL_RGBA, CL_UNSIGNED_INT32},
    {DXGI_FORMAT_R32G32B32A32_SINT, CL_RGBA, CL_SIGNED_INT32},
    {DXGI_FORMAT_R16G16B16A16_FLOAT, CL_RGBA, CL_HALF_FLOAT},
    {DXGI_FORMAT_R16G16B16A16_UNORM, CL_RGBA, CL_UNORM_INT16},
    {DXGI_FORMAT_R16G16B16A16_UINT, CL_RGBA, CL_UNSIGNED_INT16},
    {DXGI_FORMAT_R16G16B16A16_SNORM, CL_RGBA, CL_SNORM_INT16},
    {DXGI_FORMAT_R16G16B16A16_SINT, CL_RGBA, CL_SIGNED_INT16},
    {DXGI_FORMAT_B8G8R8A8_UNORM, CL_BGRA, CL_UNORM_INT8},
    {DXGI_FORMAT_R8G8B8A8_UNORM, CL_RGBA, CL_UNORM_INT8},
    {DXGI_FORMAT_R8G8B8A8_UINT, CL_RGBA, CL_UNSIGNED_INT8},
    {DXGI_FORMAT_R8G8B8A8_SNORM, CL_RGBA, CL_SNORM_INT8},
    {DXGI_FORMAT_R8G8B8A8_SINT, CL_RGBA, CL_SIGNED_INT8},
    {DXGI_FORMAT_R32G32_FLOAT, CL_RG, CL_FLOAT},
    {DXGI_FORMAT_R32G32_UINT, CL_RG, CL_UNSIGNED_INT32},
    {DXGI_FORMAT_R32G32_SINT, CL_RG, CL_SIGNED_INT32},
    {DXGI_FORMAT_R16G16_FLOAT, CL_RG, CL_HALF_FLOAT},
    {DXGI_FORMAT_R16G16_UNORM, CL_RG, CL_UNORM_INT16},
    {DXGI_FORMAT_R16G16_UINT, CL_RG, CL_UNSIGNED_INT16},
    {DXGI_FORMAT_R16G16_SNORM, CL_RG, CL_SNORM_INT16},
    {DXGI_FORMAT_R16G16_SINT, CL_RG, CL_SIGNED_INT16},
    {DXGI_FORMAT_R8G8_UNORM, CL_RG, CL_UNORM_INT8},
    {DXGI_FORMAT_R8G8_UINT, CL_RG, CL_UNSIGNED_INT8},
    {DXGI_FORMAT_R8G8_SNORM, CL_RG, CL_SNORM_INT8},
    {DXGI_FORMAT_R8G8_SINT, CL_RG, CL_SIGNED_INT8},
    {DXGI_FORMAT_R32_FLOAT, CL_R, CL_FLOAT},
    {DXGI_FORMAT_R32_UINT, CL_R, CL_UNSIGNED_INT32},
    {DXGI_FORMAT_R32_SINT, CL_R, CL_SIGNED_INT32},
    {DXGI_FORMAT_R16_FLOAT, CL_R, CL_HALF_FLOAT},
    {DXGI_FORMAT_R16_UNORM, CL_R, CL_UNORM_INT16},
    {DXGI_FORMAT_R16_UINT, CL_R, CL_UNSIGNED_INT16},
    {DXGI_FORMAT_R16_SNORM, CL_R, CL_SNORM_INT16},
    {DXGI_FORMAT_R16_SINT, CL_R, CL_SIGNED_INT16},
    {DXGI_FORMAT_R8_UNORM, CL_R, CL_UNORM_INT8},
    {DXGI_FORMAT_R8_UINT, CL_R, CL_UNSIGNED_INT8},
    {DXGI_FORMAT_R8_SNORM, CL_R, CL_SNORM_INT8},
    {DXGI_FORMAT_R8_SINT, CL_R, CL_SIGNED_INT8},
};

#define NV12 ((D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'))
#define YV12 ((D3DFORMAT)MAKEFOURCC('Y', 'V', '1', '2'))

static const struct {
    D3DFORMAT d3d9;
    unsigned planes;
    struct {
        cl_channel_order order;
        cl_channel_type type;
        unsigned divisor; /* of width and height */
    } plane[3];
} want_d3d9[] = {
    {D3DFMT_R32F, 1, {{CL_R, CL_FLOAT, 1}}},
    {D3DFMT_R16F, 1, {{CL_R, CL_HALF_FLOAT, 1}}},
    {D3DFMT_L16, 1, {{CL_R, CL_UNORM_INT16, 1}}},
    {D3DFMT_A8, 1, {{CL_A, CL_UNORM_INT8, 1}}},
    {D3DFMT_L8, 1, {{CL_R, CL_UNORM_INT8, 1}}},
    {D3DFMT_G32R32F, 1, {{CL_RG, CL_FLOAT, 1}}},
    {D3DFMT_G16R16F, 1, {{CL_RG, CL_HALF_FLOAT, 1}}},
    {D3DFMT_G16R16, 1, {{CL_RG, CL_UNORM_INT16, 1}}},
    {D3DFMT_A8L8, 1, {{CL_RG, CL_UNORM_INT8, 1}}},
    {D3DFMT_A32B32G32R32F, 1, {{CL_RGBA, CL_FLOAT, 1}}},
    {D3DFMT_A16B16G16R16F, 1, {{CL_RGBA, CL_HALF_FLOAT, 1}}},
    {D3DFMT_A16B16G16R16, 1, {{CL_RGBA, CL_UNORM_INT16, 1}}},
    {D3DFMT_A8B8G8R8, 1, {{CL_RGBA, CL_UNORM_INT8, 1}}},
    {D3DFMT_X8B8G8R8, 1, {{CL_RGBA, CL_UNORM_INT8, 1}}},
    {D3DFMT_A8R8G8B8, 1, {{CL_BGRA, CL_UNORM_INT8, 1}}},
    {D3DFMT_X8R8G8B8, 1, {{CL_BGRA, CL_UNORM_INT8, 1}}},
    {NV12, 2, {{CL_R, CL_UNORM_INT8, 1}, {CL_RG, CL_UNORM_INT8, 2}}},
    {YV12, 3, {{CL_R, CL_UNORM_INT8, 1}, {CL_R, CL_UNORM_INT8, 2}, {CL_R, CL_UNORM_INT8, 2}}},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_dxgi_table(void)
{
    static const DXGI_FORMAT outside[] = {
        DXGI_FORMAT_UNKNOWN,
        DXGI_FORMAT_R8G8B8A8_UNORM_SRGB,
        DXGI_FORMAT_B8G8R8X8_UNORM,
        DXGI_FORMAT_B8G8R8A8_UNORM_SRGB,
        DXGI_FORMAT_R10G10B10A2_UNORM,
        DXGI_FORMAT_A8_UNORM,
        DXGI_FORMAT_NV12,
        DXGI_FORMAT_D32_FLOAT,
        DXGI_FORMAT_R8G8B8A8_TYPELESS,
        DXGI_FORMAT_BC1_UNORM,
        DXGI_FORMAT_R32G32B32_FLOAT,
        DXGI_FORMAT_R11G11B10_FLOAT,
    };
    cl_image_format format;

    CHECK(dxcl_dxgi_format_count() == 37, "DXGI table has %zu entries, want 37",
          dxcl_dxgi_format_count());
    CHECK(COUNT(want_dxgi) == 37, "the expected table has %zu entries", COUNT(want_dxgi));
    for (size_t i = 0; i < COUNT(want_dxgi); i++) {
        bool found = dxcl_format_from_dxgi(want_dxgi[i].dxgi, &format);

        CHECK(found && format.image_channel_order == want_dxgi[i].order &&
                  format.image_channel_data_type == want_dxgi[i].type,
              "DXGI format %d: found %d, %s/%s", (int)want_dxgi[i].dxgi, found,
              found ? dxcl_channel_order_name(format.image_channel_order) : "-",
              found ? dxcl_channel_type_name(format.image_channel_data_type) : "-");
    }
    /* The list holds each expected format exactly once. */
    for (size_t i = 0; i < dxcl_dxgi_format_count(); i++) {
        DXGI_FORMAT dxgi = dxcl_dxgi_format_at(i);
        int seen = 0, listed = 0;

        for (size_t j = 0; j < dxcl_dxgi_format_count(); j++)
            seen += dxcl_dxgi_format_at(j) == dxgi;
        for (size_t j = 0; j < COUNT(want_dxgi); j++)
            listed += want_dxgi[j].dxgi == dxgi;
        CHECK(seen == 1 && listed == 1, "DXGI table entry %zu (%d): %d times, expected %d", i,
              (int)dxgi, seen, listed);
    }
    CHECK(dxcl_dxgi_format_at(dxcl_dxgi_format_count()) == DXGI_FORMAT_UNKNOWN,
          "past the end is DXGI_FORMAT_UNKNOWN");
    for (size_t i = 0; i < COUNT(outside); i++)
        CHECK(!dxcl_format_from_dxgi(outside[i], &format), "DXGI format %d is not in the table",
              (int)outside[i]);
}

static void test_d3d9_table(void)
{
    static const D3DFORMAT outside[] = {
        D3DFMT_UNKNOWN, D3DFMT_R8G8B8, D3DFMT_R5G6B5, D3DFMT_A2R10G10B10, D3DFMT_D24S8,
        D3DFMT_YUY2,    D3DFMT_UYVY,   D3DFMT_DXT1,   D3DFMT_A4L4,        D3DFMT_A8P8,
    };
    struct dxcl_plane plane;

    CHECK(dxcl_d3d9_format_count() == 18, "D3D9 table has %zu entries, want 16 + NV12 + YV12",
          dxcl_d3d9_format_count());
    /* The 16 plain formats (any order), then NV12 and YV12. */
    for (size_t i = 0; i < dxcl_d3d9_format_count() && i < 18; i++) {
        D3DFORMAT d3d9 = dxcl_d3d9_format_at(i);
        int listed = 0, seen = 0;

        for (size_t j = 0; j < 16; j++)
            listed += want_d3d9[j].d3d9 == d3d9;
        for (size_t j = 0; j < dxcl_d3d9_format_count(); j++)
            seen += dxcl_d3d9_format_at(j) == d3d9;
        if (i < 16)
            CHECK(listed == 1 && seen == 1, "D3D9 entry %zu (%d) is one of the 16, once", i,
                  (int)d3d9);
        else
            CHECK(d3d9 == (i == 16 ? NV12 : YV12), "D3D9 entry %zu is %s", i,
                  i == 16 ? "NV12" : "YV12");
    }
    CHECK(dxcl_d3d9_format_at(dxcl_d3d9_format_count()) == D3DFMT_UNKNOWN,
          "past the end is D3DFMT_UNKNOWN");
    for (size_t i = 0; i < COUNT(want_d3d9); i++) {
        D3DFORMAT d3d9 = want_d3d9[i].d3d9;

        CHECK(dxcl_d3d9_plane_count(d3d9) == want_d3d9[i].planes,
              "D3D9 format %#x: %u planes, want %u", (unsigned)d3d9, dxcl_d3d9_plane_count(d3d9),
              want_d3d9[i].planes);
        for (unsigned p = 0; p < want_d3d9[i].planes; p++) {
            bool found = dxcl_format_from_d3d9(d3d9, p, &plane);

            CHECK(found && plane.format.image_channel_order == want_d3d9[i].plane[p].order &&
                      plane.format.image_channel_data_type == want_d3d9[i].plane[p].type &&
                      plane.width_divisor == want_d3d9[i].plane[p].divisor &&
                      plane.height_divisor == want_d3d9[i].plane[p].divisor,
                  "D3D9 format %#x plane %u: found %d, %s/%s, 1/%u x 1/%u", (unsigned)d3d9, p,
                  found, found ? dxcl_channel_order_name(plane.format.image_channel_order) : "-",
                  found ? dxcl_channel_type_name(plane.format.image_channel_data_type) : "-",
                  found ? plane.width_divisor : 0, found ? plane.height_divisor : 0);
        }
        CHECK(!dxcl_format_from_d3d9(d3d9, want_d3d9[i].planes, &plane),
              "D3D9 format %#x has no plane %u", (unsigned)d3d9, want_d3d9[i].planes);
    }
    for (size_t i = 0; i < COUNT(outside); i++) {
        CHECK(dxcl_d3d9_plane_count(outside[i]) == 0 &&
                  !dxcl_format_from_d3d9(outside[i], 0, &plane),
              "D3D9 format %#x is not in the table", (unsigned)outside[i]);
    }
}

static void test_names(void)
{
    CHECK(!strcmp(dxcl_channel_order_name(CL_RG), "CL_RG"), "CL_RG");
    CHECK(!strcmp(dxcl_channel_order_name(CL_BGRA), "CL_BGRA"), "CL_BGRA");
    CHECK(!strcmp(dxcl_channel_order_name(CL_DEPTH_STENCIL), "CL_DEPTH_STENCIL"),
          "CL_DEPTH_STENCIL");
    CHECK(!strcmp(dxcl_channel_order_name(0x1234), "?"), "unknown order");
    CHECK(!strcmp(dxcl_channel_type_name(CL_UNORM_INT8), "CL_UNORM_INT8"), "CL_UNORM_INT8");
    CHECK(!strcmp(dxcl_channel_type_name(CL_HALF_FLOAT), "CL_HALF_FLOAT"), "CL_HALF_FLOAT");
    CHECK(!strcmp(dxcl_channel_type_name(CL_UNORM_INT24), "CL_UNORM_INT24"), "CL_UNORM_INT24");
    CHECK(!strcmp(dxcl_channel_type_name(0x1234), "?"), "unknown type");
    /* Every order and type of CL 1.2 has a name. */
    for (cl_channel_order order = CL_R; order <= CL_DEPTH_STENCIL; order++)
        CHECK(strcmp(dxcl_channel_order_name(order), "?"), "order %#x has a name", (unsigned)order);
    for (cl_channel_type type = CL_SNORM_INT8; type <= CL_UNORM_INT24; type++)
        CHECK(strcmp(dxcl_channel_type_name(type), "?"), "type %#x has a name", (unsigned)type);
}

/* Whether the driver itself lists `format` for these access flags (asked here, independently of
 * formats.c). */
static bool driver_lists(const struct dxcl_driver *drv, cl_context context, cl_mem_flags flags,
                         const cl_image_format *format)
{
    cl_image_format list[512];
    cl_uint count = 0;
    bool found = false;

    CHECK_ERR(drv->clGetSupportedImageFormats(context, flags, CL_MEM_OBJECT_IMAGE2D, COUNT(list),
                                              list, &count),
              CL_SUCCESS);
    for (cl_uint i = 0; i < count && i < COUNT(list); i++)
        found |= list[i].image_channel_order == format->image_channel_order &&
                 list[i].image_channel_data_type == format->image_channel_data_type;
    return found;
}

/* Formats the driver gets wrong for an access (test_broken_in_kernels shows it with kernels):
 * dxcl must not use them natively for it. */
static bool pocl_broken(cl_context context, cl_mem_flags flags, const cl_image_format *f)
{
    return test_driver_gets_wrong(context, flags, f);
}

static const cl_mem_flags accesses[] = {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};

/* choose_backing for one spec format and access: the spec format itself when the driver lists
 * it for that access (and gets it right for it), otherwise an emulation whose layout matches. */
static void check_backing_for(const struct dxcl_driver *drv, cl_context context, cl_mem_flags flags,
                              cl_channel_order order, cl_channel_type type)
{
    cl_image_format spec = {order, type};
    struct dxcl_backing backing;
    struct dxcl_layout layout;
    bool native = driver_lists(drv, context, flags, &spec) && !pocl_broken(context, flags, &spec);
    cl_int err = dxcl_choose_backing(context, flags, CL_MEM_OBJECT_IMAGE2D, &spec, &backing);
    const char *o = dxcl_channel_order_name(order), *t = dxcl_channel_type_name(type);

    CHECK_ERR(err, CL_SUCCESS);
    if (err != CL_SUCCESS)
        return;
    CHECK(backing.spec.image_channel_order == order && backing.spec.image_channel_data_type == type,
          "%s/%s: backing.spec kept", o, t);
    CHECK(backing.emulated == !native,
          "%s/%s flags 0x%x: emulated %d, driver lists it (and right) %d", o, t, (unsigned)flags,
          backing.emulated, native);
    if (native) {
        CHECK(backing.driver.image_channel_order == order &&
                  backing.driver.image_channel_data_type == type &&
                  dxcl_layout_is_identity(&backing.layout),
              "%s/%s: native backing is the format itself", o, t);
        return;
    }
    CHECK(driver_lists(drv, context, flags, &backing.driver), "%s/%s: backed by a listed format", o,
          t);
    CHECK(backing.driver.image_channel_data_type == type &&
              (backing.driver.image_channel_order == CL_RGBA ||
               backing.driver.image_channel_order == CL_BGRA),
          "%s/%s: backed by %s/%s", o, t,
          dxcl_channel_order_name(backing.driver.image_channel_order),
          dxcl_channel_type_name(backing.driver.image_channel_data_type));
    CHECK(dxcl_layout_for(&spec, &backing.driver, &layout) &&
              !memcmp(&layout, &backing.layout, sizeof(layout)) &&
              !dxcl_layout_is_identity(&backing.layout),
          "%s/%s: the layout is the one of its backing", o, t);
}

static void check_backing(const struct dxcl_driver *drv, cl_context context, cl_channel_order order,
                          cl_channel_type type)
{
    for (size_t a = 0; a < COUNT(accesses); a++)
        check_backing_for(drv, context, accesses[a], order, type);
}

/* What a kernel reads from a 1x1 image of `format` holding `pixel` (float4, uint4 or int4 by
 * its type), and what it stores for `write` (16 bytes): the driver's own kernels on its own
 * images. */
static const char *probe_source =
    "__kernel void rd_f(read_only image2d_t im, __global float4 *o) { *o = read_imagef(im, "
    "(int2)(0, 0)); }\n"
    "__kernel void rd_u(read_only image2d_t im, __global uint4 *o) { *o = read_imageui(im, "
    "(int2)(0, 0)); }\n"
    "__kernel void rd_i(read_only image2d_t im, __global int4 *o) { *o = read_imagei(im, "
    "(int2)(0, 0)); }\n"
    "__kernel void wr_f(write_only image2d_t im, float4 v) { write_imagef(im, (int2)(0, 0), v); }\n"
    "__kernel void wr_u(write_only image2d_t im, uint4 v) { write_imageui(im, (int2)(0, 0), v); "
    "}\n"
    "__kernel void wr_i(write_only image2d_t im, int4 v) { write_imagei(im, (int2)(0, 0), v); }\n";

static char kernel_suffix(cl_channel_type type)
{
    if (type == CL_UNSIGNED_INT8 || type == CL_UNSIGNED_INT16 || type == CL_UNSIGNED_INT32)
        return 'u';
    if (type == CL_SIGNED_INT8 || type == CL_SIGNED_INT16 || type == CL_SIGNED_INT32)
        return 'i';
    return 'f';
}

struct probe {
    const struct dxcl_driver *drv;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
};

/* Reads `stored` (one pixel's bytes) through a kernel: 16 bytes into `seen`. */
static bool probe_read(const struct probe *p, const cl_image_format *f, const void *stored,
                       void *seen)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1}, one = 1;
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 1, .image_height = 1};
    char name[8] = {'r', 'd', '_', kernel_suffix(f->image_channel_data_type), 0};
    cl_int err;
    cl_mem image = p->drv->clCreateImage(p->context, CL_MEM_READ_ONLY, f, &desc, NULL, &err);
    cl_mem out = p->drv->clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, 16, NULL, &err);
    cl_kernel kernel = p->drv->clCreateKernel(p->program, name, &err);
    bool ok =
        image && out && kernel &&
        !p->drv->clEnqueueWriteImage(p->queue, image, CL_TRUE, origin, region, 0, 0, stored, 0,
                                     NULL, NULL) &&
        !p->drv->clSetKernelArg(kernel, 0, sizeof(image), &image) &&
        !p->drv->clSetKernelArg(kernel, 1, sizeof(out), &out) &&
        !p->drv->clEnqueueNDRangeKernel(p->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL) &&
        !p->drv->clEnqueueReadBuffer(p->queue, out, CL_TRUE, 0, 16, seen, 0, NULL, NULL);

    p->drv->clReleaseKernel(kernel);
    p->drv->clReleaseMemObject(out);
    p->drv->clReleaseMemObject(image);
    return ok;
}

/* Writes `value` (16 bytes) through a kernel: the pixel's bytes into `stored`. */
static bool probe_write(const struct probe *p, const cl_image_format *f, const void *value,
                        void *stored)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1}, one = 1;
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 1, .image_height = 1};
    char name[8] = {'w', 'r', '_', kernel_suffix(f->image_channel_data_type), 0};
    /* A pixel no probe writes: without it the new image may hold the read probe's freed pixel
     * (the same value), and a write that went nowhere would look right (seen once in CI). */
    unsigned char sentinel[16];
    cl_int err;
    cl_mem image;

    memset(sentinel, 0xa5, sizeof(sentinel));
    image = p->drv->clCreateImage(p->context, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, f, &desc,
                                  sentinel, &err);
    cl_kernel kernel = p->drv->clCreateKernel(p->program, name, &err);
    bool ok =
        image && kernel && !p->drv->clSetKernelArg(kernel, 0, sizeof(image), &image) &&
        !p->drv->clSetKernelArg(kernel, 1, 16, value) &&
        !p->drv->clEnqueueNDRangeKernel(p->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL) &&
        !p->drv->clEnqueueReadImage(p->queue, image, CL_TRUE, origin, region, 0, 0, stored, 0, NULL,
                                    NULL);

    p->drv->clReleaseKernel(kernel);
    p->drv->clReleaseMemObject(image);
    return ok;
}

/* The bytes of a CL_R pixel of `type` that holds 1 (1.0 for normalized and float types). */
static const unsigned char *written_one(cl_channel_type type)
{
    static const unsigned char unorm8[] = {0xff}, unorm16[] = {0xff, 0xff}, snorm8[] = {0x7f},
                               snorm16[] = {0xff, 0x7f}, half[] = {0x00, 0x3c},
                               f32[] = {0x00, 0x00, 0x80, 0x3f}, int1[] = {1, 0, 0, 0};

    switch (type) {
    case CL_UNORM_INT8:
        return unorm8;
    case CL_UNORM_INT16:
        return unorm16;
    case CL_SNORM_INT8:
        return snorm8;
    case CL_SNORM_INT16:
        return snorm16;
    case CL_HALF_FLOAT:
        return half;
    case CL_FLOAT:
        return f32;
    default:
        return int1;
    }
}

/* The claims of pocl_broken, and their absence for the rest of CL_R, on the driver's own
 * images with real kernels: a formats.c entry that a later driver no longer needs fails here. */
static void test_broken_in_kernels(const struct dxcl_driver *drv, cl_context context,
                                   cl_device_id device)
{
    static const cl_channel_type r_types[] = {
        CL_UNORM_INT8,     CL_UNORM_INT16, CL_SNORM_INT8,    CL_SNORM_INT16,
        CL_FLOAT,          CL_HALF_FLOAT,  CL_UNSIGNED_INT8, CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32, CL_SIGNED_INT8, CL_SIGNED_INT16,  CL_SIGNED_INT32};
    struct probe p = {drv, context, NULL, NULL};
    cl_int err;

    p.queue = drv->clCreateCommandQueue(context, device, 0, &err);
    p.program = drv->clCreateProgramWithSource(context, 1, &probe_source, NULL, &err);
    REQUIRE(p.queue && p.program &&
                drv->clBuildProgram(p.program, 1, &device, "", NULL, NULL) == CL_SUCCESS,
            "the probe kernels build in the driver");
    for (size_t i = 0; i < COUNT(r_types); i++) {
        const cl_image_format f = {CL_R, r_types[i]};
        const char *t = dxcl_channel_type_name(r_types[i]);
        char cls = kernel_suffix(r_types[i]);
        /* 0x3c00: 1.0 as a half; the low bytes of 1 for every other type (a small positive
         * number, read as 1 by integers). */
        unsigned char stored[4] = {r_types[i] == CL_HALF_FLOAT ? 0x00 : 0x01,
                                   r_types[i] == CL_HALF_FLOAT ? 0x3c : 0x00, 0, 0},
                      back[4] = {0};
        cl_uint seen[4] = {0}, one_u[4] = {1, 5, 6, 7};
        float one_f[4] = {1.0f, 5.0f, 6.0f, 7.0f};
        bool read_ok, write_ok;

        if (!driver_lists(drv, context, CL_MEM_READ_WRITE, &f))
            continue;
        if (r_types[i] == CL_FLOAT)
            memcpy(stored, one_f, 4);
        CHECK(probe_read(&p, &f, stored, seen), "CL_R/%s: the read probe runs", t);
        /* (r, 0, 0, 1): alpha 1 is 1.0f for the float kernel, 1 for the integer ones. */
        if (cls == 'f') {
            float got[4];
            memcpy(got, seen, sizeof(got));
            read_ok = got[1] == 0 && got[2] == 0 && got[3] == 1.0f && got[0] > 0 && got[0] <= 1;
        } else {
            read_ok = seen[0] == 1 && seen[1] == 0 && seen[2] == 0 && seen[3] == 1;
        }
        CHECK(probe_write(&p, &f, cls == 'f' ? (void *)one_f : (void *)one_u, back),
              "CL_R/%s: the write probe runs", t);
        write_ok = !memcmp(back, written_one(r_types[i]), dxcl_element_size(&f));
        printf("CL_R/%s in kernels: reads %s, writes %s\n", t, read_ok ? "right" : "WRONG",
               write_ok ? "right" : "WRONG");
        CHECK(read_ok == !pocl_broken(context, CL_MEM_READ_ONLY, &f),
              "CL_R/%s: kernel reads right %d, counted broken for reads %d", t, read_ok,
              pocl_broken(context, CL_MEM_READ_ONLY, &f));
        CHECK(write_ok == !pocl_broken(context, CL_MEM_WRITE_ONLY, &f),
              "CL_R/%s: kernel writes right %d, counted broken for writes %d", t, write_ok,
              pocl_broken(context, CL_MEM_WRITE_ONLY, &f));
    }
    drv->clReleaseProgram(p.program);
    drv->clReleaseCommandQueue(p.queue);
}

static void test_choose_backing(void)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_image_format spec;
    struct dxcl_backing backing;
    cl_int err;

    printf("driver: %s\n", dxcl_driver_path());
    REQUIRE(drv->clGetPlatformIDs && drv->clCreateContext && drv->clGetSupportedImageFormats,
            "the system OpenCL driver could not be loaded");
    /* The driver's own handles: choose_backing runs on what dxcl hands the driver. */
    REQUIRE(drv->clGetPlatformIDs(1, &platform, NULL) == CL_SUCCESS, "no driver platform");
    REQUIRE(drv->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS,
            "no driver device");
    context = drv->clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateContext in the driver: %d", err);

    /* PoCL 3.1 has no CL_RG: RG is emulated in RGBA with (r, g, 0, 1). */
    spec.image_channel_order = CL_RG;
    spec.image_channel_data_type = CL_UNORM_INT8;
    if (!driver_lists(drv, context, CL_MEM_READ_WRITE, &spec)) {
        err = dxcl_choose_backing(context, 0, CL_MEM_OBJECT_IMAGE2D, &spec, &backing);
        CHECK_ERR(err, CL_SUCCESS);
        CHECK(err == CL_SUCCESS && backing.emulated &&
                  backing.driver.image_channel_order == CL_RGBA &&
                  backing.driver.image_channel_data_type == CL_UNORM_INT8 &&
                  backing.layout.spec_channels == 2 && backing.layout.backing_channels == 4 &&
                  backing.layout.source[0] == 0 && backing.layout.source[1] == 1 &&
                  backing.layout.source[2] == DXCL_FILL_ZERO &&
                  backing.layout.source[3] == DXCL_FILL_ONE && backing.layout.one == 0xff,
              "CL_RG/CL_UNORM_INT8 is emulated in CL_RGBA");
    } else {
        printf("the driver lists CL_RG/CL_UNORM_INT8: no emulation to check\n");
    }
    check_backing(drv, context, CL_R, CL_UNORM_INT8);
    check_backing(drv, context, CL_BGRA, CL_UNORM_INT8);
    check_backing(drv, context, CL_A, CL_UNORM_INT8);
    check_backing(drv, context, CL_RG, CL_FLOAT);
    /* Every format of the tables can be backed. */
    for (size_t i = 0; i < COUNT(want_dxgi); i++)
        check_backing(drv, context, want_dxgi[i].order, want_dxgi[i].type);
    for (size_t i = 0; i < COUNT(want_d3d9); i++)
        for (unsigned p = 0; p < want_d3d9[i].planes; p++)
            check_backing(drv, context, want_d3d9[i].plane[p].order, want_d3d9[i].plane[p].type);

    /* Nothing holds a packed RG, and driver errors come back unchanged. */
    spec.image_channel_order = CL_RG;
    spec.image_channel_data_type = CL_UNORM_SHORT_565;
    CHECK_ERR(dxcl_choose_backing(context, 0, CL_MEM_OBJECT_IMAGE2D, &spec, &backing),
              CL_IMAGE_FORMAT_NOT_SUPPORTED);
    spec.image_channel_order = CL_RGBA;
    spec.image_channel_data_type = CL_UNORM_INT8;
    CHECK_ERR(dxcl_choose_backing(NULL, 0, CL_MEM_OBJECT_IMAGE2D, &spec, &backing),
              CL_INVALID_CONTEXT);
    test_broken_in_kernels(drv, context, device);
    drv->clReleaseContext(context);
}

/* The choice itself on made-up lists (the order of the DXCL_CHOICE_LISTS lists does not
 * matter to it): the spec format where the image's own list has it; otherwise the wider
 * candidate in the most lists, the earlier (RGBA, BGRA) on a tie, so that every emulated image
 * of one spec format has one backing whatever its access. */
static void choice_case(const char *what, const cl_image_format *spec, const cl_image_format *in,
                        const int *lists_of, size_t n_in, int own_list, bool want_found,
                        cl_channel_order want_order)
{
    static cl_image_format storage[DXCL_CHOICE_LISTS][8];
    struct dxcl_format_list lists[DXCL_CHOICE_LISTS];
    struct dxcl_backing backing;
    bool found;

    for (size_t l = 0; l < DXCL_CHOICE_LISTS; l++) {
        lists[l].formats = storage[l];
        lists[l].count = 0;
        for (size_t i = 0; i < n_in; i++)
            if (lists_of[i] & (1 << l))
                storage[l][lists[l].count++] = in[i];
    }
    found = dxcl_backing_from_lists(&lists[own_list], lists, DXCL_CHOICE_LISTS, spec, &backing);
    CHECK(found == want_found, "%s: found %d, want %d", what, found, want_found);
    if (!found || !want_found)
        return;
    CHECK(backing.driver.image_channel_order == want_order &&
              backing.driver.image_channel_data_type == spec->image_channel_data_type &&
              backing.emulated == (want_order != spec->image_channel_order),
          "%s: backed by %s/%s (emulated %d), want %s", what,
          dxcl_channel_order_name(backing.driver.image_channel_order),
          dxcl_channel_type_name(backing.driver.image_channel_data_type), backing.emulated,
          dxcl_channel_order_name(want_order));
}

static void test_choice_from_lists(void)
{
    /* Lists 0-2: read-write, read-only, write-only 2D; 3-5 the same for 3D. */
    enum { ALL = 0x3f, RO_ONLY = 0x2 | 0x10, TWO_D = 0x7, RW = 0, RO = 1, WO = 2, RW3D = 3 };
    const cl_image_format r8 = {CL_R, CL_UNORM_INT8}, rgba8 = {CL_RGBA, CL_UNORM_INT8},
                          bgra8 = {CL_BGRA, CL_UNORM_INT8};
    const cl_image_format rgba_sn8 = {CL_RGBA, CL_SNORM_INT8}, rg_sn8 = {CL_RG, CL_SNORM_INT8},
                          r_sn8 = {CL_R, CL_SNORM_INT8}, bgra_sn8 = {CL_BGRA, CL_SNORM_INT8};

    /* Listed everywhere: native. */
    choice_case("R8 everywhere", &r8, (cl_image_format[]){r8, rgba8}, (int[]){ALL, ALL}, 2, RW,
                true, CL_R);
    /* Listed for read-only images only, RGBA everywhere: native for read-only images, RGBA for
     * the others. */
    choice_case("R8 read-only only, read-only image", &r8, (cl_image_format[]){r8, rgba8},
                (int[]){RO_ONLY, ALL}, 2, RO, true, CL_R);
    choice_case("R8 read-only only, read-write image", &r8, (cl_image_format[]){r8, rgba8},
                (int[]){RO_ONLY, ALL}, 2, RW, true, CL_RGBA);
    choice_case("R8 read-only only, write-only image", &r8, (cl_image_format[]){r8, rgba8},
                (int[]){RO_ONLY, ALL}, 2, WO, true, CL_RGBA);
    /* Nothing wider: the access the driver does not serve has no backing. */
    choice_case("R8 read-only, nothing else, read-only image", &r8, (cl_image_format[]){r8},
                (int[]){RO_ONLY}, 1, RO, true, CL_R);
    choice_case("R8 read-only, nothing else, read-write image", &r8, (cl_image_format[]){r8},
                (int[]){RO_ONLY}, 1, RW, false, CL_R);
    /* 2D only: a 3D image of it is emulated. */
    choice_case("R8 and RGBA in 2D only, 2D", &r8, (cl_image_format[]){r8, rgba8},
                (int[]){TWO_D, TWO_D}, 2, RW, true, CL_R);
    choice_case("R8 and RGBA in 2D only, 3D", &r8, (cl_image_format[]){r8, rgba8},
                (int[]){TWO_D, TWO_D}, 2, RW3D, true, CL_RGBA);
    /* RGBA in fewer lists than BGRA: BGRA, also for an access where RGBA is listed. */
    choice_case("RGBA 2D, BGRA everywhere", &r8, (cl_image_format[]){rgba8, bgra8},
                (int[]){TWO_D, ALL}, 2, RW, true, CL_BGRA);
    /* NVIDIA's lists (H100, driver 580.159.04: the same for each plain flag, 2D and 3D): no
     * 8-bit SNORM in R, RG or RGBA, BGRA/SNORM_INT8 everywhere. */
    choice_case("NVIDIA RGBA SNORM8", &rgba_sn8, (cl_image_format[]){bgra_sn8}, (int[]){ALL}, 1, RW,
                true, CL_BGRA);
    choice_case("NVIDIA RG SNORM8", &rg_sn8, (cl_image_format[]){bgra_sn8}, (int[]){ALL}, 1, RO,
                true, CL_BGRA);
    choice_case("NVIDIA R SNORM8", &r_sn8, (cl_image_format[]){bgra_sn8}, (int[]){ALL}, 1, WO, true,
                CL_BGRA);
    /* Nothing of the channel type: none. */
    choice_case("R8 with only other types", &r8, (cl_image_format[]){rgba_sn8, {CL_RGBA, CL_FLOAT}},
                (int[]){ALL, ALL}, 2, RW, false, CL_R);
}

/* cl_intel_d3d11_nv12_media_sharing: DXGI_FORMAT_NV12 has D3D9 NV12's two planes; the DXGI
 * table's formats have none (they keep the KHR subresource rule). */
static void test_dxgi_planes(void)
{
    struct dxcl_plane plane;

    CHECK(dxcl_dxgi_plane_count(DXGI_FORMAT_NV12) == 2, "NV12: %u planes",
          dxcl_dxgi_plane_count(DXGI_FORMAT_NV12));
    CHECK(dxcl_format_from_dxgi_plane(DXGI_FORMAT_NV12, 0, &plane) &&
              plane.format.image_channel_order == CL_R &&
              plane.format.image_channel_data_type == CL_UNORM_INT8 && plane.width_divisor == 1 &&
              plane.height_divisor == 1,
          "NV12 plane 0 is CL_R/UNORM_INT8 at full size");
    CHECK(dxcl_format_from_dxgi_plane(DXGI_FORMAT_NV12, 1, &plane) &&
              plane.format.image_channel_order == CL_RG &&
              plane.format.image_channel_data_type == CL_UNORM_INT8 && plane.width_divisor == 2 &&
              plane.height_divisor == 2,
          "NV12 plane 1 is CL_RG/UNORM_INT8 at half size");
    CHECK(!dxcl_format_from_dxgi_plane(DXGI_FORMAT_NV12, 2, &plane), "NV12 has no plane 2");
    CHECK(!dxcl_format_from_dxgi(DXGI_FORMAT_NV12, &plane.format), "NV12 is not in the table");
    for (size_t i = 0; i < dxcl_dxgi_format_count(); i++)
        CHECK(dxcl_dxgi_plane_count(dxcl_dxgi_format_at(i)) == 0 &&
                  !dxcl_format_from_dxgi_plane(dxcl_dxgi_format_at(i), 0, &plane),
              "table format %d has no planes", (int)dxcl_dxgi_format_at(i));
}

int main(void)
{
    dxcl_log_init(); /* DXCL_LOG=1 shows the choices */
    test_dxgi_table();
    test_dxgi_planes();
    test_d3d9_table();
    test_names();
    test_choice_from_lists();
    test_choose_backing();
    return test_finish("formats");
}
