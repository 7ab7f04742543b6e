/* clCreateFromDX9MediaSurfaceKHR checks shared_handle (issues 18 and 24): the spec's
 * CL_INVALID_DX9_MEDIA_SURFACE_KHR covers "shared_handle is neither NULL nor a valid handle".
 * On D3D9 and D3D9Ex adapters, for an NV12 plane and an A8R8G8B8 surface: made-up values
 * ((HANDLE)0x12345678, 0x1, 0x10000, a freed heap address) and a handle that was closed are
 * refused with that error (no object, errcode_ret set, nothing crashes); NULL is accepted. */
#include "dx9util.h"

#include <stdlib.h>

static void check_handles(struct dx9_env *env, IDirect3DSurface9 *surface, const char *what)
{
    HANDLE closed = CreateEventA(NULL, FALSE, FALSE, NULL);
    void *freed = malloc(64);
    const struct {
        HANDLE handle;
        const char *name;
    } invalid[] = {
        {(HANDLE)(uintptr_t)0x12345678, "(HANDLE)0x12345678"},
        {(HANDLE)(uintptr_t)0x1, "(HANDLE)0x1"},
        {(HANDLE)(uintptr_t)0x10000, "(HANDLE)0x10000"},
        {(HANDLE)freed, "a freed heap address"},
        {closed, "a closed handle"},
    };
    cl_int err;

    REQUIRE(closed != NULL && CloseHandle(closed), "an event handle to close");
    REQUIRE(freed != NULL, "a heap block to free");
    free(freed); /* only its address is used */
    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        cl_dx9_surface_info_khr info = {surface, invalid[i].handle};
        err = CL_SUCCESS;
        cl_mem mem = dx9.create(env->context, 0, dx9_adapter_type(env->kind), &info, 0, &err);
        CHECK(mem == NULL && err == CL_INVALID_DX9_MEDIA_SURFACE_KHR,
              "%s %s, shared_handle %s: object %p, error %d (want NULL, "
              "CL_INVALID_DX9_MEDIA_SURFACE_KHR)",
              dx9_kind_name(env->kind), what, invalid[i].name, (void *)mem, err);
        if (mem)
            clReleaseMemObject(mem);
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
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;
        dx9_open(&env, (enum dx9_kind)kind, false, DX9_NO_USER_SYNC);
        IDirect3DSurface9 *nv12 = dx9_surface(env.d3d, 16, 16, DX9_FMT_NV12, DX9_PLAIN);
        IDirect3DSurface9 *rgb = dx9_surface(env.d3d, 16, 16, D3DFMT_A8R8G8B8, DX9_PLAIN);
        check_handles(&env, nv12, "NV12 surface");
        check_handles(&env, rgb, "A8R8G8B8 surface");
        IDirect3DSurface9_Release(nv12);
        IDirect3DSurface9_Release(rgb);
        dx9_close(&env);
    }
    return test_finish("dx9_shared_handle");
}
