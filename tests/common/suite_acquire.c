/* Acquire and release: every error of the spec (and that a failed call changes nothing), the
 * enqueue guard (a command using a shared object that is not acquired fails with the API's
 * NOT_ACQUIRED error), and every host transfer on acquired objects with the data checked
 * in Direct3D after the release. */
#include "suites.h"

#include <stdlib.h>

#define BUF_SIZE 256
#define IMG_W 8
#define IMG_H 4
#define IMG_BYTES (IMG_W * IMG_H * 4)

/* Zeroed memory that is no OpenCL object: big enough that a driver peeking inside a handle
 * reads mapped memory. */
static char garbage[4096];

struct objects {
    void *buffer;                /* D3D buffer, BUF_SIZE bytes */
    struct test_texture texture; /* R8G8B8A8_UNORM IMG_W x IMG_H */
    unsigned char buffer_data[BUF_SIZE];
    cl_mem mb, mt; /* shared */
    cl_mem pb, pi; /* plain buffer and image of the same sizes */
};

static void open_objects(struct interop_env *env, struct objects *o)
{
    const struct test_api *api = env->api;
    struct test_texture_desc desc = {
        IMG_W, IMG_H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
    cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc image = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = IMG_W, .image_height = IMG_H};
    cl_int err;

    memset(o, 0, sizeof(*o));
    test_fill_bytes(o->buffer_data, BUF_SIZE, 11);
    o->buffer = api->create_buffer(env->d3d, BUF_SIZE, TEST_USAGE_DEFAULT, o->buffer_data);
    REQUIRE(o->buffer, "%s: buffer", api->name);
    REQUIRE(test_texture_create(api, env->d3d, &o->texture, &desc, false, 12), "%s: texture",
            api->name);
    o->mb = env->cl->create_buffer(env->context, CL_MEM_READ_WRITE, o->buffer, &err);
    REQUIRE(err == CL_SUCCESS && o->mb, "%s: shared buffer: %d", api->name, err);
    o->mt =
        env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, o->texture.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS && o->mt, "%s: shared image: %d", api->name, err);
    o->pb = clCreateBuffer(env->context, CL_MEM_READ_WRITE, BUF_SIZE, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain buffer: %d", err);
    o->pi = clCreateImage(env->context, CL_MEM_READ_WRITE, &format, &image, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain image: %d", err);
}

static void close_objects(struct interop_env *env, struct objects *o)
{
    clReleaseMemObject(o->mb);
    clReleaseMemObject(o->mt);
    clReleaseMemObject(o->pb);
    clReleaseMemObject(o->pi);
    env->api->release(o->buffer);
    test_texture_free(env->api, &o->texture);
}

/* The Direct3D contents equal the model. */
static void check_d3d(struct interop_env *env, struct objects *o, const char *what)
{
    unsigned char got[BUF_SIZE];
    char label[160];

    snprintf(label, sizeof(label), "%s: %s: D3D buffer", env->api->name, what);
    CHECK(env->api->read_subresource(o->buffer, 0, got), "%s: read", label);
    test_same_bytes(got, o->buffer_data, BUF_SIZE, label);
    snprintf(label, sizeof(label), "%s: %s: D3D texture", env->api->name, what);
    test_texture_intact(env->api, &o->texture, label);
}

/* ---- Errors of acquire and release ---- */

static void check_command_type(cl_event event, cl_command_type want, const char *what)
{
    cl_command_type type = 0;

    CHECK(event != NULL, "%s: no event", what);
    if (!event)
        return;
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == want, "%s: command type 0x%x, want 0x%x", what, type, want);
}

static void acquire_errors(struct interop_env *env, struct objects *o)
{
    const struct test_cl_fns *cl = env->cl;
    const struct test_api *api = env->api;
    test_acquire_fn fns[2] = {cl->acquire, cl->release};
    const char *names[2] = {"acquire", "release"};
    cl_int err;

    for (int i = 0; i < 2; i++) {
        test_acquire_fn fn = fns[i];
        cl_event event = NULL;
        cl_mem garbage_mem = (cl_mem)garbage;

        /* The object list. */
        CHECK_ERR(fn(env->queue, 0, &o->mb, 0, NULL, &event), CL_INVALID_VALUE);
        CHECK(event == NULL, "%s: failed call created an event", names[i]);
        CHECK_ERR(fn(env->queue, 1, NULL, 0, NULL, &event), CL_INVALID_VALUE);
        CHECK(event == NULL, "%s: failed call created an event", names[i]);
        CHECK_ERR(fn(env->queue, 0, NULL, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(fn(env->queue, 0, NULL, 0, NULL, &event), CL_SUCCESS);
        check_command_type(event, i ? api->command_release : api->command_acquire, names[i]);
        if (event) {
            CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
            CHECK_ERR(clReleaseEvent(event), CL_SUCCESS);
            event = NULL;
        }
        /* Objects that are not shared. */
        CHECK_ERR(fn(env->queue, 1, &o->pb, 0, NULL, &event), CL_INVALID_MEM_OBJECT);
        CHECK_ERR(fn(env->queue, 1, &o->pi, 0, NULL, &event), CL_INVALID_MEM_OBJECT);
        CHECK_ERR(fn(env->queue, 1, &garbage_mem, 0, NULL, &event), CL_INVALID_MEM_OBJECT);
        cl_mem mixed[2] = {o->mb, o->pb};
        err = fn(env->queue, 2, mixed, 0, NULL, &event);
        /* Release: mb is not acquired either; the spec orders no errors. */
        CHECK(err == CL_INVALID_MEM_OBJECT || (i == 1 && err == api->err_not_acquired),
              "%s of a shared and a plain object: %d", names[i], err);
        CHECK(event == NULL, "%s: failed call created an event", names[i]);
        /* The queue. */
        CHECK_ERR(fn((cl_command_queue)garbage, 1, &o->mb, 0, NULL, &event),
                  CL_INVALID_COMMAND_QUEUE);
        CHECK_ERR(fn(NULL, 1, &o->mb, 0, NULL, &event), CL_INVALID_COMMAND_QUEUE);
        CHECK(event == NULL, "%s: failed call created an event", names[i]);
    }

    /* A queue of a context without the API's device. */
    cl_context plain = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    cl_command_queue plain_queue = clCreateCommandQueue(plain, env->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "plain queue: %d", err);
    CHECK_ERR(cl->acquire(plain_queue, 1, &o->mb, 0, NULL, NULL), CL_INVALID_CONTEXT);
    CHECK_ERR(cl->release(plain_queue, 1, &o->mb, 0, NULL, NULL), CL_INVALID_CONTEXT);
    clReleaseCommandQueue(plain_queue);
    clReleaseContext(plain);

    /* Acquire twice; release without acquire and twice. A failed call changes no state. */
    cl_event event = NULL;
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 0, NULL, &event), api->err_not_acquired);
    CHECK_ERR(cl->acquire(env->queue, 1, &o->mb, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(cl->acquire(env->queue, 1, &o->mb, 0, NULL, &event), api->err_already_acquired);
    cl_mem both[2] = {o->mt, o->mb};
    CHECK_ERR(cl->acquire(env->queue, 2, both, 0, NULL, &event), api->err_already_acquired);
    CHECK(event == NULL, "a failed acquire created an event");
    /* ...mt was not acquired by the failed call. */
    CHECK_ERR(cl->release(env->queue, 1, &o->mt, 0, NULL, NULL), api->err_not_acquired);
    CHECK_ERR(cl->release(env->queue, 2, both, 0, NULL, NULL), api->err_not_acquired);
    /* ...and mb is still acquired. */
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 0, NULL, &event), api->err_not_acquired);
    CHECK(event == NULL, "a failed release created an event");

    /* Wait lists: a count without a list, a list without a count. */
    cl_event user = clCreateUserEvent(env->context, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    CHECK_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    CHECK_ERR(cl->acquire(env->queue, 1, &o->mb, 1, NULL, &event), CL_INVALID_EVENT_WAIT_LIST);
    CHECK_ERR(cl->acquire(env->queue, 1, &o->mb, 0, &user, &event), CL_INVALID_EVENT_WAIT_LIST);
    CHECK(event == NULL, "a failed acquire created an event");
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 0, NULL, NULL), api->err_not_acquired);
    CHECK_ERR(cl->acquire(env->queue, 1, &o->mb, 1, &user, NULL), CL_SUCCESS);
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 1, NULL, &event), CL_INVALID_EVENT_WAIT_LIST);
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 0, &user, &event), CL_INVALID_EVENT_WAIT_LIST);
    CHECK(event == NULL, "a failed release created an event");
    /* ...the object stayed acquired. */
    CHECK_ERR(cl->acquire(env->queue, 1, &o->mb, 0, NULL, NULL), api->err_already_acquired);
    CHECK_ERR(cl->release(env->queue, 1, &o->mb, 1, &user, NULL), CL_SUCCESS);
    clReleaseEvent(user);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);

    /* None of this touched the Direct3D data. */
    check_d3d(env, o, "after the acquire/release errors");
}

/* ---- The enqueue guard ---- */

/* Every command that takes a memory object, on objects that are not acquired. */
static void guard_refuses(struct interop_env *env, struct objects *o, cl_kernel kernel)
{
    const cl_int na = env->api->err_not_acquired;
    cl_command_queue q = env->queue;
    unsigned char host[BUF_SIZE * 2];
    size_t zero[3] = {0, 0, 0}, rect[3] = {16, 2, 1}, region[3] = {IMG_W, IMG_H, 1};
    cl_uint pattern = 0x5a5a5a5a;
    float color[4] = {1, 0, 0, 1};
    cl_event event = NULL;
    cl_int err = CL_SUCCESS;
    void *mapped;

    CHECK_ERR(clEnqueueReadBuffer(q, o->mb, CL_TRUE, 0, 16, host, 0, NULL, &event), na);
    CHECK(event == NULL, "a refused command created an event");
    CHECK_ERR(clEnqueueWriteBuffer(q, o->mb, CL_TRUE, 0, 16, host, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueReadBufferRect(q, o->mb, CL_TRUE, zero, zero, rect, 32, 0, 32, 0, host, 0,
                                      NULL, NULL),
              na);
    CHECK_ERR(clEnqueueWriteBufferRect(q, o->mb, CL_TRUE, zero, zero, rect, 32, 0, 32, 0, host, 0,
                                       NULL, NULL),
              na);
    CHECK_ERR(clEnqueueFillBuffer(q, o->mb, &pattern, 4, 0, 16, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyBuffer(q, o->mb, o->pb, 0, 0, 16, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyBuffer(q, o->pb, o->mb, 0, 0, 16, 0, NULL, NULL), na);
    CHECK_ERR(
        clEnqueueCopyBufferRect(q, o->mb, o->pb, zero, zero, rect, 32, 0, 32, 0, 0, NULL, NULL),
        na);
    CHECK_ERR(
        clEnqueueCopyBufferRect(q, o->pb, o->mb, zero, zero, rect, 32, 0, 32, 0, 0, NULL, NULL),
        na);
    mapped = clEnqueueMapBuffer(q, o->mb, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, &event, &err);
    CHECK(mapped == NULL && event == NULL, "refused map returned %p", mapped);
    CHECK_ERR(err, na);
    CHECK_ERR(clEnqueueMigrateMemObjects(q, 1, &o->mb, 0, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueMigrateMemObjects(q, 1, &o->mt, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
                                         NULL, NULL),
              na);

    CHECK_ERR(clEnqueueReadImage(q, o->mt, CL_TRUE, zero, region, 0, 0, host, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueWriteImage(q, o->mt, CL_TRUE, zero, region, 0, 0, host, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueFillImage(q, o->mt, color, zero, region, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyImage(q, o->mt, o->pi, zero, zero, region, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyImage(q, o->pi, o->mt, zero, zero, region, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyImageToBuffer(q, o->mt, o->pb, zero, region, 0, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyImageToBuffer(q, o->pi, o->mb, zero, region, 0, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyBufferToImage(q, o->mb, o->pi, 0, zero, region, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyBufferToImage(q, o->pb, o->mt, 0, zero, region, 0, NULL, NULL), na);
    size_t row = 0;
    mapped = clEnqueueMapImage(q, o->mt, CL_TRUE, CL_MAP_READ, zero, region, &row, NULL, 0, NULL,
                               &event, &err);
    CHECK(mapped == NULL && event == NULL, "refused image map returned %p", mapped);
    CHECK_ERR(err, na);

    /* A kernel whose argument is a shared object that is not acquired. */
    size_t global = 4;
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &o->mb), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, NULL, 0, NULL, &event), na);
    CHECK(event == NULL, "a refused kernel created an event");
    CHECK_ERR(clEnqueueTask(q, kernel, 0, NULL, NULL), na);
    /* ...replacing the argument with a plain buffer lifts the guard, setting it back restores
     * it. */
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &o->pb), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &o->mb), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), na);
    /* An image argument, beside a plain buffer. */
    cl_kernel sample = interop_kernel(env, "sample2f");
    size_t pixels[2] = {4, 1};
    CHECK_ERR(clSetKernelArg(sample, 0, sizeof(cl_mem), &o->mt), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(sample, 1, sizeof(cl_mem), &o->pb), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(q, sample, 2, NULL, pixels, NULL, 0, NULL, NULL), na);
    CHECK_ERR(clSetKernelArg(sample, 0, sizeof(cl_mem), &o->pi), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(q, sample, 2, NULL, pixels, NULL, 0, NULL, NULL), CL_SUCCESS);
    clReleaseKernel(sample);
    CHECK_ERR(clFinish(q), CL_SUCCESS);
}

static void model_inc(unsigned char *bytes, size_t index)
{
    uint32_t v;

    memcpy(&v, bytes + index * 4, 4);
    v++;
    memcpy(bytes + index * 4, &v, 4);
}

/* The same commands on acquired objects: each succeeds and does its work. The model follows
 * every change; after the release Direct3D must hold it. */
static void guard_allows(struct interop_env *env, struct objects *o, cl_kernel kernel)
{
    const struct test_api *api = env->api;
    cl_command_queue q = env->queue;
    unsigned char *buf = o->buffer_data, *img = o->texture.data[0];
    unsigned char host[BUF_SIZE], plain[BUF_SIZE], pixels[IMG_BYTES];
    size_t zero[3] = {0, 0, 0};
    size_t full[3] = {IMG_W, IMG_H, 1};
    cl_mem both[2] = {o->mb, o->mt};
    cl_int err;

    CHECK_ERR(env->cl->acquire(q, 2, both, 0, NULL, NULL), CL_SUCCESS);

    /* Buffer reads and writes, plain and rect. */
    CHECK_ERR(clEnqueueReadBuffer(q, o->mb, CL_TRUE, 0, BUF_SIZE, host, 0, NULL, NULL), CL_SUCCESS);
    test_same_bytes(host, buf, BUF_SIZE, "read of the acquired buffer");
    test_fill_bytes(host, 16, 21);
    CHECK_ERR(clEnqueueWriteBuffer(q, o->mb, CL_TRUE, 8, 16, host, 0, NULL, NULL), CL_SUCCESS);
    memcpy(buf + 8, host, 16);
    {
        /* rows of 32 bytes: a 16 x 2 box at (0, 1) */
        size_t origin[3] = {0, 1, 0}, host_origin[3] = {0, 0, 0}, region[3] = {16, 2, 1};
        CHECK_ERR(clEnqueueReadBufferRect(q, o->mb, CL_TRUE, origin, host_origin, region, 32, 0, 16,
                                          0, host, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK(!memcmp(host, buf + 32, 16) && !memcmp(host + 16, buf + 64, 16),
              "read rect of the acquired buffer");
        size_t worigin[3] = {4, 2, 0}, wregion[3] = {8, 2, 1};
        test_fill_bytes(host, 16, 22);
        CHECK_ERR(clEnqueueWriteBufferRect(q, o->mb, CL_TRUE, worigin, host_origin, wregion, 32, 0,
                                           8, 0, host, 0, NULL, NULL),
                  CL_SUCCESS);
        memcpy(buf + 2 * 32 + 4, host, 8);
        memcpy(buf + 3 * 32 + 4, host + 8, 8);
    }
    cl_uint pattern = 0xa5c3a5c3;
    CHECK_ERR(clEnqueueFillBuffer(q, o->mb, &pattern, 4, 128, 32, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 8; i++)
        memcpy(buf + 128 + i * 4, &pattern, 4);

    /* Copies with a plain buffer, both ways, and a rect copy inside the shared buffer. */
    CHECK_ERR(clEnqueueCopyBuffer(q, o->mb, o->pb, 0, 0, BUF_SIZE, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(q, o->pb, CL_TRUE, 0, BUF_SIZE, plain, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(plain, buf, BUF_SIZE, "copy from the acquired buffer");
    test_fill_bytes(plain, BUF_SIZE, 23);
    CHECK_ERR(clEnqueueWriteBuffer(q, o->pb, CL_TRUE, 0, BUF_SIZE, plain, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueCopyBuffer(q, o->pb, o->mb, 40, 160, 24, 0, NULL, NULL), CL_SUCCESS);
    memcpy(buf + 160, plain + 40, 24);
    {
        size_t src_origin[3] = {0, 0, 0}, dst_origin[3] = {8, 6, 0}, region[3] = {8, 2, 1};
        CHECK_ERR(clEnqueueCopyBufferRect(q, o->mb, o->mb, src_origin, dst_origin, region, 32, 0,
                                          32, 0, 0, NULL, NULL),
                  CL_SUCCESS);
        memcpy(buf + 6 * 32 + 8, buf, 8);
        memcpy(buf + 7 * 32 + 8, buf + 32, 8);
    }

    /* Map, change, unmap. */
    unsigned char *mapped = clEnqueueMapBuffer(q, o->mb, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 240,
                                               16, 0, NULL, NULL, &err);
    CHECK_ERR(err, CL_SUCCESS);
    if (mapped) {
        CHECK(!memcmp(mapped, buf + 240, 16), "mapped buffer contents");
        for (int i = 0; i < 16; i++)
            mapped[i] ^= 0xff;
        CHECK_ERR(clEnqueueUnmapMemObject(q, o->mb, mapped, 0, NULL, NULL), CL_SUCCESS);
        for (int i = 0; i < 16; i++)
            buf[240 + i] ^= 0xff;
    }
    CHECK_ERR(clEnqueueMigrateMemObjects(q, 2, both, 0, 0, NULL, NULL), CL_SUCCESS);

    /* A kernel (and a task) on the shared buffer. */
    size_t global = 16;
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &o->mb), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 16; i++)
        model_inc(buf, i);
    CHECK_ERR(clEnqueueTask(q, kernel, 0, NULL, NULL), CL_SUCCESS);
    model_inc(buf, 0);

    /* Images: read, write a box, fill a box. */
    CHECK_ERR(clEnqueueReadImage(q, o->mt, CL_TRUE, zero, full, 0, 0, pixels, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(pixels, img, IMG_BYTES, "read of the acquired image");
    {
        size_t origin[3] = {2, 1, 0}, region[3] = {3, 2, 1};
        test_fill_bytes(host, 24, 24);
        CHECK_ERR(
            clEnqueueWriteImage(q, o->mt, CL_TRUE, origin, region, 12, 0, host, 0, NULL, NULL),
            CL_SUCCESS);
        for (int y = 0; y < 2; y++)
            memcpy(img + ((1 + y) * IMG_W + 2) * 4, host + y * 12, 12);
    }
    {
        float color[4] = {1.0f, 0.0f, 1.0f, 0.0f};
        size_t origin[3] = {6, 0, 0}, region[3] = {2, 2, 1};
        CHECK_ERR(clEnqueueFillImage(q, o->mt, color, origin, region, 0, NULL, NULL), CL_SUCCESS);
        for (int y = 0; y < 2; y++)
            for (int x = 6; x < 8; x++)
                memcpy(img + (y * IMG_W + x) * 4, "\xff\x00\xff\x00", 4);
    }
    /* Image copies with a plain image, both ways. */
    CHECK_ERR(clEnqueueCopyImage(q, o->mt, o->pi, zero, zero, full, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(q, o->pi, CL_TRUE, zero, full, 0, 0, pixels, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(pixels, img, IMG_BYTES, "copy from the acquired image");
    test_fill_bytes(pixels, IMG_BYTES, 25);
    CHECK_ERR(clEnqueueWriteImage(q, o->pi, CL_TRUE, zero, full, 0, 0, pixels, 0, NULL, NULL),
              CL_SUCCESS);
    {
        size_t src_origin[3] = {0, 0, 0}, dst_origin[3] = {0, 2, 0}, region[3] = {2, 2, 1};
        CHECK_ERR(
            clEnqueueCopyImage(q, o->pi, o->mt, src_origin, dst_origin, region, 0, NULL, NULL),
            CL_SUCCESS);
        for (int y = 0; y < 2; y++)
            memcpy(img + ((2 + y) * IMG_W) * 4, pixels + y * IMG_W * 4, 8);
    }
    /* Image <-> buffer, between the two shared objects. */
    {
        size_t origin[3] = {1, 3, 0}, region[3] = {4, 1, 1};
        CHECK_ERR(clEnqueueCopyImageToBuffer(q, o->mt, o->mb, origin, region, 200, 0, NULL, NULL),
                  CL_SUCCESS);
        memcpy(buf + 200, img + (3 * IMG_W + 1) * 4, 16);
        size_t dst_origin[3] = {4, 3, 0};
        CHECK_ERR(
            clEnqueueCopyBufferToImage(q, o->mb, o->mt, 96, dst_origin, region, 0, NULL, NULL),
            CL_SUCCESS);
        memcpy(img + (3 * IMG_W + 4) * 4, buf + 96, 16);
    }
    /* Map a box of the image, change it, unmap. */
    {
        size_t origin[3] = {5, 2, 0}, region[3] = {2, 1, 1}, row = 0;
        unsigned char *p = clEnqueueMapImage(q, o->mt, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin,
                                             region, &row, NULL, 0, NULL, NULL, &err);
        CHECK_ERR(err, CL_SUCCESS);
        if (p) {
            CHECK(!memcmp(p, img + (2 * IMG_W + 5) * 4, 8), "mapped image contents");
            for (int i = 0; i < 8; i++)
                p[i] = (unsigned char)(i * 31);
            CHECK_ERR(clEnqueueUnmapMemObject(q, o->mt, p, 0, NULL, NULL), CL_SUCCESS);
            for (int i = 0; i < 8; i++)
                img[(2 * IMG_W + 5) * 4 + i] = (unsigned char)(i * 31);
        }
    }

    CHECK_ERR(env->cl->release(q, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(q), CL_SUCCESS);
    check_d3d(env, o, "after commands on acquired objects");
    (void)api;
}

/* ---- Host transfers on CL_RG (emulated where the driver lacks it, as PoCL does; the same
 * results are required of a native CL_RG image) ---- */

static void emulated_host_io(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const cl_int na = api->err_not_acquired;
    struct test_texture_desc desc = {
        IMG_W, IMG_H, 1, 1, 1, DXGI_FORMAT_R8G8_UNORM, TEST_USAGE_DEFAULT, 1};
    const size_t bytes = IMG_W * IMG_H * 2;
    size_t zero[3] = {0, 0, 0}, full[3] = {IMG_W, IMG_H, 1}, row = 0;
    struct test_texture tex;
    unsigned char host[IMG_W * IMG_H * 2 * 4], *img;
    float color[4] = {1.0f, 0.0f, 0.0f, 1.0f};
    cl_command_queue q = env->queue;
    cl_mem image, buffer;
    cl_int err;
    void *mapped;

    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, false, 31), "RG texture");
    img = tex.data[0];
    image = env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "RG image: %d", err);
    buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(host), NULL, &err);
    REQUIRE(err == CL_SUCCESS, "buffer: %d", err);

    /* The guard holds for emulated images too. */
    CHECK_ERR(clEnqueueReadImage(q, image, CL_TRUE, zero, full, 0, 0, host, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueWriteImage(q, image, CL_TRUE, zero, full, 0, 0, host, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueFillImage(q, image, color, zero, full, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyImageToBuffer(q, image, buffer, zero, full, 0, 0, NULL, NULL), na);
    CHECK_ERR(clEnqueueCopyBufferToImage(q, buffer, image, 0, zero, full, 0, NULL, NULL), na);
    mapped = clEnqueueMapImage(q, image, CL_TRUE, CL_MAP_READ, zero, full, &row, NULL, 0, NULL,
                               NULL, &err);
    CHECK(mapped == NULL, "RG image: refused map returned %p", mapped);
    CHECK_ERR(err, na);
    test_texture_intact(api, &tex, "RG image: refused commands");

    CHECK_ERR(env->cl->acquire(q, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    /* A read gives RG pixels (2 bytes each) and writes nothing past them. */
    memset(host, 0xcd, sizeof(host));
    CHECK_ERR(clEnqueueReadImage(q, image, CL_TRUE, zero, full, 0, 0, host, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(host, img, bytes, "RG image: clEnqueueReadImage pixels");
    bool canary = true;
    for (size_t i = bytes; i < sizeof(host); i++)
        canary &= host[i] == 0xcd;
    CHECK(canary, "RG image: clEnqueueReadImage wrote past the %zu bytes of the image", bytes);
    /* Image -> buffer copies RG pixels too. */
    CHECK_ERR(clEnqueueCopyImageToBuffer(q, image, buffer, zero, full, 0, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(q, buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL), CL_SUCCESS);
    test_same_bytes(host, img, bytes, "RG image: clEnqueueCopyImageToBuffer");
    /* A box written with a row pitch. */
    {
        size_t origin[3] = {1, 1, 0}, region[3] = {3, 2, 1};
        test_fill_bytes(host, 16, 33);
        CHECK_ERR(clEnqueueWriteImage(q, image, CL_TRUE, origin, region, 8, 0, host, 0, NULL, NULL),
                  CL_SUCCESS);
        for (int y = 0; y < 2; y++)
            memcpy(img + ((1 + y) * IMG_W + 1) * 2, host + y * 8, 6);
    }
    /* Buffer -> image box, and a fill. */
    {
        size_t origin[3] = {4, 3, 0}, region[3] = {4, 1, 1};
        test_fill_bytes(host, 8, 34);
        CHECK_ERR(clEnqueueWriteBuffer(q, buffer, CL_TRUE, 0, 8, host, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueCopyBufferToImage(q, buffer, image, 0, origin, region, 0, NULL, NULL),
                  CL_SUCCESS);
        memcpy(img + (3 * IMG_W + 4) * 2, host, 8);
        size_t forigin[3] = {6, 0, 0}, fregion[3] = {2, 2, 1};
        CHECK_ERR(clEnqueueFillImage(q, image, color, forigin, fregion, 0, NULL, NULL), CL_SUCCESS);
        for (int y = 0; y < 2; y++)
            for (int x = 6; x < 8; x++)
                memcpy(img + (y * IMG_W + x) * 2, "\xff\x00", 2);
    }
    /* Map a box: RG pixels at the returned row pitch; changes reach the image. */
    {
        size_t origin[3] = {0, 2, 0}, region[3] = {3, 2, 1};
        unsigned char *p = clEnqueueMapImage(q, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin,
                                             region, &row, NULL, 0, NULL, NULL, &err);
        CHECK_ERR(err, CL_SUCCESS);
        CHECK(p && row >= 6, "RG image: map returned %p, row pitch %zu", (void *)p, row);
        if (p && row >= 6) {
            bool same = true;
            for (int y = 0; y < 2; y++)
                same &= !memcmp(p + y * row, img + (2 + y) * IMG_W * 2, 6);
            CHECK(same, "RG image: mapped pixels");
            for (int y = 0; y < 2; y++)
                for (int i = 0; i < 6; i++)
                    img[(2 + y) * IMG_W * 2 + i] = p[y * row + i] = (unsigned char)(y * 50 + i);
            CHECK_ERR(clEnqueueUnmapMemObject(q, image, p, 0, NULL, NULL), CL_SUCCESS);
        }
    }
    CHECK_ERR(env->cl->release(q, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    test_texture_intact(api, &tex, "RG image: host commands while acquired");
    clReleaseMemObject(buffer);
    clReleaseMemObject(image);
    test_texture_free(api, &tex);
}

void suite_acquire(const struct test_api *api)
{
    struct interop_env env;
    struct objects o;
    cl_kernel kernel;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    open_objects(&env, &o);
    kernel = interop_kernel(&env, "inc");
    acquire_errors(&env, &o);
    guard_refuses(&env, &o, kernel);
    check_d3d(&env, &o, "after refused commands");
    guard_allows(&env, &o, kernel);
    /* Released again: the guard is back. */
    guard_refuses(&env, &o, kernel);
    check_d3d(&env, &o, "after refused commands, released");
    clReleaseKernel(kernel);
    close_objects(&env, &o);
    emulated_host_io(&env);
    interop_close(&env);
}
