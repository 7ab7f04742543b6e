/* Reference counts: a context holds one reference on the API's device while it lives, each
 * shared object one on its resource until its last OpenCL reference goes; everything returns
 * to the starting counts. The program may release its own Direct3D references first: the
 * objects keep working and the data still round-trips. */
#include "suites.h"

#include <stdlib.h>

#define W 8
#define H 4

static const struct test_texture_desc desc = {
    W, H, 1, 2, 2, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};

static void check_count(const struct test_api *api, void *object, ULONG want, const char *what)
{
    ULONG got = test_refcount_settled(object, want);

    CHECK(got == want, "%s: %s: count %lu, want %lu", api->name, what, got, want);
}

/* The program's last reference: dxcl's are gone once the driver is done with the objects. */
static ULONG release_last(const struct test_api *api, void *object)
{
    test_refcount_settled(object, 1);
    return api->release(object);
}

/* Objects created and destroyed one after another reuse one staging resource; objects of
 * many sizes fill the pool to its bound (8); the pool goes with the context. */
static void staging_pool(struct interop_env *env, void *device, cl_context_properties *props,
                         ULONG base)
{
    const struct test_api *api = env->api;
    cl_int err;
    cl_context ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "pool context: %d", err);
    for (int round = 0; round < 2; round++) {
        for (UINT size = 16; size < 16 + 12; size++) {
            void *buffer = api->create_buffer(device, round ? size : 64, TEST_USAGE_DEFAULT, NULL);
            REQUIRE(buffer, "buffer");
            cl_mem mem = env->cl->create_buffer(ctx, 0, buffer, &err);
            CHECK_ERR(err, CL_SUCCESS);
            CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
            test_com_release(buffer);
        }
        ULONG want = round ? 8 : 1;
        CHECK(interop_pooled_staging(ctx) == want,
              "%s: pooled staging after round %d: %lu, want %lu", api->name, round,
              interop_pooled_staging(ctx), want);
        check_count(api, device, base + 1 + want, "device with the pool");
    }
    CHECK_ERR(clReleaseContext(ctx), CL_SUCCESS);
    check_count(api, device, base, "pool gone with its context");
}

static void context_references(struct interop_env *env)
{
    const struct test_api *api = env->api;
    void *device = api->create_device();
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
                                     api->context_property, (cl_context_properties)device, 0};
    cl_int err;

    REQUIRE(device, "device");
    const ULONG base = api->refcount(device);
    cl_context ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    check_count(api, device, base + 1, "context created");
    CHECK_ERR(clRetainContext(ctx), CL_SUCCESS);
    check_count(api, device, base + 1, "context retained");
    CHECK_ERR(clReleaseContext(ctx), CL_SUCCESS);
    check_count(api, device, base + 1, "context released once of twice");
    /* A queue keeps the context (and so the device reference) alive. */
    cl_command_queue queue = clCreateCommandQueue(ctx, env->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    CHECK_ERR(clReleaseContext(ctx), CL_SUCCESS);
    check_count(api, device, base + 1, "context released, queue alive");
    CHECK_ERR(clReleaseCommandQueue(queue), CL_SUCCESS);
    check_count(api, device, base, "context and queue gone");

    /* clCreateContextFromType takes the same reference. */
    ctx = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context from type: %d", err);
    check_count(api, device, base + 1, "context from type");
    clReleaseContext(ctx);
    check_count(api, device, base, "context from type gone");

    /* A failed creation (here: a bad USER_SYNC value) keeps none. */
    cl_context_properties bad[] = {api->context_property, (cl_context_properties)device,
                                   CL_CONTEXT_INTEROP_USER_SYNC, 3, 0};
    ctx = clCreateContext(bad, 1, &env->device, NULL, NULL, &err);
    CHECK(!ctx && err == CL_INVALID_PROPERTY, "bad context: %p %d", (void *)ctx, err);
    check_count(api, device, base, "failed context");
    staging_pool(env, device, props, base);
    CHECK(release_last(api, device) == 0, "%s: the device outlived its last reference", api->name);
}

static void resource_references(struct interop_env *env)
{
    const struct test_api *api = env->api;
    struct test_texture tex;
    unsigned char data[64] = {5};
    void *buffer = api->create_buffer(env->d3d, sizeof(data), TEST_USAGE_DEFAULT, data);
    cl_int err;

    REQUIRE(buffer, "buffer");
    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, false, 1), "texture");
    /* Staging resources the context keeps for reuse hold device references of their own. */
    const ULONG device_base = api->refcount(env->d3d) - interop_pooled_staging(env->context);
    const ULONG buffer_base = api->refcount(buffer);
    const ULONG tex_base = api->refcount(tex.resource);

    cl_mem mb = env->cl->create_buffer(env->context, 0, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "buffer object: %d", err);
    check_count(api, buffer, buffer_base + 1, "buffer object");
    cl_mem m0 = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "texture object 0: %d", err);
    check_count(api, tex.resource, tex_base + 1, "one texture object");
    cl_mem m3 = env->cl->create_texture2d(env->context, 0, tex.resource, 3, &err);
    REQUIRE(err == CL_SUCCESS, "texture object 3: %d", err);
    check_count(api, tex.resource, tex_base + 2, "two texture objects");
    /* A failed creation adds nothing. */
    cl_mem dup = env->cl->create_texture2d(env->context, 0, tex.resource, 3, &err);
    CHECK(!dup && err == api->err_invalid_resource, "duplicate: %p %d", (void *)dup, err);
    check_count(api, tex.resource, tex_base + 2, "after a failed creation");

    /* OpenCL references: the resource's count moves only with the last one. */
    CHECK_ERR(clRetainMemObject(m0), CL_SUCCESS);
    check_count(api, tex.resource, tex_base + 2, "texture object retained");
    CHECK_ERR(clReleaseMemObject(m0), CL_SUCCESS);
    check_count(api, tex.resource, tex_base + 2, "texture object released once of twice");
    /* Acquire and release do not change it either. */
    cl_mem all[3] = {mb, m0, m3};
    CHECK_ERR(env->cl->acquire(env->queue, 3, all, 0, NULL, NULL), CL_SUCCESS);
    check_count(api, tex.resource, tex_base + 2, "acquired");
    CHECK_ERR(env->cl->release(env->queue, 3, all, 0, NULL, NULL), CL_SUCCESS);
    check_count(api, tex.resource, tex_base + 2, "released");
    check_count(api, buffer, buffer_base + 1, "released");
    CHECK_ERR(clReleaseMemObject(m0), CL_SUCCESS);
    check_count(api, tex.resource, tex_base + 1, "first texture object gone");
    CHECK_ERR(clReleaseMemObject(m3), CL_SUCCESS);
    check_count(api, tex.resource, tex_base, "texture objects gone");
    CHECK_ERR(clReleaseMemObject(mb), CL_SUCCESS);
    check_count(api, buffer, buffer_base, "buffer object gone");
    /* dxcl's own Direct3D objects (staging copies) are gone with them. */
    check_count(api, env->d3d, device_base + interop_pooled_staging(env->context),
                "device after the objects");

    /* An object released while acquired gives its reference back too. */
    mb = env->cl->create_buffer(env->context, 0, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "buffer object: %d", err);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mb, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(mb), CL_SUCCESS);
    check_count(api, buffer, buffer_base, "buffer object released while acquired");
    check_count(api, env->d3d, device_base + interop_pooled_staging(env->context),
                "device after an object released while acquired");

    CHECK(release_last(api, buffer) == 0, "%s: the buffer outlived its last reference", api->name);
    test_texture_free(api, &tex);
}

/* The program drops its Direct3D references before the OpenCL objects. */
static void release_first(struct interop_env *env)
{
    const struct test_api *api = env->api;
    struct test_texture src, dst;
    cl_kernel kernel = interop_kernel(env, "not2");
    const size_t bytes = W * H * 4;
    unsigned char *want = malloc(bytes), *got = malloc(bytes);
    struct test_texture_desc d = desc;
    cl_int err;

    REQUIRE(want && got, "out of memory");
    d.format = DXGI_FORMAT_R8G8B8A8_SINT;
    REQUIRE(test_texture_create(api, env->d3d, &src, &d, false, 2), "src");
    REQUIRE(test_texture_create(api, env->d3d, &dst, &d, false, 3), "dst");
    cl_mem mems[2];
    mems[0] = env->cl->create_texture2d(env->context, CL_MEM_READ_ONLY, src.resource, 2, &err);
    REQUIRE(err == CL_SUCCESS, "src object: %d", err);
    mems[1] = env->cl->create_texture2d(env->context, CL_MEM_WRITE_ONLY, dst.resource, 2, &err);
    REQUIRE(err == CL_SUCCESS, "dst object: %d", err);
    /* Only the objects hold the textures now. */
    CHECK(api->release(src.resource) == 1, "src count after the program's release");
    CHECK(api->release(dst.resource) == 1, "dst count after the program's release");
    void *dst_resource = dst.resource;
    src.resource = dst.resource = NULL;

    CHECK_ERR(env->cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &mems[0]), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(cl_mem), &mems[1]), CL_SUCCESS);
    size_t global[2] = {W, H};
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);

    /* The object still names its resource; read through it (with a reference of our own). */
    void *resource = NULL;
    CHECK_ERR(
        clGetMemObjectInfo(mems[1], api->mem_resource_query, sizeof(resource), &resource, NULL),
        CL_SUCCESS);
    CHECK(resource == dst_resource, "resource query after the program's release: %p, want %p",
          resource, dst_resource);
    if (resource == dst_resource) {
        check_count(api, resource, 1, "dst held by its object only");
        IUnknown_AddRef((IUnknown *)resource);
        for (size_t i = 0; i < bytes; i++)
            want[i] = (unsigned char)~((unsigned char *)src.data[2])[i];
        CHECK(api->read_subresource(resource, 2, got), "read dst");
        test_same_bytes(got, want, bytes, "round trip after the program released the textures");
        /* The other subresources were not touched. */
        CHECK(api->read_subresource(resource, 0, got), "read dst 0");
        test_same_bytes(got, dst.data[0], bytes, "dst subresource 0");
        CHECK_ERR(clReleaseMemObject(mems[1]), CL_SUCCESS);
        check_count(api, resource, 1, "dst after its object is gone");
        CHECK(release_last(api, resource) == 0, "dst outlived its last reference");
    } else {
        clReleaseMemObject(mems[1]);
    }
    CHECK_ERR(clReleaseMemObject(mems[0]), CL_SUCCESS);
    clReleaseKernel(kernel);
    test_texture_free(api, &src);
    test_texture_free(api, &dst);
    free(want);
    free(got);
}

/* The program drops the device and the context before the objects: they keep working. */
static void device_first(struct interop_env *env)
{
    const struct test_api *api = env->api;
    void *device = api->create_device();
    unsigned char data[64], got[64];
    cl_context_properties props[] = {api->context_property, (cl_context_properties)device, 0};
    cl_int err;

    REQUIRE(device, "device");
    test_fill_bytes(data, sizeof(data), 9);
    void *buffer = api->create_buffer(device, sizeof(data), TEST_USAGE_DEFAULT, data);
    REQUIRE(buffer, "buffer");
    cl_context ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    cl_command_queue queue = clCreateCommandQueue(ctx, env->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    cl_mem mem = env->cl->create_buffer(ctx, 0, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "buffer object: %d", err);
    CHECK_ERR(clReleaseContext(ctx), CL_SUCCESS);
    api->release(device); /* the buffer and the context still hold it */
    CHECK_ERR(env->cl->acquire(queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    cl_uint pattern = 0x01020304;
    CHECK_ERR(clEnqueueFillBuffer(queue, mem, &pattern, 4, 0, sizeof(data), 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(env->cl->release(queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    for (size_t i = 0; i < sizeof(data); i += 4)
        memcpy(data + i, &pattern, 4);
    CHECK(api->read_subresource(buffer, 0, got), "read buffer");
    test_same_bytes(got, data, sizeof(data), "round trip after the program released the device");
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    CHECK_ERR(clReleaseCommandQueue(queue), CL_SUCCESS);
    /* The context is gone now: only the buffer holds the device. */
    CHECK(release_last(api, buffer) == 0, "the buffer outlived its last reference");
}

void suite_lifetime(const struct test_api *api)
{
    struct interop_env env;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    context_references(&env);
    resource_references(&env);
    release_first(&env);
    device_first(&env);
    interop_close(&env);
}
