/* The directions of a transfer and the object's flags (docs/design.md, "Only what may have
 * changed comes back"; issue 43). The copy engine skips the half of a transfer that cannot
 * matter, but never one the spec needs:
 *   - a CL_MEM_WRITE_ONLY object a kernel writes only part of: the pixels it did not write keep
 *     the resource's bytes, those of each acquire (Direct3D may write the resource between
 *     acquires), so its upload cannot be skipped;
 *   - a CL_MEM_READ_ONLY object only kernels read: nothing comes back, so what Direct3D wrote
 *     into the resource while it was acquired stays;
 *   - a CL_MEM_READ_ONLY object the host writes (the flag is the kernels' only, the spec's
 *     table 5.3): it comes back.
 * Every check reads the resource through Direct3D. Runs for D3D11 and D3D10, on zero-copy and
 * (CTest's .copies run, DXCL_ZERO_COPY=0) copied objects. */
#include "interop.h"

#include <stdlib.h>

enum { W = 37, H = 11, BYTES = W * H * 4, HALF = W / 2 }; /* odd sizes: padded staging rows */

static const struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
static const cl_uint4 mask = {{0x5a, 0xa5, 0x0f, 0xf0}};

static cl_mem share(struct interop_env *env, struct test_texture *tex, cl_mem_flags flags,
                    uint32_t seed)
{
    cl_int err;
    cl_mem mem;

    REQUIRE(test_texture_create(env->api, env->d3d, tex, &desc, false, seed), "texture");
    mem = env->cl->create_texture2d(env->context, flags, tex->resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "%s: shared texture: %d", env->api->name, err);
    return mem;
}

static void check_resource(struct interop_env *env, void *resource, const unsigned char *want,
                           const char *what)
{
    unsigned char got[BYTES];

    CHECK(env->api->read_subresource(resource, 0, got), "%s: read back", what);
    test_same_bytes(got, want, BYTES, what);
}

/* Releases a shared texture: its object, then the texture. */
static void unshare(struct interop_env *env, cl_mem mem, struct test_texture *tex)
{
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_free(env->api, tex);
}

/* Enqueues xor2 from src into the left `width` columns of dst (both acquired). */
static void enqueue_xor2(struct interop_env *env, cl_kernel kernel, cl_mem src, cl_mem dst,
                         size_t width)
{
    const size_t global[2] = {width, H};

    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &src), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(cl_mem), &dst), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 2, sizeof(mask), &mask), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
}

/* acquire both, xor2 from src into the left HALF columns of dst only, release, finish. */
static void half_kernel(struct interop_env *env, cl_kernel kernel, cl_mem src, cl_mem dst)
{
    cl_mem both[2] = {src, dst};

    CHECK_ERR(env->cl->acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    enqueue_xor2(env, kernel, src, dst, HALF);
    CHECK_ERR(env->cl->release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
}

/* acquire, write `region` at `origin` from the host, release, finish. */
static void host_write(struct interop_env *env, cl_mem mem, const size_t origin[3],
                       const size_t region[3], const unsigned char *bytes)
{
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, bytes, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
}

/* What dst's resource holds after half_kernel: the kernel's columns, the rest as it was. */
static void half_written(const unsigned char *src, const unsigned char *dst, unsigned char *want)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                int i = (y * W + x) * 4 + c;
                want[i] = x < HALF ? src[i] ^ (unsigned char)mask.s[c] : dst[i];
            }
}

/* A WRITE_ONLY object a kernel writes half of, twice, with Direct3D writing the whole resource
 * between the two acquires: each time the other half is the resource's bytes of that acquire. */
static void write_only_partial(struct interop_env *env, cl_kernel kernel)
{
    struct test_texture src, dst;
    cl_mem msrc = share(env, &src, CL_MEM_READ_ONLY, 431);
    cl_mem mdst = share(env, &dst, CL_MEM_WRITE_ONLY, 432);
    unsigned char want[BYTES], fresh[BYTES];

    half_kernel(env, kernel, msrc, mdst);
    half_written(src.data[0], dst.data[0], want);
    check_resource(env, dst.resource, want, "WRITE_ONLY, half written: the other half kept");
    check_resource(env, src.resource, src.data[0], "READ_ONLY source unchanged");

    test_fill_bytes(fresh, BYTES, 433);
    REQUIRE(env->api->write_subresource(dst.resource, 0, fresh), "Direct3D writes dst");
    half_kernel(env, kernel, msrc, mdst);
    half_written(src.data[0], fresh, want);
    check_resource(env, dst.resource, want,
                   "WRITE_ONLY, half written again: the other half is Direct3D's new bytes");
    unshare(env, msrc, &src);
    unshare(env, mdst, &dst);
}

/* A READ_ONLY object a kernel reads while Direct3D writes its resource (after the kernel, before
 * the release): the release writes nothing back, so Direct3D's bytes stay. */
static void read_only_keeps_direct3d(struct interop_env *env, cl_kernel kernel)
{
    struct test_texture src, dst;
    cl_mem msrc = share(env, &src, CL_MEM_READ_ONLY, 441);
    cl_mem mdst = share(env, &dst, CL_MEM_READ_WRITE, 442);
    cl_mem both[2] = {msrc, mdst};
    unsigned char fresh[BYTES];

    test_fill_bytes(fresh, BYTES, 443);
    CHECK_ERR(env->cl->acquire(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    enqueue_xor2(env, kernel, msrc, mdst, W);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    REQUIRE(env->api->write_subresource(src.resource, 0, fresh), "Direct3D writes src");
    CHECK_ERR(env->cl->release(env->queue, 2, both, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    check_resource(env, src.resource, fresh, "READ_ONLY read by a kernel: Direct3D's write stays");
    unshare(env, msrc, &src);
    unshare(env, mdst, &dst);
}

/* CL_MEM_READ_ONLY binds kernels only: a host write into the object comes back, whole or part. */
static void read_only_host_write(struct interop_env *env)
{
    struct test_texture tex;
    cl_mem mem = share(env, &tex, CL_MEM_READ_ONLY, 451);
    const size_t origin[3] = {0, 0, 0}, whole[3] = {W, H, 1};
    const size_t at[3] = {HALF, 0, 0}, part[3] = {W - HALF, H, 1};
    unsigned char fresh[BYTES], patch[BYTES], want[BYTES];

    test_fill_bytes(fresh, BYTES, 452);
    host_write(env, mem, origin, whole, fresh);
    check_resource(env, tex.resource, fresh, "READ_ONLY, whole host write: comes back");

    test_fill_bytes(patch, BYTES, 453);
    memcpy(want, fresh, BYTES);
    for (int y = 0; y < H; y++)
        memcpy(want + (y * W + HALF) * 4, patch + y * (W - HALF) * 4, (W - HALF) * 4);
    host_write(env, mem, at, part, patch);
    check_resource(env, tex.resource, want, "READ_ONLY, partial host write: comes back, rest kept");
    unshare(env, mem, &tex);
}

static void run(const struct test_api *api)
{
    struct interop_env env;
    cl_kernel kernel;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    kernel = interop_kernel(&env, "xor2");
    write_only_partial(&env, kernel);
    read_only_keeps_direct3d(&env, kernel);
    read_only_host_write(&env);
    clReleaseKernel(kernel);
    interop_close(&env);
}

int main(void)
{
    /* The copy engine is the subject (test_gpu_path has the GPU path's hand-overs). */
    SetEnvironmentVariableA("DXCL_PATH", "engine");
    run(&api_d3d11_khr);
    run(&api_d3d10_khr);
    return test_finish("directions");
}
