/* D3D11 -> OpenCL -> D3D11 per frame on a 1920x1080 RGBA8 texture, two ways in one run:
 *   sharing: clEnqueueAcquireD3D11ObjectsKHR, a kernel, clEnqueueReleaseD3D11ObjectsKHR;
 *   manual:  what a program writes without the extension: CopyResource to a staging texture,
 *            Map, clEnqueueWriteImage, the kernel, clEnqueueReadImage, Map a staging texture,
 *            copy, CopyResource back.
 * Prints the median frame time of each and their ratio. Usage: bench_d3d11.exe [frames] */
#include "benchlib.h"

enum { W = 1920, H = 1080 };

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
    struct bench_cl cl;
    cl_int err;

    for (size_t i = 0; i < (size_t)W * H * 4; i++)
        input[i] = (unsigned char)(i * 2654435761u >> 24);
    TRY_HR(D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0, D3D11_SDK_VERSION,
                             &s.device, NULL, &s.immediate));
    s.src = texture(s.device, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, input);
    s.dst = texture(s.device, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, NULL);
    s.staging = texture(s.device, D3D11_USAGE_STAGING, 0,
                        D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE, NULL);

    bench_cl_open(s.device, &cl);
    s.context = cl.context;
    s.queue = cl.queue;
    s.kernel = cl.kernel;
    clCreateFromD3D11Texture2DKHR_fn create = cl.create;
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire = cl.acquire;
    clEnqueueReleaseD3D11ObjectsKHR_fn release = cl.release;

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
