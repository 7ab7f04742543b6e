/* clCreateFromDX9MediaSurfaceKHR checks shared_handle (issues 18, 24 and 39): the spec's
 * CL_INVALID_DX9_MEDIA_SURFACE_KHR covers "shared_handle is neither NULL nor a valid handle",
 * and a valid one is a shared resource's handle, which Direct3D opens (docs/design.md, "The DX9
 * shared handle"). On D3D9 and D3D9Ex adapters, for an NV12 plane, an A8R8G8B8 offscreen
 * surface and an A8R8G8B8 render target: made-up values ((HANDLE)0x12345678, 0x1, 0x10000, a
 * freed heap address, a PAGE_NOACCESS page, a code address), a handle that was closed, and
 * handles of the process that are no resource's (an open event, the process pseudo-handle,
 * INVALID_HANDLE_VALUE) are refused with that error (no object, errcode_ret set); NULL is
 * accepted. Nothing crashes, and an object that creation did return is released (issue 39: the
 * release of one made with a bad handle called through a null pointer). This stack's Direct3D
 * hands out no shared handles (wined3d: NULL; DXVK on lavapipe: INVALID_HANDLE_VALUE), so no
 * non-NULL value is valid here. */
#include "dx9util.h"
#include "threads.h"

#include <stdlib.h>

struct bad_handle {
    HANDLE handle;
    const char *name;
};

static void check_handles(struct dx9_env *env, IDirect3DSurface9 *surface, const char *what,
                          const struct bad_handle *invalid, size_t count)
{
    cl_int err;

    for (size_t i = 0; i < count; i++) {
        cl_dx9_surface_info_khr info = {surface, invalid[i].handle};
        err = CL_SUCCESS;
        cl_mem mem = dx9.create(env->context, 0, dx9_adapter_type(env->kind), &info, 0, &err);
        CHECK(mem == NULL && err == CL_INVALID_DX9_MEDIA_SURFACE_KHR,
              "%s %s, shared_handle %s: object %p, error %d (want NULL, "
              "CL_INVALID_DX9_MEDIA_SURFACE_KHR)",
              dx9_kind_name(env->kind), what, invalid[i].name, (void *)mem, err);
        if (mem)
            CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    }
    cl_dx9_surface_info_khr info = {surface, NULL};
    cl_mem mem = dx9.create(env->context, 0, dx9_adapter_type(env->kind), &info, 0, &err);
    CHECK(mem != NULL && err == CL_SUCCESS, "%s %s, shared_handle NULL: error %d",
          dx9_kind_name(env->kind), what, err);
    if (mem)
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
}

int main(void)
{
    HANDLE heap = HeapCreate(0, 0, 0), closed = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE open_event = CreateEventA(NULL, FALSE, FALSE, NULL);
    void *freed = heap ? HeapAlloc(heap, 0, 64) : NULL;
    void *no_access = VirtualAlloc(NULL, 4096, MEM_RESERVE | MEM_COMMIT, PAGE_NOACCESS);

    test_exit_on_crash("dx9_shared_handle");
    REQUIRE(closed != NULL && CloseHandle(closed), "an event handle to close");
    REQUIRE(open_event != NULL, "an event handle");
    REQUIRE(freed != NULL && HeapFree(heap, 0, freed), "a heap block to free");
    REQUIRE(no_access != NULL, "a PAGE_NOACCESS page");
    const struct bad_handle invalid[] = {
        {(HANDLE)(uintptr_t)0x12345678, "(HANDLE)0x12345678"},
        {(HANDLE)(uintptr_t)0x1, "(HANDLE)0x1"},
        {(HANDLE)(uintptr_t)0x10000, "(HANDLE)0x10000"},
        {(HANDLE)freed, "a freed heap address"},
        {(HANDLE)no_access, "a PAGE_NOACCESS page"},
        {(HANDLE)(uintptr_t)&check_handles, "a code address"},
        {closed, "a closed handle"},
        {open_event, "an open event's handle"},
        {GetCurrentProcess(), "the process pseudo-handle"},
        {INVALID_HANDLE_VALUE, "INVALID_HANDLE_VALUE"},
    };
    const size_t count = sizeof(invalid) / sizeof(invalid[0]);

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;
        dx9_open(&env, (enum dx9_kind)kind, false, DX9_NO_USER_SYNC);
        IDirect3DSurface9 *nv12 = dx9_surface(env.d3d, 16, 16, DX9_FMT_NV12, DX9_PLAIN);
        IDirect3DSurface9 *rgb = dx9_surface(env.d3d, 16, 16, D3DFMT_A8R8G8B8, DX9_PLAIN);
        IDirect3DSurface9 *target = dx9_surface(env.d3d, 16, 16, D3DFMT_A8R8G8B8, DX9_RT);
        check_handles(&env, nv12, "NV12 surface", invalid, count);
        check_handles(&env, rgb, "A8R8G8B8 surface", invalid, count);
        check_handles(&env, target, "A8R8G8B8 render target", invalid, count);
        IDirect3DSurface9_Release(nv12);
        IDirect3DSurface9_Release(rgb);
        IDirect3DSurface9_Release(target);
        dx9_close(&env);
    }
    CloseHandle(open_event);
    return test_finish("dx9_shared_handle");
}
