/* Fault injection (docs/reliability.md): dxcl's fault points made to fail through the
 * dxclFaultArm export, and once through the DXCL_FAULT environment variable in a child run.
 * For each: the call returns the spec's error (CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY for
 * the host allocations), no object is left half
 * acquired (a retry succeeds), and the Direct3D resource keeps its contents. */
#include "dx9util.h"
#include "interop.h"
#include "threads.h"
#include "core/test_hooks.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

static dxclFaultArm_fn fault_arm;
static unsigned injected;

static const struct test_texture_desc desc2d = {
    8, 8, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
#define TEX_BYTES (8 * 8 * 4)

static cl_uint fired_before;

static void arm(const char *point, cl_uint nth)
{
    REQUIRE(fault_arm(point, nth, &fired_before) == CL_SUCCESS, "dxclFaultArm(%s)", point);
}

/* Disarms `point` and checks it fired exactly once since arm(). */
static void disarm_check(const char *point)
{
    cl_uint fired = 0;

    CHECK_ERR(fault_arm(point, 0, &fired), CL_SUCCESS);
    CHECK(fired == fired_before + 1, "%s: %u faults fired, want %u", point, fired - fired_before,
          1u);
}

static void read_image(struct interop_env *env, cl_mem mem, void *out)
{
    size_t origin[3] = {0}, region[3] = {8, 8, 1};

    CHECK_ERR(
        clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL),
        CL_SUCCESS);
}

/* Two textures, two objects; `point` fails on its nth pass during an acquire. */
static void acquire_fault(struct interop_env *env, const char *point, cl_uint nth)
{
    const struct test_api *api = env->api;
    struct test_texture tex[2];
    cl_mem mems[2];
    unsigned char got[TEX_BYTES];
    cl_int err;

    for (int i = 0; i < 2; i++) {
        REQUIRE(test_texture_create(api, env->d3d, &tex[i], &desc2d, false, 40 + i), "texture");
        mems[i] =
            api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex[i].resource, 0, &err);
        REQUIRE(err == CL_SUCCESS, "create: %d", err);
    }
    arm(point, nth);
    CHECK_ERR(api->cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
    injected++;
    disarm_check(point);
    /* Nothing is acquired: a release is refused, a retry succeeds with the resource's data. */
    CHECK_ERR(api->cl->release(env->queue, 2, mems, 0, NULL, NULL), api->err_not_acquired);
    CHECK_ERR(api->cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 2; i++) {
        read_image(env, mems[i], got);
        test_same_bytes(got, tex[i].data[0], TEX_BYTES, point);
    }
    CHECK_ERR(api->cl->release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    for (int i = 0; i < 2; i++) {
        test_texture_intact(api, &tex[i], point);
        CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
        test_texture_free(api, &tex[i]);
    }
}

/* The download of a release fails: the objects stay acquired, the resource keeps its old
 * contents, and a second release writes the new ones. */
static void release_fault(struct interop_env *env)
{
    const struct test_api *api = env->api;
    struct test_texture tex;
    unsigned char fresh[TEX_BYTES], got[TEX_BYTES];
    size_t origin[3] = {0}, region[3] = {8, 8, 1};
    cl_int err;
    cl_mem mem;

    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc2d, false, 50), "texture");
    mem = api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "create: %d", err);
    test_fill_bytes(fresh, sizeof(fresh), 51);
    CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, fresh, 0, NULL, NULL),
        CL_SUCCESS);
    arm("download", 1);
    CHECK_ERR(api->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
    injected++;
    disarm_check("download");
    test_texture_intact(api, &tex, "resource after a failed release");
    /* Still acquired: usable, and a second acquire is refused. */
    CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), api->err_already_acquired);
    read_image(env, mem, got);
    test_same_bytes(got, fresh, sizeof(got), "object after a failed release");
    CHECK_ERR(api->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    CHECK(api->read_subresource(tex.resource, 0, got), "read back");
    test_same_bytes(got, fresh, sizeof(got), "resource after the retried release");
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_free(api, &tex);
}

/* Creating the staging copy fails: no object, and a retry creates one. */
static void staging_fault(struct interop_env *env)
{
    const struct test_api *api = env->api;
    struct test_texture tex;
    cl_int err;
    cl_mem mem;

    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc2d, false, 60), "texture");
    arm("staging", 1);
    mem = api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    CHECK(mem == NULL && err == CL_OUT_OF_RESOURCES, "create with a failing staging: %d", err);
    injected++;
    disarm_check("staging");
    mem = api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    CHECK(mem && err == CL_SUCCESS, "create after the fault: %d", err);
    if (mem)
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_intact(api, &tex, "staging");
    test_texture_free(api, &tex);
}

/* The format for the emulated case: one the driver lacks (R8G8 where it lacks CL_RG, as PoCL
 * does), asked of the driver; NULL when it has every table format. */
static const struct test_format *emulated_format(struct interop_env *env)
{
    const struct test_format *unlisted[TEST_FORMAT_COUNT];
    size_t n = test_unlisted_formats(env->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                     unlisted, TEST_FORMAT_COUNT);

    for (size_t i = 0; i < n; i++)
        if (unlisted[i]->dxgi == DXGI_FORMAT_R8G8_UNORM)
            return unlisted[i];
    return n ? unlisted[0] : NULL;
}

/* A host allocation fails: creating an object, and the first acquire of an emulated format
 * (its conversion record: the host's buffer, or the device conversion's buffers and kernels)
 * and of more objects than fit the call's inline arrays. Each gives
 * CL_OUT_OF_HOST_MEMORY, leaves nothing created or acquired, and a retry works. On a driver
 * with every table format there is no conversion buffer: the acquire of a native R8G8 object
 * must allocate nothing (the armed fault stays unfired). */
static void alloc_faults(struct interop_env *env)
{
    enum { MANY = 65 }; /* one more than acquire.c's MAX_TRANSFER */
    const struct test_format *emulated = emulated_format(env);
    const struct test_format *format =
        emulated ? emulated : test_format_find(DXGI_FORMAT_R8G8_UNORM);
    const struct test_texture_desc desc = {8, 8, 1, 1, 1, format->dxgi, TEST_USAGE_DEFAULT, 1};
    const size_t bytes = 8 * 8 * format->channels * format->channel_size;
    dxclGetBackingFormat_fn backing_of =
        (dxclGetBackingFormat_fn)(void *)GetProcAddress(test_dxcl_module(), "dxclGetBackingFormat");
    const struct test_api *api = env->api;
    struct test_texture tex;
    unsigned char got[8 * 8 * 16];
    cl_image_format backing;
    cl_bool is_emulated = CL_FALSE;
    cl_mem mem, many[MANY];
    cl_int err;

    if (emulated)
        printf("fault: alloc on the conversion buffer of %s, which the driver lacks\n",
               format->name);
    else
        printf("fault: the driver has every table format: no conversion buffer; a native %s "
               "acquire must allocate nothing\n",
               format->name);
    REQUIRE(backing_of, "dxcl exports no dxclGetBackingFormat");
    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc, false, 70), "%s texture", format->name);
    arm("alloc", 1);
    mem = api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    CHECK(mem == NULL && err == CL_OUT_OF_HOST_MEMORY, "create without memory: %d", err);
    injected++;
    disarm_check("alloc");
    mem = api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    REQUIRE(mem && err == CL_SUCCESS, "create after the fault: %d", err);
    CHECK_ERR(backing_of(mem, &backing, &is_emulated), CL_SUCCESS);
    CHECK(!is_emulated == !emulated, "%s: emulated %u, want %d (the driver lists it: %d)",
          format->name, is_emulated, emulated != NULL, emulated == NULL);

    arm("alloc", 1); /* the conversion buffer of the emulated backing */
    if (emulated) {
        CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_OUT_OF_HOST_MEMORY);
        injected++;
        disarm_check("alloc");
        CHECK_ERR(api->cl->release(env->queue, 1, &mem, 0, NULL, NULL), api->err_not_acquired);
        CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    } else {
        cl_uint fired = 0;
        CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(fault_arm("alloc", 0, &fired), CL_SUCCESS);
        CHECK(fired == fired_before, "a native acquire allocated: %u faults fired",
              fired - fired_before);
    }
    size_t origin[3] = {0}, region[3] = {8, 8, 1};
    CHECK_ERR(
        clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL),
        CL_SUCCESS);
    test_same_bytes(got, tex.data[0], bytes, "object after the failed acquire");
    CHECK_ERR(api->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    test_texture_intact(api, &tex, "alloc");

    struct test_texture texs[MANY];
    for (int i = 0; i < MANY; i++) {
        REQUIRE(test_texture_create(api, env->d3d, &texs[i], &desc2d, false, 80 + i), "texture %d",
                i);
        many[i] =
            api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, texs[i].resource, 0, &err);
        REQUIRE(err == CL_SUCCESS, "object %d: %d", i, err);
    }
    arm("alloc", 1); /* the call's arrays for more objects than it keeps inline */
    CHECK_ERR(api->cl->acquire(env->queue, MANY, many, 0, NULL, NULL), CL_OUT_OF_HOST_MEMORY);
    injected++;
    disarm_check("alloc");
    CHECK_ERR(api->cl->acquire(env->queue, MANY, many, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(api->cl->release(env->queue, MANY, many, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    for (int i = 0; i < MANY; i++) {
        test_texture_intact(api, &texs[i], "alloc, 65 objects");
        CHECK_ERR(clReleaseMemObject(many[i]), CL_SUCCESS);
        test_texture_free(api, &texs[i]);
    }
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_free(api, &tex);
}

/* The conversion of an emulated format on the device (docs/design.md, "Formats the driver
 * lacks") fails on its nth pass in a fresh context: 1 is the build of the conversion program,
 * 2-4 the upload's commands, 5-7 the download's. Each falls back to the host: the acquire and
 * release succeed and move the exact bytes both ways. */
static void convert_fault(const struct test_format *format, cl_uint nth)
{
    const struct test_texture_desc desc = {8, 8, 1, 1, 1, format->dxgi, TEST_USAGE_DEFAULT, 1};
    const size_t bytes = 8 * 8 * format->channels * format->channel_size;
    size_t origin[3] = {0}, region[3] = {8, 8, 1};
    unsigned char fresh[8 * 8 * 16], got[8 * 8 * 16];
    struct interop_env env;
    struct test_texture tex;
    char what[64];
    cl_int err;
    cl_mem mem;

    snprintf(what, sizeof(what), "convert:%u on %s", nth, format->name);
    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    REQUIRE(test_texture_create(env.api, env.d3d, &tex, &desc, false, 100 + nth), "texture");
    mem = env.cl->create_texture2d(env.context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "create: %d", err);
    arm("convert", nth);
    CHECK_ERR(env.cl->acquire(env.queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(env.queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(got, tex.data[0], bytes, what);
    test_fill_bytes(fresh, bytes, 110 + nth);
    CHECK_ERR(
        clEnqueueWriteImage(env.queue, mem, CL_TRUE, origin, region, 0, 0, fresh, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    injected++;
    disarm_check("convert");
    CHECK(env.api->read_subresource(tex.resource, 0, got), "read back");
    test_same_bytes(got, fresh, bytes, what);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_free(env.api, &tex);
    interop_close(&env);
}

static void convert_faults(void)
{
    struct interop_env env;
    const struct test_format *format;

    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    format = emulated_format(&env);
    interop_close(&env);
    if (!format) {
        printf("fault: the driver has every table format: nothing converts\n");
        return;
    }
    for (cl_uint nth = 1; nth <= 7; nth++)
        convert_fault(format, nth);
}

/* DX9: LockRect of the surface fails on acquire. */
static void dx9_lock_fault(void)
{
    struct dx9_env env;
    size_t bytes = dx9_content_bytes(DX9_FMT_NV12, 16, 16);
    unsigned char *want = malloc(bytes), *got = malloc(bytes), luma[16 * 16];
    size_t origin[3] = {0}, region[3] = {16, 16, 1};
    IDirect3DSurface9 *surface;
    cl_int err;
    cl_mem mem;

    dx9_open(&env, DX9_D3D9EX, false, DX9_NO_USER_SYNC);
    surface = dx9_surface(env.d3d, 16, 16, DX9_FMT_NV12, DX9_PLAIN);
    REQUIRE(surface, "NV12 surface");
    test_fill_bytes(want, bytes, 70);
    REQUIRE(dx9_write(surface, want, false), "DX9 write");
    mem = dx9_create(&env, false, surface, 0, CL_MEM_READ_WRITE, &err);
    REQUIRE(err == CL_SUCCESS, "DX9 create: %d", err);
    arm("lock", 1);
    CHECK_ERR(dx9_acquire(&env, false, 1, &mem, NULL), CL_OUT_OF_RESOURCES);
    injected++;
    disarm_check("lock");
    CHECK_ERR(dx9_release(&env, false, 1, &mem, NULL), CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR);
    CHECK_ERR(dx9_acquire(&env, false, 1, &mem, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueReadImage(env.queue, mem, CL_TRUE, origin, region, 0, 0, luma, 0, NULL, NULL),
        CL_SUCCESS);
    test_same_bytes(luma, want, sizeof(luma), "DX9 luma after a failed lock");
    CHECK_ERR(dx9_release(&env, false, 1, &mem, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    REQUIRE(dx9_read(surface, got, false), "DX9 read");
    test_same_bytes(got, want, bytes, "DX9 surface after a failed lock");
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    IDirect3DSurface9_Release(surface);
    dx9_close(&env);
    free(want);
    free(got);
}

/* Lazy uploads (docs/design.md): the Direct3D read and the upload happen at the first command
 * that needs the contents, so their faults fail that command. The object stays acquired with
 * its upload still pending: a retried command sees the resource's data, and the resource keeps
 * its contents. */
static void lazy_fault(struct interop_env *env, const char *point)
{
    const struct test_api *api = env->api;
    struct test_texture tex;
    unsigned char got[TEX_BYTES];
    size_t origin[3] = {0}, region[3] = {8, 8, 1};
    cl_int err;
    cl_mem mem;

    REQUIRE(test_texture_create(api, env->d3d, &tex, &desc2d, false, 90), "texture");
    mem = api->cl->create_texture2d(env->context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "create: %d", err);
    CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    arm(point, 1);
    CHECK_ERR(
        clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL),
        CL_OUT_OF_RESOURCES);
    injected++;
    disarm_check(point);
    CHECK_ERR(api->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), api->err_already_acquired);
    read_image(env, mem, got);
    test_same_bytes(got, tex.data[0], TEX_BYTES, point);
    CHECK_ERR(api->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    test_texture_intact(api, &tex, point);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    test_texture_free(api, &tex);
}

static int lazy_child(void)
{
    struct interop_env env;

    /* The copy engine's deferred uploads: where the GPU path would take these textures (DXVK on a
     * GPU that imports), the acquire hands them in (no first-touch upload to fail); its faults are
     * test_gpu_path's twin_fault, deferred (DXCL_GPU_LAZY=1) and not. */
    SetEnvironmentVariableA("DXCL_PATH", "engine");
    fault_arm = (dxclFaultArm_fn)(void *)GetProcAddress(test_dxcl_module(), "dxclFaultArm");
    REQUIRE(fault_arm, "dxcl exports no dxclFaultArm");
    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    lazy_fault(&env, "lock");
    lazy_fault(&env, "upload");
    interop_close(&env);
    interop_open(&env, &api_d3d10_khr, INTEROP_NO_USER_SYNC, 0);
    lazy_fault(&env, "lock");
    interop_close(&env);
    printf("fault: %u lazy-upload faults injected and survived\n", injected);
    return test_finish("fault lazy child");
}

/* The child run: DXCL_FAULT=staging:1 is set, so the first shared object cannot be made. */
static int child(void)
{
    struct interop_env env;
    struct test_texture tex;
    cl_int err;
    cl_mem mem;

    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    REQUIRE(test_texture_create(env.api, env.d3d, &tex, &desc2d, false, 80), "texture");
    mem = env.cl->create_texture2d(env.context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    CHECK(mem == NULL && err == CL_OUT_OF_RESOURCES, "DXCL_FAULT=staging:1: %d", err);
    mem = env.cl->create_texture2d(env.context, CL_MEM_READ_WRITE, tex.resource, 0, &err);
    CHECK(mem && err == CL_SUCCESS, "second create: %d", err);
    if (mem)
        clReleaseMemObject(mem);
    test_texture_free(env.api, &tex);
    interop_close(&env);
    return test_finish("fault child");
}

/* Runs this program again as `mode` with `name`=`value` in its environment; true on success. */
static bool run_child(const char *mode, const char *name, const char *value)
{
    DWORD code;

    SetEnvironmentVariableA(name, value);
    code = test_run_child(mode, INFINITE);
    SetEnvironmentVariableA(name, "0");
    return code == 0;
}

static void environment_fault(void)
{
    CHECK(run_child("child", "DXCL_FAULT", "staging:1"), "the child run with DXCL_FAULT failed");
    SetEnvironmentVariableA("DXCL_FAULT", NULL);
    injected++;
}

int main(int argc, char **argv)
{
    struct interop_env env;

    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    if (argc > 1 && !strcmp(argv[1], "lazy"))
        return lazy_child();
    /* The acquire-time cases need the acquire to read and upload (no lazy uploads); the child
     * "lazy" runs the faults of deferred uploads. */
    SetEnvironmentVariableA("DXCL_LAZY", "0");
    fault_arm = (dxclFaultArm_fn)(void *)GetProcAddress(test_dxcl_module(), "dxclFaultArm");
    REQUIRE(fault_arm, "dxcl exports no dxclFaultArm");
    CHECK_ERR(fault_arm("nowhere", 1, NULL), CL_INVALID_VALUE);

    interop_open(&env, &api_d3d11_khr, INTEROP_NO_USER_SYNC, 0);
    alloc_faults(&env);
    acquire_fault(&env, "lock", 1);
    acquire_fault(&env, "lock", 2);   /* the second object: the first is unlocked again */
    acquire_fault(&env, "upload", 2); /* the first upload is queued when the second fails */
    release_fault(&env);
    staging_fault(&env);
    interop_close(&env);
    interop_open(&env, &api_d3d10_khr, INTEROP_NO_USER_SYNC, 0);
    acquire_fault(&env, "upload", 1);
    staging_fault(&env);
    interop_close(&env);
    dx9_lock_fault();
    if (getenv("DXCL_CONVERT") && !strcmp(getenv("DXCL_CONVERT"), "device"))
        convert_faults();
    else
        printf("fault: the convert point needs DXCL_CONVERT=device (test_fault.device_convert)\n");
    environment_fault();
    CHECK(run_child("lazy", "DXCL_LAZY", "1"), "the lazy-upload fault child failed");
    injected += 3;
    printf("fault: %u faults injected and survived\n", injected);
    return test_finish("fault");
}
