/* P6: how soon a program's release event completes after the release's transfer ends (issue
 * 40; docs/design.md, "The waiter"). Two contexts, frames interleaved: one with
 * CL_CONTEXT_INTEROP_USER_SYNC CL_TRUE, where every release pends (it returns at once, and
 * dxcl's waiter ends it once its downloads are done, which completes the program's event), and
 * one without, where the release ends in the call (it waits for its downloads itself). Each
 * frame: acquire a shared 64x64 texture, a kernel that spins for about 20 ms, a fill of the
 * shared image, the release with an event, and the program's one-item kernel waiting for that
 * event. A frame's time is that kernel's start minus the fill's end, on the device's clock (a
 * profiling queue; a kernel, not a marker: NVIDIA's markers report times that are no
 * execution's, 20-60 ms before the fill's end on the H200): the release's transfer (the download,
 * the hand-back to Direct3D) and, when pending, the waiter's wake-up. The pending frame's time
 * beyond the in-call one is what waiting on another thread costs. Target: 1 ms. (Before issue 40
 * the waiter found the downloads' end by polling with a backoff: up to the backoff's step late,
 * about 10 ms after a 20 ms kernel.) */
#include "benchlib.h"
#include "interop.h"

#include <stdlib.h>

enum { SIDE = 64, SPIN_MS = 20 };

static const char spin_source[] =
    "__kernel void spin(__global uint *p, uint n) {\n"
    "    uint x = p[0];\n"
    "    for (uint i = 0; i < n; i++) x = x * 1664525u + 1013904223u;\n"
    "    p[0] = x;\n"
    "}\n";

struct release_bench {
    struct interop_env env;
    void *texture;
    cl_mem shared, counter;
    cl_kernel spin;
    cl_uint spins; /* iterations for SPIN_MS */
};

static double profile_ms(cl_event event, cl_profiling_info what)
{
    cl_ulong ns = 0;

    BENCH_CL(clGetEventProfilingInfo(event, what, sizeof(ns), &ns, NULL));
    return ns / 1e6;
}

static void enqueue_spin(struct release_bench *b, cl_uint spins, const cl_event *after,
                         cl_event *event)
{
    const size_t one = 1;

    BENCH_CL(clSetKernelArg(b->spin, 0, sizeof(cl_mem), &b->counter));
    BENCH_CL(clSetKernelArg(b->spin, 1, sizeof(spins), &spins));
    BENCH_CL(clEnqueueNDRangeKernel(b->env.queue, b->spin, 1, NULL, &one, NULL, after ? 1 : 0,
                                    after, event));
}

/* The iterations that take about SPIN_MS on this device. */
static cl_uint calibrate(struct release_bench *b)
{
    const cl_uint probe = 1u << 22;
    cl_event event;
    double ms;

    enqueue_spin(b, probe, NULL, &event);
    BENCH_CL(clWaitForEvents(1, &event));
    ms =
        profile_ms(event, CL_PROFILING_COMMAND_END) - profile_ms(event, CL_PROFILING_COMMAND_START);
    clReleaseEvent(event);
    if (ms <= 0.01)
        return probe;
    return (cl_uint)(probe * (SPIN_MS / ms) < 4e9 ? probe * (SPIN_MS / ms) : 4e9);
}

static void release_open(struct release_bench *b, int user_sync)
{
    const struct test_texture_desc desc = {
        SIDE, SIDE, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
    cl_uint zero = 0;
    cl_int err;
    cl_program program;

    interop_open(&b->env, &api_d3d11_khr, user_sync, CL_QUEUE_PROFILING_ENABLE);
    b->texture = b->env.api->create_texture2d(b->env.d3d, &desc, NULL);
    REQUIRE(b->texture, "P6: cannot create the texture");
    b->shared = b->env.cl->create_texture2d(b->env.context, 0, b->texture, 0, &err);
    REQUIRE(err == CL_SUCCESS, "P6: shared image: %d", err);
    b->counter = clCreateBuffer(b->env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                sizeof(zero), &zero, &err);
    REQUIRE(err == CL_SUCCESS, "P6: buffer: %d", err);
    program = test_program(b->env.context, b->env.device, spin_source);
    b->spin = test_program_kernel(program, "spin");
    clReleaseProgram(program);
    b->spins = calibrate(b);
}

static void release_close(struct release_bench *b)
{
    clReleaseKernel(b->spin);
    clReleaseMemObject(b->counter);
    clReleaseMemObject(b->shared);
    b->env.api->release(b->texture);
    interop_close(&b->env);
}

/* One frame: the latency, ms, from the release's transfer end to its event's completion. */
static double release_frame(struct release_bench *b, cl_uint frame)
{
    const cl_uint4 color = {{frame, frame + 1, frame + 2, 255}};
    const size_t origin[3] = {0, 0, 0}, region[3] = {SIDE, SIDE, 1};
    cl_event filled, released, after;
    double latency;

    BENCH_CL(b->env.cl->acquire(b->env.queue, 1, &b->shared, 0, NULL, NULL));
    enqueue_spin(b, b->spins, NULL, NULL);
    BENCH_CL(clEnqueueFillImage(b->env.queue, b->shared, &color, origin, region, 0, NULL, &filled));
    BENCH_CL(b->env.cl->release(b->env.queue, 1, &b->shared, 0, NULL, &released));
    enqueue_spin(b, 0, &released, &after);
    BENCH_CL(clWaitForEvents(1, &after));
    latency = profile_ms(after, CL_PROFILING_COMMAND_START) -
              profile_ms(filled, CL_PROFILING_COMMAND_END);
    clReleaseEvent(after);
    clReleaseEvent(released);
    clReleaseEvent(filled);
    return latency;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static struct bench_spread spread_of(double *values, int count)
{
    qsort(values, count, sizeof(*values), compare_doubles);
    return (struct bench_spread){values[count / 2], values[count / 10],
                                 values[count - 1 - count / 10]};
}

void bench_release(void)
{
    enum { PENDING, IN_CALL };
    struct release_bench b[2];
    int frames = bench_frames < 30 ? bench_frames : 30;
    double *times[3];

    for (int i = 0; i < 3; i++)
        REQUIRE((times[i] = calloc(frames, sizeof(double))), "out of memory");
    release_open(&b[PENDING], CL_TRUE);
    release_open(&b[IN_CALL], INTEROP_NO_USER_SYNC);
    for (int v = 0; v < 2; v++)
        release_frame(&b[v], 0); /* warm-up: the waiter and its watches start */
    for (int i = 0; i < frames; i++) {
        for (int v = 0; v < 2; v++)
            times[v][i] = release_frame(&b[v], (cl_uint)i + 1);
        times[2][i] = times[PENDING][i] - times[IN_CALL][i];
    }
    bench_value("P6 D3D11 release event after the last command: pending (user sync)",
                spread_of(times[PENDING], frames), "ms");
    bench_value("P6 D3D11 release event after the last command: ended in the call",
                spread_of(times[IN_CALL], frames), "ms");
    bench_value_limit("P6 D3D11 pending release event, later than ended in the call",
                      spread_of(times[2], frames), "ms", 1.0);
    for (int i = 0; i < 3; i++)
        free(times[i]);
    release_close(&b[IN_CALL]);
    release_close(&b[PENDING]);
}
