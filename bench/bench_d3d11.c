/* D3D11 -> OpenCL -> D3D11 per frame on a 1920x1080 RGBA8 texture, two ways in one run:
 *   sharing: clEnqueueAcquireD3D11ObjectsKHR, a kernel, clEnqueueReleaseD3D11ObjectsKHR;
 *   manual:  what a program writes without the extension: CopyResource to a staging texture,
 *            Map, clEnqueueWriteImage, the kernel, clEnqueueReadImage, Map a staging texture,
 *            copy, CopyResource back.
 * Prints the median frame time of each and their ratio. Usage: bench_d3d11.exe [frames] */
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

enum { W = 1920, H = 1080 };

static const char *source =
    "__kernel void invert(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float4 v = read_imagef(src, p); write_imagef(dst, p, (float4)(1.0f) - v); }\n";

static void die(const char *what, long code)
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

static double now_ms(void)
{
    LARGE_INTEGER t, f;

    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return 1000.0 * (double)t.QuadPart / (double)f.QuadPart;
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

struct setup {
    ID3D11Device *device;
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *src, *dst, *staging;
    cl_context context;
    cl_command_queue queue;
    cl_kernel kernel;
};

static ID3D11Texture2D *texture(ID3D11Device *device, D3D11_USAGE usage, UINT bind, UINT cpu,
                                const void *data)
{
    D3D11_TEXTURE2D_DESC desc = {W,      H,     1,    1,   DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0}, usage, bind, cpu, 0};
    D3D11_SUBRESOURCE_DATA init = {data, W * 4, 0};
    ID3D11Texture2D *t;

    TRY_HR(ID3D11Device_CreateTexture2D(device, &desc, data ? &init : NULL, &t));
    return t;
}

static void frame_manual(struct setup *s, cl_mem src, cl_mem dst)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    D3D11_MAPPED_SUBRESOURCE m;

    ID3D11DeviceContext_CopyResource(s->immediate, (ID3D11Resource *)s->staging,
                                     (ID3D11Resource *)s->src);
    TRY_HR(ID3D11DeviceContext_Map(s->immediate, (ID3D11Resource *)s->staging, 0,
                                   D3D11_MAP_READ_WRITE, 0, &m));
    TRY_CL(clEnqueueWriteImage(s->queue, src, CL_TRUE, origin, region, m.RowPitch, 0, m.pData, 0,
                               NULL, NULL));
    TRY_CL(clEnqueueNDRangeKernel(s->queue, s->kernel, 2, NULL, region, NULL, 0, NULL, NULL));
    TRY_CL(clEnqueueReadImage(s->queue, dst, CL_TRUE, origin, region, m.RowPitch, 0, m.pData, 0,
                              NULL, NULL));
    ID3D11DeviceContext_Unmap(s->immediate, (ID3D11Resource *)s->staging, 0);
    ID3D11DeviceContext_CopyResource(s->immediate, (ID3D11Resource *)s->dst,
                                     (ID3D11Resource *)s->staging);
}

static void frame_sharing(struct setup *s, cl_mem objects[2],
                          clEnqueueAcquireD3D11ObjectsKHR_fn acquire,
                          clEnqueueReleaseD3D11ObjectsKHR_fn release)
{
    const size_t region[2] = {W, H};

    TRY_CL(acquire(s->queue, 2, objects, 0, NULL, NULL));
    TRY_CL(clEnqueueNDRangeKernel(s->queue, s->kernel, 2, NULL, region, NULL, 0, NULL, NULL));
    TRY_CL(release(s->queue, 2, objects, 0, NULL, NULL));
}

static void check_result(struct setup *s, const unsigned char *input)
{
    D3D11_MAPPED_SUBRESOURCE m;
    int wrong = 0;

    ID3D11DeviceContext_CopyResource(s->immediate, (ID3D11Resource *)s->staging,
                                     (ID3D11Resource *)s->dst);
    TRY_HR(ID3D11DeviceContext_Map(s->immediate, (ID3D11Resource *)s->staging, 0, D3D11_MAP_READ, 0,
                                   &m));
    for (int y = 0; y < H; y += 97)
        for (int x = 0; x < W * 4; x++)
            wrong += ((unsigned char *)m.pData)[y * m.RowPitch + x] != 255 - input[y * W * 4 + x];
    ID3D11DeviceContext_Unmap(s->immediate, (ID3D11Resource *)s->staging, 0);
    if (wrong)
        die("result check", wrong);
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 20;
    double *manual = calloc(frames, sizeof(double)), *sharing = calloc(frames, sizeof(double));
    unsigned char *input = malloc((size_t)W * H * 4);
    const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
    struct setup s;
    cl_platform_id platform;
    cl_device_id cl_device;
    cl_int err;

    for (size_t i = 0; i < (size_t)W * H * 4; i++)
        input[i] = (unsigned char)(i * 2654435761u >> 24);
    TRY_HR(D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0, D3D11_SDK_VERSION,
                             &s.device, NULL, &s.immediate));
    s.src = texture(s.device, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, input);
    s.dst = texture(s.device, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, NULL);
    s.staging = texture(s.device, D3D11_USAGE_STAGING, 0,
                        D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE, NULL);

    TRY_CL(clGetPlatformIDs(1, &platform, NULL));
    TRY_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &cl_device, NULL));
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)s.device,
                                     0};
    s.context = clCreateContext(props, 1, &cl_device, NULL, NULL, &err);
    TRY_CL(err);
    s.queue = clCreateCommandQueue(s.context, cl_device, 0, &err);
    TRY_CL(err);
    cl_program program = clCreateProgramWithSource(s.context, 1, &source, NULL, &err);
    TRY_CL(clBuildProgram(program, 1, &cl_device, "", NULL, NULL));
    s.kernel = clCreateKernel(program, "invert", &err);
    TRY_CL(err);

    clCreateFromD3D11Texture2DKHR_fn create =
        clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11Texture2DKHR");
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireD3D11ObjectsKHR");
    clEnqueueReleaseD3D11ObjectsKHR_fn release =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseD3D11ObjectsKHR");
    if (!create || !acquire || !release)
        die("cl_khr_d3d11_sharing lookup (is OpenCL.dll dxcl?)", 0);

    cl_mem plain[2], shared[2];
    for (int i = 0; i < 2; i++) {
        plain[i] = clCreateImage(s.context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
        TRY_CL(err);
    }
    shared[0] = create(s.context, CL_MEM_READ_ONLY, s.src, 0, &err);
    TRY_CL(err);
    shared[1] = create(s.context, CL_MEM_WRITE_ONLY, s.dst, 0, &err);
    TRY_CL(err);

    printf("bench: %dx%d RGBA8, %d frames each, interleaved (median ms per frame)\n", W, H, frames);
    for (int i = -2; i < frames; i++) { /* two warm-up frames of each */
        double t0 = now_ms();
        TRY_CL(clSetKernelArg(s.kernel, 0, sizeof(cl_mem), &plain[0]));
        TRY_CL(clSetKernelArg(s.kernel, 1, sizeof(cl_mem), &plain[1]));
        frame_manual(&s, plain[0], plain[1]);
        double t1 = now_ms();
        TRY_CL(clSetKernelArg(s.kernel, 0, sizeof(cl_mem), &shared[0]));
        TRY_CL(clSetKernelArg(s.kernel, 1, sizeof(cl_mem), &shared[1]));
        frame_sharing(&s, shared, acquire, release);
        double t2 = now_ms();
        if (i >= 0) {
            manual[i] = t1 - t0;
            sharing[i] = t2 - t1;
        }
        fprintf(stderr, "\rframe %d/%d", i + 1 > 0 ? i + 1 : 0, frames);
    }
    fprintf(stderr, "\n");
    check_result(&s, input);
    double m = median(manual, frames), sh = median(sharing, frames);
    printf("manual (staging + clEnqueueWrite/ReadImage): %8.2f ms\n", m);
    printf("cl_khr_d3d11_sharing through dxcl:           %8.2f ms\n", sh);
    printf("ratio sharing / manual:                      %8.2f\n", sh / m);
    return 0;
}
