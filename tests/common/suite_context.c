/* The entry points, clGetDeviceIDsFrom*, contexts with the API's device (properties, errors,
 * the PREFER_SHARED query). */
#include "suites.h"

#include <stdlib.h>

static char garbage[4096]; /* zeroed memory that is no OpenCL or COM object */
static int plain_int = 42; /* a pointer to it is no COM object either */

static void entry_points(const struct test_api *api, cl_platform_id platform)
{
    const char *prefixes[] = {api->fn_get_device_ids,   api->fn_create_buffer,
                              api->fn_create_texture2d, api->fn_create_texture3d,
                              api->fn_acquire,          api->fn_release};
    char extensions[8192] = "";
    cl_device_id device = test_device(platform);

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        char name[128], bad[160];
        void *for_platform, *global;

        snprintf(name, sizeof(name), "%s%s", prefixes[i], api->suffix);
        for_platform = clGetExtensionFunctionAddressForPlatform(platform, name);
        global = clGetExtensionFunctionAddress(name);
        CHECK(for_platform != NULL, "%s: ForPlatform(%s) is NULL", api->name, name);
        CHECK(global == for_platform, "%s: clGetExtensionFunctionAddress(%s) %p, ForPlatform %p",
              api->name, name, global, for_platform);
        /* Names that are close but not the same find nothing. */
        snprintf(bad, sizeof(bad), "%s%sX", prefixes[i], api->suffix);
        CHECK(clGetExtensionFunctionAddressForPlatform(platform, bad) == NULL, "%s found", bad);
        CHECK(clGetExtensionFunctionAddress(bad) == NULL, "%s found", bad);
        snprintf(bad, sizeof(bad), "%sEXT", prefixes[i]);
        CHECK(clGetExtensionFunctionAddressForPlatform(platform, bad) == NULL, "%s found", bad);
        CHECK(clGetExtensionFunctionAddress(bad) == NULL, "%s found", bad);
        snprintf(bad, sizeof(bad), "%s", prefixes[i]);
        CHECK(clGetExtensionFunctionAddressForPlatform(platform, bad) == NULL, "%s found", bad);
        CHECK(clGetExtensionFunctionAddress(bad) == NULL, "%s found", bad);
    }
    CHECK(clGetExtensionFunctionAddressForPlatform(platform, "") == NULL, "\"\" found");
    CHECK(clGetExtensionFunctionAddress("clNoSuchFunctionKHR") == NULL, "unknown name found");

    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(extensions) - 1,
                                extensions, NULL),
              CL_SUCCESS);
    CHECK(test_has_word(extensions, api->extension), "%s not among the platform extensions: %s",
          api->extension, extensions);
    memset(extensions, 0, sizeof(extensions));
    CHECK_ERR(
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(extensions) - 1, extensions, NULL),
        CL_SUCCESS);
    CHECK(test_has_word(extensions, api->extension), "%s not among the device extensions: %s",
          api->extension, extensions);
}

/* ---- clGetDeviceIDsFrom* ---- */

static bool contains(const cl_device_id *list, cl_uint count, cl_device_id device)
{
    for (cl_uint i = 0; i < count; i++)
        if (list[i] == device)
            return true;
    return false;
}

static void device_ids(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const test_get_device_ids_fn get = env->cl->get_device_ids;
    cl_device_id all[16], got[17];
    cl_uint n_all = 0, n;
    void *adapter = api->get_adapter(env->d3d);
    const cl_device_id sentinel = (cl_device_id)garbage;

    REQUIRE(adapter, "%s: no DXGI adapter", api->name);
    CHECK_ERR(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 16, all, &n_all), CL_SUCCESS);
    REQUIRE(n_all > 0 && n_all <= 16, "%u devices", n_all);

    /* Preferred and all, from the device and from its adapter: no device reports a LUID here,
     * so every device of the platform serves (docs: no LUIDs -> all devices). */
    for (int s = 0; s < 2; s++) {
        for (int set = 0; set < 2; set++) {
            cl_uint source = s ? api->source_adapter : api->source_device;
            void *object = s ? adapter : env->d3d;
            cl_uint set_token = set ? api->set_all : api->set_preferred;
            const char *what = s ? (set ? "all from the adapter" : "preferred from the adapter")
                                 : (set ? "all from the device" : "preferred from the device");

            n = 0;
            CHECK_ERR(get(env->platform, source, object, set_token, 0, NULL, &n), CL_SUCCESS);
            CHECK(n == n_all, "%s %s: %u devices, want %u", api->name, what, n, n_all);
            for (cl_uint i = 0; i < 17; i++)
                got[i] = sentinel;
            n = 0;
            CHECK_ERR(get(env->platform, source, object, set_token, n_all, got, &n), CL_SUCCESS);
            CHECK(n == n_all, "%s %s: %u devices", api->name, what, n);
            bool same = got[n_all] == sentinel;
            for (cl_uint i = 0; i < n_all; i++)
                same &= contains(all, n_all, got[i]) && !contains(got, i, got[i]);
            CHECK(same, "%s %s: not the platform's devices", api->name, what);
            /* Fewer entries than devices: that many are written; num_devices may be NULL. */
            for (cl_uint i = 0; i < 17; i++)
                got[i] = sentinel;
            CHECK_ERR(get(env->platform, source, object, set_token, 1, got, NULL), CL_SUCCESS);
            CHECK(contains(all, n_all, got[0]) && got[1] == sentinel, "%s %s with one entry",
                  api->name, what);
        }
    }

    /* Errors; the outputs stay untouched. */
    struct {
        cl_platform_id platform;
        cl_uint source, set, entries;
        bool devices, count;
        cl_int want;
        const char *what;
    } bad[] = {
        {NULL, api->source_device, api->set_all, 1, true, true, CL_INVALID_PLATFORM, "NULL"},
        {(cl_platform_id)garbage, api->source_device, api->set_all, 1, true, true,
         CL_INVALID_PLATFORM, "garbage platform"},
        {env->platform, 0, api->set_all, 1, true, true, CL_INVALID_VALUE, "source 0"},
        {env->platform, api->set_all, api->set_all, 1, true, true, CL_INVALID_VALUE,
         "a set token as source"},
        {env->platform, 0xffff, api->set_all, 1, true, true, CL_INVALID_VALUE, "source 0xffff"},
        {env->platform, api->source_device, 0, 1, true, true, CL_INVALID_VALUE, "set 0"},
        {env->platform, api->source_device, api->source_adapter, 1, true, true, CL_INVALID_VALUE,
         "a source token as set"},
        {env->platform, api->source_device, 0xffff, 1, true, true, CL_INVALID_VALUE, "set 0xffff"},
        {env->platform, api->source_device, api->set_all, 0, true, true, CL_INVALID_VALUE,
         "num_entries 0 with devices"},
        {env->platform, api->source_device, api->set_all, 1, false, false, CL_INVALID_VALUE,
         "both outputs NULL"},
        {env->platform, api->source_device, api->set_preferred, 0, false, false, CL_INVALID_VALUE,
         "both outputs NULL, preferred"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        got[0] = sentinel;
        n = 1234;
        CHECK_ERR(get(bad[i].platform, bad[i].source, env->d3d, bad[i].set, bad[i].entries,
                      bad[i].devices ? got : NULL, bad[i].count ? &n : NULL),
                  bad[i].want);
        CHECK(got[0] == sentinel && n == 1234, "%s: %s: outputs written", api->name, bad[i].what);
    }
    api->release(adapter);
}

/* ---- Contexts ---- */

static void check_properties(cl_context context, const cl_context_properties *want,
                             const char *what)
{
    cl_context_properties got[32];
    size_t size = 0, n = 0;

    while (want[n])
        n += 2;
    n++;
    memset(got, 0xcc, sizeof(got));
    CHECK_ERR(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, sizeof(got), got, &size),
              CL_SUCCESS);
    CHECK(size == n * sizeof(cl_context_properties),
          "%s: CL_CONTEXT_PROPERTIES size %zu, "
          "want %zu",
          what, size, n * sizeof(cl_context_properties));
    CHECK(!memcmp(got, want, n * sizeof(cl_context_properties)),
          "%s: CL_CONTEXT_PROPERTIES differs from the list given", what);
}

/* The context is real: one device, and shared objects can be made in it. */
static void check_usable(struct interop_env *env, cl_context context, const char *what)
{
    cl_uint count = 0;
    cl_device_id device = NULL;
    unsigned char data[16] = {1};
    void *buffer = env->api->create_buffer(env->d3d, sizeof(data), TEST_USAGE_DEFAULT, data);
    cl_int err;

    CHECK_ERR(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof(count), &count, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof(device), &device, NULL),
              CL_SUCCESS);
    CHECK(count == 1 && device == env->device, "%s: %u devices, first %p", what, count,
          (void *)device);
    cl_mem mem = env->cl->create_buffer(context, 0, buffer, &err);
    CHECK(mem && err == CL_SUCCESS, "%s: shared buffer: %d", what, err);
    if (mem)
        clReleaseMemObject(mem);
    env->api->release(buffer);
}

static void check_prefer_shared(struct interop_env *env, cl_context context, cl_int want,
                                const char *what)
{
    cl_bool value = 7;
    size_t size = 0;

    CHECK_ERR(
        clGetContextInfo(context, env->api->prefer_shared_query, sizeof(value), &value, &size),
        want);
    if (want == CL_SUCCESS)
        CHECK(value == CL_FALSE && size == sizeof(cl_bool), "%s: PREFER_SHARED %u (size %zu)", what,
              value, size);
    else
        CHECK(value == 7, "%s: a refused query wrote its output", what);
}

static void context_creation(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const cl_context_properties platform = (cl_context_properties)env->platform;
    const cl_context_properties d3d = (cl_context_properties)env->d3d;
    const cl_context_properties dev = api->context_property;
    const ULONG base = api->refcount(env->d3d);
    cl_int err;

    const cl_context_properties lists[][9] = {
        {dev, d3d, 0},
        {CL_CONTEXT_PLATFORM, platform, dev, d3d, 0},
        {CL_CONTEXT_PLATFORM, platform, dev, d3d, CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0},
        {CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, dev, d3d, CL_CONTEXT_PLATFORM, platform, 0},
        {dev, d3d, CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, CL_CONTEXT_PLATFORM, platform, 0},
    };
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
        char what[96];
        cl_context ctx;

        snprintf(what, sizeof(what), "%s: clCreateContext with list %zu", api->name, i);
        ctx = clCreateContext(lists[i], 1, &env->device, NULL, NULL, &err);
        CHECK(ctx && err == CL_SUCCESS, "%s: %d", what, err);
        if (ctx) {
            check_properties(ctx, lists[i], what);
            check_usable(env, ctx, what);
            check_prefer_shared(env, ctx, CL_SUCCESS, what);
            /* The context's reference, and one per staging resource it keeps for reuse. */
            ULONG want = base + 1 + interop_pooled_staging(ctx);
            CHECK(api->refcount(env->d3d) == want, "%s: device count %lu, want %lu", what,
                  api->refcount(env->d3d), want);
            clReleaseContext(ctx);
        }
        bool has_platform = false;
        for (size_t j = 0; lists[i][j]; j += 2)
            has_platform |= lists[i][j] == CL_CONTEXT_PLATFORM;
        if (!has_platform)
            continue; /* clCreateContextFromType: the platform is named in the list */
        snprintf(what, sizeof(what), "%s: clCreateContextFromType with list %zu", api->name, i);
        ctx = clCreateContextFromType(lists[i], CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
        CHECK(ctx && err == CL_SUCCESS, "%s: %d", what, err);
        if (ctx) {
            check_properties(ctx, lists[i], what);
            check_usable(env, ctx, what);
            clReleaseContext(ctx);
        }
    }
    CHECK(api->refcount(env->d3d) == base, "device count %lu after the contexts, want %lu",
          api->refcount(env->d3d), base);

    /* The API's device property with NULL (its default): a context without interop. */
    {
        const cl_context_properties list[] = {CL_CONTEXT_PLATFORM, platform, dev, 0, 0};
        cl_context ctx = clCreateContext(list, 1, &env->device, NULL, NULL, &err);
        CHECK(ctx && err == CL_SUCCESS, "%s: device property NULL: %d", api->name, err);
        if (ctx) {
            check_properties(ctx, list, "device property NULL");
            check_prefer_shared(env, ctx, CL_INVALID_VALUE, "device property NULL");
            clReleaseContext(ctx);
        }
    }

    /* Errors: no context, and no reference left on the device. */
    IDXGIFactory *factory = NULL;
    REQUIRE(SUCCEEDED(CreateDXGIFactory(&IID_IDXGIFactory, (void **)&factory)), "DXGI factory");
    struct test_texture_desc desc = {4, 4, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT,
                                     1};
    struct test_texture tex;
    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, false, 1), "texture");
    void *other = api->create_other_device();
    REQUIRE(other, "%s: device of the other API", api->name);
    const ULONG other_base = api->refcount(other);
    const ULONG with_resources = api->refcount(env->d3d);
    const cl_context_properties o = api->other_context_property;
    const cl_context_properties od = (cl_context_properties)other;

    const struct {
        cl_context_properties list[9];
        cl_int want;
        const char *what;
    } bad[] = {
        {{CL_CONTEXT_PLATFORM, platform, dev, (cl_context_properties)factory, 0},
         api->err_invalid_device,
         "an IDXGIFactory as device"},
        {{CL_CONTEXT_PLATFORM, platform, dev, (cl_context_properties)tex.resource, 0},
         api->err_invalid_device,
         "a texture as device"},
        {{CL_CONTEXT_PLATFORM, platform, dev, (cl_context_properties)&plain_int, 0},
         api->err_invalid_device,
         "a pointer to an int as device"},
        {{CL_CONTEXT_PLATFORM, platform, dev, (cl_context_properties)garbage, 0},
         api->err_invalid_device,
         "zeroed memory as device"},
        {{CL_CONTEXT_PLATFORM, platform, dev, d3d, o, od, 0},
         CL_INVALID_OPERATION,
         "the device and another API's device"},
        {{CL_CONTEXT_PLATFORM, platform, o, od, dev, d3d, 0},
         CL_INVALID_OPERATION,
         "another API's device and the device"},
        {{CL_CONTEXT_PLATFORM, platform, dev, d3d, CL_GL_CONTEXT_KHR, 1, 0},
         CL_INVALID_OPERATION,
         "the device and CL_GL_CONTEXT_KHR"},
        {{CL_CONTEXT_PLATFORM, platform, CL_GL_CONTEXT_KHR, 1, dev, d3d, 0},
         CL_INVALID_OPERATION,
         "CL_GL_CONTEXT_KHR and the device"},
        {{CL_CONTEXT_PLATFORM, platform, dev, d3d, dev, d3d, 0},
         CL_INVALID_PROPERTY,
         "the device property twice"},
        {{CL_CONTEXT_PLATFORM, platform, dev, d3d, CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE,
          CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0},
         CL_INVALID_PROPERTY,
         "USER_SYNC twice"},
        {{CL_CONTEXT_PLATFORM, platform, dev, d3d, CL_CONTEXT_INTEROP_USER_SYNC, 5, 0},
         CL_INVALID_PROPERTY,
         "USER_SYNC 5"},
        {{CL_CONTEXT_PLATFORM, platform, dev, d3d, CL_CONTEXT_INTEROP_USER_SYNC, -1, 0},
         CL_INVALID_PROPERTY,
         "USER_SYNC -1"},
        {{CL_CONTEXT_PLATFORM, platform, CL_CONTEXT_INTEROP_USER_SYNC, 5, 0},
         CL_INVALID_PROPERTY,
         "USER_SYNC 5 without a device"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cl_context ctx = clCreateContext(bad[i].list, 1, &env->device, NULL, NULL, &err);
        CHECK(!ctx && err == bad[i].want, "%s: clCreateContext with %s: %p, %d, want %d", api->name,
              bad[i].what, (void *)ctx, err, bad[i].want);
        if (ctx)
            clReleaseContext(ctx);
        ctx = clCreateContextFromType(bad[i].list, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
        CHECK(!ctx && err == bad[i].want, "%s: clCreateContextFromType with %s: %p, %d, want %d",
              api->name, bad[i].what, (void *)ctx, err, bad[i].want);
        if (ctx)
            clReleaseContext(ctx);
        ctx = clCreateContext(bad[i].list, 1, &env->device, NULL, NULL, NULL);
        CHECK(!ctx, "%s: %s without errcode_ret: %p", api->name, bad[i].what, (void *)ctx);
        CHECK(api->refcount(env->d3d) == with_resources && api->refcount(other) == other_base,
              "%s: %s: device counts %lu and %lu, want %lu and %lu", api->name, bad[i].what,
              api->refcount(env->d3d), api->refcount(other), with_resources, other_base);
    }
    api->release(other);
    test_texture_free(api, &tex);
    IDXGIFactory_Release(factory);
}

static void prefer_shared(struct interop_env *env)
{
    cl_context_properties sync_only[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
    cl_context plain, sync;
    cl_int err;
    cl_bool value = 7;

    check_prefer_shared(env, env->context, CL_SUCCESS, "the API's context");
    CHECK_ERR(clGetContextInfo(env->context, env->api->prefer_shared_query, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetContextInfo(env->context, env->api->prefer_shared_query, 0, &value, NULL),
              CL_INVALID_VALUE);
    plain = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    check_prefer_shared(env, plain, CL_INVALID_VALUE, "a plain context");
    clReleaseContext(plain);
    sync = clCreateContext(sync_only, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "USER_SYNC context: %d", err);
    check_prefer_shared(env, sync, CL_INVALID_VALUE, "a USER_SYNC-only context");
    check_properties(sync, sync_only, "a USER_SYNC-only context");
    clReleaseContext(sync);
    check_prefer_shared(env, (cl_context)garbage, CL_INVALID_CONTEXT, "a garbage context");
}

void suite_context(const struct test_api *api)
{
    struct interop_env env;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    entry_points(api, env.platform);
    device_ids(&env);
    context_creation(&env);
    prefer_shared(&env);
    interop_close(&env);
}
