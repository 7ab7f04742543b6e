/* Creating shared objects from buffers, 2D and 3D textures: every error of the spec, each
 * checked to leave nothing behind (no object, no reference on the resource, the Direct3D data
 * intact), and what the object queries answer. */
#include "suites.h"

#include <stdlib.h>

static char garbage[4096]; /* zeroed memory that is no OpenCL or COM object */

struct fixture {
    struct interop_env env;
    void *buffer;
    unsigned char buffer_data[64];
    struct test_texture tex2d; /* R8G8B8A8_UNORM 8x4, 2 mips, 2 slices: 4 subresources */
    struct test_texture tex3d; /* R8G8B8A8_UNORM 4x4x4, 2 mips */
};

static void open_fixture(struct fixture *f, const struct test_api *api)
{
    struct test_texture_desc d2 = {8, 4, 1, 2, 2, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT,
                                   1};
    struct test_texture_desc d3 = {4, 4, 4, 2, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT,
                                   1};

    interop_open(&f->env, api, INTEROP_NO_USER_SYNC, 0);
    test_fill_bytes(f->buffer_data, sizeof(f->buffer_data), 1);
    f->buffer =
        api->create_buffer(f->env.d3d, sizeof(f->buffer_data), TEST_USAGE_DEFAULT, f->buffer_data);
    REQUIRE(f->buffer, "%s: buffer", api->name);
    REQUIRE(test_texture_create(api, f->env.d3d, &f->tex2d, &d2, false, 2), "2D texture");
    REQUIRE(test_texture_create(api, f->env.d3d, &f->tex3d, &d3, true, 3), "3D texture");
}

static void close_fixture(struct fixture *f)
{
    f->env.api->release(f->buffer);
    test_texture_free(f->env.api, &f->tex2d);
    test_texture_free(f->env.api, &f->tex3d);
    interop_close(&f->env);
}

enum kind { BUFFER, TEX2D, TEX3D };

static cl_mem create(const struct interop_env *env, enum kind kind, cl_context context,
                     cl_mem_flags flags, void *resource, UINT subresource, cl_int *err)
{
    switch (kind) {
    case BUFFER:
        return env->cl->create_buffer(context, flags, resource, err);
    case TEX2D:
        return env->cl->create_texture2d(context, flags, resource, subresource, err);
    default:
        return env->cl->create_texture3d(context, flags, resource, subresource, err);
    }
}

static const char *kind_name[] = {"buffer", "Texture2D", "Texture3D"};

/* A create call that must fail with `want`, leaving no object and no reference. When
 * `resource` is a real resource, its reference count is compared (the data is compared by
 * the callers once per group). */
static void expect_failure(const struct interop_env *env, enum kind kind, cl_context context,
                           cl_mem_flags flags, void *resource, bool is_com, UINT subresource,
                           cl_int want, const char *what)
{
    const struct test_api *api = env->api;
    ULONG before = is_com ? api->refcount(resource) : 0;
    cl_int err = CL_SUCCESS;
    cl_mem mem = create(env, kind, context, flags, resource, subresource, &err);

    CHECK(mem == NULL && err == want, "%s %s: create returned %p, error %d, want %d", api->name,
          what, (void *)mem, err, want);
    if (mem)
        clReleaseMemObject(mem);
    /* Without errcode_ret too. */
    mem = create(env, kind, context, flags, resource, subresource, NULL);
    CHECK(mem == NULL, "%s %s (no errcode_ret): returned %p", api->name, what, (void *)mem);
    if (mem)
        clReleaseMemObject(mem);
    if (is_com)
        CHECK(api->refcount(resource) == before, "%s %s: resource count %lu, want %lu", api->name,
              what, api->refcount(resource), before);
}

static void check_data(struct fixture *f, const char *what)
{
    unsigned char got[sizeof(f->buffer_data)];
    char label[160];

    snprintf(label, sizeof(label), "%s: %s: buffer", f->env.api->name, what);
    CHECK(f->env.api->read_subresource(f->buffer, 0, got), "%s: read", label);
    test_same_bytes(got, f->buffer_data, sizeof(got), label);
    snprintf(label, sizeof(label), "%s: %s: 2D texture", f->env.api->name, what);
    test_texture_intact(f->env.api, &f->tex2d, label);
    snprintf(label, sizeof(label), "%s: %s: 3D texture", f->env.api->name, what);
    test_texture_intact(f->env.api, &f->tex3d, label);
}

static void *resource_of(struct fixture *f, enum kind kind)
{
    return kind == BUFFER ? f->buffer : kind == TEX2D ? f->tex2d.resource : f->tex3d.resource;
}

static void context_errors(struct fixture *f)
{
    struct interop_env *env = &f->env;
    cl_context_properties sync_only[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
    cl_context plain, sync;
    cl_int err;

    plain = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    sync = clCreateContext(sync_only, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "USER_SYNC context: %d", err);
    for (enum kind k = BUFFER; k <= TEX3D; k++) {
        char what[96];
        snprintf(what, sizeof(what), "%s in a garbage context", kind_name[k]);
        expect_failure(env, k, (cl_context)garbage, 0, resource_of(f, k), true, 0,
                       CL_INVALID_CONTEXT, what);
        snprintf(what, sizeof(what), "%s in a NULL context", kind_name[k]);
        expect_failure(env, k, NULL, 0, resource_of(f, k), true, 0, CL_INVALID_CONTEXT, what);
        snprintf(what, sizeof(what), "%s in a context without the device", kind_name[k]);
        expect_failure(env, k, plain, 0, resource_of(f, k), true, 0, CL_INVALID_CONTEXT, what);
        snprintf(what, sizeof(what), "%s in a USER_SYNC-only context", kind_name[k]);
        expect_failure(env, k, sync, 0, resource_of(f, k), true, 0, CL_INVALID_CONTEXT, what);
    }
    clReleaseContext(plain);
    clReleaseContext(sync);
}

static void value_errors(struct fixture *f)
{
    static const cl_mem_flags bad_flags[] = {
        CL_MEM_USE_HOST_PTR,
        CL_MEM_COPY_HOST_PTR,
        CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
        CL_MEM_HOST_NO_ACCESS,
        (cl_mem_flags)1 << 40,
    };
    struct interop_env *env = &f->env;

    for (enum kind k = BUFFER; k <= TEX3D; k++) {
        for (size_t i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++) {
            char what[96];
            snprintf(what, sizeof(what), "%s with flags 0x%llx", kind_name[k],
                     (unsigned long long)bad_flags[i]);
            expect_failure(env, k, env->context, bad_flags[i], resource_of(f, k), true, 0,
                           CL_INVALID_VALUE, what);
        }
    }
    /* Subresources out of range: 2D has mips * slices = 4, 3D has 2 mips. */
    expect_failure(env, TEX2D, env->context, 0, f->tex2d.resource, true, 4, CL_INVALID_VALUE,
                   "Texture2D subresource 4 of 4");
    expect_failure(env, TEX2D, env->context, 0, f->tex2d.resource, true, 0xffffffffu,
                   CL_INVALID_VALUE, "Texture2D subresource 0xffffffff");
    expect_failure(env, TEX3D, env->context, 0, f->tex3d.resource, true, 2, CL_INVALID_VALUE,
                   "Texture3D subresource 2 of 2");
    expect_failure(env, TEX3D, env->context, 0, f->tex3d.resource, true, 0xffffffffu,
                   CL_INVALID_VALUE, "Texture3D subresource 0xffffffff");
}

static void resource_errors(struct fixture *f)
{
    struct interop_env *env = &f->env;
    const struct test_api *api = env->api;
    const cl_int bad = api->err_invalid_resource;
    cl_context ctx = env->context;
    cl_int err;

    /* The wrong kind of resource for each function. */
    expect_failure(env, BUFFER, ctx, 0, f->tex2d.resource, true, 0, bad, "buffer from a 2D");
    expect_failure(env, BUFFER, ctx, 0, f->tex3d.resource, true, 0, bad, "buffer from a 3D");
    expect_failure(env, TEX2D, ctx, 0, f->buffer, true, 0, bad, "Texture2D from a buffer");
    expect_failure(env, TEX2D, ctx, 0, f->tex3d.resource, true, 0, bad, "Texture2D from a 3D");
    expect_failure(env, TEX3D, ctx, 0, f->buffer, true, 0, bad, "Texture3D from a buffer");
    expect_failure(env, TEX3D, ctx, 0, f->tex2d.resource, true, 0, bad, "Texture3D from a 2D");
    /* Objects that are no resource at all. */
    for (enum kind k = BUFFER; k <= TEX3D; k++) {
        char what[96];
        snprintf(what, sizeof(what), "%s from the device", kind_name[k]);
        expect_failure(env, k, ctx, 0, env->d3d, true, 0, bad, what);
        snprintf(what, sizeof(what), "%s from garbage", kind_name[k]);
        expect_failure(env, k, ctx, 0, garbage, false, 0, bad, what);
        snprintf(what, sizeof(what), "%s from NULL", kind_name[k]);
        expect_failure(env, k, ctx, 0, NULL, false, 0, bad, what);
    }

    /* IMMUTABLE usage. */
    {
        unsigned char data[64] = {1, 2, 3};
        struct test_texture_desc d2 = {
            8, 4, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_IMMUTABLE, 1};
        struct test_texture_desc d3 = {
            4, 4, 4, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_IMMUTABLE, 1};
        struct test_texture t2, t3;
        void *buffer = api->create_buffer(env->d3d, sizeof(data), TEST_USAGE_IMMUTABLE, data);

        REQUIRE(buffer, "immutable buffer");
        REQUIRE(test_texture_create(api, env->d3d, &t2, &d2, false, 4), "immutable 2D");
        REQUIRE(test_texture_create(api, env->d3d, &t3, &d3, true, 5), "immutable 3D");
        expect_failure(env, BUFFER, ctx, 0, buffer, true, 0, bad, "IMMUTABLE buffer");
        expect_failure(env, TEX2D, ctx, 0, t2.resource, true, 0, bad, "IMMUTABLE Texture2D");
        expect_failure(env, TEX3D, ctx, 0, t3.resource, true, 0, bad, "IMMUTABLE Texture3D");
        test_texture_intact(api, &t2, "IMMUTABLE Texture2D");
        test_texture_intact(api, &t3, "IMMUTABLE Texture3D");
        api->release(buffer);
        test_texture_free(api, &t2);
        test_texture_free(api, &t3);
    }

    /* Multisampled 2D texture. */
    {
        struct test_texture_desc dm = {
            8, 4, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 4};
        UINT levels = api->msaa_quality_levels(env->d3d, DXGI_FORMAT_R8G8B8A8_UNORM, 4);
        void *msaa;

        REQUIRE(levels > 0, "%s: 4x MSAA R8G8B8A8_UNORM is not supported by the device", api->name);
        msaa = api->create_texture2d(env->d3d, &dm, NULL);
        REQUIRE(msaa, "4x MSAA texture");
        expect_failure(env, TEX2D, ctx, 0, msaa, true, 0, bad, "4x multisampled Texture2D");
        api->release(msaa);
    }

    /* A second object of the same resource or subresource. */
    {
        ULONG before = api->refcount(f->buffer);
        cl_mem first = env->cl->create_buffer(ctx, 0, f->buffer, &err);
        CHECK(first && err == CL_SUCCESS, "first buffer object: %d", err);
        expect_failure(env, BUFFER, ctx, 0, f->buffer, true, 0, bad, "second buffer object");
        expect_failure(env, BUFFER, ctx, CL_MEM_READ_ONLY, f->buffer, true, 0, bad,
                       "second buffer object, other flags");
        /* The first one is unharmed: it still acquires and releases. */
        CHECK_ERR(env->cl->acquire(env->queue, 1, &first, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 1, &first, 0, NULL, NULL), CL_SUCCESS);
        clReleaseMemObject(first);
        CHECK(api->refcount(f->buffer) == before,
              "buffer count after the first object: %lu, "
              "want %lu",
              api->refcount(f->buffer), before);
        /* Once it is gone, a new one can be made. */
        first = env->cl->create_buffer(ctx, 0, f->buffer, &err);
        CHECK(first && err == CL_SUCCESS, "buffer object after the first was released: %d", err);
        if (first)
            clReleaseMemObject(first);
    }
    {
        cl_mem sub3 = env->cl->create_texture2d(ctx, 0, f->tex2d.resource, 3, &err);
        CHECK(sub3 && err == CL_SUCCESS, "Texture2D subresource 3: %d", err);
        expect_failure(env, TEX2D, ctx, 0, f->tex2d.resource, true, 3, bad,
                       "second Texture2D object of subresource 3");
        /* Other subresources of the same texture are fine. */
        cl_mem sub1 = env->cl->create_texture2d(ctx, 0, f->tex2d.resource, 1, &err);
        CHECK(sub1 && err == CL_SUCCESS, "Texture2D subresource 1 beside 3: %d", err);
        cl_mem both[2] = {sub3, sub1};
        CHECK_ERR(env->cl->acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
        clReleaseMemObject(sub1);
        clReleaseMemObject(sub3);

        cl_mem vol = env->cl->create_texture3d(ctx, 0, f->tex3d.resource, 1, &err);
        CHECK(vol && err == CL_SUCCESS, "Texture3D subresource 1: %d", err);
        expect_failure(env, TEX3D, ctx, 0, f->tex3d.resource, true, 1, bad,
                       "second Texture3D object of subresource 1");
        clReleaseMemObject(vol);
    }

    /* Resources of another device of the same API. */
    {
        void *other = api->create_device();
        struct test_texture t2, t3;
        struct test_texture_desc d2 = {
            8, 4, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
        struct test_texture_desc d3 = {
            4, 4, 4, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
        unsigned char data[64] = {9};
        void *buffer;

        REQUIRE(other, "second device");
        buffer = api->create_buffer(other, sizeof(data), TEST_USAGE_DEFAULT, data);
        REQUIRE(buffer, "buffer on the second device");
        REQUIRE(test_texture_create(api, other, &t2, &d2, false, 6), "2D on the second device");
        REQUIRE(test_texture_create(api, other, &t3, &d3, true, 7), "3D on the second device");
        expect_failure(env, BUFFER, ctx, 0, buffer, true, 0, bad, "buffer of another device");
        expect_failure(env, TEX2D, ctx, 0, t2.resource, true, 0, bad,
                       "Texture2D of another device");
        expect_failure(env, TEX3D, ctx, 0, t3.resource, true, 0, bad,
                       "Texture3D of another device");
        test_texture_intact(api, &t2, "Texture2D of another device");
        api->release(buffer);
        test_texture_free(api, &t2);
        test_texture_free(api, &t3);
        api->release(other);
    }
}

static void format_errors(struct fixture *f)
{
    static const DXGI_FORMAT not_in_table[] = {
        DXGI_FORMAT_R10G10B10A2_UNORM, DXGI_FORMAT_R8G8B8A8_UNORM_SRGB,
        DXGI_FORMAT_B8G8R8X8_UNORM,    DXGI_FORMAT_B8G8R8A8_UNORM_SRGB,
        DXGI_FORMAT_R11G11B10_FLOAT,   DXGI_FORMAT_A8_UNORM,
    };
    struct interop_env *env = &f->env;
    const struct test_api *api = env->api;

    for (size_t i = 0; i < sizeof(not_in_table) / sizeof(not_in_table[0]); i++) {
        for (int is_3d = 0; is_3d < 2; is_3d++) {
            struct test_texture_desc desc = {
                8, 4, is_3d ? 2 : 1, 1, 1, not_in_table[i], TEST_USAGE_DEFAULT, 1};
            struct test_texture tex;
            char what[96];

            snprintf(what, sizeof(what), "%s of DXGI format %d", is_3d ? "Texture3D" : "Texture2D",
                     (int)not_in_table[i]);
            REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, is_3d, 8 + (uint32_t)i),
                    "%s: texture not created", what);
            expect_failure(env, is_3d ? TEX3D : TEX2D, env->context, 0, tex.resource, true, 0,
                           CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, what);
            test_texture_intact(api, &tex, what);
            test_texture_free(api, &tex);
        }
    }
}

/* ---- Queries ---- */

static void query_checks(struct fixture *f)
{
    struct interop_env *env = &f->env;
    const struct test_api *api = env->api;
    const struct test_format *rgba8 = test_format_find(DXGI_FORMAT_R8G8B8A8_UNORM);
    cl_int err;

    cl_mem buf = env->cl->create_buffer(env->context, CL_MEM_READ_ONLY, f->buffer, &err);
    REQUIRE(err == CL_SUCCESS, "buffer object: %d", err);
    interop_check_buffer(env, buf, sizeof(f->buffer_data), CL_MEM_READ_ONLY, f->buffer, "buffer");
    /* The query's size conventions. */
    {
        size_t ret = 0;
        void *value = NULL;
        CHECK_ERR(clGetMemObjectInfo(buf, api->mem_resource_query, 0, NULL, &ret), CL_SUCCESS);
        CHECK(ret == sizeof(void *), "resource query size %zu", ret);
        CHECK_ERR(
            clGetMemObjectInfo(buf, api->mem_resource_query, sizeof(void *) - 1, &value, NULL),
            CL_INVALID_VALUE);
        CHECK(value == NULL, "a too small buffer was written");
    }
    clReleaseMemObject(buf);

    /* 2D: subresource 3 is mip 1 of slice 1 (4x2); 3D: mip 1 is 2x2x2. */
    cl_mem t2 =
        env->cl->create_texture2d(env->context, CL_MEM_WRITE_ONLY, f->tex2d.resource, 3, &err);
    REQUIRE(err == CL_SUCCESS, "2D object: %d", err);
    interop_check_image(env, t2, rgba8, false, 4, 2, 1, CL_MEM_WRITE_ONLY, f->tex2d.resource, 3,
                        "Texture2D subresource 3");
    {
        size_t ret = 0;
        cl_uint sub = 0;
        CHECK_ERR(clGetImageInfo(t2, api->image_subresource_query, 0, NULL, &ret), CL_SUCCESS);
        CHECK(ret == sizeof(cl_uint), "subresource query size %zu", ret);
        CHECK_ERR(clGetImageInfo(t2, api->image_subresource_query, 1, &sub, NULL),
                  CL_INVALID_VALUE);
    }
    clReleaseMemObject(t2);
    cl_mem t3 =
        env->cl->create_texture3d(env->context, CL_MEM_READ_WRITE, f->tex3d.resource, 1, &err);
    REQUIRE(err == CL_SUCCESS, "3D object: %d", err);
    interop_check_image(env, t3, rgba8, true, 2, 2, 2, CL_MEM_READ_WRITE, f->tex3d.resource, 1,
                        "Texture3D subresource 1");
    clReleaseMemObject(t3);

    /* Emulated (CL_RG) and native formats of other sizes: the spec's format and sizes. */
    static const DXGI_FORMAT formats[] = {
        DXGI_FORMAT_R8G8_UNORM, DXGI_FORMAT_R32G32_FLOAT,   DXGI_FORMAT_R16G16_SINT,
        DXGI_FORMAT_R16_UNORM,  DXGI_FORMAT_B8G8R8A8_UNORM, DXGI_FORMAT_R32G32B32A32_UINT};
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        const struct test_format *format = test_format_find(formats[i]);
        for (int is_3d = 0; is_3d < 2; is_3d++) {
            struct test_texture_desc desc = {7, 5, 3, 2, 1, formats[i], TEST_USAGE_DEFAULT, 1};
            struct test_texture tex;
            char what[96];
            cl_mem mem;

            snprintf(what, sizeof(what), "%s %s mip 1", format->name, is_3d ? "3D" : "2D");
            REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, is_3d, 40 + (uint32_t)i), "%s",
                    what);
            mem = (is_3d ? env->cl->create_texture3d : env->cl->create_texture2d)(
                env->context, CL_MEM_READ_ONLY, tex.resource, 1, &err);
            CHECK(mem && err == CL_SUCCESS, "%s: %d", what, err);
            if (mem) {
                interop_check_image(env, mem, format, is_3d, 3, 2, 1, CL_MEM_READ_ONLY,
                                    tex.resource, 1, what);
                clReleaseMemObject(mem);
            }
            test_texture_free(api, &tex);
        }
    }

    /* Objects not made from a resource: the API's queries refuse them. */
    cl_mem plain = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain buffer: %d", err);
    cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4};
    cl_mem plain_image = clCreateImage(env->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain image: %d", err);
    void *resource = (void *)1;
    cl_uint sub = 77;
    CHECK_ERR(clGetMemObjectInfo(plain, api->mem_resource_query, sizeof(resource), &resource, NULL),
              api->err_invalid_resource);
    CHECK_ERR(
        clGetMemObjectInfo(plain_image, api->mem_resource_query, sizeof(resource), &resource, NULL),
        api->err_invalid_resource);
    CHECK_ERR(clGetImageInfo(plain_image, api->image_subresource_query, sizeof(sub), &sub, NULL),
              api->err_invalid_resource);
    CHECK(resource == (void *)1 && sub == 77, "a refused query wrote its output");
    /* A handle that is no memory object at all. */
    CHECK_ERR(clGetMemObjectInfo((cl_mem)garbage, api->mem_resource_query, sizeof(resource),
                                 &resource, NULL),
              CL_INVALID_MEM_OBJECT);
    clReleaseMemObject(plain);
    clReleaseMemObject(plain_image);
}

void suite_create(const struct test_api *api)
{
    struct fixture f;
    cl_int err;

    open_fixture(&f, api);
    /* flags 0 is valid (the CTS uses it). */
    for (enum kind k = BUFFER; k <= TEX3D; k++) {
        cl_mem mem = create(&f.env, k, f.env.context, 0, resource_of(&f, k), 0, &err);
        CHECK(mem && err == CL_SUCCESS, "%s: %s with flags 0: %d", api->name, kind_name[k], err);
        if (mem)
            clReleaseMemObject(mem);
    }
    context_errors(&f);
    value_errors(&f);
    check_data(&f, "after context and value errors");
    resource_errors(&f);
    format_errors(&f);
    check_data(&f, "after resource and format errors");
    query_checks(&f);
    close_fixture(&f);
}
