/* Thread stress (docs/reliability.md): 8 threads on one D3D11 device with ID3D11Multithread
 * protection on (phases 1-3) and off (phase 4), each running frames of acquire -> kernel ->
 * release on its own shared textures, in four phases:
 *   1. one context shared by all threads (a queue and objects per thread);
 *   2. a context per thread, all on the one device;
 *   3. each thread queues acquire -> kernel -> release without waiting and hands its objects,
 *      queue and context to a releaser thread, which releases them while the commands are
 *      still queued;
 *   4. as 2 with the protection off: the threads only call OpenCL (Direct3D forbids their own
 *      concurrent use of the immediate context), so dxcl must serialise the Direct3D calls it
 *      makes for them; the main thread checks the data once all have finished.
 * Every frame's data is checked bit-exactly through a Direct3D readback every CHECK_EVERY
 * frames and at the end. A watchdog turns a hang into a failure: it prints each thread's phase,
 * frame and step and ends the process with exit code 3.
 *   test_stress_threads [frames]   (or DXCL_STRESS_FRAMES; default 24, make soak runs 1000) */
#include "interop.h"

#include <stdlib.h>
#include <string.h>

enum { W = 32, H = 16, THREADS = 8, CHECK_EVERY = 8, DEFAULT_FRAMES = 24 };
static unsigned watchdog_ms = 120000; /* DXCL_STRESS_WATCHDOG_MS */

static const char *source =
    "__kernel void add(__read_only image2d_t src, __write_only image2d_t dst, uint k)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imageui(dst, p, read_imageui(src, p) + (uint4)(k)); }\n";

static const struct test_api *api = &api_d3d11_khr;
static void *device;
static ID3D10Multithread *multithread; /* ID3D11Multithread: the same IID and vtable */
static cl_device_id cl_device;
static unsigned frames = DEFAULT_FRAMES;
static volatile LONG failures;

/* What the watchdog prints. */
struct thread_state {
    volatile LONG frame;
    const char *volatile step;
    int phase;
};
static struct thread_state states[THREADS + 1]; /* the last one is the releaser */
static volatile LONG finished;

static DWORD WINAPI watchdog(void *arg)
{
    DWORD waited = 0;

    (void)arg;
    while (!finished) {
        Sleep(100);
        waited += 100;
        if (waited < watchdog_ms)
            continue;
        fprintf(stderr, "stress: HANG after %u ms\n", watchdog_ms);
        for (int i = 0; i <= THREADS; i++)
            fprintf(stderr, "  thread %d%s: phase %d frame %ld step %s\n", i,
                    i == THREADS ? " (releaser)" : "", states[i].phase, (long)states[i].frame,
                    states[i].step ? states[i].step : "-");
        fflush(stderr);
        fflush(stdout);
        TerminateProcess(GetCurrentProcess(), 3);
    }
    return 0;
}

/* One frame: a -> b adds 1, b -> a adds 1 (a gains 2 per frame, b is a - 1). */
static bool enqueue_frame(struct thread_state *st, cl_command_queue queue, cl_kernel kernel,
                          cl_mem objects[2])
{
    const size_t region[2] = {W, H};
    const cl_uint one = 1;
    bool ok;

    st->step = "acquire";
    ok = api->cl->acquire(queue, 2, objects, 0, NULL, NULL) == CL_SUCCESS;
    st->step = "kernel";
    for (int pass = 0; pass < 2 && ok; pass++) {
        ok &= clSetKernelArg(kernel, 0, sizeof(cl_mem), &objects[pass]) == CL_SUCCESS;
        ok &= clSetKernelArg(kernel, 1, sizeof(cl_mem), &objects[1 - pass]) == CL_SUCCESS;
        ok &= clSetKernelArg(kernel, 2, sizeof(one), &one) == CL_SUCCESS;
        ok &= clEnqueueNDRangeKernel(queue, kernel, 2, NULL, region, NULL, 0, NULL, NULL) ==
              CL_SUCCESS;
    }
    st->step = "release";
    ok &= api->cl->release(queue, 2, objects, 0, NULL, NULL) == CL_SUCCESS;
    return ok;
}

static cl_context make_context(void)
{
    cl_context_properties props[] = {api->context_property, (cl_context_properties)device, 0};
    cl_int err;
    cl_context context = clCreateContext(props, 1, &cl_device, NULL, NULL, &err);

    return err == CL_SUCCESS ? context : NULL;
}

/* Phase 3's hand-over: the releaser drops what a worker queued on. */
struct handover {
    cl_mem objects[2];
    cl_kernel kernel;
    cl_command_queue queue;
    cl_context context;
};
static struct handover handed[THREADS];

/* Phase 4's textures and their base values, checked by the main thread at the end. */
static void *unprotected_textures[THREADS][2];
static unsigned unprotected_bases[THREADS];
static HANDLE handed_ready[THREADS], released[THREADS];

struct worker {
    int index;
    int phase;
    cl_context shared_context; /* phase 1 */
};

static void fail(struct worker *w, unsigned frame, const char *what)
{
    fprintf(stderr, "stress: phase %d thread %d frame %u: %s\n", w->phase, w->index, frame, what);
    InterlockedIncrement(&failures);
}

static DWORD WINAPI run_worker(void *arg)
{
    struct worker *w = arg;
    struct thread_state *st = &states[w->index];
    unsigned base = (unsigned)(w->index + 1) << 20, data[W * H], frame = 0;
    cl_int err;

    st->phase = w->phase;
    st->frame = 0;
    for (int i = 0; i < W * H; i++)
        data[i] = base + (unsigned)i;
    st->step = "setup";
    void *a = interop_protected_texture(api, device, multithread, W, H, data),
         *b = interop_protected_texture(api, device, multithread, W, H, data);
    cl_context context = w->shared_context ? w->shared_context : make_context();
    if (!a || !b || !context) {
        fail(w, 0, "setup");
        return 0;
    }
    cl_command_queue queue = clCreateCommandQueue(context, cl_device, 0, &err);
    cl_kernel kernel = test_kernel(context, cl_device, source, "add");
    cl_mem objects[2] = {api->cl->create_texture2d(context, 0, a, 0, &err),
                         api->cl->create_texture2d(context, 0, b, 0, &err)};
    if (!queue || !objects[0] || !objects[1]) {
        fail(w, 0, "queue or shared objects");
        return 0;
    }

    /* Phase 3 runs frames - 1 finished frames, then one that another thread ends. */
    unsigned waited_frames = w->phase == 3 ? frames - 1 : frames;
    for (frame = 0; frame < waited_frames; frame++) {
        st->frame = (LONG)frame;
        if (!enqueue_frame(st, queue, kernel, objects)) {
            fail(w, frame, "a call failed");
            break;
        }
        if (w->phase == 4 || ((frame + 1) % CHECK_EVERY && frame + 1 != waited_frames))
            continue;
        st->step = "finish";
        clFinish(queue);
        st->step = "check";
        if (!interop_protected_holds(api, multithread, a, W, H, base + 2 * (frame + 1)) ||
            !interop_protected_holds(api, multithread, b, W, H, base + 2 * frame + 1)) {
            fail(w, frame, "wrong data");
            break;
        }
    }
    if (w->phase == 3) {
        st->frame = (LONG)frame;
        if (!enqueue_frame(st, queue, kernel, objects))
            fail(w, frame, "the last frame's calls failed");
        clFlush(queue);
        handed[w->index] = (struct handover){{objects[0], objects[1]}, kernel, queue, context};
        st->step = "handed over";
        SetEvent(handed_ready[w->index]);
        /* The releaser has dropped everything; the commands still complete. */
        WaitForSingleObject(released[w->index], INFINITE);
        if (!interop_protected_holds(api, multithread, a, W, H, base + 2 * frames) ||
            !interop_protected_holds(api, multithread, b, W, H, base + 2 * frames - 1))
            fail(w, frames, "wrong data after release from another thread");
    } else {
        st->step = "cleanup";
        clReleaseMemObject(objects[0]);
        clReleaseMemObject(objects[1]);
        clReleaseKernel(kernel);
        clReleaseCommandQueue(queue);
        if (!w->shared_context)
            clReleaseContext(context);
    }
    if (w->phase == 4) {
        unprotected_textures[w->index][0] = a;
        unprotected_textures[w->index][1] = b;
        unprotected_bases[w->index] = base;
        st->step = "done";
        return 0;
    }
    ID3D10Multithread_Enter(multithread);
    api->release(a);
    api->release(b);
    ID3D10Multithread_Leave(multithread);
    st->step = "done";
    return 0;
}

/* Phase 4's check, on the main thread once the workers are gone. */
static void check_unprotected(void)
{
    for (int i = 0; i < THREADS; i++) {
        void *a = unprotected_textures[i][0], *b = unprotected_textures[i][1];
        unsigned base = unprotected_bases[i];

        if (!a || !b)
            continue; /* its setup failed, counted already */
        CHECK(interop_protected_holds(api, multithread, a, W, H, base + 2 * frames) &&
                  interop_protected_holds(api, multithread, b, W, H, base + 2 * frames - 1),
              "phase 4 thread %d: the textures hold every frame's result", i);
        api->release(a);
        api->release(b);
    }
}

/* Phase 3: releases each worker's objects, kernel, queue and context (their only references)
 * while the worker's last frame is queued. */
static DWORD WINAPI run_releaser(void *arg)
{
    struct thread_state *st = &states[THREADS];
    bool ok = true;

    (void)arg;
    st->phase = 3;
    for (int i = 0; i < THREADS; i++) {
        st->frame = i;
        st->step = "wait";
        WaitForSingleObject(handed_ready[i], INFINITE);
        st->step = "release";
        ok &= clReleaseMemObject(handed[i].objects[0]) == CL_SUCCESS;
        ok &= clReleaseMemObject(handed[i].objects[1]) == CL_SUCCESS;
        ok &= clReleaseKernel(handed[i].kernel) == CL_SUCCESS;
        ok &= clReleaseCommandQueue(handed[i].queue) == CL_SUCCESS;
        ok &= clReleaseContext(handed[i].context) == CL_SUCCESS;
        SetEvent(released[i]);
    }
    if (!ok) {
        fprintf(stderr, "stress: the releaser's calls failed\n");
        InterlockedIncrement(&failures);
    }
    st->step = "done";
    return 0;
}

static void run_phase(int phase)
{
    struct worker workers[THREADS];
    HANDLE threads[THREADS + 1];
    int count = THREADS;
    cl_context shared = phase == 1 ? make_context() : NULL;
    DWORD start = GetTickCount();

    REQUIRE(phase != 1 || shared, "the shared context");
    for (int i = 0; i < THREADS; i++) {
        handed_ready[i] = CreateEventW(NULL, FALSE, FALSE, NULL);
        released[i] = CreateEventW(NULL, FALSE, FALSE, NULL);
        workers[i] = (struct worker){i, phase, shared};
        threads[i] = CreateThread(NULL, 0, run_worker, &workers[i], 0, NULL);
    }
    if (phase == 3)
        threads[count++] = CreateThread(NULL, 0, run_releaser, NULL, 0, NULL);
    WaitForMultipleObjects((DWORD)count, threads, TRUE, INFINITE);
    for (int i = 0; i < count; i++)
        CloseHandle(threads[i]);
    for (int i = 0; i < THREADS; i++) {
        CloseHandle(handed_ready[i]);
        CloseHandle(released[i]);
    }
    if (shared)
        CHECK_ERR(clReleaseContext(shared), CL_SUCCESS);
    if (phase == 4)
        check_unprotected();
    printf("stress: phase %d: %d threads x %u frames in %lu ms\n", phase, THREADS, frames,
           (unsigned long)(GetTickCount() - start));
    fflush(stdout);
}

/* The device's reference count (the caller holds one). */
static ULONG references(void *d3d)
{
    IUnknown_AddRef((IUnknown *)d3d);
    return IUnknown_Release((IUnknown *)d3d);
}

int main(int argc, char **argv)
{
    cl_platform_id platform = test_platform();
    const char *env = getenv("DXCL_STRESS_FRAMES");

    if (argc > 1)
        frames = (unsigned)strtoul(argv[1], NULL, 10);
    else if (env && *env)
        frames = (unsigned)strtoul(env, NULL, 10);
    REQUIRE(frames >= 1, "frames: at least 1");
    if ((env = getenv("DXCL_STRESS_WATCHDOG_MS")) && *env)
        watchdog_ms = (unsigned)strtoul(env, NULL, 10);
    cl_device = test_device(platform);
    interop_load(api, platform);
    REQUIRE((device = api->create_device()), "D3D11 device");
    REQUIRE((multithread = api->multithread(device)), "multithread object");
    ID3D10Multithread_SetMultithreadProtected(multithread, TRUE);
    CHECK(ID3D10Multithread_GetMultithreadProtected(multithread), "protection on");
    CloseHandle(CreateThread(NULL, 0, watchdog, NULL, 0, NULL));

    /* DXCL_STRESS_PHASES: the phases to run, e.g. "24" (default all). */
    const char *phases = getenv("DXCL_STRESS_PHASES");
    for (int phase = 1; phase <= 4; phase++) {
        if (phases && *phases && !strchr(phases, '0' + phase))
            continue;
        ID3D10Multithread_SetMultithreadProtected(multithread, phase != 4);
        test_progress("stress: phase %d: %d threads x %u frames", phase, THREADS, frames);
        run_phase(phase);
    }
    finished = 1;
    CHECK(failures == 0, "%ld thread failures", (long)failures);

    ID3D10Multithread_Release(multithread);
    /* A teardown the driver was still busy with ends on dxcl's waiter (docs/design.md, "Threads",
     * parked teardowns): on the GPU path a release returns before OpenCL's commands are done, so
     * the last objects may still hold the device for a moment after the program dropped them. */
    for (int waited = 0; waited < 400 && references(device) > 1; waited++)
        Sleep(25);
    CHECK(api->release(device) == 0, "the device is released once everything is gone");
    printf("stress: %d threads x %u frames x 4 phases, %ld failures\n", THREADS, frames,
           (long)failures);
    return test_finish("stress_threads");
}
