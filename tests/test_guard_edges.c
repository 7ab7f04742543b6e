/* Edges of the enqueue guard (issue 18), on D3D11 (KHR):
 *  - A whole-object write or fill the driver rejects changes nothing. The guard may count a
 *    whole-object write as an overwrite (and skip reading Direct3D, docs/design.md "Lazy
 *    uploads") only once the driver has accepted it: when the driver refuses the command the
 *    object still holds the Direct3D contents, and release must leave Direct3D as it was. Each
 *    case first gives Direct3D new contents, so stale bytes in the staging copy would show.
 *  - A kernel with KERNEL_ARGS (> 64) shared buffer arguments is guarded on every one: with any
 *    one of them not acquired, the first or the last, clEnqueueNDRangeKernel fails with
 *    CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR; with all acquired, its writes to every one of them
 *    reach Direct3D.
 *  - clCloneKernel (OpenCL 2.1): a clone has its source's arguments, so it is guarded like its
 *    source and its writes reach Direct3D. Where the driver lacks clCloneKernel (Wine's
 *    opencl.dll is OpenCL 1.2), dxcl must answer as for every function the driver lacks: NULL
 *    and CL_INVALID_OPERATION; the test then says so and checks that answer.
 *  - An integer argument of a cl_mem's size whose value equals a shared object's handle is an
 *    integer: the kernel runs though that object is not acquired, and its write to its buffer
 *    argument lands. dxcl knows from the driver's argument info (clGetKernelArgInfo) which
 *    arguments take memory objects; where the driver gives none (the .quirks variant), dxcl
 *    falls back to taking such a value for the object, and the kernel is refused with
 *    NOT_ACQUIRED (docs/design.md, "The enqueue guard"). The case runs twice: built as the
 *    program builds it (no options: PoCL then gives no argument info) and built with
 *    -cl-kernel-arg-info, where PoCL gives it and the integer runs on PoCL too.
 *  - dxcl leaves the program's build as the program asked: CL_PROGRAM_BUILD_OPTIONS answers the
 *    options the program gave, with no -cl-kernel-arg-info added (docs/design.md, "Which kernel
 *    arguments are memory objects", says why dxcl does not add it).
 *   test_guard_edges */
#include "interop.h"
#include "threads.h"

#include <stdlib.h>
#include <CL/cl_d3d11.h>

enum { ELEMENTS = 64, WIDTH = 8, HEIGHT = 8, KERNEL_ARGS = 70, ARG_ELEMENTS = 16 };

static const struct test_api *api = &api_d3d11_khr;

static const char *source = "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1u; }\n";

/* ---- Rejected whole-object commands ---- */

struct rejected {
    struct interop_env *env;
    void *resource;
    cl_mem mem;
    bool image;
    cl_uint contents[ELEMENTS];
};

typedef cl_int (*rejected_command)(struct rejected *r, cl_int *want);

/* num_events_in_wait_list 1 with a NULL list. */
static cl_int write_buffer_bad_wait_list(struct rejected *r, cl_int *want)
{
    cl_uint data[ELEMENTS] = {0};

    *want = CL_INVALID_EVENT_WAIT_LIST;
    return clEnqueueWriteBuffer(r->env->queue, r->mem, CL_FALSE, 0, sizeof(data), data, 1, NULL,
                                NULL);
}

static cl_int write_buffer_null_pointer(struct rejected *r, cl_int *want)
{
    *want = CL_INVALID_VALUE;
    return clEnqueueWriteBuffer(r->env->queue, r->mem, CL_TRUE, 0, sizeof(r->contents), NULL, 0,
                                NULL, NULL);
}

/* A 3-byte pattern: patterns are 1, 2, 4, ... 128 bytes. */
static cl_int fill_buffer_bad_pattern(struct rejected *r, cl_int *want)
{
    const unsigned char pattern[3] = {1, 2, 3};

    *want = CL_INVALID_VALUE;
    return clEnqueueFillBuffer(r->env->queue, r->mem, pattern, sizeof(pattern), 0,
                               sizeof(r->contents), 0, NULL, NULL);
}

static cl_int write_image_bad_wait_list(struct rejected *r, cl_int *want)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {WIDTH, HEIGHT, 1};
    cl_uint data[ELEMENTS] = {0};

    *want = CL_INVALID_EVENT_WAIT_LIST;
    return clEnqueueWriteImage(r->env->queue, r->mem, CL_FALSE, origin, region, 0, 0, data, 1, NULL,
                               NULL);
}

static cl_int fill_image_bad_wait_list(struct rejected *r, cl_int *want)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {WIDTH, HEIGHT, 1};
    const cl_uint color[4] = {5, 5, 5, 5};

    *want = CL_INVALID_EVENT_WAIT_LIST;
    return clEnqueueFillImage(r->env->queue, r->mem, color, origin, region, 1, NULL, NULL);
}

static void check_rejected(struct rejected *r, rejected_command command, const char *what,
                           uint32_t seed)
{
    cl_uint got[ELEMENTS];
    cl_int want;

    test_fill_bytes(r->contents, sizeof(r->contents), seed);
    REQUIRE(api->write_subresource(r->resource, 0, r->contents), "%s: Direct3D write", what);
    CHECK_ERR(api->cl->acquire(r->env->queue, 1, &r->mem, 0, NULL, NULL), CL_SUCCESS);
    cl_int err = command(r, &want);
    CHECK(err == want, "%s: the driver's answer %d, want %d", what, err, want);
    /* A command after the refused one still sees the resource's contents. */
    memset(got, 0, sizeof(got));
    if (r->image) {
        const size_t origin[3] = {0, 0, 0}, region[3] = {WIDTH, HEIGHT, 1};
        CHECK_ERR(clEnqueueReadImage(r->env->queue, r->mem, CL_TRUE, origin, region, 0, 0, got, 0,
                                     NULL, NULL),
                  CL_SUCCESS);
    } else {
        CHECK_ERR(
            clEnqueueReadBuffer(r->env->queue, r->mem, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
            CL_SUCCESS);
    }
    test_same_bytes(got, r->contents, sizeof(got), "the read after the refused command");
    CHECK_ERR(api->cl->release(r->env->queue, 1, &r->mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(r->env->queue), CL_SUCCESS);
    REQUIRE(api->read_subresource(r->resource, 0, got), "%s: Direct3D read", what);
    test_same_bytes(got, r->contents, sizeof(got), what);
}

static void rejected_commands(void)
{
    static const struct {
        bool image;
        rejected_command command;
        const char *name;
    } cases[] = {
        {false, write_buffer_bad_wait_list,
         "a whole-buffer write with a wait list the driver refuses leaves Direct3D unchanged"},
        {false, write_buffer_null_pointer,
         "a whole-buffer write from a NULL pointer leaves Direct3D unchanged"},
        {false, fill_buffer_bad_pattern,
         "a whole-buffer fill with a 3-byte pattern leaves Direct3D unchanged"},
        {true, write_image_bad_wait_list,
         "a whole-image write with a wait list the driver refuses leaves Direct3D unchanged"},
        {true, fill_image_bad_wait_list,
         "a whole-image fill with a wait list the driver refuses leaves Direct3D unchanged"},
    };
    const struct test_texture_desc desc = {
        WIDTH, HEIGHT, 1, 1, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT, 1};
    struct interop_env env;
    cl_int err;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct rejected r = {.env = &env, .image = cases[i].image};
        cl_uint initial[ELEMENTS];
        const void *levels[1] = {initial};

        test_fill_bytes(initial, sizeof(initial), 100 + (uint32_t)i);
        r.resource =
            r.image ? api->create_texture2d(env.d3d, &desc, levels)
                    : api->create_buffer(env.d3d, sizeof(initial), TEST_USAGE_DEFAULT, initial);
        REQUIRE(r.resource, "%s: Direct3D resource", cases[i].name);
        r.mem = r.image ? api->cl->create_texture2d(env.context, 0, r.resource, 0, &err)
                        : api->cl->create_buffer(env.context, 0, r.resource, &err);
        REQUIRE(err == CL_SUCCESS, "%s: shared object: %d", cases[i].name, err);
        /* Twice: the second time the staging copy holds the first case's contents. */
        check_rejected(&r, cases[i].command, cases[i].name, 200 + 2 * (uint32_t)i);
        check_rejected(&r, cases[i].command, cases[i].name, 201 + 2 * (uint32_t)i);
        CHECK_ERR(clReleaseMemObject(r.mem), CL_SUCCESS);
        api->release(r.resource);
    }
    interop_close(&env);
}

/* ---- A kernel with more than 64 shared arguments ---- */

static char *many_args_source(void)
{
    size_t cap = 64 * KERNEL_ARGS + 256, used = 0;
    char *text = malloc(cap);

    REQUIRE(text, "out of memory");
    used += (size_t)snprintf(text + used, cap - used, "__kernel void inc_all(");
    for (int i = 0; i < KERNEL_ARGS; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s__global uint *b%d", i ? ", " : "", i);
    used += (size_t)snprintf(text + used, cap - used, ")\n{ size_t i = get_global_id(0);");
    for (int i = 0; i < KERNEL_ARGS; i++)
        used += (size_t)snprintf(text + used, cap - used, " b%d[i] += 1u;", i);
    snprintf(text + used, cap - used, " }\n");
    return text;
}

struct many {
    struct interop_env env;
    cl_kernel kernel;
    void *buffers[KERNEL_ARGS];
    cl_mem mems[KERNEL_ARGS];
};

/* Acquires every object but `left_out` (none when KERNEL_ARGS) and enqueues the kernel. */
static cl_int run_without(struct many *m, int left_out)
{
    const size_t size = ARG_ELEMENTS;
    cl_mem acquired[KERNEL_ARGS];
    cl_uint count = 0;
    cl_int err;

    for (int i = 0; i < KERNEL_ARGS; i++)
        if (i != left_out)
            acquired[count++] = m->mems[i];
    CHECK_ERR(api->cl->acquire(m->env.queue, count, acquired, 0, NULL, NULL), CL_SUCCESS);
    err = clEnqueueNDRangeKernel(m->env.queue, m->kernel, 1, NULL, &size, NULL, 0, NULL, NULL);
    CHECK_ERR(api->cl->release(m->env.queue, count, acquired, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(m->env.queue), CL_SUCCESS);
    return err;
}

static void many_shared_arguments(void)
{
    struct many m;
    cl_uint before[KERNEL_ARGS][ARG_ELEMENTS], after[ARG_ELEMENTS];
    char *text = many_args_source();
    cl_int err;

    interop_open(&m.env, api, INTEROP_NO_USER_SYNC, 0);
    cl_program program = test_program(m.env.context, m.env.device, text);
    m.kernel = test_program_kernel(program, "inc_all");
    clReleaseProgram(program);
    free(text);
    for (int i = 0; i < KERNEL_ARGS; i++) {
        test_fill_bytes(before[i], sizeof(before[i]), 300 + (uint32_t)i);
        m.buffers[i] =
            api->create_buffer(m.env.d3d, sizeof(before[i]), TEST_USAGE_DEFAULT, before[i]);
        REQUIRE(m.buffers[i], "buffer %d", i);
        m.mems[i] = api->cl->create_buffer(m.env.context, 0, m.buffers[i], &err);
        REQUIRE(err == CL_SUCCESS, "shared buffer %d: %d", i, err);
        CHECK_ERR(clSetKernelArg(m.kernel, (cl_uint)i, sizeof(cl_mem), &m.mems[i]), CL_SUCCESS);
    }
    CHECK(run_without(&m, 0) == CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR,
          "%d shared arguments, the first not acquired: the kernel is refused", KERNEL_ARGS);
    CHECK(run_without(&m, KERNEL_ARGS - 1) == CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR,
          "%d shared arguments, the last (argument %d) not acquired: the kernel is refused",
          KERNEL_ARGS, KERNEL_ARGS - 1);
    /* What Direct3D holds now (a kernel that was not refused above may have changed it). */
    for (int i = 0; i < KERNEL_ARGS; i++)
        REQUIRE(api->read_subresource(m.buffers[i], 0, before[i]), "read buffer %d", i);
    CHECK_ERR(run_without(&m, KERNEL_ARGS), CL_SUCCESS);
    int missing = 0, first_missing = -1;
    for (int i = 0; i < KERNEL_ARGS; i++) {
        bool exact = api->read_subresource(m.buffers[i], 0, after);
        for (int e = 0; exact && e < ARG_ELEMENTS; e++)
            exact = after[e] == before[i][e] + 1;
        if (!exact && !missing++)
            first_missing = i;
    }
    CHECK(missing == 0,
          "%d shared arguments, all acquired: the kernel's writes to %d of them did not reach "
          "Direct3D (the first: argument %d)",
          KERNEL_ARGS, missing, first_missing);
    for (int i = 0; i < KERNEL_ARGS; i++) {
        CHECK_ERR(clReleaseMemObject(m.mems[i]), CL_SUCCESS);
        api->release(m.buffers[i]);
    }
    clReleaseKernel(m.kernel);
    interop_close(&m.env);
}

/* ---- clCloneKernel ---- */

static void clone_guarded(struct interop_env *env, cl_kernel clone, cl_mem mem, void *buffer)
{
    const size_t size = ELEMENTS;
    cl_uint before[ELEMENTS], after[ELEMENTS];

    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, clone, 1, NULL, &size, NULL, 0, NULL, NULL),
              CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);
    REQUIRE(api->read_subresource(buffer, 0, before), "read the buffer");
    CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, clone, 1, NULL, &size, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(api->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    REQUIRE(api->read_subresource(buffer, 0, after), "read the buffer");
    bool exact = true;
    for (int i = 0; exact && i < ELEMENTS; i++)
        exact = after[i] == before[i] + 1;
    CHECK(exact, "the clone's writes reached Direct3D");
}

static void clone_kernel(void)
{
    struct interop_env env;
    cl_uint data[ELEMENTS] = {0};
    cl_int err = CL_SUCCESS;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    void *buffer = api->create_buffer(env.d3d, sizeof(data), TEST_USAGE_DEFAULT, data);
    REQUIRE(buffer, "D3D11 buffer");
    cl_mem mem = api->cl->create_buffer(env.context, 0, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "shared buffer: %d", err);
    cl_kernel kernel = test_kernel(env.context, env.device, source, "inc");
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &mem), CL_SUCCESS);
    cl_kernel clone = clCloneKernel(kernel, &err);
    if (!test_driver()->clCloneKernel) {
        printf("guard_edges: the driver exports no clCloneKernel (an OpenCL 1.2 driver): dxcl "
               "must answer NULL and CL_INVALID_OPERATION; the guarded-clone checks need a 2.1 "
               "driver\n");
        CHECK(clone == NULL && err == CL_INVALID_OPERATION,
              "clCloneKernel without the driver's: %p, error %d (want NULL, "
              "CL_INVALID_OPERATION)",
              (void *)clone, err);
    } else {
        REQUIRE(clone != NULL && err == CL_SUCCESS, "clCloneKernel: %d", err);
        /* The source goes first: the clone must stand on its own. */
        clReleaseKernel(kernel);
        kernel = NULL;
        clone_guarded(&env, clone, mem, buffer);
        clReleaseKernel(clone);
    }
    if (kernel)
        clReleaseKernel(kernel);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    api->release(buffer);
    interop_close(&env);
}

/* ---- An integer that looks like a handle ---- */

/* The program's build options, as clGetProgramBuildInfo answers them (spaces around them
 * aside), are the ones it gave. */
static void check_build_options(cl_program program, cl_device_id device, const char *given)
{
    char options[256] = "";
    size_t start, end;

    CHECK_ERR(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_OPTIONS, sizeof(options),
                                    options, NULL),
              CL_SUCCESS);
    start = strspn(options, " ");
    for (end = strlen(options); end > start && options[end - 1] == ' '; end--)
        ;
    CHECK(end - start == strlen(given) && !strncmp(options + start, given, end - start),
          "build options \"%s\" (the program gave \"%s\")", options, given);
}

static cl_kernel built_kernel(cl_context context, cl_device_id device, const char *text,
                              const char *name, const char *options)
{
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &text, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "program: %d", err);
    CHECK_ERR(clBuildProgram(program, 1, &device, options, NULL, NULL), CL_SUCCESS);
    check_build_options(program, device, options);
    cl_kernel kernel = clCreateKernel(program, name, &err);
    REQUIRE(err == CL_SUCCESS, "kernel %s: %d", name, err);
    clReleaseProgram(program); /* the kernel keeps it */
    return kernel;
}

static void integer_argument(const char *options)
{
    static const char *add_source =
        "__kernel void add(__global uint *b, ulong v) { b[get_global_id(0)] += (uint)(v != 0); }\n";
    struct interop_env env;
    cl_uint data[ELEMENTS] = {0}, got[ELEMENTS];
    const size_t size = ELEMENTS;
    cl_kernel_arg_address_qualifier address;
    cl_int err;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    void *buffer = api->create_buffer(env.d3d, sizeof(data), TEST_USAGE_DEFAULT, data);
    REQUIRE(buffer, "D3D11 buffer");
    cl_mem shared = api->cl->create_buffer(env.context, 0, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "shared buffer: %d", err);
    cl_mem plain = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  sizeof(data), data, &err);
    REQUIRE(err == CL_SUCCESS, "plain buffer: %d", err);
    cl_kernel kernel = built_kernel(env.context, env.device, add_source, "add", options);
    cl_int info_err = clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                         sizeof(address), &address, NULL);
    bool info = info_err == CL_SUCCESS;
    printf("guard_edges: built with \"%s\": argument info %s (%d)\n", options,
           info ? "given" : "not given", info_err);
    if (info)
        CHECK(address == CL_KERNEL_ARG_ADDRESS_PRIVATE, "ulong argument's address qualifier %#x",
              (unsigned)address);
    cl_ulong value = (cl_ulong)(uintptr_t)shared; /* the shared object's handle, as a number */
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &plain), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(value), &value), CL_SUCCESS);
    err = clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &size, NULL, 0, NULL, NULL);
    if (info) {
        CHECK_ERR(err, CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadBuffer(env.queue, plain, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK(got[0] == 1 && got[ELEMENTS - 1] == 1,
              "the kernel with an integer equal to a handle ran: %u, %u (want 1)", got[0],
              got[ELEMENTS - 1]);
    } else {
        printf("guard_edges: the driver gives no kernel argument info (%d): dxcl takes an 8-byte "
               "value equal to a shared handle for that object\n",
               info_err);
        CHECK_ERR(err, CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);
    }
    /* Set to another value, the argument no longer names the object either way. */
    value = 7;
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(value), &value), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &size, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    clReleaseKernel(kernel);
    CHECK_ERR(clReleaseMemObject(plain), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(shared), CL_SUCCESS);
    api->release(buffer);
    interop_close(&env);
}

int main(void)
{
    test_exit_on_crash("guard_edges");
    rejected_commands();
    many_shared_arguments();
    clone_kernel();
    integer_argument("");
    integer_argument("-cl-kernel-arg-info");
    return test_finish("guard_edges");
}
