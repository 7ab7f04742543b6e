/* clLinkProgram with errcode_ret NULL (issue 18). errcode_ret may be NULL in every OpenCL call
 * that has one; dxcl's clLinkProgram wrote through it whenever its log was off. The calls run
 * in a child process with DXCL_LOG removed from its environment (the log's wrapper passes a
 * pointer of its own, which hid the crash), so that a crash is reported as one failed check.
 * A link with errcode_ret given tells whether the driver links at all (Wine 8's clLinkProgram
 * is a stub answering CL_INVALID_OPERATION); then, with errcode_ret NULL, without and with a
 * build callback, the call must not crash and must return what a caller can use: a working
 * program where the link works, NULL where it fails (on failure clLinkProgram returns NULL);
 * and a link the driver refuses (no input programs) returns NULL. The child runs twice: with
 * dxcl in front of the system driver, and with dxcl_back.dll as dxcl's driver (so that
 * dxcl's driver has a clLinkProgram of its own: the other path).
 *   test_link_errcode          the parent: runs the children and checks their outcome
 *   test_link_errcode child    the calls */
#include "threads.h"

#include <stdlib.h>

static const char *source =
    "__kernel void twice(__global uint *b) { b[get_global_id(0)] *= 2u; }\n";

static volatile LONG notified;

static void CL_CALLBACK on_linked(cl_program program, void *user_data)
{
    (void)program;
    (void)user_data;
    InterlockedIncrement(&notified);
}

/* The linked program works: its kernel doubles a buffer. */
static void check_program(cl_context context, cl_device_id device, cl_program program,
                          const char *what)
{
    cl_uint data[4] = {1, 2, 3, 4};
    const size_t size = 4;
    cl_int err;

    REQUIRE(program != NULL, "%s: clLinkProgram returned NULL", what);
    cl_kernel kernel = clCreateKernel(program, "twice", &err);
    CHECK(err == CL_SUCCESS && kernel, "%s: clCreateKernel on the linked program: %d", what, err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof(data), data, &err);
    if (kernel && queue && buffer) {
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(buffer), &buffer), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &size, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(data), data, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK(data[0] == 2 && data[3] == 8, "%s: the kernel doubled the buffer (%u %u)", what,
              data[0], data[3]);
    }
    if (buffer)
        clReleaseMemObject(buffer);
    if (queue)
        clReleaseCommandQueue(queue);
    if (kernel)
        clReleaseKernel(kernel);
    clReleaseProgram(program);
}

/* After clLinkProgram with errcode_ret NULL the returned program is all a caller has: it must
 * be NULL or a program that works (never a failed link's leftover). `works` says whether the
 * same link succeeded with errcode_ret given. */
static void check_result(cl_context context, cl_device_id device, cl_program linked, bool works,
                         const char *what)
{
    if (works)
        check_program(context, device, linked, what);
    else
        CHECK(linked == NULL, "%s: the link fails here (see above), yet it returned %p, not NULL",
              what, (void *)linked);
}

static int child(void)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_program compiled = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clCompileProgram(compiled, 1, &device, "", 0, NULL, NULL, NULL, NULL);
    CHECK(err == CL_SUCCESS || err == CL_INVALID_OPERATION, "clCompileProgram: %d", err);

    /* With errcode_ret given: does linking work on this driver at all? */
    cl_program linked = clLinkProgram(context, 1, &device, "", 1, &compiled, NULL, NULL, &err);
    bool works = err == CL_SUCCESS;
    printf("link_errcode: with errcode_ret given the link returns %p, error %d: %s\n",
           (void *)linked, err,
           works ? "the driver links" : "the driver does not link (Wine 8: not implemented)");
    fflush(stdout);
    CHECK(works || err == CL_INVALID_OPERATION, "clLinkProgram: error %d", err);
    CHECK((linked != NULL) == works,
          "clLinkProgram returned %p with error %d: NULL exactly when the link fails",
          (void *)linked, err);
    if (works)
        check_program(context, device, linked, "errcode_ret given");

    printf("link_errcode: link, errcode_ret NULL\n");
    fflush(stdout);
    linked = clLinkProgram(context, 1, &device, "", 1, &compiled, NULL, NULL, NULL);
    check_result(context, device, linked, works, "errcode_ret NULL");

    printf("link_errcode: link with a callback, errcode_ret NULL\n");
    fflush(stdout);
    linked = clLinkProgram(context, 1, &device, "", 1, &compiled, on_linked, NULL, NULL);
    if (works)
        CHECK(test_wait_count(&notified, 1, 10000), "the link callback ran (%ld calls)",
              (long)notified);
    check_result(context, device, linked, works, "with a callback, errcode_ret NULL");

    printf("link_errcode: a refused link (no input programs), errcode_ret NULL\n");
    fflush(stdout);
    linked = clLinkProgram(context, 1, &device, "", 0, NULL, NULL, NULL, NULL);
    CHECK(linked == NULL, "a link without input programs returned %p", (void *)linked);

    clReleaseProgram(compiled);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    return test_child_finish("link_errcode child");
}

/* The child again with dxcl_back.dll (the build's second dxcl, beside this program) as the
 * driver: then dxcl's driver has a clLinkProgram of its own (the back's), which is the other
 * path through dxcl's clLinkProgram. */
static void run_chained(void)
{
    char path[MAX_PATH], *slash;

    GetModuleFileNameA(NULL, path, sizeof(path));
    REQUIRE((slash = strrchr(path, '\\')), "the program's folder in %s", path);
    strcpy(slash + 1, "dxcl_back.dll");
    REQUIRE(GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES, "%s exists", path);
    SetEnvironmentVariableA("DXCL_DRIVER", path);
    test_check_child("child", "link_errcode: the same with dxcl_back.dll as the driver");
    SetEnvironmentVariableA("DXCL_DRIVER", NULL);
}

int main(int argc, char **argv)
{
    test_exit_on_crash("link_errcode");
    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    /* The bug hides behind the log: the child runs without it. */
    SetEnvironmentVariableA("DXCL_LOG", NULL);
    test_check_child("child", "link_errcode: clLinkProgram with errcode_ret NULL, log off");
    run_chained();
    return test_finish("link_errcode");
}
