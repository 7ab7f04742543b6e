/* Synchronisation of cl_khr_dx9_media_sharing on D3D9 and D3D9Ex contexts, with
 * CL_CONTEXT_INTEROP_USER_SYNC absent, CL_FALSE and CL_TRUE: Direct3D work issued before the
 * acquire (ColorFill) is what CL sees, Direct3D work issued after the release (StretchRect)
 * sees what CL wrote; the events of acquire and release (command types 0x202B / 0x202C,
 * queue, context, status), wait lists (a user event holds the acquire back) and round trips
 * in every mode. */
#include "dx9util.h"

#include <stdlib.h>

static const char *sync_name(int user_sync)
{
    return user_sync == DX9_NO_USER_SYNC ? "no USER_SYNC"
           : user_sync                   ? "USER_SYNC TRUE"
                                         : "USER_SYNC FALSE";
}

/* With USER_SYNC TRUE the program makes sure Direct3D is done: an event query, flushed. */
static void d3d_finish(IDirect3DDevice9 *device)
{
    IDirect3DQuery9 *query = NULL;
    HRESULT hr = IDirect3DDevice9_CreateQuery(device, D3DQUERYTYPE_EVENT, &query);
    int spins = 0;

    REQUIRE(SUCCEEDED(hr) && query, "event query: 0x%08lx", (unsigned long)hr);
    IDirect3DQuery9_Issue(query, D3DISSUE_END);
    while ((hr = IDirect3DQuery9_GetData(query, NULL, 0, D3DGETDATA_FLUSH)) == S_FALSE &&
           spins++ < 100000)
        Sleep(0);
    CHECK(hr == S_OK, "event query: 0x%08lx", (unsigned long)hr);
    IDirect3DQuery9_Release(query);
}

static void check_event(cl_event event, struct dx9_env *env, cl_command_type want_type,
                        const char *what)
{
    cl_command_type type = 0;
    cl_command_queue queue = NULL;
    cl_context context = NULL;
    cl_int status = -1;

    REQUIRE(event != NULL, "%s: no event", what);
    CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == want_type, "%s: command type 0x%x, want 0x%x", what, type, want_type);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof(queue), &queue, NULL),
              CL_SUCCESS);
    CHECK(queue == env->queue, "%s: event queue %p, want %p", what, (void *)queue,
          (void *)env->queue);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_CONTEXT, sizeof(context), &context, NULL), CL_SUCCESS);
    CHECK(context == env->context, "%s: event context %p", what, (void *)context);
    CHECK_ERR(
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
        CL_SUCCESS);
    CHECK(status == CL_COMPLETE, "%s: status %d after clWaitForEvents", what, status);
    /* The type survives a retain/release pair. */
    CHECK_ERR(clRetainEvent(event), CL_SUCCESS);
    CHECK_ERR(clReleaseEvent(event), CL_SUCCESS);
    type = 0;
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == want_type, "%s: command type 0x%x after retain/release", what, type);
}

/* D3D before acquire, CL, D3D after release, on an A8R8G8B8 surface. */
static void d3d_ordering(struct dx9_env *env, int user_sync)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, D3DFMT_A8R8G8B8, DX9_PLAIN);
    IDirect3DSurface9 *target = dx9_surface(env->d3d, 16, 8, D3DFMT_A8R8G8B8, DX9_RT);
    uint32_t pixels[16 * 8], want[16 * 8];
    size_t origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
    cl_event acquired = NULL, released = NULL;
    cl_int err;
    cl_mem mem = dx9_create(env, false, surface, 0, 0, &err);
    char what[160];
    HRESULT hr;

    snprintf(what, sizeof(what), "%s %s", dx9_kind_name(env->kind), sync_name(user_sync));
    REQUIRE(err == CL_SUCCESS, "%s: create: %d", what, err);
    for (int round = 0; round < 3; round++) {
        D3DCOLOR fill = 0x80000000u | (0x10203u * (round + 1));

        hr = IDirect3DDevice9_ColorFill(env->d3d, surface, NULL, fill);
        CHECK(SUCCEEDED(hr), "%s: ColorFill 0x%08lx", what, (unsigned long)hr);
        if (user_sync == CL_TRUE)
            d3d_finish(env->d3d);
        CHECK_ERR(dx9.acquire(env->queue, 1, &mem, 0, NULL, &acquired), CL_SUCCESS);
        memset(pixels, 0, sizeof(pixels));
        CHECK_ERR(clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, pixels, 1,
                                     &acquired, NULL),
                  CL_SUCCESS);
        for (int i = 0; i < 16 * 8; i++)
            want[i] = fill;
        dx9_same(pixels, want, sizeof(want), false, "the acquire sees the ColorFill before it");
        for (int i = 0; i < 16 * 8; i++)
            want[i] = 0xff000000u | (uint32_t)(i * 0x010305 + round);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_FALSE, origin, region, 0, 0, want, 0,
                                      NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(dx9.release(env->queue, 1, &mem, 0, NULL, &released), CL_SUCCESS);
        if (user_sync == CL_TRUE)
            CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
        /* Direct3D work after the release: a copy on the device, read back. */
        hr = IDirect3DDevice9_StretchRect(env->d3d, surface, NULL, target, NULL, D3DTEXF_NONE);
        CHECK(SUCCEEDED(hr), "%s: StretchRect 0x%08lx", what, (unsigned long)hr);
        if (dx9_read(target, pixels, true))
            dx9_same(pixels, want, sizeof(want), false,
                     "Direct3D after the release sees what CL wrote");
        check_event(acquired, env, CL_COMMAND_ACQUIRE_DX9_MEDIA_SURFACES_KHR, what);
        check_event(released, env, CL_COMMAND_RELEASE_DX9_MEDIA_SURFACES_KHR, what);
        clReleaseEvent(acquired);
        clReleaseEvent(released);
    }
    clReleaseMemObject(mem);
    IDirect3DSurface9_Release(surface);
    IDirect3DSurface9_Release(target);
}

/* Wait lists: a user event holds the acquire back; the release waits for its list. */
static void wait_lists(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    unsigned char content[16 * 12], got[16 * 8];
    size_t origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
    cl_event user, acquired = NULL, written = NULL, released = NULL, empty = NULL, marker;
    cl_int err, status = -1;
    cl_mem mem;

    dx9_fill(content, sizeof(content), DX9_UNORM, 1, 77);
    REQUIRE(dx9_write(surface, content, false), "NV12 content");
    mem = dx9_create(env, false, surface, 0, 0, &err);
    REQUIRE(err == CL_SUCCESS, "create: %d", err);
    user = clCreateUserEvent(env->context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);

    CHECK_ERR(dx9.acquire(env->queue, 1, &mem, 1, &user, &acquired), CL_SUCCESS);
    CHECK_ERR(clFlush(env->queue), CL_SUCCESS);
    Sleep(50);
    CHECK_ERR(
        clGetEventInfo(acquired, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
        CL_SUCCESS);
    CHECK(status > CL_COMPLETE, "%s: the acquire completed (%d) before its wait list",
          dx9_kind_name(env->kind), status);
    CHECK_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &acquired), CL_SUCCESS);
    check_event(acquired, env, CL_COMMAND_ACQUIRE_DX9_MEDIA_SURFACES_KHR, "acquire after a wait");
    CHECK_ERR(
        clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL),
        CL_SUCCESS);
    dx9_same(got, content, sizeof(got), false, "luma after an acquire with a wait list");

    for (size_t i = 0; i < sizeof(got); i++)
        got[i] ^= 0x5a;
    CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_FALSE, origin, region, 0, 0, got, 0, NULL,
                                  &written),
              CL_SUCCESS);
    CHECK_ERR(dx9.release(env->queue, 1, &mem, 1, &written, &released), CL_SUCCESS);
    check_event(released, env, CL_COMMAND_RELEASE_DX9_MEDIA_SURFACES_KHR, "release after a wait");
    /* A later command may wait for the release. */
    CHECK_ERR(clEnqueueMarkerWithWaitList(env->queue, 1, &released, &marker), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &marker), CL_SUCCESS);
    clReleaseEvent(marker);
    {
        unsigned char after[16 * 12];
        if (dx9_read(surface, after, false)) {
            dx9_same(after, got, sizeof(got), false, "luma after the release");
            dx9_same(after + sizeof(got), content + sizeof(got), sizeof(after) - sizeof(got), false,
                     "chroma untouched");
        }
    }
    /* No objects: still an event of the right type. */
    CHECK_ERR(dx9.acquire(env->queue, 0, NULL, 0, NULL, &empty), CL_SUCCESS);
    check_event(empty, env, CL_COMMAND_ACQUIRE_DX9_MEDIA_SURFACES_KHR, "empty acquire");
    clReleaseEvent(empty);
    empty = NULL;
    CHECK_ERR(dx9.release(env->queue, 0, NULL, 1, &released, &empty), CL_SUCCESS);
    check_event(empty, env, CL_COMMAND_RELEASE_DX9_MEDIA_SURFACES_KHR, "empty release");
    clReleaseEvent(empty);

    clReleaseEvent(user);
    clReleaseEvent(acquired);
    clReleaseEvent(written);
    clReleaseEvent(released);
    clReleaseMemObject(mem);
    IDirect3DSurface9_Release(surface);
}

int main(void)
{
    static const int modes[] = {DX9_NO_USER_SYNC, CL_FALSE, CL_TRUE};

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++)
        for (size_t m = 0; m < 3; m++) {
            struct dx9_env env;

            dx9_open(&env, kind, false, modes[m]);
            d3d_ordering(&env, modes[m]);
            wait_lists(&env);
            dx9_roundtrip(&env, DX9_FMT_NV12, DX9_PLAIN, 32, 16, false, 500 + kind * 10 + m);
            dx9_roundtrip(&env, D3DFMT_A8R8G8B8, DX9_RT, 32, 16, false, 600 + kind * 10 + m);
            dx9_close(&env);
        }
    return test_finish("dx9_sync");
}
