/* A release outlives the queue, the context and the objects (issue 39, found on the H200).
 * Thread A acquires a shared object, enqueues a kernel that writes it and releases it with an
 * unset user event in the release's wait list; then thread B releases the command queue and the
 * context (and, in some cases, the object and the kernel), and only then sets the user event.
 * Releasing a queue or a context (or a memory object) does not cancel the commands already
 * queued on it: the spec deletes an object once its count is zero AND those commands are done.
 * So the release's event must complete with CL_COMPLETE and Direct3D must hold the kernel's
 * result; without an event asked for, Direct3D must get it all the same.
 *
 * Cases: D3D11 KHR and D3D10 KHR, a buffer and a 2D texture, the object kept or released right
 * after the release call, the release's event asked for or not, and
 * CL_CONTEXT_INTEROP_USER_SYNC CL_TRUE (the release always ends on dxcl's thread). Each case
 * runs in a child process, so that a crash or hang in one cannot hide the others' results.
 *   test_release_outlives                                     every case
 *   test_release_outlives case API KIND DROP EVENT USER_SYNC  one case (API 0: D3D11, 1: D3D10;
 *                                                             KIND 0: buffer, 1: texture) */
#include "interop.h"
#include "threads.h"

#include <stdlib.h>

enum {
    W = 16,
    H = 8,
    ELEMENTS = W * H,
    CHILD_MS = 120000, /* a case still running then hangs */
    RETURN_MS = 3000,  /* thread A's release has returned by then, or it blocked */
    ARRIVE_MS = 20000  /* Direct3D has the data by then, without an event to wait for */
};

static const char *source =
    "__kernel void add_buffer(__global uint *b) { b[get_global_id(0)] += 1u; }\n"
    /* What add_buffer makes of open_scene's data: the texture is written, not read. */
    "__kernel void set_image(__write_only image2d_t dst, uint w)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imageui(dst, p, (uint4)(1000u * (uint)(p.y * (int)w + p.x) + 1u)); }\n";

struct scene {
    char name[160];
    const struct test_api *api;
    bool texture, drop_objects, want_event, user_sync;
    cl_device_id device;
    void *d3d, *resource;
    cl_uint initial[ELEMENTS];
    cl_context context;
    cl_command_queue queue;
    cl_kernel kernel;
    cl_mem mem;
    cl_event user;
    /* Thread A's release. */
    volatile LONG returned;
    cl_int released;
    cl_event release_event;
};

static void open_scene(struct scene *s)
{
    struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT, 1};
    const void *data[1] = {s->initial};
    cl_context_properties props[] = {s->api->context_property, 0, CL_CONTEXT_INTEROP_USER_SYNC,
                                     CL_TRUE, 0};
    cl_int err;

    for (int i = 0; i < ELEMENTS; i++)
        s->initial[i] = 1000u * (cl_uint)i;
    REQUIRE((s->d3d = s->api->create_device()), "%s: a device", s->name);
    s->resource = s->texture ? s->api->create_texture2d(s->d3d, &desc, data)
                             : s->api->create_buffer(s->d3d, sizeof(s->initial), TEST_USAGE_DEFAULT,
                                                     s->initial);
    REQUIRE(s->resource, "%s: the resource", s->name);
    props[1] = (cl_context_properties)s->d3d;
    if (!s->user_sync)
        props[2] = 0;
    s->context = clCreateContext(props, 1, &s->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "%s: context: %d", s->name, err);
    s->queue = clCreateCommandQueue(s->context, s->device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "%s: queue: %d", s->name, err);
    s->kernel = test_kernel(s->context, s->device, source, s->texture ? "set_image" : "add_buffer");
    s->mem = s->texture
                 ? s->api->cl->create_texture2d(s->context, CL_MEM_READ_WRITE, s->resource, 0, &err)
                 : s->api->cl->create_buffer(s->context, CL_MEM_READ_WRITE, s->resource, &err);
    REQUIRE(err == CL_SUCCESS, "%s: shared object: %d", s->name, err);
    s->user = clCreateUserEvent(s->context, &err);
    REQUIRE(err == CL_SUCCESS, "%s: user event: %d", s->name, err);
}

/* Thread A: the acquire, the kernel, and the release behind the user event. */
static DWORD WINAPI thread_a(void *arg)
{
    struct scene *s = arg;
    size_t global[2] = {s->texture ? W : ELEMENTS, H};
    cl_uint width = W;
    cl_int err;

    err = s->api->cl->acquire(s->queue, 1, &s->mem, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &s->mem);
    if (err == CL_SUCCESS && s->texture)
        err = clSetKernelArg(s->kernel, 1, sizeof(width), &width);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(s->queue, s->kernel, s->texture ? 2 : 1, NULL, global, NULL, 0,
                                     NULL, NULL);
    if (err == CL_SUCCESS)
        err = s->api->cl->release(s->queue, 1, &s->mem, 1, &s->user,
                                  s->want_event ? &s->release_event : NULL);
    s->released = err;
    InterlockedExchange(&s->returned, 1);
    return 0;
}

static bool resource_holds(struct scene *s, cl_uint added, cl_uint *first)
{
    cl_uint got[ELEMENTS];
    bool ok = s->api->read_subresource(s->resource, 0, got);

    for (int i = 0; ok && i < ELEMENTS; i++)
        ok = got[i] == s->initial[i] + added;
    *first = got[0];
    return ok;
}

/* Without an event the program can only look: Direct3D gets the data once the commands are
 * done, which they are soon after the user event is set. */
static bool arrives(struct scene *s, cl_uint *first)
{
    DWORD start = GetTickCount();

    while (!resource_holds(s, 1, first)) {
        if (GetTickCount() - start > ARRIVE_MS)
            return false;
        Sleep(20);
    }
    return true;
}

static void run_case(const struct test_api *api, bool texture, bool drop_objects, bool want_event,
                     bool user_sync)
{
    struct scene s = {.api = api,
                      .texture = texture,
                      .drop_objects = drop_objects,
                      .want_event = want_event,
                      .user_sync = user_sync};
    cl_platform_id platform = test_platform();
    cl_int status = CL_COMPLETE;
    cl_uint first = 0;
    HANDLE a;

    snprintf(s.name, sizeof(s.name), "%s %s, object %s, event %s%s", api->name,
             texture ? "texture" : "buffer", drop_objects ? "released" : "kept",
             want_event ? "asked for" : "not asked for", user_sync ? ", user sync" : "");
    test_progress("release_outlives: %s", s.name);
    s.device = test_device(platform);
    interop_load(api, platform);
    open_scene(&s);
    REQUIRE((a = CreateThread(NULL, 0, thread_a, &s, 0, NULL)), "CreateThread");
    for (DWORD start = GetTickCount(); !s.returned && GetTickCount() - start < RETURN_MS;)
        Sleep(1);
    /* Thread B (this one): the queue and the context go first; the release must not care. */
    CHECK(s.returned, "%s: the release blocked on a user event the program had not set", s.name);
    CHECK_ERR(clReleaseCommandQueue(s.queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(s.context), CL_SUCCESS);
    if (drop_objects) {
        CHECK_ERR(clReleaseMemObject(s.mem), CL_SUCCESS);
        CHECK_ERR(clReleaseKernel(s.kernel), CL_SUCCESS);
    }
    CHECK_ERR(clSetUserEventStatus(s.user, CL_COMPLETE), CL_SUCCESS);
    REQUIRE(WaitForSingleObject(a, CHILD_MS) == WAIT_OBJECT_0, "%s: thread A hangs", s.name);
    CloseHandle(a);
    CHECK(s.released == CL_SUCCESS, "%s: thread A's calls returned %d", s.name, s.released);
    if (want_event && s.released == CL_SUCCESS) {
        CHECK_ERR(clWaitForEvents(1, &s.release_event), CL_SUCCESS);
        CHECK_ERR(clGetEventInfo(s.release_event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                 &status, NULL),
                  CL_SUCCESS);
        CHECK(status == CL_COMPLETE, "%s: the release's event ended with %d", s.name, status);
        CHECK(resource_holds(&s, 1, &first),
              "%s: Direct3D lacks the kernel's result once the release's event completed "
              "(element 0 is %u, want %u)",
              s.name, first, s.initial[0] + 1);
        CHECK_ERR(clReleaseEvent(s.release_event), CL_SUCCESS);
    } else if (s.released == CL_SUCCESS) {
        CHECK(arrives(&s, &first),
              "%s: Direct3D lacks the kernel's result %d ms after the user event was set "
              "(element 0 is %u, want %u)",
              s.name, ARRIVE_MS, first, s.initial[0] + 1);
    }
    CHECK_ERR(clReleaseEvent(s.user), CL_SUCCESS);
    if (!drop_objects) {
        CHECK_ERR(clReleaseMemObject(s.mem), CL_SUCCESS);
        CHECK_ERR(clReleaseKernel(s.kernel), CL_SUCCESS);
    }
    api->release(s.resource);
    api->release(s.d3d);
}

static const struct test_api *const apis[] = {&api_d3d11_khr, &api_d3d10_khr};

static void run_children(void)
{
    /* {API, texture, drop objects, want event, user sync} */
    static const int cases[][5] = {
        {0, 0, 0, 1, 0}, {0, 0, 1, 1, 0}, {0, 0, 1, 0, 0}, {0, 1, 0, 1, 0},
        {0, 1, 1, 1, 0}, {1, 0, 0, 1, 0}, {1, 0, 1, 1, 0}, {1, 1, 0, 1, 0},
        {1, 1, 1, 0, 0}, {0, 0, 1, 1, 1}, {1, 1, 1, 1, 1},
    };
    char args[64], what[128];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const int *c = cases[i];
        snprintf(args, sizeof(args), "case %d %d %d %d %d", c[0], c[1], c[2], c[3], c[4]);
        snprintf(what, sizeof(what), "release_outlives: child \"%s\"", args);
        DWORD code = test_run_child(args, CHILD_MS);
        printf("%s: %s (exit code %lu)\n", what, test_child_outcome(code), (unsigned long)code);
        CHECK(code == TEST_CHILD_PASSED, "%s: %s", what, test_child_outcome(code));
    }
}

int main(int argc, char **argv)
{
    test_exit_on_crash("release_outlives");
    if (argc == 7 && !strcmp(argv[1], "case")) {
        run_case(apis[atoi(argv[2]) & 1], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
                 atoi(argv[6]));
        return test_child_finish("release_outlives child");
    }
    run_children();
    return test_finish("release_outlives");
}
