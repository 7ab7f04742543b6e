/* P2: a plain OpenCL call through dxcl vs the driver itself, no shared objects. The driver is
 * Wine's builtin opencl.dll loaded by its full system32 path beside dxcl (test_driver); both
 * work on the same driver handles. Each frame is a batch of calls, the two routes interleaved. */
#include "benchlib.h"
#include "real_driver.h"

#include <string.h>

enum { INFO_CALLS = 5000, KERNEL_CALLS = 20, ITEMS = 64 };

static const char add_one_source[] =
    "__kernel void add_one(__global int *a, long delta) { a[get_global_id(0)] += (int)delta; }\n";

/* The three functions a frame calls, through one route. */
struct route {
    cl_int(CL_API_CALL *get_device_info)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_int(CL_API_CALL *enqueue_kernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                        const size_t *, const size_t *, cl_uint, const cl_event *,
                                        cl_event *);
    cl_int(CL_API_CALL *finish)(cl_command_queue);
    cl_int(CL_API_CALL *get_queue_info)(cl_command_queue, cl_command_queue_info, size_t, void *,
                                        size_t *);
    cl_int(CL_API_CALL *set_kernel_arg)(cl_kernel, cl_uint, size_t, const void *);
    cl_device_id device;
    cl_command_queue queue;
    cl_kernel kernel;
    cl_mem buffer; /* the kernel's argument */
    int *enqueued; /* kernels run, for the result check */
};

static void device_info(void *ctx, struct bench_clock *clock)
{
    struct route *r = ctx;
    char name[256];

    for (int i = 0; i < INFO_CALLS; i++)
        BENCH_CL(r->get_device_info(r->device, CL_DEVICE_NAME, sizeof(name), name, NULL));
    bench_mark(clock);
}

/* A call dxcl forwards untouched (route FWD in src/core/cl_api.h). */
static void queue_info(void *ctx, struct bench_clock *clock)
{
    struct route *r = ctx;
    cl_context context;

    for (int i = 0; i < INFO_CALLS; i++)
        BENCH_CL(r->get_queue_info(r->queue, CL_QUEUE_CONTEXT, sizeof(context), &context, NULL));
    bench_mark(clock);
}

/* An intercepted call on every kernel launch of many programs: a cl_mem argument, then an
 * 8-byte integer one (of a cl_mem's size: the kernel's argument info tells dxcl it is no memory
 * object). */
static void set_args(void *ctx, struct bench_clock *clock)
{
    struct route *r = ctx;
    const cl_long delta = 1;

    for (int i = 0; i < INFO_CALLS / 2; i++) {
        BENCH_CL(r->set_kernel_arg(r->kernel, 0, sizeof(cl_mem), &r->buffer));
        BENCH_CL(r->set_kernel_arg(r->kernel, 1, sizeof(delta), &delta));
    }
    bench_mark(clock);
}

static void small_kernel(void *ctx, struct bench_clock *clock)
{
    struct route *r = ctx;
    const size_t items = ITEMS;

    for (int i = 0; i < KERNEL_CALLS; i++) {
        BENCH_CL(r->enqueue_kernel(r->queue, r->kernel, 1, NULL, &items, NULL, 0, NULL, NULL));
        BENCH_CL(r->finish(r->queue));
    }
    *r->enqueued += KERNEL_CALLS;
    bench_mark(clock);
}

/* dxcl as a program built with dllimport calls it: through the import slot (not the
 * executable's import thunk, an extra jump the driver route would not have), as FFmpeg does,
 * which links OpenCL.lib. By default the slot holds dxcl's export, one jump to the driver; with
 * DXCL_BIND_IMPORTS=1 dxcl points it at the driver once bound (src/proxy/bind_imports.c). */
extern void *__imp_clGetDeviceInfo, *__imp_clEnqueueNDRangeKernel, *__imp_clFinish,
    *__imp_clGetCommandQueueInfo, *__imp_clSetKernelArg;
#define DXCL_EXPORT_OF(fn) ((__typeof__(&fn))__imp_##fn)

/* The floor of any proxy DLL: the driver's function behind one bare indirect jump, in
 * executable memory of its own (as dxcl's forwarded exports are: `jmp *slot(%rip)`). NULL when
 * no executable memory can be had. */
static void *bare_jump(void *target)
{
    static const unsigned char jmp_rip[6] = {0xff, 0x25, 0, 0, 0, 0}; /* jmp *0(%rip) */
    unsigned char *code = VirtualAlloc(NULL, 4096, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    DWORD old;

    if (!code)
        return NULL;
    memcpy(code, jmp_rip, sizeof(jmp_rip));
    memcpy(code + sizeof(jmp_rip), &target, sizeof(target));
    if (!VirtualProtect(code, 4096, PAGE_EXECUTE_READ, &old))
        return NULL;
    FlushInstructionCache(GetCurrentProcess(), code, 4096);
    return code;
}

/* dxcl's forwarded export itself, as a program that loads OpenCL through GetProcAddress
 * (OpenCV) calls it, against the driver behind a bare jump (the floor of any proxy) and the
 * driver directly: what such a program pays for dxcl's jump. */
static void compare_with_floor(const struct route routes[2])
{
    static const char *const names[3] = {"dxcl's export", "bare jump", "driver directly"};
    struct route variants[3] = {routes[0], routes[1], routes[1]};
    struct bench_variant v[3];
    struct bench_median m[3];

    variants[0].get_queue_info = (__typeof__(variants[0].get_queue_info))(void (*)(
        void))GetProcAddress(test_dxcl_module(), "clGetCommandQueueInfo");
    variants[1].get_queue_info =
        (__typeof__(variants[1].get_queue_info))bare_jump((void *)routes[1].get_queue_info);
    if (!variants[0].get_queue_info || !variants[1].get_queue_info) {
        bench_note("P2 forwarded floor: not measured (no export, or no executable memory)");
        return;
    }
    for (int i = 0; i < 3; i++)
        v[i] = (struct bench_variant){.name = names[i], .frame = queue_info, .ctx = &variants[i]};
    bench_interleave(v, 3, 4 * bench_frames, m);
    bench_value("P2 clGetCommandQueueInfo (forwarded): driver behind one bare jump, per call",
                bench_scaled(&m[1], 1000.0 / INFO_CALLS), "us");
    bench_value("P2 clGetCommandQueueInfo (forwarded): dxcl's export (GetProcAddress) / bare jump",
                bench_frame_ratio(&m[0], &m[1], 1.0), "x (no target)");
    bench_value("P2 clGetCommandQueueInfo (forwarded): dxcl's export (GetProcAddress) / driver",
                bench_frame_ratio(&m[0], &m[2], 1.0), "x (no target)");
    bench_medians_free(m, 3);
}

/* target 0: the ratio is shown without a target (a call whose own cost is a few ns, where any
 * interception shows as a multiple). */
static void compare_routes(const char *figure, void (*frame)(void *, struct bench_clock *),
                           struct route routes[2], int per_frame, const char *unit, double target)
{
    static const char *const names[2] = {"through dxcl", "driver directly"};
    struct bench_variant v[2];
    struct bench_median m[2];
    char name[128];

    for (int i = 0; i < 2; i++)
        v[i] = (struct bench_variant){.name = names[i], .frame = frame, .ctx = &routes[i]};
    bench_interleave(v, 2, 4 * bench_frames, m);
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "%s: %s, per call", figure, names[i]);
        bench_value(name, bench_scaled(&m[i], 1000.0 / per_frame), unit);
    }
    snprintf(name, sizeof(name), "%s: dxcl / driver", figure);
    if (target > 0)
        bench_ratio(name, bench_frame_ratio(&m[0], &m[1], 1.0), target);
    else
        bench_value(name, bench_frame_ratio(&m[0], &m[1], 1.0), "x (no target)");
    bench_medians_free(m, 2);
}

/* The route through the Unix side: the pair's entry points, as dxcl takes them. */
static void unix_side_route(struct route *route, real_driver_lookup_fn lookup)
{
    route->get_device_info = (__typeof__(route->get_device_info))lookup("clGetDeviceInfo");
    route->enqueue_kernel = (__typeof__(route->enqueue_kernel))lookup("clEnqueueNDRangeKernel");
    route->finish = (__typeof__(route->finish))lookup("clFinish");
    route->get_queue_info = (__typeof__(route->get_queue_info))lookup("clGetCommandQueueInfo");
}

/* The same calls into the driver through dxcl's Unix side (its entry points: one C function
 * and one Unix call each) and through Wine's opencl.dll, both loaded directly (run-bench puts
 * the pair on WINEDLLPATH, and DXCL_UNIX=0 keeps dxcl itself on Wine's DLL); both reach the
 * one host libOpenCL.so.1, so the handles are the same. Interleaved in one run. */
static void compare_unix_side(const struct route *wine)
{
    real_driver_lookup_fn lookup;
    HMODULE module = real_driver_load_unix_side(&lookup);
    struct route routes[2] = {*wine, *wine};
    static const char *const names[2] = {"the Unix side", "Wine's opencl.dll"};
    struct {
        const char *figure;
        void (*frame)(void *, struct bench_clock *);
        int per_frame;
    } figures[] = {{"P2 clGetDeviceInfo(CL_DEVICE_NAME)", device_info, INFO_CALLS},
                   {"P2 clGetCommandQueueInfo", queue_info, INFO_CALLS},
                   {"P2 small kernel enqueue + clFinish", small_kernel, KERNEL_CALLS}};

    if (!module) {
        bench_note("P2 through the Unix side: not measured (no dxclunix.dll in Wine's DLL "
                   "folders; run-bench puts build/lib/wine on WINEDLLPATH)");
        return;
    }
    unix_side_route(&routes[0], lookup);
    for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
        struct bench_variant v[2];
        struct bench_median m[2];
        char name[128];

        for (int i = 0; i < 2; i++)
            v[i] = (struct bench_variant){
                .name = names[i], .frame = figures[f].frame, .ctx = &routes[i]};
        bench_interleave(v, 2, 4 * bench_frames, m);
        for (int i = 0; i < 2; i++) {
            snprintf(name, sizeof(name), "%s: driver through %s, per call", figures[f].figure,
                     names[i]);
            bench_value(name, bench_scaled(&m[i], 1000.0 / figures[f].per_frame), "us");
        }
        snprintf(name, sizeof(name), "%s: Unix side / Wine's opencl.dll", figures[f].figure);
        bench_ratio(name, bench_frame_ratio(&m[0], &m[1], 1.0), 1.00);
        bench_medians_free(m, 2);
    }
}

void bench_plain(void)
{
    const struct test_driver *driver = test_driver();
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    int enqueued = 0, values[ITEMS] = {0};
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   sizeof(values), values, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_kernel kernel = test_kernel(context, device, add_one_source, "add_one");
    const cl_long delta = 1;
    BENCH_CL(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer));
    BENCH_CL(clSetKernelArg(kernel, 1, sizeof(delta), &delta));
    struct route routes[2] = {
        {DXCL_EXPORT_OF(clGetDeviceInfo), DXCL_EXPORT_OF(clEnqueueNDRangeKernel),
         DXCL_EXPORT_OF(clFinish), DXCL_EXPORT_OF(clGetCommandQueueInfo),
         DXCL_EXPORT_OF(clSetKernelArg), device, queue, kernel, buffer, &enqueued},
        {driver->clGetDeviceInfo, driver->clEnqueueNDRangeKernel, driver->clFinish,
         driver->clGetCommandQueueInfo, driver->clSetKernelArg, device, queue, kernel, buffer,
         &enqueued}};
    REQUIRE(routes[1].get_device_info && routes[1].enqueue_kernel && routes[1].finish &&
                routes[1].get_queue_info && routes[1].set_kernel_arg,
            "the driver lacks an OpenCL 1.2 function");

    compare_routes("P2 clGetDeviceInfo(CL_DEVICE_NAME)", device_info, routes, INFO_CALLS, "us",
                   1.02);
    /* Forwarded: dxcl's one jump, without touching the program's imports (issue 40). */
    compare_routes("P2 clGetCommandQueueInfo (forwarded)", queue_info, routes, INFO_CALLS, "us",
                   1.05);
    compare_with_floor(routes);
    compare_routes("P2 small kernel enqueue + clFinish", small_kernel, routes, KERNEL_CALLS, "us",
                   1.02);
    compare_routes("P2 clSetKernelArg (cl_mem, long)", set_args, routes, INFO_CALLS, "us", 0);
    compare_unix_side(&routes[1]);

    BENCH_CL(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(values), values, 0, NULL, NULL));
    for (int i = 0; i < ITEMS; i++)
        REQUIRE(values[i] == enqueued, "P2 kernel result %d: %d, want %d", i, values[i], enqueued);
    clReleaseKernel(kernel);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
}
