/* The DX9 row: a 1920x1080 NV12 offscreen surface through cl_khr_dx9_media_sharing (plane 0:
 * Y, CL_R; plane 1: UV, CL_RG, emulated on PoCL), transfer-only, interleaved with what a program
 * writes by hand: LockRect, clEnqueueWrite* per plane (Y into an image, UV into a buffer since
 * the driver has no CL_RG), a copy, clEnqueueRead* into the locked destination, UnlockRect. */
#include "benchlib.h"
#include "dx9util.h"
#include "nv12_own.h"

#include <stdlib.h>

enum { W = 1920, H = 1080, NV12_PLANES = 2 };
enum { SHARING, MANUAL };

struct nv12 {
    struct dx9_env env;
    unsigned char *content;
    IDirect3DSurface9 *src, *dst[2];
    cl_mem shared[2][NV12_PLANES]; /* [src, dst][plane] */
    struct nv12_own own;           /* the program's own [in, out] copies */
};

static void plane_region(unsigned plane, size_t region[3])
{
    UINT w, h;
    cl_image_format format;
    unsigned element;

    dx9_plane_info(DX9_FMT_NV12, W, H, plane, &w, &h, &format, &element);
    region[0] = w;
    region[1] = h;
    region[2] = 1;
}

static void sharing_frame(void *ctx, struct bench_clock *clock)
{
    struct nv12 *n = ctx;
    const cl_mem *all = &n->shared[0][0];
    const size_t origin[3] = {0, 0, 0};
    size_t region[3];

    BENCH_CL(dx9_acquire(&n->env, false, 2 * NV12_PLANES, all, NULL));
    bench_finish(n->env.queue);
    bench_mark(clock);
    for (unsigned p = 0; p < NV12_PLANES; p++) {
        plane_region(p, region);
        BENCH_CL(clEnqueueCopyImage(n->env.queue, n->shared[0][p], n->shared[1][p], origin, origin,
                                    region, 0, NULL, NULL));
    }
    bench_finish(n->env.queue);
    bench_mark(clock);
    BENCH_CL(dx9_release(&n->env, false, 2 * NV12_PLANES, all, NULL));
    bench_finish(n->env.queue);
    bench_mark(clock);
}

/* Between the program's own planes and a locked NV12 surface (Y rows, then UV rows). */
static void transfer(struct nv12 *n, int which, const D3DLOCKED_RECT *lock, bool write)
{
    nv12_own_transfer(&n->own, n->env.queue, which, lock->pBits, (size_t)lock->Pitch, write);
}

static void manual_frame(void *ctx, struct bench_clock *clock)
{
    struct nv12 *n = ctx;
    D3DLOCKED_RECT lock;

    BENCH_HR(IDirect3DSurface9_LockRect(n->src, &lock, NULL, D3DLOCK_READONLY));
    transfer(n, 0, &lock, true);
    IDirect3DSurface9_UnlockRect(n->src);
    bench_mark(clock);
    nv12_own_copy(&n->own, n->env.queue);
    bench_mark(clock);
    BENCH_HR(IDirect3DSurface9_LockRect(n->dst[MANUAL], &lock, NULL, 0));
    transfer(n, 1, &lock, false);
    IDirect3DSurface9_UnlockRect(n->dst[MANUAL]);
    bench_mark(clock);
}

static void nv12_open(struct nv12 *n)
{
    size_t bytes = dx9_content_bytes(DX9_FMT_NV12, W, H);
    IDirect3DSurface9 *surfaces[2];
    cl_int err;

    dx9_open(&n->env, DX9_D3D9EX, false, DX9_NO_USER_SYNC);
    n->content = malloc(bytes);
    REQUIRE(n->content != NULL, "out of memory");
    dx9_fill(n->content, bytes, DX9_UNORM, 1, 0x9e12);
    n->src = dx9_surface(n->env.d3d, W, H, DX9_FMT_NV12, DX9_PLAIN);
    REQUIRE(dx9_write(n->src, n->content, false), "NV12 source contents");
    for (int v = 0; v < 2; v++)
        n->dst[v] = dx9_surface(n->env.d3d, W, H, DX9_FMT_NV12, DX9_PLAIN);
    surfaces[0] = n->src;
    surfaces[1] = n->dst[SHARING];
    for (int s = 0; s < 2; s++)
        for (unsigned p = 0; p < NV12_PLANES; p++) {
            n->shared[s][p] = dx9_create(&n->env, false, surfaces[s], p,
                                         s ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY, &err);
            REQUIRE(err == CL_SUCCESS, "NV12 plane %u: %d", p, err);
        }
    nv12_own_open(&n->own, n->env.context, W, H);
}

static void nv12_close(struct nv12 *n)
{
    nv12_own_close(&n->own);
    for (int i = 0; i < 2; i++)
        for (unsigned p = 0; p < NV12_PLANES; p++)
            clReleaseMemObject(n->shared[i][p]);
    IDirect3DSurface9_Release(n->src);
    for (int v = 0; v < 2; v++)
        IDirect3DSurface9_Release(n->dst[v]);
    free(n->content);
    dx9_close(&n->env);
}

void bench_dx9_nv12(void)
{
    static const char *const figure = "P1 DX9 NV12 surface 1080p transfer-only";
    struct nv12 n;
    struct bench_variant v[2] = {
        {"sharing", sharing_frame, &n, {"acquire", "copy", "release"}, NULL},
        {"hand-written", manual_frame, &n, {"lock+write", "copy", "lock+read"}, NULL}};
    size_t bytes = dx9_content_bytes(DX9_FMT_NV12, W, H);
    unsigned char *got;

    nv12_open(&n);
    bench_compare(figure, v, bench_frames, 0.80);
    got = malloc(bytes);
    REQUIRE(got != NULL, "out of memory");
    for (int i = 0; i < 2; i++) {
        REQUIRE(dx9_read(n.dst[i], got, false), "NV12 read back");
        bench_check_bytes(got, n.content, bytes, i ? "NV12 hand-written" : "NV12 sharing");
    }
    free(got);
    nv12_close(&n);
}
