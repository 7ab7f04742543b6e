/* The cost of an emulated format: one D3D11 -> OpenCL -> D3D11 frame (acquire, a kernel,
 * release) on a 1920x1080 R8G8_UNORM texture (CL_RG: emulated on PoCL with an RGBA backing)
 * against the same frame on R8G8B8A8_UNORM (native), interleaved in one run. Prints the
 * median frame time of each and their ratio. Usage: bench_formats.exe [frames] */
#define COBJMACROS
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <windows.h>
#include <d3d11.h>
#include <stdio.h>
#include <stdlib.h>
#include <CL/cl.h>
#include <CL/cl_d3d11.h>

enum { W = 1920, H = 1080 };

static const char *source =
    "__kernel void invert(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(dst, p, (float4)(1.0f) - read_imagef(src, p)); }\n";

static void die(const char *what, long code)
{
    fprintf(stderr, "bench: %s failed (%ld)\n", what, code);
    exit(1);
}

#define TRY_CL(call)                                                                               \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS)                                                                      \
            die(#call, e_);                                                                        \
    } while (0)

static double now_ms(void)
{
    LARGE_INTEGER f, t;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart * 1000.0 / (double)f.QuadPart;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), compare);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct pair {
    ID3D11Texture2D *textures[2];
    cl_mem objects[2];
};

static void make_pair(ID3D11Device *device, cl_context context,
                      clCreateFromD3D11Texture2DKHR_fn create, DXGI_FORMAT format,
                      struct pair *pair)
{
    D3D11_TEXTURE2D_DESC desc = {
        W, H, 1, 1, format, {1, 0}, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, 0};
    cl_int err;

    for (int i = 0; i < 2; i++) {
        if (FAILED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &pair->textures[i])))
            die("CreateTexture2D", format);
        pair->objects[i] =
            create(context, i ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY, pair->textures[i], 0, &err);
        TRY_CL(err);
    }
}

static double frame(cl_command_queue queue, cl_kernel kernel, struct pair *pair,
                    clEnqueueAcquireD3D11ObjectsKHR_fn acquire,
                    clEnqueueReleaseD3D11ObjectsKHR_fn release)
{
    const size_t region[2] = {W, H};
    double t0 = now_ms();

    TRY_CL(clSetKernelArg(kernel, 0, sizeof(cl_mem), &pair->objects[0]));
    TRY_CL(clSetKernelArg(kernel, 1, sizeof(cl_mem), &pair->objects[1]));
    TRY_CL(acquire(queue, 2, pair->objects, 0, NULL, NULL));
    TRY_CL(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, region, NULL, 0, NULL, NULL));
    TRY_CL(release(queue, 2, pair->objects, 0, NULL, NULL));
    TRY_CL(clFinish(queue));
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 20;
    double *rg = calloc(frames, sizeof(double)), *rgba = calloc(frames, sizeof(double));
    ID3D11Device *device;
    ID3D11DeviceContext *immediate;
    cl_platform_id platform;
    cl_device_id cl_device;
    struct pair emulated, native;
    cl_int err;

    if (FAILED(D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0,
                                 D3D11_SDK_VERSION, &device, NULL, &immediate)))
        die("D3D11CreateDevice", 0);
    TRY_CL(clGetPlatformIDs(1, &platform, NULL));
    TRY_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &cl_device, NULL));
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)device, 0};
    cl_context context = clCreateContext(props, 1, &cl_device, NULL, NULL, &err);
    TRY_CL(err);
    cl_command_queue queue = clCreateCommandQueue(context, cl_device, 0, &err);
    TRY_CL(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    TRY_CL(clBuildProgram(program, 1, &cl_device, "", NULL, NULL));
    cl_kernel kernel = clCreateKernel(program, "invert", &err);
    TRY_CL(err);
    clCreateFromD3D11Texture2DKHR_fn create =
        clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11Texture2DKHR");
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireD3D11ObjectsKHR");
    clEnqueueReleaseD3D11ObjectsKHR_fn release =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseD3D11ObjectsKHR");
    if (!create || !acquire || !release)
        die("cl_khr_d3d11_sharing lookup (is OpenCL.dll dxcl?)", 0);
    make_pair(device, context, create, DXGI_FORMAT_R8G8_UNORM, &emulated);
    make_pair(device, context, create, DXGI_FORMAT_R8G8B8A8_UNORM, &native);

    printf("bench: %dx%d frame (acquire, kernel, release), %d frames each, interleaved\n", W, H,
           frames);
    for (int i = -2; i < frames; i++) { /* two warm-up frames of each */
        double a = frame(queue, kernel, &emulated, acquire, release);
        double b = frame(queue, kernel, &native, acquire, release);
        if (i >= 0) {
            rg[i] = a;
            rgba[i] = b;
        }
    }
    double e = median(rg, frames), n = median(rgba, frames);
    printf("R8G8_UNORM (CL_RG, emulated on RGBA):  %8.2f ms\n", e);
    printf("R8G8B8A8_UNORM (CL_RGBA, native):      %8.2f ms\n", n);
    printf("ratio emulated RG / native RGBA:       %8.2f (per byte of texture: %.2f)\n", e / n,
           e / n * 2.0);
    return 0;
}
