/* P3: acquire + release of 1, 16, 256 and 1024 small shared objects (64x64 RGBA8 D3D11
 * textures) in one call each, interleaved; the per-object cost and how it scales. */
#include "benchlib.h"
#include "interop.h"

#include <stdlib.h>

enum { SIDE = 64, MAX_OBJECTS = 1024, SIZES = 4 };
static const cl_uint sizes[SIZES] = {1, 16, 256, 1024};

struct batch {
    struct interop_env *env;
    cl_mem *mems;
    cl_uint count;
};

static void acquire_release(void *ctx, struct bench_clock *clock)
{
    struct batch *b = ctx;

    BENCH_CL(b->env->cl->acquire(b->env->queue, b->count, b->mems, 0, NULL, NULL));
    bench_finish(b->env->queue);
    bench_mark(clock);
    BENCH_CL(b->env->cl->release(b->env->queue, b->count, b->mems, 0, NULL, NULL));
    bench_finish(b->env->queue);
    bench_mark(clock);
}

void bench_many(void)
{
    const struct test_texture_desc desc = {
        SIDE, SIDE, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
    static struct test_texture textures[MAX_OBJECTS];
    static cl_mem mems[MAX_OBJECTS];
    struct bench_variant variants[SIZES];
    struct bench_median medians[SIZES];
    struct batch batches[SIZES];
    struct interop_env env;
    char name[128];
    cl_int err;

    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        REQUIRE(test_texture_create(env.api, env.d3d, &textures[i], &desc, false, 1000 + i),
                "texture %d", i);
        mems[i] =
            env.cl->create_texture2d(env.context, CL_MEM_READ_WRITE, textures[i].resource, 0, &err);
        REQUIRE(err == CL_SUCCESS, "shared texture %d: %d", i, err);
    }
    for (int i = 0; i < SIZES; i++) {
        batches[i] = (struct batch){&env, mems, sizes[i]};
        variants[i] = (struct bench_variant){.name = "acquire+release",
                                             .frame = acquire_release,
                                             .ctx = &batches[i],
                                             .phase_names = {"acquire", "release"}};
    }
    bench_interleave(variants, SIZES, bench_frames, medians);
    for (int i = 0; i < SIZES; i++) {
        snprintf(name, sizeof(name), "P3 D3D11 %u objects 64x64 RGBA8: acquire+release", sizes[i]);
        bench_times(name, &variants[i], &medians[i]);
        snprintf(name, sizeof(name), "P3 D3D11 %u objects: per object", sizes[i]);
        bench_value(name, bench_scaled(&medians[i], 1000.0 / sizes[i]), "us");
    }
    bench_ratio("P3 D3D11 per-object(1024) / per-object(1)",
                bench_frame_ratio(&medians[SIZES - 1], &medians[0], 1.0 / sizes[SIZES - 1]), 1.20);
    bench_medians_free(medians, SIZES);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        clReleaseMemObject(mems[i]);
        if (i == 0 || i == MAX_OBJECTS - 1)
            REQUIRE(test_texture_intact(env.api, &textures[i], "P3 texture after the loop"),
                    "P3: acquire+release changed texture %d", i);
        test_texture_free(env.api, &textures[i]);
    }
    interop_close(&env);
}
