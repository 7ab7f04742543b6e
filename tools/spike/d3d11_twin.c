/* Issue 26's spike, step 3, the Windows side (never shipped): under Wine 8 + DXVK, with
 * vk_layer.c in the host Vulkan chain and dxcl's OpenCL.dll (through its Unix side) beside it.
 * It answers the unknowns of ../shared/notes/gpu-interop.md, each on one line:
 * 1. DXVK's interop interfaces are there (IDXGIVkInteropDevice1, IDXGIVkInteropSurface);
 * 2. the VkImage DXVK hands PE code is the host handle (the layer saw it created);
 * 3. the layer's twin is accepted by CreateTexture2DFromVkImage;
 * 4. Direct3D copies into the twin on the GPU, and OpenCL reads the twin's memory (imported
 *    from the layer's fd) exactly; and back: OpenCL writes, Direct3D copies out, exactly;
 * and times each phase. Prints "N passed, M failed".
 *
 * Build: tools/spike/build.sh. Run: tools/spike/twin-run.sh (local, lavapipe: steps 1-3) or on
 * the H100 through the rig's extra jobs (docs/perf.md, "GPU interop spike"). */
#define COBJMACROS
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <windows.h>
#include <d3d11_3.h>
#include <initguid.h>
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The twin's size: DXCL_SPIKE_TWIN=WxH, as the layer reads it (at most 1920x1080). */
enum { MAX_PIXELS = 1920 * 1080 };
static unsigned WIDTH = 256, HEIGHT = 256;

static int passed, failed;

static void check(int ok, const char *fmt, ...)
{
    va_list ap;

    printf("%s: ", ok ? "ok" : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (ok)
        passed++;
    else
        failed++;
}

/* ---- DXVK's interop interfaces (src/dxgi/dxgi_interfaces.h of DXVK 2.6.2), in C ---- */

typedef uint64_t vk_image;
/* VkImageCreateInfo's layout on x86-64. */
struct vk_image_create_info {
    int s_type;
    const void *next;
    uint32_t flags;
    int image_type;
    int format;
    uint32_t extent[3];
    uint32_t mip_levels, array_layers;
    int samples, tiling;
    uint32_t usage;
    int sharing_mode;
    uint32_t queue_family_count;
    const uint32_t *queue_families;
    int initial_layout;
};

DEFINE_GUID(IID_interop_surface, 0x5546cf8c, 0x77e7, 0x4341, 0xb0, 0x5d, 0x8d, 0x4d, 0x50, 0x00,
            0xe7, 0x7d);
DEFINE_GUID(IID_interop_device1, 0xe2ef5fa5, 0xdc21, 0x4af7, 0x90, 0xc4, 0xf6, 0x7e, 0xf6, 0xa0,
            0x93, 0x24);

struct interop_surface;
struct interop_surface_vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(struct interop_surface *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(struct interop_surface *);
    ULONG(STDMETHODCALLTYPE *Release)(struct interop_surface *);
    HRESULT(STDMETHODCALLTYPE *GetDevice)(struct interop_surface *, void **);
    HRESULT(STDMETHODCALLTYPE *GetVulkanImageInfo)
    (struct interop_surface *, vk_image *, int *layout, struct vk_image_create_info *);
};
struct interop_surface {
    const struct interop_surface_vtbl *lpVtbl;
};

struct interop_device;
struct interop_device_vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(struct interop_device *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(struct interop_device *);
    ULONG(STDMETHODCALLTYPE *Release)(struct interop_device *);
    void(STDMETHODCALLTYPE *GetVulkanHandles)(struct interop_device *, void **instance,
                                              void **physical, void **device);
    void(STDMETHODCALLTYPE *GetSubmissionQueue)(struct interop_device *, void **queue,
                                                uint32_t *family);
    void(STDMETHODCALLTYPE *TransitionSurfaceLayout)(struct interop_device *,
                                                     struct interop_surface *, const void *range,
                                                     int old_layout, int new_layout);
    void(STDMETHODCALLTYPE *FlushRenderingCommands)(struct interop_device *);
    void(STDMETHODCALLTYPE *LockSubmissionQueue)(struct interop_device *);
    void(STDMETHODCALLTYPE *ReleaseSubmissionQueue)(struct interop_device *);
    void(STDMETHODCALLTYPE *GetSubmissionQueue1)(struct interop_device *, void **queue,
                                                 uint32_t *index, uint32_t *family);
    HRESULT(STDMETHODCALLTYPE *CreateTexture2DFromVkImage)
    (struct interop_device *, const D3D11_TEXTURE2D_DESC1 *, vk_image, ID3D11Texture2D **);
};
struct interop_device {
    const struct interop_device_vtbl *lpVtbl;
};

/* ---- OpenCL through dxcl's OpenCL.dll beside the program ---- */

#define CL_FUNCTIONS(X)                                                                            \
    X(clGetPlatformIDs)                                                                            \
    X(clGetDeviceIDs)                                                                              \
    X(clGetDeviceInfo)                                                                             \
    X(clCreateContext)                                                                             \
    X(clCreateCommandQueue)                                                                        \
    X(clCreateImageWithProperties)                                                                 \
    X(clEnqueueReadImage)                                                                          \
    X(clEnqueueWriteImage)                                                                         \
    X(clFinish)                                                                                    \
    X(clReleaseMemObject)                                                                          \
    X(clReleaseCommandQueue)                                                                       \
    X(clReleaseContext)
static struct {
#define X(name) __typeof__(&name) name;
    CL_FUNCTIONS(X)
#undef X
} cl;

static double now_ms(void)
{
    LARGE_INTEGER t, f;

    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart * 1000.0 / (double)f.QuadPart;
}

/* The layer's line "twin image=0x... fd=N ..." (the last one). */
static int read_twin(vk_image *image, int *fd, char *images, size_t images_size)
{
    const char *path = getenv("DXCL_SPIKE_LAYER_WIN");
    FILE *f = fopen(path ? path : "Z:\\tmp\\dxcl-spike-layer.txt", "r");
    char line[512];
    int found = 0;

    images[0] = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long handle;
        if (sscanf(line, "twin image=0x%llx fd=%d", &handle, fd) == 2) {
            *image = handle;
            found = 1;
        }
        if (!strncmp(line, "image 0x", 8) && strlen(images) + 24 < images_size) {
            strncat(images, line + 6, strcspn(line + 6, " "));
            strcat(images, " ");
        }
    }
    fclose(f);
    return found;
}

static void pattern(uint32_t *pixels, uint32_t seed)
{
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++)
        pixels[i] = (i * 2654435761u) ^ seed;
}

static int same(const uint32_t *a, const uint32_t *b, uint32_t *first_bad)
{
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++)
        if (a[i] != b[i]) {
            *first_bad = i;
            return 0;
        }
    return 1;
}

/* The GPU has done everything Direct3D was asked so far. */
static void d3d_wait(ID3D11Device *device, ID3D11DeviceContext *immediate)
{
    D3D11_QUERY_DESC desc = {D3D11_QUERY_EVENT, 0};
    ID3D11Query *query;
    BOOL done = FALSE;

    if (FAILED(ID3D11Device_CreateQuery(device, &desc, &query)))
        return;
    ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)query);
    ID3D11DeviceContext_Flush(immediate);
    while (ID3D11DeviceContext_GetData(immediate, (ID3D11Asynchronous *)query, &done, sizeof(done),
                                       0) != S_OK)
        SwitchToThread();
    ID3D11Query_Release(query);
}

static cl_device_id gpu_device(cl_platform_id *platform_out)
{
    cl_platform_id platforms[8];
    cl_uint count = 0;

    if (cl.clGetPlatformIDs(8, platforms, &count) != CL_SUCCESS)
        return NULL;
    for (cl_uint p = 0; p < count; p++) {
        cl_device_id device;
        if (cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS) {
            *platform_out = platforms[p];
            return device;
        }
    }
    return NULL;
}

static int load_cl(void)
{
    HMODULE dll = LoadLibraryA("OpenCL.dll");

    if (!dll)
        return 0;
#define X(name)                                                                                    \
    cl.name = (__typeof__(cl.name))(void (*)(void))GetProcAddress(dll, #name);                     \
    if (!cl.name)                                                                                  \
        return 0;
    CL_FUNCTIONS(X)
#undef X
    return 1;
}

/* The texture's bytes as Direct3D reads them back (a staging copy); 1 when they equal want. */
static int d3d_reads(ID3D11Device *device, ID3D11DeviceContext *immediate, ID3D11Texture2D *texture,
                     const uint32_t *want, uint32_t *bad_row)
{
    D3D11_TEXTURE2D_DESC desc;
    ID3D11Texture2D *staging;
    D3D11_MAPPED_SUBRESOURCE mapped;
    int exact;

    ID3D11Texture2D_GetDesc(texture, &desc);
    desc.Usage = D3D11_USAGE_STAGING;
    desc.BindFlags = 0;
    desc.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
    desc.MiscFlags = 0;
    if (FAILED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &staging)))
        return 0;
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)staging,
                                     (ID3D11Resource *)texture);
    exact = SUCCEEDED(ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)staging, 0,
                                              D3D11_MAP_READ, 0, &mapped));
    for (uint32_t y = 0; exact && y < HEIGHT; y++)
        if (memcmp((char *)mapped.pData + y * mapped.RowPitch, want + y * WIDTH, WIDTH * 4)) {
            exact = 0;
            *bad_row = y;
        }
    ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)staging, 0);
    ID3D11Texture2D_Release(staging);
    (void)device;
    return exact;
}

/* Step 4: OpenCL on the twin's memory, both ways, through the Direct3D copies. */
static void opencl_side(ID3D11Device *device, ID3D11DeviceContext *immediate,
                        ID3D11Texture2D *texture, ID3D11Texture2D *twin, int fd,
                        const uint32_t *pixels)
{
    static uint32_t got[MAX_PIXELS], want[MAX_PIXELS];
    cl_platform_id platform;
    cl_device_id cl_device;
    char extensions[8192] = "", name[256] = "";
    cl_int err;
    uint32_t bad = 0;
    double t0;

    if (!load_cl()) {
        check(0, "OpenCL.dll with clCreateImageWithProperties (OpenCL 3.0) beside the program");
        return;
    }
    cl_device = gpu_device(&platform);
    if (!cl_device) {
        check(0, "an OpenCL device");
        return;
    }
    cl.clGetDeviceInfo(cl_device, CL_DEVICE_NAME, sizeof(name), name, NULL);
    cl.clGetDeviceInfo(cl_device, CL_DEVICE_EXTENSIONS, sizeof(extensions), extensions, NULL);
    check(strstr(extensions, "cl_khr_external_memory_opaque_fd") != NULL,
          "OpenCL device %s offers cl_khr_external_memory_opaque_fd", name);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context context = cl.clCreateContext(props, 1, &cl_device, NULL, NULL, &err);
    cl_command_queue queue = cl.clCreateCommandQueue(context, cl_device, 0, &err);
    cl_mem_properties mem_props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                     (cl_mem_properties)fd,
                                     CL_DEVICE_HANDLE_LIST_KHR,
                                     (cl_mem_properties)cl_device,
                                     CL_DEVICE_HANDLE_LIST_END_KHR,
                                     0};
    cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = WIDTH, .image_height = HEIGHT};
    t0 = now_ms();
    cl_mem image = cl.clCreateImageWithProperties(context, mem_props, CL_MEM_READ_WRITE, &format,
                                                  &desc, NULL, &err);
    check(image != NULL, "clCreateImageWithProperties of the twin's fd %d: %d (%.3f ms)", fd, err,
          now_ms() - t0);
    if (!image)
        return;

    size_t origin[3] = {0, 0, 0}, region[3] = {WIDTH, HEIGHT, 1};
    /* Direct3D -> twin (GPU copy) -> OpenCL. */
    t0 = now_ms();
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)twin, (ID3D11Resource *)texture);
    d3d_wait(device, immediate);
    double copy_ms = now_ms() - t0;
    t0 = now_ms();
    err = cl.clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL);
    check(err == CL_SUCCESS && same(got, pixels, &bad),
          "Direct3D texture -> twin (CopyResource + wait %.3f ms) -> OpenCL read (%.3f ms): "
          "%d, exact%s (pixel %u: 0x%08x want 0x%08x)",
          copy_ms, now_ms() - t0, err, "", bad, got[bad], pixels[bad]);

    /* OpenCL -> twin -> Direct3D texture (GPU copy) -> staging read. */
    pattern(want, 0x5a5a1234u);
    t0 = now_ms();
    err = cl.clEnqueueWriteImage(queue, image, CL_TRUE, origin, region, 0, 0, want, 0, NULL, NULL);
    cl.clFinish(queue);
    double write_ms = now_ms() - t0;
    t0 = now_ms();
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)texture, (ID3D11Resource *)twin);
    int exact = d3d_reads(device, immediate, texture, want, &bad);
    double back_ms = now_ms() - t0;
    check(err == CL_SUCCESS && exact,
          "OpenCL write (%.3f ms) -> twin -> Direct3D texture -> staging read (%.3f ms): %d, %s "
          "(row %u)",
          write_ms, back_ms, err, exact ? "exact" : "DIFFERENT", bad);
    cl.clReleaseMemObject(image);
    cl.clReleaseCommandQueue(queue);
    cl.clReleaseContext(context);
}

int main(void)
{
    static uint32_t pixels[MAX_PIXELS];
    ID3D11Device *device;
    ID3D11DeviceContext *immediate;
    struct interop_device *interop;
    struct interop_surface *surface;
    HRESULT hr;
    char images[4096];
    vk_image twin_image = 0, image = 0;
    int fd = -1, layout = 0;

    const char *size = getenv("DXCL_SPIKE_TWIN");
    if (size && (sscanf(size, "%ux%u", &WIDTH, &HEIGHT) != 2 || WIDTH * HEIGHT > MAX_PIXELS)) {
        check(0, "DXCL_SPIKE_TWIN=%s: WxH, at most 1920x1080", size);
        goto done;
    }
    hr = D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0, D3D11_SDK_VERSION,
                           &device, NULL, &immediate);
    check(SUCCEEDED(hr), "D3D11CreateDevice: 0x%08lx", (unsigned long)hr);
    if (FAILED(hr))
        goto done;
    hr = ID3D11Device_QueryInterface(device, &IID_interop_device1, (void **)&interop);
    check(SUCCEEDED(hr), "1. IDXGIVkInteropDevice1 (DXVK): 0x%08lx", (unsigned long)hr);
    if (FAILED(hr))
        goto done;
    void *vk_instance, *vk_physical, *vk_device;
    interop->lpVtbl->GetVulkanHandles(interop, &vk_instance, &vk_physical, &vk_device);
    printf("DXVK's Vulkan handles in PE code: instance %p physical %p device %p\n", vk_instance,
           vk_physical, vk_device);

    pattern(pixels, 0x1234abcdu);
    D3D11_TEXTURE2D_DESC desc = {WIDTH,
                                 HEIGHT,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE,
                                 0,
                                 0};
    D3D11_SUBRESOURCE_DATA init = {pixels, WIDTH * 4, 0};
    ID3D11Texture2D *texture;
    hr = ID3D11Device_CreateTexture2D(device, &desc, &init, &texture);
    check(SUCCEEDED(hr), "the program's texture %ux%u RGBA8: 0x%08lx", WIDTH, HEIGHT,
          (unsigned long)hr);
    if (FAILED(hr))
        goto done;
    hr = ID3D11Texture2D_QueryInterface(texture, &IID_interop_surface, (void **)&surface);
    struct vk_image_create_info info = {.s_type = 14 /* VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO */};
    if (SUCCEEDED(hr))
        hr = surface->lpVtbl->GetVulkanImageInfo(surface, &image, &layout, &info);
    check(SUCCEEDED(hr),
          "1. IDXGIVkInteropSurface::GetVulkanImageInfo: 0x%08lx, VkImage 0x%llx "
          "layout %d format %d tiling %d usage 0x%x",
          (unsigned long)hr, (unsigned long long)image, layout, info.format, info.tiling,
          info.usage);

    if (!read_twin(&twin_image, &fd, images, sizeof(images))) {
        check(0, "the layer's twin (DXCL_SPIKE_TWIN=%ux%u, VK_INSTANCE_LAYERS=VK_LAYER_DXCL_spike)",
              WIDTH, HEIGHT);
        goto done;
    }
    char handle[32];
    snprintf(handle, sizeof(handle), "0x%llx ", (unsigned long long)image);
    check(strstr(images, handle) != NULL,
          "2. the texture's VkImage in PE code is a host handle the layer saw created (%s in: %s)",
          handle, images);

    D3D11_TEXTURE2D_DESC1 twin_desc = {WIDTH,
                                       HEIGHT,
                                       1,
                                       1,
                                       DXGI_FORMAT_R8G8B8A8_UNORM,
                                       {1, 0},
                                       D3D11_USAGE_DEFAULT,
                                       0,
                                       0,
                                       0,
                                       D3D11_TEXTURE_LAYOUT_UNDEFINED};
    ID3D11Texture2D *twin = NULL;
    double t0 = now_ms();
    hr = interop->lpVtbl->CreateTexture2DFromVkImage(interop, &twin_desc, twin_image, &twin);
    check(SUCCEEDED(hr) && twin, "3. CreateTexture2DFromVkImage(twin 0x%llx): 0x%08lx (%.3f ms)",
          (unsigned long long)twin_image, (unsigned long)hr, now_ms() - t0);
    if (FAILED(hr) || !twin)
        goto done;
    uint32_t bad = 0;
    t0 = now_ms();
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)twin, (ID3D11Resource *)texture);
    int exact = d3d_reads(device, immediate, twin, pixels, &bad);
    check(exact,
          "3. the texture copied into the twin on the GPU reads back exactly through "
          "Direct3D (%.3f ms, row %u)",
          now_ms() - t0, bad);
    opencl_side(device, immediate, texture, twin, fd, pixels);
done:
    printf("d3d11_twin: %d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return failed ? 1 : 0;
}
