/* The buffer row (issue 42): a 64 MB D3D11 buffer moved into OpenCL and back, transfer-only, as
 * P1's texture row is. Sharing: acquire both buffers, one clEnqueueCopyBuffer from the source
 * to the destination, release. Hand-written: CopyResource into a staging buffer, Map, write into
 * the program's own OpenCL buffer, copy it into a second one, read that back into the mapping,
 * Unmap, CopyResource into the destination. Both destinations are checked against the source. */
#include "benchlib.h"
#include "interop.h"

#include <d3d11.h>
#include <stdlib.h>

enum { BUFFER_BYTES = 64 << 20 };

struct buffers {
    struct interop_env *env;
    ID3D11Buffer *src, *dst_sharing, *dst_manual, *staging;
    cl_mem shared[2]; /* source and destination of the sharing variant */
    cl_mem own[2];    /* the program's own buffers */
};

static ID3D11DeviceContext *immediate_of(struct buffers *b)
{
    ID3D11DeviceContext *immediate;

    ID3D11Device_GetImmediateContext((ID3D11Device *)b->env->d3d, &immediate);
    return immediate;
}

static void sharing_frame(void *ctx, struct bench_clock *clock)
{
    struct buffers *b = ctx;
    cl_command_queue queue = b->env->queue;

    BENCH_CL(b->env->cl->acquire(queue, 2, b->shared, 0, NULL, NULL));
    bench_finish(queue);
    bench_mark(clock);
    BENCH_CL(
        clEnqueueCopyBuffer(queue, b->shared[0], b->shared[1], 0, 0, BUFFER_BYTES, 0, NULL, NULL));
    bench_finish(queue);
    bench_mark(clock);
    BENCH_CL(b->env->cl->release(queue, 2, b->shared, 0, NULL, NULL));
    bench_finish(queue);
    bench_mark(clock);
}

static void manual_frame(void *ctx, struct bench_clock *clock)
{
    struct buffers *b = ctx;
    cl_command_queue queue = b->env->queue;
    ID3D11DeviceContext *immediate = immediate_of(b);
    D3D11_MAPPED_SUBRESOURCE mapped;

    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)b->staging,
                                     (ID3D11Resource *)b->src);
    REQUIRE(SUCCEEDED(ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)b->staging, 0,
                                              D3D11_MAP_READ_WRITE, 0, &mapped)),
            "map of the staging buffer");
    BENCH_CL(clEnqueueWriteBuffer(queue, b->own[0], CL_TRUE, 0, BUFFER_BYTES, mapped.pData, 0, NULL,
                                  NULL));
    bench_mark(clock);
    BENCH_CL(clEnqueueCopyBuffer(queue, b->own[0], b->own[1], 0, 0, BUFFER_BYTES, 0, NULL, NULL));
    bench_finish(queue);
    bench_mark(clock);
    BENCH_CL(clEnqueueReadBuffer(queue, b->own[1], CL_TRUE, 0, BUFFER_BYTES, mapped.pData, 0, NULL,
                                 NULL));
    ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)b->staging, 0);
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)b->dst_manual,
                                     (ID3D11Resource *)b->staging);
    ID3D11DeviceContext_Release(immediate);
    bench_mark(clock);
}

/* Each frame's last Direct3D copy finished before the next frame (benchlib.h, settle). */
static void settle(void *ctx)
{
    bench_d3d11_settle(((struct buffers *)ctx)->env->d3d);
}

static ID3D11Buffer *staging_buffer(struct interop_env *env)
{
    D3D11_BUFFER_DESC desc = {
        BUFFER_BYTES, D3D11_USAGE_STAGING, 0, D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE, 0, 0};
    ID3D11Buffer *buffer = NULL;

    REQUIRE(SUCCEEDED(ID3D11Device_CreateBuffer((ID3D11Device *)env->d3d, &desc, NULL, &buffer)),
            "a 64 MB staging buffer");
    return buffer;
}

static void check_destination(struct interop_env *env, ID3D11Buffer *dst, const void *want,
                              const char *what)
{
    unsigned char *got = malloc(BUFFER_BYTES);

    REQUIRE(got && env->api->read_subresource(dst, 0, got), "%s: read back", what);
    bench_check_bytes(got, want, BUFFER_BYTES, what);
    free(got);
}

void bench_buffer(void)
{
    struct interop_env env;
    struct buffers b = {.env = &env};
    struct bench_variant v[2] = {{.name = "sharing",
                                  .frame = sharing_frame,
                                  .ctx = &b,
                                  .settle = settle,
                                  .phase_names = {"acquire", "copy", "release"}},
                                 {.name = "hand-written",
                                  .frame = manual_frame,
                                  .ctx = &b,
                                  .settle = settle,
                                  .phase_names = {"copy+map+write", "copy", "read+unmap+copy"}}};
    unsigned char *data = malloc(BUFFER_BYTES);
    cl_int err;

    REQUIRE(data, "64 MB of host memory");
    for (size_t i = 0; i < BUFFER_BYTES; i++)
        data[i] = (unsigned char)(i * 13 + (i >> 16));
    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    REQUIRE((b.src = env.api->create_buffer(env.d3d, BUFFER_BYTES, TEST_USAGE_DEFAULT, data)) &&
                (b.dst_sharing =
                     env.api->create_buffer(env.d3d, BUFFER_BYTES, TEST_USAGE_DEFAULT, NULL)) &&
                (b.dst_manual =
                     env.api->create_buffer(env.d3d, BUFFER_BYTES, TEST_USAGE_DEFAULT, NULL)),
            "three 64 MB D3D11 buffers");
    b.staging = staging_buffer(&env);
    for (int i = 0; i < 2; i++) {
        b.shared[i] =
            env.cl->create_buffer(env.context, CL_MEM_READ_WRITE, i ? b.dst_sharing : b.src, &err);
        REQUIRE(err == CL_SUCCESS, "shared buffer %d: %d", i, err);
        b.own[i] = clCreateBuffer(env.context, CL_MEM_READ_WRITE, BUFFER_BYTES, NULL, &err);
        REQUIRE(err == CL_SUCCESS, "own buffer %d: %d", i, err);
    }
    bench_note_transfer_mode("D3D11 64 MB buffer", b.shared[0]);
    bench_compare("P1 D3D11 buffer 64 MB transfer-only", v, bench_frames, 0.60);
    check_destination(&env, b.dst_sharing, data, "buffer sharing result");
    check_destination(&env, b.dst_manual, data, "buffer hand-written result");
    for (int i = 0; i < 2; i++) {
        clReleaseMemObject(b.shared[i]);
        clReleaseMemObject(b.own[i]);
    }
    ID3D11Buffer_Release(b.staging);
    ID3D11Buffer_Release(b.dst_manual);
    ID3D11Buffer_Release(b.dst_sharing);
    ID3D11Buffer_Release(b.src);
    interop_close(&env);
    free(data);
}
