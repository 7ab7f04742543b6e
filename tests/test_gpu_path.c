/* The GPU path (docs/design.md, "The GPU path"): on DXVK, through dxcl's Unix side with its
 * Vulkan layer, a D3D11 2D texture of a native format is shared through a twin on the GPU that
 * Direct3D copies into and out of on the GPU. CI has no GPU that imports memory, so CTest runs
 * this only as test_gpu_path.gpu: DXVK on lavapipe, PoCL, the layer, and the test-only import
 * (DXCL_GPU_IMPORT=host: the twin host-visible, its mapping the driver object's storage). On the
 * H100 the rig runs it with the real import. It checks which objects take the path, the data
 * through every hand-over, subresources other than the first, pooled twins for objects made
 * every frame, direct twins (a large texture's own memory imported) and DXCL_PATH=engine
 * turning the path off. Without DXVK (wined3d, as
 * test_gpu_path.unix and the rig's hybrid mode) it says so in one line and checks that textures
 * take the copy engine, exact. */
#include "interop.h"
#include "threads.h"
#include "core/test_hooks.h"

#include <initguid.h>
#include "gpu/dxvk_interop.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>
#include <string.h>

enum { W = 61, H = 17 }; /* odd sizes: rows are padded */

static dxclGetTransferMode_fn transfer_mode;
static dxclGetPooledStagingCount_fn pooled_count;
/* The mode of an object on the GPU path: with the real import (the H100) the hand-overs are
 * ordered by the twin's semaphores, unless DXCL_GPU_SYNC=cpu; the test-only import has none. */
static cl_uint gpu_mode = DXCL_TRANSFER_GPU;

static bool env_is(const char *name, const char *value)
{
    char got[16];
    DWORD len = GetEnvironmentVariableA(name, got, sizeof(got));

    return len && len < sizeof(got) && !strcmp(got, value);
}

static cl_uint mode_of(cl_mem mem)
{
    cl_uint mode = 0;

    CHECK_ERR(transfer_mode(mem, &mode), CL_SUCCESS);
    return mode;
}

static void check_mode(cl_mem mem, cl_uint want, const char *what)
{
    cl_uint mode = mode_of(mem);

    CHECK(mode == want,
          "%s: transfer mode %u, want %u (3: the GPU path, 4: with semaphores, 5: direct)", what,
          mode, want);
}

/* Arms fault point `point` for its next pass; disarm_point checks it fired once. */
static cl_uint arm_point(const char *point)
{
    dxclFaultArm_fn arm =
        (dxclFaultArm_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclFaultArm");
    cl_uint before = 0;

    REQUIRE(arm && arm(point, 1, &before) == CL_SUCCESS, "dxclFaultArm(%s, 1) (a test build)",
            point);
    return before;
}

static void disarm_point(const char *point, cl_uint before)
{
    dxclFaultArm_fn arm =
        (dxclFaultArm_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclFaultArm");
    cl_uint after = 0;

    CHECK_ERR(arm(point, 0, &after), CL_SUCCESS);
    CHECK(after == before + 1, "the %s fault fired %u times, want 1", point, after - before);
}

/* Which objects take the path: native 2D and 3D textures at any subresource; not buffers,
 * nor anything while DXCL_PATH=engine. */
static void check_modes(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc mips = {W, H, 1, 3, 2, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    const struct test_texture_desc volume = {W, H, 4, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    struct test_texture t2, t3;
    void *buffer = api->create_buffer(env->d3d, 1000, TEST_USAGE_DEFAULT, NULL);
    cl_int err;

    REQUIRE(buffer && test_texture_create(api, env->d3d, &t2, &mips, false, 1) &&
                test_texture_create(api, env->d3d, &t3, &volume, true, 2),
            "resources");
    cl_mem first = env->cl->create_texture2d(env->context, 0, t2.resource, 0, &err);
    cl_mem slice_mip = env->cl->create_texture2d(env->context, 0, t2.resource, 4, &err);
    cl_mem mb = env->cl->create_buffer(env->context, 0, buffer, &err);
    cl_mem m3 = env->cl->create_texture3d(env->context, 0, t3.resource, 0, &err);
    REQUIRE(first && slice_mip && mb && m3, "objects");
    check_mode(first, gpu_mode, "2D RGBA8, subresource 0");
    check_mode(slice_mip, gpu_mode, "2D RGBA8, slice 1 mip 1");
    CHECK(mode_of(mb) < DXCL_TRANSFER_GPU, "a buffer copies (mode %u)", mode_of(mb));
    check_mode(m3, gpu_mode, "3D RGBA8, mip 0 (the layer copies)");
    SetEnvironmentVariableA("DXCL_PATH", "engine");
    cl_mem forced = env->cl->create_texture2d(env->context, 0, t2.resource, 1, &err);
    SetEnvironmentVariableA("DXCL_PATH", NULL);
    REQUIRE(forced, "object with DXCL_PATH=engine: %d", err);
    CHECK(mode_of(forced) < DXCL_TRANSFER_GPU, "DXCL_PATH=engine: mode %u", mode_of(forced));
    cl_mem m[] = {first, slice_mip, mb, m3, forced};
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        clReleaseMemObject(m[i]);
    test_com_release(buffer);
    test_texture_free(api, &t2);
    test_texture_free(api, &t3);
}

static void read_back(struct interop_env *env, cl_mem mem, size_t w, size_t h, void *out)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};

    CHECK_ERR(
        clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL),
        CL_SUCCESS);
}

/* Every hand-over keeps the data exact: Direct3D's writes between acquires, a release without
 * writes, a partial fill, a whole write, and an object released while acquired. */
static void hand_overs(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc rgba = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    struct test_texture tex;
    cl_int err;

    REQUIRE(test_texture_create(api, env->d3d, &tex, &rgba, false, 9), "texture");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    check_mode(mem, gpu_mode, "RGBA8 UINT");
    interop_check_hand_overs(env, mem, &tex);
    test_texture_free(api, &tex);
}

/* A subresource other than the first: slice 1, mip 1 of a 2-slice, 3-mip array; OpenCL reads
 * what Direct3D put there and its writes land there only. */
static void subresource(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc mips = {W, H, 1, 3, 2, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    const size_t w = W / 2, h = H / 2, whole[3] = {w, h, 1};
    unsigned char *got = malloc(w * h * 4);
    struct test_texture tex;
    cl_int err;

    REQUIRE(got && test_texture_create(api, env->d3d, &tex, &mips, false, 21), "texture");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 4, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    check_mode(mem, gpu_mode, "slice 1 mip 1");
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    read_back(env, mem, w, h, got);
    test_same_bytes(got, tex.data[4], w * h * 4, "slice 1 mip 1 read");
    test_fill_bytes(tex.data[4], w * h * 4, 77);
    CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, (size_t[3]){0, 0, 0}, whole, 0, 0,
                                  tex.data[4], 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    test_texture_intact(api, &tex, "slice 1 mip 1 written, the others as they were");
    clReleaseMemObject(mem);
    test_texture_free(api, &tex);
    free(got);
}

/* A 3D texture's mip level (DXVK wraps no 3D image: the layer copies between the texture and
 * the twin): OpenCL reads what Direct3D put there, and its writes land in that level only,
 * through hand-overs without a write and with one, twice. */
static void volume(struct interop_env *env, UINT mip)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc desc = {W, H, 5, 2, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    const size_t w = mip ? W / 2 : W, h = mip ? H / 2 : H, d = mip ? 2 : 5;
    const size_t bytes = w * h * d * 4, region[3] = {w, h, d}, origin[3] = {0, 0, 0};
    unsigned char *got = malloc(bytes);
    struct test_texture tex;
    cl_int err;

    REQUIRE(got && test_texture_create(api, env->d3d, &tex, &desc, true, 31 + mip), "3D texture");
    cl_mem mem = env->cl->create_texture3d(env->context, 0, tex.resource, mip, &err);
    REQUIRE(err == CL_SUCCESS, "3D object: %d", err);
    check_mode(mem, gpu_mode, "3D texture mip");
    for (int round = 0; round < 2; round++) {
        CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL),
            CL_SUCCESS);
        test_same_bytes(got, tex.data[mip], bytes, "3D mip read by OpenCL");
        CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        test_fill_bytes(tex.data[mip], bytes, 90 + round * 7 + mip);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, tex.data[mip],
                                      0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        test_texture_intact(api, &tex, "3D: the mip OpenCL wrote, the other as it was");
    }
    clReleaseMemObject(mem);
    test_texture_free(api, &tex);
    free(got);
}

/* NV12 planes (cl_intel_d3d11_nv12_media_sharing): each plane takes a twin of its own, which the
 * layer copies the plane into and out of. DXVK on NVIDIA makes NV12 textures; wined3d and
 * lavapipe's DXVK do not, and one line then says so with the failed creation's HRESULT. */
enum { NW = 64, NH = 32 };

static unsigned char nv12_byte(unsigned plane, UINT x, UINT y, unsigned salt)
{
    return (unsigned char)(plane ? x * 3 + y * 5 + salt + 0x40 : x * 7 + y * 13 + salt);
}

/* Writes (or checks) slice `slice` through a staging copy: Y rows, then UV rows; the wrong
 * bytes of the planes in `mask`. */
static unsigned nv12_slice(ID3D11Device *device, ID3D11Texture2D *texture, UINT slice, bool write,
                           unsigned mask, unsigned salt)
{
    D3D11_TEXTURE2D_DESC desc = {NW,
                                 NH,
                                 1,
                                 1,
                                 DXGI_FORMAT_NV12,
                                 {1, 0},
                                 D3D11_USAGE_STAGING,
                                 0,
                                 D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE,
                                 0};
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *staging = NULL;
    D3D11_MAPPED_SUBRESOURCE m;
    unsigned wrong = 0;

    ID3D11Device_GetImmediateContext(device, &immediate);
    REQUIRE(SUCCEEDED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &staging)),
            "a staging NV12 texture");
    ID3D11DeviceContext_CopySubresourceRegion(immediate, (ID3D11Resource *)staging, 0, 0, 0, 0,
                                              (ID3D11Resource *)texture, slice, NULL);
    REQUIRE(SUCCEEDED(ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)staging, 0,
                                              D3D11_MAP_READ_WRITE, 0, &m)),
            "Map of the NV12 staging copy");
    for (unsigned plane = 0; plane < 2; plane++)
        for (UINT y = 0; (mask >> plane & 1) && y < (plane ? NH / 2 : NH); y++)
            for (UINT x = 0; x < NW; x++) {
                unsigned char *at = (unsigned char *)m.pData + m.RowPitch * (plane * NH + y) + x;
                unsigned char want = nv12_byte(plane, x, y, salt + slice);
                if (write)
                    *at = want;
                else
                    wrong += *at != want;
            }
    ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)staging, 0);
    if (write)
        ID3D11DeviceContext_CopySubresourceRegion(immediate, (ID3D11Resource *)texture, slice, 0, 0,
                                                  0, (ID3D11Resource *)staging, 0, NULL);
    ID3D11Texture2D_Release(staging);
    ID3D11DeviceContext_Release(immediate);
    return wrong;
}

/* Plane `plane` of slice 1 as OpenCL sees it (or writes it): its pattern, tightly packed. */
static void nv12_plane(struct interop_env *env, cl_mem mem, unsigned plane, bool write,
                       unsigned salt)
{
    const size_t w = plane ? NW / 2 : NW, h = plane ? NH / 2 : NH, region[3] = {w, h, 1};
    const size_t origin[3] = {0, 0, 0};
    unsigned char *bytes = malloc(NW * NH), *want = malloc(NW * NH);

    REQUIRE(bytes && want, "memory");
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w * (plane + 1); x++)
            want[y * w * (plane + 1) + x] = nv12_byte(plane, (UINT)x, (UINT)y, salt + 1);
    if (write)
        CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, want, 0, NULL,
                                      NULL),
                  CL_SUCCESS);
    else {
        CHECK_ERR(clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, bytes, 0, NULL,
                                     NULL),
                  CL_SUCCESS);
        test_same_bytes(bytes, want, w * h * (plane + 1), plane ? "UV read" : "Y read");
    }
    free(bytes);
    free(want);
}

static void nv12_planes(struct interop_env *env)
{
    ID3D11Device *device = env->d3d;
    D3D11_TEXTURE2D_DESC desc = {
        NW, NH, 1, 2, DXGI_FORMAT_NV12, {1, 0}, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE,
        0,  0};
    ID3D11Texture2D *texture = NULL;
    HRESULT hr = ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture);
    cl_mem plane[2];
    cl_int err;

    if (FAILED(hr)) {
        printf("NV12 planes: not tested, this Direct3D makes no NV12 texture (0x%08lx)\n",
               (unsigned long)hr);
        return;
    }
    for (UINT slice = 0; slice < 2; slice++)
        nv12_slice(device, texture, slice, true, 3, 10);
    /* A plane whose twin cannot be made (fault point twin_make; no twin of the size is pooled
     * yet) fails: on the copy engine each plane's surface would write the whole slice back, over
     * the other plane (design.md, "Lone planes"). The texture keeps its bytes. */
    cl_uint before = arm_point("twin_make");
    plane[0] = env->cl->create_texture2d(env->context, 0, texture, 0, &err);
    disarm_point("twin_make", before);
    CHECK(plane[0] == NULL, "a plane without a twin was made");
    CHECK_ERR(err, CL_OUT_OF_RESOURCES);
    if (plane[0])
        clReleaseMemObject(plane[0]);
    CHECK(nv12_slice(device, texture, 0, false, 3, 10) == 0, "slice 0 after the refused plane");
    for (unsigned p = 0; p < 2; p++) {
        plane[p] = env->cl->create_texture2d(env->context, 0, texture, 2 + p, &err);
        REQUIRE(err == CL_SUCCESS, "NV12 plane %u of slice 1: %d", p, err);
        check_mode(plane[p], gpu_mode, p ? "NV12 UV plane" : "NV12 Y plane");
    }
    /* Both planes together: OpenCL reads Direct3D's, then writes its own. */
    CHECK_ERR(env->cl->acquire(env->queue, 2, plane, 0, NULL, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < 2; p++) {
        nv12_plane(env, plane[p], p, false, 10);
        nv12_plane(env, plane[p], p, true, 20);
    }
    CHECK_ERR(env->cl->release(env->queue, 2, plane, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK(nv12_slice(device, texture, 1, false, 3, 20) == 0, "both planes written by OpenCL");
    CHECK(nv12_slice(device, texture, 0, false, 3, 10) == 0, "slice 0 as it was");
    /* The Y plane alone: its write leaves the UV plane as OpenCL left it. */
    CHECK_ERR(env->cl->acquire(env->queue, 1, &plane[0], 0, NULL, NULL), CL_SUCCESS);
    nv12_plane(env, plane[0], 0, true, 30);
    CHECK_ERR(env->cl->release(env->queue, 1, &plane[0], 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK(nv12_slice(device, texture, 1, false, 1, 30) == 0, "Y written alone");
    CHECK(nv12_slice(device, texture, 1, false, 2, 20) == 0, "UV kept");
    for (unsigned p = 0; p < 2; p++)
        clReleaseMemObject(plane[p]);
    ID3D11Texture2D_Release(texture);
}

/* The fault cases' object: a 3D texture (the layer copies it), its object acquired. */
struct fault_case {
    struct test_texture tex;
    cl_mem mem;
    unsigned char *got;
    size_t bytes;
};

static const size_t fault_origin[3] = {0, 0, 0}, fault_region[3] = {W, H, 3};

static void fault_case_make(struct interop_env *env, struct fault_case *c, uint32_t seed)
{
    const struct test_texture_desc desc = {W, H, 3, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    cl_int err;

    c->bytes = W * H * 3 * 4;
    REQUIRE((c->got = malloc(c->bytes)) != NULL, "memory");
    REQUIRE(test_texture_create(env->api, env->d3d, &c->tex, &desc, true, seed), "3D texture");
    c->mem = env->cl->create_texture3d(env->context, 0, c->tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "3D object: %d", err);
}

static void fault_case_open(struct interop_env *env, struct fault_case *c, uint32_t seed)
{
    fault_case_make(env, c, seed);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &c->mem, 0, NULL, NULL), CL_SUCCESS);
}

/* A blocking read of the whole object into c->got. */
static cl_int fault_case_read(struct interop_env *env, struct fault_case *c)
{
    return clEnqueueReadImage(env->queue, c->mem, CL_TRUE, fault_origin, fault_region, 0, 0, c->got,
                              0, NULL, NULL);
}

/* Releases the object (acquired), checks the texture is as it was made, and frees it all. */
static void fault_case_close(struct interop_env *env, struct fault_case *c, const char *what)
{
    CHECK_ERR(env->cl->release(env->queue, 1, &c->mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    test_texture_intact(env->api, &c->tex, what);
    clReleaseMemObject(c->mem);
    test_texture_free(env->api, &c->tex);
    free(c->got);
}

/* A failed copy into the twin (the fault point `twin` of test builds, in the layer's copy of a
 * 3D texture). By default the acquire hands the object in: it fails with CL_OUT_OF_RESOURCES
 * and the object stays released (a read is refused as not acquired), and the acquire tried
 * again succeeds. With DXCL_GPU_LAZY=1 the first command after the acquire fails so, the
 * object stays acquired with its copy still to come, and the retried command goes through.
 * Either way it reads the texture's bytes, and the release leaves the texture as it was. */
static void twin_fault(struct interop_env *env)
{
    struct fault_case c;
    cl_uint before;

    if (env_is("DXCL_GPU_LAZY", "1")) {
        fault_case_open(env, &c, 41);
        before = arm_point("twin");
        CHECK_ERR(fault_case_read(env, &c), CL_OUT_OF_RESOURCES);
    } else {
        fault_case_make(env, &c, 41);
        before = arm_point("twin");
        CHECK_ERR(env->cl->acquire(env->queue, 1, &c.mem, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
        CHECK_ERR(fault_case_read(env, &c), env->api->err_not_acquired);
        CHECK_ERR(env->cl->acquire(env->queue, 1, &c.mem, 0, NULL, NULL), CL_SUCCESS);
    }
    disarm_point("twin", before);
    CHECK_ERR(fault_case_read(env, &c), CL_SUCCESS);
    test_same_bytes(c.got, c.tex.data[0], c.bytes, "read after the failed copy into the twin");
    fault_case_close(env, &c, "the texture after the failed copy into the twin");
}

/* A failed copy out of the twin (the layer's, on Direct3D's queue) at a release: the release
 * fails with CL_OUT_OF_RESOURCES and the texture keeps its contents. As for a write back of the
 * copy engine that fails once the downloads ran (design.md, "The copy engine"), the
 * object is released; the next acquire reads the texture again, not the twin's stale bytes. */
static void twin_fault_release(struct interop_env *env)
{
    struct fault_case c;
    unsigned char *written;
    cl_uint before;
    cl_int err;

    fault_case_open(env, &c, 43);
    REQUIRE((written = malloc(c.bytes)) != NULL, "memory");
    for (size_t i = 0; i < c.bytes; i++)
        written[i] = (unsigned char)(i * 7 + 3);
    CHECK_ERR(clEnqueueWriteImage(env->queue, c.mem, CL_TRUE, fault_origin, fault_region, 0, 0,
                                  written, 0, NULL, NULL),
              CL_SUCCESS);
    before = arm_point("twin");
    err = env->cl->release(env->queue, 1, &c.mem, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(env->queue);
    CHECK_ERR(err, CL_OUT_OF_RESOURCES);
    disarm_point("twin", before);
    test_texture_intact(env->api, &c.tex, "the texture after the failed copy out of the twin");
    CHECK_ERR(env->cl->release(env->queue, 1, &c.mem, 0, NULL, NULL), env->api->err_not_acquired);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &c.mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(fault_case_read(env, &c), CL_SUCCESS);
    test_same_bytes(c.got, c.tex.data[0], c.bytes,
                    "the next acquire reads the texture, not the twin");
    fault_case_close(env, &c, "the texture after a release with nothing written");
    free(written);
}

/* The layer makes no twin for a texture (fault point twin_make, at a size no other case uses, so
 * no pooled twin serves it): the object takes the copy engine, and its hand-overs are exact. */
static void twin_make_fault(struct interop_env *env)
{
    const struct test_texture_desc rgba = {37, 23, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    struct test_texture tex;
    cl_int err;

    REQUIRE(test_texture_create(env->api, env->d3d, &tex, &rgba, false, 13), "texture");
    cl_uint before = arm_point("twin_make");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    disarm_point("twin_make", before);
    REQUIRE(err == CL_SUCCESS && mem, "an object whose twin was not made: %d", err);
    CHECK(mode_of(mem) < DXCL_TRANSFER_GPU, "without a twin: mode %u, want the copy engine",
          mode_of(mem));
    interop_check_hand_overs(env, mem, &tex);
    test_texture_free(env->api, &tex);
}

/* Imports the real driver refuses (fault point import: dxcl asks for an image of width 0): each
 * creation fails with the driver's error, and dxcl closes the fd of the twin's memory, which a
 * refused import leaves with the caller on NVIDIA (perf.md, spike step 4). Then an object of the
 * same texture takes the path, exact. The fds themselves cannot be counted from here: under Wine
 * a path like Z:\proc\self is opened by wineserver, so it names wineserver's. The test-only
 * import hands over no fd. */
static void import_fault(struct interop_env *env)
{
    const struct test_texture_desc rgba = {45, 29, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    enum { REFUSALS = 20 };
    struct test_texture tex;
    cl_int err = CL_SUCCESS;

    if (env_is("DXCL_GPU_IMPORT", "host")) {
        printf("refused imports: not tested with the test-only import (it hands over no fd)\n");
        return;
    }
    REQUIRE(test_texture_create(env->api, env->d3d, &tex, &rgba, false, 17), "texture");
    for (int i = 0; i < REFUSALS; i++) {
        cl_uint before = arm_point("import");
        cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
        disarm_point("import", before);
        CHECK(mem == NULL && err != CL_SUCCESS, "a refused import gave object %p, error %d",
              (void *)mem, err);
        if (mem)
            clReleaseMemObject(mem);
    }
    printf("refused imports: %d, the driver's error %d\n", REFUSALS, err);
    test_texture_intact(env->api, &tex, "the texture after the refused imports");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS && mem, "the object after the refusals: %d", err);
    check_mode(mem, gpu_mode, "after refused imports");
    interop_check_hand_overs(env, mem, &tex);
    test_texture_free(env->api, &tex);
}

static void CL_CALLBACK destroyed(cl_mem mem, void *flag)
{
    (void)mem;
    InterlockedExchange((volatile LONG *)flag, 1);
}

/* A destructor callback keeps the driver object from staying with the pooled twin: the
 * callback comes once the program lets go, as without the GPU path. */
static void watched_frame(struct interop_env *env, void *resource)
{
    volatile LONG called = 0;
    cl_int err;
    cl_mem mem = env->cl->create_texture2d(env->context, 0, resource, 0, &err);

    REQUIRE(err == CL_SUCCESS, "watched object: %d", err);
    CHECK_ERR(clSetMemObjectDestructorCallback(mem, destroyed, (void *)&called), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    for (int i = 0; i < 500 && !InterlockedCompareExchange(&called, 0, 0); i++)
        Sleep(10);
    CHECK(called, "the destructor callback of an object on the GPU path came");
}

/* An object made and dropped every frame takes a pooled twin, and the driver's import of it
 * that the last frame's object left (its handle comes back): the pool stays small, and every
 * frame's data is exact. */
static void every_frame(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc rgba = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    unsigned char *got = malloc(W * H * 4);
    struct test_texture tex;
    cl_uint pooled = 0, on_gpu = 0, kept = 0;
    cl_mem last = NULL;
    cl_int err;

    REQUIRE(got && test_texture_create(api, env->d3d, &tex, &rgba, false, 31), "texture");
    for (int frame = 0; frame < 12; frame++) {
        cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
        REQUIRE(err == CL_SUCCESS, "frame %d: object: %d", frame, err);
        on_gpu += mode_of(mem) == gpu_mode;
        kept += mem == last;
        last = mem;
        test_fill_bytes(tex.data[0], W * H * 4, 300 + frame);
        REQUIRE(api->write_subresource(tex.resource, 0, tex.data[0]), "D3D write");
        CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        read_back(env, mem, W, H, got);
        if (!test_same_bytes(got, tex.data[0], W * H * 4, "a frame's object"))
            printf("frame %d differs\n", frame);
        CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    }
    CHECK(on_gpu == 12, "the GPU path served %u of 12 frames", on_gpu);
    printf("the last frame's import kept for %u of 11 frames\n", kept);
    CHECK(kept >= 10, "the last frame's import kept for %u of 11 frames (at least 10)", kept);
    watched_frame(env, tex.resource);
    CHECK_ERR(pooled_count(env->context, &pooled), CL_SUCCESS);
    CHECK(pooled >= 1 && pooled <= 8, "%u idle staging copies and twins pooled (1 to 8)", pooled);
    test_texture_free(api, &tex);
    free(got);
}

/* Two objects a frame, one read-only and one write-only, of two textures of one size: each
 * takes the pooled twin whose kept import has its access, so both handles come back; what
 * OpenCL copies from one to the other reaches Direct3D exactly. */
static void two_accesses(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc rgba = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    unsigned char *got = malloc(W * H * 4);
    struct test_texture src, dst;
    cl_mem last[2] = {NULL, NULL};
    cl_uint kept = 0;
    cl_int err;

    REQUIRE(got && test_texture_create(api, env->d3d, &src, &rgba, false, 41) &&
                test_texture_create(api, env->d3d, &dst, &rgba, false, 42),
            "textures");
    for (int frame = 0; frame < 12; frame++) {
        cl_mem mems[2] = {
            env->cl->create_texture2d(env->context, CL_MEM_READ_ONLY, src.resource, 0, &err),
            env->cl->create_texture2d(env->context, CL_MEM_WRITE_ONLY, dst.resource, 0, &err)};
        REQUIRE(mems[0] && mems[1], "frame %d: objects", frame);
        kept += mems[0] == last[0] && mems[1] == last[1];
        test_fill_bytes(src.data[0], W * H * 4, 500 + frame);
        REQUIRE(api->write_subresource(src.resource, 0, src.data[0]), "D3D write");
        CHECK_ERR(env->cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(
            clEnqueueCopyImage(env->queue, mems[0], mems[1], origin, origin, region, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        REQUIRE(api->read_subresource(dst.resource, 0, got), "D3D read");
        if (!test_same_bytes(got, src.data[0], W * H * 4, "OpenCL's copy in Direct3D"))
            printf("frame %d differs\n", frame);
        for (int i = 0; i < 2; i++) {
            last[i] = mems[i];
            CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
        }
    }
    printf("both imports kept for %u of 11 frames\n", kept);
    CHECK(kept >= 10, "both imports kept for %u of 11 frames (at least 10)", kept);
    test_texture_free(api, &src);
    test_texture_free(api, &dst);
    free(got);
}

/* Direct twins (core/twin.h): a 2D texture of one subresource and at least 256x256, whose
 * DXVK image dxcl's layer made exportable, is shared without a twin: the driver imports the
 * texture's own memory (the real import only: the test-only import needs a linear twin, so CI
 * expects a twin). Every hand-over exact; objects made every frame reuse the kept import; a
 * texture made after another was destroyed has its own memory, even where DXVK gives it the
 * destroyed one's VkImage handle. */
enum { DW = 512, DH = 300 };

static void direct_frames(struct interop_env *env, struct test_texture *tex, cl_uint want,
                          int frames)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {DW, DH, 1};
    unsigned char *got = malloc(DW * DH * 4);
    cl_mem last = NULL;
    cl_uint kept = 0;
    cl_int err;

    REQUIRE(got, "memory");
    for (int frame = 0; frame < frames; frame++) {
        cl_mem mem = env->cl->create_texture2d(env->context, 0, tex->resource, 0, &err);
        REQUIRE(err == CL_SUCCESS, "frame %d: object: %d", frame, err);
        check_mode(mem, want, "a frame's 512x300 object");
        kept += mem == last;
        last = mem;
        CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        read_back(env, mem, DW, DH, got);
        test_same_bytes(got, tex->data[0], DW * DH * 4, "a frame's object reads the texture");
        test_fill_bytes(tex->data[0], DW * DH * 4, 600 + frame);
        CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, tex->data[0],
                                      0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        test_texture_intact(env->api, tex, "OpenCL's frame reached the texture");
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    }
    CHECK(frames < 2 || kept >= (cl_uint)frames - 2,
          "the import kept for %u of %d frames (at least %d)", kept, frames - 1, frames - 2);
    free(got);
}

/* Pixels of an RGBA8 UNORM image that differ from `want` by more than 1 in a channel. */
static unsigned off_pixels(const unsigned char *got, size_t pixels, const unsigned char want[4])
{
    unsigned off = 0;

    for (size_t i = 0; i < pixels; i++)
        for (int c = 0; c < 4; c++)
            if (abs(got[i * 4 + c] - want[c]) > 1) {
                off++;
                break;
            }
    return off;
}

/* A render target, and one that is also an unordered-access view: NVIDIA keeps their clears
 * where its OpenCL import does not look, so both keep their copying twin (core/twin.h);
 * Direct3D's clears reach OpenCL, and OpenCL's fill reaches Direct3D, twice. */
static void render_target_twin(struct interop_env *env, UINT bind)
{
    D3D11_TEXTURE2D_DESC desc = {DW,
                                 DH,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE | D3D11_BIND_RENDER_TARGET | bind,
                                 0,
                                 0};
    const size_t origin[3] = {0, 0, 0}, region[3] = {DW, DH, 1};
    unsigned char *got = malloc(DW * DH * 4);
    ID3D11Device *device = env->d3d;
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *texture = NULL;
    ID3D11RenderTargetView *view = NULL;
    cl_int err;

    REQUIRE(got && SUCCEEDED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture)) &&
                SUCCEEDED(ID3D11Device_CreateRenderTargetView(device, (ID3D11Resource *)texture,
                                                              NULL, &view)),
            "a 512x300 render target");
    ID3D11Device_GetImmediateContext(device, &immediate);
    cl_mem mem = env->cl->create_texture2d(env->context, 0, texture, 0, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    check_mode(mem, gpu_mode, bind ? "a 512x300 render target and UAV" : "a 512x300 render target");
    for (int round = 0; round < 2; round++) {
        const float clear[4] = {0.25f, round ? 0.0f : 0.5f, 0.75f, 1.0f};
        const unsigned char cleared[4] = {64, round ? 0 : 128, 191, 255};
        const cl_float4 fill = {{round ? 1.0f : 0.0f, 0.5f, 0.25f, 1.0f}};
        const unsigned char filled[4] = {round ? 255 : 0, 128, 64, 255};

        ID3D11DeviceContext_ClearRenderTargetView(immediate, view, clear);
        CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        read_back(env, mem, DW, DH, got);
        CHECK(off_pixels(got, DW * DH, cleared) == 0,
              "round %d: OpenCL reads Direct3D's clear (%u pixels off)", round,
              off_pixels(got, DW * DH, cleared));
        CHECK_ERR(clEnqueueFillImage(env->queue, mem, &fill, origin, region, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        test_d3d11_read(device, (ID3D11Resource *)texture, got, DW * 4, DH);
        CHECK(off_pixels(got, DW * DH, filled) == 0,
              "round %d: Direct3D reads OpenCL's fill (%u pixels off)", round,
              off_pixels(got, DW * DH, filled));
    }
    clReleaseMemObject(mem);
    ID3D11RenderTargetView_Release(view);
    ID3D11Texture2D_Release(texture);
    ID3D11DeviceContext_Release(immediate);
    free(got);
}

static void direct(struct interop_env *env)
{
    const struct test_texture_desc desc = {DW, DH, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    cl_uint want = env_is("DXCL_GPU_IMPORT", "host") ? gpu_mode : DXCL_TRANSFER_GPU_DIRECT;
    struct test_texture tex;
    cl_int err;

    REQUIRE(test_texture_create(env->api, env->d3d, &tex, &desc, false, 51), "texture");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    check_mode(mem, want, "512x300 RGBA8 UINT, one subresource");
    interop_check_hand_overs(env, mem, &tex);
    direct_frames(env, &tex, want, 6);
    test_texture_free(env->api, &tex);
    REQUIRE(test_texture_create(env->api, env->d3d, &tex, &desc, false, 52), "another texture");
    direct_frames(env, &tex, want, 1);
    test_texture_free(env->api, &tex);
    render_target_twin(env, 0);
    render_target_twin(env, D3D11_BIND_UNORDERED_ACCESS);
}

/* A program's loop that runs ahead of the GPU (bench P5's shape): acquire, a first touch and a
 * release, 200 times with no wait, then one clFinish. Every release pends behind the earlier
 * ones; none may end early, and the hand-ins' `ready` signals may not outrun OpenCL's waits
 * (the H200's bench hung in this loop). Direct3D then reads the last fill. */
static void ahead_of_the_gpu(struct interop_env *env)
{
    enum { ROUNDS = 200 };
    const struct test_texture_desc desc = {DW, DH, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    const size_t origin[3] = {0, 0, 0}, region[3] = {DW, DH, 1};
    unsigned char *got = malloc(DW * DH * 4), want[4];
    struct test_texture tex;
    unsigned failed = 0;
    cl_int err;

    REQUIRE(got && test_texture_create(env->api, env->d3d, &tex, &desc, false, 53), "texture");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    for (int round = 0; round < ROUNDS; round++) {
        const cl_uint4 fill = {{round & 255, (round * 7) & 255, 3, 255}};
        failed += env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL) != CL_SUCCESS;
        failed +=
            clEnqueueFillImage(env->queue, mem, &fill, origin, region, 0, NULL, NULL) != CL_SUCCESS;
        failed += env->cl->release(env->queue, 1, &mem, 0, NULL, NULL) != CL_SUCCESS;
    }
    CHECK(failed == 0, "%u calls of %d rounds failed", failed, ROUNDS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    want[0] = (ROUNDS - 1) & 255;
    want[1] = ((ROUNDS - 1) * 7) & 255;
    want[2] = 3;
    want[3] = 255;
    test_d3d11_read(env->d3d, tex.resource, got, DW * 4, DH);
    CHECK(off_pixels(got, DW * DH, want) == 0,
          "%d rounds ahead: Direct3D reads the last fill "
          "(%u pixels off)",
          ROUNDS, off_pixels(got, DW * DH, want));
    clReleaseMemObject(mem);
    test_texture_free(env->api, &tex);
    free(got);
}

/* ---- Direct3D's waits for OpenCL, bounded (core/twin.h; docs/reliability.md) ---- */

enum { FW = 48, FH = 20 };

/* A 2D texture's object, acquired, with `pattern` written into it by OpenCL. */
static cl_mem written_object(struct interop_env *env, struct test_texture *tex, uint32_t seed,
                             unsigned char *pattern)
{
    const struct test_texture_desc desc = {FW, FH, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    const size_t origin[3] = {0, 0, 0}, region[3] = {FW, FH, 1};
    cl_int err;

    REQUIRE(test_texture_create(env->api, env->d3d, tex, &desc, false, seed), "texture");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex->resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < FW * FH * 4; i++)
        pattern[i] = (unsigned char)(i * 13 + seed);
    CHECK_ERR(
        clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, pattern, 0, NULL, NULL),
        CL_SUCCESS);
    return mem;
}

/* OpenCL's release is never told to the layer (fault point release_watch): Direct3D's queue
 * goes on at the bound (DXCL_GPU_WAIT_BOUND_MS, 2 s by default); its read then sees what OpenCL
 * wrote, which was done long before. */
static void release_bound(struct interop_env *env)
{
    static unsigned char pattern[FW * FH * 4], got[FW * FH * 4];
    struct test_texture tex;
    cl_mem mem = written_object(env, &tex, 61, pattern);
    ULONGLONG start;
    cl_uint before;

    before = arm_point("release_watch");
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    disarm_point("release_watch", before);
    start = GetTickCount64();
    test_d3d11_read(env->d3d, tex.resource, got, FW * 4, FH);
    printf("a release the layer was never told of: Direct3D's read went on after %llu ms\n",
           (unsigned long long)(GetTickCount64() - start));
    test_same_bytes(got, pattern, sizeof(got), "Direct3D's read after the bound");
    clReleaseMemObject(mem);
    test_texture_free(env->api, &tex);
}

/* A release whose wait list holds a user event that fails: the release's event ends with a
 * negative status, the texture keeps what it had before the acquire (OpenCL's write is not
 * taken), nothing of Direct3D's waits, and the object can be acquired again. */
static void release_failed_wait_list(struct interop_env *env)
{
    static unsigned char pattern[FW * FH * 4];
    struct test_texture tex;
    cl_mem mem = written_object(env, &tex, 67, pattern);
    cl_event user, released = NULL;
    cl_int err, status = CL_COMPLETE;

    user = clCreateUserEvent(env->context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 1, &user, &released), CL_SUCCESS);
    CHECK_ERR(clSetUserEventStatus(user, -1), CL_SUCCESS);
    clWaitForEvents(1, &released);
    clGetEventInfo(released, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    CHECK(status < 0, "the release after a failed event ends with a negative status (%d)", status);
    test_texture_intact(env->api, &tex, "the texture after a release that failed");
    CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    test_texture_intact(env->api, &tex, "the texture acquired and released again");
    clReleaseEvent(released);
    clReleaseEvent(user);
    clReleaseMemObject(mem);
    test_texture_free(env->api, &tex);
}

/* A child that exits with a release pending: the layer never told of it (`watch`: fault point
 * release_watch), or waiting for a user event the program never sets. */
static int exit_pending(const char *what)
{
    static unsigned char pattern[FW * FH * 4];
    struct interop_env env;
    struct test_texture tex;
    cl_event user = NULL;
    cl_mem mem;

    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    mem = written_object(&env, &tex, 71, pattern);
    if (!strcmp(what, "watch"))
        arm_point("release_watch");
    else
        user = clCreateUserEvent(env.context, NULL);
    CHECK_ERR(env.cl->release(env.queue, 1, &mem, user ? 1 : 0, user ? &user : NULL, NULL),
              CL_SUCCESS);
    clFlush(env.queue);
    printf("exit_pending %s: exiting with the release pending\n", what);
    ExitProcess((UINT)test_child_finish("gpu_path exit_pending"));
}

/* The process exits with a release pending: it ends, Direct3D's device and all (within the
 * bound). */
static void exits_pending(void)
{
    static const char *const cases[] = {"watch", "user_event"};

    for (size_t i = 0; i < 2; i++) {
        char args[64];
        ULONGLONG start = GetTickCount64();
        DWORD code;

        snprintf(args, sizeof(args), "exit_pending %s", cases[i]);
        code = test_run_child(args, 120000);
        printf("exit with a release pending (%s): %s after %llu ms\n", cases[i],
               test_child_outcome(code), (unsigned long long)(GetTickCount64() - start));
        CHECK(code == TEST_CHILD_PASSED, "exit with a release pending (%s): %s (exit code %lu)",
              cases[i], test_child_outcome(code), (unsigned long)code);
    }
}

/* A child: a D3D10 device's 2D texture takes the GPU path unless DXCL_GPU_D3D10=0 (read once
 * per process; "unset" is the default), with the data exact through every hand-over. */
static int d3d10_child(const char *setting)
{
    const struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    struct interop_env env;
    struct test_texture tex;
    cl_int err;

    interop_open(&env, &api_d3d10_khr, INTEROP_NO_USER_SYNC, 0);
    REQUIRE(test_texture_create(env.api, env.d3d, &tex, &desc, false, 7), "D3D10 texture");
    cl_mem mem = env.cl->create_texture2d(env.context, 0, tex.resource, 0, &err);
    REQUIRE(mem, "clCreateFromD3D10Texture2DKHR: %d", err);
    if (strcmp(setting, "0"))
        check_mode(mem, gpu_mode, "D3D10 2D RGBA8 UINT by default");
    else
        CHECK(mode_of(mem) < DXCL_TRANSFER_GPU,
              "D3D10 2D RGBA8 UINT with DXCL_GPU_D3D10=0: mode %u", mode_of(mem));
    interop_check_hand_overs(&env, mem, &tex);
    clReleaseMemObject(mem);
    test_texture_free(env.api, &tex);
    interop_close(&env);
    return test_child_finish("gpu_path d3d10");
}

/* D3D10 textures: on the GPU path by default and with DXCL_GPU_D3D10=1, on the copy engine with
 * DXCL_GPU_D3D10=0 (a child process each way). */
static void d3d10_setting(void)
{
    static const char *const settings[] = {"0", "1", "unset"};
    char expect[8] = "";

    /* The child that must copy must not be held to DXCL_TEST_EXPECT_GPU (interop.c). */
    GetEnvironmentVariableA("DXCL_TEST_EXPECT_GPU", expect, sizeof(expect));
    for (size_t i = 0; i < ARRAYSIZE(settings); i++) {
        char args[32];
        DWORD code;

        SetEnvironmentVariableA("DXCL_GPU_D3D10",
                                strcmp(settings[i], "unset") ? settings[i] : NULL);
        SetEnvironmentVariableA("DXCL_TEST_EXPECT_GPU", i && expect[0] ? expect : NULL);
        snprintf(args, sizeof(args), "d3d10 %s", settings[i]);
        code = test_run_child(args, 120000);
        CHECK(code == TEST_CHILD_PASSED, "D3D10 with DXCL_GPU_D3D10=%s: %s (exit code %lu)",
              settings[i], test_child_outcome(code), (unsigned long)code);
    }
    SetEnvironmentVariableA("DXCL_GPU_D3D10", NULL);
    SetEnvironmentVariableA("DXCL_TEST_EXPECT_GPU", expect[0] ? expect : NULL);
}

/* No GPU path here, for the reason `why` (proven by the caller): Direct3D is not DXVK (the rig's
 * hybrid mode: wined3d on llvmpipe beside the GPU's OpenCL), so no Vulkan image is behind a
 * texture, or dxcl reaches the driver without its Unix side (the rig's RIG_UNIX=0), which the
 * path needs. 2D and 3D textures take the copy engine, and their hand-overs stay exact. */
static void without_gpu_path(struct interop_env *env, const char *why)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc rgba = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    const struct test_texture_desc volume = {W, H, 4, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    struct test_texture t2, t3;
    cl_int err;

    printf("%s: no GPU path; checking that textures take the copy engine\n", why);
    REQUIRE(test_texture_create(api, env->d3d, &t2, &rgba, false, 9) &&
                test_texture_create(api, env->d3d, &t3, &volume, true, 2),
            "resources");
    cl_mem m2 = env->cl->create_texture2d(env->context, 0, t2.resource, 0, &err);
    cl_mem m3 = env->cl->create_texture3d(env->context, 0, t3.resource, 0, &err);
    REQUIRE(m2 && m3, "objects");
    CHECK(mode_of(m2) < DXCL_TRANSFER_GPU, "a 2D texture without DXVK: mode %u", mode_of(m2));
    CHECK(mode_of(m3) < DXCL_TRANSFER_GPU, "a 3D texture without DXVK: mode %u", mode_of(m3));
    interop_check_hand_overs(env, m2, &t2);
    clReleaseMemObject(m3);
    test_texture_free(api, &t2);
    test_texture_free(api, &t3);
}

/* How dxcl reaches the driver (dxclGetInfo's DXCL_INFO_DRIVER_ROUTE). */
static void driver_route(char *route, size_t size)
{
    dxclGetInfo_fn get_info =
        (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");

    REQUIRE(get_info && get_info(DXCL_INFO_DRIVER_ROUTE, size, route, NULL) == CL_SUCCESS,
            "dxclGetInfo(DXCL_INFO_DRIVER_ROUTE)");
}

static HRESULT dxvk_interop(void *d3d)
{
    IDXGIVkInteropDevice1 *interop = NULL;
    HRESULT hr = ID3D11Device_QueryInterface((ID3D11Device *)d3d, &IID_IDXGIVkInteropDevice1,
                                             (void **)&interop);

    if (SUCCEEDED(hr))
        interop->lpVtbl->Release(interop);
    return hr;
}

int main(int argc, char **argv)
{
    struct interop_env env;
    char route[512], why[640];
    HRESULT dxvk;

    if (argc == 3 && !strcmp(argv[1], "exit_pending"))
        return exit_pending(argv[2]);
    transfer_mode = (dxclGetTransferMode_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                           "dxclGetTransferMode");
    pooled_count = (dxclGetPooledStagingCount_fn)(void (*)(void))GetProcAddress(
        test_dxcl_module(), "dxclGetPooledStagingCount");
    REQUIRE(transfer_mode && pooled_count, "dxclGetTransferMode and dxclGetPooledStagingCount");
    if (!env_is("DXCL_GPU_IMPORT", "host") && !env_is("DXCL_GPU_SYNC", "cpu"))
        gpu_mode = DXCL_TRANSFER_GPU_SEMAPHORES;
    printf("expecting transfer mode %u on the GPU path\n", gpu_mode);
    if (argc == 3 && !strcmp(argv[1], "d3d10"))
        return d3d10_child(argv[2]);
    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    driver_route(route, sizeof(route));
    if (FAILED(dxvk = dxvk_interop(env.d3d)) || !strstr(route, "the Unix side")) {
        if (FAILED(dxvk)) {
            snprintf(why, sizeof(why),
                     "Direct3D is not DXVK (QueryInterface(IDXGIVkInteropDevice1): 0x%08lx)",
                     (unsigned long)dxvk);
            CHECK(dxvk == E_NOINTERFACE, "QueryInterface failed with 0x%08lx, want E_NOINTERFACE",
                  (unsigned long)dxvk);
        } else {
            snprintf(why, sizeof(why), "dxcl reaches the driver through %s, not its Unix side",
                     route);
        }
        /* CI's variants set these where the path must be there: then this is a failure. */
        CHECK(!getenv("DXCL_TEST_EXPECT_GPU"), "DXCL_TEST_EXPECT_GPU is set, yet %s", why);
        CHECK(FAILED(dxvk) || !getenv("DXCL_WINE_UNIX"), "DXCL_WINE_UNIX is set, yet %s", why);
        without_gpu_path(&env, why);
        interop_close(&env);
        return test_finish("gpu_path");
    }
    check_modes(&env);
    hand_overs(&env);
    subresource(&env);
    volume(&env, 0);
    volume(&env, 1);
    twin_fault(&env);
    twin_fault_release(&env);
    twin_make_fault(&env);
    import_fault(&env);
    nv12_planes(&env);
    every_frame(&env);
    two_accesses(&env);
    direct(&env);
    ahead_of_the_gpu(&env);
    release_bound(&env);
    release_failed_wait_list(&env);
    exits_pending();
    d3d10_setting();
    interop_close(&env);
    return test_finish("gpu_path");
}
