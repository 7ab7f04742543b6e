/* Releases never block (issue 18). clReleaseMemObject, clReleaseCommandQueue, clReleaseContext
 * and the program's IUnknown::Release of the Direct3D resource and device only drop
 * references: the spec deletes an object once its reference count is zero AND the commands
 * queued on it have finished, and that deletion waits, the call does not. What the object owns
 * (the staging copy, the Direct3D references) is freed when the driver has finished its last
 * command on it.
 *
 * Each case shares a D3D11 buffer, acquires it with an unset user event in the wait list,
 * enqueues a kernel that adds 1 to it, and then:
 *  - "no release": the program drops every reference without releasing the object to
 *    Direct3D. The calls must return while the user event is unset. Once it is set and the
 *    kernel is done, Direct3D keeps its old contents (docs/design.md: an object released while
 *    acquired is not written back) and every Direct3D reference dxcl held goes.
 *  - "release in flight": another thread enqueues the release (it may block until the user
 *    event is set: the release guarantees that Direct3D work after it sees the data, and the
 *    acquire before it waits on the user event). While it waits, the program drops every
 *    reference to the object, the queue and the context. Those calls must return while the
 *    user event is unset, the in-flight release must still succeed and, once its event is
 *    complete, Direct3D must hold the kernel's result.
 * The references are dropped by the thread that enqueued the acquire and the kernel, or by
 * another thread; with ID3D11Multithread protection off and on.
 *
 * A watch thread times every release call: one still inside after BLOCK_MS has blocked (a
 * failed check); the watch then sets the user event itself, so that the test goes on and
 * reports the rest, and ends the process (exit code 3) if the call still does not return.
 * The last part races a release against clReleaseMemObject (below, "release racing"). Each
 * case runs in a child process, so that a crash in one cannot hide the others' results. The CI
 * variants run it with each of DXCL_RELEASE_WAIT's waits: dxcl's data path must name the one in
 * force.
 *   test_release_nonblocking          everything
 *   test_release_nonblocking case IN_FLIGHT OTHER_THREAD PROTECTION   one case (each 0 or 1)
 *   test_release_nonblocking racing   the racing rounds */
#include "interop.h"
#include "threads.h"

#include <d3d10.h>
#include <dxcl/dxcl.h>
#include <stdlib.h>
#include <CL/cl_d3d11.h>

enum {
    ELEMENTS = 64,
    BLOCK_MS = 3000,      /* a release call this long has blocked */
    HANG_MS = 30000,      /* ... and this long after the user event was set, it hangs */
    IN_FLIGHT_MS = 300,   /* the releasing thread is inside its release by then */
    REFERENCES_MS = 10000 /* dxcl drops its Direct3D references by then */
};

static const char *source =
    "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1u; }\n"
    /* The same after a busy loop, so that a release waits for it for a while. */
    "__kernel void slow_inc(__global uint *b, uint n)\n"
    "{ volatile uint spin = 0; for (uint k = 0; k < n; k++) spin += k;\n"
    "  b[get_global_id(0)] += 1u; }\n";

static const struct test_api *api = &api_d3d11_khr;

struct scene {
    const char *name;
    bool protection, release_in_flight, other_thread_drops;
    cl_platform_id platform;
    cl_device_id device;
    void *d3d, *buffer;
    ID3D10Multithread *multithread;
    ULONG device_refs, buffer_refs; /* before OpenCL: the program's and the checker's */
    cl_uint initial[ELEMENTS];
    cl_context context;
    cl_command_queue queue;
    cl_kernel kernel;
    cl_mem mem;
    cl_event user, kernel_done;
    /* The release in flight. */
    volatile LONG releasing;
    cl_int release_result;
    cl_event released;
};

/* ---- The watch over release calls ---- */

static struct {
    struct scene *scene;
    const char *volatile call; /* the release call in progress, or NULL */
    volatile LONG call_number;
    DWORD started;
    volatile LONG user_set; /* the user event was set (by the test or by the watch) */
    volatile LONG stop;
} watch;

static void set_user_event(struct scene *s)
{
    if (!InterlockedExchange(&watch.user_set, 1))
        clSetUserEventStatus(s->user, CL_COMPLETE);
}

static DWORD WINAPI run_watch(void *unused)
{
    LONG number = -1;
    bool freed = false;

    (void)unused;
    while (!watch.stop) {
        Sleep(50);
        const char *call = watch.call;
        if (!call || watch.call_number != number) {
            number = watch.call_number;
            freed = false;
            continue;
        }
        DWORD inside = GetTickCount() - watch.started;
        if (inside > BLOCK_MS && !freed) {
            fprintf(stderr,
                    "release_nonblocking: %s: %s blocked (inside for %lu ms with the "
                    "user event unset); the watch sets the user event\n",
                    watch.scene->name, call, (unsigned long)inside);
            fflush(stderr);
            freed = true;
            set_user_event(watch.scene);
        }
        if (inside > BLOCK_MS + HANG_MS) {
            fprintf(stderr,
                    "release_nonblocking: %s: HANG: %s still inside %lu ms after the "
                    "user event was set; ending the process (exit code 3) after %d failed of "
                    "%d checks\n",
                    watch.scene->name, call, (unsigned long)(inside - BLOCK_MS), test_failures,
                    test_checks);
            fflush(stderr);
            TerminateProcess(GetCurrentProcess(), 3);
        }
    }
    return 0;
}

enum timing { RETURNED_IN_TIME, BLOCKED, NOT_MEASURED };

/* Runs one release call under the watch. It returned in time when the user event was still
 * unset when it returned (the watch sets it only for a call that blocked); a call made after
 * an earlier one blocked cannot be measured. */
static enum timing watched(const char *call, cl_int (*release)(void *), void *object,
                           cl_int *result)
{
    LONG set_before = watch.user_set;

    watch.started = GetTickCount();
    watch.call = call;
    InterlockedIncrement(&watch.call_number);
    *result = release(object);
    watch.call = NULL;
    InterlockedIncrement(&watch.call_number);
    if (set_before)
        return NOT_MEASURED;
    return watch.user_set ? BLOCKED : RETURNED_IN_TIME;
}

/* Waits for a thread that runs an enqueue call; one that never returns is a hang: report it
 * and end the process (exit code 3) rather than wait forever. */
static void join(HANDLE thread, const char *what)
{
    if (WaitForSingleObject(thread, HANG_MS) != WAIT_OBJECT_0) {
        fflush(stdout);
        fprintf(stderr,
                "release_nonblocking: HANG: %s did not return within %u ms; ending the process "
                "(exit code 3) after %d failed of %d checks\n",
                what, HANG_MS, test_failures, test_checks);
        fflush(stderr);
        TerminateProcess(GetCurrentProcess(), 3);
    }
    CloseHandle(thread);
}

/* ---- The calls under test ---- */

static cl_int release_mem(void *object)
{
    return clReleaseMemObject(object);
}

static cl_int release_queue(void *object)
{
    return clReleaseCommandQueue(object);
}

static cl_int release_context(void *object)
{
    return clReleaseContext(object);
}

static cl_int release_kernel(void *object)
{
    return clReleaseKernel(object);
}

static cl_int release_com(void *object)
{
    IUnknown_Release((IUnknown *)object);
    return CL_SUCCESS;
}

/* What each release call returned and whether it returned in time, recorded by the thread
 * that made it and checked by the main thread. */
struct drop {
    const char *call;
    cl_int (*release)(void *);
    void *object;
    cl_int result;
    enum timing timing;
};

static DWORD WINAPI drop_all(void *arg)
{
    struct drop *drops = arg;

    for (int i = 0; drops[i].call; i++)
        drops[i].timing =
            watched(drops[i].call, drops[i].release, drops[i].object, &drops[i].result);
    return 0;
}

/* The program's references: one each to the Direct3D device and buffer (the checker keeps
 * the other), the kernel that has the object as an argument, the queue, the context and the
 * object, the object last (the others are legal before it, and it is the call most likely to
 * wait: after a call that blocked the others cannot be timed). */
static void drop_references(struct scene *s)
{
    struct drop drops[] = {
        {"IUnknown::Release of the device", release_com, s->d3d, 0, RETURNED_IN_TIME},
        {"IUnknown::Release of the buffer", release_com, s->buffer, 0, RETURNED_IN_TIME},
        {"clReleaseKernel", release_kernel, s->kernel, 0, RETURNED_IN_TIME},
        {"clReleaseCommandQueue", release_queue, s->queue, 0, RETURNED_IN_TIME},
        {"clReleaseContext", release_context, s->context, 0, RETURNED_IN_TIME},
        {"clReleaseMemObject", release_mem, s->mem, 0, RETURNED_IN_TIME},
        {NULL, NULL, NULL, 0, RETURNED_IN_TIME},
    };

    if (s->other_thread_drops) {
        HANDLE thread = CreateThread(NULL, 0, drop_all, drops, 0, NULL);
        REQUIRE(thread != NULL, "CreateThread: %lu", GetLastError());
        WaitForSingleObject(thread, INFINITE);
        CloseHandle(thread);
    } else {
        drop_all(drops);
    }
    for (int i = 0; drops[i].call; i++) {
        CHECK(drops[i].result == CL_SUCCESS, "%s: %s returned %d", s->name, drops[i].call,
              drops[i].result);
        if (drops[i].timing == NOT_MEASURED)
            printf("release_nonblocking: %s: %s not timed (an earlier call blocked)\n", s->name,
                   drops[i].call);
        else
            CHECK(drops[i].timing == RETURNED_IN_TIME,
                  "%s: %s blocked until the user event was set", s->name, drops[i].call);
    }
}

/* ---- The release in flight ---- */

static DWORD WINAPI enqueue_release(void *arg)
{
    struct scene *s = arg;
    cl_command_queue queue = s->queue;
    cl_mem mem = s->mem;

    InterlockedExchange(&s->releasing, 1);
    s->release_result = api->cl->release(queue, 1, &mem, 0, NULL, &s->released);
    if (s->release_result == CL_SUCCESS)
        clWaitForEvents(1, &s->released);
    return 0;
}

/* ---- A case ---- */

static void open_scene(struct scene *s)
{
    const void *data = s->initial;
    cl_int err;

    s->d3d = api->create_device();
    REQUIRE(s->d3d, "D3D11 device");
    REQUIRE((s->multithread = api->multithread(s->d3d)), "multithread object");
    ID3D10Multithread_SetMultithreadProtected(s->multithread, s->protection);
    for (int i = 0; i < ELEMENTS; i++)
        s->initial[i] = 1000u * (unsigned)i + 7u;
    REQUIRE((s->buffer = api->create_buffer(s->d3d, sizeof(s->initial), TEST_USAGE_DEFAULT, data)),
            "D3D11 buffer");
    /* The checker's references, which outlive the program's. */
    IUnknown_AddRef((IUnknown *)s->d3d);
    IUnknown_AddRef((IUnknown *)s->buffer);
    s->device_refs = test_refcount(s->d3d);
    s->buffer_refs = test_refcount(s->buffer);
    cl_context_properties props[] = {api->context_property, (cl_context_properties)s->d3d, 0};
    s->context = clCreateContext(props, 1, &s->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    s->queue = clCreateCommandQueue(s->context, s->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    s->kernel = test_kernel(s->context, s->device, source, "inc");
    s->mem = api->cl->create_buffer(s->context, 0, s->buffer, &err);
    REQUIRE(err == CL_SUCCESS, "shared buffer: %d", err);
    s->user = clCreateUserEvent(s->context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
}

/* Acquire behind the user event, then the kernel; both wait. */
static void enqueue_work(struct scene *s)
{
    const size_t size = ELEMENTS;

    CHECK_ERR(api->cl->acquire(s->queue, 1, &s->mem, 1, &s->user, NULL), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->mem), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &size, NULL, 0, NULL, &s->kernel_done),
        CL_SUCCESS);
    CHECK_ERR(clFlush(s->queue), CL_SUCCESS);
}

static bool buffer_holds(struct scene *s, cl_uint added)
{
    cl_uint got[ELEMENTS];
    bool ok;

    if (s->protection)
        ID3D10Multithread_Enter(s->multithread);
    ok = api->read_subresource(s->buffer, 0, got);
    if (s->protection)
        ID3D10Multithread_Leave(s->multithread);
    for (int i = 0; ok && i < ELEMENTS; i++)
        ok = got[i] == s->initial[i] + added;
    return ok;
}

/* Waits for dxcl to drop its Direct3D references (the checker's and nothing else remain). */
static void check_references_dropped(struct scene *s)
{
    DWORD start = GetTickCount();
    ULONG device_refs, buffer_refs;

    do {
        Sleep(20);
        device_refs = test_refcount(s->d3d);
        buffer_refs = test_refcount(s->buffer);
    } while ((device_refs != s->device_refs - 1 || buffer_refs != s->buffer_refs - 1) &&
             GetTickCount() - start < REFERENCES_MS);
    test_progress("release_nonblocking: %s: Direct3D references: device %lu, buffer %lu", s->name,
                  (unsigned long)device_refs, (unsigned long)buffer_refs);
    CHECK(buffer_refs == s->buffer_refs - 1,
          "%s: the buffer has %lu references %u ms after the commands finished, want %lu "
          "(dxcl's are not dropped)",
          s->name, (unsigned long)buffer_refs, REFERENCES_MS, (unsigned long)s->buffer_refs - 1);
    CHECK(device_refs == s->device_refs - 1,
          "%s: the device has %lu references %u ms after the commands finished, want %lu", s->name,
          (unsigned long)device_refs, REFERENCES_MS, (unsigned long)s->device_refs - 1);
}

static void close_scene(struct scene *s)
{
    test_progress("release_nonblocking: %s: closing", s->name);
    /* A user event still unset when its last reference goes may hold up the driver's release
     * (NVIDIA's waits for it): the scene's own is set first, whatever the case did with it. */
    clSetUserEventStatus(s->user, CL_COMPLETE);
    CHECK_ERR(clReleaseEvent(s->user), CL_SUCCESS);
    if (s->kernel_done)
        CHECK_ERR(clReleaseEvent(s->kernel_done), CL_SUCCESS);
    if (s->released)
        CHECK_ERR(clReleaseEvent(s->released), CL_SUCCESS);
    ID3D10Multithread_Release(s->multithread);
    test_progress("release_nonblocking: %s: the program's last Direct3D references", s->name);
    CHECK(IUnknown_Release((IUnknown *)s->buffer) == 0, "%s: the buffer's last reference", s->name);
    CHECK(IUnknown_Release((IUnknown *)s->d3d) == 0, "%s: the device's last reference", s->name);
}

static void run_case(cl_platform_id platform, cl_device_id device, bool release_in_flight,
                     bool other_thread_drops, bool protection)
{
    char name[160];
    struct scene s = {.name = name,
                      .protection = protection,
                      .release_in_flight = release_in_flight,
                      .other_thread_drops = other_thread_drops,
                      .platform = platform,
                      .device = device};
    HANDLE releaser = NULL;

    snprintf(name, sizeof(name), "%s, references dropped by %s, protection %s",
             release_in_flight ? "release in flight" : "no release",
             other_thread_drops ? "another thread" : "the enqueuing thread",
             protection ? "on" : "off");
    test_progress("release_nonblocking: %s", name);
    fflush(stdout);
    open_scene(&s);
    watch.scene = &s;
    watch.user_set = 0;
    enqueue_work(&s);
    if (release_in_flight) {
        releaser = CreateThread(NULL, 0, enqueue_release, &s, 0, NULL);
        REQUIRE(releaser != NULL, "CreateThread: %lu", GetLastError());
        while (!s.releasing)
            Sleep(1);
        Sleep(IN_FLIGHT_MS); /* it is inside the release now, waiting for the user event */
    }
    drop_references(&s);
    set_user_event(&s);
    if (releaser) {
        join(releaser, "the release in flight");
        CHECK(s.release_result == CL_SUCCESS, "%s: the release in flight returned %d", name,
              s.release_result);
        CHECK(buffer_holds(&s, 1),
              "%s: Direct3D holds the kernel's result after the release's "
              "event completed",
              name);
    } else {
        CHECK_ERR(clWaitForEvents(1, &s.kernel_done), CL_SUCCESS);
        CHECK(buffer_holds(&s, 0), "%s: Direct3D keeps its contents (nothing was released to it)",
              name);
    }
    check_references_dropped(&s);
    close_scene(&s);
}

/* ---- A release racing clReleaseMemObject ----
 * Rounds: thread E acquires a fresh shared object of the buffer, enqueues a kernel that adds 1
 * behind a user event and releases the object (the release waits for the kernel, so for the
 * event); while E is inside that release, the main thread drops the program's only reference
 * to the object, then sets the event. The release must still succeed and bring the data into
 * Direct3D: the spec deletes the object once the commands queued on it are done, and the
 * release is one of them. The user event keeps E's release in flight on any machine. */

/* E has been inside its release for a while when the main thread drops the object 30 ms after
 * E said it was calling it. */
enum { RACING_ROUNDS = 20, SLOW_LOOPS = 1000, RACING_HEAD_START_MS = 30 };

struct racing {
    struct scene *scene;
    cl_kernel slow;
    cl_mem mem;
    cl_event gate; /* a user event the kernel waits for */
    volatile LONG releasing, returned;
    cl_int acquired, incremented, released;
};

static DWORD WINAPI racing_worker(void *arg)
{
    struct racing *r = arg;
    struct scene *s = r->scene;
    const size_t size = ELEMENTS;
    const cl_uint loops = SLOW_LOOPS;
    cl_mem mem = r->mem;

    r->acquired = api->cl->acquire(s->queue, 1, &mem, 0, NULL, NULL);
    r->incremented = clSetKernelArg(r->slow, 0, sizeof(cl_mem), &mem);
    if (r->incremented == CL_SUCCESS)
        r->incremented = clSetKernelArg(r->slow, 1, sizeof(loops), &loops);
    if (r->incremented == CL_SUCCESS)
        r->incremented =
            clEnqueueNDRangeKernel(s->queue, r->slow, 1, NULL, &size, NULL, 1, &r->gate, NULL);
    clFlush(s->queue);
    InterlockedExchange(&r->releasing, 1);
    r->released = api->cl->release(s->queue, 1, &mem, 0, NULL, NULL);
    InterlockedExchange(&r->returned, 1);
    return 0;
}

static void release_racing(cl_platform_id platform, cl_device_id device)
{
    struct scene s = {
        .name = "release racing clReleaseMemObject", .platform = platform, .device = device};
    unsigned lost = 0, failed = 0, blocked = 0, raced = 0;
    DWORD start = GetTickCount();
    cl_int err;

    printf("release_nonblocking: %s, %d rounds\n", s.name, RACING_ROUNDS);
    fflush(stdout);
    open_scene(&s);
    watch.scene = &s;
    watch.user_set = 1; /* no user event in these rounds */
    cl_kernel slow = test_kernel(s.context, s.device, source, "slow_inc");
    CHECK_ERR(clReleaseMemObject(s.mem), CL_SUCCESS); /* each round makes its own */
    for (cl_uint round = 0; round < RACING_ROUNDS; round++) {
        struct racing r = {.scene = &s, .slow = slow};
        r.mem = api->cl->create_buffer(s.context, 0, s.buffer, &err);
        REQUIRE(err == CL_SUCCESS, "shared buffer: %d", err);
        r.gate = clCreateUserEvent(s.context, &err);
        REQUIRE(err == CL_SUCCESS, "user event: %d", err);
        HANDLE worker = CreateThread(NULL, 0, racing_worker, &r, 0, NULL);
        REQUIRE(worker != NULL, "CreateThread: %lu", GetLastError());
        while (!r.releasing)
            Sleep(0);
        Sleep(RACING_HEAD_START_MS); /* E is inside its release, waiting for the kernel */
        DWORD before = GetTickCount();
        raced += !r.returned;
        cl_int dropped = clReleaseMemObject(r.mem);
        blocked += GetTickCount() - before > BLOCK_MS;
        CHECK_ERR(clSetUserEventStatus(r.gate, CL_COMPLETE), CL_SUCCESS);
        join(worker, "the racing thread's acquire, kernel and release");
        /* The release may be pending (its reads waited for the user event): Direct3D has the
         * data once the queue is done (docs/design.md, "When the release waits"). */
        CHECK_ERR(clFinish(s.queue), CL_SUCCESS);
        CHECK_ERR(clReleaseEvent(r.gate), CL_SUCCESS);
        failed += dropped != CL_SUCCESS || r.acquired != CL_SUCCESS ||
                  r.incremented != CL_SUCCESS || r.released != CL_SUCCESS;
        if (!buffer_holds(&s, round + 1 - lost))
            lost++;
        if (round == 0 || failed || lost)
            printf("release_nonblocking: round %u: acquire %d, kernel %d, release %d, "
                   "clReleaseMemObject %d; %u increments lost so far\n",
                   round, r.acquired, r.incremented, r.released, dropped, lost);
    }
    printf("release_nonblocking: %s: %lu ms; the release was in flight at the drop in %u of %d "
           "rounds\n",
           s.name, (unsigned long)(GetTickCount() - start), raced, RACING_ROUNDS);
    /* Otherwise the rounds test nothing: E's release waits for the user event. */
    CHECK(raced == RACING_ROUNDS, "%s: the release was in flight in only %u of %d rounds", s.name,
          raced, RACING_ROUNDS);
    CHECK(failed == 0, "%s: calls failed in %u of %d rounds", s.name, failed, RACING_ROUNDS);
    CHECK(lost == 0, "%s: Direct3D lacks %u of %d increments", s.name, lost, RACING_ROUNDS);
    CHECK(blocked == 0, "%s: clReleaseMemObject took over %d ms in %u rounds", s.name, BLOCK_MS,
          blocked);
    s.mem = NULL;
    test_progress("release_nonblocking: %s: releasing the scene", s.name);
    clReleaseKernel(slow);
    CHECK_ERR(clReleaseKernel(s.kernel), CL_SUCCESS);
    CHECK_ERR(clReleaseCommandQueue(s.queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(s.context), CL_SUCCESS);
    IUnknown_Release((IUnknown *)s.buffer); /* the program's references */
    IUnknown_Release((IUnknown *)s.d3d);
    test_progress("release_nonblocking: %s: waiting for dxcl's references to go", s.name);
    check_references_dropped(&s);
    close_scene(&s);
    test_progress("release_nonblocking: %s: done", s.name);
}

/* dxclGetInfo's data path names the release wait that DXCL_RELEASE_WAIT chose. */
static void check_wait_named(void)
{
    dxclGetInfo_fn info =
        (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");
    char setting[16] = "", text[1024] = "";
    const char *expected = "waits in the driver";

    GetEnvironmentVariableA("DXCL_RELEASE_WAIT", setting, sizeof(setting));
    if (!strcmp(setting, "sleep"))
        expected = "(DXCL_RELEASE_WAIT=sleep)";
    else if (!strcmp(setting, "poll"))
        expected = "(DXCL_RELEASE_WAIT=poll)";
    REQUIRE(info && info(DXCL_INFO_DATA_PATH, sizeof(text), text, NULL) == CL_SUCCESS,
            "dxclGetInfo(DXCL_INFO_DATA_PATH)");
    CHECK(strstr(text, expected) != NULL, "the data path names the release wait \"%s\" (%s)",
          expected, text);
}

/* Every case in a child process: a crash or hang in one must not hide the others' results. */
static void run_children(void)
{
    char args[64], what[160];

    for (int protection = 0; protection < 2; protection++) {
        for (int in_flight = 0; in_flight < 2; in_flight++) {
            for (int other = 0; other < 2; other++) {
                snprintf(args, sizeof(args), "case %d %d %d", in_flight, other, protection);
                snprintf(what, sizeof(what), "release_nonblocking: child \"%s\"", args);
                test_check_child(args, what);
            }
        }
    }
    test_check_child("racing", "release_nonblocking: child \"racing\"");
}

int main(int argc, char **argv)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    HANDLE watcher;

    test_exit_on_crash("release_nonblocking");
    interop_load(api, platform);
    watcher = CreateThread(NULL, 0, run_watch, NULL, 0, NULL);
    REQUIRE(watcher != NULL, "CreateThread: %lu", GetLastError());
    if (argc > 1 && !strcmp(argv[1], "racing")) {
        release_racing(platform, device);
    } else if (argc == 5 && !strcmp(argv[1], "case")) {
        run_case(platform, device, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    } else {
        check_wait_named();
        run_children();
    }
    watch.stop = 1;
    WaitForSingleObject(watcher, INFINITE);
    CloseHandle(watcher);
    if (argc > 1)
        return test_child_finish("release_nonblocking child");
    return test_finish("release_nonblocking");
}
