/* cl_khr_dx9_media_sharing round trips of the FourCC formats on D3D9 and D3D9Ex devices:
 * NV12 (plane 0 = Y, plane 1 = interleaved UV) and YV12 (plane 0 = Y, plane 1 = V, plane 2 =
 * U, in memory order), bit-exact through kernels, through clEnqueueReadImage and
 * clEnqueueWriteImage against the raw surface memory, and with the planes of one surface
 * acquired and released together or one by one. */
#include "dx9util.h"

#include <stdlib.h>

/* Raw D3D9 layouts written and checked here without dx9util's plane helpers: NV12 is W x H
 * luma then W x H/2 bytes of UV pairs at the same pitch; YV12 is luma, then V and then U,
 * each W/2 x H/2 at half the pitch. */
static unsigned char luma_value(UINT x, UINT y, unsigned salt)
{
    return (unsigned char)(x * 7 + y * 13 + salt);
}

static unsigned char chroma_value(unsigned plane, UINT x, UINT y, unsigned salt)
{
    return (unsigned char)(0x40 * plane + x * 3 + y * 5 + salt);
}

/* Fills (write) or checks (!write) a locked surface against the patterns; returns the number
 * of wrong bytes. plane_mask selects the planes checked. */
static unsigned raw_pattern(D3DFORMAT format, UINT w, UINT h, D3DLOCKED_RECT *locked, bool write,
                            unsigned salt, unsigned plane_mask, const char *what)
{
    unsigned char *bits = locked->pBits;
    size_t pitch = (size_t)locked->Pitch;
    unsigned bad = 0;

#define VISIT(plane, address, value)                                                               \
    do {                                                                                           \
        unsigned char *at_ = (address), v_ = (value);                                              \
        if (write)                                                                                 \
            *at_ = v_;                                                                             \
        else if ((plane_mask >> (plane)) & 1 && *at_ != v_ && bad++ < 3)                           \
            CHECK(0, "%s: plane %u byte at offset %zu is 0x%02x, want 0x%02x", what, plane,        \
                  (size_t)(at_ - bits), *at_, v_);                                                 \
    } while (0)

    for (UINT y = 0; y < h; y++)
        for (UINT x = 0; x < w; x++)
            VISIT(0, bits + y * pitch + x, luma_value(x, y, salt));
    if (format == DX9_FMT_NV12) {
        for (UINT y = 0; y < h / 2; y++)
            for (UINT x = 0; x < w / 2; x++) {
                VISIT(1, bits + pitch * h + y * pitch + 2 * x, chroma_value(1, x, y, salt));
                VISIT(1, bits + pitch * h + y * pitch + 2 * x + 1, chroma_value(2, x, y, salt));
            }
    } else {
        unsigned char *v_plane = bits + pitch * h, *u_plane = v_plane + (pitch / 2) * (h / 2);
        for (UINT y = 0; y < h / 2; y++)
            for (UINT x = 0; x < w / 2; x++) {
                VISIT(1, v_plane + y * (pitch / 2) + x, chroma_value(1, x, y, salt));
                VISIT(2, u_plane + y * (pitch / 2) + x, chroma_value(2, x, y, salt));
            }
    }
#undef VISIT
    return bad;
}

static void lock_pattern(IDirect3DSurface9 *surface, D3DFORMAT format, UINT w, UINT h, bool write,
                         unsigned salt, unsigned plane_mask, const char *what)
{
    D3DLOCKED_RECT locked;
    HRESULT hr = IDirect3DSurface9_LockRect(surface, &locked, NULL, write ? 0 : D3DLOCK_READONLY);

    REQUIRE(SUCCEEDED(hr), "%s: LockRect 0x%08lx", what, (unsigned long)hr);
    unsigned bad = raw_pattern(format, w, h, &locked, write, salt, plane_mask, what);
    CHECK(bad == 0, "%s: %u bytes differ from the pattern", what, bad);
    IDirect3DSurface9_UnlockRect(surface);
}

/* What plane `plane` holds as a CL image (tightly packed) when the pattern has `salt`. */
static void plane_pattern(D3DFORMAT format, UINT w, UINT h, unsigned plane, unsigned salt,
                          unsigned char *out)
{
    for (UINT y = 0; y < (plane ? h / 2 : h); y++)
        for (UINT x = 0; x < (plane ? w / 2 : w); x++) {
            if (plane == 0)
                *out++ = luma_value(x, y, salt);
            else if (format == DX9_FMT_NV12) {
                *out++ = chroma_value(1, x, y, salt); /* U */
                *out++ = chroma_value(2, x, y, salt); /* V */
            } else
                *out++ = chroma_value(plane, x, y, salt); /* YV12: 1 = V, 2 = U */
        }
}

/* D3D -> CL: each plane read with clEnqueueReadImage after an acquire equals the bytes at
 * the plane's place in the surface. CL -> D3D: clEnqueueWriteImage of each plane, a release,
 * and the raw surface memory holds them at the right places. */
static void direct_read_write(struct dx9_env *env, D3DFORMAT format, UINT w, UINT h)
{
    const unsigned planes = dx9_plane_count(format);
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, w, h, format, DX9_PLAIN);
    unsigned char *want = malloc((size_t)w * h), *got = malloc((size_t)w * h);
    cl_mem mems[3] = {0};
    char what[160];
    cl_int err;

    snprintf(what, sizeof(what), "%s %s %ux%u direct", dx9_kind_name(env->kind),
             dx9_format_name(format), w, h);
    REQUIRE(want && got, "out of memory");
    lock_pattern(surface, format, w, h, true, 11, 7, what);
    for (unsigned p = 0; p < planes; p++) {
        mems[p] = dx9_create(env, false, surface, p, 0, &err);
        REQUIRE(err == CL_SUCCESS && mems[p], "%s: create plane %u: %d", what, p, err);
    }
    CHECK_ERR(dx9.acquire(env->queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < planes; p++) {
        size_t bytes = dx9_plane_bytes(format, w, h, p);
        size_t origin[3] = {0, 0, 0}, region[3] = {p ? w / 2 : w, p ? h / 2 : h, 1};

        memset(got, 0xcd, bytes);
        plane_pattern(format, w, h, p, 11, want);
        CHECK_ERR(clEnqueueReadImage(env->queue, mems[p], CL_TRUE, origin, region, 0, 0, got, 0,
                                     NULL, NULL),
                  CL_SUCCESS);
        char label[200];
        snprintf(label, sizeof(label), "%s: clEnqueueReadImage of plane %u (%s)", what, p,
                 p == 0                   ? "Y"
                 : format == DX9_FMT_NV12 ? "UV"
                 : p == 1                 ? "V"
                                          : "U");
        dx9_same(got, want, bytes, false, label);
        plane_pattern(format, w, h, p, 99, want);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mems[p], CL_TRUE, origin, region, 0, 0, want, 0,
                                      NULL, NULL),
                  CL_SUCCESS);
    }
    CHECK_ERR(dx9.release(env->queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    snprintf(what + strlen(what), sizeof(what) - strlen(what), " after clEnqueueWriteImage");
    lock_pattern(surface, format, w, h, false, 99, 7, what);
    for (unsigned p = 0; p < planes; p++)
        CHECK_ERR(clReleaseMemObject(mems[p]), CL_SUCCESS);
    IDirect3DSurface9_Release(surface);
    free(want);
    free(got);
}

/* The planes of one surface: acquired together and released together (one surface copy) or
 * released one at a time, or acquired one at a time: every plane the CL side wrote reaches
 * the surface, the planes it did not touch keep their contents. */
static void planes_together(struct dx9_env *env, D3DFORMAT format, UINT w, UINT h,
                            bool acquire_apart, bool release_apart)
{
    const unsigned planes = dx9_plane_count(format);
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, w, h, format, DX9_PLAIN);
    unsigned char *data = malloc((size_t)w * h);
    cl_mem mems[3] = {0};
    char what[200];
    cl_int err;

    snprintf(what, sizeof(what), "%s %s %ux%u planes acquired %s, released %s",
             dx9_kind_name(env->kind), dx9_format_name(format), w, h,
             acquire_apart ? "one by one" : "in one call",
             release_apart ? "one by one" : "in one call");
    REQUIRE(data, "out of memory");
    lock_pattern(surface, format, w, h, true, 3, 7, what);
    for (unsigned p = 0; p < planes; p++) {
        mems[p] = dx9_create(env, false, surface, p, 0, &err);
        REQUIRE(err == CL_SUCCESS && mems[p], "%s: create plane %u: %d", what, p, err);
    }
    if (acquire_apart)
        for (unsigned p = 0; p < planes; p++)
            CHECK_ERR(dx9.acquire(env->queue, 1, &mems[p], 0, NULL, NULL), CL_SUCCESS);
    else
        CHECK_ERR(dx9.acquire(env->queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < planes; p++) {
        size_t origin[3] = {0, 0, 0}, region[3] = {p ? w / 2 : w, p ? h / 2 : h, 1};

        plane_pattern(format, w, h, p, 77, data);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mems[p], CL_TRUE, origin, region, 0, 0, data, 0,
                                      NULL, NULL),
                  CL_SUCCESS);
    }
    if (release_apart) {
        for (unsigned p = 0; p < planes; p++)
            CHECK_ERR(dx9.release(env->queue, 1, &mems[p], 0, NULL, NULL), CL_SUCCESS);
    } else {
        CHECK_ERR(dx9.release(env->queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    }
    lock_pattern(surface, format, w, h, false, 77, 7, what);

    /* Only plane 1 acquired and written: plane 0 (and YV12's plane 2) keep their bytes. */
    CHECK_ERR(dx9.acquire(env->queue, 1, &mems[1], 0, NULL, NULL), CL_SUCCESS);
    {
        size_t origin[3] = {0, 0, 0}, region[3] = {w / 2, h / 2, 1};
        plane_pattern(format, w, h, 1, 5, data);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mems[1], CL_TRUE, origin, region, 0, 0, data, 0,
                                      NULL, NULL),
                  CL_SUCCESS);
    }
    CHECK_ERR(dx9.release(env->queue, 1, &mems[1], 0, NULL, NULL), CL_SUCCESS);
    snprintf(what + strlen(what), sizeof(what) - strlen(what), ", then plane 1 alone");
    lock_pattern(surface, format, w, h, false, 5, 2, what);
    lock_pattern(surface, format, w, h, false, 77, 5, what);

    for (unsigned p = 0; p < planes; p++)
        CHECK_ERR(clReleaseMemObject(mems[p]), CL_SUCCESS);
    IDirect3DSurface9_Release(surface);
    free(data);
}

int main(void)
{
    static const D3DFORMAT formats[] = {DX9_FMT_NV12, DX9_FMT_YV12};
    static const UINT sizes[][2] = {{16, 8}, {64, 32}, {250, 6}};

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;

        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        for (size_t f = 0; f < 2; f++) {
            CHECK(SUCCEEDED(dx9_check_format(env.d3d, formats[f], DX9_PLAIN)),
                  "%s: CheckDeviceFormat(%s, offscreen plain) fails: NOTES.md says wined3d "
                  "creates and locks it",
                  dx9_kind_name(kind), dx9_format_name(formats[f]));
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
                dx9_roundtrip(&env, formats[f], DX9_PLAIN, sizes[s][0], sizes[s][1], false,
                              (uint32_t)(kind * 100 + f * 10 + s + 1));
            direct_read_write(&env, formats[f], 32, 16);
            direct_read_write(&env, formats[f], 250, 6);
            for (int a = 0; a < 2; a++)
                for (int r = 0; r < 2; r++)
                    planes_together(&env, formats[f], 32, 8, a, r);
        }
        dx9_close(&env);
    }
    return test_finish("dx9_roundtrip_yuv");
}
