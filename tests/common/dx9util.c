#include "dx9util.h"

#include <stdlib.h>

struct dx9_fns dx9;

void dx9_load(cl_platform_id platform)
{
    static const struct {
        const char *name;
        size_t offset;
    } names[] = {
        {"clGetDeviceIDsFromDX9MediaAdapterKHR", offsetof(struct dx9_fns, get_device_ids)},
        {"clCreateFromDX9MediaSurfaceKHR", offsetof(struct dx9_fns, create)},
        {"clEnqueueAcquireDX9MediaSurfacesKHR", offsetof(struct dx9_fns, acquire)},
        {"clEnqueueReleaseDX9MediaSurfacesKHR", offsetof(struct dx9_fns, release)},
        {"clGetDeviceIDsFromDX9INTEL", offsetof(struct dx9_fns, intel_get_device_ids)},
        {"clCreateFromDX9MediaSurfaceINTEL", offsetof(struct dx9_fns, intel_create)},
        {"clEnqueueAcquireDX9ObjectsINTEL", offsetof(struct dx9_fns, intel_acquire)},
        {"clEnqueueReleaseDX9ObjectsINTEL", offsetof(struct dx9_fns, intel_release)},
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *address = clGetExtensionFunctionAddressForPlatform(platform, names[i].name);
        REQUIRE(address != NULL, "clGetExtensionFunctionAddressForPlatform(%s) is NULL",
                names[i].name);
        memcpy((char *)&dx9 + names[i].offset, &address, sizeof(address));
    }
}

/* ---- Devices ---- */

const char *dx9_kind_name(enum dx9_kind kind)
{
    return kind == DX9_D3D9EX ? "D3D9Ex" : "D3D9";
}

cl_dx9_media_adapter_type_khr dx9_adapter_type(enum dx9_kind kind)
{
    return kind == DX9_D3D9EX ? CL_ADAPTER_D3D9EX_KHR : CL_ADAPTER_D3D9_KHR;
}

cl_context_properties dx9_khr_property(enum dx9_kind kind)
{
    return kind == DX9_D3D9EX ? CL_CONTEXT_ADAPTER_D3D9EX_KHR : CL_CONTEXT_ADAPTER_D3D9_KHR;
}

cl_context_properties dx9_intel_property(enum dx9_kind kind)
{
    return kind == DX9_D3D9EX ? CL_CONTEXT_D3D9EX_DEVICE_INTEL : CL_CONTEXT_D3D9_DEVICE_INTEL;
}

cl_dx9_device_source_intel dx9_intel_source(enum dx9_kind kind)
{
    return kind == DX9_D3D9EX ? CL_D3D9EX_DEVICE_INTEL : CL_D3D9_DEVICE_INTEL;
}

IDirect3DDevice9 *dx9_device(enum dx9_kind kind)
{
    return dx9_device_threads(kind, true);
}

IDirect3DDevice9 *dx9_device_threads(enum dx9_kind kind, bool multithreaded)
{
    const DWORD flags =
        D3DCREATE_SOFTWARE_VERTEXPROCESSING | (multithreaded ? D3DCREATE_MULTITHREADED : 0);
    D3DPRESENT_PARAMETERS pp = {0};
    HWND window = test_device_window();
    HRESULT hr;

    pp.Windowed = TRUE;
    pp.SwapEffect = D3DSWAPEFFECT_DISCARD;
    pp.BackBufferWidth = 64;
    pp.BackBufferHeight = 64;
    pp.hDeviceWindow = window;
    if (kind == DX9_D3D9EX) {
        IDirect3D9Ex *d3d = NULL;
        IDirect3DDevice9Ex *device = NULL;

        hr = Direct3DCreate9Ex(D3D_SDK_VERSION, &d3d);
        REQUIRE(SUCCEEDED(hr) && d3d, "Direct3DCreate9Ex: 0x%08lx", (unsigned long)hr);
        hr = IDirect3D9Ex_CreateDeviceEx(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window, flags,
                                         &pp, NULL, &device);
        IDirect3D9Ex_Release(d3d); /* the device keeps it */
        REQUIRE(SUCCEEDED(hr) && device, "CreateDeviceEx: 0x%08lx", (unsigned long)hr);
        return (IDirect3DDevice9 *)device;
    } else {
        IDirect3D9 *d3d = Direct3DCreate9(D3D_SDK_VERSION);
        IDirect3DDevice9 *device = NULL;

        REQUIRE(d3d != NULL, "Direct3DCreate9 failed");
        hr = IDirect3D9_CreateDevice(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window, flags, &pp,
                                     &device);
        IDirect3D9_Release(d3d);
        REQUIRE(SUCCEEDED(hr) && device, "CreateDevice: 0x%08lx", (unsigned long)hr);
        return device;
    }
}

IDirect3D9 *dx9_d3d(IDirect3DDevice9 *device)
{
    IDirect3D9 *d3d = NULL;
    HRESULT hr = IDirect3DDevice9_GetDirect3D(device, &d3d);

    REQUIRE(SUCCEEDED(hr) && d3d, "GetDirect3D: 0x%08lx", (unsigned long)hr);
    return d3d;
}

/* ---- Surfaces ---- */

const char *dx9_surface_kind_name(enum dx9_surface_kind kind)
{
    switch (kind) {
    case DX9_PLAIN:
        return "offscreen plain";
    case DX9_RT:
        return "render target";
    case DX9_RT_LOCKABLE:
        return "lockable render target";
    case DX9_SYSMEM:
        return "system-memory plain";
    case DX9_TEX_RT:
        return "render-target texture level";
    case DX9_TEX_DYNAMIC:
        return "dynamic texture level";
    case DX9_TEX_PLAIN:
        return "texture level";
    }
    return "?";
}

bool dx9_via_copy(enum dx9_surface_kind kind)
{
    return kind == DX9_RT || kind == DX9_TEX_RT;
}

static HRESULT texture_level(IDirect3DDevice9 *device, UINT width, UINT height, D3DFORMAT format,
                             DWORD usage, IDirect3DSurface9 **surface)
{
    IDirect3DTexture9 *texture = NULL;
    HRESULT hr = IDirect3DDevice9_CreateTexture(device, width, height, 1, usage, format,
                                                D3DPOOL_DEFAULT, &texture, NULL);

    if (FAILED(hr))
        return hr;
    hr = IDirect3DTexture9_GetSurfaceLevel(texture, 0, surface);
    IDirect3DTexture9_Release(texture); /* the level keeps its texture */
    return hr;
}

HRESULT dx9_try_surface(IDirect3DDevice9 *device, UINT width, UINT height, D3DFORMAT format,
                        enum dx9_surface_kind kind, IDirect3DSurface9 **surface)
{
    *surface = NULL;
    switch (kind) {
    case DX9_PLAIN:
    case DX9_SYSMEM:
        return IDirect3DDevice9_CreateOffscreenPlainSurface(
            device, width, height, format, kind == DX9_PLAIN ? D3DPOOL_DEFAULT : D3DPOOL_SYSTEMMEM,
            surface, NULL);
    case DX9_RT:
    case DX9_RT_LOCKABLE:
        return IDirect3DDevice9_CreateRenderTarget(device, width, height, format,
                                                   D3DMULTISAMPLE_NONE, 0, kind == DX9_RT_LOCKABLE,
                                                   surface, NULL);
    case DX9_TEX_RT:
        return texture_level(device, width, height, format, D3DUSAGE_RENDERTARGET, surface);
    case DX9_TEX_DYNAMIC:
        return texture_level(device, width, height, format, D3DUSAGE_DYNAMIC, surface);
    case DX9_TEX_PLAIN:
        return texture_level(device, width, height, format, 0, surface);
    }
    return E_INVALIDARG;
}

IDirect3DSurface9 *dx9_surface(IDirect3DDevice9 *device, UINT width, UINT height, D3DFORMAT format,
                               enum dx9_surface_kind kind)
{
    IDirect3DSurface9 *surface;
    HRESULT hr = dx9_try_surface(device, width, height, format, kind, &surface);

    REQUIRE(SUCCEEDED(hr) && surface, "%ux%u %s %s surface: 0x%08lx", width, height,
            dx9_format_name(format), dx9_surface_kind_name(kind), (unsigned long)hr);
    return surface;
}

HRESULT dx9_check_format(IDirect3DDevice9 *device, D3DFORMAT format, enum dx9_surface_kind kind)
{
    IDirect3D9 *d3d = dx9_d3d(device);
    D3DDISPLAYMODE mode;
    HRESULT hr = IDirect3D9_GetAdapterDisplayMode(d3d, D3DADAPTER_DEFAULT, &mode);
    bool texture = kind == DX9_TEX_RT || kind == DX9_TEX_DYNAMIC || kind == DX9_TEX_PLAIN;
    DWORD usage = kind == DX9_RT || kind == DX9_RT_LOCKABLE || kind == DX9_TEX_RT
                      ? D3DUSAGE_RENDERTARGET
                  : kind == DX9_TEX_DYNAMIC ? D3DUSAGE_DYNAMIC
                                            : 0;

    if (SUCCEEDED(hr))
        hr = IDirect3D9_CheckDeviceFormat(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, mode.Format,
                                          usage, texture ? D3DRTYPE_TEXTURE : D3DRTYPE_SURFACE,
                                          format);
    IDirect3D9_Release(d3d);
    return hr;
}

/* ---- Formats ---- */

#define F(fmt, order, type, bytes, size, cls, x)                                                   \
    {                                                                                              \
        fmt, #fmt, order, type, bytes, size, cls, x                                                \
    }
const struct dx9_format dx9_formats[DX9_RGB_FORMAT_COUNT + 2] = {
    F(D3DFMT_R32F, CL_R, CL_FLOAT, 4, 4, DX9_FLOAT, false),
    F(D3DFMT_R16F, CL_R, CL_HALF_FLOAT, 2, 2, DX9_HALF, false),
    F(D3DFMT_L16, CL_R, CL_UNORM_INT16, 2, 2, DX9_UNORM, false),
    F(D3DFMT_A8, CL_A, CL_UNORM_INT8, 1, 1, DX9_UNORM, false),
    F(D3DFMT_L8, CL_R, CL_UNORM_INT8, 1, 1, DX9_UNORM, false),
    F(D3DFMT_G32R32F, CL_RG, CL_FLOAT, 8, 4, DX9_FLOAT, false),
    F(D3DFMT_G16R16F, CL_RG, CL_HALF_FLOAT, 4, 2, DX9_HALF, false),
    F(D3DFMT_G16R16, CL_RG, CL_UNORM_INT16, 4, 2, DX9_UNORM, false),
    F(D3DFMT_A8L8, CL_RG, CL_UNORM_INT8, 2, 1, DX9_UNORM, false),
    F(D3DFMT_A32B32G32R32F, CL_RGBA, CL_FLOAT, 16, 4, DX9_FLOAT, false),
    F(D3DFMT_A16B16G16R16F, CL_RGBA, CL_HALF_FLOAT, 8, 2, DX9_HALF, false),
    F(D3DFMT_A16B16G16R16, CL_RGBA, CL_UNORM_INT16, 8, 2, DX9_UNORM, false),
    F(D3DFMT_A8B8G8R8, CL_RGBA, CL_UNORM_INT8, 4, 1, DX9_UNORM, false),
    F(D3DFMT_X8B8G8R8, CL_RGBA, CL_UNORM_INT8, 4, 1, DX9_UNORM, true),
    F(D3DFMT_A8R8G8B8, CL_BGRA, CL_UNORM_INT8, 4, 1, DX9_UNORM, false),
    F(D3DFMT_X8R8G8B8, CL_BGRA, CL_UNORM_INT8, 4, 1, DX9_UNORM, true),
    {DX9_FMT_NV12, "NV12", CL_R, CL_UNORM_INT8, 1, 1, DX9_UNORM, false},
    {DX9_FMT_YV12, "YV12", CL_R, CL_UNORM_INT8, 1, 1, DX9_UNORM, false},
};
#undef F

const struct dx9_format *dx9_format_find(D3DFORMAT format)
{
    for (size_t i = 0; i < sizeof(dx9_formats) / sizeof(dx9_formats[0]); i++)
        if (dx9_formats[i].format == format)
            return &dx9_formats[i];
    return NULL;
}

const char *dx9_format_name(D3DFORMAT format)
{
    static char buffer[4][32];
    static int next;
    const struct dx9_format *known = dx9_format_find(format);
    char *name;

    if (known)
        return known->name;
    switch (format) {
    case D3DFMT_R5G6B5:
        return "D3DFMT_R5G6B5";
    case D3DFMT_YUY2:
        return "D3DFMT_YUY2";
    case D3DFMT_A2R10G10B10:
        return "D3DFMT_A2R10G10B10";
    default:
        break;
    }
    name = buffer[next++ % 4];
    snprintf(name, sizeof(buffer[0]), "D3DFORMAT %u", (unsigned)format);
    return name;
}

unsigned dx9_plane_count(D3DFORMAT format)
{
    return format == DX9_FMT_NV12 ? 2 : format == DX9_FMT_YV12 ? 3 : 1;
}

void dx9_plane_info(D3DFORMAT format, UINT width, UINT height, unsigned plane, UINT *plane_width,
                    UINT *plane_height, cl_image_format *cl_format, unsigned *element_size)
{
    const struct dx9_format *f = dx9_format_find(format);
    bool chroma = plane > 0 && (format == DX9_FMT_NV12 || format == DX9_FMT_YV12);
    cl_image_format image = {f ? f->order : 0, f ? f->type : 0};
    unsigned element = f ? f->bytes : 0;

    if (chroma && format == DX9_FMT_NV12) {
        image.image_channel_order = CL_RG; /* interleaved U, V */
        element = 2;
    }
    if (plane_width)
        *plane_width = chroma ? width / 2 : width;
    if (plane_height)
        *plane_height = chroma ? height / 2 : height;
    if (cl_format)
        *cl_format = image;
    if (element_size)
        *element_size = element;
}

/* ---- Contents ---- */

size_t dx9_plane_bytes(D3DFORMAT format, UINT width, UINT height, unsigned plane)
{
    UINT w, h;
    unsigned element;

    dx9_plane_info(format, width, height, plane, &w, &h, NULL, &element);
    return (size_t)w * h * element;
}

size_t dx9_plane_offset(D3DFORMAT format, UINT width, UINT height, unsigned plane)
{
    size_t offset = 0;

    for (unsigned i = 0; i < plane; i++)
        offset += dx9_plane_bytes(format, width, height, i);
    return offset;
}

size_t dx9_content_bytes(D3DFORMAT format, UINT width, UINT height)
{
    return dx9_plane_offset(format, width, height, dx9_plane_count(format));
}

/* Where plane `plane` starts inside locked memory, and its pitch. */
static void locked_plane(D3DFORMAT format, UINT height, const D3DLOCKED_RECT *locked,
                         unsigned plane, char **data, size_t *pitch)
{
    size_t luma = (size_t)locked->Pitch * height;

    *data = locked->pBits;
    *pitch = (size_t)locked->Pitch;
    if (plane == 0)
        return;
    *data += luma;
    if (format != DX9_FMT_YV12)
        return; /* NV12: UV rows at the luma pitch */
    *pitch = (size_t)locked->Pitch / 2;
    if (plane == 2)
        *data += *pitch * (height / 2);
}

/* Copies between a locked surface and tightly packed content. */
static void copy_planes(D3DFORMAT format, UINT width, UINT height, const D3DLOCKED_RECT *locked,
                        void *content, bool to_surface)
{
    for (unsigned plane = 0; plane < dx9_plane_count(format); plane++) {
        char *surface, *packed = (char *)content + dx9_plane_offset(format, width, height, plane);
        size_t pitch;
        UINT w, h;
        unsigned element;

        locked_plane(format, height, locked, plane, &surface, &pitch);
        dx9_plane_info(format, width, height, plane, &w, &h, NULL, &element);
        for (UINT y = 0; y < h; y++) {
            char *row = surface + y * pitch, *line = packed + (size_t)y * w * element;
            if (to_surface)
                memcpy(row, line, (size_t)w * element);
            else
                memcpy(line, row, (size_t)w * element);
        }
    }
}

static bool transfer(IDirect3DSurface9 *surface, void *content, bool via_copy, bool write)
{
    IDirect3DSurface9 *target = surface, *sysmem = NULL;
    IDirect3DDevice9 *device = NULL;
    D3DSURFACE_DESC desc;
    D3DLOCKED_RECT locked;
    HRESULT hr;
    bool ok = false;

    hr = IDirect3DSurface9_GetDesc(surface, &desc);
    if (FAILED(hr))
        goto fail;
    if (via_copy) {
        if (FAILED(hr = IDirect3DSurface9_GetDevice(surface, &device)))
            goto fail;
        hr = IDirect3DDevice9_CreateOffscreenPlainSurface(
            device, desc.Width, desc.Height, desc.Format, D3DPOOL_SYSTEMMEM, &sysmem, NULL);
        if (FAILED(hr))
            goto fail;
        if (!write && FAILED(hr = IDirect3DDevice9_GetRenderTargetData(device, surface, sysmem)))
            goto fail;
        target = sysmem;
    }
    hr = IDirect3DSurface9_LockRect(target, &locked, NULL, write ? 0 : D3DLOCK_READONLY);
    if (FAILED(hr))
        goto fail;
    copy_planes(desc.Format, desc.Width, desc.Height, &locked, content, write);
    if (FAILED(hr = IDirect3DSurface9_UnlockRect(target)))
        goto fail;
    if (via_copy && write &&
        FAILED(hr = IDirect3DDevice9_UpdateSurface(device, sysmem, NULL, surface, NULL)))
        goto fail;
    ok = true;
fail:
    CHECK(ok, "Direct3D %s of surface %p (%s) failed: 0x%08lx", write ? "write" : "read",
          (void *)surface, via_copy ? "through system memory" : "LockRect", (unsigned long)hr);
    if (sysmem)
        IDirect3DSurface9_Release(sysmem);
    if (device)
        IDirect3DDevice9_Release(device);
    return ok;
}

bool dx9_write(IDirect3DSurface9 *surface, const void *content, bool via_copy)
{
    return transfer(surface, (void *)content, via_copy, true);
}

bool dx9_read(IDirect3DSurface9 *surface, void *content, bool via_copy)
{
    return transfer(surface, content, via_copy, false);
}

static uint32_t next_random(uint32_t *state)
{
    /* xorshift32 */
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

void dx9_fill(void *data, size_t bytes, enum dx9_class cls, unsigned channel_size, uint32_t seed)
{
    unsigned char *out = data;
    uint32_t state = seed * 2654435761u + 0x9e3779b9u;

    if (!state)
        state = 1;
    for (size_t i = 0; i + channel_size <= bytes; i += channel_size) {
        uint32_t r = next_random(&state), v;
        switch (cls) {
        case DX9_FLOAT: /* sign, exponent 2^-7 .. 2^8, any mantissa */
            v = (r & 0x80000000u) | ((120u + (r >> 23) % 16u) << 23) | (r & 0x7fffffu);
            break;
        case DX9_HALF: /* sign, exponent 1 .. 30 (normal, finite), any mantissa */
            v = ((r >> 16) & 0x8000u) | ((1u + (r >> 10) % 30u) << 10) | (r & 0x3ffu);
            break;
        default:
            v = r;
            break;
        }
        memcpy(out + i, &v, channel_size);
    }
}

void dx9_expected(const void *src, void *dst, size_t bytes, enum dx9_class cls,
                  unsigned channel_size)
{
    const unsigned char *s = src;
    unsigned char *d = dst;

    for (size_t i = 0; i + channel_size <= bytes; i += channel_size) {
        uint32_t v = 0;
        memcpy(&v, s + i, channel_size);
        if (cls == DX9_UNORM)
            v = ~v; /* max - v */
        else
            v ^= 1u << (channel_size * 8 - 1); /* the sign bit */
        memcpy(d + i, &v, channel_size);
    }
}

bool dx9_same(const void *got, const void *want, size_t bytes, bool skip_x, const char *what)
{
    const unsigned char *g = got, *w = want;
    size_t differences = 0, first = 0;

    for (size_t i = 0; i < bytes; i++) {
        if ((skip_x && i % 4 == 3) || g[i] == w[i])
            continue;
        if (!differences++)
            first = i;
    }
    CHECK(differences == 0,
          "%s: %zu of %zu bytes differ, first at byte %zu: got 0x%02x, want "
          "0x%02x",
          what, differences, bytes, first, differences ? g[first] : 0, differences ? w[first] : 0);
    return differences == 0;
}

/* ---- OpenCL ---- */

static const char kernel_source[] =
    "__kernel void invert(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imagef(dst, p, (float4)(1.0f) - read_imagef(src, p));\n"
    "}\n"
    "__kernel void negate(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imagef(dst, p, -read_imagef(src, p));\n"
    "}\n";

void dx9_open(struct dx9_env *env, enum dx9_kind kind, bool intel, int user_sync)
{
    dx9_open_property(env, kind, intel ? dx9_intel_property(kind) : dx9_khr_property(kind),
                      user_sync);
    env->intel = intel;
}

void dx9_open_property(struct dx9_env *env, enum dx9_kind kind, cl_context_properties property,
                       int user_sync)
{
    dx9_open_device(env, kind, dx9_device(kind), property, user_sync);
}

void dx9_open_device(struct dx9_env *env, enum dx9_kind kind, IDirect3DDevice9 *device,
                     cl_context_properties property, int user_sync)
{
    cl_context_properties props[5] = {0};
    cl_int err;

    memset(env, 0, sizeof(*env));
    env->kind = kind;
    env->user_sync = user_sync;
    env->platform = test_platform();
    env->device = test_device(env->platform);
    dx9_load(env->platform);
    env->d3d = device;
    props[0] = property;
    props[1] = (cl_context_properties)env->d3d;
    if (user_sync != DX9_NO_USER_SYNC) {
        props[2] = CL_CONTEXT_INTEROP_USER_SYNC;
        props[3] = user_sync;
    }
    env->context = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS && env->context, "clCreateContext with a %s device: %d",
            dx9_kind_name(kind), err);
    env->queue = clCreateCommandQueue(env->context, env->device, 0, &err);
    REQUIRE(err == CL_SUCCESS && env->queue, "clCreateCommandQueue: %d", err);
}

ULONG dx9_release_device(IDirect3DDevice9 *device)
{
    IDirect3DQuery9 *query = NULL;

    /* DXVK 2.6.2's Direct3D 9 on lavapipe crashes when a device goes while an NV12 or YV12
     * upload is still being converted on the GPU, with or without OpenCL (docs/testing.md,
     * "The NV12 crash under DXVK"): wait until the device is idle, as any program may. */
    if (SUCCEEDED(IDirect3DDevice9_CreateQuery(device, D3DQUERYTYPE_EVENT, &query))) {
        IDirect3DQuery9_Issue(query, D3DISSUE_END);
        while (IDirect3DQuery9_GetData(query, NULL, 0, D3DGETDATA_FLUSH) == S_FALSE)
            Sleep(0);
        IDirect3DQuery9_Release(query);
    }
    return IDirect3DDevice9_Release(device);
}

void dx9_close(struct dx9_env *env)
{
    ULONG left;

    if (env->program)
        clReleaseProgram(env->program);
    CHECK_ERR(clReleaseCommandQueue(env->queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(env->context), CL_SUCCESS);
    left = dx9_release_device(env->d3d);
    CHECK(left == 0, "%s device: %lu references left after the test", dx9_kind_name(env->kind),
          (unsigned long)left);
    memset(env, 0, sizeof(*env));
}

cl_kernel dx9_kernel(struct dx9_env *env, const char *name)
{
    if (!env->program)
        env->program = test_program(env->context, env->device, kernel_source);
    return test_program_kernel(env->program, name);
}

const char *dx9_kernel_for(enum dx9_class cls)
{
    return cls == DX9_UNORM ? "invert" : "negate";
}

cl_mem dx9_create(struct dx9_env *env, bool intel, IDirect3DSurface9 *surface, cl_uint plane,
                  cl_mem_flags flags, cl_int *err)
{
    cl_dx9_surface_info_khr info = {surface, NULL};

    if (intel)
        return dx9.intel_create(env->context, flags, surface, NULL, plane, err);
    return dx9.create(env->context, flags, dx9_adapter_type(env->kind), &info, plane, err);
}

cl_int dx9_acquire(struct dx9_env *env, bool intel, cl_uint count, const cl_mem *mems,
                   cl_event *event)
{
    if (intel)
        return dx9.intel_acquire(env->queue, count, mems, 0, NULL, event);
    return dx9.acquire(env->queue, count, mems, 0, NULL, event);
}

cl_int dx9_release(struct dx9_env *env, bool intel, cl_uint count, const cl_mem *mems,
                   cl_event *event)
{
    if (intel)
        return dx9.intel_release(env->queue, count, (cl_mem *)mems, 0, NULL, event);
    return dx9.release(env->queue, count, mems, 0, NULL, event);
}

void dx9_check_plane_image(cl_mem mem, D3DFORMAT format, UINT width, UINT height, unsigned plane,
                           const char *what)
{
    cl_image_format want, got = {0, 0};
    cl_mem_object_type type = 0;
    size_t w = 0, h = 0, d = 99, element = 0;
    unsigned want_element;
    UINT pw, ph;

    dx9_plane_info(format, width, height, plane, &pw, &ph, &want, &want_element);
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == CL_MEM_OBJECT_IMAGE2D, "%s plane %u: CL_MEM_TYPE 0x%x, want IMAGE2D", what, plane,
          type);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_FORMAT, sizeof(got), &got, NULL), CL_SUCCESS);
    CHECK(got.image_channel_order == want.image_channel_order &&
              got.image_channel_data_type == want.image_channel_data_type,
          "%s plane %u: format 0x%x/0x%x, want 0x%x/0x%x", what, plane, got.image_channel_order,
          got.image_channel_data_type, want.image_channel_order, want.image_channel_data_type);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof(w), &w, NULL), CL_SUCCESS);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof(h), &h, NULL), CL_SUCCESS);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_DEPTH, sizeof(d), &d, NULL), CL_SUCCESS);
    CHECK(w == pw && h == ph && d == 0, "%s plane %u: %zux%zu depth %zu, want %ux%u depth 0", what,
          plane, w, h, d, pw, ph);
    CHECK_ERR(clGetImageInfo(mem, CL_IMAGE_ELEMENT_SIZE, sizeof(element), &element, NULL),
              CL_SUCCESS);
    CHECK(element == want_element, "%s plane %u: element size %zu, want %u", what, plane, element,
          want_element);
}

void dx9_roundtrip(struct dx9_env *env, D3DFORMAT format, enum dx9_surface_kind kind, UINT width,
                   UINT height, bool intel, uint32_t seed)
{
    const struct dx9_format *f = dx9_format_find(format);
    const bool via_copy = dx9_via_copy(kind);
    const bool skip_x = f && f->has_x && via_copy;
    const unsigned planes = dx9_plane_count(format);
    const size_t bytes = dx9_content_bytes(format, width, height);
    unsigned char *src_data = malloc(bytes), *dst_data = malloc(bytes), *want = malloc(bytes);
    unsigned char *got = malloc(bytes);
    IDirect3DSurface9 *src = dx9_surface(env->d3d, width, height, format, kind);
    IDirect3DSurface9 *dst = dx9_surface(env->d3d, width, height, format, kind);
    cl_kernel kernel;
    cl_mem mems[6] = {0};
    char what[160];
    cl_int err;
    bool created = true;

    REQUIRE(f && src_data && dst_data && want && got, "round trip setup");
    kernel = dx9_kernel(env, dx9_kernel_for(f->cls));
    snprintf(what, sizeof(what), "%s %s %s %ux%u%s", dx9_kind_name(env->kind), f->name,
             dx9_surface_kind_name(kind), width, height, intel ? " (Intel)" : "");
    dx9_fill(src_data, bytes, f->cls, f->channel_size, seed);
    dx9_fill(dst_data, bytes, f->cls, f->channel_size, seed ^ 0x5a5a5a5au);
    dx9_expected(src_data, want, bytes, f->cls, f->channel_size);
    if (!dx9_write(src, src_data, via_copy) || !dx9_write(dst, dst_data, via_copy))
        goto done;

    for (unsigned p = 0; p < planes; p++) {
        mems[p] = dx9_create(env, intel, src, p, CL_MEM_READ_ONLY, &err);
        CHECK(err == CL_SUCCESS && mems[p], "%s: create source plane %u: %d", what, p, err);
        mems[planes + p] = dx9_create(env, intel, dst, p, CL_MEM_WRITE_ONLY, &err);
        CHECK(err == CL_SUCCESS && mems[planes + p], "%s: create destination plane %u: %d", what, p,
              err);
        created = created && mems[p] && mems[planes + p];
    }
    if (!created)
        goto done;
    for (unsigned p = 0; p < planes; p++) {
        dx9_check_plane_image(mems[p], format, width, height, p, what);
        dx9_check_plane_image(mems[planes + p], format, width, height, p, what);
    }

    CHECK_ERR(dx9_acquire(env, intel, 2 * planes, mems, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < planes; p++) {
        UINT pw, ph;
        size_t global[2];

        dx9_plane_info(format, width, height, p, &pw, &ph, NULL, NULL);
        global[0] = pw;
        global[1] = ph;
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &mems[p]), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(cl_mem), &mems[planes + p]), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
    }
    CHECK_ERR(dx9_release(env, intel, 2 * planes, mems, NULL), CL_SUCCESS);
    /* CL_CONTEXT_INTEROP_USER_SYNC: the program waits for OpenCL before Direct3D uses the
     * surface (the release may still be pending). Otherwise the release is enough. */
    if (env->user_sync == CL_TRUE)
        CHECK_ERR(clFinish(env->queue), CL_SUCCESS);

    /* A render target that cannot be locked keeps no X byte: D3D leaves it undefined. */
    if (skip_x)
        printf("%s: byte X of each pixel not compared (undefined in a render target)\n", what);
    if (dx9_read(dst, got, via_copy)) {
        for (unsigned p = 0; p < planes; p++) {
            size_t offset = dx9_plane_offset(format, width, height, p);
            char label[200];

            snprintf(label, sizeof(label), "%s: destination plane %u after the kernel", what, p);
            dx9_same(got + offset, want + offset, dx9_plane_bytes(format, width, height, p), skip_x,
                     label);
        }
    }
    if (dx9_read(src, got, via_copy)) {
        char label[200];

        snprintf(label, sizeof(label), "%s: source unchanged", what);
        dx9_same(got, src_data, bytes, skip_x, label);
    }

done:
    for (unsigned i = 0; i < 2 * planes; i++)
        if (mems[i])
            CHECK_ERR(clReleaseMemObject(mems[i]), CL_SUCCESS);
    clReleaseKernel(kernel);
    IDirect3DSurface9_Release(src);
    IDirect3DSurface9_Release(dst);
    free(src_data);
    free(dst_data);
    free(want);
    free(got);
}
