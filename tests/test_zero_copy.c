/* Zero-copy (docs/design.md): on a device that shares host memory (the driver says so with
 * CL_DEVICE_HOST_UNIFIED_MEMORY: PoCL, integrated GPUs), D3D1x buffers and 2D textures of
 * native formats use the staging resource's memory as driver storage, and ownership passes
 * between Direct3D and OpenCL by map and unmap; on any other device (a discrete GPU) every
 * object copies. This checks which objects get it, from the driver's answers, and that every
 * hand-over keeps the data exact either way: data Direct3D writes between acquires, releases
 * with and without writes, whole and partial writes, an object released while acquired; and
 * objects made every frame on the driver objects their last frame's objects left.
 * CTest runs it a second time with DXCL_ZERO_COPY=0, where every object copies. */
#include "interop.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

enum { W = 61, H = 17 }; /* odd sizes: the staging rows are padded */

static dxclGetTransferMode_fn transfer_mode;
static dxclGetBackingFormat_fn backing_format;
static dxclGetKeptDriverObject_fn kept_driver_object;

static bool zero_copy_allowed(void)
{
    char value[8];
    DWORD len = GetEnvironmentVariableA("DXCL_ZERO_COPY", value, sizeof(value));

    return !(len && !strcmp(value, "0"));
}

/* Zero-copy needs it allowed and a device that shares host memory (the context's one device). */
static bool zero_copy_expected(struct interop_env *env)
{
    bool unified = test_device_host_unified(env->device), allowed = zero_copy_allowed();

    printf("%s: the device %s host memory, DXCL_ZERO_COPY %s: native 2D images and buffers %s\n",
           env->api->name, unified ? "shares" : "does not share", allowed ? "unset" : "=0",
           unified && allowed ? "zero-copy" : "copy");
    return unified && allowed;
}

/* Whether dxcl backs the shared image with its own format (the driver has it). */
static bool native_format(cl_mem image, const char *what)
{
    cl_image_format driver = {0, 0};
    cl_bool emulated = CL_TRUE;

    CHECK_ERR(backing_format(image, &driver, &emulated), CL_SUCCESS);
    printf("%s: %s\n", what, emulated ? "emulated (the driver lacks the format)" : "native");
    return !emulated;
}

static void check_mode(cl_mem mem, cl_uint want, const char *what)
{
    cl_uint mode = 0;

    CHECK_ERR(transfer_mode(mem, &mode), CL_SUCCESS);
    CHECK(mode == want, "%s: transfer mode %u, want %u", what, mode, want);
}

static void check_modes(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const cl_uint fast = zero_copy_expected(env) ? DXCL_TRANSFER_ZERO_COPY : DXCL_TRANSFER_COPY;
    const struct test_texture_desc rgba = {W, H, 4, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    const struct test_texture_desc rg = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8_UNORM, 0, 1};
    struct test_texture t2, t3, trg;
    void *buffer = api->create_buffer(env->d3d, 1000, TEST_USAGE_DEFAULT, NULL);
    cl_int err;

    REQUIRE(buffer && test_texture_create(api, env->d3d, &t2, &rgba, false, 1) &&
                test_texture_create(api, env->d3d, &t3, &rgba, true, 2) &&
                test_texture_create(api, env->d3d, &trg, &rg, false, 3),
            "resources");
    cl_mem mb = env->cl->create_buffer(env->context, 0, buffer, &err);
    cl_mem m2 = env->cl->create_texture2d(env->context, 0, t2.resource, 0, &err);
    cl_mem m3 = env->cl->create_texture3d(env->context, 0, t3.resource, 0, &err);
    cl_mem mrg = env->cl->create_texture2d(env->context, 0, trg.resource, 0, &err);
    REQUIRE(mb && m2 && m3 && mrg, "%s: objects", api->name);
    check_mode(mb, fast, "buffer");
    /* Emulated formats always copy (the layouts differ). */
    check_mode(m2, native_format(m2, "2D RGBA8") ? fast : DXCL_TRANSFER_COPY, "2D RGBA8");
    check_mode(m3, DXCL_TRANSFER_COPY, "3D (staging memory moves on wined3d)");
    check_mode(mrg, native_format(mrg, "2D RG8") ? fast : DXCL_TRANSFER_COPY, "2D RG8");
    CHECK_ERR(transfer_mode(NULL, NULL), CL_INVALID_MEM_OBJECT);
    CHECK_ERR(kept_driver_object(NULL, NULL), CL_INVALID_MEM_OBJECT);
    cl_mem m[] = {mb, m2, m3, mrg};
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        clReleaseMemObject(m[i]);
    test_com_release(buffer);
    test_texture_free(api, &t2);
    test_texture_free(api, &t3);
    test_texture_free(api, &trg);
}

static void hand_overs(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc rgba = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, 0, 1};
    struct test_texture tex;
    size_t pitch = 0;
    void *host = (void *)1;
    cl_int err;

    REQUIRE(test_texture_create(api, env->d3d, &tex, &rgba, false, 9), "texture");
    cl_mem mem = env->cl->create_texture2d(env->context, 0, tex.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "object: %d", err);
    /* The spec's view: no host pointer, the flags given, tight pitches. */
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof(host), &host, NULL), CL_SUCCESS);
    CHECK(host == NULL, "CL_MEM_HOST_PTR %p", host);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_ROW_PITCH, sizeof(pitch), &pitch, NULL), CL_SUCCESS);
    CHECK(pitch == W * 4, "CL_IMAGE_ROW_PITCH %zu", pitch);
    interop_check_hand_overs(env, mem, &tex);
    test_texture_free(api, &tex);
}

/* Whether `mem` took a driver object kept from an earlier object (dxclGetKeptDriverObject). */
static bool was_kept(cl_mem mem)
{
    cl_bool kept = CL_FALSE;

    CHECK_ERR(kept_driver_object(mem, &kept), CL_SUCCESS);
    return kept == CL_TRUE;
}

/* A destructor callback's count (a watched object is never kept: the callback runs at its end). */
static void CL_CALLBACK destroyed(cl_mem mem, void *called)
{
    (void)mem;
    InterlockedIncrement((volatile LONG *)called);
}

/* Kept driver objects (docs/design.md, "Kept driver objects"): a frame's two objects, made and
 * dropped every frame (a read-only source and a write-only destination of one size), each take
 * the driver object the last frame's object of its access left, zero-copy or copied: their
 * handles come back (dxclGetKeptDriverObject says so; none with DXCL_KEEP_DRIVER_OBJECTS=0).
 * Then OpenCV's shape, one object at a time, a read-only and a write-only one in turn: each
 * access finds its own kept object on the one pooled staging copy. Every frame is exact both ways:
 * the source reads what Direct3D wrote this frame, and the destination, written whole by a copy on
 * even frames and in part on odd ones, reaches Direct3D with the rest of it as Direct3D wrote it
 * this frame (nothing of a kept object's last frame shows). An object with a destructor callback is
 * not kept: the callback runs. */
static void kept_objects(struct interop_env *env)
{
    const struct test_api *api = env->api;
    const struct test_texture_desc rgba = {W, H, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 1};
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    const size_t part_origin[3] = {3, 2, 0}, part_region[3] = {W / 2, H / 2, 1};
    unsigned char *got = malloc(W * H * 4), *want = malloc(W * H * 4), *part = malloc(W * H * 4);
    struct test_texture src, dst;
    cl_mem last[2] = {NULL, NULL};
    volatile LONG called = 0;
    cl_uint kept = 0;
    cl_int err;

    REQUIRE(got && want && part && test_texture_create(api, env->d3d, &src, &rgba, false, 61) &&
                test_texture_create(api, env->d3d, &dst, &rgba, false, 62),
            "textures");
    for (int frame = 0; frame < 12; frame++) {
        cl_mem mems[2] = {
            env->cl->create_texture2d(env->context, CL_MEM_READ_ONLY, src.resource, 0, &err),
            env->cl->create_texture2d(env->context, CL_MEM_WRITE_ONLY, dst.resource, 0, &err)};
        REQUIRE(mems[0] && mems[1], "frame %d: objects", frame);
        kept += was_kept(mems[0]) && was_kept(mems[1]);
        CHECK(!was_kept(mems[0]) || mems[0] == last[0], "a kept object's handle is its last one's");
        test_fill_bytes(src.data[0], W * H * 4, 700 + frame);
        test_fill_bytes(dst.data[0], W * H * 4, 800 + frame);
        test_fill_bytes(part, W * H * 4, 900 + frame);
        REQUIRE(api->write_subresource(src.resource, 0, src.data[0]) &&
                    api->write_subresource(dst.resource, 0, dst.data[0]),
                "frame %d: D3D writes", frame);
        CHECK_ERR(env->cl->acquire(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueReadImage(env->queue, mems[0], CL_TRUE, origin, region, 0, 0, got, 0,
                                     NULL, NULL),
                  CL_SUCCESS);
        if (!test_same_bytes(got, src.data[0], W * H * 4, "the source in OpenCL"))
            printf("frame %d: the source differs\n", frame);
        memcpy(want, dst.data[0], W * H * 4);
        if (frame % 2 == 0) {
            CHECK_ERR(clEnqueueCopyImage(env->queue, mems[0], mems[1], origin, origin, region, 0,
                                         NULL, NULL),
                      CL_SUCCESS);
            memcpy(want, src.data[0], W * H * 4);
        } else {
            CHECK_ERR(clEnqueueWriteImage(env->queue, mems[1], CL_FALSE, part_origin, part_region,
                                          part_region[0] * 4, 0, part, 0, NULL, NULL),
                      CL_SUCCESS);
            for (size_t y = 0; y < part_region[1]; y++)
                memcpy(want + ((part_origin[1] + y) * W + part_origin[0]) * 4,
                       part + y * part_region[0] * 4, part_region[0] * 4);
        }
        CHECK_ERR(env->cl->release(env->queue, 2, mems, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
        REQUIRE(api->read_subresource(dst.resource, 0, got), "D3D read");
        if (!test_same_bytes(got, want, W * H * 4, "the destination in Direct3D"))
            printf("frame %d (%s write) differs\n", frame, frame % 2 ? "a partial" : "a whole");
        for (int i = 0; i < 2; i++) {
            last[i] = mems[i];
            CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
        }
    }
    printf("%s: both driver objects kept for %u of 11 frames\n", api->name, kept);
    /* A teardown that found the driver busy finishes on the waiter, after the next frame's
     * creation: a frame or two of 11 may miss (none with DXCL_KEEP_DRIVER_OBJECTS=0). */
    CHECK(kept >= 8, "%s: both driver objects kept for %u of 11 frames (at least 8)", api->name,
          kept);

    /* OpenCV's shape: one object at a time, a read-only one of the source, then a write-only
     * one of the destination, each released before the next is made; each access gets its own
     * kept driver object back from the one pooled staging copy. */
    kept = 0;
    last[0] = last[1] = NULL;
    for (int frame = 0; frame < 12; frame++) {
        for (int i = 0; i < 2; i++) {
            cl_mem mem =
                env->cl->create_texture2d(env->context, i ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY,
                                          i ? dst.resource : src.resource, 0, &err);

            REQUIRE(mem, "frame %d: object %d: %d", frame, i, err);
            kept += was_kept(mem);
            if (i == 0) {
                test_fill_bytes(src.data[0], W * H * 4, 1000 + frame);
                REQUIRE(api->write_subresource(src.resource, 0, src.data[0]), "D3D write");
            }
            CHECK_ERR(env->cl->acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
            if (i == 0) {
                CHECK_ERR(clEnqueueReadImage(env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0,
                                             NULL, NULL),
                          CL_SUCCESS);
                if (!test_same_bytes(got, src.data[0], W * H * 4, "one at a time: the source"))
                    printf("frame %d: the source differs\n", frame);
            } else {
                test_fill_bytes(part, W * H * 4, 1100 + frame);
                CHECK_ERR(clEnqueueWriteImage(env->queue, mem, CL_TRUE, origin, region, W * 4, 0,
                                              part, 0, NULL, NULL),
                          CL_SUCCESS);
            }
            CHECK_ERR(env->cl->release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
            CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
            if (i == 1) {
                REQUIRE(api->read_subresource(dst.resource, 0, got), "D3D read");
                if (!test_same_bytes(got, part, W * H * 4, "one at a time: the destination"))
                    printf("frame %d: the destination differs\n", frame);
            }
            CHECK(!was_kept(mem) || !last[i] || mem == last[i],
                  "a kept object's handle is its last one's");
            last[i] = mem;
            CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
        }
    }
    printf("%s: one at a time, driver objects kept for %u of 24 objects\n", api->name, kept);
    /* With one kept driver object for all accesses (before): none. */
    CHECK(kept >= 18, "%s: one at a time, driver objects kept for %u of 24 objects (at least 18)",
          api->name, kept);

    cl_mem watched =
        env->cl->create_texture2d(env->context, CL_MEM_READ_ONLY, src.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "watched object: %d", err);
    CHECK_ERR(clSetMemObjectDestructorCallback(watched, destroyed, (void *)&called), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(watched), CL_SUCCESS);
    for (int i = 0; i < 500 && !InterlockedCompareExchange(&called, 0, 0); i++)
        Sleep(10);
    CHECK(called, "%s: the destructor callback of a watched object came", api->name);
    test_texture_free(api, &src);
    test_texture_free(api, &dst);
    free(got);
    free(want);
    free(part);
}

static void run(const struct test_api *api)
{
    struct interop_env env;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    check_modes(&env);
    hand_overs(&env);
    kept_objects(&env);
    interop_close(&env);
}

int main(void)
{
    /* The copy engine's staging memory is the subject here: the GPU path, which would take the 2D
     * textures where it is available (DXVK, the Vulkan layer, a device that imports memory: the
     * H100 rig), has test_gpu_path. */
    SetEnvironmentVariableA("DXCL_PATH", "engine");
    transfer_mode = (dxclGetTransferMode_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                           "dxclGetTransferMode");
    backing_format = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(
        test_dxcl_module(), "dxclGetBackingFormat");
    kept_driver_object = (dxclGetKeptDriverObject_fn)(void (*)(void))GetProcAddress(
        test_dxcl_module(), "dxclGetKeptDriverObject");
    REQUIRE(transfer_mode && backing_format && kept_driver_object,
            "dxclGetTransferMode, dxclGetBackingFormat and dxclGetKeptDriverObject");
    run(&api_d3d11_khr);
    run(&api_d3d10_khr);
    return test_finish("zero_copy");
}
