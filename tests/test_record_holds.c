/* Records in use while their object dies (issue 24, item 5): every dxcl call that reads a
 * shared object's record outside dxcl_lock holds it (core/memobj.h), so a teardown on another
 * thread never frees a record under a query, a guarded command, clSetKernelArg or a kernel
 * enqueue.
 *
 * The main thread makes shared D3D11 buffers, one a round, and drops the program's last
 * reference to each at once (clReleaseMemObject): dxcl tears the object down and frees its
 * record, and the next round's record is likely to take the same memory. To keep the handle
 * valid for the driver while a user thread still uses it, the test takes one driver reference
 * of its own on each (through the driver itself, beside dxcl: test_driver()) and drops them all
 * at the end: for dxcl the object is then an ordinary buffer. Meanwhile the user thread loops on
 * the newest handle and checks every answer against the object's two lives:
 *  - CL_MEM_D3D11_RESOURCE_KHR: this round's resource, or CL_INVALID_D3D11_RESOURCE_KHR once
 *    dxcl has let go (never another round's resource: a record freed and reused under the call);
 *  - CL_MEM_SIZE and CL_MEM_FLAGS: the object's own;
 *  - a kernel with the handle as argument, and a whole write of it: NOT_ACQUIRED while shared
 *    (nothing acquires it), CL_SUCCESS once ordinary.
 * Both lives must have been seen (every 8th round waits for one whole pass before its release,
 * so that the shared life is seen however the threads are scheduled; the others race), and
 * Direct3D must hold its initial contents at the end:
 * nothing was acquired, so nothing may reach it. The copying path is used (DXCL_ZERO_COPY=0,
 * set before dxcl reads it): commands on the ordinary buffer then use the driver's own storage,
 * never staging memory that the teardown gave back. Under DXCL_LOCK_CHECK (every test) the lock
 * rules are checked on every one of those paths.
 *   test_record_holds [rounds]   (default 300) */
#include "interop.h"
#include "threads.h"

#include <stdlib.h>
#include <CL/cl_d3d11.h>

enum { RESOURCES = 4, ELEMENTS = 16, BYTES = ELEMENTS * 4, DEFAULT_ROUNDS = 300, STALL_MS = 30000 };
/* Every WITNESSED_ROUNDS-th round waits (at most WITNESS_MS) for one whole pass of the user
 * thread before the release, so that both lives are seen on any machine; the other rounds
 * release at once, racing the user thread's calls. */
enum { WITNESSED_ROUNDS = 8, WITNESS_MS = 2000 };

static const char *source = "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1u; }\n";

struct shared_state {
    void *resources[RESOURCES];
    cl_mem *handles;         /* one a round; the driver reference is the test's */
    volatile LONG published; /* the newest round, -1 before the first */
    volatile LONG done;      /* the main thread made every round */
    volatile LONG passed;    /* the round of the user thread's last whole pass, -1 before */
    cl_context context;
    cl_device_id device;
    cl_program program;
    /* The user thread's tally. */
    unsigned long calls, shared_seen, ordinary_seen, wrong;
    char first_wrong[256];
};

static void wrong(struct shared_state *s, const char *what, long round, cl_int got)
{
    if (!s->wrong++)
        snprintf(s->first_wrong, sizeof(s->first_wrong), "round %ld: %s: %d", round, what, got);
}

/* One pass over every path on round `round`'s handle. */
static void use_handle(struct shared_state *s, cl_command_queue queue, cl_kernel kernel, long round)
{
    const size_t items = ELEMENTS;
    static const cl_uint zeros[ELEMENTS];
    cl_mem handle = s->handles[round];
    void *resource = NULL;
    size_t size = 0;
    cl_mem_flags flags = 0;
    cl_int err;

    err = clGetMemObjectInfo(handle, CL_MEM_D3D11_RESOURCE_KHR, sizeof(resource), &resource, NULL);
    if (err == CL_SUCCESS && resource == s->resources[round % RESOURCES])
        s->shared_seen++;
    else if (err == CL_INVALID_D3D11_RESOURCE_KHR)
        s->ordinary_seen++;
    else
        wrong(s, "CL_MEM_D3D11_RESOURCE_KHR (an error, or another round's resource)", round, err);
    err = clGetMemObjectInfo(handle, CL_MEM_SIZE, sizeof(size), &size, NULL);
    if (err != CL_SUCCESS || size != BYTES)
        wrong(s, "CL_MEM_SIZE (an error or a wrong size)", round, err);
    err = clGetMemObjectInfo(handle, CL_MEM_FLAGS, sizeof(flags), &flags, NULL);
    if (err != CL_SUCCESS || flags != CL_MEM_READ_WRITE)
        wrong(s, "CL_MEM_FLAGS (an error or wrong flags)", round, err);
    if ((err = clSetKernelArg(kernel, 0, sizeof(handle), &handle)) != CL_SUCCESS)
        wrong(s, "clSetKernelArg", round, err);
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS && err != CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR)
        wrong(s, "the kernel", round, err);
    err = clEnqueueWriteBuffer(queue, handle, CL_TRUE, 0, BYTES, zeros, 0, NULL, NULL);
    if (err != CL_SUCCESS && err != CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR)
        wrong(s, "clEnqueueWriteBuffer", round, err);
    s->calls++;
}

static DWORD WINAPI run_user(void *arg)
{
    struct shared_state *s = arg;
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(s->context, s->device, 0, &err);
    cl_kernel kernel = test_program_kernel(s->program, "inc");

    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    while (!InterlockedCompareExchange(&s->done, 0, 0)) {
        long round = InterlockedCompareExchange(&s->published, 0, 0);
        if (round >= 0) {
            use_handle(s, queue, kernel, round);
            InterlockedExchange(&s->passed, round);
        }
        test_watchdog_progress();
    }
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    return 0;
}

/* A shared buffer of round `round`, its program reference dropped at once (or, every
 * WITNESSED_ROUNDS-th round, once the user thread made a whole pass on it). */
static void make_round(struct shared_state *s, const struct test_api *api, long round)
{
    cl_int err;
    cl_mem mem = api->cl->create_buffer(s->context, CL_MEM_READ_WRITE,
                                        s->resources[round % RESOURCES], &err);

    REQUIRE(err == CL_SUCCESS, "round %ld: shared buffer: %d", round, err);
    REQUIRE(test_driver()->clRetainMemObject(mem) == CL_SUCCESS, "driver retain");
    s->handles[round] = mem;
    InterlockedExchange(&s->published, round);
    Sleep(0); /* let the user thread start on it */
    for (DWORD waited = 0; round % WITNESSED_ROUNDS == 0 && waited < WITNESS_MS &&
                           InterlockedCompareExchange(&s->passed, 0, 0) < round;
         waited++)
        Sleep(1);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
}

int main(int argc, char **argv)
{
    const struct test_api *api = &api_d3d11_khr;
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ROUNDS;
    struct shared_state s = {.published = -1, .passed = -1};
    unsigned char initial[RESOURCES][BYTES], got[BYTES];
    cl_platform_id platform;
    cl_int err;

    test_exit_on_crash("record_holds");
    REQUIRE(rounds >= 1, "rounds: at least 1");
    SetEnvironmentVariableA("DXCL_ZERO_COPY", "0"); /* see the top */
    platform = test_platform();
    s.device = test_device(platform);
    interop_load(api, platform);
    void *device = api->create_device();
    REQUIRE(device, "D3D11 device");
    void *multithread = api->multithread(device);
    REQUIRE(multithread, "ID3D11Multithread");
    ID3D10Multithread_SetMultithreadProtected((ID3D10Multithread *)multithread, TRUE);
    for (int i = 0; i < RESOURCES; i++) {
        test_fill_bytes(initial[i], BYTES, 2400u + (unsigned)i);
        REQUIRE(
            (s.resources[i] = api->create_buffer(device, BYTES, TEST_USAGE_DEFAULT, initial[i])),
            "D3D11 buffer %d", i);
    }
    cl_context_properties props[] = {api->context_property, (cl_context_properties)device, 0};
    s.context = clCreateContext(props, 1, &s.device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    s.program = test_program(s.context, s.device, source);
    REQUIRE((s.handles = calloc((size_t)rounds, sizeof(cl_mem))), "memory");

    test_watchdog_start("record_holds", STALL_MS, NULL, NULL);
    HANDLE user = CreateThread(NULL, 0, run_user, &s, 0, NULL);
    REQUIRE(user != NULL, "CreateThread: %lu", GetLastError());
    for (long round = 0; round < rounds; round++) {
        make_round(&s, api, round);
        test_watchdog_progress();
    }
    Sleep(20); /* a few more passes on the last, ordinary by now */
    InterlockedExchange(&s.done, 1);
    WaitForSingleObject(user, INFINITE);
    CloseHandle(user);
    test_watchdog_stop();

    printf("record_holds: %ld rounds, %lu passes: %lu saw the shared object, %lu the ordinary "
           "buffer, %lu wrong answers\n",
           rounds, s.calls, s.shared_seen, s.ordinary_seen, s.wrong);
    CHECK(s.wrong == 0, "%lu wrong answers; first: %s", s.wrong, s.first_wrong);
    CHECK(s.shared_seen > 0 && s.ordinary_seen > 0,
          "the user thread must see both lives of the objects (shared %lu, ordinary %lu)",
          s.shared_seen, s.ordinary_seen);
    for (long round = 0; round < rounds; round++)
        CHECK_ERR(test_driver()->clReleaseMemObject(s.handles[round]), CL_SUCCESS);
    for (int i = 0; i < RESOURCES; i++) {
        REQUIRE(api->read_subresource(s.resources[i], 0, got), "read buffer %d", i);
        CHECK(!memcmp(got, initial[i], BYTES),
              "buffer %d: Direct3D changed though nothing was acquired", i);
        IUnknown_Release((IUnknown *)s.resources[i]);
    }
    free(s.handles);
    clReleaseProgram(s.program);
    CHECK_ERR(clReleaseContext(s.context), CL_SUCCESS);
    IUnknown_Release((IUnknown *)multithread);
    IUnknown_Release((IUnknown *)device);
    return test_finish("record_holds");
}
