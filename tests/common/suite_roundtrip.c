/* Round trips: Direct3D holds known data -> acquire -> a kernel transforms it -> release ->
 * Direct3D reads back exactly the values computed on the host. Every DXGI format of the
 * sharing table on four kinds of subresource, buffers, and what kernels read from R and RG
 * images (emulated formats included). */
#include "suites.h"

#include <math.h>
#include <stdlib.h>

struct rt_case {
    const char *name;
    bool is_3d;
    struct test_texture_desc desc; /* format filled per test */
    UINT subresource;
};

static const struct rt_case cases[] = {
    {"2D mip 0", false, {17, 9, 1, 1, 1, 0, TEST_USAGE_DEFAULT, 1}, 0},
    {"2D mip 1 of 3", false, {17, 9, 1, 3, 1, 0, TEST_USAGE_DEFAULT, 1}, 1},
    {"2D mip 2 of 3", false, {17, 9, 1, 3, 1, 0, TEST_USAGE_DEFAULT, 1}, 2},
    /* subresource = mip + slice * MipLevels: slice 2, mip 1 */
    {"2D array slice 2 mip 1", false, {17, 9, 1, 3, 3, 0, TEST_USAGE_DEFAULT, 1}, 1 + 2 * 3},
    {"3D mip 0", true, {9, 7, 5, 1, 1, 0, TEST_USAGE_DEFAULT, 1}, 0},
    {"3D mip 1 of 3", true, {9, 7, 5, 3, 1, 0, TEST_USAGE_DEFAULT, 1}, 1},
};

/* Acquire both objects, run the kernel, release; then Direct3D holds the transform in the
 * destination subresource, every other subresource untouched, and the source intact. */
static void transform(struct interop_env *env, const struct test_format *format,
                      const struct rt_case *rc, cl_kernel kernel, cl_mem *mems,
                      struct test_texture *src, struct test_texture *dst, const char *what)
{
    const struct test_cl_fns *cl = env->cl;
    size_t bytes = test_subresource_bytes(&src->desc, rc->is_3d, rc->subresource);
    void *want = malloc(bytes);
    UINT w, h, d;

    REQUIRE(want != NULL, "out of memory");
    test_subresource_size(&src->desc, rc->is_3d, rc->subresource, &w, &h, &d);
    interop_check_image(env, mems[0], format, rc->is_3d, w, h, d, CL_MEM_READ_ONLY, src->resource,
                        rc->subresource, what);
    interop_check_image(env, mems[1], format, rc->is_3d, w, h, d, CL_MEM_WRITE_ONLY, dst->resource,
                        rc->subresource, what);
    CHECK_ERR(cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    test_class_kernel_args(kernel, format, mems[0], mems[1]);
    size_t global[3] = {w, h, d};
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, rc->is_3d ? 3 : 2, NULL, global, NULL, 0,
                                     NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(cl->release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);

    test_class_expected(format, src->data[rc->subresource], want, bytes);
    memcpy(dst->data[rc->subresource], want, bytes);
    free(want);
    test_texture_intact(env->api, dst, what);
    test_texture_intact(env->api, src, what);
}

static void run_case(struct interop_env *env, const struct test_format *format,
                     const struct rt_case *rc, cl_kernel kernel, uint32_t seed)
{
    const struct test_api *api = env->api;
    const struct test_cl_fns *cl = env->cl;
    struct test_texture_desc desc = rc->desc;
    struct test_texture src, dst;
    test_create_texture_fn create = rc->is_3d ? cl->create_texture3d : cl->create_texture2d;
    cl_mem mems[2];
    char what[160];
    cl_int err;

    snprintf(what, sizeof(what), "%s %s %s", api->name, format->name, rc->name);
    desc.format = format->dxgi;
    REQUIRE(test_texture_create(api, env->d3d, &src, &desc, rc->is_3d, seed) &&
                test_texture_create(api, env->d3d, &dst, &desc, rc->is_3d, seed + 7),
            "%s: textures not created", what);
    mems[0] = create(env->context, CL_MEM_READ_ONLY, src.resource, rc->subresource, &err);
    CHECK(err == CL_SUCCESS && mems[0], "%s: create src: %d", what, err);
    mems[1] = create(env->context, CL_MEM_WRITE_ONLY, dst.resource, rc->subresource, &err);
    CHECK(err == CL_SUCCESS && mems[1], "%s: create dst: %d", what, err);
    if (mems[0] && mems[1])
        transform(env, format, rc, kernel, mems, &src, &dst, what);
    for (int i = 0; i < 2; i++)
        if (mems[i])
            CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
    test_texture_free(api, &src);
    test_texture_free(api, &dst);
}

void suite_roundtrip_formats(const struct test_api *api, size_t first, size_t count)
{
    struct interop_env env;
    cl_kernel kernels[8] = {0}; /* per class x dimension: cached */
    static const char *names[8] = {"neg2", "neg3", "omx2", "omx3", "xor2", "xor3", "not2", "not3"};

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    for (size_t i = first; i < first + count && i < TEST_FORMAT_COUNT; i++) {
        const struct test_format *format = &test_formats[i];
        test_progress("roundtrip: %s %s (%zu of %d)", api->name, format->name, i + 1,
                      TEST_FORMAT_COUNT);
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            const char *name = test_class_kernel(format->cls, cases[c].is_3d);
            size_t k = 0;
            while (strcmp(names[k], name))
                k++;
            if (!kernels[k])
                kernels[k] = interop_kernel(&env, name);
            run_case(&env, format, &cases[c], kernels[k], (uint32_t)(i * 16 + c + 1));
        }
    }
    for (size_t k = 0; k < 8; k++)
        if (kernels[k])
            clReleaseKernel(kernels[k]);
    interop_close(&env);
}

void suite_roundtrip_one(struct interop_env *env, const struct test_format *format, bool is_3d,
                         uint32_t seed)
{
    const struct rt_case *rc = is_3d ? &cases[4] : &cases[0];
    cl_kernel kernel = interop_kernel(env, test_class_kernel(format->cls, is_3d));

    run_case(env, format, rc, kernel, seed);
    clReleaseKernel(kernel);
}

/* ---- Buffers ---- */

static void buffer_roundtrip(struct interop_env *env, UINT size, cl_mem_flags src_flags,
                             cl_mem_flags dst_flags)
{
    const struct test_api *api = env->api;
    uint32_t *src_data = malloc(size), *dst_data = malloc(size), *got = malloc(size);
    void *src = NULL, *dst = NULL;
    cl_mem mems[2] = {NULL, NULL};
    cl_kernel kernel = interop_kernel(env, "bufxf");
    char what[128];
    cl_int err;

    snprintf(what, sizeof(what), "%s buffer of %u bytes", api->name, size);
    REQUIRE(src_data && dst_data && got, "out of memory");
    test_fill_bytes(src_data, size, size);
    test_fill_bytes(dst_data, size, size + 1);
    src = api->create_buffer(env->d3d, size, TEST_USAGE_DEFAULT, src_data);
    dst = api->create_buffer(env->d3d, size, TEST_USAGE_DEFAULT, dst_data);
    REQUIRE(src && dst, "%s: buffers not created", what);
    mems[0] = env->cl->create_buffer(env->context, src_flags, src, &err);
    CHECK(err == CL_SUCCESS && mems[0], "%s: create src: %d", what, err);
    mems[1] = env->cl->create_buffer(env->context, dst_flags, dst, &err);
    CHECK(err == CL_SUCCESS && mems[1], "%s: create dst: %d", what, err);
    if (mems[0] && mems[1]) {
        interop_check_buffer(env, mems[0], size, src_flags, src, what);
        interop_check_buffer(env, mems[1], size, dst_flags, dst, what);
        CHECK_ERR(env->cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &mems[0]), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(cl_mem), &mems[1]), CL_SUCCESS);
        size_t global = size / 4;
        CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        for (UINT i = 0; i < size / 4; i++)
            dst_data[i] = src_data[i] * 3u + 7u;
        CHECK(api->read_subresource(dst, 0, got), "%s: read dst", what);
        test_same_bytes(got, dst_data, size, what);
        CHECK(api->read_subresource(src, 0, got), "%s: read src", what);
        test_same_bytes(got, src_data, size, what);
    }
    for (int i = 0; i < 2; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    clReleaseKernel(kernel);
    api->release(src);
    api->release(dst);
    free(src_data);
    free(dst_data);
    free(got);
}

/* ---- What kernels read from R and RG images ---- */

static void sample_case(struct interop_env *env, DXGI_FORMAT dxgi)
{
    const struct test_api *api = env->api;
    const struct test_format *format = test_format_find(dxgi);
    struct test_texture_desc desc = {13, 5, 1, 1, 1, dxgi, TEST_USAGE_DEFAULT, 1};
    struct test_texture tex;
    const char *name = format->cls == CLASS_UINT   ? "sample2ui"
                       : format->cls == CLASS_SINT ? "sample2i"
                                                   : "sample2f";
    size_t pixels = desc.width * desc.height;
    cl_kernel kernel = interop_kernel(env, name);
    cl_mem image, out;
    char what[128];
    cl_int err;
    union {
        float f[4];
        uint32_t u[4];
        int32_t i[4];
    } *got = calloc(pixels, 16);

    snprintf(what, sizeof(what), "%s: kernel reading %s", api->name, format->name);
    REQUIRE(got != NULL, "out of memory");
    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, false, dxgi), "%s: texture", what);
    image = env->cl->create_texture2d(env->context, CL_MEM_READ_ONLY, tex.resource, 0, &err);
    CHECK_ERR(err, CL_SUCCESS);
    out = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, pixels * 16, NULL, &err);
    CHECK_ERR(err, CL_SUCCESS);
    if (image && out) {
        CHECK_ERR(env->cl->acquire(env->queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(image), &image), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(out), &out), CL_SUCCESS);
        size_t global[2] = {desc.width, desc.height};
        CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, pixels * 16, got, 0, NULL, NULL),
                  CL_SUCCESS);
        size_t wrong = 0, first = pixels;
        for (size_t p = 0; p < pixels; p++) {
            const unsigned char *px =
                (const unsigned char *)tex.data[0] + p * format->channels * format->channel_size;
            bool ok = true;
            for (unsigned c = 0; c < 4; c++) {
                uint32_t raw = 0;
                if (c < format->channels)
                    memcpy(&raw, px + c * format->channel_size, format->channel_size);
                if (format->cls == CLASS_UINT) {
                    ok &= got[p].u[c] == (c < format->channels ? raw : c == 3 ? 1u : 0u);
                } else if (format->cls == CLASS_SINT) {
                    int32_t v = format->channel_size == 1   ? (int8_t)raw
                                : format->channel_size == 2 ? (int16_t)raw
                                                            : (int32_t)raw;
                    ok &= got[p].i[c] == (c < format->channels ? v : c == 3 ? 1 : 0);
                } else {
                    float want;
                    if (c >= format->channels)
                        want = c == 3 ? 1.0f : 0.0f;
                    else if (format->cls == CLASS_FLOAT)
                        memcpy(&want, &raw, 4);
                    else if (format->cls == CLASS_UNORM)
                        want = (float)raw / (format->channel_size == 1 ? 255.0f : 65535.0f);
                    else
                        REQUIRE(0, "sample_case: class %d unsupported", format->cls);
                    ok &= c >= format->channels || format->cls == CLASS_FLOAT
                              ? got[p].f[c] == want
                              : fabsf(got[p].f[c] - want) <= 1e-6f;
                }
            }
            if (!ok && wrong++ == 0)
                first = p;
        }
        CHECK(wrong == 0,
              "%s: %zu of %zu pixels wrong, first %zu: (%g %g %g %g) / "
              "(0x%x 0x%x 0x%x 0x%x)",
              what, wrong, pixels, first, first < pixels ? got[first].f[0] : 0.0,
              first < pixels ? got[first].f[1] : 0.0, first < pixels ? got[first].f[2] : 0.0,
              first < pixels ? got[first].f[3] : 0.0, first < pixels ? got[first].u[0] : 0,
              first < pixels ? got[first].u[1] : 0, first < pixels ? got[first].u[2] : 0,
              first < pixels ? got[first].u[3] : 0);
    }
    if (image)
        clReleaseMemObject(image);
    if (out)
        clReleaseMemObject(out);
    clReleaseKernel(kernel);
    test_texture_free(api, &tex);
    free(got);
}

void suite_roundtrip_misc(const struct test_api *api)
{
    struct interop_env env;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    buffer_roundtrip(&env, 4096, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY);
    buffer_roundtrip(&env, 1000, CL_MEM_READ_WRITE, CL_MEM_READ_WRITE);
    buffer_roundtrip(&env, 4, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE);
    /* RG formats (no CL_RG in PoCL: emulated) read as (r, g, 0, 1); R as (r, 0, 0, 1). */
    sample_case(&env, DXGI_FORMAT_R8G8_UNORM);
    sample_case(&env, DXGI_FORMAT_R16G16_UNORM);
    sample_case(&env, DXGI_FORMAT_R32G32_FLOAT);
    sample_case(&env, DXGI_FORMAT_R16G16_UINT);
    sample_case(&env, DXGI_FORMAT_R8G8_SINT);
    sample_case(&env, DXGI_FORMAT_R32G32_UINT);
    sample_case(&env, DXGI_FORMAT_R8_UNORM);
    sample_case(&env, DXGI_FORMAT_R32_FLOAT);
    interop_close(&env);
}

void suite_roundtrip(const struct test_api *api)
{
    suite_roundtrip_formats(api, 0, TEST_FORMAT_COUNT);
    suite_roundtrip_misc(api);
}

/* ---- Seams: shared images meet ordinary images of the spec's format ---- */

enum { SEAM_W = 17, SEAM_H = 9 };

static cl_mem ordinary_image(struct interop_env *env, const struct test_format *format,
                             cl_mem_flags flags, const char *what)
{
    const cl_image_format cl_format = {format->order, format->type};
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = SEAM_W, .image_height = SEAM_H};
    cl_image_format got;
    cl_int err;
    cl_mem image = clCreateImage(env->context, flags, &cl_format, &desc, NULL, &err);

    REQUIRE(err == CL_SUCCESS && image, "%s: ordinary image of the spec's format: %d", what, err);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(got), &got, NULL), CL_SUCCESS);
    CHECK(got.image_channel_order == format->order && got.image_channel_data_type == format->type,
          "%s: the ordinary image reports the spec's format", what);
    return image;
}

/* Copies a w x h box of packed pixels from (sx, sy) to (dx, dy) in a SEAM_W-wide image. */
static void copy_box_model(unsigned char *pixels, size_t element, size_t sx, size_t sy, size_t dx,
                           size_t dy, size_t w, size_t h)
{
    for (size_t y = 0; y < h; y++)
        memmove(pixels + ((dy + y) * SEAM_W + dx) * element,
                pixels + ((sy + y) * SEAM_W + sx) * element, w * element);
}

/* Shared A -> ordinary O (copy) -> kernel -> shared B, a copy inside B, O -> buffer; then a
 * buffer -> ordinary P -> shared C. Direct3D reads back bit-exact results. Each image has other
 * access flags (A read-only, B read-write, C write-only, O 0 as the Khronos CTS makes it, P
 * read-only): copies between images of one spec format work whatever their flags, also where
 * the driver's format lists differ by flag (the .quirks variants). */
static void seam_case(struct interop_env *env, const struct test_format *format, cl_kernel kernel,
                      uint32_t seed)
{
    const struct test_api *api = env->api;
    const struct test_cl_fns *cl = env->cl;
    const size_t element = (size_t)format->channels * format->channel_size;
    const size_t bytes = element * SEAM_W * SEAM_H;
    const size_t origin[3] = {0, 0, 0}, region[3] = {SEAM_W, SEAM_H, 1};
    const size_t box_src[3] = {0, 0, 0}, box_dst[3] = {9, 5, 0}, box[3] = {4, 3, 1};
    struct test_texture_desc desc = {SEAM_W, SEAM_H, 1, 1, 1, format->dxgi, TEST_USAGE_DEFAULT, 1};
    struct test_texture tex[3];
    unsigned char *back = malloc(bytes), *data = malloc(bytes);
    cl_mem shared[3], ordinary, other, buffer;
    size_t global[2] = {SEAM_W, SEAM_H};
    char what[160];
    cl_int err;

    REQUIRE(back && data, "out of memory");
    snprintf(what, sizeof(what), "%s seams %s", api->name, format->name);
    static const cl_mem_flags shared_flags[3] = {CL_MEM_READ_ONLY, CL_MEM_READ_WRITE,
                                                 CL_MEM_WRITE_ONLY};
    for (int i = 0; i < 3; i++) {
        REQUIRE(test_texture_create(api, env->d3d, &tex[i], &desc, false, seed + i), "%s: texture",
                what);
        shared[i] = cl->create_texture2d(env->context, shared_flags[i], tex[i].resource, 0, &err);
        REQUIRE(err == CL_SUCCESS, "%s: shared image %d: %d", what, i, err);
    }
    ordinary = ordinary_image(env, format, 0, what);
    other = ordinary_image(env, format, CL_MEM_READ_ONLY, what);
    buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "%s: buffer", what);

    CHECK_ERR(cl->acquire(env->queue, 3, shared, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueCopyImage(env->queue, shared[0], ordinary, origin, origin, region, 0, NULL, NULL),
        CL_SUCCESS);
    test_class_kernel_args(kernel, format, ordinary, shared[1]);
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(
        clEnqueueCopyImage(env->queue, shared[1], shared[1], box_src, box_dst, box, 0, NULL, NULL),
        CL_SUCCESS);
    /* image -> buffer: the spec's packed pixels */
    CHECK_ERR(
        clEnqueueCopyImageToBuffer(env->queue, ordinary, buffer, origin, region, 0, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, bytes, back, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(back, tex[0].data[0], bytes, what);
    /* the reverse: buffer -> ordinary -> shared */
    test_fill_random(data, bytes, format, seed + 99);
    CHECK_ERR(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 0, bytes, data, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(
        clEnqueueCopyBufferToImage(env->queue, buffer, other, 0, origin, region, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(
        clEnqueueCopyImage(env->queue, other, shared[2], origin, origin, region, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(cl->release(env->queue, 3, shared, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);

    test_class_expected(format, tex[0].data[0], tex[1].data[0], bytes);
    copy_box_model(tex[1].data[0], element, 0, 0, 9, 5, 4, 3);
    memcpy(tex[2].data[0], data, bytes);
    for (int i = 0; i < 3; i++)
        test_texture_intact(api, &tex[i], what);

    clReleaseMemObject(buffer);
    clReleaseMemObject(other);
    clReleaseMemObject(ordinary);
    for (int i = 0; i < 3; i++) {
        clReleaseMemObject(shared[i]);
        test_texture_free(api, &tex[i]);
    }
    free(data);
    free(back);
}

/* clGetSupportedImageFormats on the interop context lists every format of the table. */
static void seam_formats_listed(struct interop_env *env)
{
    static const cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D};
    cl_image_format list[512];
    cl_uint count = 0;

    for (size_t t = 0; t < 2; t++) {
        CHECK_ERR(clGetSupportedImageFormats(env->context, CL_MEM_READ_WRITE, types[t], 512, list,
                                             &count),
                  CL_SUCCESS);
        for (size_t i = 0; i < TEST_FORMAT_COUNT; i++) {
            bool found = false;
            for (cl_uint j = 0; j < count && j < 512; j++)
                found |= list[j].image_channel_order == test_formats[i].order &&
                         list[j].image_channel_data_type == test_formats[i].type;
            CHECK(found, "%s: %s listed for image type 0x%x", env->api->name, test_formats[i].name,
                  types[t]);
        }
    }
}

void suite_roundtrip_seams(const struct test_api *api)
{
    struct interop_env env;
    cl_kernel kernels[4] = {0};
    static const char *names[4] = {"neg2", "omx2", "xor2", "not2"};

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    seam_formats_listed(&env);
    for (size_t i = 0; i < TEST_FORMAT_COUNT; i++) {
        const char *name = test_class_kernel(test_formats[i].cls, false);
        size_t k = 0;
        while (strcmp(names[k], name))
            k++;
        if (!kernels[k])
            kernels[k] = interop_kernel(&env, name);
        seam_case(&env, &test_formats[i], kernels[k], (uint32_t)(i * 31 + 5));
    }
    for (size_t k = 0; k < 4; k++)
        if (kernels[k])
            clReleaseKernel(kernels[k]);
    interop_close(&env);
}
