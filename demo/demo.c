/* dxcl demo: Direct3D 11 draws a picture, OpenCL runs a Sobel edge filter on it through
 * cl_khr_d3d11_sharing, Direct3D 11 reads the result back, and WIC writes both as PNGs.
 *
 *   demo.exe [OUTPUT_DIR] [FRAMES]
 *
 * OUTPUT_DIR (default: the current directory) receives before.png (the D3D11 texture OpenCL
 * read) and after.png (the D3D11 texture OpenCL wrote); under Wine it may be a Unix path.
 * Every frame: D3D11 redraws the source (background copy + moving squares drawn with clears),
 * OpenCL acquires both textures, runs the kernel and releases them. The last frame is checked
 * against the same filter computed on the CPU. Any error ends the demo with exit code 1. */
#define COBJMACROS
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <windows.h>
#include <d3d11.h>
#include <wincodec.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include <CL/cl_d3d11.h>
#include <dxcl/dxcl.h>

#include "core/names.h"

enum { WIDTH = 1280, HEIGHT = 720, DEFAULT_FRAMES = 30, SPRITES = 4, SPRITE_SIZE = 96 };

static void fail(const char *fmt, ...) __attribute__((noreturn, format(gnu_printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list args;

    fflush(stdout);
    fputs("demo: FAILED: ", stderr);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

#define NAME(e)                                                                                    \
    {                                                                                              \
        e, #e                                                                                      \
    }
static const struct {
    cl_int code;
    const char *name;
} cl_errors[] = {NAME(CL_SUCCESS),
                 NAME(CL_DEVICE_NOT_FOUND),
                 NAME(CL_OUT_OF_RESOURCES),
                 NAME(CL_OUT_OF_HOST_MEMORY),
                 NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED),
                 NAME(CL_BUILD_PROGRAM_FAILURE),
                 NAME(CL_INVALID_VALUE),
                 NAME(CL_INVALID_PLATFORM),
                 NAME(CL_INVALID_DEVICE),
                 NAME(CL_INVALID_CONTEXT),
                 NAME(CL_INVALID_COMMAND_QUEUE),
                 NAME(CL_INVALID_MEM_OBJECT),
                 NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
                 NAME(CL_INVALID_OPERATION),
                 NAME(CL_INVALID_PROPERTY),
                 NAME(CL_INVALID_KERNEL_ARGS),
                 NAME(CL_INVALID_WORK_GROUP_SIZE),
                 NAME(CL_INVALID_D3D11_DEVICE_KHR),
                 NAME(CL_INVALID_D3D11_RESOURCE_KHR),
                 NAME(CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR),
                 NAME(CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR),
                 {-1001, "CL_PLATFORM_NOT_FOUND_KHR"}};
#undef NAME

static const char *cl_error_name(cl_int err)
{
    for (size_t i = 0; i < sizeof(cl_errors) / sizeof(cl_errors[0]); i++)
        if (cl_errors[i].code == err)
            return cl_errors[i].name;
    return "error";
}

#define CL_CHECK(call)                                                                             \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS)                                                                    \
            fail("%s: %s (%d)", #call, cl_error_name(err_), err_);                                 \
    } while (0)
#define CL_CHECK_ERR(what, err)                                                                    \
    do {                                                                                           \
        if ((err) != CL_SUCCESS)                                                                   \
            fail("%s: %s (%d)", what, cl_error_name(err), (err));                                  \
    } while (0)
#define HR_CHECK(call)                                                                             \
    do {                                                                                           \
        HRESULT hr_ = (call);                                                                      \
        if (FAILED(hr_))                                                                           \
            fail("%s: HRESULT 0x%08lx", #call, (unsigned long)hr_);                                \
    } while (0)

/* --- The picture D3D11 starts from: a gradient with shapes (uploaded once). --------------- */

static void put(unsigned char *image, int x, int y, float r, float g, float b)
{
    unsigned char *p = image + ((size_t)y * WIDTH + x) * 4;
    p[0] = (unsigned char)(r * 255.0f + 0.5f);
    p[1] = (unsigned char)(g * 255.0f + 0.5f);
    p[2] = (unsigned char)(b * 255.0f + 0.5f);
    p[3] = 255;
}

static void draw_background(unsigned char *image)
{
    for (int y = 0; y < HEIGHT; y++) {
        for (int x = 0; x < WIDTH; x++) {
            float u = (float)x / (WIDTH - 1), v = (float)y / (HEIGHT - 1);
            float r = 0.10f + 0.25f * u, g = 0.12f + 0.20f * v, b = 0.30f + 0.35f * (1.0f - u);
            float dx, dy, d;

            /* A sun: filled disc with a ring around it. */
            dx = x - 330.0f, dy = y - 300.0f, d = sqrtf(dx * dx + dy * dy);
            if (d < 150.0f)
                r = 0.98f, g = 0.78f - d / 1000.0f, b = 0.20f;
            else if (d > 175.0f && d < 190.0f)
                r = 0.95f, g = 0.55f, b = 0.15f;
            /* A checkerboard panel. */
            if (x >= 620 && x < 900 && y >= 140 && y < 420) {
                int cell = ((x - 620) / 35 + (y - 140) / 35) & 1;
                r = g = b = cell ? 0.92f : 0.18f;
            }
            /* Diagonal stripes in a band at the bottom. */
            if (y >= 520 && y < 640 && x >= 120 && x < 1160 && ((x + y) / 24) % 2 == 0)
                r = 0.20f, g = 0.80f, b = 0.55f;
            /* A triangle on the right. */
            if (y >= 150 && y < 470 && x >= 980 && abs(x - 1090) < (y - 150) / 2.9f)
                r = 0.85f, g = 0.25f, b = 0.45f;
            put(image, x, y, r, g, b);
        }
    }
}

/* --- The OpenCL filter, and the same filter on the CPU to check the result. -------------- */

static const char *kernel_source =
    "__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n"
    "                           CLK_FILTER_NEAREST;\n"
    "float luma(float4 c) { return 0.299f * c.x + 0.587f * c.y + 0.114f * c.z; }\n"
    "__kernel void sobel(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    float l[3][3];\n"
    "    if (p.x >= get_image_width(dst) || p.y >= get_image_height(dst))\n"
    "        return;\n"
    "    for (int j = 0; j < 3; j++)\n"
    "        for (int i = 0; i < 3; i++)\n"
    "            l[j][i] = luma(read_imagef(src, smp, p + (int2)(i - 1, j - 1)));\n"
    "    float gx = (l[0][2] + 2.0f * l[1][2] + l[2][2]) - (l[0][0] + 2.0f * l[1][0] + l[2][0]);\n"
    "    float gy = (l[2][0] + 2.0f * l[2][1] + l[2][2]) - (l[0][0] + 2.0f * l[0][1] + l[0][2]);\n"
    "    float m = clamp(sqrt(gx * gx + gy * gy) * 0.5f, 0.0f, 1.0f);\n"
    "    float4 c = read_imagef(src, smp, p);\n"
    "    float3 o = c.xyz * 0.15f + m * (0.35f + 0.65f * c.xyz);\n"
    "    write_imagef(dst, p, (float4)(o, 1.0f));\n"
    "}\n";

static float cpu_luma(const unsigned char *image, int x, int y)
{
    const unsigned char *p;

    x = x < 0 ? 0 : x >= WIDTH ? WIDTH - 1 : x;
    y = y < 0 ? 0 : y >= HEIGHT ? HEIGHT - 1 : y;
    p = image + ((size_t)y * WIDTH + x) * 4;
    return 0.299f * (p[0] / 255.0f) + 0.587f * (p[1] / 255.0f) + 0.114f * (p[2] / 255.0f);
}

/* Largest channel difference between `result` and the filter of `source` computed here. */
static int check_sobel(const unsigned char *source, const unsigned char *result, int *bad_x,
                       int *bad_y)
{
    int worst = 0;

    for (int y = 0; y < HEIGHT; y++) {
        for (int x = 0; x < WIDTH; x++) {
            float l[3][3], gx, gy, m;
            const unsigned char *s = source + ((size_t)y * WIDTH + x) * 4;
            const unsigned char *r = result + ((size_t)y * WIDTH + x) * 4;

            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++)
                    l[j][i] = cpu_luma(source, x + i - 1, y + j - 1);
            gx = (l[0][2] + 2.0f * l[1][2] + l[2][2]) - (l[0][0] + 2.0f * l[1][0] + l[2][0]);
            gy = (l[2][0] + 2.0f * l[2][1] + l[2][2]) - (l[0][0] + 2.0f * l[0][1] + l[0][2]);
            m = sqrtf(gx * gx + gy * gy) * 0.5f;
            m = m > 1.0f ? 1.0f : m;
            for (int c = 0; c < 4; c++) {
                float v =
                    c == 3 ? 1.0f : s[c] / 255.0f * 0.15f + m * (0.35f + 0.65f * s[c] / 255.0f);
                int want = (int)lrintf((v > 1.0f ? 1.0f : v) * 255.0f);
                int diff = abs(want - r[c]);
                if (diff > worst)
                    worst = diff, *bad_x = x, *bad_y = y;
            }
        }
    }
    return worst;
}

/* --- Timing. ------------------------------------------------------------------------------ */

static double now_ms(void)
{
    static LARGE_INTEGER frequency;
    LARGE_INTEGER t;

    if (!frequency.QuadPart)
        QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart * 1000.0 / (double)frequency.QuadPart;
}

struct stat {
    double sum, min, max;
};

static void stat_add(struct stat *s, double v)
{
    if (s->sum == 0.0 || v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    s->sum += v;
}

/* --- Paths: Windows paths, or Unix paths under Wine. -------------------------------------- */

typedef WCHAR *(CDECL *wine_get_dos_file_name_fn)(const char *);
typedef char *(CDECL *wine_get_unix_file_name_fn)(const WCHAR *);

/* The output folder as a wide Windows path (a Unix path is converted when running on Wine). */
static void output_dir(const char *arg, WCHAR *out, size_t size)
{
    HMODULE kernel32 = GetModuleHandleA("kernel32.dll");
    wine_get_dos_file_name_fn to_dos =
        (wine_get_dos_file_name_fn)(void *)GetProcAddress(kernel32, "wine_get_dos_file_name");

    if (arg[0] == '/' && to_dos) {
        WCHAR *dos = to_dos(arg);
        if (!dos)
            fail("cannot convert the Unix path %s", arg);
        lstrcpynW(out, dos, (int)size);
        HeapFree(GetProcessHeap(), 0, dos);
    } else if (!MultiByteToWideChar(CP_ACP, 0, arg, -1, out, (int)size)) {
        fail("bad output folder %s", arg);
    }
    if (!CreateDirectoryW(out, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
        fail("cannot create the output folder %s (error %lu)", arg, GetLastError());
}

/* How to print a path for the user: its Unix name under Wine, else the Windows one. */
static void printable_path(const WCHAR *path, char *out, size_t size)
{
    HMODULE kernel32 = GetModuleHandleA("kernel32.dll");
    wine_get_unix_file_name_fn to_unix =
        (wine_get_unix_file_name_fn)(void *)GetProcAddress(kernel32, "wine_get_unix_file_name");
    char *unix_name = to_unix ? to_unix(path) : NULL;

    if (unix_name) {
        snprintf(out, size, "%s", unix_name);
        HeapFree(GetProcessHeap(), 0, unix_name);
    } else {
        WideCharToMultiByte(CP_ACP, 0, path, -1, out, (int)size, NULL, NULL);
    }
}

/* --- PNG output through WIC. -------------------------------------------------------------- */

static void write_png(IWICImagingFactory *wic, const WCHAR *path, const unsigned char *rgba)
{
    IWICStream *stream;
    IWICBitmapEncoder *encoder;
    IWICBitmapFrameEncode *frame;
    WICPixelFormatGUID format = GUID_WICPixelFormat32bppBGRA;
    unsigned char *bgra = malloc((size_t)WIDTH * HEIGHT * 4);

    if (!bgra)
        fail("out of memory");
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        bgra[i * 4 + 0] = rgba[i * 4 + 2];
        bgra[i * 4 + 1] = rgba[i * 4 + 1];
        bgra[i * 4 + 2] = rgba[i * 4 + 0];
        bgra[i * 4 + 3] = 255;
    }
    HR_CHECK(IWICImagingFactory_CreateStream(wic, &stream));
    HR_CHECK(IWICStream_InitializeFromFilename(stream, path, GENERIC_WRITE));
    HR_CHECK(IWICImagingFactory_CreateEncoder(wic, &GUID_ContainerFormatPng, NULL, &encoder));
    HR_CHECK(IWICBitmapEncoder_Initialize(encoder, (IStream *)stream, WICBitmapEncoderNoCache));
    HR_CHECK(IWICBitmapEncoder_CreateNewFrame(encoder, &frame, NULL));
    HR_CHECK(IWICBitmapFrameEncode_Initialize(frame, NULL));
    HR_CHECK(IWICBitmapFrameEncode_SetSize(frame, WIDTH, HEIGHT));
    HR_CHECK(IWICBitmapFrameEncode_SetPixelFormat(frame, &format));
    if (!IsEqualGUID(&format, &GUID_WICPixelFormat32bppBGRA))
        fail("the PNG encoder does not take 32bpp BGRA pixels");
    HR_CHECK(IWICBitmapFrameEncode_WritePixels(frame, HEIGHT, WIDTH * 4, WIDTH * HEIGHT * 4, bgra));
    HR_CHECK(IWICBitmapFrameEncode_Commit(frame));
    HR_CHECK(IWICBitmapEncoder_Commit(encoder));
    IWICBitmapFrameEncode_Release(frame);
    IWICBitmapEncoder_Release(encoder);
    IWICStream_Release(stream);
    free(bgra);
}

/* --- D3D11 helpers. ----------------------------------------------------------------------- */

static ID3D11Texture2D *make_texture(ID3D11Device *device, UINT width, UINT height,
                                     D3D11_USAGE usage, UINT bind, UINT cpu_access,
                                     const void *pixels)
{
    D3D11_TEXTURE2D_DESC desc = {
        .Width = width,
        .Height = height,
        .MipLevels = 1,
        .ArraySize = 1,
        .Format = DXGI_FORMAT_R8G8B8A8_UNORM,
        .SampleDesc = {1, 0},
        .Usage = usage,
        .BindFlags = bind,
        .CPUAccessFlags = cpu_access,
    };
    D3D11_SUBRESOURCE_DATA data = {pixels, width * 4, 0};
    ID3D11Texture2D *texture;

    HR_CHECK(ID3D11Device_CreateTexture2D(device, &desc, pixels ? &data : NULL, &texture));
    return texture;
}

/* Copies a texture to the host through a staging texture and Map. */
static void read_back(ID3D11DeviceContext *immediate, ID3D11Texture2D *texture,
                      ID3D11Texture2D *staging, unsigned char *out)
{
    D3D11_MAPPED_SUBRESOURCE map;

    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)staging,
                                     (ID3D11Resource *)texture);
    HR_CHECK(
        ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)staging, 0, D3D11_MAP_READ, 0, &map));
    for (int y = 0; y < HEIGHT; y++)
        memcpy(out + (size_t)y * WIDTH * 4, (const char *)map.pData + (size_t)y * map.RowPitch,
               WIDTH * 4);
    ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)staging, 0);
}

/* One frame of D3D11 drawing: the background, then squares cleared to colours that change
 * with the frame and copied to positions on an orbit. */
static void draw_frame(ID3D11DeviceContext *immediate, ID3D11Texture2D *target,
                       ID3D11Texture2D *background, ID3D11Texture2D **sprites,
                       ID3D11RenderTargetView **sprite_views, int frame, int frames)
{
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)target,
                                     (ID3D11Resource *)background);
    for (int i = 0; i < SPRITES; i++) {
        float t = (float)frame / frames * 6.2831853f + i * 1.5707963f;
        float color[4] = {0.5f + 0.5f * cosf(t), 0.5f + 0.5f * cosf(t + 2.094f),
                          0.5f + 0.5f * cosf(t + 4.189f), 1.0f};
        UINT x = (UINT)(WIDTH / 2 - SPRITE_SIZE / 2 + 420.0f * cosf(t));
        UINT y = (UINT)(HEIGHT / 2 - SPRITE_SIZE / 2 + 230.0f * sinf(t));

        ID3D11DeviceContext_ClearRenderTargetView(immediate, sprite_views[i], color);
        ID3D11DeviceContext_CopySubresourceRegion(immediate, (ID3D11Resource *)target, 0, x, y, 0,
                                                  (ID3D11Resource *)sprites[i], 0, NULL);
    }
}

/* --- OpenCL setup through cl_khr_d3d11_sharing. ------------------------------------------- */

struct sharing {
    clGetDeviceIDsFromD3D11KHR_fn get_device_ids;
    clCreateFromD3D11Texture2DKHR_fn create_from_texture2d;
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire;
    clEnqueueReleaseD3D11ObjectsKHR_fn release;
};

static void *extension_function(cl_platform_id platform, const char *name)
{
    void *fn = clGetExtensionFunctionAddressForPlatform(platform, name);

    if (!fn)
        fail("clGetExtensionFunctionAddressForPlatform(%s) returned NULL", name);
    return fn;
}

/* The first platform with cl_khr_d3d11_sharing, and its functions. */
static cl_platform_id find_platform(struct sharing *fns)
{
    cl_platform_id platforms[16];
    cl_uint count = 0;

    CL_CHECK(clGetPlatformIDs(16, platforms, &count));
    for (cl_uint i = 0; i < count && i < 16; i++) {
        char extensions[8192] = "", name[256] = "";
        CL_CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_EXTENSIONS, sizeof(extensions) - 1,
                                   extensions, NULL));
        CL_CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof(name), name, NULL));
        if (!dxcl_has_word(extensions, "cl_khr_d3d11_sharing")) {
            printf("platform %s: no cl_khr_d3d11_sharing\n", name);
            continue;
        }
        printf("OpenCL platform: %s\n", name);
        fns->get_device_ids = extension_function(platforms[i], "clGetDeviceIDsFromD3D11KHR");
        fns->create_from_texture2d =
            extension_function(platforms[i], "clCreateFromD3D11Texture2DKHR");
        fns->acquire = extension_function(platforms[i], "clEnqueueAcquireD3D11ObjectsKHR");
        fns->release = extension_function(platforms[i], "clEnqueueReleaseD3D11ObjectsKHR");
        return platforms[i];
    }
    fail("no OpenCL platform (of %u) offers cl_khr_d3d11_sharing: is dxcl's OpenCL.dll loaded "
         "(WINEDLLOVERRIDES=opencl=n,b)?",
         count);
}

/* Which OpenCL.dll this program uses, and whether it is dxcl. */
static void print_opencl_module(void)
{
    /* The import table slot of an OpenCL function points into the OpenCL.dll loaded for us. */
    extern void *__imp_clGetPlatformIDs;
    HMODULE module = NULL;
    char path[MAX_PATH] = "?", text[MAX_PATH] = "";
    dxclGetInfo_fn get_info;

    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (const char *)__imp_clGetPlatformIDs, &module);
    if (module)
        GetModuleFileNameA(module, path, sizeof(path));
    get_info = module ? (dxclGetInfo_fn)(void *)GetProcAddress(module, "dxclGetInfo") : NULL;
    if (!get_info) {
        printf("OpenCL.dll: %s (not dxcl)\n", path);
        return;
    }
    CL_CHECK(get_info(DXCL_INFO_VERSION, sizeof(text), text, NULL));
    printf("OpenCL.dll: %s (dxcl %s", path, text);
    CL_CHECK(get_info(DXCL_INFO_DRIVER_PATH, sizeof(text), text, NULL));
    printf(", driver %s)\n", text[0] ? text : "none");
}

int main(int argc, char **argv)
{
    int frames = argc > 2 ? atoi(argv[2]) : DEFAULT_FRAMES;
    static const D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;
    ID3D11Device *d3d;
    ID3D11DeviceContext *immediate;
    ID3D11Texture2D *background, *src, *dst, *staging, *sprites[SPRITES];
    ID3D11RenderTargetView *sprite_views[SPRITES];
    IWICImagingFactory *wic;
    struct sharing fns;
    cl_platform_id platform;
    cl_device_id devices[8];
    cl_uint num_devices = 0;
    cl_int err;
    WCHAR dir[MAX_PATH], before_path[MAX_PATH], after_path[MAX_PATH];
    char shown[MAX_PATH], device_name[256] = "";
    unsigned char *picture, *before, *after;
    struct stat acquire_ms = {0}, kernel_ms = {0}, release_ms = {0}, frame_ms = {0};
    double start;
    int worst, bad_x = 0, bad_y = 0;

    setvbuf(stdout, NULL, _IONBF, 0);
    if (frames < 1 || frames > 10000)
        fail("bad frame count %s", argv[2]);
    output_dir(argc > 1 ? argv[1] : ".", dir, MAX_PATH);
    if (_snwprintf(before_path, MAX_PATH, L"%ls\\before.png", dir) < 0 ||
        _snwprintf(after_path, MAX_PATH, L"%ls\\after.png", dir) < 0)
        fail("output folder path too long");

    printf("dxcl demo: D3D11 draws %dx%d, OpenCL filters it (Sobel) through "
           "cl_khr_d3d11_sharing, %d frames\n",
           WIDTH, HEIGHT, frames);
    print_opencl_module();

    /* Direct3D 11: the device, the source picture and the textures OpenCL will share. */
    HR_CHECK(D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level, 1,
                               D3D11_SDK_VERSION, &d3d, NULL, &immediate));
    picture = malloc((size_t)WIDTH * HEIGHT * 4);
    before = malloc((size_t)WIDTH * HEIGHT * 4);
    after = malloc((size_t)WIDTH * HEIGHT * 4);
    if (!picture || !before || !after)
        fail("out of memory");
    draw_background(picture);
    background = make_texture(d3d, WIDTH, HEIGHT, D3D11_USAGE_DEFAULT, 0, 0, picture);
    src =
        make_texture(d3d, WIDTH, HEIGHT, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, NULL);
    dst =
        make_texture(d3d, WIDTH, HEIGHT, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, NULL);
    staging = make_texture(d3d, WIDTH, HEIGHT, D3D11_USAGE_STAGING, 0, D3D11_CPU_ACCESS_READ, NULL);
    for (int i = 0; i < SPRITES; i++) {
        sprites[i] = make_texture(d3d, SPRITE_SIZE, SPRITE_SIZE, D3D11_USAGE_DEFAULT,
                                  D3D11_BIND_RENDER_TARGET, 0, NULL);
        HR_CHECK(ID3D11Device_CreateRenderTargetView(d3d, (ID3D11Resource *)sprites[i], NULL,
                                                     &sprite_views[i]));
    }

    /* OpenCL: a context on the D3D11 device, the kernel, and both textures as images. */
    platform = find_platform(&fns);
    err = fns.get_device_ids(platform, CL_D3D11_DEVICE_KHR, d3d, CL_PREFERRED_DEVICES_FOR_D3D11_KHR,
                             8, devices, &num_devices);
    if (err == CL_DEVICE_NOT_FOUND || num_devices == 0)
        err = fns.get_device_ids(platform, CL_D3D11_DEVICE_KHR, d3d, CL_ALL_DEVICES_FOR_D3D11_KHR,
                                 8, devices, &num_devices);
    CL_CHECK_ERR("clGetDeviceIDsFromD3D11KHR", err);
    if (num_devices == 0)
        fail("clGetDeviceIDsFromD3D11KHR found no device for the D3D11 device");
    CL_CHECK(clGetDeviceInfo(devices[0], CL_DEVICE_NAME, sizeof(device_name), device_name, NULL));
    printf("OpenCL device: %s\n", device_name);

    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                          CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d,
                                          0};
    cl_context context = clCreateContext(properties, 1, devices, NULL, NULL, &err);
    CL_CHECK_ERR("clCreateContext(CL_CONTEXT_D3D11_DEVICE_KHR)", err);
    cl_command_queue queue = clCreateCommandQueue(context, devices[0], 0, &err);
    CL_CHECK_ERR("clCreateCommandQueue", err);
    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, NULL, &err);
    CL_CHECK_ERR("clCreateProgramWithSource", err);
    err = clBuildProgram(program, 1, devices, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(program, devices[0], CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log,
                              NULL);
        fprintf(stderr, "build log:\n%s\n", log);
        CL_CHECK_ERR("clBuildProgram", err);
    }
    cl_kernel kernel = clCreateKernel(program, "sobel", &err);
    CL_CHECK_ERR("clCreateKernel", err);
    cl_mem images[2];
    images[0] = fns.create_from_texture2d(context, CL_MEM_READ_ONLY, src, 0, &err);
    CL_CHECK_ERR("clCreateFromD3D11Texture2DKHR(source)", err);
    images[1] = fns.create_from_texture2d(context, CL_MEM_WRITE_ONLY, dst, 0, &err);
    CL_CHECK_ERR("clCreateFromD3D11Texture2DKHR(destination)", err);
    CL_CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &images[0]));
    CL_CHECK(clSetKernelArg(kernel, 1, sizeof(cl_mem), &images[1]));

    /* The frames: D3D11 draws, OpenCL acquires / filters / releases (each step timed). */
    printf("frame      acquire     kernel    release      total\n");
    start = now_ms();
    for (int frame = 0; frame < frames; frame++) {
        size_t global[2] = {WIDTH, HEIGHT};
        double t0, t1, t2, t3;

        draw_frame(immediate, src, background, sprites, sprite_views, frame, frames);
        t0 = now_ms();
        CL_CHECK(fns.acquire(queue, 2, images, 0, NULL, NULL));
        CL_CHECK(clFinish(queue));
        t1 = now_ms();
        CL_CHECK(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL));
        CL_CHECK(clFinish(queue));
        t2 = now_ms();
        CL_CHECK(fns.release(queue, 2, images, 0, NULL, NULL));
        CL_CHECK(clFinish(queue));
        t3 = now_ms();
        stat_add(&acquire_ms, t1 - t0);
        stat_add(&kernel_ms, t2 - t1);
        stat_add(&release_ms, t3 - t2);
        stat_add(&frame_ms, t3 - t0);
        printf("%3d/%-3d %8.2f ms %8.2f ms %8.2f ms %8.2f ms  [%-20.*s]\n", frame + 1, frames,
               t1 - t0, t2 - t1, t3 - t2, t3 - t0, (frame + 1) * 20 / frames,
               "####################");
    }
    printf("%d frames in %.2f s\n", frames, (now_ms() - start) / 1000.0);
    printf("          average      min        max\n");
    printf("acquire %8.2f ms %8.2f ms %8.2f ms\n", acquire_ms.sum / frames, acquire_ms.min,
           acquire_ms.max);
    printf("kernel  %8.2f ms %8.2f ms %8.2f ms\n", kernel_ms.sum / frames, kernel_ms.min,
           kernel_ms.max);
    printf("release %8.2f ms %8.2f ms %8.2f ms\n", release_ms.sum / frames, release_ms.min,
           release_ms.max);
    printf("total   %8.2f ms %8.2f ms %8.2f ms\n", frame_ms.sum / frames, frame_ms.min,
           frame_ms.max);

    /* D3D11 reads both textures back; the result must be the filter of the source. */
    read_back(immediate, src, staging, before);
    read_back(immediate, dst, staging, after);
    worst = check_sobel(before, after, &bad_x, &bad_y);
    if (worst > 2)
        fail("the texture OpenCL wrote differs from the CPU filter by %d at (%d, %d)", worst, bad_x,
             bad_y);
    printf("check: D3D11 read back the filtered texture; it matches the CPU filter "
           "(largest difference %d/255)\n",
           worst);

    HR_CHECK(CoInitializeEx(NULL, COINIT_MULTITHREADED));
    HR_CHECK(CoCreateInstance(&CLSID_WICImagingFactory, NULL, CLSCTX_INPROC_SERVER,
                              &IID_IWICImagingFactory, (void **)&wic));
    write_png(wic, before_path, before);
    write_png(wic, after_path, after);
    IWICImagingFactory_Release(wic);
    CoUninitialize();
    printable_path(before_path, shown, sizeof(shown));
    printf("before: %s\n", shown);
    printable_path(after_path, shown, sizeof(shown));
    printf("after:  %s\n", shown);

    clReleaseMemObject(images[0]);
    clReleaseMemObject(images[1]);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    for (int i = 0; i < SPRITES; i++) {
        ID3D11RenderTargetView_Release(sprite_views[i]);
        ID3D11Texture2D_Release(sprites[i]);
    }
    ID3D11Texture2D_Release(staging);
    ID3D11Texture2D_Release(dst);
    ID3D11Texture2D_Release(src);
    ID3D11Texture2D_Release(background);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(d3d);
    free(picture);
    free(before);
    free(after);
    printf("demo: OK\n");
    return 0;
}
