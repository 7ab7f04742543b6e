/* Sizes and backings of shared textures (issue 24, docs/design.md "Formats the driver lacks").
 *
 * - The largest 2D texture of an 8-bit format that Direct3D allows (D3D11: 16384 x 16384, D3D10:
 *   8192 x 8192), R8_UINT, shared write-only: where the context's devices hold it, a kernel
 *   writes a pattern that Direct3D reads back exact, and a pattern Direct3D writes reads back
 *   exact through OpenCL; where they do not (PoCL 3.1: CL_DEVICE_IMAGE2D_MAX_* 8192), creation
 *   fails with CL_INVALID_IMAGE_SIZE, and the largest square they hold makes the round trip.
 * - Every DXGI format of the table, shared read-only, write-only and read-write: native exactly
 *   where the driver lists the format for that access and does not get it wrong there
 *   (test_driver_gets_wrong), by dxclGetBackingFormat.
 * - Copies between images of one spec format made with different flags (shared and ordinary,
 *   native and emulated where the access splits them: R8_UINT on PoCL) stay exact, and a copy
 *   between two spec formats with one backing is a format mismatch. */
#include "interop.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static dxclGetBackingFormat_fn backing_of;

static const char *pattern_source =
    "__kernel void pattern(write_only image2d_t im, uint seed)\n"
    "{\n"
    "    uint x = get_global_id(0), y = get_global_id(1);\n"
    "    write_imageui(im, (int2)(x, y), (uint4)((x * 7u + y * 13u + seed) & 0xffu, 0, 0, 0));\n"
    "}\n";

static unsigned char pattern_at(size_t x, size_t y, unsigned seed)
{
    return (unsigned char)((x * 7u + y * 13u + seed) & 0xffu);
}

static size_t first_wrong(const unsigned char *got, size_t side, unsigned seed)
{
    for (size_t y = 0; y < side; y++)
        for (size_t x = 0; x < side; x++)
            if (got[y * side + x] != pattern_at(x, y, seed))
                return y * side + x;
    return (size_t)-1;
}

struct env {
    const struct test_api *api;
    void *d3d;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
};

static struct env env_open(const struct test_api *api, cl_platform_id platform)
{
    struct env e = {api, api->create_device(), test_device(platform), NULL, NULL};
    cl_context_properties props[] = {api->context_property, (cl_context_properties)e.d3d, 0};
    cl_int err;

    REQUIRE(e.d3d, "%s: a Direct3D device", api->name);
    interop_load(api, platform);
    e.context = clCreateContext(props, 1, &e.device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "%s: context: %d", api->name, err);
    e.queue = clCreateCommandQueue(e.context, e.device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "%s: queue: %d", api->name, err);
    return e;
}

static void env_close(struct env *e)
{
    clReleaseCommandQueue(e->queue);
    clReleaseContext(e->context);
    e->api->release(e->d3d);
}

static void *texture_of(const struct env *e, UINT side, DXGI_FORMAT format)
{
    struct test_texture_desc desc = {side, side, 1, 1, 1, format, TEST_USAGE_DEFAULT, 1};
    void *texture = e->api->create_texture2d(e->d3d, &desc, NULL);

    REQUIRE(texture, "%s: a %ux%u texture of format %d", e->api->name, side, side, (int)format);
    return texture;
}

/* A kernel's pattern into Direct3D, then Direct3D's pattern into OpenCL, on a side x side
 * R8_UINT texture shared write-only. */
static void round_trip(const struct env *e, UINT side)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {side, side, 1}, global[2] = {side, side};
    const size_t bytes = (size_t)side * side;
    const cl_image_format r8ui = {CL_R, CL_UNSIGNED_INT8};
    unsigned char *pixels = malloc(bytes);
    void *texture = texture_of(e, side, DXGI_FORMAT_R8_UINT);
    cl_kernel kernel = test_kernel(e->context, e->device, pattern_source, "pattern");
    cl_image_format driver = {0, 0};
    cl_bool emulated = CL_TRUE;
    cl_uint seed = 5;
    size_t wrong;
    cl_int err;
    cl_mem image = e->api->cl->create_texture2d(e->context, CL_MEM_WRITE_ONLY, texture, 0, &err);

    REQUIRE(pixels, "%zu bytes", bytes);
    CHECK_ERR(err, CL_SUCCESS);
    REQUIRE(image, "%s: %ux%u R8_UINT shared", e->api->name, side, side);
    CHECK_ERR(backing_of(image, &driver, &emulated), CL_SUCCESS);
    CHECK(emulated ==
              !(test_driver_lists(e->context, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D, &r8ui) &&
                !test_driver_gets_wrong(e->context, CL_MEM_WRITE_ONLY, &r8ui)),
          "%s: write-only R8_UINT is native where the driver serves it (emulated %d)", e->api->name,
          emulated);
    test_progress("%s: %ux%u R8_UINT created (%s)", e->api->name, side, side,
                  emulated ? "emulated" : "native");

    CHECK_ERR(e->api->cl->acquire(e->queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(image), &image), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(seed), &seed), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(e->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(e->api->cl->release(e->queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(e->queue), CL_SUCCESS);
    CHECK(e->api->read_subresource(texture, 0, pixels), "%s: Direct3D reads the texture",
          e->api->name);
    wrong = first_wrong(pixels, side, seed);
    CHECK(wrong == (size_t)-1, "%s: the kernel's pattern in Direct3D (first wrong pixel %zd)",
          e->api->name, (ptrdiff_t)wrong);
    test_progress("%s: kernel -> Direct3D checked", e->api->name);

    for (size_t y = 0; y < side; y++)
        for (size_t x = 0; x < side; x++)
            pixels[y * side + x] = pattern_at(x, y, 91);
    CHECK(e->api->write_subresource(texture, 0, pixels), "%s: Direct3D writes the texture",
          e->api->name);
    memset(pixels, 0, bytes);
    CHECK_ERR(e->api->cl->acquire(e->queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueReadImage(e->queue, image, CL_TRUE, origin, region, 0, 0, pixels, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(e->api->cl->release(e->queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(e->queue), CL_SUCCESS);
    wrong = first_wrong(pixels, side, 91);
    CHECK(wrong == (size_t)-1, "%s: Direct3D's pattern in OpenCL (first wrong pixel %zd)",
          e->api->name, (ptrdiff_t)wrong);
    test_progress("%s: Direct3D -> OpenCL checked", e->api->name);

    clReleaseMemObject(image);
    clReleaseKernel(kernel);
    e->api->release(texture);
    free(pixels);
}

/* The largest texture Direct3D allows: served where the devices hold it, else refused with
 * CL_INVALID_IMAGE_SIZE and the largest square they hold served instead. */
static void test_largest(const struct test_api *api, cl_platform_id platform, UINT d3d_max)
{
    struct env e = env_open(api, platform);
    size_t max_w = 0, max_h = 0, side;
    cl_int err;

    CHECK_ERR(clGetDeviceInfo(e.device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(max_w), &max_w, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetDeviceInfo(e.device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(max_h), &max_h, NULL),
              CL_SUCCESS);
    printf("sizes: %s allows %ux%u; the device's images go to %zux%zu\n", api->name, d3d_max,
           d3d_max, max_w, max_h);
    if (d3d_max <= max_w && d3d_max <= max_h) {
        round_trip(&e, d3d_max);
    } else {
        void *texture = texture_of(&e, d3d_max, DXGI_FORMAT_R8_UINT);
        cl_mem image = api->cl->create_texture2d(e.context, CL_MEM_WRITE_ONLY, texture, 0, &err);

        CHECK(!image, "%s: %ux%u refused", api->name, d3d_max, d3d_max);
        CHECK_ERR(err, CL_INVALID_IMAGE_SIZE);
        if (image)
            clReleaseMemObject(image);
        api->release(texture);
        side = max_w < max_h ? max_w : max_h;
        round_trip(&e, (UINT)side);
    }
    env_close(&e);
}

/* Every table format, by access: native exactly where the driver serves that access. */
static void test_native_where_served(cl_platform_id platform)
{
    static const cl_mem_flags accesses[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE};
    static const char *const names[] = {"read-only", "write-only", "read-write"};
    struct env e = env_open(&api_d3d11_khr, platform);
    unsigned native[3] = {0, 0, 0};

    for (size_t i = 0; i < TEST_FORMAT_COUNT; i++) {
        const struct test_format *f = &test_formats[i];
        cl_image_format spec = {f->order, f->type};
        void *texture = texture_of(&e, 8, f->dxgi);

        for (size_t a = 0; a < COUNT(accesses); a++) {
            bool want_native =
                test_driver_lists(e.context, accesses[a], CL_MEM_OBJECT_IMAGE2D, &spec) &&
                !test_driver_gets_wrong(e.context, accesses[a], &spec);
            cl_image_format driver = {0, 0};
            cl_bool emulated = CL_TRUE;
            cl_int err;
            cl_mem image =
                api_d3d11_khr.cl->create_texture2d(e.context, accesses[a], texture, 0, &err);

            CHECK_ERR(err, CL_SUCCESS);
            if (!image)
                continue;
            CHECK_ERR(backing_of(image, &driver, &emulated), CL_SUCCESS);
            CHECK(emulated == !want_native, "%s %s: emulated %d, the driver serves it natively %d",
                  f->name, names[a], emulated, want_native);
            native[a] += !emulated;
            clReleaseMemObject(image);
        }
        api_d3d11_khr.release(texture);
    }
    printf("sizes: native backings of %d DXGI formats: read-only %u, write-only %u, read-write "
           "%u\n",
           TEST_FORMAT_COUNT, native[0], native[1], native[2]);
    env_close(&e);
}

/* Copies through images of R8_UINT made with every flag, shared and ordinary; each hop must
 * keep the pixels. */
static void test_copies_across_flags(cl_platform_id platform)
{
    enum { S = 37 };
    const size_t origin[3] = {0, 0, 0}, region[3] = {S, S, 1};
    const size_t part_src[3] = {3, 4, 0}, part_dst[3] = {10, 2, 0}, part[3] = {20, 30, 1};
    const cl_image_format r8ui = {CL_R, CL_UNSIGNED_INT8}, rgba8ui = {CL_RGBA, CL_UNSIGNED_INT8};
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = S, .image_height = S};
    static const cl_mem_flags ordinary_flags[] = {0, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY,
                                                  CL_MEM_READ_WRITE};
    struct env e = env_open(&api_d3d11_khr, platform);
    unsigned char want[S * S], got[S * S];
    void *tex_wo = texture_of(&e, S, DXGI_FORMAT_R8_UINT),
         *tex_rw = texture_of(&e, S, DXGI_FORMAT_R8_UINT);
    cl_mem ordinary[COUNT(ordinary_flags)], mixed;
    cl_int err;
    cl_mem wo = api_d3d11_khr.cl->create_texture2d(e.context, CL_MEM_WRITE_ONLY, tex_wo, 0, &err);
    cl_mem rw = api_d3d11_khr.cl->create_texture2d(e.context, CL_MEM_READ_WRITE, tex_rw, 0, &err);
    cl_mem shared[2] = {wo, rw}, hop;
    cl_bool emulated_wo = CL_FALSE, emulated_rw = CL_FALSE;
    cl_image_format driver;

    REQUIRE(wo && rw, "shared R8_UINT images");
    CHECK_ERR(backing_of(wo, &driver, &emulated_wo), CL_SUCCESS);
    CHECK_ERR(backing_of(rw, &driver, &emulated_rw), CL_SUCCESS);
    printf("sizes: R8_UINT write-only %s, read-write %s\n", emulated_wo ? "emulated" : "native",
           emulated_rw ? "emulated" : "native");
    for (size_t i = 0; i < COUNT(ordinary_flags); i++) {
        ordinary[i] = clCreateImage(e.context, ordinary_flags[i], &r8ui, &desc, NULL, &err);
        REQUIRE(ordinary[i], "ordinary R8_UINT image, flags 0x%x: %d", (unsigned)ordinary_flags[i],
                err);
    }
    for (size_t i = 0; i < sizeof(want); i++)
        want[i] = (unsigned char)(i * 31 + 7);
    CHECK_ERR(api_d3d11_khr.cl->acquire(e.queue, 2, shared, 0, NULL, NULL), CL_SUCCESS);
    /* write-only shared -> each ordinary image in turn -> read-write shared. */
    CHECK_ERR(clEnqueueWriteImage(e.queue, wo, CL_FALSE, origin, region, 0, 0, want, 0, NULL, NULL),
              CL_SUCCESS);
    hop = wo;
    for (size_t i = 0; i < COUNT(ordinary_flags); i++) {
        CHECK_ERR(
            clEnqueueCopyImage(e.queue, hop, ordinary[i], origin, origin, region, 0, NULL, NULL),
            CL_SUCCESS);
        memset(got, 0, sizeof(got));
        CHECK_ERR(clEnqueueReadImage(e.queue, ordinary[i], CL_TRUE, origin, region, 0, 0, got, 0,
                                     NULL, NULL),
                  CL_SUCCESS);
        CHECK(test_same_bytes(got, want, sizeof(want), "a copy into an ordinary image"),
              "into ordinary flags 0x%x", (unsigned)ordinary_flags[i]);
        hop = ordinary[i];
    }
    CHECK_ERR(clEnqueueCopyImage(e.queue, hop, rw, origin, origin, region, 0, NULL, NULL),
              CL_SUCCESS);
    /* A part of read-write into the write-only one, at another place. */
    CHECK_ERR(clEnqueueCopyImage(e.queue, rw, wo, part_src, part_dst, part, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(api_d3d11_khr.cl->release(e.queue, 2, shared, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(e.queue), CL_SUCCESS);
    CHECK(api_d3d11_khr.read_subresource(tex_rw, 0, got), "read-write texture read");
    CHECK(test_same_bytes(got, want, sizeof(want), "read-write texture"), "chain into read-write");
    for (size_t y = 0; y < part[1]; y++)
        memcpy(want + (part_dst[1] + y) * S + part_dst[0],
               want + (part_src[1] + y) * S + part_src[0], part[0]);
    CHECK(api_d3d11_khr.read_subresource(tex_wo, 0, got), "write-only texture read");
    CHECK(test_same_bytes(got, want, sizeof(want), "write-only texture"),
          "a part of read-write into write-only");

    /* Two spec formats are a mismatch, also where one backs the other. */
    mixed = clCreateImage(e.context, CL_MEM_READ_WRITE, &rgba8ui, &desc, NULL, &err);
    REQUIRE(mixed, "an RGBA/UINT8 image: %d", err);
    CHECK_ERR(
        clEnqueueCopyImage(e.queue, ordinary[3], mixed, origin, origin, region, 0, NULL, NULL),
        CL_IMAGE_FORMAT_MISMATCH);
    CHECK_ERR(
        clEnqueueCopyImage(e.queue, mixed, ordinary[0], origin, origin, region, 0, NULL, NULL),
        CL_IMAGE_FORMAT_MISMATCH);
    clReleaseMemObject(mixed);
    for (size_t i = 0; i < COUNT(ordinary_flags); i++)
        clReleaseMemObject(ordinary[i]);
    clReleaseMemObject(wo);
    clReleaseMemObject(rw);
    api_d3d11_khr.release(tex_wo);
    api_d3d11_khr.release(tex_rw);
    env_close(&e);
}

int main(void)
{
    cl_platform_id platform = test_platform();

    backing_of = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                         "dxclGetBackingFormat");
    REQUIRE(backing_of, "dxcl exports dxclGetBackingFormat");
    test_native_where_served(platform);
    test_copies_across_flags(platform);
    test_largest(&api_d3d10_khr, platform, D3D10_REQ_TEXTURE2D_U_OR_V_DIMENSION);
    test_largest(&api_d3d11_khr, platform, D3D11_REQ_TEXTURE2D_U_OR_V_DIMENSION);
    return test_finish("sizes");
}
