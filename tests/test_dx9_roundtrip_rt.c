/* cl_khr_dx9_media_sharing round trips of the 16 D3D9 formats of the table as render
 * targets (CreateRenderTarget, Lockable FALSE and TRUE) and as level 0 of D3DPOOL_DEFAULT
 * textures (D3DUSAGE_RENDERTARGET, D3DUSAGE_DYNAMIC) on D3D9 and D3D9Ex devices. Surfaces
 * that do not lock are written with UpdateSurface and read with GetRenderTargetData through
 * a D3DPOOL_SYSTEMMEM surface; the others with LockRect. Combinations that wined3d does not
 * offer (CheckDeviceFormat) are listed, and their refusal is checked: every format of the
 * table is tested as an offscreen plain surface in test_dx9_roundtrip_rgb. */
#include "dx9util.h"

/* A texture level of a size other than the texture's: level 1 of a 2-level render-target
 * texture. */
static void mip_level(struct dx9_env *env)
{
    IDirect3DTexture9 *texture = NULL;
    IDirect3DSurface9 *level;
    unsigned char src[8 * 4 * 4], want[8 * 4 * 4], got[8 * 4 * 4];
    size_t origin[3] = {0, 0, 0}, region[3] = {8, 4, 1};
    HRESULT hr = IDirect3DDevice9_CreateTexture(env->d3d, 16, 8, 2, D3DUSAGE_RENDERTARGET,
                                                D3DFMT_A8R8G8B8, D3DPOOL_DEFAULT, &texture, NULL);
    cl_int err;
    cl_mem mem;

    REQUIRE(SUCCEEDED(hr), "2-level render-target texture: 0x%08lx", (unsigned long)hr);
    hr = IDirect3DTexture9_GetSurfaceLevel(texture, 1, &level);
    REQUIRE(SUCCEEDED(hr), "GetSurfaceLevel(1): 0x%08lx", (unsigned long)hr);
    dx9_fill(src, sizeof(src), DX9_UNORM, 1, 99);
    REQUIRE(dx9_write(level, src, true), "level 1 data");
    mem = dx9_create(env, false, level, 0, 0, &err);
    CHECK(err == CL_SUCCESS && mem, "%s level 1: create: %d", dx9_kind_name(env->kind), err);
    if (mem) {
        dx9_check_plane_image(mem, D3DFMT_A8R8G8B8, 8, 4, 0, "texture level 1");
        CHECK_ERR(dx9.acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL),
            CL_SUCCESS);
        dx9_same(got, src, sizeof(src), false, "texture level 1 read by CL");
        dx9_expected(src, want, sizeof(want), DX9_UNORM, 1);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, want, 0, NULL,
                                      NULL),
                  CL_SUCCESS);
        CHECK_ERR(dx9.release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        if (dx9_read(level, got, true))
            dx9_same(got, want, sizeof(want), false, "texture level 1 written by CL");
        clReleaseMemObject(mem);
    }
    IDirect3DSurface9_Release(level);
    CHECK(IDirect3DTexture9_Release(texture) == 0, "texture still referenced");
}

int main(void)
{
    static const enum dx9_surface_kind kinds[] = {DX9_RT, DX9_RT_LOCKABLE, DX9_TEX_RT,
                                                  DX9_TEX_DYNAMIC};
    unsigned tested = 0, refused = 0;

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;

        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT; f++) {
            const struct dx9_format *format = &dx9_formats[f];

            for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
                HRESULT hr = dx9_check_format(env.d3d, format->format, kinds[k]);
                IDirect3DSurface9 *surface;
                HRESULT created;

                if (SUCCEEDED(hr)) {
                    dx9_roundtrip(&env, format->format, kinds[k], 16, 8, false,
                                  (uint32_t)(kind * 1000 + f * 10 + k + 1));
                    tested++;
                    continue;
                }
                created = dx9_try_surface(env.d3d, 16, 8, format->format, kinds[k], &surface);
                printf("not testable: %s %s as a %s: CheckDeviceFormat = 0x%08lx, creation = "
                       "0x%08lx\n",
                       dx9_kind_name(kind), format->name, dx9_surface_kind_name(kinds[k]),
                       (unsigned long)hr, (unsigned long)created);
                CHECK(FAILED(created),
                      "%s %s: a %s is created although CheckDeviceFormat "
                      "refuses it",
                      dx9_kind_name(kind), format->name, dx9_surface_kind_name(kinds[k]));
                if (surface)
                    IDirect3DSurface9_Release(surface);
                refused++;
            }
        }
        mip_level(&env);
        dx9_close(&env);
    }
    printf("render-target and texture round trips: %u run, %u refused by wined3d\n", tested,
           refused);
    CHECK(tested >= 2 * 4 * 13, "only %u round trips ran", tested);
    return test_finish("dx9_roundtrip_rt");
}
