/* The cost of an emulated format: one D3D11 -> OpenCL -> D3D11 frame (acquire, a kernel,
 * release) on a 1920x1080 R8G8_UNORM texture (CL_RG: emulated on PoCL with an RGBA backing)
 * against the same frame on R8G8B8A8_UNORM (native), interleaved in one run. Prints the
 * median frame time of each and their ratio. Usage: bench_formats.exe [frames] */
#include "benchlib.h"

enum { W = 1920, H = 1080 };

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
    struct bench_cl cl;
    struct pair emulated, native;

    if (FAILED(D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0,
                                 D3D11_SDK_VERSION, &device, NULL, &immediate)))
        die("D3D11CreateDevice", 0);
    bench_cl_open(device, &cl);
    cl_command_queue queue = cl.queue;
    cl_kernel kernel = cl.kernel;
    clCreateFromD3D11Texture2DKHR_fn create = cl.create;
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire = cl.acquire;
    clEnqueueReleaseD3D11ObjectsKHR_fn release = cl.release;
    cl_context context = cl.context;
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
