/* What the benchmarks share: failing loudly, timing, medians, and an OpenCL context on a
 * D3D11 device with the "invert" kernel and the cl_khr_d3d11_sharing entry points. */
#ifndef DXCL_BENCHLIB_H
#define DXCL_BENCHLIB_H

#define COBJMACROS
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <windows.h>
#include <d3d11.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include <CL/cl_d3d11.h>

static inline void die(const char *what, long code)
{
    fprintf(stderr, "bench: %s failed (%ld)\n", what, code);
    exit(1);
}

#define TRY_CL(call)                                                                               \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS)                                                                    \
            die(#call, err_);                                                                      \
    } while (0)
#define TRY_HR(call)                                                                               \
    do {                                                                                           \
        HRESULT hr_ = (call);                                                                      \
        if (FAILED(hr_))                                                                           \
            die(#call, hr_);                                                                       \
    } while (0)

static inline double now_ms(void)
{
    LARGE_INTEGER t, f;

    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return 1000.0 * (double)t.QuadPart / (double)f.QuadPart;
}

static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct bench_cl {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_kernel kernel; /* invert(src, dst): 1 - x per channel */
    clCreateFromD3D11Texture2DKHR_fn create;
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire;
    clEnqueueReleaseD3D11ObjectsKHR_fn release;
};

static inline void bench_cl_open(ID3D11Device *d3d, struct bench_cl *cl)
{
    static const char *source =
        "__kernel void invert(__read_only image2d_t src, __write_only image2d_t dst)\n"
        "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
        "  float4 v = read_imagef(src, p); write_imagef(dst, p, (float4)(1.0f) - v); }\n";
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d, 0};
    cl_platform_id platform;
    cl_program program;
    cl_int err;

    TRY_CL(clGetPlatformIDs(1, &platform, NULL));
    TRY_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &cl->device, NULL));
    cl->context = clCreateContext(props, 1, &cl->device, NULL, NULL, &err);
    TRY_CL(err);
    cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &err);
    TRY_CL(err);
    program = clCreateProgramWithSource(cl->context, 1, &source, NULL, &err);
    TRY_CL(err);
    TRY_CL(clBuildProgram(program, 1, &cl->device, "", NULL, NULL));
    cl->kernel = clCreateKernel(program, "invert", &err);
    TRY_CL(err);
    cl->create =
        clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11Texture2DKHR");
    cl->acquire =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireD3D11ObjectsKHR");
    cl->release =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseD3D11ObjectsKHR");
    if (!cl->create || !cl->acquire || !cl->release)
        die("cl_khr_d3d11_sharing lookup (is OpenCL.dll dxcl?)", 0);
}

#endif
