/* Acquire and release given what is not a memory object, or a command queue that is none
 * (issue 39, found on the H200), in every family: D3D11 KHR and NV, D3D10 KHR and NV, DX9
 * media KHR and Intel, NV D3D9.
 *  - An entry of mem_objects that is no memory object (0x1, 0x10000, a freed heap block, a
 *    PAGE_NOACCESS page, a code address, NULL, a context, a queue, an event) or one not made
 *    from the family's resources (a plain buffer): CL_INVALID_MEM_OBJECT, for the acquire and
 *    for the release (not the NOT_ACQUIRED error: the spec's order checks the objects first),
 *    and the valid objects listed with it stay where they were.
 *  - A command_queue that is none (the shared object itself, a plain buffer, the context, an
 *    event, 0x1, a freed heap block, a PAGE_NOACCESS page, a code address, NULL):
 *    CL_INVALID_COMMAND_QUEUE, and the object stays where it was.
 * dxcl must decide these from what it knows, never by reading the value (a driver may accept a
 * non-queue in clGetCommandQueueInfo; one that reads the value crashes). Each family runs in a
 * child process, so that a crash in one cannot hide the others' results.
 *   test_bad_handles             every family
 *   test_bad_handles family N    one (0..6, in the order above) */
#include "interop.h"
#include "nv_d3d9util.h"
#include "threads.h"

#include <stdlib.h>

enum { FAMILIES = 7, ELEMENTS = 64, CHILD_MS = 120000 };

struct family {
    const char *name;
    test_acquire_fn acquire, release;
    cl_context context;
    cl_command_queue queue;
    cl_mem object; /* a valid shared object of the family */
    cl_int not_acquired;
    /* What the family was opened with. */
    struct interop_env dxgi;
    struct dx9_env dx9;
    void *resource;
};

/* Values that are no OpenCL object, made once: no call of the test reuses their memory. */
struct garbage {
    void *freed, *no_access, *code, *system_code;
};

static void make_garbage(struct garbage *g)
{
    HANDLE heap = HeapCreate(0, 0, 0); /* a heap of its own: nothing else reuses the block */

    REQUIRE(heap && (g->freed = HeapAlloc(heap, 0, 256)), "a heap block");
    HeapFree(heap, 0, g->freed);
    REQUIRE((g->no_access = VirtualAlloc(NULL, 4096, MEM_RESERVE | MEM_COMMIT, PAGE_NOACCESS)),
            "a PAGE_NOACCESS page");
    g->code = (void *)(uintptr_t)&make_garbage;
    REQUIRE((g->system_code =
                 (void *)(uintptr_t)GetProcAddress(GetModuleHandleA("kernel32.dll"), "Sleep")),
            "kernel32's Sleep");
}

static void open_dxgi(struct family *f, const struct test_api *api)
{
    cl_uint data[ELEMENTS] = {0};
    cl_int err;

    interop_load(api, test_platform());
    interop_open(&f->dxgi, api, INTEROP_NO_USER_SYNC, 0);
    f->name = api->name;
    f->acquire = api->cl->acquire;
    f->release = api->cl->release;
    f->context = f->dxgi.context;
    f->queue = f->dxgi.queue;
    f->not_acquired = api->err_not_acquired;
    REQUIRE((f->resource = api->create_buffer(f->dxgi.d3d, sizeof(data), TEST_USAGE_DEFAULT, data)),
            "%s: a buffer", f->name);
    f->object = api->cl->create_buffer(f->context, 0, f->resource, &err);
    REQUIRE(err == CL_SUCCESS, "%s: the shared buffer: %d", f->name, err);
}

/* DX9 media KHR (0), Intel (1) and NV D3D9 (2), on a D3D9Ex device. */
static void open_dx9(struct family *f, int which)
{
    HRESULT hr;
    cl_int err;

    if (which == 2) {
        nv_open(&f->dx9, DX9_D3D9EX);
        f->name = "NV D3D9";
        f->acquire = (test_acquire_fn)nv.acquire;
        f->release = (test_acquire_fn)nv.release;
        f->not_acquired = CL_D3D9_RESOURCE_NOT_ACQUIRED_NV;
        f->resource = nv_resource(f->dx9.d3d, NV_SURFACE, D3DFMT_A8R8G8B8, 16, 16, 1, &hr);
        REQUIRE(f->resource, "NV D3D9: a surface: 0x%08lx", (unsigned long)hr);
        f->object = nv_create(&f->dx9, NV_SURFACE, f->resource, 0, 0, 0, &err);
    } else {
        dx9_open(&f->dx9, DX9_D3D9EX, which == 1, DX9_NO_USER_SYNC);
        f->name = which ? "DX9 Intel" : "DX9 media KHR";
        f->acquire = which ? (test_acquire_fn)dx9.intel_acquire : (test_acquire_fn)dx9.acquire;
        f->release = which ? (test_acquire_fn)dx9.intel_release : (test_acquire_fn)dx9.release;
        f->not_acquired =
            which ? CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL : CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR;
        f->resource = dx9_surface(f->dx9.d3d, 16, 16, D3DFMT_A8R8G8B8, DX9_PLAIN);
        f->object = dx9_create(&f->dx9, which == 1, f->resource, 0, 0, &err);
    }
    REQUIRE(err == CL_SUCCESS, "%s: the shared surface: %d", f->name, err);
    f->context = f->dx9.context;
    f->queue = f->dx9.queue;
}

static void open_family(struct family *f, int index)
{
    static const struct test_api *const dxgi_apis[] = {&api_d3d11_khr, &api_d3d11_nv,
                                                       &api_d3d10_khr, &api_d3d10_nv};

    memset(f, 0, sizeof(*f));
    if (index < 4)
        open_dxgi(f, dxgi_apis[index]);
    else
        open_dx9(f, index - 4);
}

static void close_family(struct family *f)
{
    CHECK_ERR(clReleaseMemObject(f->object), CL_SUCCESS);
    IUnknown_Release((IUnknown *)f->resource);
    if (f->dxgi.context)
        interop_close(&f->dxgi);
    else
        dx9_close(&f->dx9);
}

/* The object is acquirable (it stayed IDLE): one acquire and release, both succeeding. */
static void check_still_idle(struct family *f)
{
    CHECK_ERR(f->acquire(f->queue, 1, &f->object, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(f->release(f->queue, 1, &f->object, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(f->queue), CL_SUCCESS);
}

struct bad {
    void *value;
    const char *name;
};

/* Each value alone, and after the valid object, in the acquire's and the release's list. */
static void check_bad_objects(struct family *f, const struct bad *bad, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        cl_mem alone = bad[i].value, pair[2] = {f->object, bad[i].value};
        cl_int err;

        err = f->acquire(f->queue, 1, &alone, 0, NULL, NULL);
        CHECK(err == CL_INVALID_MEM_OBJECT, "%s: acquire of %s: %d, want CL_INVALID_MEM_OBJECT",
              f->name, bad[i].name, err);
        err = f->release(f->queue, 1, &alone, 0, NULL, NULL);
        CHECK(err == CL_INVALID_MEM_OBJECT,
              "%s: release of %s: %d, want CL_INVALID_MEM_OBJECT (not %d, the not-acquired "
              "error)",
              f->name, bad[i].name, err, f->not_acquired);
        err = f->acquire(f->queue, 2, pair, 0, NULL, NULL);
        CHECK(err == CL_INVALID_MEM_OBJECT,
              "%s: acquire of the object and %s: %d, want CL_INVALID_MEM_OBJECT", f->name,
              bad[i].name, err);
        /* The object stayed IDLE: acquire it, then a release naming it and the value. */
        CHECK_ERR(f->acquire(f->queue, 1, &f->object, 0, NULL, NULL), CL_SUCCESS);
        err = f->release(f->queue, 2, pair, 0, NULL, NULL);
        CHECK(err == CL_INVALID_MEM_OBJECT,
              "%s: release of the object and %s: %d, want CL_INVALID_MEM_OBJECT", f->name,
              bad[i].name, err);
        CHECK_ERR(f->release(f->queue, 1, &f->object, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(f->queue), CL_SUCCESS);
    }
}

/* Each value as the queue of an acquire, and of the release of an acquired object. */
static void check_bad_queues(struct family *f, const struct bad *bad, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        cl_command_queue queue = bad[i].value;
        cl_event event = NULL;
        cl_int err;

        err = f->acquire(queue, 1, &f->object, 0, NULL, &event);
        CHECK(err == CL_INVALID_COMMAND_QUEUE && !event,
              "%s: acquire on %s as the queue: %d, event %p, want CL_INVALID_COMMAND_QUEUE and "
              "no event",
              f->name, bad[i].name, err, (void *)event);
        if (err == CL_SUCCESS) /* put it back as it was */
            f->release(f->queue, 1, &f->object, 0, NULL, NULL), clFinish(f->queue);
        CHECK_ERR(f->acquire(f->queue, 1, &f->object, 0, NULL, NULL), CL_SUCCESS);
        err = f->release(queue, 1, &f->object, 0, NULL, NULL);
        CHECK(err == CL_INVALID_COMMAND_QUEUE,
              "%s: release on %s as the queue: %d, want CL_INVALID_COMMAND_QUEUE", f->name,
              bad[i].name, err);
        /* Still acquired: the real release succeeds. */
        CHECK_ERR(f->release(f->queue, 1, &f->object, 0, NULL, NULL),
                  err == CL_SUCCESS ? f->not_acquired : CL_SUCCESS);
        CHECK_ERR(clFinish(f->queue), CL_SUCCESS);
    }
}

static void run_family(int index)
{
    struct garbage g;
    struct family f;
    cl_int err;

    make_garbage(&g);
    open_family(&f, index);
    test_progress("bad_handles: %s", f.name);
    cl_event user = clCreateUserEvent(f.context, &err);
    REQUIRE(err == CL_SUCCESS, "a user event: %d", err);
    cl_mem plain = clCreateBuffer(f.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "a plain buffer: %d", err);
    const struct bad not_objects[] = {
        {(void *)(uintptr_t)0x1, "0x1"},
        {(void *)(uintptr_t)0x10000, "0x10000"},
        {g.freed, "a freed heap block"},
        {g.no_access, "a PAGE_NOACCESS page"},
        {g.code, "a code address of the program"},
        {g.system_code, "kernel32's Sleep"},
        {NULL, "NULL"},
        {f.context, "the context"},
        {f.queue, "the queue"},
        {user, "a user event"},
        {plain, "a buffer not made from a resource"},
    };
    const struct bad not_queues[] = {
        {f.object, "the shared object"},
        {plain, "a plain buffer"},
        {f.context, "the context"},
        {user, "a user event"},
        {(void *)(uintptr_t)0x1, "0x1"},
        {g.freed, "a freed heap block"},
        {g.no_access, "a PAGE_NOACCESS page"},
        {g.code, "a code address of the program"},
        {NULL, "NULL"},
    };
    check_bad_objects(&f, not_objects, sizeof(not_objects) / sizeof(not_objects[0]));
    check_bad_queues(&f, not_queues, sizeof(not_queues) / sizeof(not_queues[0]));
    check_still_idle(&f);
    CHECK_ERR(clReleaseMemObject(plain), CL_SUCCESS);
    CHECK_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    CHECK_ERR(clReleaseEvent(user), CL_SUCCESS);
    close_family(&f);
}

int main(int argc, char **argv)
{
    test_exit_on_crash("bad_handles");
    if (argc == 3 && !strcmp(argv[1], "family")) {
        run_family(atoi(argv[2]) % FAMILIES);
        return test_child_finish("bad_handles child");
    }
    for (int i = 0; i < FAMILIES; i++) {
        char args[32], what[64];
        snprintf(args, sizeof(args), "family %d", i);
        snprintf(what, sizeof(what), "bad_handles: child \"%s\"", args);
        DWORD code = test_run_child(args, CHILD_MS);
        printf("%s: %s (exit code %lu)\n", what, test_child_outcome(code), (unsigned long)code);
        CHECK(code == TEST_CHILD_PASSED, "%s: %s", what, test_child_outcome(code));
    }
    return test_finish("bad_handles");
}
