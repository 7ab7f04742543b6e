/* Handle reuse (issue 18): dxcl keeps records of driver handles (shared objects, the events
 * of acquire and release, kernels with shared arguments). A driver hands out the address of
 * an object it has destroyed again soon, so a record must die before the driver can destroy
 * its object: otherwise the next object at that address, made by any thread, is answered for
 * from a dead record (a plain buffer reports a Direct3D resource or is refused as not acquired,
 * a marker reports CL_COMMAND_ACQUIRE_D3D11_OBJECTS_KHR, a kernel is guarded by a dead
 * kernel's arguments), or a thread's new record is dropped by another thread's late removal.
 *
 * THREADS threads loop, each on its own D3D11 buffers (one context, ID3D11Multithread
 * protection on). An iteration creates a shared object and a plain buffer, acquires, runs a
 * kernel, enqueues a marker and releases, with an event for each, and a kernel that has a
 * plain buffer and the (then released) shared object as arguments; then releases everything.
 * Meanwhile two churn threads make markers and plain buffers as fast as they can, so that what
 * the workers free is handed out again at once. Right after each creation a thread asks what
 * the new handle is:
 *  - the shared object reports its own resource (CL_MEM_D3D11_RESOURCE_KHR), the plain buffer
 *    none (CL_INVALID_D3D11_RESOURCE_KHR), and a write to the plain buffer is not refused;
 *  - each event reports its own command type (acquire, kernel, marker, release), and every
 *    churn marker CL_COMMAND_MARKER; every churn buffer is no shared object;
 *  - the two-argument kernel is refused with NOT_ACQUIRED (its second argument is a shared
 *    object that is not acquired), whatever one-argument kernel lived at its address before.
 * The kernel's first shared argument is set while one of its commands is still queued, so that
 * the driver's reference count of the kernel is above the program's (a kernel record must count
 * the program's references, not the driver's). At the end each buffer, read through Direct3D,
 * holds its initial contents plus one per iteration that used it: every acquire, kernel and
 * release did its work.
 *   test_handle_reuse [iterations [threads]]   (default 150 and 4; the full form: 2000 8) */
#include "interop.h"
#include "threads.h"

#include <d3d10.h>
#include <stdarg.h>
#include <stdlib.h>
#include <CL/cl_d3d11.h>

enum { MAX_THREADS = 16, BUFFERS = 4, ELEMENTS = 16, STALL_MS = 30000, PROGRESS_EVERY = 500 };

static const char *source = "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1u; }\n"
                            "__kernel void add2(__global uint *a, __global const uint *b)\n"
                            "{ a[get_global_id(0)] += b[get_global_id(0)]; }\n";

static const struct test_api *api = &api_d3d11_khr;

/* What a worker saw go wrong. */
enum failure {
    SHARED_CREATE,
    SHARED_RESOURCE,
    PLAIN_RESOURCE,
    PLAIN_WRITE,
    ACQUIRE,
    ACQUIRE_TYPE,
    KERNEL,
    KERNEL_TYPE,
    MARKER_TYPE,
    RELEASE,
    RELEASE_TYPE,
    GUARD,
    FAILURE_KINDS
};
static const char *const failure_names[FAILURE_KINDS] = {
    "creating the shared object failed",
    "the new shared object reports another resource",
    "a new plain buffer reports a Direct3D resource",
    "a write to a new plain buffer was refused",
    "the acquire failed",
    "the acquire's event reports another command type",
    "the kernel could not be enqueued",
    "the kernel's event reports another command type",
    "a marker's event reports another command type",
    "the release failed",
    "the release's event reports another command type",
    "a new kernel with a not-acquired shared argument was not refused with NOT_ACQUIRED",
};

struct shared {
    cl_device_id device;
    cl_context context;
    cl_program program;
    void *d3d;
    ID3D10Multithread *multithread;
    unsigned iterations;
};

struct worker {
    struct shared *shared;
    int index;
    void *buffers[BUFFERS];
    cl_uint initial[BUFFERS][ELEMENTS];
    unsigned uses[BUFFERS];
    cl_command_queue queue;
    unsigned failures[FAILURE_KINDS];
    char first[FAILURE_KINDS][160];
    volatile LONG iteration;
    const char *volatile step;
    bool reused_kernel;         /* a two-argument kernel got the address of a one-argument one */
    cl_uint driver_kernel_refs; /* the driver's count of a kernel with a command queued */
};

static struct worker workers[MAX_THREADS];
static unsigned thread_count = 4;

/* Churn threads make markers and plain buffers as fast as they can while the workers run, so
 * that the addresses the workers' events and objects free are handed out again at once, and
 * ask each new handle what it is: a record that outlives its driver object shows here. */
enum { CHURN_THREADS = 2 };
struct churn {
    struct shared *shared;
    cl_command_queue queue;
    volatile LONG stop;
    unsigned long handles;
    unsigned long wrong_markers, wrong_buffers;
    cl_int first_marker_error;
    cl_command_type first_marker_type;
    cl_int first_buffer_error;
};
static struct churn churns[CHURN_THREADS];

static void report_threads(void *unused)
{
    (void)unused;
    for (unsigned i = 0; i < thread_count; i++)
        fprintf(stderr, "  thread %u: iteration %ld, %s\n", i, (long)workers[i].iteration,
                workers[i].step ? workers[i].step : "-");
}

static void step(struct worker *w, const char *what)
{
    w->step = what;
    test_watchdog_progress();
}

static void fail(struct worker *w, enum failure kind, const char *fmt, ...)
    __attribute__((format(gnu_printf, 3, 4)));

/* Counts a failure and keeps the first one's details (CHECK is not thread-safe). */
static void fail(struct worker *w, enum failure kind, const char *fmt, ...)
{
    va_list args;

    if (w->failures[kind]++)
        return;
    va_start(args, fmt);
    vsnprintf(w->first[kind], sizeof(w->first[kind]), fmt, args);
    va_end(args);
}

static void expect_type(struct worker *w, cl_event event, cl_command_type want, enum failure kind)
{
    cl_command_type type = 0;
    cl_int err = clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL);

    if (err != CL_SUCCESS || type != want)
        fail(w, kind, "error %d, type 0x%x, want 0x%x", err, type, want);
}

/* The plain buffer is nobody's Direct3D resource and never needs acquiring. */
static cl_mem plain_buffer(struct worker *w)
{
    const cl_uint zeros[ELEMENTS] = {0};
    void *resource = NULL;
    cl_int err;
    cl_mem plain = clCreateBuffer(w->shared->context, CL_MEM_READ_WRITE, sizeof(zeros), NULL, &err);

    if (!plain)
        return NULL;
    err = clGetMemObjectInfo(plain, CL_MEM_D3D11_RESOURCE_KHR, sizeof(resource), &resource, NULL);
    if (err != CL_INVALID_D3D11_RESOURCE_KHR)
        fail(w, PLAIN_RESOURCE, "query returned %d (resource %p)", err, resource);
    err = clEnqueueWriteBuffer(w->queue, plain, CL_TRUE, 0, sizeof(zeros), zeros, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        fail(w, PLAIN_WRITE, "clEnqueueWriteBuffer returned %d", err);
    return plain;
}

/* A kernel whose first shared argument is set while one of its commands is still queued
 * (behind a user event): the driver's count may then hold a reference of its own. The kernel
 * is released at once; *address keeps where it was. */
static cl_int increment(struct worker *w, cl_mem shared, cl_mem plain, cl_event *done,
                        cl_kernel *address)
{
    const size_t size = ELEMENTS;
    cl_int err;
    cl_event gate = clCreateUserEvent(w->shared->context, &err);
    cl_kernel kernel = clCreateKernel(w->shared->program, "inc", &err);

    if (!kernel || !gate)
        return err;
    *address = kernel;
    clSetKernelArg(kernel, 0, sizeof(cl_mem), &plain);
    clEnqueueNDRangeKernel(w->queue, kernel, 1, NULL, &size, NULL, 1, &gate, NULL);
    if (!w->driver_kernel_refs)
        clGetKernelInfo(kernel, CL_KERNEL_REFERENCE_COUNT, sizeof(w->driver_kernel_refs),
                        &w->driver_kernel_refs, NULL);
    clSetKernelArg(kernel, 0, sizeof(cl_mem), &shared);
    err = clEnqueueNDRangeKernel(w->queue, kernel, 1, NULL, &size, NULL, 0, NULL, done);
    clSetUserEventStatus(gate, CL_COMPLETE);
    clReleaseEvent(gate);
    clReleaseKernel(kernel); /* the program's only reference */
    return err;
}

/* A fresh two-argument kernel with the shared object (not acquired now) as its second
 * argument must be refused, whichever kernel the driver had at its address before. */
static void check_guard(struct worker *w, cl_mem shared, cl_mem plain, cl_kernel previous)
{
    const size_t size = ELEMENTS;
    cl_int err;
    cl_kernel kernel = clCreateKernel(w->shared->program, "add2", &err);

    if (!kernel) {
        fail(w, GUARD, "clCreateKernel(add2) returned %d", err);
        return;
    }
    w->reused_kernel |= kernel == previous;
    clSetKernelArg(kernel, 0, sizeof(cl_mem), &plain);
    clSetKernelArg(kernel, 1, sizeof(cl_mem), &shared);
    err = clEnqueueNDRangeKernel(w->queue, kernel, 1, NULL, &size, NULL, 0, NULL, NULL);
    if (err != CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR)
        fail(w, GUARD, "clEnqueueNDRangeKernel returned %d (kernel %p%s)", err, (void *)kernel,
             kernel == previous ? ", at the address of the released inc kernel" : "");
    clReleaseKernel(kernel);
}

static void iterate(struct worker *w, unsigned iteration)
{
    const int which = (int)(iteration % BUFFERS);
    cl_event acquired = NULL, incremented = NULL, marker = NULL, released = NULL;
    cl_kernel inc_address = NULL;
    void *resource = NULL;
    cl_int err;

    step(w, "create");
    cl_mem shared = api->cl->create_buffer(w->shared->context, 0, w->buffers[which], &err);
    if (!shared) {
        fail(w, SHARED_CREATE, "error %d (buffer %d)", err, which);
        return;
    }
    err = clGetMemObjectInfo(shared, CL_MEM_D3D11_RESOURCE_KHR, sizeof(resource), &resource, NULL);
    if (err != CL_SUCCESS || resource != w->buffers[which])
        fail(w, SHARED_RESOURCE, "query returned %d, resource %p, want %p", err, resource,
             w->buffers[which]);
    cl_mem plain = plain_buffer(w);
    step(w, "acquire");
    err = api->cl->acquire(w->queue, 1, &shared, 0, NULL, &acquired);
    if (err != CL_SUCCESS)
        fail(w, ACQUIRE, "error %d", err);
    else
        expect_type(w, acquired, CL_COMMAND_ACQUIRE_D3D11_OBJECTS_KHR, ACQUIRE_TYPE);
    step(w, "kernel");
    if (err == CL_SUCCESS &&
        (err = increment(w, shared, plain, &incremented, &inc_address)) != CL_SUCCESS)
        fail(w, KERNEL, "error %d", err);
    if (incremented)
        expect_type(w, incremented, CL_COMMAND_NDRANGE_KERNEL, KERNEL_TYPE);
    if (clEnqueueMarkerWithWaitList(w->queue, 0, NULL, &marker) == CL_SUCCESS)
        expect_type(w, marker, CL_COMMAND_MARKER, MARKER_TYPE);
    step(w, "release");
    if (acquired && (err = api->cl->release(w->queue, 1, &shared, 0, NULL, &released)))
        fail(w, RELEASE, "error %d", err);
    if (released) {
        expect_type(w, released, CL_COMMAND_RELEASE_D3D11_OBJECTS_KHR, RELEASE_TYPE);
        clWaitForEvents(1, &released);
    }
    w->uses[which] += incremented && released;
    step(w, "guard");
    clFinish(w->queue); /* the inc kernel's commands are done: the driver may free it now */
    check_guard(w, shared, plain, inc_address);
    step(w, "releasing the handles");
    clFinish(w->queue);
    cl_event events[] = {acquired, incremented, marker, released};
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
        if (events[i])
            clReleaseEvent(events[i]);
    clReleaseMemObject(shared);
    if (plain)
        clReleaseMemObject(plain);
}

static DWORD WINAPI run_worker(void *arg)
{
    struct worker *w = arg;

    for (unsigned i = 0; i < w->shared->iterations; i++) {
        w->iteration = (LONG)i;
        iterate(w, i);
        if (w->index == 0 && (i + 1) % PROGRESS_EVERY == 0) {
            printf("handle_reuse: thread 0 at iteration %u\n", i + 1);
            fflush(stdout);
        }
    }
    step(w, "done");
    return 0;
}

static void churn_once(struct churn *c)
{
    cl_command_type type = 0;
    cl_event marker = NULL;
    void *resource = NULL;
    cl_int err;

    if (clEnqueueMarkerWithWaitList(c->queue, 0, NULL, &marker) == CL_SUCCESS) {
        err = clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL);
        if ((err != CL_SUCCESS || type != CL_COMMAND_MARKER) && !c->wrong_markers++) {
            c->first_marker_error = err;
            c->first_marker_type = type;
        }
        clReleaseEvent(marker);
        c->handles++;
    }
    cl_mem plain = clCreateBuffer(c->shared->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (!plain)
        return;
    err = clGetMemObjectInfo(plain, CL_MEM_D3D11_RESOURCE_KHR, sizeof(resource), &resource, NULL);
    if (err != CL_INVALID_D3D11_RESOURCE_KHR && !c->wrong_buffers++)
        c->first_buffer_error = err;
    clReleaseMemObject(plain);
    c->handles++;
}

static DWORD WINAPI run_churn(void *arg)
{
    struct churn *c = arg;

    while (!c->stop) {
        churn_once(c);
        if (c->handles % 64 == 0)
            clFinish(c->queue);
    }
    clFinish(c->queue);
    return 0;
}

static void check_churn(struct churn *c, int index)
{
    printf("handle_reuse: churn thread %d made %lu handles\n", index, c->handles);
    CHECK(c->wrong_markers == 0,
          "churn thread %d: %lu of its markers reported another command type (first: error %d, "
          "type 0x%x)",
          index, c->wrong_markers, c->first_marker_error, c->first_marker_type);
    CHECK(c->wrong_buffers == 0,
          "churn thread %d: %lu of its plain buffers were answered as shared objects (first: "
          "%d, want CL_INVALID_D3D11_RESOURCE_KHR)",
          index, c->wrong_buffers, c->first_buffer_error);
    clReleaseCommandQueue(c->queue);
}

static void open_worker(struct shared *s, struct worker *w, int index)
{
    cl_int err;

    memset(w, 0, sizeof(*w));
    w->shared = s;
    w->index = index;
    for (int b = 0; b < BUFFERS; b++) {
        for (int i = 0; i < ELEMENTS; i++)
            w->initial[b][i] = ((cl_uint)index << 24) + ((cl_uint)b << 16) + (cl_uint)i;
        w->buffers[b] =
            api->create_buffer(s->d3d, sizeof(w->initial[b]), TEST_USAGE_DEFAULT, w->initial[b]);
        REQUIRE(w->buffers[b], "D3D11 buffer");
    }
    w->queue = clCreateCommandQueue(s->context, s->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
}

/* Counts and checks one worker's results on the main thread. */
static void check_worker(struct worker *w, unsigned *reused)
{
    for (int kind = 0; kind < FAILURE_KINDS; kind++)
        CHECK(w->failures[kind] == 0, "thread %d: %s in %u of %u iterations (first: %s)", w->index,
              failure_names[kind], w->failures[kind], w->shared->iterations, w->first[kind]);
    for (int b = 0; b < BUFFERS; b++) {
        cl_uint got[ELEMENTS];
        bool exact = api->read_subresource(w->buffers[b], 0, got);
        for (int i = 0; exact && i < ELEMENTS; i++)
            exact = got[i] == w->initial[b][i] + w->uses[b];
        CHECK(exact, "thread %d buffer %d: Direct3D holds %u increments, want %u", w->index, b,
              got[0] - w->initial[b][0], w->uses[b]);
        CHECK(IUnknown_Release((IUnknown *)w->buffers[b]) == 0,
              "thread %d buffer %d: dxcl kept a reference", w->index, b);
    }
    *reused += w->reused_kernel;
    clReleaseCommandQueue(w->queue);
}

int main(int argc, char **argv)
{
    cl_platform_id platform = test_platform();
    struct shared s = {.device = test_device(platform), .iterations = 150};
    HANDLE threads[MAX_THREADS];
    unsigned reused = 0;
    cl_int err;

    test_exit_on_crash("handle_reuse");
    if (argc > 1)
        s.iterations = (unsigned)strtoul(argv[1], NULL, 10);
    if (argc > 2)
        thread_count = (unsigned)strtoul(argv[2], NULL, 10);
    REQUIRE(s.iterations >= 1 && thread_count >= 1 && thread_count <= MAX_THREADS,
            "usage: test_handle_reuse [iterations [threads (1-%d)]]", MAX_THREADS);
    interop_load(api, platform);
    REQUIRE((s.d3d = api->create_device()), "D3D11 device");
    REQUIRE((s.multithread = api->multithread(s.d3d)), "multithread object");
    ID3D10Multithread_SetMultithreadProtected(s.multithread, TRUE);
    cl_context_properties props[] = {api->context_property, (cl_context_properties)s.d3d, 0};
    s.context = clCreateContext(props, 1, &s.device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    s.program = test_program(s.context, s.device, source);
    for (unsigned i = 0; i < thread_count; i++)
        open_worker(&s, &workers[i], (int)i);

    HANDLE churners[CHURN_THREADS];
    for (int i = 0; i < CHURN_THREADS; i++) {
        churns[i] = (struct churn){.shared = &s};
        churns[i].queue = clCreateCommandQueue(s.context, s.device, 0, &err);
        REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    }

    DWORD start = GetTickCount();
    test_watchdog_start("handle_reuse", STALL_MS, report_threads, NULL);
    for (int i = 0; i < CHURN_THREADS; i++)
        REQUIRE((churners[i] = CreateThread(NULL, 0, run_churn, &churns[i], 0, NULL)),
                "CreateThread: %lu", GetLastError());
    for (unsigned i = 0; i < thread_count; i++)
        REQUIRE((threads[i] = CreateThread(NULL, 0, run_worker, &workers[i], 0, NULL)),
                "CreateThread: %lu", GetLastError());
    WaitForMultipleObjects(thread_count, threads, TRUE, INFINITE);
    for (int i = 0; i < CHURN_THREADS; i++)
        churns[i].stop = 1;
    WaitForMultipleObjects(CHURN_THREADS, churners, TRUE, INFINITE);
    test_watchdog_stop();
    printf("handle_reuse: %u threads x %u iterations in %lu ms\n", thread_count, s.iterations,
           (unsigned long)(GetTickCount() - start));
    for (unsigned i = 0; i < thread_count; i++) {
        CloseHandle(threads[i]);
        check_worker(&workers[i], &reused);
    }
    for (int i = 0; i < CHURN_THREADS; i++) {
        CloseHandle(churners[i]);
        check_churn(&churns[i], i);
    }
    /* Whether the driver reused kernel addresses decides whether the guard check above met a
     * dead kernel's record; it is information, not a check. */
    printf("handle_reuse: %u of %u threads saw a new kernel at a released kernel's address; "
           "the driver counts %u references to a kernel with a command queued and the "
           "program's one\n",
           reused, thread_count, workers[0].driver_kernel_refs);
    clReleaseProgram(s.program);
    CHECK_ERR(clReleaseContext(s.context), CL_SUCCESS);
    ID3D10Multithread_Release(s.multithread);
    CHECK(IUnknown_Release((IUnknown *)s.d3d) == 0, "the device's last reference");
    return test_finish("handle_reuse");
}
