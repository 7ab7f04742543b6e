/* Soak (docs/reliability.md): cycles of context -> shared objects of every family -> acquire
 * -> kernel -> release -> destroy, next to a baseline loop doing the same Direct3D work
 * (resource creation, staging copies with CopySubresourceRegion + Map, LockRect) without
 * OpenCL, so that Wine's own growth is told apart from dxcl's.
 *   D3D11 KHR: a buffer, a 2D subresource (mip 1 of slice 1), a 3D level (mip 1);
 *   D3D10 KHR: a buffer and a 2D subresource (mip 1 of slice 1);
 *   DX9 (D3D9Ex): both planes of an NV12 surface.
 * Per cycle: the D3D11 buffer gets +1 from a kernel and is read back exactly; the other objects
 * are filled by the driver, and read back exactly at every checkpoint. Every `every` cycles:
 * the devices' reference counts must be back to their base, every resource's last Release must
 * have reached 0, and the private bytes (GetProcessMemoryInfo PrivateUsage) are recorded. The
 * leak per cycle is the median growth of the checkpoint intervals after the warm-up, divided
 * by the interval: a leak grows every interval, while Wine's and PoCL's heaps grow in rare
 * large steps (200 MB once in a 10,000-cycle driver loop) that would swamp a first-to-last
 * difference. The largest step and the first-to-last figure are printed too. The C runtime's
 * heap, where every allocation of dxcl's lives, is walked at every checkpoint: its median
 * interval growth in the dxcl loop beyond the driver loop's (DXVK allocates there too) is
 * checked against the 1 KB target in every form. A third loop,
 * "driver", adds to the baseline the same OpenCL work on plain OpenCL objects; dxcl's own
 * growth is the dxcl loop's minus the driver's.
 *   test_soak cycles [every]   exactly that many (every: cycles / 4); make soak runs 10000 1000
 *   test_soak                  the make check form: as many cycles as fit a time budget, at most
 *                              160, checkpoint every quarter. Calibration cycles of each loop
 *                              time the driver: PoCL on the rig runs all 160, a driver that
 *                              takes a second per context (NVIDIA) about 20.
 *                              DXCL_SOAK_BUDGET_S sets the budget (default 50 s). */
#include "dx9util.h"
#include "interop.h"

#include <malloc.h>
#include <psapi.h>
#include <stdlib.h>

/* dxcl's growth: at most 1 KB per cycle once warm. Its own allocations (the C runtime's heap,
 * walked at every checkpoint) are checked against that target in every form. The process's
 * private bytes beyond the driver loop keep growing for a few hundred cycles on Wine 8 + PoCL
 * (Wine's and PoCL's heaps, not dxcl's: docs/reliability.md, "Where the short form's growth
 * comes from"), so runs that measure fewer than TARGET_CYCLES cycles (the make check form)
 * check those against a looser guard and print the target. */
#define LEAK_TARGET 1024.0
#define LEAK_GUARD 8192.0
#define TARGET_CYCLES 500
/* The make check form: at most this many cycles, in about this many seconds for the three
 * loops (CTest stops a test at 300 s; a driver that loads slowly must still fit, loaded). */
#define SHORT_CYCLES 160
#define SHORT_BUDGET_S 50
#define SHORT_MIN_CYCLES 8

static const char *source = "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1; }\n";

enum { BUF_WORDS = 64, NV12_W = 16, NV12_H = 16 };
/* The textures' format: R32_UINT, or with DXCL_SOAK_FORMAT=rgba32 R32G32B32A32_UINT, which
 * PoCL has natively (R32_UINT is emulated there), so that the GPU path's variant on lavapipe
 * (the test-only import) gives the textures twins as NVIDIA does. */
static struct test_texture_desc desc2d = {16, 16, 1, 2, 2, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT,
                                          1};
static struct test_texture_desc desc3d = {8, 8, 4, 2, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT,
                                          1};
static unsigned channels = 1; /* words per texel */
enum { SUB2D = 1 + 1 * 2 /* mip 1, slice 1 */, SUB3D = 1 };

static cl_platform_id platform;
static cl_device_id cl_device;
static void *d3d11, *d3d10;
static IDirect3DDevice9 *d3d9;
static ULONG base_ref11, base_ref10, base_ref9;
static unsigned char *binary;
static size_t binary_size;
static unsigned leaked_refs, bad_data;

/* The private bytes. Windows reports them as PrivateUsage (equal to PagefileUsage, the commit
 * charge); Wine 8 leaves PrivateUsage 0 and fills PagefileUsage, so that is the fallback. */
static size_t private_bytes(void)
{
    PROCESS_MEMORY_COUNTERS_EX pmc = {.cb = sizeof(pmc)};

    REQUIRE(
        K32GetProcessMemoryInfo(GetCurrentProcess(), (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc)),
        "GetProcessMemoryInfo: %lu", GetLastError());
    return pmc.PrivateUsage ? pmc.PrivateUsage : pmc.PagefileUsage;
}

/* The bytes in use in the C runtime's heap, where every allocation of dxcl's lives (records,
 * events, pool and waiter lists, the log); wined3d allocates from the process heap, PoCL from
 * the Unix one, and the test frees its own within a cycle. */
static size_t crt_heap_bytes(void)
{
    _HEAPINFO info = {0};
    size_t used = 0;

    while (_heapwalk(&info) == _HEAPOK)
        if (info._useflag == _USEDENTRY)
            used += info._size;
    return used;
}

static void drop(const struct test_api *api, void *object, const char *what)
{
    ULONG left;

    test_refcount_settled(object, 1); /* dxcl's references go once the driver is done */
    left = api->release(object);

    if (left) {
        fprintf(stderr, "soak: %s: %lu references left\n", what, (unsigned long)left);
        leaked_refs += left;
    }
}

static void drop9(IDirect3DSurface9 *surface)
{
    ULONG left = IDirect3DSurface9_Release(surface);

    if (left) {
        fprintf(stderr, "soak: NV12 surface: %lu references left\n", (unsigned long)left);
        leaked_refs += left;
    }
}

static void check_data(bool ok, const char *what, unsigned cycle)
{
    if (!ok) {
        fprintf(stderr, "soak: cycle %u: %s: wrong data\n", cycle, what);
        bad_data++;
    }
}

/* The Direct3D objects of one cycle (both loops make the same ones). */
struct cycle_objects {
    void *buf11, *buf10;
    struct test_texture tex11, tex3d, tex10;
    IDirect3DSurface9 *nv12;
    unsigned words[BUF_WORDS];
    unsigned char nv12_data[NV12_W * NV12_H * 3 / 2];
};

static void make_objects(struct cycle_objects *o, unsigned cycle)
{
    for (int i = 0; i < BUF_WORDS; i++)
        o->words[i] = cycle * 1000u + (unsigned)i;
    REQUIRE((o->buf11 = api_d3d11_khr.create_buffer(d3d11, sizeof(o->words), TEST_USAGE_DEFAULT,
                                                    o->words)),
            "D3D11 buffer");
    REQUIRE((o->buf10 = api_d3d10_khr.create_buffer(d3d10, sizeof(o->words), TEST_USAGE_DEFAULT,
                                                    o->words)),
            "D3D10 buffer");
    REQUIRE(test_texture_create(&api_d3d11_khr, d3d11, &o->tex11, &desc2d, false, cycle),
            "D3D11 2D");
    REQUIRE(test_texture_create(&api_d3d11_khr, d3d11, &o->tex3d, &desc3d, true, cycle + 1),
            "D3D11 3D");
    REQUIRE(test_texture_create(&api_d3d10_khr, d3d10, &o->tex10, &desc2d, false, cycle + 2),
            "D3D10 2D");
    o->nv12 = dx9_surface(d3d9, NV12_W, NV12_H, DX9_FMT_NV12, DX9_PLAIN);
    test_fill_bytes(o->nv12_data, sizeof(o->nv12_data), cycle);
    REQUIRE(dx9_write(o->nv12, o->nv12_data, false), "NV12 write");
}

static void free_objects(struct cycle_objects *o)
{
    drop(&api_d3d11_khr, o->buf11, "D3D11 buffer");
    drop(&api_d3d10_khr, o->buf10, "D3D10 buffer");
    drop(&api_d3d11_khr, o->tex11.resource, "D3D11 2D");
    drop(&api_d3d11_khr, o->tex3d.resource, "D3D11 3D");
    drop(&api_d3d10_khr, o->tex10.resource, "D3D10 2D");
    o->tex11.resource = o->tex3d.resource = o->tex10.resource = NULL;
    test_texture_free(&api_d3d11_khr, &o->tex11);
    test_texture_free(&api_d3d11_khr, &o->tex3d);
    test_texture_free(&api_d3d10_khr, &o->tex10);
    drop9(o->nv12);
}

/* The baseline: the Direct3D reads dxcl does per cycle (a staging copy and Map of every
 * shared subresource, LockRect of the NV12 surface), without OpenCL. */
static void baseline_cycle(unsigned cycle, bool checkpoint)
{
    struct cycle_objects o;
    unsigned words[BUF_WORDS];
    static unsigned char scratch[16 * 16 * 4 * 4];
    unsigned char nv12[sizeof(o.nv12_data)];

    make_objects(&o, cycle);
    check_data(api_d3d11_khr.read_subresource(o.buf11, 0, words) &&
                   !memcmp(words, o.words, sizeof(words)),
               "baseline D3D11 buffer", cycle);
    check_data(api_d3d10_khr.read_subresource(o.buf10, 0, words), "baseline D3D10 buffer", cycle);
    check_data(api_d3d11_khr.read_subresource(o.tex11.resource, SUB2D, scratch), "baseline 2D",
               cycle);
    check_data(api_d3d11_khr.read_subresource(o.tex3d.resource, SUB3D, scratch), "baseline 3D",
               cycle);
    check_data(api_d3d10_khr.read_subresource(o.tex10.resource, SUB2D, scratch),
               "baseline D3D10 2D", cycle);
    check_data(dx9_read(o.nv12, nv12, false), "baseline NV12", cycle);
    (void)checkpoint;
    free_objects(&o);
}

static cl_kernel kernel_from_binary(cl_context context, cl_program *program)
{
    const unsigned char *bin = binary;
    cl_int err, status;

    *program = clCreateProgramWithBinary(context, 1, &cl_device, &binary_size, &bin, &status, &err);
    REQUIRE(err == CL_SUCCESS, "program from binary: %d", err);
    REQUIRE(clBuildProgram(*program, 1, &cl_device, NULL, NULL, NULL) == CL_SUCCESS, "build");
    cl_kernel kernel = clCreateKernel(*program, "inc", &err);
    REQUIRE(err == CL_SUCCESS, "kernel: %d", err);
    return kernel;
}

/* The buffer's work: the kernel (+1 per word) or a fill with `value`. */
static void buffer_work(cl_context context, cl_command_queue queue, cl_mem buffer, bool with_kernel,
                        unsigned value)
{
    const size_t global = BUF_WORDS;
    cl_program program;

    if (!with_kernel) {
        CHECK_ERR(clEnqueueFillBuffer(queue, buffer, &value, sizeof(value), 0,
                                      BUF_WORDS * sizeof(unsigned), 0, NULL, NULL),
                  CL_SUCCESS);
        return;
    }
    cl_kernel kernel = kernel_from_binary(context, &program);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    clReleaseKernel(kernel); /* the queued command keeps what it needs */
    clReleaseProgram(program);
}

static void fill_image(cl_command_queue queue, cl_mem image, unsigned value, size_t w, size_t h,
                       size_t d)
{
    const unsigned color[4] = {value, value, value, value};
    const size_t origin[3] = {0}, region[3] = {w, h, d};

    CHECK_ERR(clEnqueueFillImage(queue, image, color, origin, region, 0, NULL, NULL), CL_SUCCESS);
}

static bool all_words(const unsigned *words, size_t count, unsigned value)
{
    for (size_t i = 0; i < count; i++)
        if (words[i] != value)
            return false;
    return true;
}

/* One D3D1x family: a context with the device, the objects, acquire, work, release, destroy. */
static void d3d1x_cycle(const struct test_api *api, void *device, void *buffer, void *tex2d,
                        void *tex3d, unsigned value)
{
    cl_context_properties props[] = {api->context_property, (cl_context_properties)device, 0};
    cl_int err;
    cl_context context = clCreateContext(props, 1, &cl_device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "%s context: %d", api->name, err);
    cl_command_queue queue = clCreateCommandQueue(context, cl_device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    cl_mem mems[3];
    cl_uint count = 0;

    mems[count++] = api->cl->create_buffer(context, CL_MEM_READ_WRITE, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "%s buffer: %d", api->name, err);
    mems[count++] = api->cl->create_texture2d(context, CL_MEM_READ_WRITE, tex2d, SUB2D, &err);
    REQUIRE(err == CL_SUCCESS, "%s 2D: %d", api->name, err);
    if (tex3d) {
        mems[count++] = api->cl->create_texture3d(context, CL_MEM_READ_WRITE, tex3d, SUB3D, &err);
        REQUIRE(err == CL_SUCCESS, "%s 3D: %d", api->name, err);
    }
    CHECK_ERR(api->cl->acquire(queue, count, mems, 0, NULL, NULL), CL_SUCCESS);
    buffer_work(context, queue, mems[0], api == &api_d3d11_khr, value);
    fill_image(queue, mems[1], value, 8, 8, 1);
    if (tex3d)
        fill_image(queue, mems[2], value, 4, 4, 2);
    CHECK_ERR(api->cl->release(queue, count, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    for (cl_uint i = 0; i < count; i++)
        CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
    CHECK_ERR(clReleaseCommandQueue(queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
}

static void dx9_cycle(IDirect3DSurface9 *surface, unsigned char value)
{
    struct dx9_env env = {
        .kind = DX9_D3D9EX, .platform = platform, .device = cl_device, .d3d = d3d9};
    cl_context_properties props[] = {dx9_khr_property(DX9_D3D9EX), (cl_context_properties)d3d9, 0};
    cl_int err;
    cl_mem planes[2];

    env.context = clCreateContext(props, 1, &cl_device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "DX9 context: %d", err);
    env.queue = clCreateCommandQueue(env.context, cl_device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    for (cl_uint p = 0; p < 2; p++) {
        planes[p] = dx9_create(&env, false, surface, p, CL_MEM_READ_WRITE, &err);
        REQUIRE(err == CL_SUCCESS, "NV12 plane %u: %d", p, err);
    }
    CHECK_ERR(dx9_acquire(&env, false, 2, planes, NULL), CL_SUCCESS);
    {
        /* Plane 0 is R8 UNORM (Y), plane 1 RG8 UNORM (UV): fill with value / 255. */
        const float color[4] = {value / 255.0f, value / 255.0f, value / 255.0f, 1.0f};
        const size_t origin[3] = {0}, y[3] = {NV12_W, NV12_H, 1},
                     uv[3] = {NV12_W / 2, NV12_H / 2, 1};

        CHECK_ERR(clEnqueueFillImage(env.queue, planes[0], color, origin, y, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(clEnqueueFillImage(env.queue, planes[1], color, origin, uv, 0, NULL, NULL),
                  CL_SUCCESS);
    }
    CHECK_ERR(dx9_release(&env, false, 2, planes, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    for (int p = 0; p < 2; p++)
        CHECK_ERR(clReleaseMemObject(planes[p]), CL_SUCCESS);
    CHECK_ERR(clReleaseCommandQueue(env.queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(env.context), CL_SUCCESS);
}

/* The driver's share: the same OpenCL work as a dxcl cycle (contexts, queues, the kernel from
 * the binary, fills) on plain OpenCL objects of the same sizes, plus the baseline's Direct3D
 * work. dxcl's own growth is the dxcl loop's minus this one's. */
static cl_mem plain_image(cl_context context, cl_channel_order order, cl_channel_type type,
                          cl_mem_object_type kind, size_t w, size_t h, size_t d)
{
    const cl_image_format format = {order, type};
    cl_image_desc desc = {
        .image_type = kind, .image_width = w, .image_height = h, .image_depth = d};
    cl_int err;
    cl_mem image = clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "plain image: %d", err);
    return image;
}

static void driver_context_cycle(int family, unsigned value)
{
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &cl_device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, cl_device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    cl_mem mems[3];
    cl_uint count = 0;
    const float color[4] = {value / 255.0f, value / 255.0f, value / 255.0f, 1.0f};
    const size_t origin[3] = {0}, y[3] = {NV12_W, NV12_H, 1}, uv[3] = {NV12_W / 2, NV12_H / 2, 1};

    if (family == 9) {
        mems[count++] =
            plain_image(context, CL_R, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, NV12_W, NV12_H, 1);
        mems[count++] = plain_image(context, CL_RG, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D,
                                    NV12_W / 2, NV12_H / 2, 1);
        CHECK_ERR(clEnqueueFillImage(queue, mems[0], color, origin, y, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueFillImage(queue, mems[1], color, origin, uv, 0, NULL, NULL), CL_SUCCESS);
    } else {
        mems[count++] =
            clCreateBuffer(context, CL_MEM_READ_WRITE, BUF_WORDS * sizeof(unsigned), NULL, &err);
        REQUIRE(err == CL_SUCCESS, "plain buffer: %d", err);
        mems[count++] =
            plain_image(context, CL_R, CL_UNSIGNED_INT32, CL_MEM_OBJECT_IMAGE2D, 8, 8, 1);
        fill_image(queue, mems[1], value, 8, 8, 1);
        if (family == 11) {
            mems[count++] =
                plain_image(context, CL_R, CL_UNSIGNED_INT32, CL_MEM_OBJECT_IMAGE3D, 4, 4, 2);
            fill_image(queue, mems[2], value, 4, 4, 2);
        }
        buffer_work(context, queue, mems[0], family == 11, value);
    }
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    for (cl_uint i = 0; i < count; i++)
        CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
    CHECK_ERR(clReleaseCommandQueue(queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
}

static void driver_cycle(unsigned cycle, bool checkpoint)
{
    baseline_cycle(cycle, checkpoint);
    driver_context_cycle(11, cycle & 0xff);
    driver_context_cycle(10, cycle & 0xff);
    driver_context_cycle(9, cycle & 0xff);
}

static void dxcl_cycle(unsigned cycle, bool checkpoint)
{
    struct cycle_objects o;
    unsigned words[BUF_WORDS], sub[16 * 16];
    unsigned char nv12[sizeof(o.nv12_data)];
    unsigned value = cycle & 0xff;

    make_objects(&o, cycle);
    d3d1x_cycle(&api_d3d11_khr, d3d11, o.buf11, o.tex11.resource, o.tex3d.resource, value);
    d3d1x_cycle(&api_d3d10_khr, d3d10, o.buf10, o.tex10.resource, NULL, value);
    dx9_cycle(o.nv12, (unsigned char)value);

    for (int i = 0; i < BUF_WORDS; i++)
        o.words[i] += 1;
    check_data(api_d3d11_khr.read_subresource(o.buf11, 0, words) &&
                   !memcmp(words, o.words, sizeof(words)),
               "D3D11 buffer (kernel)", cycle);
    if (checkpoint) {
        check_data(api_d3d10_khr.read_subresource(o.buf10, 0, words) &&
                       all_words(words, BUF_WORDS, value),
                   "D3D10 buffer", cycle);
        check_data(api_d3d11_khr.read_subresource(o.tex11.resource, SUB2D, sub) &&
                       all_words(sub, 8 * 8 * channels, value),
                   "D3D11 2D", cycle);
        check_data(api_d3d11_khr.read_subresource(o.tex3d.resource, SUB3D, sub) &&
                       all_words(sub, 4 * 4 * 2 * channels, value),
                   "D3D11 3D", cycle);
        check_data(api_d3d10_khr.read_subresource(o.tex10.resource, SUB2D, sub) &&
                       all_words(sub, 8 * 8 * channels, value),
                   "D3D10 2D", cycle);
        bool ok = dx9_read(o.nv12, nv12, false);
        for (size_t i = 0; ok && i < sizeof(nv12); i++)
            ok = nv12[i] == value;
        check_data(ok, "NV12 planes", cycle);
    }
    free_objects(&o);
}

#define MAX_INTERVALS 256

struct loop_result {
    size_t first, last; /* private bytes at the first post-warm-up and the last checkpoint */
    unsigned measured;  /* cycles between them */
    double per_cycle;   /* median interval growth per cycle */
    double overall;     /* (last - first) / measured */
    double largest;     /* the largest interval growth, in bytes */
    double heap;        /* median interval growth of the C heap per cycle */
    DWORD ms;
};

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Growth per cycle of each interval; the median is the loop's steady growth. */
static double median_growth(double *growth, unsigned count)
{
    if (!count)
        return 0;
    qsort(growth, count, sizeof(*growth), compare_doubles);
    return count % 2 ? growth[count / 2] : (growth[count / 2 - 1] + growth[count / 2]) / 2;
}

static void check_refs(const char *loop, unsigned cycle)
{
    ULONG r11 = test_com_refcount(d3d11), r10 = test_com_refcount(d3d10),
          r9 = test_refcount((IUnknown *)d3d9);

    CHECK(r11 == base_ref11 && r10 == base_ref10 && r9 == base_ref9,
          "%s cycle %u: device references D3D11 %lu (base %lu), D3D10 %lu (%lu), D3D9 %lu (%lu)",
          loop, cycle, (unsigned long)r11, (unsigned long)base_ref11, (unsigned long)r10,
          (unsigned long)base_ref10, (unsigned long)r9, (unsigned long)base_ref9);
}

static struct loop_result run_loop(const char *name, void (*cycle_fn)(unsigned, bool),
                                   unsigned cycles, unsigned every, unsigned warmup)
{
    struct loop_result r = {0};
    bool measuring = false;
    DWORD start = GetTickCount();
    double growth[MAX_INTERVALS], heap_growth[MAX_INTERVALS];
    unsigned intervals = 0, previous_cycle = 0;
    size_t previous = 0, previous_heap = 0;

    for (unsigned c = 1; c <= cycles; c++) {
        bool checkpoint = c % every == 0 || c == cycles;

        cycle_fn(c, checkpoint);
        if (!checkpoint)
            continue;
        check_refs(name, c);
        size_t bytes = private_bytes(), heap = crt_heap_bytes();
        test_progress("soak: %s cycle %u of %u: private %zu KB, C heap %zu KB, leaked references "
                      "%u, wrong data %u",
                      name, c, cycles, bytes / 1024, heap / 1024, leaked_refs, bad_data);
        if (measuring && intervals < MAX_INTERVALS) {
            double step = (double)bytes - (double)previous;
            heap_growth[intervals] = ((double)heap - (double)previous_heap) / (c - previous_cycle);
            growth[intervals++] = step / (c - previous_cycle);
            if (step > r.largest)
                r.largest = step;
        }
        if (c >= warmup && !measuring) {
            measuring = true;
            r.first = bytes;
            r.measured = c;
        }
        previous = bytes;
        previous_heap = heap;
        previous_cycle = c;
        r.last = bytes;
        if (c == cycles)
            r.measured = c - r.measured;
    }
    r.overall = r.measured ? ((double)r.last - (double)r.first) / r.measured : 0;
    r.per_cycle = median_growth(growth, intervals);
    r.heap = median_growth(heap_growth, intervals);
    r.ms = GetTickCount() - start;
    printf("soak: %s: %u cycles in %lu ms, over the last %u cycles: median %.1f bytes/cycle "
           "(%u intervals), first to last %.1f bytes/cycle, largest interval step %.0f KB; C "
           "heap median %.1f bytes/cycle\n",
           name, cycles, (unsigned long)r.ms, r.measured, r.per_cycle, intervals, r.overall,
           r.largest / 1024, r.heap);
    return r;
}

static void get_binary(void)
{
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &cl_device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    cl_program program = test_program(context, cl_device, source);

    CHECK_ERR(
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(binary_size), &binary_size, NULL),
        CL_SUCCESS);
    REQUIRE(binary_size && (binary = malloc(binary_size)), "program binary");
    CHECK_ERR(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(binary), &binary, NULL),
              CL_SUCCESS);
    clReleaseProgram(program);
    clReleaseContext(context);
}

/* Milliseconds of one cycle of each loop (checkpoint reads included): the faster of two, after
 * a first one that pays the one-time costs (kernel builds from the binary, first contexts).
 * Cycle numbers past any loop's, so the data differs from theirs. */
static DWORD time_cycles(void)
{
    static void (*const loops[3])(unsigned, bool) = {baseline_cycle, driver_cycle, dxcl_cycle};
    static const char *names[3] = {"baseline", "driver", "dxcl"};
    DWORD total = 0;

    for (int i = 0; i < 3; i++) {
        DWORD best = ~0u;
        loops[i](900000u + i, true);
        for (unsigned k = 1; k <= 2; k++) {
            DWORD start = GetTickCount();
            loops[i](900000u + 10 * k + i, true);
            DWORD ms = GetTickCount() - start;
            best = ms < best ? ms : best;
        }
        test_progress("soak: calibration: one %s cycle takes %lu ms", names[i],
                      (unsigned long)best);
        total += best;
    }
    return total ? total : 1;
}

static unsigned budget_seconds(void)
{
    char value[16];
    DWORD len = GetEnvironmentVariableA("DXCL_SOAK_BUDGET_S", value, sizeof(value));
    unsigned long s = len && len < sizeof(value) ? strtoul(value, NULL, 10) : 0;

    return s ? (unsigned)s : SHORT_BUDGET_S;
}

static void CL_CALLBACK callback_ran(cl_event event, cl_int status, void *data)
{
    (void)event, (void)status;
    InterlockedIncrement((volatile LONG *)data);
}

/* dxcl starts its callback waiter thread (a stack of its own: about a megabyte of private
 * bytes at once) the first time it needs it, which a cycle's teardown may do when the driver
 * still holds an object (docs/design.md, "Threads"): started here, once, it is not counted as
 * a cycle's growth. */
static void start_callback_waiter(void)
{
    static volatile LONG ran;
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &cl_device, NULL, NULL, &err);
    cl_event user = clCreateUserEvent(context, &err);

    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    CHECK_ERR(clSetEventCallback(user, CL_COMPLETE, callback_ran, (void *)&ran), CL_SUCCESS);
    CHECK_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    CHECK(test_wait_count(&ran, 1, 10000), "the callback waiter runs");
    clReleaseEvent(user);
    clReleaseContext(context);
}

int main(int argc, char **argv)
{
    unsigned cycles = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
    unsigned every = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : cycles / 4;

    char format[16];

    if (GetEnvironmentVariableA("DXCL_SOAK_FORMAT", format, sizeof(format)) &&
        !strcmp(format, "rgba32")) {
        desc2d.format = desc3d.format = DXGI_FORMAT_R32G32B32A32_UINT;
        channels = 4;
    }
    platform = test_platform();
    cl_device = test_device(platform);
    interop_load(&api_d3d11_khr, platform);
    interop_load(&api_d3d10_khr, platform);
    dx9_load(platform);
    d3d11 = api_d3d11_khr.create_device();
    d3d10 = api_d3d10_khr.create_device();
    d3d9 = dx9_device(DX9_D3D9EX);
    REQUIRE(d3d11 && d3d10 && d3d9, "devices");
    get_binary();
    start_callback_waiter();
    if (!cycles) {
        /* The short form: what fits the budget, in whole quarters. */
        unsigned budget = budget_seconds();
        DWORD per_cycle = time_cycles();
        unsigned long fit = budget * 1000ul / per_cycle;

        cycles = fit >= SHORT_CYCLES ? SHORT_CYCLES : (unsigned)fit / 4 * 4;
        if (cycles < SHORT_MIN_CYCLES)
            cycles = SHORT_MIN_CYCLES;
        every = cycles / 4;
        test_progress("soak: short form: %lu ms per cycle of the three loops, %u s budget: %u "
                      "cycles (at most %u), checkpoint every %u",
                      (unsigned long)per_cycle, budget, cycles, SHORT_CYCLES, every);
    }
    REQUIRE(cycles >= 2 * every && every > 0, "cycles >= 2 * every");
    /* The warm-up: Wine's and the driver's pools and caches fill during the first checkpoint. */
    unsigned warmup = every;
    base_ref11 = test_com_refcount(d3d11);
    base_ref10 = test_com_refcount(d3d10);
    base_ref9 = test_refcount((IUnknown *)d3d9);

    struct loop_result base = run_loop("baseline", baseline_cycle, cycles, every, warmup);
    struct loop_result driver = run_loop("driver", driver_cycle, cycles, every, warmup);
    struct loop_result dxcl = run_loop("dxcl", dxcl_cycle, cycles, every, warmup);
    double beyond = dxcl.per_cycle - driver.per_cycle;

    printf("soak: %u cycles (checkpoint every %u): dxcl %.1f B/cycle, baseline (Direct3D) %.1f "
           "B/cycle, driver (Direct3D + the same OpenCL work) %.1f B/cycle, dxcl beyond the "
           "baseline %.1f B/cycle, beyond the driver %.1f B/cycle, %u leaked references, %u "
           "wrong data\n",
           cycles, every, dxcl.per_cycle, base.per_cycle, driver.per_cycle,
           dxcl.per_cycle - base.per_cycle, beyond, leaked_refs, bad_data);
    CHECK(leaked_refs == 0, "%u leaked references", leaked_refs);
    CHECK(bad_data == 0, "%u wrong reads", bad_data);
    double limit = dxcl.measured >= TARGET_CYCLES ? LEAK_TARGET : LEAK_GUARD;

    printf("soak: target %.0f B/cycle beyond the driver: %s (checked: <= %.0f over %u cycles)\n",
           LEAK_TARGET, beyond <= LEAK_TARGET ? "met" : "NOT met", limit, dxcl.measured);
    CHECK(beyond <= limit, "leak %.1f B/cycle beyond the driver loop (limit %.0f)", beyond, limit);
    /* DXVK allocates from the same C runtime: the driver loop's Direct3D work is taken off. */
    double heap_beyond = dxcl.heap - driver.heap;
    printf("soak: target %.0f B/cycle of dxcl's own heap (the C heap in the dxcl loop %.1f, in "
           "the driver loop %.1f): %s (%.1f)\n",
           LEAK_TARGET, dxcl.heap, driver.heap, heap_beyond <= LEAK_TARGET ? "met" : "NOT met",
           heap_beyond);
    CHECK(heap_beyond <= LEAK_TARGET,
          "dxcl's heap grows %.1f B/cycle beyond the driver loop's "
          "(target %.0f)",
          heap_beyond, LEAK_TARGET);

    interop_check_gpu_served("soak");
    free(binary);
    CHECK(api_d3d11_khr.release(d3d11) == 0, "D3D11 device released");
    CHECK(api_d3d10_khr.release(d3d10) == 0, "D3D10 device released");
    CHECK(IDirect3DDevice9_Release(d3d9) == 0, "D3D9 device released");
    return test_finish("soak");
}
