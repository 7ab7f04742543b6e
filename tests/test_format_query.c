/* cl_intel_sharing_format_query_d3d10, _d3d11 and _dx9 on the real stack: every error of the
 * Intel text, partial lists, planes and image types; and the lists agree with creation: every
 * listed format is shared and round-tripped bit-exactly through a kernel (D3D11 and D3D10: 2D
 * and 3D textures; DX9: offscreen plain surfaces on D3D9 and D3D9Ex, every plane), and a format
 * that is not listed (outside the tables, or one dxcl cannot back) fails creation. */
#include "dx9util.h"
#include "suites.h"

#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <stdlib.h>

/* The three functions in one shape: the D3D10 one has no plane argument. */
typedef cl_int (*query_fn)(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                           cl_uint plane, cl_uint num_entries, cl_uint *formats, cl_uint *count);

static clGetSupportedD3D11TextureFormatsINTEL_fn d3d11_query;
static clGetSupportedD3D10TextureFormatsINTEL_fn d3d10_query;
static clGetSupportedDX9MediaSurfaceFormatsINTEL_fn dx9_query;

static cl_int query_d3d11(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                          cl_uint plane, cl_uint num_entries, cl_uint *formats, cl_uint *count)
{
    return d3d11_query(context, flags, type, plane, num_entries, (DXGI_FORMAT *)formats, count);
}

static cl_int query_d3d10(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                          cl_uint plane, cl_uint num_entries, cl_uint *formats, cl_uint *count)
{
    (void)plane;
    return d3d10_query(context, flags, type, num_entries, (DXGI_FORMAT *)formats, count);
}

static cl_int query_dx9(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                        cl_uint plane, cl_uint num_entries, cl_uint *formats, cl_uint *count)
{
    return dx9_query(context, flags, type, plane, num_entries, (D3DFORMAT *)formats, count);
}

static void *extension_function(cl_platform_id platform, const char *name)
{
    void *fn = clGetExtensionFunctionAddressForPlatform(platform, name);

    REQUIRE(fn != NULL, "%s not found", name);
    CHECK(clGetExtensionFunctionAddress(name) == fn, "%s: both lookups agree", name);
    return fn;
}

static void check_extension_strings(cl_platform_id platform, cl_device_id device)
{
    static const char *names[] = {
        "cl_intel_sharing_format_query", "cl_intel_sharing_format_query_d3d10",
        "cl_intel_sharing_format_query_d3d11", "cl_intel_sharing_format_query_dx9"};
    char platform_list[8192] = "", device_list[8192] = "";

    clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(platform_list), platform_list, NULL);
    clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(device_list), device_list, NULL);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(test_has_word(platform_list, names[i]) && test_has_word(device_list, names[i]),
              "%s in the platform and device extension strings", names[i]);
}

/* The whole list (malloc'ed; count in *count), checking that a short array gets the first
 * entries and the full count. */
static cl_uint *full_list(query_fn query, cl_context context, cl_mem_flags flags,
                          cl_mem_object_type type, cl_uint plane, cl_uint *count, const char *what)
{
    cl_uint n = 0, again = 0, first = 0xdead;
    cl_uint *list;

    CHECK_ERR(query(context, flags, type, plane, 0, NULL, &n), CL_SUCCESS);
    list = calloc(n + 1, sizeof(*list));
    REQUIRE(list != NULL, "out of memory");
    if (n) {
        CHECK_ERR(query(context, flags, type, plane, n, list, &again), CL_SUCCESS);
        CHECK(again == n, "%s: count %u then %u", what, n, again);
        CHECK_ERR(query(context, flags, type, plane, 1, &first, &again), CL_SUCCESS);
        CHECK(first == list[0] && again == n, "%s: one entry: 0x%x (count %u), want 0x%x (%u)",
              what, first, again, list[0], n);
        /* The count may be omitted. */
        CHECK_ERR(query(context, flags, type, plane, 1, &first, NULL), CL_SUCCESS);
    }
    for (cl_uint i = 0; i < n; i++)
        for (cl_uint j = 0; j < i; j++)
            CHECK(list[i] != list[j], "%s: 0x%x listed twice", what, list[i]);
    printf("%s: type 0x%x plane %u flags 0x%llx: %u formats\n", what, (unsigned)type, plane,
           (unsigned long long)flags, n);
    *count = n;
    return list;
}

static bool listed(const cl_uint *list, cl_uint count, cl_uint format)
{
    for (cl_uint i = 0; i < count; i++)
        if (list[i] == format)
            return true;
    return false;
}

/* Whether the driver itself can back any CL format of the family's table for these flags
 * (test_driver_can_back). dxcl's answer is what creation accepts, which is what the driver can
 * back: a driver that lists nothing for some flags (a GPU with no CL_MEM_KERNEL_READ_AND_WRITE
 * formats) makes every list for them empty. */
static bool driver_backs_any(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                             bool is_dx9)
{
    size_t count = is_dx9 ? DX9_RGB_FORMAT_COUNT + 2 : TEST_FORMAT_COUNT;

    for (size_t i = 0; i < count; i++) {
        const cl_image_format format =
            is_dx9 ? (cl_image_format){dx9_formats[i].order, dx9_formats[i].type}
                   : (cl_image_format){test_formats[i].order, test_formats[i].type};
        if (test_driver_can_back(context, flags, type, &format))
            return true;
    }
    return false;
}

/* The Intel text's errors, on a context of the family (`context`) and one of another family
 * (`other`). */
static void check_errors(query_fn query, cl_context context, cl_context other, bool is_dx9,
                         const char *what)
{
    cl_uint formats[4], count = 0;

    CHECK_ERR(query(NULL, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, 0, NULL, &count),
              CL_INVALID_CONTEXT);
    CHECK_ERR(query(other, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, 0, NULL, &count),
              CL_INVALID_CONTEXT);
    CHECK_ERR(
        query((cl_context)formats, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, 0, NULL, &count),
        CL_INVALID_CONTEXT);
    CHECK_ERR(query(context, CL_MEM_USE_HOST_PTR, CL_MEM_OBJECT_IMAGE2D, 0, 0, NULL, &count),
              CL_INVALID_VALUE);
    CHECK_ERR(query(context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, 0,
                    NULL, &count),
              CL_INVALID_VALUE);
    CHECK_ERR(query(context, CL_MEM_READ_ONLY | CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE2D,
                    0, 0, NULL, &count),
              CL_INVALID_VALUE);
    CHECK_ERR(query(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_BUFFER, 0, 0, NULL, &count),
              CL_INVALID_VALUE);
    CHECK_ERR(query(context, CL_MEM_READ_WRITE, 0x7777, 0, 0, NULL, &count), CL_INVALID_VALUE);
    CHECK_ERR(query(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, 0, formats, &count),
              CL_INVALID_VALUE);
    CHECK_ERR(query(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, 4, NULL, NULL),
              CL_INVALID_VALUE);
    /* Every flag value the text allows; image types the family never makes list nothing. */
    static const cl_mem_flags flags[] = {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                         CL_MEM_KERNEL_READ_AND_WRITE};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        bool backs = driver_backs_any(context, flags[i], CL_MEM_OBJECT_IMAGE2D, is_dx9);
        count = 0;
        CHECK_ERR(query(context, flags[i], CL_MEM_OBJECT_IMAGE2D, 0, 0, NULL, &count), CL_SUCCESS);
        CHECK(backs ? count > 0 : count == 0,
              "%s: flags 0x%llx list %u formats; the driver can back %s of the table", what,
              (unsigned long long)flags[i], count, backs ? "some" : "none");
        if (!backs)
            printf("%s: the driver lists no format for flags 0x%llx: the query lists none\n", what,
                   (unsigned long long)flags[i]);
    }
    count = 99;
    CHECK_ERR(query(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE1D, 0, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(count == 0, "%s: 1D images list %u formats", what, count);
    count = 99;
    CHECK_ERR(query(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D_ARRAY, 0, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(count == 0, "%s: 2D array images list %u formats", what, count);
}

/* ---- D3D11 and D3D10 ---- */

/* Whether the API's device can make a texture of the format at all. */
static bool dxgi_device_makes(const struct test_api *api, void *device, DXGI_FORMAT format,
                              bool is_3d)
{
    UINT support = 0;
    UINT need = is_3d ? D3D11_FORMAT_SUPPORT_TEXTURE3D : D3D11_FORMAT_SUPPORT_TEXTURE2D;

    if (api == &api_d3d11_khr)
        ID3D11Device_CheckFormatSupport((ID3D11Device *)device, format, &support);
    else
        ID3D10Device_CheckFormatSupport((ID3D10Device *)device, format, &support);
    return (support & need) == need;
}

/* A texture of a format that is not listed: creating a CL image of it fails. */
static void dxgi_unlisted(struct interop_env *env, DXGI_FORMAT format, bool is_3d)
{
    struct test_texture_desc desc = {8, 4, 2, 1, 1, format, TEST_USAGE_DEFAULT, 1};
    void *texture = is_3d ? env->api->create_texture3d(env->d3d, &desc, NULL)
                          : env->api->create_texture2d(env->d3d, &desc, NULL);
    test_create_texture_fn create = is_3d ? env->cl->create_texture3d : env->cl->create_texture2d;
    cl_int err = CL_SUCCESS;
    cl_mem mem;

    if (!texture)
        return;
    mem = create(env->context, CL_MEM_READ_WRITE, texture, 0, &err);
    CHECK(mem == NULL && err != CL_SUCCESS, "%s: unlisted format %d (%s) created: %d",
          env->api->name, (int)format, is_3d ? "3D" : "2D", err);
    if (mem)
        clReleaseMemObject(mem);
    env->api->release(texture);
}

static void dxgi_family(const struct test_api *api, query_fn query, const struct test_api *other)
{
    struct interop_env env, other_env;
    uint32_t seed = 1;

    test_progress("format_query: %s", api->name);
    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    interop_open(&other_env, other, INTEROP_NO_USER_SYNC, 0);
    check_errors(query, env.context, other_env.context, false, api->name);
    interop_close(&other_env);

    for (int is_3d = 0; is_3d < 2; is_3d++) {
        cl_mem_object_type type = is_3d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D;
        cl_uint count, planar = 99;
        cl_uint *list =
            full_list(query, env.context, CL_MEM_READ_WRITE, type, 0, &count, api->name);

        CHECK(driver_backs_any(env.context, CL_MEM_READ_WRITE, type, false) ? count > 0
                                                                            : count == 0,
              "%s %s: %u listed", api->name, is_3d ? "3D" : "2D", count);
        for (cl_uint i = 0; i < count; i++) {
            const struct test_format *format = test_format_find((DXGI_FORMAT)list[i]);

            /* cl_intel_d3d11_nv12_media_sharing's planes: tests/test_d3d11_nv12.c. */
            if (api == &api_d3d11_khr && list[i] == DXGI_FORMAT_NV12 && !is_3d)
                continue;
            CHECK(format != NULL, "%s: listed format %u is not in the table", api->name, list[i]);
            if (format)
                suite_roundtrip_one(&env, format, is_3d, seed++);
        }
        for (size_t f = 0; f < TEST_FORMAT_COUNT; f++)
            if (!listed(list, count, test_formats[f].dxgi) &&
                dxgi_device_makes(api, env.d3d, test_formats[f].dxgi, is_3d))
                dxgi_unlisted(&env, test_formats[f].dxgi, is_3d);
        /* Outside the table. */
        CHECK(!listed(list, count, DXGI_FORMAT_B5G6R5_UNORM), "%s: B5G6R5 listed", api->name);
        if (dxgi_device_makes(api, env.d3d, DXGI_FORMAT_R10G10B10A2_UNORM, is_3d))
            dxgi_unlisted(&env, DXGI_FORMAT_R10G10B10A2_UNORM, is_3d);
        free(list);
        if (api == &api_d3d11_khr) {
            CHECK_ERR(query(env.context, CL_MEM_READ_WRITE, type, 1, 0, NULL, &planar), CL_SUCCESS);
            /* NV12's UV plane alone, where the device makes NV12 textures. */
            CHECK(planar == (!is_3d && dxgi_device_makes(api, env.d3d, DXGI_FORMAT_NV12, false)),
                  "%s: plane 1 lists %u formats", api->name, planar);
        }
    }
    interop_close(&env);
}

/* ---- DX9 media ---- */

static void dx9_unlisted(struct dx9_env *env, D3DFORMAT format)
{
    IDirect3DSurface9 *surface;
    cl_int err = CL_SUCCESS;
    cl_mem mem;

    if (FAILED(dx9_check_format(env->d3d, format, DX9_PLAIN)) ||
        FAILED(dx9_try_surface(env->d3d, 8, 4, format, DX9_PLAIN, &surface)))
        return;
    mem = dx9_create(env, false, surface, 0, CL_MEM_READ_WRITE, &err);
    CHECK(mem == NULL && err != CL_SUCCESS, "%s: unlisted format 0x%x created: %d",
          dx9_kind_name(env->kind), (unsigned)format, err);
    if (mem)
        clReleaseMemObject(mem);
    IDirect3DSurface9_Release(surface);
}

static void dx9_family(enum dx9_kind kind, cl_context other)
{
    struct dx9_env env;
    cl_uint counts[4], *lists[4];
    const char *name = dx9_kind_name(kind);

    test_progress("format_query: %s", name);
    dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
    check_errors(query_dx9, env.context, other, true, name);
    for (cl_uint plane = 0; plane < 4; plane++)
        lists[plane] = full_list(query_dx9, env.context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                 plane, &counts[plane], name);
    CHECK(driver_backs_any(env.context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, true)
              ? counts[0] > 0
              : counts[0] == 0,
          "%s: %u listed", name, counts[0]);
    /* Plane 1 lists the planar formats plane 0 lists; plane 2 those with three planes. */
    for (cl_uint plane = 1; plane < 4; plane++)
        for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT + 2; f++) {
            D3DFORMAT format = dx9_formats[f].format;
            bool want = dx9_plane_count(format) > plane && listed(lists[0], counts[0], format);

            CHECK(listed(lists[plane], counts[plane], format) == want,
                  "%s: %s on plane %u listed: %d", name, dx9_formats[f].name, plane, !want);
        }
    for (cl_uint i = 0; i < counts[0]; i++) {
        CHECK(dx9_format_find((D3DFORMAT)lists[0][i]) != NULL, "%s: 0x%x is not in the table", name,
              lists[0][i]);
        if (dx9_format_find((D3DFORMAT)lists[0][i]))
            dx9_roundtrip(&env, (D3DFORMAT)lists[0][i], DX9_PLAIN, 16, 8, false, 100 + i);
    }
    for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT + 2; f++)
        if (!listed(lists[0], counts[0], dx9_formats[f].format))
            dx9_unlisted(&env, dx9_formats[f].format);
    CHECK(!listed(lists[0], counts[0], D3DFMT_R5G6B5), "%s: R5G6B5 listed", name);
    dx9_unlisted(&env, D3DFMT_R5G6B5);
    for (cl_uint plane = 0; plane < 4; plane++)
        free(lists[plane]);

    cl_uint count = 99;
    CHECK_ERR(query_dx9(env.context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE3D, 0, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(count == 0, "%s: 3D images list %u formats", name, count);
    dx9_close(&env);

    /* A context made with the Intel property is of the same family. */
    dx9_open(&env, kind, true, DX9_NO_USER_SYNC);
    count = 0;
    CHECK_ERR(query_dx9(env.context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(driver_backs_any(env.context, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, true) ? count > 0
                                                                                       : count == 0,
          "%s (Intel property): %u listed for CL_MEM_READ_ONLY", name, count);
    dx9_close(&env);
}

int main(void)
{
    cl_platform_id platform = test_platform();
    struct interop_env d3d11;

    check_extension_strings(platform, test_device(platform));
    d3d11_query = extension_function(platform, "clGetSupportedD3D11TextureFormatsINTEL");
    d3d10_query = extension_function(platform, "clGetSupportedD3D10TextureFormatsINTEL");
    dx9_query = extension_function(platform, "clGetSupportedDX9MediaSurfaceFormatsINTEL");
    interop_load(&api_d3d11_khr, platform);
    interop_load(&api_d3d10_khr, platform);
    dx9_load(platform);

    dxgi_family(&api_d3d11_khr, query_d3d11, &api_d3d10_khr);
    dxgi_family(&api_d3d10_khr, query_d3d10, &api_d3d11_khr);
    interop_open(&d3d11, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++)
        dx9_family(kind, d3d11.context);
    interop_close(&d3d11);
    return test_finish("format_query");
}
