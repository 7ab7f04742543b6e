/* P1, P1b and P4 on Direct3D 11 and 10 (cl_khr_d3d11_sharing, cl_khr_d3d10_sharing), and the
 * format rows (native RGBA8, emulated RG8), 1920x1080. Each figure runs two variants of a frame
 * interleaved:
 *   sharing: the extension through dxcl (acquire, work, release);
 *   manual:  what a program writes without it: its own staging texture (CopyResource, Map),
 *            clEnqueueWrite*, the work, clEnqueueRead* into the mapping, Unmap, CopyResource.
 * The work is the invert kernel (whole frame) or a clEnqueueCopy* (transfer only). Every phase
 * ends with clFinish so that its time is its own. */
#include "benchlib.h"
#include "dxcl/dxcl.h"
#include "interop.h"

#include <stdlib.h>

enum { W = 1920, H = 1080 };
enum { SHARING, MANUAL };

static const char invert_source[] =
    "__kernel void invert(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(dst, p, (float4)(1.0f) - read_imagef(src, p)); }\n";

/* ---- What differs between Direct3D 11 and 10: the staging path of the manual variant ---- */

struct family {
    const char *name;
    const struct test_api *api;
    void *(*staging)(void *device, DXGI_FORMAT format);
    void (*copy)(void *device, void *dst, void *src);
    void *(*map)(void *device, void *staging, UINT *row_pitch);
    void (*unmap)(void *device, void *staging);
    void (*settle)(void *device); /* waits until the GPU has done the device's queued work */
};

/* D3D10 and D3D11 describe and create a staging texture alike: one definition for both. */
#define DEFINE_STAGING(prefix, API)                                                                \
    static void *prefix##_staging(void *device, DXGI_FORMAT format)                                \
    {                                                                                              \
        API##_TEXTURE2D_DESC desc = {.Width = W,                                                   \
                                     .Height = H,                                                  \
                                     .MipLevels = 1,                                               \
                                     .ArraySize = 1,                                               \
                                     .Format = format,                                             \
                                     .SampleDesc = {1, 0},                                         \
                                     .Usage = API##_USAGE_STAGING,                                 \
                                     .CPUAccessFlags =                                             \
                                         API##_CPU_ACCESS_READ | API##_CPU_ACCESS_WRITE};          \
        I##API##Texture2D *texture;                                                                \
                                                                                                   \
        BENCH_HR(I##API##Device_CreateTexture2D((I##API##Device *)device, &desc, NULL, &texture)); \
        return texture;                                                                            \
    }
DEFINE_STAGING(d3d11, D3D11)
DEFINE_STAGING(d3d10, D3D10)

static ID3D11DeviceContext *d3d11_immediate(void *device)
{
    ID3D11DeviceContext *immediate;

    ID3D11Device_GetImmediateContext((ID3D11Device *)device, &immediate);
    ID3D11DeviceContext_Release(immediate); /* the device keeps it alive */
    return immediate;
}

static void d3d11_copy(void *device, void *dst, void *src)
{
    ID3D11DeviceContext_CopyResource(d3d11_immediate(device), dst, src);
}

static void *d3d11_map(void *device, void *staging, UINT *row_pitch)
{
    D3D11_MAPPED_SUBRESOURCE mapped;

    BENCH_HR(ID3D11DeviceContext_Map(d3d11_immediate(device), staging, 0, D3D11_MAP_READ_WRITE, 0,
                                     &mapped));
    *row_pitch = mapped.RowPitch;
    return mapped.pData;
}

static void d3d11_unmap(void *device, void *staging)
{
    ID3D11DeviceContext_Unmap(d3d11_immediate(device), staging, 0);
}

static void d3d11_settle(void *device)
{
    bench_d3d11_settle(device);
}

static void d3d10_settle(void *device)
{
    D3D10_QUERY_DESC desc = {D3D10_QUERY_EVENT, 0};
    ID3D10Query *query;

    BENCH_HR(ID3D10Device_CreateQuery((ID3D10Device *)device, &desc, &query));
    ID3D10Query_End(query);
    while (ID3D10Query_GetData(query, NULL, 0, 0) == S_FALSE)
        Sleep(0);
    ID3D10Query_Release(query);
}

static void d3d10_copy(void *device, void *dst, void *src)
{
    ID3D10Device_CopyResource((ID3D10Device *)device, dst, src);
}

static void *d3d10_map(void *device, void *staging, UINT *row_pitch)
{
    D3D10_MAPPED_TEXTURE2D mapped;

    (void)device;
    BENCH_HR(ID3D10Texture2D_Map((ID3D10Texture2D *)staging, 0, D3D10_MAP_READ_WRITE, 0, &mapped));
    *row_pitch = mapped.RowPitch;
    return mapped.pData;
}

static void d3d10_unmap(void *device, void *staging)
{
    (void)device;
    ID3D10Texture2D_Unmap((ID3D10Texture2D *)staging, 0);
}

static const struct family family_d3d11 = {"D3D11",   &api_d3d11_khr, d3d11_staging, d3d11_copy,
                                           d3d11_map, d3d11_unmap,    d3d11_settle};
static const struct family family_d3d10 = {"D3D10",   &api_d3d10_khr, d3d10_staging, d3d10_copy,
                                           d3d10_map, d3d10_unmap,    d3d10_settle};

/* ---- One setup: a family, a format, textures, shared objects and the program's own copies ---- */

struct setup {
    const struct family *family;
    struct interop_env *env;
    const char *format_name;
    DXGI_FORMAT format;
    UINT bpp;
    bool own_buffers; /* the driver lacks the format: the program's own copies are buffers */
    bool kernel;      /* the work is the invert kernel (else a copy) */
    cl_kernel invert;
    unsigned char *input;
    void *src, *dst[2], *staging;
    cl_mem shared_src, shared_dst; /* steady objects on src and dst[SHARING] */
    cl_mem own[2][2];              /* per variant: the program's own [in, out] */
};

static size_t frame_bytes(const struct setup *s)
{
    return (size_t)W * H * s->bpp;
}

static void *texture(const struct setup *s, const void *data)
{
    struct test_texture_desc desc = {W, H, 1, 1, 1, s->format, TEST_USAGE_DEFAULT, 1};
    const void *subresources[1] = {data};
    void *texture =
        s->family->api->create_texture2d(s->env->d3d, &desc, data ? subresources : NULL);

    REQUIRE(texture != NULL, "%s: cannot create a %s texture", s->family->name, s->format_name);
    return texture;
}

static cl_mem own_object(const struct setup *s)
{
    const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
    cl_mem mem;
    cl_int err;

    if (s->own_buffers)
        mem = clCreateBuffer(s->env->context, CL_MEM_READ_WRITE, frame_bytes(s), NULL, &err);
    else
        mem = clCreateImage(s->env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "own object: %d", err);
    return mem;
}

static cl_mem share(const struct setup *s, void *resource, cl_mem_flags flags)
{
    cl_int err;
    cl_mem mem = s->env->cl->create_texture2d(s->env->context, flags, resource, 0, &err);

    REQUIRE(err == CL_SUCCESS, "%s: create shared %s image: %d", s->family->name, s->format_name,
            err);
    return mem;
}

static void print_transfer_mode(const struct setup *s, cl_mem mem)
{
    char what[64];

    snprintf(what, sizeof(what), "%s %s 1080p", s->family->name, s->format_name);
    bench_note_transfer_mode(what, mem);
}

static void setup_open(struct setup *s, const struct family *family, struct interop_env *env,
                       DXGI_FORMAT format, bool kernel)
{
    const struct test_format *f = test_format_find(format);

    REQUIRE(f != NULL, "format %d is not in the sharing table", format);
    memset(s, 0, sizeof(*s));
    s->family = family;
    s->env = env;
    s->format = format;
    s->format_name = f->name;
    s->bpp = test_format_bytes(format);
    /* Without a kernel, the hand-written path copies another format's bytes through buffers
     * (a driver without that image format, PoCL and CL_RG); the kernel needs images, which
     * dxcl now provides for every table format. */
    s->own_buffers = format != DXGI_FORMAT_R8G8B8A8_UNORM && !kernel;
    s->kernel = kernel;
    s->input = malloc(frame_bytes(s));
    REQUIRE(s->input != NULL, "out of memory");
    test_fill_bytes(s->input, frame_bytes(s), 0x5eed);
    s->src = texture(s, s->input);
    s->dst[SHARING] = texture(s, NULL);
    s->dst[MANUAL] = texture(s, NULL);
    s->staging = family->staging(env->d3d, format);
    s->shared_src = share(s, s->src, CL_MEM_READ_ONLY);
    s->shared_dst = share(s, s->dst[SHARING], CL_MEM_WRITE_ONLY);
    print_transfer_mode(s, s->shared_src);
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 2; i++)
            s->own[v][i] = own_object(s);
    if (kernel) {
        cl_program program = test_program(env->context, env->device, invert_source);
        s->invert = test_program_kernel(program, "invert");
        clReleaseProgram(program);
    }
}

/* A texture has one shared object at a time (a second is CL_INVALID_D3D1x_RESOURCE): figures
 * that create their own per frame drop the steady ones first. */
static void setup_unshare(struct setup *s)
{
    if (s->shared_src)
        clReleaseMemObject(s->shared_src);
    if (s->shared_dst)
        clReleaseMemObject(s->shared_dst);
    s->shared_src = s->shared_dst = NULL;
}

static void setup_close(struct setup *s)
{
    const struct test_api *api = s->family->api;

    if (s->invert)
        clReleaseKernel(s->invert);
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 2; i++)
            clReleaseMemObject(s->own[v][i]);
    setup_unshare(s);
    api->release(s->staging);
    api->release(s->dst[SHARING]);
    api->release(s->dst[MANUAL]);
    api->release(s->src);
    free(s->input);
}

/* ---- The pieces of a frame ---- */

/* The work: dst = 1 - src (kernel) or dst = src (copy), finished. */
static void work(const struct setup *s, cl_mem src, cl_mem dst)
{
    cl_command_queue queue = s->env->queue;
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};

    if (s->kernel) {
        BENCH_CL(clSetKernelArg(s->invert, 0, sizeof(cl_mem), &src));
        BENCH_CL(clSetKernelArg(s->invert, 1, sizeof(cl_mem), &dst));
        BENCH_CL(clEnqueueNDRangeKernel(queue, s->invert, 2, NULL, region, NULL, 0, NULL, NULL));
    } else if (s->own_buffers && src == s->own[MANUAL][0]) {
        BENCH_CL(clEnqueueCopyBuffer(queue, src, dst, 0, 0, frame_bytes(s), 0, NULL, NULL));
    } else {
        BENCH_CL(clEnqueueCopyImage(queue, src, dst, origin, origin, region, 0, NULL, NULL));
    }
    bench_finish(queue);
}

/* Between the program's own object and a mapping of `row_pitch` (blocking). */
static void transfer(const struct setup *s, cl_mem mem, void *mapped, UINT row_pitch, bool write)
{
    cl_command_queue queue = s->env->queue;
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    const size_t bytes_region[3] = {(size_t)W * s->bpp, H, 1};

    if (s->own_buffers && write)
        BENCH_CL(clEnqueueWriteBufferRect(queue, mem, CL_TRUE, origin, origin, bytes_region,
                                          bytes_region[0], 0, row_pitch, 0, mapped, 0, NULL, NULL));
    else if (s->own_buffers)
        BENCH_CL(clEnqueueReadBufferRect(queue, mem, CL_TRUE, origin, origin, bytes_region,
                                         bytes_region[0], 0, row_pitch, 0, mapped, 0, NULL, NULL));
    else if (write)
        BENCH_CL(clEnqueueWriteImage(queue, mem, CL_TRUE, origin, region, row_pitch, 0, mapped, 0,
                                     NULL, NULL));
    else
        BENCH_CL(clEnqueueReadImage(queue, mem, CL_TRUE, origin, region, row_pitch, 0, mapped, 0,
                                    NULL, NULL));
}

static void acquire(const struct setup *s, cl_uint count, const cl_mem *mems)
{
    BENCH_CL(s->env->cl->acquire(s->env->queue, count, mems, 0, NULL, NULL));
    bench_finish(s->env->queue);
}

static void release(const struct setup *s, cl_uint count, const cl_mem *mems)
{
    BENCH_CL(s->env->cl->release(s->env->queue, count, mems, 0, NULL, NULL));
    bench_finish(s->env->queue);
}

/* ---- P1: steady loop ---- */

static void steady_sharing(void *ctx, struct bench_clock *clock)
{
    struct setup *s = ctx;
    cl_mem mems[2] = {s->shared_src, s->shared_dst};

    acquire(s, 2, mems);
    bench_mark(clock);
    work(s, s->shared_src, s->shared_dst);
    bench_mark(clock);
    release(s, 2, mems);
    bench_mark(clock);
}

static void steady_manual(void *ctx, struct bench_clock *clock)
{
    struct setup *s = ctx;
    const struct family *f = s->family;
    void *device = s->env->d3d;
    UINT pitch;
    void *mapped;

    f->copy(device, s->staging, s->src);
    mapped = f->map(device, s->staging, &pitch);
    transfer(s, s->own[MANUAL][0], mapped, pitch, true);
    bench_mark(clock);
    work(s, s->own[MANUAL][0], s->own[MANUAL][1]);
    bench_mark(clock);
    transfer(s, s->own[MANUAL][1], mapped, pitch, false);
    f->unmap(device, s->staging);
    f->copy(device, s->dst[MANUAL], s->staging);
    bench_mark(clock);
}

/* ---- P1b: the OpenCV pattern, a shared object created and destroyed per frame ---- */

/* One frame of the pattern: a shared object made on the texture, acquired, copied into the
 * program's image (from_texture) or from it, released and destroyed. */
static void opencv_sharing(struct setup *s, struct bench_clock *clock, bool from_texture)
{
    cl_mem mem = from_texture ? share(s, s->src, CL_MEM_READ_ONLY)
                              : share(s, s->dst[SHARING], CL_MEM_WRITE_ONLY);
    cl_mem own = s->own[SHARING][0];
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};

    bench_mark(clock);
    acquire(s, 1, &mem);
    bench_mark(clock);
    BENCH_CL(clEnqueueCopyImage(s->env->queue, from_texture ? mem : own, from_texture ? own : mem,
                                origin, origin, region, 0, NULL, NULL));
    bench_finish(s->env->queue);
    bench_mark(clock);
    release(s, 1, &mem);
    bench_mark(clock);
    BENCH_CL(clReleaseMemObject(mem));
    bench_mark(clock);
}

static void from_texture_sharing(void *ctx, struct bench_clock *clock)
{
    opencv_sharing(ctx, clock, true);
}

static void to_texture_sharing(void *ctx, struct bench_clock *clock)
{
    opencv_sharing(ctx, clock, false);
}

static void from_texture_manual(void *ctx, struct bench_clock *clock)
{
    struct setup *s = ctx;
    UINT pitch;
    void *mapped;

    s->family->copy(s->env->d3d, s->staging, s->src);
    mapped = s->family->map(s->env->d3d, s->staging, &pitch);
    bench_mark(clock);
    transfer(s, s->own[MANUAL][0], mapped, pitch, true);
    bench_mark(clock);
    s->family->unmap(s->env->d3d, s->staging);
    bench_mark(clock);
}

static void to_texture_manual(void *ctx, struct bench_clock *clock)
{
    struct setup *s = ctx;
    UINT pitch;
    void *mapped = s->family->map(s->env->d3d, s->staging, &pitch);

    bench_mark(clock);
    transfer(s, s->own[MANUAL][0], mapped, pitch, false);
    bench_mark(clock);
    s->family->unmap(s->env->d3d, s->staging);
    s->family->copy(s->env->d3d, s->dst[MANUAL], s->staging);
    bench_mark(clock);
}

/* ---- P4: the steady sharing frame with both objects created and destroyed per frame ---- */

static void recreate_sharing(void *ctx, struct bench_clock *clock)
{
    struct setup *s = ctx;
    cl_mem mems[2] = {share(s, s->src, CL_MEM_READ_ONLY),
                      share(s, s->dst[SHARING], CL_MEM_WRITE_ONLY)};

    bench_mark(clock);
    acquire(s, 2, mems);
    bench_mark(clock);
    work(s, mems[0], mems[1]);
    bench_mark(clock);
    release(s, 2, mems);
    bench_mark(clock);
    BENCH_CL(clReleaseMemObject(mems[0]));
    BENCH_CL(clReleaseMemObject(mems[1]));
    bench_mark(clock);
}

/* ---- Checks: every variant's result, bit-exact ---- */

static void check_texture(const struct setup *s, void *resource, bool inverted, const char *what)
{
    size_t bytes = frame_bytes(s);
    unsigned char *got = malloc(bytes), *want = malloc(bytes);

    REQUIRE(got && want, "out of memory");
    for (size_t i = 0; i < bytes; i++)
        want[i] = inverted ? (unsigned char)(255 - s->input[i]) : s->input[i];
    REQUIRE(s->family->api->read_subresource(resource, 0, got), "%s: read back", what);
    bench_check_bytes(got, want, bytes, what);
    free(got);
    free(want);
}

static void check_own_image(const struct setup *s, cl_mem mem, const char *what)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    unsigned char *got = malloc(frame_bytes(s));

    REQUIRE(got != NULL, "out of memory");
    BENCH_CL(
        clEnqueueReadImage(s->env->queue, mem, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL));
    bench_check_bytes(got, s->input, frame_bytes(s), what);
    free(got);
}

static void clear_destinations(struct setup *s)
{
    unsigned char *zero = calloc(1, frame_bytes(s));

    REQUIRE(zero != NULL, "out of memory");
    for (int v = 0; v < 2; v++)
        REQUIRE(s->family->api->write_subresource(s->dst[v], 0, zero), "clear destination");
    free(zero);
}

/* ---- Figures ---- */

/* Phase names by variant, for a setup whose work is the kernel [1] or a copy [0]. */
static const char *const sharing_phases[2][4] = {{"acquire", "copy", "release", NULL},
                                                 {"acquire", "kernel", "release", NULL}};
static const char *const manual_phases[2][4] = {
    {"copy+map+write", "copy", "read+unmap+copy", NULL},
    {"copy+map+write", "kernel", "read+unmap+copy", NULL}};
/* Objects made and destroyed in the frame. */
static const char *const per_frame_phases[2][6] = {
    {"create", "acquire", "copy", "release", "destroy", NULL},
    {"create", "acquire", "kernel", "release", "destroy", NULL}};

/* A frame's last Direct3D copy is queued, not done: finished before the next frame
 * (benchlib.h, settle). The hand-written frame's CopyResource into the destination, and the
 * sharing frame's write back of a release (dxcl queues the staging copy into the resource and
 * does not wait for it, as the spec allows): on wined3d it runs in the command stream and,
 * unsettled, the next hand-written frame's first Map paid for it (issue 43). */
static void settle_direct3d(void *ctx)
{
    struct setup *s = ctx;

    s->family->settle(s->env->d3d);
}

static void variant(struct bench_variant *v, const char *name,
                    void (*frame)(void *, struct bench_clock *), struct setup *s,
                    const char *const *phases)
{
    memset(v, 0, sizeof(*v));
    v->name = name;
    v->frame = frame;
    v->ctx = s;
    for (int p = 0; p < BENCH_MAX_PHASES && phases[p]; p++)
        v->phase_names[p] = phases[p];
}

static void figure_steady(struct setup *s, const char *figure, double target)
{
    struct bench_variant v[2];

    clear_destinations(s);
    variant(&v[0], "sharing", steady_sharing, s, sharing_phases[s->kernel]);
    variant(&v[1], "hand-written", steady_manual, s, manual_phases[s->kernel]);
    v[0].settle = v[1].settle = settle_direct3d;
    bench_compare(figure, v, bench_frames, target);
    check_texture(s, s->dst[SHARING], s->kernel, "sharing result");
    check_texture(s, s->dst[MANUAL], s->kernel, "hand-written result");
}

static void figure_opencv(struct setup *s)
{
    static const char *const from_manual[] = {"copy+map", "write", "unmap", NULL};
    static const char *const to_manual[] = {"map", "read", "unmap+copy", NULL};
    struct bench_variant v[2];

    setup_unshare(s);
    clear_destinations(s);
    variant(&v[0], "sharing", from_texture_sharing, s, per_frame_phases[0]);
    variant(&v[1], "hand-written", from_texture_manual, s, from_manual);
    v[0].settle = v[1].settle = settle_direct3d;
    bench_compare("P1b D3D11 RGBA8 from texture, create/destroy per frame", v, bench_frames, 1.00);
    check_own_image(s, s->own[SHARING][0], "P1b sharing: the program's image");
    check_own_image(s, s->own[MANUAL][0], "P1b hand-written: the program's image");
    variant(&v[0], "sharing", to_texture_sharing, s, per_frame_phases[0]);
    variant(&v[1], "hand-written", to_texture_manual, s, to_manual);
    v[0].settle = v[1].settle = settle_direct3d;
    bench_compare("P1b D3D11 RGBA8 to texture, create/destroy per frame", v, bench_frames, 1.00);
    check_texture(s, s->dst[SHARING], false, "P1b sharing: the texture");
    check_texture(s, s->dst[MANUAL], false, "P1b hand-written: the texture");
}

/* CPU time of a FILETIME pair (100 ns units), in ms. */
static double cpu_ms(FILETIME kernel, FILETIME user)
{
    ULARGE_INTEGER k = {.LowPart = kernel.dwLowDateTime, .HighPart = kernel.dwHighDateTime};
    ULARGE_INTEGER u = {.LowPart = user.dwLowDateTime, .HighPart = user.dwHighDateTime};

    return (double)(k.QuadPart + u.QuadPart) / 1e4;
}

static double process_cpu_ms(void)
{
    FILETIME created, exited, kernel, user;

    GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user);
    return cpu_ms(kernel, user);
}

static double thread_cpu_ms(void)
{
    FILETIME created, exited, kernel, user;

    GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user);
    return cpu_ms(kernel, user);
}

/* Issue 26's CPU figure: what one acquire + release of a 1080p texture costs the CPU (the
 * whole process: dxcl's waiter and the driver's threads included; and the calling thread
 * alone), over enough pairs for the clocks' resolution; a command between them makes the
 * release write back. The program's own wait for the GPU is not the pair's cost (NVIDIA's
 * clFinish spins): the pairs run back to back, the clocks are read before the one clFinish
 * that ends them, and a third figure spreads that clFinish over the pairs as well. The data
 * is not checked here (the P1 figures do). */
static void figure_cpu(struct setup *s)
{
    enum { PAIRS = 200 };
    const cl_uint4 zero = {{0}};
    const size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1};
    double process = process_cpu_ms(), thread = thread_cpu_ms(), calls[3] = {0}, t;
    char name[128];

    /* The wall time of each call too: the thread CPU clock is coarse under Wine (10 ms), and a
     * call that spins shows here. */
    for (int i = 0; i < PAIRS; i++) {
        t = bench_now_ms();
        BENCH_CL(s->env->cl->acquire(s->env->queue, 1, &s->shared_dst, 0, NULL, NULL));
        calls[0] += bench_now_ms() - t;
        t = bench_now_ms();
        BENCH_CL(
            clEnqueueFillImage(s->env->queue, s->shared_dst, &zero, origin, region, 0, NULL, NULL));
        calls[1] += bench_now_ms() - t;
        t = bench_now_ms();
        BENCH_CL(s->env->cl->release(s->env->queue, 1, &s->shared_dst, 0, NULL, NULL));
        calls[2] += bench_now_ms() - t;
    }
    double calls_process = (process_cpu_ms() - process) / PAIRS;
    double calls_thread = (thread_cpu_ms() - thread) / PAIRS;
    t = bench_now_ms();
    bench_finish(s->env->queue);
    bench_note("P5 %s: wall time of each call, ms: acquire %.3f, the command (the first touch) "
               "%.3f, release %.3f; the one clFinish after %d pairs %.3f",
               s->family->name, calls[0] / PAIRS, calls[1] / PAIRS, calls[2] / PAIRS, PAIRS,
               bench_now_ms() - t);
    process = (process_cpu_ms() - process) / PAIRS;
    thread = (thread_cpu_ms() - thread) / PAIRS;
    snprintf(name, sizeof(name), "P5 %s RGBA8 1080p acquire + release, CPU time (process)",
             s->family->name);
    bench_value(name, (struct bench_spread){calls_process, calls_process, calls_process}, "ms");
    snprintf(name, sizeof(name), "P5 %s RGBA8 1080p acquire + release, CPU time (calling thread)",
             s->family->name);
    bench_value(name, (struct bench_spread){calls_thread, calls_thread, calls_thread}, "ms");
    /* With the program's one clFinish spread over the pairs (what earlier runs reported): a
     * release that waits for nothing leaves the whole GPU backlog to it, and NVIDIA's spins. */
    snprintf(name, sizeof(name),
             "P5 %s RGBA8 1080p acquire + release + clFinish / %d, CPU time (calling thread)",
             s->family->name, PAIRS);
    bench_value(name, (struct bench_spread){thread, thread, thread}, "ms");
}

/* The steady variant runs on a second setup: its textures keep their shared objects. */
/* BENCH_IDLE_US=<n>: P4's variants leave the GPU idle for n microseconds between frames (the
 * CPU spins), as P1's sharing frames find it after a hand-written one: how much a hand-over
 * costs from idle (docs/perf.md, the eleventh session). */
static void idle_between_frames(void *ctx)
{
    const char *value = getenv("BENCH_IDLE_US");
    double until = bench_now_ms() + (value ? atof(value) : 0) / 1000.0;

    (void)ctx;
    while (bench_now_ms() < until)
        ;
}

static void figure_recreate(struct setup *s)
{
    struct bench_variant v[2];
    struct setup steady;

    setup_open(&steady, s->family, s->env, s->format, s->kernel);
    setup_unshare(s);
    clear_destinations(s);
    clear_destinations(&steady);
    variant(&v[0], "create/destroy per frame", recreate_sharing, s, per_frame_phases[s->kernel]);
    variant(&v[1], "steady", steady_sharing, &steady, sharing_phases[s->kernel]);
    v[0].settle = v[1].settle = idle_between_frames;
    bench_compare("P4 D3D11 RGBA8 transfer-only", v, bench_frames, 1.10);
    check_texture(s, s->dst[SHARING], s->kernel, "P4 create/destroy result");
    check_texture(&steady, steady.dst[SHARING], s->kernel, "P4 steady result");
    setup_close(&steady);
}

/* Issue 9's figure: a whole frame (acquire, kernel, release) of an emulated format against the
 * same frame of a native one, both shared; reported without a target. */
static void figure_emulated(const struct family *family, struct interop_env *env)
{
    struct setup rg, rgba;
    struct bench_variant v[2];

    setup_open(&rg, family, env, DXGI_FORMAT_R8G8_UNORM, true);
    setup_open(&rgba, family, env, DXGI_FORMAT_R8G8B8A8_UNORM, true);
    clear_destinations(&rg);
    clear_destinations(&rgba);
    variant(&v[0], "RG8 (emulated)", steady_sharing, &rg, sharing_phases[true]);
    variant(&v[1], "RGBA8 (native)", steady_sharing, &rgba, sharing_phases[true]);
    bench_compare("Emulated vs native format, D3D11 1080p whole frame", v, bench_frames, 0);
    check_texture(&rg, rg.dst[SHARING], true, "RG8 result");
    check_texture(&rgba, rgba.dst[SHARING], true, "RGBA8 result");
    setup_close(&rgba);
    setup_close(&rg);
}

static void bench_family(const struct family *family, bool all_figures)
{
    struct interop_env env;
    struct setup s;
    char figure[128];

    interop_open(&env, family->api, INTEROP_NO_USER_SYNC, 0);
    setup_open(&s, family, &env, DXGI_FORMAT_R8G8B8A8_UNORM, true);
    snprintf(figure, sizeof(figure), "P1 %s RGBA8 1080p whole frame", family->name);
    figure_steady(&s, figure, 0.80);
    setup_close(&s);

    setup_open(&s, family, &env, DXGI_FORMAT_R8G8B8A8_UNORM, false);
    snprintf(figure, sizeof(figure), "P1 %s RGBA8 1080p transfer-only", family->name);
    figure_steady(&s, figure, 0.80);
    if (all_figures) {
        figure_cpu(&s);
        figure_opencv(&s);
        figure_recreate(&s);
    }
    setup_close(&s);

    if (all_figures) {
        setup_open(&s, family, &env, DXGI_FORMAT_R8G8_UNORM, false);
        snprintf(figure, sizeof(figure), "P1 %s RG8 (emulated) 1080p transfer-only", family->name);
        figure_steady(&s, figure, 0.80);
        setup_close(&s);
        figure_emulated(family, &env);
    }
    interop_close(&env);
}

void bench_d3d1x(void)
{
    if (bench_runs("D3D11"))
        bench_family(&family_d3d11, true);
    if (bench_runs("D3D10"))
        bench_family(&family_d3d10, false);
}
