/* cl_intel_d3d11_nv12_media_sharing on the KHR and NV D3D11 entry points: NV12 textures and
 * NV12 texture arrays, subresource = plane + 2 x array slice, plane 0 CL_R/UNORM_INT8 at full
 * size and plane 1 CL_RG/UNORM_INT8 at half size. Both ways bit-exactly (Direct3D writes, then
 * clEnqueueReadImage; a kernel writes, then Direct3D reads), planes acquired together and
 * alone, the subresource query, and the errors. Where this Direct3D cannot create NV12
 * textures of a usage, one line says so with the HRESULT of the failed creation; what needs no
 * NV12 texture (the extension strings, the format query, the planar rule's absence for other
 * formats) is tested everywhere. */
#include "interop.h"

#include <CL/cl_d3d11.h>
#include <stdlib.h>

#define NV12_EXTENSION "cl_intel_d3d11_nv12_media_sharing"

/* The patterns, and the kernel that writes them: Y = 7x + 13y + salt, U and V 3x + 5y + salt
 * plus 0x40 and 0x80 (mod 256). */
static unsigned char luma_value(UINT x, UINT y, unsigned salt)
{
    return (unsigned char)(x * 7 + y * 13 + salt);
}

static unsigned char chroma_value(unsigned channel, UINT x, UINT y, unsigned salt)
{
    return (unsigned char)(x * 3 + y * 5 + salt + 0x40 * (channel + 1));
}

static const char fill_source[] =
    "__kernel void nv12_fill(__write_only image2d_t img, uint salt, uint uv)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float4 c;\n"
    "    if (uv)\n"
    "        c = (float4)(((3 * x + 5 * y + salt + 0x40) & 255) / 255.0f,\n"
    "                     ((3 * x + 5 * y + salt + 0x80) & 255) / 255.0f, 0.0f, 1.0f);\n"
    "    else\n"
    "        c = (float4)(((7 * x + 13 * y + salt) & 255) / 255.0f, 0.0f, 0.0f, 1.0f);\n"
    "    write_imagef(img, (int2)(x, y), c);\n"
    "}\n";

/* ---- Direct3D side ---- */

struct nv12 {
    ID3D11Device *device;
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *texture;
    bool staging; /* D3D11_USAGE_STAGING: mapped itself; else through a staging copy */
    UINT width, height, slices;
};

static HRESULT nv12_create(ID3D11Device *device, UINT w, UINT h, UINT slices, bool staging,
                           ID3D11Texture2D **texture)
{
    D3D11_TEXTURE2D_DESC desc = {.Width = w,
                                 .Height = h,
                                 .MipLevels = 1,
                                 .ArraySize = slices,
                                 .Format = DXGI_FORMAT_NV12,
                                 .SampleDesc = {1, 0},
                                 .Usage = staging ? D3D11_USAGE_STAGING : D3D11_USAGE_DEFAULT,
                                 .BindFlags = staging ? 0 : D3D11_BIND_SHADER_RESOURCE,
                                 .CPUAccessFlags =
                                     staging ? D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE : 0};

    *texture = NULL;
    return ID3D11Device_CreateTexture2D(device, &desc, NULL, texture);
}

/* One slice of the texture mapped (a staging texture's own subresource, or a staging copy of
 * a default one); *copy is the staging copy to unmap (and write back) or NULL. */
static void *map_slice(struct nv12 *t, UINT slice, bool write, ID3D11Texture2D **copy, UINT *pitch)
{
    ID3D11Resource *mapped = (ID3D11Resource *)t->texture;
    D3D11_MAPPED_SUBRESOURCE m;
    UINT sub = slice;
    HRESULT hr;

    *copy = NULL;
    if (!t->staging) {
        REQUIRE(SUCCEEDED(nv12_create(t->device, t->width, t->height, 1, true, copy)),
                "a staging NV12 texture, where a default one could be made");
        ID3D11DeviceContext_CopySubresourceRegion(t->immediate, (ID3D11Resource *)*copy, 0, 0, 0, 0,
                                                  mapped, slice, NULL);
        mapped = (ID3D11Resource *)*copy;
        sub = 0;
    }
    hr = ID3D11DeviceContext_Map(t->immediate, mapped, sub,
                                 write ? D3D11_MAP_READ_WRITE : D3D11_MAP_READ, 0, &m);
    REQUIRE(SUCCEEDED(hr), "Map of NV12 slice %u: 0x%08lx", slice, (unsigned long)hr);
    *pitch = m.RowPitch;
    return m.pData;
}

static void unmap_slice(struct nv12 *t, UINT slice, ID3D11Texture2D *copy)
{
    if (!copy) {
        ID3D11DeviceContext_Unmap(t->immediate, (ID3D11Resource *)t->texture, slice);
        return;
    }
    ID3D11DeviceContext_Unmap(t->immediate, (ID3D11Resource *)copy, 0);
    ID3D11DeviceContext_CopySubresourceRegion(t->immediate, (ID3D11Resource *)t->texture, slice, 0,
                                              0, 0, (ID3D11Resource *)copy, 0, NULL);
    ID3D11Texture2D_Release(copy);
}

/* Writes (write) or checks the planes of plane_mask in a slice's Direct3D memory: Y rows, then
 * UV rows at offset RowPitch x Height, at the same pitch. Returns the number of wrong bytes. */
static unsigned slice_pattern(struct nv12 *t, UINT slice, bool write, unsigned salt,
                              unsigned plane_mask, const char *what)
{
    ID3D11Texture2D *copy;
    UINT pitch;
    unsigned char *bits = map_slice(t, slice, write, &copy, &pitch);
    unsigned char *uv = bits + (size_t)pitch * t->height;
    unsigned bad = 0;

#define VISIT(plane, address, value)                                                               \
    do {                                                                                           \
        unsigned char *at_ = (address), v_ = (value);                                              \
        if (write && ((plane_mask >> (plane)) & 1))                                                \
            *at_ = v_;                                                                             \
        else if (!write && ((plane_mask >> (plane)) & 1) && *at_ != v_ && bad++ < 3)               \
            CHECK(0, "%s: slice %u plane %u byte at %zu is 0x%02x, want 0x%02x", what, slice,      \
                  plane, (size_t)(at_ - bits), *at_, v_);                                          \
    } while (0)
    for (UINT y = 0; y < t->height; y++)
        for (UINT x = 0; x < t->width; x++)
            VISIT(0, bits + (size_t)y * pitch + x, luma_value(x, y, salt));
    for (UINT y = 0; y < t->height / 2; y++)
        for (UINT x = 0; x < t->width / 2; x++) {
            VISIT(1, uv + (size_t)y * pitch + 2 * x, chroma_value(0, x, y, salt));
            VISIT(1, uv + (size_t)y * pitch + 2 * x + 1, chroma_value(1, x, y, salt));
        }
#undef VISIT
    if (write) {
        unmap_slice(t, slice, copy);
    } else {
        if (copy)
            ID3D11DeviceContext_Unmap(t->immediate, (ID3D11Resource *)copy, 0);
        else
            ID3D11DeviceContext_Unmap(t->immediate, (ID3D11Resource *)t->texture, slice);
        if (copy)
            ID3D11Texture2D_Release(copy);
        CHECK(bad == 0, "%s: slice %u: %u bytes differ from pattern %u", what, slice, bad, salt);
    }
    return bad;
}

/* A plane's pattern as a tightly packed CL image. */
static void plane_pattern(const struct nv12 *t, unsigned plane, unsigned salt, unsigned char *out)
{
    for (UINT y = 0; y < (plane ? t->height / 2 : t->height); y++)
        for (UINT x = 0; x < (plane ? t->width / 2 : t->width); x++) {
            if (plane == 0) {
                *out++ = luma_value(x, y, salt);
            } else {
                *out++ = chroma_value(0, x, y, salt);
                *out++ = chroma_value(1, x, y, salt);
            }
        }
}

/* ---- OpenCL side ---- */

struct planes {
    cl_mem mem[2];
};

static void check_plane_info(struct interop_env *env, cl_mem mem, const struct nv12 *t,
                             UINT subresource, const char *what)
{
    unsigned plane = subresource % 2;
    cl_image_format format = {0};
    size_t width = 0, height = 0;
    UINT got_sub = 0xdead;
    void *resource = NULL;

    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_FORMAT, sizeof(format), &format, NULL), CL_SUCCESS);
    CHECK(format.image_channel_order == (plane ? CL_RG : CL_R) &&
              format.image_channel_data_type == CL_UNORM_INT8,
          "%s: subresource %u has format 0x%x/0x%x, want %s/CL_UNORM_INT8", what, subresource,
          format.image_channel_order, format.image_channel_data_type, plane ? "CL_RG" : "CL_R");
    clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof(width), &width, NULL);
    clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof(height), &height, NULL);
    CHECK(width == (plane ? t->width / 2 : t->width) &&
              height == (plane ? t->height / 2 : t->height),
          "%s: subresource %u is %zux%zu", what, subresource, width, height);
    CHECK_ERR(
        clGetImageInfo(mem, env->api->image_subresource_query, sizeof(got_sub), &got_sub, NULL),
        CL_SUCCESS);
    CHECK(got_sub == subresource, "%s: the subresource query answers %u, want %u", what, got_sub,
          subresource);
    CHECK_ERR(
        clGetMemObjectInfo(mem, env->api->mem_resource_query, sizeof(resource), &resource, NULL),
        CL_SUCCESS);
    CHECK(resource == t->texture, "%s: the resource query answers %p", what, resource);
}

static void create_planes(struct interop_env *env, const struct nv12 *t, UINT slice,
                          struct planes *p, const char *what)
{
    for (unsigned plane = 0; plane < 2; plane++) {
        UINT sub = plane + 2 * slice;
        cl_int err = CL_INVALID_VALUE;

        p->mem[plane] =
            env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, t->texture, sub, &err);
        REQUIRE(err == CL_SUCCESS && p->mem[plane], "%s: create subresource %u: %d", what, sub,
                err);
        check_plane_info(env, p->mem[plane], t, sub, what);
    }
}

static void release_planes(struct planes *p)
{
    for (unsigned plane = 0; plane < 2; plane++)
        CHECK_ERR(clReleaseMemObject(p->mem[plane]), CL_SUCCESS);
}

/* The text's errors on an NV12 texture of `slices` slices. */
static void check_errors(struct interop_env *env, const struct nv12 *t, const struct planes *p,
                         const char *what)
{
    cl_int err = CL_SUCCESS;
    cl_mem mem =
        env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, t->texture, 2 * t->slices, &err);

    CHECK(mem == NULL && err == CL_INVALID_VALUE,
          "%s: subresource %u (2 x %u slices) gives %d, want CL_INVALID_VALUE", what, 2 * t->slices,
          t->slices, err);
    err = CL_SUCCESS;
    mem = env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, t->texture, 1, &err);
    CHECK(mem == NULL && err == env->api->err_invalid_resource,
          "%s: a second cl_mem of subresource 1 gives %d, want the invalid-resource error", what,
          err);
    CHECK_ERR(clEnqueueReadImage(env->queue, p->mem[0], CL_TRUE, (size_t[3]){0, 0, 0},
                                 (size_t[3]){1, 1, 1}, 0, 0, &(unsigned char[4]){0}, 0, NULL, NULL),
              env->api->err_not_acquired);
    CHECK_ERR(env->cl->release(env->queue, 1, &p->mem[1], 0, NULL, NULL),
              env->api->err_not_acquired);
}

static void read_planes(struct interop_env *env, const struct nv12 *t, const struct planes *p,
                        unsigned salt, unsigned plane_mask, const char *what)
{
    size_t bytes = (size_t)t->width * t->height;
    unsigned char *want = malloc(bytes), *got = malloc(bytes);

    REQUIRE(want && got, "out of memory");
    for (unsigned plane = 0; plane < 2; plane++) {
        size_t region[3] = {plane ? t->width / 2 : t->width, plane ? t->height / 2 : t->height, 1};
        size_t plane_bytes = plane ? bytes / 2 : bytes;

        if (!((plane_mask >> plane) & 1))
            continue;
        memset(got, 0xcd, bytes);
        plane_pattern(t, plane, salt, want);
        CHECK_ERR(clEnqueueReadImage(env->queue, p->mem[plane], CL_TRUE, (size_t[3]){0, 0, 0},
                                     region, 0, 0, got, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK(!memcmp(got, want, plane_bytes), "%s: clEnqueueReadImage of plane %u (%s) is exact",
              what, plane, plane ? "UV" : "Y");
    }
    free(want);
    free(got);
}

static void fill_plane(struct interop_env *env, cl_kernel kernel, const struct nv12 *t, cl_mem mem,
                       unsigned plane, unsigned salt)
{
    cl_uint salt_arg = salt, uv = plane;
    size_t global[2] = {plane ? t->width / 2 : t->width, plane ? t->height / 2 : t->height};

    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(mem), &mem), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(salt_arg), &salt_arg), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 2, sizeof(uv), &uv), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
}

/* Every slice both ways, planes acquired and released together, then each plane alone: a
 * plane not acquired (or not written) keeps its Direct3D bytes, and other slices are
 * untouched. */
static void roundtrip(struct interop_env *env, cl_kernel kernel, struct nv12 *t, const char *what)
{
    struct planes *p = calloc(t->slices, sizeof(*p));

    REQUIRE(p != NULL, "out of memory");
    for (UINT s = 0; s < t->slices; s++) {
        slice_pattern(t, s, true, 10 + s, 3, what);
        create_planes(env, t, s, &p[s], what);
    }
    check_errors(env, t, &p[0], what);
    for (UINT s = 0; s < t->slices; s++) {
        char label[200];

        snprintf(label, sizeof(label), "%s, slice %u, planes together", what, s);
        CHECK_ERR(env->cl->acquire(env->queue, 2, p[s].mem, 0, NULL, NULL), CL_SUCCESS);
        read_planes(env, t, &p[s], 10 + s, 3, label);
        fill_plane(env, kernel, t, p[s].mem[0], 0, 50 + s);
        fill_plane(env, kernel, t, p[s].mem[1], 1, 50 + s);
        CHECK_ERR(env->cl->release(env->queue, 2, p[s].mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        slice_pattern(t, s, false, 50 + s, 3, label);

        /* Each plane alone: the other keeps what the kernel wrote above. */
        for (unsigned plane = 0; plane < 2; plane++) {
            snprintf(label, sizeof(label), "%s, slice %u, plane %u alone", what, s, plane);
            slice_pattern(t, s, true, 90 + plane, 1u << plane, label);
            CHECK_ERR(env->cl->acquire(env->queue, 1, &p[s].mem[plane], 0, NULL, NULL), CL_SUCCESS);
            read_planes(env, t, &p[s], 90 + plane, 1u << plane, label);
            fill_plane(env, kernel, t, p[s].mem[plane], plane, 120 + plane);
            CHECK_ERR(env->cl->release(env->queue, 1, &p[s].mem[plane], 0, NULL, NULL), CL_SUCCESS);
            CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
            slice_pattern(t, s, false, 120 + plane, 1u << plane, label);
            slice_pattern(t, s, false, plane ? 120 : 50 + s, 1u << (1 - plane), label);
        }
        /* Plane 1 alone, wholly overwritten by its first command (no Direct3D read is needed
         * for it): plane 0, in the same staging copy, keeps its bytes. */
        {
            unsigned char *uv = malloc((size_t)t->width * t->height / 2);
            size_t region[3] = {t->width / 2, t->height / 2, 1};

            REQUIRE(uv != NULL, "out of memory");
            snprintf(label, sizeof(label), "%s, slice %u, plane 1 overwritten alone", what, s);
            plane_pattern(t, 1, 140, uv);
            CHECK_ERR(env->cl->acquire(env->queue, 1, &p[s].mem[1], 0, NULL, NULL), CL_SUCCESS);
            CHECK_ERR(clEnqueueWriteImage(env->queue, p[s].mem[1], CL_TRUE, (size_t[3]){0, 0, 0},
                                          region, 0, 0, uv, 0, NULL, NULL),
                      CL_SUCCESS);
            CHECK_ERR(env->cl->release(env->queue, 1, &p[s].mem[1], 0, NULL, NULL), CL_SUCCESS);
            CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
            slice_pattern(t, s, false, 140, 2, label);
            slice_pattern(t, s, false, 120, 1, label);
            free(uv);
        }
    }
    /* Slice 0's last state after the other slices' round trips: untouched by them. */
    if (t->slices > 1) {
        slice_pattern(t, 0, false, 120, 1, "slice 0 after the other slices");
        slice_pattern(t, 0, false, 140, 2, "slice 0 after the other slices");
    }
    for (UINT s = 0; s < t->slices; s++)
        release_planes(&p[s]);
    free(p);
}

/* Whether Direct3D itself copies an NV12 texture's bytes: a pattern mapped into `src`,
 * CopySubresourceRegion into a second staging NV12 texture, and the copy's first Y and UV rows
 * compared. dxcl moves NV12 data only through such copies. */
static bool copies_nv12(ID3D11Device *device, ID3D11Texture2D *src)
{
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *dst;
    D3D11_MAPPED_SUBRESOURCE m;
    bool same = false;

    if (FAILED(nv12_create(device, 64, 32, 1, true, &dst)))
        return false;
    ID3D11Device_GetImmediateContext(device, &immediate);
    if (SUCCEEDED(
            ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)src, 0, D3D11_MAP_WRITE, 0, &m))) {
        for (UINT row = 0; row < 32 + 16; row++)
            for (UINT x = 0; x < 64; x++)
                ((unsigned char *)m.pData)[(size_t)row * m.RowPitch + x] = (unsigned char)(row + x);
        ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)src, 0);
        ID3D11DeviceContext_CopySubresourceRegion(immediate, (ID3D11Resource *)dst, 0, 0, 0, 0,
                                                  (ID3D11Resource *)src, 0, NULL);
        if (SUCCEEDED(ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)dst, 0, D3D11_MAP_READ,
                                              0, &m))) {
            const unsigned char *bits = m.pData;
            same = true;
            for (UINT x = 0; x < 64; x++)
                same &=
                    bits[x] == x && bits[(size_t)32 * m.RowPitch + x] == (unsigned char)(32 + x);
            ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)dst, 0);
        }
    }
    ID3D11DeviceContext_Release(immediate);
    ID3D11Texture2D_Release(dst);
    return same;
}

/* Whether this Direct3D makes NV12 textures of each usage (default, staging) and copies them;
 * where it cannot, one line says so, with the HRESULTs of the failed creations or the failed
 * copy. */
static void probe_usages(ID3D11Device *device, bool usable[2])
{
    char line[256] = "";

    for (int staging = 0; staging < 2; staging++) {
        const char *usage = staging ? "D3D11_USAGE_STAGING" : "D3D11_USAGE_DEFAULT";
        ID3D11Texture2D *texture;
        HRESULT hr = nv12_create(device, 64, 32, 1, staging, &texture);
        size_t len = strlen(line);

        usable[staging] = SUCCEEDED(hr);
        if (!usable[staging]) {
            snprintf(line + len, sizeof(line) - len, "%sCreateTexture2D(%s) fails with 0x%08lx",
                     len ? "; " : "", usage, (unsigned long)hr);
            continue;
        }
        if (staging && !copies_nv12(device, texture)) {
            usable[staging] = false;
            snprintf(line + len, sizeof(line) - len,
                     "%s%s: CopySubresourceRegion leaves the copy's bytes wrong", len ? "; " : "",
                     usage);
        }
        ID3D11Texture2D_Release(texture);
    }
    if (*line)
        printf("NOT TESTED HERE: this Direct3D cannot make or copy NV12 textures (%s): their "
               "data paths are tested where it can\n",
               line);
}

/* Textures of one usage: single textures and an array. */
static void textures_of_usage(struct interop_env *env, cl_kernel kernel, bool staging)
{
    static const UINT shapes[][3] = {{64, 32, 1}, {250, 6, 1}, {32, 16, 3}};
    ID3D11DeviceContext *immediate;
    char what[160];

    ID3D11Device_GetImmediateContext((ID3D11Device *)env->d3d, &immediate);
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        struct nv12 t = {env->d3d,     immediate,    NULL,        staging,
                         shapes[i][0], shapes[i][1], shapes[i][2]};
        HRESULT hr = nv12_create(t.device, t.width, t.height, t.slices, staging, &t.texture);

        /* probe_usages made one of this usage: every shape must be made too. */
        REQUIRE(SUCCEEDED(hr), "%s: NV12 %ux%u x%u fails (0x%08lx) where 64x32 worked",
                env->api->name, t.width, t.height, t.slices, (unsigned long)hr);
        snprintf(what, sizeof(what), "%s %s NV12 %ux%u, %u slice%s", env->api->name,
                 staging ? "staging" : "default", t.width, t.height, t.slices,
                 t.slices > 1 ? "s" : "");
        test_progress("%s", what);
        roundtrip(env, kernel, &t, what);
        ID3D11Texture2D_Release(t.texture);
    }
    ID3D11DeviceContext_Release(immediate);
}

/* ---- What needs no NV12 texture ---- */

/* Chained in front of a driver that shares D3D11 itself without the extension (testing.md,
 * "Native paths"): the driver's functions serve D3D11, so dxcl must not offer NV12. */
static bool driver_serves_d3d11_without_nv12(void)
{
    char value[32] = "";
    DWORD len = GetEnvironmentVariableA("DXCL_TEST_CHAIN", value, sizeof(value));

    return len && len < sizeof(value) && (!strcmp(value, "nv_only") || !strcmp(value, "khr_only"));
}

static void check_extension_strings(cl_platform_id platform, cl_device_id device, bool offered)
{
    char platform_list[8192] = "", device_list[8192] = "";

    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(platform_list),
                                platform_list, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(device_list), device_list, NULL),
              CL_SUCCESS);
    CHECK(test_has_word(platform_list, NV12_EXTENSION) == offered &&
              test_has_word(device_list, NV12_EXTENSION) == offered,
          NV12_EXTENSION " %s the platform and device extension strings",
          offered ? "in" : "not in");
    CHECK(test_has_word(platform_list, "cl_khr_d3d11_sharing"),
          NV12_EXTENSION " comes with cl_khr_d3d11_sharing, which it requires");
}

/* cl_intel_sharing_format_query_d3d11: NV12 under planes 0 and 1 of 2D images, exactly where
 * the device can make NV12 textures; never for plane 2 or 3D images. */
static void check_format_query(cl_platform_id platform, struct interop_env *env)
{
    clGetSupportedD3D11TextureFormatsINTEL_fn query = clGetExtensionFunctionAddressForPlatform(
        platform, "clGetSupportedD3D11TextureFormatsINTEL");
    UINT support = 0;
    bool makes;

    REQUIRE(query != NULL, "clGetSupportedD3D11TextureFormatsINTEL");
    ID3D11Device_CheckFormatSupport((ID3D11Device *)env->d3d, DXGI_FORMAT_NV12, &support);
    makes = support & D3D11_FORMAT_SUPPORT_TEXTURE2D;
    printf("CheckFormatSupport(NV12): 0x%x (2D textures %s)\n", support, makes ? "yes" : "no");
    for (cl_uint plane = 0; plane < 3; plane++)
        for (int is_3d = 0; is_3d < 2; is_3d++) {
            DXGI_FORMAT list[128];
            cl_uint count = 0;
            bool found = false;

            CHECK_ERR(query(env->context, CL_MEM_READ_WRITE,
                            is_3d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D, plane, 128, list,
                            &count),
                      CL_SUCCESS);
            for (cl_uint i = 0; i < count && i < 128; i++) {
                found |= list[i] == DXGI_FORMAT_NV12;
                if (plane > 0)
                    CHECK(list[i] == DXGI_FORMAT_NV12, "plane %u lists format %d", plane,
                          (int)list[i]);
            }
            CHECK(found == (makes && plane < 2 && !is_3d),
                  "format query, plane %u, %s images: NV12 %s", plane, is_3d ? "3D" : "2D",
                  found ? "listed" : "not listed");
        }
}

/* The planar rule is NV12's alone: a two-slice, two-level R8G8 array keeps the KHR rule
 * (subresource = mip + levels x slice; 3 is slice 1's level 1, 4 is out of range). */
static void check_other_formats(struct interop_env *env)
{
    struct test_texture_desc desc = {32, 16, 1, 2, 2, DXGI_FORMAT_R8G8_UNORM, TEST_USAGE_DEFAULT,
                                     1};
    void *texture = env->api->create_texture2d(env->d3d, &desc, NULL);
    cl_int err = CL_SUCCESS;
    size_t width = 0;
    UINT sub = 0;
    cl_mem mem;

    REQUIRE(texture != NULL, "%s: an R8G8 texture array", env->api->name);
    mem = env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, texture, 3, &err);
    REQUIRE(err == CL_SUCCESS && mem, "%s: R8G8 subresource 3: %d", env->api->name, err);
    clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof(width), &width, NULL);
    clGetImageInfo(mem, env->api->image_subresource_query, sizeof(sub), &sub, NULL);
    CHECK(width == 16 && sub == 3, "%s: R8G8 subresource 3 is level 1 (width %zu, query %u)",
          env->api->name, width, sub);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    mem = env->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, texture, 4, &err);
    CHECK(mem == NULL && err == CL_INVALID_VALUE, "%s: R8G8 subresource 4 gives %d", env->api->name,
          err);
    env->api->release(texture);
}

int main(void)
{
    static const struct test_api *apis[] = {&api_d3d11_khr, &api_d3d11_nv};
    cl_platform_id platform = test_platform();
    bool makes[2] = {false, false};

    if (driver_serves_d3d11_without_nv12()) {
        check_extension_strings(platform, test_device(platform), false);
        printf("NOT TESTED HERE: the driver serves D3D11 (chain %s) without " NV12_EXTENSION
               ", which dxcl does not offer then\n",
               getenv("DXCL_TEST_CHAIN"));
        return test_finish("d3d11_nv12");
    }
    check_extension_strings(platform, test_device(platform), true);
    for (size_t a = 0; a < 2; a++) {
        struct interop_env env;
        cl_kernel kernel;

        interop_load(apis[a], platform);
        interop_open(&env, apis[a], INTEROP_NO_USER_SYNC, 0);
        if (a == 0) {
            check_format_query(platform, &env);
            probe_usages(env.d3d, makes);
        }
        check_other_formats(&env);
        kernel = test_kernel(env.context, env.device, fill_source, "nv12_fill");
        for (int staging = 0; staging < 2; staging++)
            if (makes[staging])
                textures_of_usage(&env, kernel, staging);
        clReleaseKernel(kernel);
        interop_close(&env);
    }
    return test_finish("d3d11_nv12");
}
