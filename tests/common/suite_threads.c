/* Two threads share one Direct3D device (with ID3D1xMultithread protection on, as a threaded
 * program turns it on) and one OpenCL context; each acquires, runs a kernel on and releases
 * its own textures on its own queue, many times. Every round's data must be exact, and the
 * device's references must all be gone at the end.
 * Then the lock order: one thread acquires and releases while it holds the protection itself,
 * as a program may, while the other is already inside an acquire waiting for the protection.
 * dxcl must take the protection before its own device lock, or the two deadlock; a watchdog
 * turns that into a failure. */
#include "interop.h"
#include "suites.h"

#include <d3d10.h>

enum { W = 64, H = 32, ROUNDS = 25, THREADS = 2 };

static const char *source =
    "__kernel void add(__read_only image2d_t src, __write_only image2d_t dst, uint k)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imageui(dst, p, read_imageui(src, p) + (uint4)(k)); }\n";

struct shared {
    const struct test_api *api;
    void *device;
    ID3D10Multithread *multithread; /* ID3D11Multithread has the same IID and vtable */
    cl_context context;
    cl_device_id cl_device;
    volatile LONG failures;
};

struct worker {
    struct shared *shared;
    unsigned base;
};

/* The program's own Direct3D use from a thread happens inside the protection. */
static bool round_trip(struct shared *s, cl_command_queue queue, cl_kernel kernel,
                       cl_mem objects[2])
{
    const size_t region[2] = {W, H};
    const cl_uint one = 1;
    const struct test_cl_fns *cl = s->api->cl;
    bool ok = cl->acquire(queue, 2, objects, 0, NULL, NULL) == CL_SUCCESS;

    /* a -> b adds 1, then b -> a adds 1: a gains 2 per round, b is a + 1. */
    for (int pass = 0; pass < 2 && ok; pass++) {
        ok &= clSetKernelArg(kernel, 0, sizeof(cl_mem), &objects[pass]) == CL_SUCCESS;
        ok &= clSetKernelArg(kernel, 1, sizeof(cl_mem), &objects[1 - pass]) == CL_SUCCESS;
        ok &= clSetKernelArg(kernel, 2, sizeof(one), &one) == CL_SUCCESS;
        ok &= clEnqueueNDRangeKernel(queue, kernel, 2, NULL, region, NULL, 0, NULL, NULL) ==
              CL_SUCCESS;
    }
    return cl->release(queue, 2, objects, 0, NULL, NULL) == CL_SUCCESS && ok;
}

static DWORD WINAPI run_worker(void *arg)
{
    struct worker *w = arg;
    struct shared *s = w->shared;
    unsigned data[W * H];
    cl_int err;

    for (int i = 0; i < W * H; i++)
        data[i] = w->base + (unsigned)i;
    void *a = interop_protected_texture(s->api, s->device, s->multithread, W, H, data),
         *b = interop_protected_texture(s->api, s->device, s->multithread, W, H, data);
    cl_command_queue queue = clCreateCommandQueue(s->context, s->cl_device, 0, &err);
    cl_kernel kernel = test_kernel(s->context, s->cl_device, source, "add");
    cl_mem objects[2] = {s->api->cl->create_texture2d(s->context, 0, a, 0, &err),
                         s->api->cl->create_texture2d(s->context, 0, b, 0, &err)};

    for (unsigned round = 0; round < ROUNDS; round++) {
        if (!objects[0] || !objects[1] || !round_trip(s, queue, kernel, objects) ||
            !interop_protected_holds(s->api, s->multithread, a, W, H, w->base + 2 * (round + 1)) ||
            !interop_protected_holds(s->api, s->multithread, b, W, H, w->base + 2 * round + 1)) {
            fprintf(stderr, "%s: thread %u wrong in round %u\n", s->api->name, w->base >> 20,
                    round);
            InterlockedIncrement(&s->failures);
            break;
        }
    }
    for (int i = 0; i < 2; i++)
        if (objects[i])
            clReleaseMemObject(objects[i]);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    ID3D10Multithread_Enter(s->multithread);
    s->api->release(a);
    s->api->release(b);
    ID3D10Multithread_Leave(s->multithread);
    return 0;
}

enum { ORDER_ROUNDS = 6, ORDER_TIMEOUT_MS = 60000, ORDER_HEAD_START_MS = 100 };

struct order_worker {
    struct shared *shared;
    bool holds_protection;
    HANDLE inside; /* set by the holder once it has entered the protection */
    void *texture;
    cl_mem object;
    cl_command_queue queue;
    bool ok;
};

static DWORD WINAPI run_order_worker(void *arg)
{
    struct order_worker *w = arg;
    const struct test_cl_fns *cl = w->shared->api->cl;

    if (w->holds_protection) {
        ID3D10Multithread_Enter(w->shared->multithread);
        SetEvent(w->inside);
        Sleep(ORDER_HEAD_START_MS); /* the other thread gets into its acquire meanwhile */
    } else {
        WaitForSingleObject(w->inside, INFINITE);
    }
    w->ok = cl->acquire(w->queue, 1, &w->object, 0, NULL, NULL) == CL_SUCCESS &&
            cl->release(w->queue, 1, &w->object, 0, NULL, NULL) == CL_SUCCESS &&
            clFinish(w->queue) == CL_SUCCESS;
    if (w->holds_protection)
        ID3D10Multithread_Leave(w->shared->multithread);
    return 0;
}

static void lock_order(struct shared *s)
{
    struct order_worker workers[2];
    HANDLE inside = CreateEventW(NULL, FALSE, FALSE, NULL), threads[2];
    unsigned data[W * H] = {0};
    cl_int err;

    for (int i = 0; i < 2; i++) {
        workers[i] =
            (struct order_worker){.shared = s, .holds_protection = i == 0, .inside = inside};
        workers[i].texture =
            interop_protected_texture(s->api, s->device, s->multithread, W, H, data);
        workers[i].object =
            s->api->cl->create_texture2d(s->context, 0, workers[i].texture, 0, &err);
        workers[i].queue = clCreateCommandQueue(s->context, s->cl_device, 0, &err);
        REQUIRE(workers[i].object && workers[i].queue, "%s: lock order objects", s->api->name);
    }
    for (int round = 0; round < ORDER_ROUNDS; round++) {
        for (int i = 0; i < 2; i++)
            threads[i] = CreateThread(NULL, 0, run_order_worker, &workers[i], 0, NULL);
        if (WaitForMultipleObjects(2, threads, TRUE, ORDER_TIMEOUT_MS) == WAIT_TIMEOUT) {
            fprintf(stderr,
                    "%s: DEADLOCK: an acquire inside the program's multithread protection "
                    "against one waiting for it (round %d)\n",
                    s->api->name, round);
            fflush(stderr);
            TerminateProcess(GetCurrentProcess(), 3);
        }
        for (int i = 0; i < 2; i++) {
            CloseHandle(threads[i]);
            CHECK(workers[i].ok, "%s: lock order round %d, thread %d's calls", s->api->name, round,
                  i);
        }
    }
    for (int i = 0; i < 2; i++) {
        clReleaseMemObject(workers[i].object);
        clReleaseCommandQueue(workers[i].queue);
        ID3D10Multithread_Enter(s->multithread);
        s->api->release(workers[i].texture);
        ID3D10Multithread_Leave(s->multithread);
    }
    CloseHandle(inside);
}

void suite_threads(const struct test_api *api)
{
    cl_platform_id platform = test_platform();
    struct shared s = {.api = api, .cl_device = test_device(platform)};
    struct worker workers[THREADS];
    HANDLE threads[THREADS];
    cl_int err;

    interop_load(api, platform);
    REQUIRE((s.device = api->create_device()), "%s device", api->name);
    REQUIRE((s.multithread = api->multithread(s.device)), "%s multithread object", api->name);
    ID3D10Multithread_SetMultithreadProtected(s.multithread, TRUE);
    CHECK(ID3D10Multithread_GetMultithreadProtected(s.multithread), "protection on");
    cl_context_properties props[] = {api->context_property, (cl_context_properties)s.device, 0};
    s.context = clCreateContext(props, 1, &s.cl_device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);

    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){&s, (unsigned)(i + 1) << 20};
        threads[i] = CreateThread(NULL, 0, run_worker, &workers[i], 0, NULL);
    }
    WaitForMultipleObjects(THREADS, threads, TRUE, INFINITE);
    for (int i = 0; i < THREADS; i++)
        CloseHandle(threads[i]);
    CHECK(s.failures == 0, "%s: %ld threads saw wrong data", api->name, (long)s.failures);
    lock_order(&s);

    CHECK_ERR(clReleaseContext(s.context), CL_SUCCESS);
    ID3D10Multithread_Release(s.multithread);
    test_refcount_settled(s.device, 1); /* dxcl's references go once the driver is done */
    CHECK(api->release(s.device) == 0, "%s: the device is released once everything is gone",
          api->name);
}
