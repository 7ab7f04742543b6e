/* The D3D11 NV12 row: a 1920x1080 NV12 texture through cl_intel_d3d11_nv12_media_sharing
 * (subresource 0: Y, CL_R; subresource 1: UV, CL_RG), transfer-only, interleaved with what a
 * program writes by hand: CopyResource into a staging NV12 texture, Map, clEnqueueWrite* per
 * plane (Y into an image, UV into a buffer: a driver may lack CL_RG), a copy, clEnqueueRead*
 * into a mapped staging texture, CopyResource into the destination. Where this Direct3D cannot
 * create NV12 textures, the row says "not available" with the HRESULT. */
#include "benchlib.h"
#include "interop.h"
#include "nv12_own.h"

#include <stdlib.h>

enum { W = 1920, H = 1080, NV12_PLANES = 2 };
enum { SHARING, MANUAL };
static const char *const figure = "P1 D3D11 NV12 texture 1080p transfer-only";

struct nv12 {
    struct interop_env env;
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *src, *dst[2], *staging[2]; /* staging: [in, out] of the hand-written way */
    cl_mem shared[2][NV12_PLANES];              /* [src, dst][plane] */
    struct nv12_own own;                        /* the program's own [in, out] copies */
};

static HRESULT nv12_texture(ID3D11Device *device, bool staging, const void *content,
                            ID3D11Texture2D **texture)
{
    D3D11_TEXTURE2D_DESC desc = {W,
                                 H,
                                 1,
                                 1,
                                 DXGI_FORMAT_NV12,
                                 {1, 0},
                                 staging ? D3D11_USAGE_STAGING : D3D11_USAGE_DEFAULT,
                                 staging ? 0 : D3D11_BIND_SHADER_RESOURCE,
                                 staging ? D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE : 0,
                                 0};
    D3D11_SUBRESOURCE_DATA init = {content, W, 0};

    return ID3D11Device_CreateTexture2D(device, &desc, content ? &init : NULL, texture);
}

static void plane_region(unsigned plane, size_t region[3])
{
    region[0] = plane ? W / 2 : W;
    region[1] = plane ? H / 2 : H;
    region[2] = 1;
}

static void sharing_frame(void *ctx, struct bench_clock *clock)
{
    struct nv12 *n = ctx;
    const cl_mem *all = &n->shared[0][0];
    const size_t origin[3] = {0, 0, 0};
    size_t region[3];

    BENCH_CL(n->env.cl->acquire(n->env.queue, 2 * NV12_PLANES, all, 0, NULL, NULL));
    bench_finish(n->env.queue);
    bench_mark(clock);
    for (unsigned p = 0; p < NV12_PLANES; p++) {
        plane_region(p, region);
        BENCH_CL(clEnqueueCopyImage(n->env.queue, n->shared[0][p], n->shared[1][p], origin, origin,
                                    region, 0, NULL, NULL));
    }
    bench_finish(n->env.queue);
    bench_mark(clock);
    BENCH_CL(n->env.cl->release(n->env.queue, 2 * NV12_PLANES, all, 0, NULL, NULL));
    bench_finish(n->env.queue);
    bench_mark(clock);
}

/* Between the program's own planes and a mapped NV12 staging texture (Y rows, then UV rows at
 * RowPitch x Height). */
static void transfer(struct nv12 *n, int which, const D3D11_MAPPED_SUBRESOURCE *map, bool write)
{
    nv12_own_transfer(&n->own, n->env.queue, which, map->pData, map->RowPitch, write);
}

static void manual_frame(void *ctx, struct bench_clock *clock)
{
    struct nv12 *n = ctx;
    ID3D11Resource *in = (ID3D11Resource *)n->staging[0], *out = (ID3D11Resource *)n->staging[1];
    D3D11_MAPPED_SUBRESOURCE map;

    ID3D11DeviceContext_CopyResource(n->immediate, in, (ID3D11Resource *)n->src);
    BENCH_HR(ID3D11DeviceContext_Map(n->immediate, in, 0, D3D11_MAP_READ, 0, &map));
    transfer(n, 0, &map, true);
    ID3D11DeviceContext_Unmap(n->immediate, in, 0);
    bench_mark(clock);
    nv12_own_copy(&n->own, n->env.queue);
    bench_mark(clock);
    BENCH_HR(ID3D11DeviceContext_Map(n->immediate, out, 0, D3D11_MAP_WRITE, 0, &map));
    transfer(n, 1, &map, false);
    ID3D11DeviceContext_Unmap(n->immediate, out, 0);
    ID3D11DeviceContext_CopyResource(n->immediate, (ID3D11Resource *)n->dst[MANUAL], out);
    bench_mark(clock);
}

/* A frame's last copy, queued on Direct3D (the hand-written CopyResource, the sharing
 * release's write back), finished before the next frame (benchlib.h, settle). */
static void settle_direct3d(void *ctx)
{
    struct nv12 *n = ctx;
    D3D11_QUERY_DESC desc = {D3D11_QUERY_EVENT, 0};
    ID3D11Query *query;

    BENCH_HR(ID3D11Device_CreateQuery((ID3D11Device *)n->env.d3d, &desc, &query));
    ID3D11DeviceContext_End(n->immediate, (ID3D11Asynchronous *)query);
    while (ID3D11DeviceContext_GetData(n->immediate, (ID3D11Asynchronous *)query, NULL, 0, 0) ==
           S_FALSE)
        Sleep(0);
    ID3D11Query_Release(query);
}

static void nv12_open(struct nv12 *n, const unsigned char *content)
{
    ID3D11Device *device = n->env.d3d;
    ID3D11Texture2D *textures[2];
    cl_int err;

    ID3D11Device_GetImmediateContext(device, &n->immediate);
    BENCH_HR(nv12_texture(device, false, content, &n->src));
    for (int v = 0; v < 2; v++) {
        BENCH_HR(nv12_texture(device, false, NULL, &n->dst[v]));
        BENCH_HR(nv12_texture(device, true, NULL, &n->staging[v]));
    }
    textures[0] = n->src;
    textures[1] = n->dst[SHARING];
    for (int s = 0; s < 2; s++)
        for (unsigned p = 0; p < NV12_PLANES; p++) {
            n->shared[s][p] = n->env.cl->create_texture2d(
                n->env.context, s ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY, textures[s], p, &err);
            REQUIRE(err == CL_SUCCESS, "NV12 subresource %u: %d", p, err);
        }
    nv12_own_open(&n->own, n->env.context, W, H);
}

static void nv12_close(struct nv12 *n)
{
    nv12_own_close(&n->own);
    for (int i = 0; i < 2; i++) {
        for (unsigned p = 0; p < NV12_PLANES; p++)
            clReleaseMemObject(n->shared[i][p]);
        ID3D11Texture2D_Release(n->dst[i]);
        ID3D11Texture2D_Release(n->staging[i]);
    }
    ID3D11Texture2D_Release(n->src);
    ID3D11DeviceContext_Release(n->immediate);
}

/* The destination's bytes (Y then UV, tightly packed) through a staging copy. */
static void check_destination(struct nv12 *n, int which, const unsigned char *content)
{
    ID3D11Resource *out = (ID3D11Resource *)n->staging[1];
    D3D11_MAPPED_SUBRESOURCE map;
    unsigned char *got = malloc((size_t)W * H * 3 / 2);

    REQUIRE(got != NULL, "out of memory");
    ID3D11DeviceContext_CopyResource(n->immediate, out, (ID3D11Resource *)n->dst[which]);
    BENCH_HR(ID3D11DeviceContext_Map(n->immediate, out, 0, D3D11_MAP_READ, 0, &map));
    for (UINT row = 0; row < H * 3 / 2; row++)
        memcpy(got + (size_t)row * W, (unsigned char *)map.pData + (size_t)row * map.RowPitch, W);
    ID3D11DeviceContext_Unmap(n->immediate, out, 0);
    bench_check_bytes(got, content, (size_t)W * H * 3 / 2,
                      which == MANUAL ? "D3D11 NV12 hand-written" : "D3D11 NV12 sharing");
    free(got);
}

void bench_d3d11_nv12(void)
{
    struct nv12 n = {0};
    struct bench_variant v[2] = {
        {"sharing", sharing_frame, &n, {"acquire", "copy", "release"}, settle_direct3d},
        {"hand-written", manual_frame, &n, {"map+write", "copy", "map+read"}, settle_direct3d}};
    size_t bytes = (size_t)W * H * 3 / 2;
    unsigned char *content = malloc(bytes);
    ID3D11Texture2D *probe;
    HRESULT hr;

    REQUIRE(content != NULL, "out of memory");
    for (size_t i = 0; i < bytes; i++)
        content[i] = (unsigned char)(i * 2654435761u >> 24);
    interop_load(&api_d3d11_khr, test_platform());
    interop_open(&n.env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    hr = nv12_texture(n.env.d3d, false, NULL, &probe);
    if (FAILED(hr)) {
        bench_note("%s: not available: CreateTexture2D(NV12) 0x%08lx", figure, (unsigned long)hr);
    } else {
        ID3D11Texture2D_Release(probe);
        nv12_open(&n, content);
        bench_compare(figure, v, bench_frames, 0.80);
        for (int i = 0; i < 2; i++)
            check_destination(&n, i, content);
        nv12_close(&n);
    }
    interop_close(&n.env);
    free(content);
}
