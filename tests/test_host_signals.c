/* Wine's signal handlers after the driver built a kernel. Wine suspends a thread
 * (SuspendThread, GetThreadContext: what a garbage collector or a profiler does) by a SIGUSR1
 * that the thread's handler answers, and ends a process's other threads by SIGQUIT. LLVM, in
 * a driver that compiles with it (PoCL), replaces those handlers with its own the first time it
 * writes a file; SIGUSR1 then suspends nothing and GetThreadContext waits forever, and a second
 * SIGQUIT at exit kills the process. dxcl's Unix side puts Wine's handlers back after the
 * driver's calls that compile (docs/proxy.md, "Signal handlers"). CTest runs it only through
 * the Unix side (test_host_signals.unix); through Wine's own opencl.dll (the GPU rig's wined3d
 * mode) nothing puts them back, so there it says so in one line and checks only the kernel. */
#include "testlib.h"

#include <dxcl/dxcl.h>

static volatile LONG64 spins;
static volatile LONG stop_spinning;

static DWORD WINAPI spin(void *unused)
{
    (void)unused;
    while (!stop_spinning)
        InterlockedIncrement64(&spins);
    return 0;
}

/* Ends the process if the suspensions hang (a GetThreadContext that never returns). */
static DWORD WINAPI watchdog(void *unused)
{
    (void)unused;
    Sleep(60000);
    printf("host_signals: FAIL the suspensions hung for 60 s (GetThreadContext never "
           "returned)\n");
    fflush(stdout);
    ExitProcess(3);
}

/* Builds and runs a kernel, so that a driver compiling with LLVM has set its handlers. */
static void build_and_run_kernel(void)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    cl_int err = CL_SUCCESS;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(context, "clCreateContext: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(queue, "clCreateCommandQueue: %d", err);
    cl_kernel kernel = test_kernel(context, device,
                                   "__kernel void twice(__global int *v)"
                                   "{ v[get_global_id(0)] *= 2; }",
                                   "twice");
    cl_int values[64];
    for (int i = 0; i < 64; i++)
        values[i] = i;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   sizeof(values), values, &err);
    REQUIRE(buffer, "clCreateBuffer: %d", err);
    size_t global = 64;
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(buffer), &buffer), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(values), values, 0, NULL, NULL),
              CL_SUCCESS);
    bool exact = true;
    for (int i = 0; i < 64; i++)
        exact &= values[i] == 2 * i;
    CHECK(exact, "the kernel doubled every value");
    clReleaseMemObject(buffer);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
}

/* Suspends the spinning thread `rounds` times: each time it must stand still and give its
 * context. Returns the number of rounds in which it kept running. */
static int suspend_rounds(HANDLE thread, int rounds)
{
    int moving = 0;

    for (int i = 0; i < rounds; i++) {
        CONTEXT context = {.ContextFlags = CONTEXT_CONTROL};

        CHECK(SuspendThread(thread) != (DWORD)-1, "SuspendThread: %lu", GetLastError());
        CHECK(GetThreadContext(thread, &context), "GetThreadContext: %lu", GetLastError());
        LONG64 before = spins;
        Sleep(5);
        moving += spins != before;
        CHECK(ResumeThread(thread) != (DWORD)-1, "ResumeThread: %lu", GetLastError());
        Sleep(1);
    }
    return moving;
}

/* Whether dxcl reaches the driver through its own Unix side (DXCL_INFO_DRIVER_ROUTE). */
static bool through_unix_side(void)
{
    dxclGetInfo_fn info =
        (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");
    char route[512] = "";

    REQUIRE(info != NULL, "dxcl exports no dxclGetInfo");
    CHECK_ERR(info(DXCL_INFO_DRIVER_ROUTE, sizeof(route), route, NULL), CL_SUCCESS);
    return strstr(route, "Unix side") != NULL;
}

int main(void)
{
    build_and_run_kernel();
    if (!through_unix_side()) {
        /* Wine's opencl.dll leaves the handlers as the driver set them: with PoCL the first
         * GetThreadContext below would never return. */
        printf("host_signals: the driver is reached through Wine's opencl.dll, not dxcl's Unix "
               "side: suspensions not checked\n");
        return test_finish("host_signals");
    }

    HANDLE spinner = CreateThread(NULL, 0, spin, NULL, 0, NULL);
    REQUIRE(spinner, "CreateThread: %lu", GetLastError());
    CloseHandle(CreateThread(NULL, 0, watchdog, NULL, 0, NULL));
    while (spins == 0)
        Sleep(1);

    int moving = suspend_rounds(spinner, 20);
    CHECK(moving == 0, "the suspended thread stood still in every round (%d of 20 moved)", moving);
    stop_spinning = 1;
    WaitForSingleObject(spinner, INFINITE);
    CloseHandle(spinner);
    return test_finish("host_signals");
}
