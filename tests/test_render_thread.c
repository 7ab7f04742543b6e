/* A program shaped as real ones are: a render thread uses the Direct3D immediate context
 * (uploads, copies, maps of its own staging copies) while another thread runs acquire, kernel
 * and release cycles on a shared buffer or texture. The program keeps Direct3D's rule (only the
 * render thread touches the immediate context) and leaves multithread protection as it found it,
 * off (D3D10 devices start protected: the test turns that off before the OpenCL context). dxcl
 * copies through the same immediate context, so it must not overlap the render thread's calls.
 * Both threads' data must be exact, and nothing may crash. Each case runs in a child process,
 * so that a crash in one is reported and the others still run. */
#include "interop.h"
#include "threads.h"

#include <d3d10.h>
#include <stdlib.h>

/* 256 x 256: the shared texture is large enough for a direct twin (core/twin.h) where the GPU
 * path makes them (the rig's DXVK mode on the GPU). */
#define W 256
#define H 256
#define PIXELS (W * H)
#define RENDER_ROUNDS 200
#define CL_CYCLES 60 /* at least; the OpenCL thread cycles until the render thread is done */

struct render_thread {
    const struct test_api *api;
    void *device;
    void *texture;          /* the render thread's own */
    volatile LONG stop;     /* the OpenCL thread stopped early (a failure): stop too */
    volatile LONG rounds;   /* completed */
    volatile LONG failures; /* rounds whose read back differed from what was written */
};

static DWORD WINAPI render_main(void *arg)
{
    struct render_thread *r = arg;
    uint32_t *data = malloc(PIXELS * 4), *back = malloc(PIXELS * 4);

    for (LONG round = 0; data && back && round < RENDER_ROUNDS && !r->stop; round++) {
        test_fill_bytes(data, PIXELS * 4, 1000 + (uint32_t)round);
        if (!r->api->write_subresource(r->texture, 0, data) ||
            !r->api->read_subresource(r->texture, 0, back) || memcmp(data, back, PIXELS * 4))
            InterlockedIncrement(&r->failures);
        InterlockedIncrement(&r->rounds);
        test_watchdog_progress();
    }
    free(data);
    free(back);
    return 0;
}

/* The shared resource: a buffer or an R32_UINT texture of PIXELS words, all zero. */
static void *shared_resource(const struct test_api *api, void *device, bool texture)
{
    static const uint32_t zeros[PIXELS];
    const void *data[1] = {zeros};
    struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT, 1};

    return texture ? api->create_texture2d(device, &desc, data)
                   : api->create_buffer(device, PIXELS * 4, TEST_USAGE_DEFAULT, zeros);
}

/* The cycle's kernel: buffers count up ("inc"), textures flip every bit ("xor2" in place is not
 * allowed, so the image is read and written through a scratch image: src -> scratch -> src). */
struct cl_work {
    struct interop_env *env;
    cl_mem shared, scratch;
    cl_kernel forward, back;
    bool texture;
};

static void open_work(struct cl_work *w, struct interop_env *env, void *resource, bool texture)
{
    cl_image_format format = {CL_R, CL_UNSIGNED_INT32};
    cl_uint4 mask = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}};
    cl_uint4 none = {{0, 0, 0, 0}};
    cl_int err;

    *w = (struct cl_work){.env = env, .texture = texture};
    w->shared = texture
                    ? env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, resource, 0, &err)
                    : env->cl->create_buffer(env->context, CL_MEM_READ_WRITE, resource, &err);
    REQUIRE(err == CL_SUCCESS, "shared object: %d", err);
    if (!texture) {
        w->forward = interop_kernel(env, "inc");
        CHECK_ERR(clSetKernelArg(w->forward, 0, sizeof(cl_mem), &w->shared), CL_SUCCESS);
        return;
    }
    w->scratch = clCreateImage2D(env->context, CL_MEM_READ_WRITE, &format, W, H, 0, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "scratch image: %d", err);
    w->forward = interop_kernel(env, "xor2");
    w->back = interop_kernel(env, "xor2");
    CHECK_ERR(clSetKernelArg(w->forward, 0, sizeof(cl_mem), &w->shared), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(w->forward, 1, sizeof(cl_mem), &w->scratch), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(w->forward, 2, sizeof(mask), &mask), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(w->back, 0, sizeof(cl_mem), &w->scratch), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(w->back, 1, sizeof(cl_mem), &w->shared), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(w->back, 2, sizeof(none), &none), CL_SUCCESS);
}

static void close_work(struct cl_work *w)
{
    clReleaseKernel(w->forward);
    if (w->back)
        clReleaseKernel(w->back);
    if (w->scratch)
        clReleaseMemObject(w->scratch);
    clReleaseMemObject(w->shared);
}

/* What every word holds after `cycles` cycles. */
static uint32_t expected(bool texture, unsigned cycles)
{
    return texture ? (cycles % 2 ? 0xffffffffu : 0) : cycles;
}

static bool read_shared(struct cl_work *w, uint32_t *out)
{
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    cl_command_queue queue = w->env->queue;

    if (w->texture)
        return clEnqueueReadImage(queue, w->shared, CL_TRUE, origin, region, 0, 0, out, 0, NULL,
                                  NULL) == CL_SUCCESS;
    return clEnqueueReadBuffer(queue, w->shared, CL_TRUE, 0, PIXELS * 4, out, 0, NULL, NULL) ==
           CL_SUCCESS;
}

static bool all_equal(const uint32_t *words, uint32_t want)
{
    for (size_t i = 0; i < PIXELS; i++)
        if (words[i] != want)
            return false;
    return true;
}

/* One acquire, check, kernel, release; false at the first wrong value or failed call. */
static bool cycle(struct cl_work *w, unsigned index, uint32_t *scratch)
{
    const struct interop_env *env = w->env;
    size_t global[2] = {w->texture ? W : PIXELS, w->texture ? H : 1};
    cl_int err = env->cl->acquire(env->queue, 1, &w->shared, 0, NULL, NULL);
    bool seen;

    CHECK_ERR(err, CL_SUCCESS);
    if (err != CL_SUCCESS)
        return false;
    seen = read_shared(w, scratch) && all_equal(scratch, expected(w->texture, index));
    CHECK(seen, "cycle %u: OpenCL does not see what the last release wrote (%08x)", index,
          scratch[0]);
    err = clEnqueueNDRangeKernel(env->queue, w->forward, w->texture ? 2 : 1, NULL, global, NULL, 0,
                                 NULL, NULL);
    if (err == CL_SUCCESS && w->back)
        err = clEnqueueNDRangeKernel(env->queue, w->back, 2, NULL, global, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = env->cl->release(env->queue, 1, &w->shared, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(env->queue);
    CHECK_ERR(err, CL_SUCCESS);
    return seen && err == CL_SUCCESS;
}

/* The device as the program made it, with multithread protection off. */
static void *unprotected_device(const struct test_api *api)
{
    void *device = api->create_device();
    ID3D10Multithread *mt;

    REQUIRE(device != NULL, "%s: no device", api->name);
    mt = api->multithread(device); /* ID3D10Multithread and ID3D11Multithread share a vtable */
    REQUIRE(mt != NULL, "%s: no multithread interface", api->name);
    ID3D10Multithread_SetMultithreadProtected(mt, FALSE);
    ID3D10Multithread_Release(mt);
    return device;
}

static void run_case(const struct test_api *api, bool texture)
{
    struct interop_env env = {.api = api};
    struct render_thread render = {.api = api};
    struct cl_work work;
    uint32_t *words = calloc(PIXELS, 4);
    struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT, 1};
    void *resource;
    HANDLE thread;
    unsigned done = 0;
    cl_int err;

    REQUIRE(words != NULL, "out of memory");
    env.platform = test_platform();
    env.device = test_device(env.platform);
    interop_load(api, env.platform);
    env.cl = api->cl;
    env.d3d = render.device = unprotected_device(api);
    env.context = interop_context(&env, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    env.queue = clCreateCommandQueue(env.context, env.device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    resource = shared_resource(api, env.d3d, texture);
    render.texture = api->create_texture2d(env.d3d, &desc, NULL);
    REQUIRE(resource && render.texture, "resources");
    open_work(&work, &env, resource, texture);

    thread = CreateThread(NULL, 0, render_main, &render, 0, NULL);
    REQUIRE(thread != NULL, "CreateThread: %lu", GetLastError());
    /* Both threads run at once for the whole render: cycles until it is done. */
    while ((done < CL_CYCLES || WaitForSingleObject(thread, 0) == WAIT_TIMEOUT) &&
           cycle(&work, done, words)) {
        done++;
        test_watchdog_progress();
    }
    InterlockedExchange(&render.stop, 1);
    WaitForSingleObject(thread, INFINITE);
    CloseHandle(thread);

    printf("%s %s: %u OpenCL cycles beside %ld render rounds\n", api->name,
           texture ? "texture" : "buffer", done, render.rounds);
    CHECK(done >= CL_CYCLES, "OpenCL cycles: %u, want at least %u", done, CL_CYCLES);
    CHECK(render.rounds == RENDER_ROUNDS, "render rounds: %ld of %u", render.rounds, RENDER_ROUNDS);
    CHECK(render.failures == 0, "render thread: %ld of %ld rounds wrong", render.failures,
          render.rounds);
    close_work(&work);
    CHECK(api->read_subresource(resource, 0, words) && all_equal(words, expected(texture, done)),
          "Direct3D holds %08x after %u cycles, want %08x", words[0], done,
          expected(texture, done));
    api->release(render.texture);
    api->release(resource);
    clReleaseCommandQueue(env.queue);
    clReleaseContext(env.context);
    api->release(env.d3d);
    free(words);
}

static const struct test_api *const apis[] = {&api_d3d11_khr, &api_d3d10_khr};

int main(int argc, char **argv)
{
    char args[32];

    test_exit_on_crash("render_thread");
    if (argc == 3 && !strcmp(argv[1], "case")) {
        int index = atoi(argv[2]);
        test_watchdog_start("render_thread", 60000, NULL, NULL);
        run_case(apis[index / 2], index % 2);
        return test_child_finish("render_thread");
    }
    for (int index = 0; index < 4; index++) {
        char what[64];
        snprintf(args, sizeof(args), "case %d", index);
        snprintf(what, sizeof(what), "%s %s beside a render thread", apis[index / 2]->name,
                 index % 2 ? "texture" : "buffer");
        test_check_child(args, what);
    }
    return test_finish("render_thread");
}
