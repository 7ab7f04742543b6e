/* Lazy uploads (docs/design.md): an acquire defers reading a D3D10/D3D11 object's resource to
 * the first command that touches the object, and skips it when that command overwrites all of
 * it. Checked for each overwriting command (the upload is skipped: dxclGetSkippedUploads, and
 * the resource ends with exactly the new data), for partial writes (the rest keeps the
 * resource's data), for reads and kernels (they see the resource's data), for an acquire no
 * command uses (nothing read, nothing written back), for two objects of which one is
 * overwritten, for a first command on a second, out-of-order queue ordered by events, for a
 * whole cycle on one out-of-order queue without events, and for an emulated format (R8G8). The DX9
 * suites run with lazy uploads on and again without. CTest runs it again with DXCL_LAZY=0 (every
 * upload at the acquire: same data, nothing skipped) and with DXCL_ZERO_COPY=0; and on the GPU
 * path, where textures are handed in at the acquire (`.gpu`: nothing skipped for them) unless
 * DXCL_GPU_LAZY=1 (`.gpu_lazy`: deferred as here, empty hand-ins among them). */
#include "interop.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

enum { W = 37, H = 11, BYTES = W * H * 4 }; /* odd sizes: the staging rows are padded */

static dxclGetSkippedUploads_fn skipped_uploads;
static dxclGetTransferMode_fn transfer_mode;
static bool lazy_on, gpu_lazy;
static const struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
static const size_t origin[3] = {0, 0, 0}, whole[3] = {W, H, 1};

struct shared {
    struct test_texture tex;
    cl_mem mem;
    cl_uint skipped;
};

static void open_shared(struct interop_env *env, struct shared *s, uint32_t seed)
{
    cl_int err;

    REQUIRE(test_texture_create(env->api, env->d3d, &s->tex, &desc, false, seed), "texture");
    s->mem = env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, s->tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "%s: shared texture: %d", env->api->name, err);
    CHECK_ERR(skipped_uploads(s->mem, &s->skipped), CL_SUCCESS);
}

static void close_shared(struct interop_env *env, struct shared *s)
{
    CHECK_ERR(clReleaseMemObject(s->mem), CL_SUCCESS);
    test_texture_free(env->api, &s->tex);
}

/* Whether the acquire defers the object's upload: lazy uploads on, and for an object on the GPU
 * path (dxclGetTransferMode) only with DXCL_GPU_LAZY=1; else it is handed in at the acquire. */
static bool deferred(cl_mem mem)
{
    cl_uint mode = 0;

    CHECK_ERR(transfer_mode(mem, &mode), CL_SUCCESS);
    return lazy_on && (mode < DXCL_TRANSFER_GPU || gpu_lazy);
}

/* The object's skipped uploads grew by `more` (none when its uploads are not deferred). */
static void check_skipped(struct shared *s, cl_uint more, const char *what)
{
    cl_uint now = 0;

    CHECK_ERR(skipped_uploads(s->mem, &now), CL_SUCCESS);
    if (!deferred(s->mem))
        more = 0;
    CHECK(now == s->skipped + more, "%s: %u uploads skipped, want %u", what, now - s->skipped,
          more);
    s->skipped = now;
}

/* A command that overwrites all of the object skips its Direct3D read and upload, copied or
 * zero-copy. */
static void check_overwritten(struct shared *s, const char *what)
{
    check_skipped(s, 1, what);
}

static void acquire(struct interop_env *env, struct shared *s)
{
    CHECK_ERR(env->cl->acquire(env->queue, 1, &s->mem, 0, NULL, NULL), CL_SUCCESS);
}

static void release(struct interop_env *env, struct shared *s)
{
    CHECK_ERR(env->cl->release(env->queue, 1, &s->mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
}

/* The resource now holds `want` (and tex.data becomes it, for the next case). */
static void check_resource(struct interop_env *env, struct shared *s, const unsigned char *want,
                           const char *what)
{
    unsigned char got[BYTES];

    CHECK(env->api->read_subresource(s->tex.resource, 0, got), "%s: read back", what);
    test_same_bytes(got, want, BYTES, what);
    memcpy(s->tex.data[0], want, BYTES);
}

static cl_mem plain_buffer(struct interop_env *env, const void *data)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BYTES,
                                   (void *)data, &err);

    REQUIRE(err == CL_SUCCESS, "plain buffer: %d", err);
    return buffer;
}

/* acquire, a blocking write of `data` into the region, release; then the resource must hold
 * `want` (`bytes` bytes). */
static void write_through(struct interop_env *env, cl_mem mem, void *resource, const size_t *at,
                          const size_t *size, const void *data, const void *want, size_t bytes,
                          const char *what)
{
    unsigned char *got = malloc(bytes);

    REQUIRE(got, "memory");
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, at, size, 0, 0, data, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK(env->api->read_subresource(resource, 0, got), "%s: read back", what);
    test_same_bytes(got, want, bytes, what);
    free(got);
}

/* Each command that overwrites the whole object: no upload, exact new contents. */
static void overwrites(struct interop_env *env, struct shared *s)
{
    const cl_image_format rgba = {CL_RGBA, CL_UNSIGNED_INT8};
    const cl_uint4 color = {{1, 2, 3, 4}};
    unsigned char fresh[BYTES], filled[BYTES];
    cl_int err;

    test_fill_bytes(fresh, BYTES, 101);
    write_through(env, s->mem, s->tex.resource, origin, whole, fresh, fresh, BYTES,
                  "whole clEnqueueWriteImage");
    memcpy(s->tex.data[0], fresh, BYTES);
    check_overwritten(s, "whole clEnqueueWriteImage");

    for (int i = 0; i < BYTES; i++)
        filled[i] = (unsigned char)(i % 4 + 1);
    acquire(env, s);
    CHECK_ERR(clEnqueueFillImage(env->queue, s->mem, &color, origin, whole, 0, NULL, NULL),
              CL_SUCCESS);
    release(env, s);
    check_resource(env, s, filled, "whole clEnqueueFillImage");
    check_overwritten(s, "whole clEnqueueFillImage");

    test_fill_bytes(fresh, BYTES, 102);
    cl_mem buffer = plain_buffer(env, fresh);
    acquire(env, s);
    CHECK_ERR(
        clEnqueueCopyBufferToImage(env->queue, buffer, s->mem, 0, origin, whole, 0, NULL, NULL),
        CL_SUCCESS);
    release(env, s);
    check_resource(env, s, fresh, "whole clEnqueueCopyBufferToImage");
    check_overwritten(s, "whole clEnqueueCopyBufferToImage");
    clReleaseMemObject(buffer);

    test_fill_bytes(fresh, BYTES, 103);
    cl_mem image = clCreateImage2D(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &rgba, W,
                                   H, 0, fresh, &err);
    REQUIRE(err == CL_SUCCESS, "plain image: %d", err);
    acquire(env, s);
    CHECK_ERR(clEnqueueCopyImage(env->queue, image, s->mem, origin, origin, whole, 0, NULL, NULL),
              CL_SUCCESS);
    release(env, s);
    check_resource(env, s, fresh, "whole clEnqueueCopyImage");
    check_overwritten(s, "whole clEnqueueCopyImage");
    clReleaseMemObject(image);

    test_fill_bytes(fresh, BYTES, 104);
    size_t pitch = 0;
    acquire(env, s);
    unsigned char *mapped =
        clEnqueueMapImage(env->queue, s->mem, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, origin,
                          whole, &pitch, NULL, 0, NULL, NULL, &err);
    REQUIRE(mapped && err == CL_SUCCESS, "write-invalidate map: %d", err);
    for (int y = 0; y < H; y++)
        memcpy(mapped + y * pitch, fresh + y * W * 4, W * 4);
    CHECK_ERR(clEnqueueUnmapMemObject(env->queue, s->mem, mapped, 0, NULL, NULL), CL_SUCCESS);
    release(env, s);
    check_resource(env, s, fresh, "whole write-invalidate map");
    check_overwritten(s, "whole write-invalidate map");
}

/* A partial write needs the rest of the resource's data; a read needs all of it. */
static void partial_and_reads(struct interop_env *env, struct shared *s)
{
    const size_t corner[3] = {3, 2, 0}, part[3] = {5, 4, 1};
    unsigned char patch[5 * 4 * 4], want[BYTES], got[BYTES];

    test_fill_bytes(patch, sizeof(patch), 105);
    memcpy(want, s->tex.data[0], BYTES);
    for (int y = 0; y < 4; y++)
        memcpy(want + ((y + 2) * W + 3) * 4, patch + y * 5 * 4, 5 * 4);
    write_through(env, s->mem, s->tex.resource, corner, part, patch, want, BYTES,
                  "partial clEnqueueWriteImage");
    memcpy(s->tex.data[0], want, BYTES);
    check_skipped(s, 0, "partial clEnqueueWriteImage");

    acquire(env, s);
    CHECK_ERR(
        clEnqueueReadImage(env->queue, s->mem, CL_TRUE, origin, whole, 0, 0, got, 0, NULL, NULL),
        CL_SUCCESS);
    test_same_bytes(got, want, BYTES, "first command reads");
    release(env, s);
    check_resource(env, s, want, "after a read");
    check_skipped(s, 0, "first command reads");

    acquire(env, s);
    release(env, s);
    check_resource(env, s, want, "acquire and release alone");
    check_skipped(s, 1, "acquire and release alone");
}

/* A kernel reads one object and writes the other: both need the resources' data. */
static void kernel_and_two_objects(struct interop_env *env, struct shared *a, struct shared *b)
{
    const cl_uint4 mask = {{0x5a, 0xa5, 0x0f, 0xf0}};
    const size_t global[2] = {W, H};
    cl_kernel kernel = interop_kernel(env, "xor2");
    cl_mem both[2] = {a->mem, b->mem};
    unsigned char want[BYTES], fresh[BYTES];

    for (int i = 0; i < BYTES; i++)
        want[i] = ((const unsigned char *)a->tex.data[0])[i] ^ (unsigned char)mask.s[i % 4];
    CHECK_ERR(env->cl->acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &a->mem), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(cl_mem), &b->mem), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 2, sizeof(mask), &mask), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    check_resource(env, b, want, "kernel: b = a ^ mask");
    check_resource(env, a, a->tex.data[0], "kernel: a unchanged");
    check_skipped(a, 0, "kernel source");
    check_skipped(b, 0, "kernel destination");

    /* One object overwritten, the other read, in one acquire. */
    test_fill_bytes(fresh, BYTES, 106);
    unsigned char got[BYTES];
    CHECK_ERR(env->cl->acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueWriteImage(env->queue, a->mem, CL_FALSE, origin, whole, 0, 0, fresh, 0, NULL,
                                  NULL),
              CL_SUCCESS);
    CHECK_ERR(
        clEnqueueReadImage(env->queue, b->mem, CL_TRUE, origin, whole, 0, 0, got, 0, NULL, NULL),
        CL_SUCCESS);
    test_same_bytes(got, want, BYTES, "two objects: the one read");
    CHECK_ERR(env->cl->release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    check_resource(env, a, fresh, "two objects: the one overwritten");
    check_overwritten(a, "two objects: the one overwritten");
    check_skipped(b, 0, "two objects: the one read");
    clReleaseKernel(kernel);
}

/* The first command on a second, out-of-order queue, ordered after the acquire by its event;
 * then a read on the acquire's queue, after the upload the second queue got. */
static void second_queue(struct interop_env *env, struct shared *s)
{
    cl_int err;
    cl_command_queue other = clCreateCommandQueue(env->context, env->device,
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    unsigned char got[BYTES];
    cl_event acquired, read;

    REQUIRE(err == CL_SUCCESS, "out-of-order queue: %d", err);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &s->mem, 0, NULL, &acquired), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueReadImage(other, s->mem, CL_FALSE, origin, whole, 0, 0, got, 1, &acquired, &read),
        CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &read), CL_SUCCESS);
    test_same_bytes(got, s->tex.data[0], BYTES, "first command on an out-of-order queue");
    memset(got, 0, BYTES);
    CHECK_ERR(
        clEnqueueReadImage(env->queue, s->mem, CL_TRUE, origin, whole, 0, 0, got, 0, NULL, NULL),
        CL_SUCCESS);
    test_same_bytes(got, s->tex.data[0], BYTES, "then on the acquire's queue");
    release(env, s);
    check_skipped(s, 0, "read on a second queue");
    clReleaseEvent(acquired);
    clReleaseEvent(read);
    clReleaseCommandQueue(other);
}

/* Everything on one out-of-order queue, with no events and no wait lists: the upload a read
 * brings in is ordered before the read, and a whole overwrite after it reaches the resource.
 * (On in-order queues dxcl leaves out the barriers an out-of-order queue needs.) */
static void out_of_order_queue(struct interop_env *env, struct shared *s)
{
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(env->context, env->device,
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    unsigned char got[BYTES], fresh[BYTES];

    REQUIRE(err == CL_SUCCESS, "out-of-order queue: %d", err);
    test_fill_bytes(fresh, sizeof(fresh), 109);
    CHECK_ERR(env->cl->acquire(queue, 1, &s->mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(queue, s->mem, CL_TRUE, origin, whole, 0, 0, got, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(got, s->tex.data[0], BYTES, "out-of-order queue: the first read");
    CHECK_ERR(
        clEnqueueWriteImage(queue, s->mem, CL_FALSE, origin, whole, 0, 0, fresh, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(env->cl->release(queue, 1, &s->mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    check_resource(env, s, fresh, "out-of-order queue: a whole write after the read");
    check_skipped(s, 0, "out-of-order queue");
    clReleaseCommandQueue(queue);
}

/* A buffer: a whole write skips the upload, a partial fill keeps the rest. */
static void buffer(struct interop_env *env)
{
    unsigned char data[256], fresh[256], got[256];
    const unsigned char zero = 0;
    cl_int err;
    void *resource;
    cl_mem mem;
    cl_uint before = 0, after = 0;

    test_fill_bytes(data, sizeof(data), 107);
    test_fill_bytes(fresh, sizeof(fresh), 108);
    REQUIRE((resource = env->api->create_buffer(env->d3d, sizeof(data), TEST_USAGE_DEFAULT, data)),
            "buffer");
    mem = env->cl->create_buffer(env->context, CL_MEM_READ_WRITE, resource, &err);
    REQUIRE(err == CL_SUCCESS, "shared buffer: %d", err);
    CHECK_ERR(skipped_uploads(mem, &before), CL_SUCCESS);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueWriteBuffer(env->queue, mem, CL_TRUE, 0, sizeof(fresh), fresh, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK(env->api->read_subresource(resource, 0, got), "buffer read");
    test_same_bytes(got, fresh, sizeof(got), "buffer: whole write");
    CHECK_ERR(skipped_uploads(mem, &after), CL_SUCCESS);
    CHECK(after == before + (deferred(mem) ? 1 : 0), "buffer: whole write skipped %u",
          after - before);

    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueFillBuffer(env->queue, mem, &zero, 1, 16, 32, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    memset(fresh + 16, 0, 32);
    CHECK(env->api->read_subresource(resource, 0, got), "buffer read");
    test_same_bytes(got, fresh, sizeof(got), "buffer: partial fill");
    CHECK_ERR(skipped_uploads(mem, &before), CL_SUCCESS);
    CHECK(before == after, "buffer: a partial fill skipped the upload");
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_com_release(resource);
}

/* R8G8 (emulated where the driver lacks CL_RG, as PoCL does; native elsewhere, where the same
 * holds): an overwrite skips the upload and its conversion; a partial write converts and
 * uploads the rest. */
static void emulated(struct interop_env *env)
{
    static const struct test_texture_desc rg8 = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8_UNORM, 0, 1};
    const size_t corner[3] = {1, 1, 0}, part[3] = {2, 2, 1};
    unsigned char fresh[W * H * 2], patch[2 * 2 * 2];
    struct test_texture tex;
    cl_uint before = 0, after = 0;
    cl_int err;

    REQUIRE(test_texture_create(env->api, env->d3d, &tex, &rg8, false, 110), "RG8 texture");
    cl_mem mem = env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "RG8 object: %d", err);
    test_fill_bytes(fresh, sizeof(fresh), 111);
    CHECK_ERR(skipped_uploads(mem, &before), CL_SUCCESS);
    write_through(env, mem, tex.resource, origin, whole, fresh, fresh, sizeof(fresh),
                  "RG8: whole write");
    CHECK_ERR(skipped_uploads(mem, &after), CL_SUCCESS);
    CHECK(after == before + (deferred(mem) ? 1 : 0), "RG8: whole write skipped %u", after - before);

    test_fill_bytes(patch, sizeof(patch), 112);
    for (int y = 0; y < 2; y++)
        memcpy(fresh + ((y + 1) * W + 1) * 2, patch + y * 4, 4);
    write_through(env, mem, tex.resource, corner, part, patch, fresh, sizeof(fresh),
                  "RG8: partial write");
    CHECK_ERR(skipped_uploads(mem, &before), CL_SUCCESS);
    CHECK(before == after, "RG8: a partial write skipped the upload");
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_free(env->api, &tex);
}

static void run(const struct test_api *api)
{
    struct interop_env env;
    struct shared a, b;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    open_shared(&env, &a, 1);
    open_shared(&env, &b, 2);
    overwrites(&env, &a);
    partial_and_reads(&env, &a);
    kernel_and_two_objects(&env, &a, &b);
    second_queue(&env, &b);
    out_of_order_queue(&env, &b);
    buffer(&env);
    emulated(&env);
    close_shared(&env, &a);
    close_shared(&env, &b);
    interop_close(&env);
}

int main(void)
{
    char value[8];
    DWORD len = GetEnvironmentVariableA("DXCL_LAZY", value, sizeof(value));

    lazy_on = !(len && !strcmp(value, "0"));
    len = GetEnvironmentVariableA("DXCL_GPU_LAZY", value, sizeof(value));
    gpu_lazy = len && value[0] == '1';
    skipped_uploads = (dxclGetSkippedUploads_fn)(void *)GetProcAddress(test_dxcl_module(),
                                                                       "dxclGetSkippedUploads");
    transfer_mode =
        (dxclGetTransferMode_fn)(void *)GetProcAddress(test_dxcl_module(), "dxclGetTransferMode");
    REQUIRE(skipped_uploads && transfer_mode,
            "dxcl exports no dxclGetSkippedUploads or dxclGetTransferMode");
    CHECK_ERR(skipped_uploads(NULL, NULL), CL_INVALID_MEM_OBJECT);
    run(&api_d3d11_khr);
    run(&api_d3d10_khr);
    return test_finish("lazy");
}
