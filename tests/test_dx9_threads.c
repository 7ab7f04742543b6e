/* Which threads dxcl may use a D3D9 device from (docs/design.md, "Which threads dxcl uses a
 * device from"), seen through a release gated on a user event:
 * - a device created with D3DCREATE_MULTITHREADED: one thread acquires, runs a kernel, releases
 *   with the user event in the wait list and sets it after the call; the release returns at
 *   once, its event completes (and Direct3D has the data) only after the event is set;
 * - a device created without it: dxcl uses it only inside the program's calls, so the release
 *   waits in the call, and the program sets the event from another thread (the rule the docs
 *   give); the data is exact either way. */
#include "dx9util.h"
#include "threads.h"

#include <stdlib.h>

#define W 32
#define H 16
#define BYTES (W * H * 4)

struct pair {
    IDirect3DSurface9 *src, *dst;
    cl_mem mems[2];
    cl_kernel kernel;
    unsigned char src_data[BYTES], want[BYTES], got[BYTES];
};

static void open_pair(struct dx9_env *env, struct pair *p, uint32_t seed)
{
    cl_int err;

    p->src = dx9_surface(env->d3d, W, H, D3DFMT_A8R8G8B8, DX9_PLAIN);
    p->dst = dx9_surface(env->d3d, W, H, D3DFMT_A8R8G8B8, DX9_PLAIN);
    dx9_fill(p->src_data, BYTES, DX9_UNORM, 1, seed);
    dx9_fill(p->got, BYTES, DX9_UNORM, 1, seed + 1);
    REQUIRE(dx9_write(p->src, p->src_data, false) && dx9_write(p->dst, p->got, false), "write");
    dx9_expected(p->src_data, p->want, BYTES, DX9_UNORM, 1);
    p->mems[0] = dx9_create(env, false, p->src, 0, CL_MEM_READ_ONLY, &err);
    REQUIRE(err == CL_SUCCESS, "src object: %d", err);
    p->mems[1] = dx9_create(env, false, p->dst, 0, CL_MEM_WRITE_ONLY, &err);
    REQUIRE(err == CL_SUCCESS, "dst object: %d", err);
    p->kernel = dx9_kernel(env, "invert");
    CHECK_ERR(clSetKernelArg(p->kernel, 0, sizeof(cl_mem), &p->mems[0]), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(p->kernel, 1, sizeof(cl_mem), &p->mems[1]), CL_SUCCESS);
}

static void close_pair(struct pair *p)
{
    clReleaseKernel(p->kernel);
    clReleaseMemObject(p->mems[0]);
    clReleaseMemObject(p->mems[1]);
    IDirect3DSurface9_Release(p->src);
    IDirect3DSurface9_Release(p->dst);
}

struct setter {
    cl_event event;
    DWORD delay_ms;
    HANDLE cancel;
    volatile LONG set;
};

static DWORD WINAPI set_later(void *arg)
{
    struct setter *setter = arg;

    if (WaitForSingleObject(setter->cancel, setter->delay_ms) == WAIT_OBJECT_0)
        return 0;
    InterlockedExchange(&setter->set, 1);
    clSetUserEventStatus(setter->event, CL_COMPLETE);
    return 0;
}

static cl_int status_of(cl_event event)
{
    cl_int status = -1;

    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    return status;
}

static void gated_release(enum dx9_kind kind, bool multithreaded)
{
    struct dx9_env env;
    struct pair *p = calloc(1, sizeof(*p));
    /* Without D3DCREATE_MULTITHREADED the release waits: the event comes from another thread,
     * after a while. With it the same thread sets it after the call (a rescue after 60 s
     * turns a wait into a failure rather than a hang). */
    struct setter setter = {.delay_ms = multithreaded ? 60000 : 300};
    size_t global[2] = {W, H};
    cl_event released = NULL;
    HANDLE thread;
    cl_int err;
    char what[96];

    snprintf(what, sizeof(what), "%s %s D3DCREATE_MULTITHREADED", dx9_kind_name(kind),
             multithreaded ? "with" : "without");
    REQUIRE(p != NULL, "out of memory");
    dx9_open_device(&env, kind, dx9_device_threads(kind, multithreaded), dx9_khr_property(kind),
                    DX9_NO_USER_SYNC);
    open_pair(&env, p, multithreaded ? 5 : 6);
    setter.event = clCreateUserEvent(env.context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    setter.cancel = CreateEventW(NULL, TRUE, FALSE, NULL);
    CHECK_ERR(dx9_acquire(&env, false, 2, p->mems, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(env.queue, p->kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    thread = CreateThread(NULL, 0, set_later, &setter, 0, NULL);
    REQUIRE(thread != NULL, "CreateThread: %lu", GetLastError());
    CHECK_ERR(dx9.release(env.queue, 2, p->mems, 1, &setter.event, &released), CL_SUCCESS);
    if (multithreaded) {
        CHECK(!setter.set, "%s: the release waited for the user event", what);
        CHECK(status_of(released) > CL_COMPLETE, "%s: the release completed before its wait list",
              what);
        SetEvent(setter.cancel);
        WaitForSingleObject(thread, INFINITE);
        CHECK_ERR(clSetUserEventStatus(setter.event, CL_COMPLETE),
                  setter.set ? CL_INVALID_OPERATION : CL_SUCCESS);
    } else {
        CHECK(setter.set, "%s: the release returned before its wait list was done", what);
    }
    CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
    CHECK(status_of(released) == CL_COMPLETE, "%s: release event status", what);
    CHECK(dx9_read(p->dst, p->got, false) && dx9_same(p->got, p->want, BYTES, false, what),
          "%s: Direct3D has the kernel's result", what);
    WaitForSingleObject(thread, INFINITE);
    CloseHandle(thread);
    CloseHandle(setter.cancel);
    clReleaseEvent(released);
    clReleaseEvent(setter.event);
    close_pair(p);
    dx9_close(&env);
    free(p);
}

int main(void)
{
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        gated_release((enum dx9_kind)kind, true);
        gated_release((enum dx9_kind)kind, false);
    }
    return test_finish("dx9_threads");
}
