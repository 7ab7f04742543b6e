/* Staging that moves (docs/design.md, "Zero-copy"). A zero-copy object's driver storage is its
 * staging resource's mapped memory; Direct3D may map that staging resource at another address
 * later (DXVK does at times). The fault point `move` (docs/reliability.md) makes dxcl's next
 * staging map hand out another address deterministically, on wined3d and on DXVK alike: a
 * temporary copy of the mapping, as a Direct3D that maps through other memory would. For D3D11
 * and D3D10, buffers and 2D textures, objects are acquired, read, written and released across
 * forced moves: at the acquire or the first command (lazy uploads on here, off in a child run),
 * with the driver object resting mapped (its last release wrote) or not, with a whole overwrite
 * as the first command, two objects in one acquire, an object released while acquired after its
 * move. Every call succeeds; OpenCL reads exactly what Direct3D holds and Direct3D gets exactly
 * what OpenCL wrote, every cycle. dxclGetTransferMode reports zero-copy before the move (where
 * the device shares host memory) and copying after; a staging resource that moved is no
 * object's storage again: neither from the staging pool nor when it moved during the creation
 * check. */
#include "interop.h"
#include "core/test_hooks.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

enum { W = 61, H = 17, BYTES = W * H * 4 }; /* odd sizes: the staging rows are padded */

static dxclGetTransferMode_fn transfer_mode;
static dxclFaultArm_fn fault_arm;
static const char *run_name = "lazy uploads"; /* or "eager" in the child run */
static unsigned moves_forced;

/* One shared object and what its Direct3D resource must hold. */
struct shared {
    char what[96];
    bool image;
    UINT width, height; /* images: pixels of 4 bytes; buffers: bytes in width, height 1 */
    size_t bytes;
    void *resource;
    cl_mem mem;
    unsigned char *model;
};

static bool zero_copy_expected(struct interop_env *env)
{
    char value[8];
    DWORD len = GetEnvironmentVariableA("DXCL_ZERO_COPY", value, sizeof(value));

    return test_device_host_unified(env->device) && !(len && !strcmp(value, "0"));
}

static void make_shared(struct interop_env *env, struct shared *s, bool image, UINT width,
                        UINT height, uint32_t seed)
{
    const struct test_api *api = env->api;
    cl_int err;

    *s = (struct shared){.image = image, .width = width, .height = image ? height : 1};
    s->bytes = image ? (size_t)width * height * 4 : width;
    snprintf(s->what, sizeof(s->what), "%s %s %s %ux%u", run_name, api->name,
             image ? "2D RGBA8" : "buffer", width, s->height);
    REQUIRE((s->model = malloc(s->bytes)), "memory");
    test_fill_bytes(s->model, s->bytes, seed);
    if (image) {
        const struct test_texture_desc desc = {
            width, height, 1, 1, 1, DXGI_FORMAT_R8G8B8A8_UINT, TEST_USAGE_DEFAULT, 1};
        const void *data[1] = {s->model};
        s->resource = api->create_texture2d(env->d3d, &desc, data);
        REQUIRE(s->resource, "%s: texture", s->what);
        s->mem = env->cl->create_texture2d(env->context, 0, s->resource, 0, &err);
    } else {
        s->resource = api->create_buffer(env->d3d, width, TEST_USAGE_DEFAULT, s->model);
        REQUIRE(s->resource, "%s: buffer", s->what);
        s->mem = env->cl->create_buffer(env->context, 0, s->resource, &err);
    }
    REQUIRE(err == CL_SUCCESS && s->mem, "%s: object (%d)", s->what, err);
}

static void free_shared(struct interop_env *env, struct shared *s)
{
    if (s->mem)
        CHECK_ERR(clReleaseMemObject(s->mem), CL_SUCCESS);
    env->api->release(s->resource);
    free(s->model);
}

static cl_uint mode_of(const struct shared *s)
{
    cl_uint mode = ~0u;

    CHECK_ERR(transfer_mode(s->mem, &mode), CL_SUCCESS);
    return mode;
}

static void check_mode(const struct shared *s, cl_uint want, const char *when)
{
    cl_uint mode = mode_of(s);

    CHECK(mode == want, "%s %s: transfer mode %s, want %s", s->what, when,
          mode == DXCL_TRANSFER_ZERO_COPY ? "zero-copy" : "copy",
          want == DXCL_TRANSFER_ZERO_COPY ? "zero-copy" : "copy");
}

/* Direct3D replaces the resource's contents (and the model). */
static void d3d_write(struct interop_env *env, struct shared *s, uint32_t seed)
{
    test_fill_bytes(s->model, s->bytes, seed);
    REQUIRE(env->api->write_subresource(s->resource, 0, s->model), "%s: Direct3D write", s->what);
}

/* Direct3D holds the model. */
static void d3d_check(struct interop_env *env, struct shared *s, const char *when)
{
    unsigned char *got = malloc(s->bytes);
    char what[160];

    REQUIRE(got, "memory");
    snprintf(what, sizeof(what), "%s: Direct3D %s", s->what, when);
    CHECK(env->api->read_subresource(s->resource, 0, got), "%s: read back", what);
    test_same_bytes(got, s->model, s->bytes, what);
    free(got);
}

/* OpenCL reads the model. */
static void cl_check(struct interop_env *env, struct shared *s, const char *when)
{
    unsigned char *got = malloc(s->bytes);
    const size_t origin[3] = {0, 0, 0}, region[3] = {s->width, s->height, 1};
    char what[160];

    REQUIRE(got, "memory");
    snprintf(what, sizeof(what), "%s: OpenCL %s", s->what, when);
    if (s->image)
        CHECK_ERR(clEnqueueReadImage(env->queue, s->mem, CL_TRUE, origin, region, 0, 0, got, 0,
                                     NULL, NULL),
                  CL_SUCCESS);
    else
        CHECK_ERR(clEnqueueReadBuffer(env->queue, s->mem, CL_TRUE, 0, s->bytes, got, 0, NULL, NULL),
                  CL_SUCCESS);
    test_same_bytes(got, s->model, s->bytes, what);
    free(got);
}

/* OpenCL writes part of the object (a command that needs its Direct3D contents first), or all
 * of it (one that needs none), and the model follows. */
static void cl_write(struct interop_env *env, struct shared *s, bool whole, uint32_t seed)
{
    unsigned char *data;
    size_t x0 = whole ? 0 : 3, y0 = whole ? 0 : s->height / 3;
    size_t w = whole ? s->width : s->width / 2, h = whole ? s->height : s->height / 2 + 1;
    size_t pixel = s->image ? 4 : 1;

    REQUIRE((data = malloc(w * h * pixel)), "memory");
    test_fill_bytes(data, w * h * pixel, seed);
    if (s->image) {
        const size_t origin[3] = {x0, y0, 0}, region[3] = {w, h, 1};
        CHECK_ERR(clEnqueueWriteImage(env->queue, s->mem, CL_TRUE, origin, region, w * 4, 0, data,
                                      0, NULL, NULL),
                  CL_SUCCESS);
    } else {
        CHECK_ERR(clEnqueueWriteBuffer(env->queue, s->mem, CL_TRUE, x0, w, data, 0, NULL, NULL),
                  CL_SUCCESS);
    }
    for (size_t y = 0; y < h; y++)
        memcpy(s->model + ((y0 + y) * s->width + x0) * pixel, data + y * w * pixel, w * pixel);
    free(data);
}

static void acquire(struct interop_env *env, struct shared **s, cl_uint count)
{
    cl_mem mems[2];

    for (cl_uint i = 0; i < count; i++)
        mems[i] = s[i]->mem;
    CHECK_ERR(env->cl->acquire(env->queue, count, mems, 0, NULL, NULL), CL_SUCCESS);
}

static void release(struct interop_env *env, struct shared **s, cl_uint count)
{
    cl_mem mems[2];

    for (cl_uint i = 0; i < count; i++)
        mems[i] = s[i]->mem;
    CHECK_ERR(env->cl->release(env->queue, count, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
}

static cl_uint fired_so_far;

/* The `nth` staging map from now hands out another address. */
static void force_move(cl_uint nth)
{
    REQUIRE(fault_arm("move", nth, &fired_so_far) == CL_SUCCESS, "dxclFaultArm(move)");
}

/* The move was forced exactly once since force_move (and the point is disarmed). */
static void check_forced(const char *what)
{
    cl_uint fired = 0;

    CHECK_ERR(fault_arm("move", 0, &fired), CL_SUCCESS);
    CHECK(fired == fired_so_far + 1, "%s: the move fired %u times, want 1", what,
          fired - fired_so_far);
    moves_forced++;
}

/* One cycle: Direct3D writes, acquire, OpenCL reads, writes part (write_part), all
 * (write_whole, as the first command) or nothing, release, Direct3D holds the result. */
static void cycle(struct interop_env *env, struct shared *s, uint32_t seed, bool write_part,
                  bool write_whole, bool move, const char *when)
{
    d3d_write(env, s, seed);
    if (move)
        force_move(1);
    acquire(env, &s, 1);
    if (write_whole) {
        cl_write(env, s, true, seed + 1);
    } else {
        cl_check(env, s, when);
        if (write_part)
            cl_write(env, s, false, seed + 1);
    }
    release(env, &s, 1);
    if (move)
        check_forced(s->what);
    d3d_check(env, s, when);
}

/* A move at an acquire, after a release that wrote (the driver object rests mapped) or not;
 * then cycles of every kind on the copying object, and a release while acquired. */
static void move_after_release(struct interop_env *env, bool image, UINT width, bool rest_mapped,
                               uint32_t seed)
{
    const cl_uint fast = zero_copy_expected(env) ? DXCL_TRANSFER_ZERO_COPY : DXCL_TRANSFER_COPY;
    struct shared s;

    make_shared(env, &s, image, width, H, seed);
    strncat(s.what, rest_mapped ? ", resting mapped" : ", resting unmapped",
            sizeof(s.what) - strlen(s.what) - 1);
    check_mode(&s, fast, "before the move");
    cycle(env, &s, seed + 10, rest_mapped, false, false, "before the move");
    cycle(env, &s, seed + 20, false, false, false, "before the move, again");
    check_mode(&s, fast, "before the move");
    cycle(env, &s, seed + 30, true, false, true, "at the move");
    check_mode(&s, DXCL_TRANSFER_COPY, "after the move");
    cycle(env, &s, seed + 40, true, false, false, "after the move (part written)");
    cycle(env, &s, seed + 50, false, true, false, "after the move (overwritten)");
    cycle(env, &s, seed + 60, false, false, false, "after the move (not written)");
    cycle(env, &s, seed + 70, false, false, true, "a second move");
    check_mode(&s, DXCL_TRANSFER_COPY, "after a second move");
    /* Released while acquired after its move: Direct3D keeps what it had. */
    d3d_write(env, &s, seed + 80);
    acquire(env, (struct shared *[]){&s}, 1);
    cl_write(env, &s, false, seed + 81);
    test_fill_bytes(s.model, s.bytes, seed + 80); /* the write above is dropped */
    CHECK_ERR(clReleaseMemObject(s.mem), CL_SUCCESS);
    s.mem = NULL;
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    d3d_check(env, &s, "released while acquired after the move");
    free_shared(env, &s);
}

/* The move at an acquire whose first command overwrites the whole object. */
static void move_at_overwrite(struct interop_env *env, bool image, UINT width, uint32_t seed)
{
    struct shared s;

    make_shared(env, &s, image, width, H, seed);
    strncat(s.what, ", overwritten", sizeof(s.what) - strlen(s.what) - 1);
    cycle(env, &s, seed + 10, true, false, false, "before the move");
    cycle(env, &s, seed + 20, false, true, true, "overwritten at the move");
    check_mode(&s, DXCL_TRANSFER_COPY, "after the move");
    cycle(env, &s, seed + 30, true, false, false, "after the move");
    free_shared(env, &s);
}

/* Two objects in one acquire, the second staging map moving: one object moves, the other keeps
 * its mode; both stay exact. */
static void move_one_of_two(struct interop_env *env, bool image, UINT width, uint32_t seed)
{
    const cl_uint fast = zero_copy_expected(env) ? DXCL_TRANSFER_ZERO_COPY : DXCL_TRANSFER_COPY;
    struct shared a, b, *both[2] = {&a, &b};
    unsigned copying = 0;

    make_shared(env, &a, image, width, H, seed);
    make_shared(env, &b, image, width, H, seed + 1);
    strncat(b.what, " (second)", sizeof(b.what) - strlen(b.what) - 1);
    for (int round = 0; round < 3; round++) {
        d3d_write(env, &a, seed + 10 + round);
        d3d_write(env, &b, seed + 20 + round);
        if (round == 1)
            force_move(2);
        acquire(env, both, 2);
        cl_check(env, &a, "two objects");
        cl_check(env, &b, "two objects");
        cl_write(env, &a, false, seed + 30 + round);
        cl_write(env, &b, false, seed + 40 + round);
        release(env, both, 2);
        if (round == 1)
            check_forced(a.what);
        d3d_check(env, &a, "two objects");
        d3d_check(env, &b, "two objects");
    }
    copying = (mode_of(&a) == DXCL_TRANSFER_COPY) + (mode_of(&b) == DXCL_TRANSFER_COPY);
    CHECK(copying == (fast == DXCL_TRANSFER_ZERO_COPY ? 1u : 2u),
          "%s: %u of two objects copy after one moved", a.what, copying);
    free_shared(env, &a);
    free_shared(env, &b);
}

/* A staging resource that moved is never storage again: the next object of the same
 * description gets it from the pool and copies; one whose creation check saw a move copies.
 * Runs first on its context, with sizes of its own, so that the pool has room and holds no
 * other staging resource of the description. */
static void moved_staging_reused(struct interop_env *env, bool image, UINT width, uint32_t seed)
{
    const bool fast = zero_copy_expected(env);
    struct shared s, next, probed;
    ULONG pooled = interop_pooled_staging(env->context);

    make_shared(env, &s, image, width, H, seed);
    check_mode(&s, fast ? DXCL_TRANSFER_ZERO_COPY : DXCL_TRANSFER_COPY, "before the move");
    cycle(env, &s, seed + 10, true, false, true, "at the move");
    CHECK_ERR(clReleaseMemObject(s.mem), CL_SUCCESS);
    s.mem = NULL;
    /* The staging resource is pooled when the teardown is done, a moment later (docs/design.md,
     * "Threads"). */
    test_refcount_settled((IUnknown *)s.resource, 1);
    CHECK(interop_pooled_staging(env->context) > pooled, "%s: the staging resource is pooled",
          s.what);
    make_shared(env, &next, image, width, H, seed + 100);
    strncat(next.what, " (pooled staging that moved)", sizeof(next.what) - strlen(next.what) - 1);
    check_mode(&next, DXCL_TRANSFER_COPY, "on a pooled staging resource that moved");
    cycle(env, &next, seed + 110, true, false, false, "on a pooled staging resource that moved");
    /* A move between the creation check's two maps (where the object would be zero-copy: no
     * check maps otherwise, and the move comes at the first acquire instead). */
    if (fast)
        force_move(1);
    make_shared(env, &probed, image, width + (image ? 2 : 8), H, seed + 200);
    if (fast)
        check_forced(probed.what);
    strncat(probed.what, fast ? " (moved at creation)" : " (no creation check: copies)",
            sizeof(probed.what) - strlen(probed.what) - 1);
    check_mode(&probed, DXCL_TRANSFER_COPY, "after a move at creation");
    cycle(env, &probed, seed + 210, true, false, false, "after a move at creation");
    free_shared(env, &s);
    free_shared(env, &next);
    free_shared(env, &probed);
}

static void run(const struct test_api *api, uint32_t seed)
{
    struct interop_env env;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    printf("%s, %s: the device %s host memory: objects start %s\n", run_name, api->name,
           test_device_host_unified(env.device) ? "shares" : "does not share",
           zero_copy_expected(&env) ? "zero-copy" : "copying");
    /* Each case has sizes of its own: the staging pool hands a staging resource only to an
     * object of the same description, and one that moved copies from the start. */
    moved_staging_reused(&env, false, BYTES + 400, seed + 400);
    moved_staging_reused(&env, true, W - 24, seed + 1400);
    for (int image = 0; image < 2; image++) {
        UINT width = image ? W : BYTES, step = image ? 2 : 8;
        move_after_release(&env, image, width, true, seed + 1000 * image);
        move_after_release(&env, image, width + step, false, seed + 1000 * image + 100);
        move_at_overwrite(&env, image, width + 2 * step, seed + 1000 * image + 200);
        move_one_of_two(&env, image, width + 3 * step, seed + 1000 * image + 300);
    }
    interop_close(&env);
}

/* Runs this program again with DXCL_LAZY=0 (every acquire reads and uploads at once). */
static bool run_eager_child(void)
{
    char path[MAX_PATH], command[MAX_PATH + 16];
    STARTUPINFOA startup = {.cb = sizeof(startup)};
    PROCESS_INFORMATION process;
    DWORD code = 1;

    GetModuleFileNameA(NULL, path, sizeof(path));
    snprintf(command, sizeof(command), "\"%s\" eager", path);
    SetEnvironmentVariableA("DXCL_LAZY", "0");
    REQUIRE(CreateProcessA(path, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process),
            "CreateProcess");
    SetEnvironmentVariableA("DXCL_LAZY", NULL);
    WaitForSingleObject(process.hProcess, INFINITE);
    GetExitCodeProcess(process.hProcess, &code);
    CloseHandle(process.hProcess);
    CloseHandle(process.hThread);
    return code == 0;
}

int main(int argc, char **argv)
{
    bool eager = argc > 1 && !strcmp(argv[1], "eager");

    /* The copy engine's staging memory is the subject here: the GPU path, which would take the 2D
     * textures where it is available (DXVK, the Vulkan layer, a device that imports memory: the
     * H100 rig), has test_gpu_path. */
    SetEnvironmentVariableA("DXCL_PATH", "engine");
    transfer_mode = (dxclGetTransferMode_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                           "dxclGetTransferMode");
    fault_arm = (dxclFaultArm_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclFaultArm");
    REQUIRE(transfer_mode && fault_arm, "dxclGetTransferMode and dxclFaultArm");
    if (eager)
        run_name = "eager";
    run(&api_d3d11_khr, 1);
    run(&api_d3d10_khr, 5001);
    printf("%s: %u moves forced, every one survived exactly\n", run_name, moves_forced);
    if (!eager)
        CHECK(run_eager_child(), "the run with DXCL_LAZY=0 failed (its output is above)");
    return test_finish(eager ? "staging_moves eager" : "staging_moves");
}
