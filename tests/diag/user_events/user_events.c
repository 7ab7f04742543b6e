/* Native (no Wine, no dxcl): what a driver's user events with a CL_COMPLETE callback cost, through
 * the ICD loader (libOpenCL.so.1). Build: gcc -O2 -o user_events user_events.c -ldl; run:
 * ./user_events N [plain|interleave|queue] (OCL_ICD_VENDORS to pick the driver). perf.md, "Watches
 * where the driver's wait spins". */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <stdatomic.h>

static atomic_int calls;
static void CL_CALLBACK count(cl_event e, cl_int s, void *d)
{
    (void)e;
    (void)s;
    (void)d;
    atomic_fetch_add(&calls, 1);
}
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
#define F(name) typeof(&name) p_##name = (typeof(&name))dlsym(lib, #name)
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    const char *mode = argc > 2 ? argv[2] : "plain"; /* plain, interleave, queue */
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW);
    if (!lib) {
        printf("no libOpenCL: %s\n", dlerror());
        return 1;
    }
    F(clGetPlatformIDs);
    F(clGetDeviceIDs);
    F(clCreateContext);
    F(clCreateUserEvent);
    F(clSetEventCallback);
    F(clSetUserEventStatus);
    F(clReleaseEvent);
    F(clCreateCommandQueue);
    cl_platform_id p;
    cl_device_id d;
    cl_int err;
    p_clGetPlatformIDs(1, &p, NULL);
    p_clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context c = p_clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    cl_event *ev = calloc(n, sizeof(*ev));
    int inter = !strcmp(mode, "interleave");
    if (!strcmp(mode, "queue"))
        p_clCreateCommandQueue(c, d, 0, &err);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        ev[i] = p_clCreateUserEvent(c, &err);
        if (inter)
            p_clSetEventCallback(ev[i], CL_COMPLETE, count, NULL);
    }
    double t1 = now();
    for (int i = 0; i < n && !inter; i++)
        p_clSetEventCallback(ev[i], CL_COMPLETE, count, NULL);
    double t2 = now();
    for (int i = 0; i < n; i++)
        p_clSetUserEventStatus(ev[i], CL_COMPLETE);
    double t3 = now();
    while (atomic_load(&calls) < n && now() - t3 < 120000) {
        struct timespec s = {0, 100000};
        nanosleep(&s, NULL);
    }
    double t4 = now();
    printf("native (%s), %d user events: create %.1f us each, register a callback %.1f us each, "
           "set status %.1f us each, all callbacks ran %.1f ms after the last set (%d ran)\n",
           mode, n, (t1 - t0) * 1e3 / n, (t2 - t1) * 1e3 / n, (t3 - t2) * 1e3 / n, t4 - t3,
           atomic_load(&calls));
    for (int i = 0; i < n; i++)
        p_clReleaseEvent(ev[i]);
    return 0;
}
