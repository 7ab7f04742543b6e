/* dxclinfo: clinfo for Direct3D sharing. Loads "OpenCL.dll" the way a program does, tells
 * whether it is dxcl, and if so lists what it offers: its version, the driver it forwards to,
 * every platform and device with the sharing extensions active, and per sharing family the
 * Direct3D formats it accepts, probed for real with a Direct3D device and one small resource
 * per format: the CL format programs see (clGetImageInfo) and the driver format behind it
 * (dxclGetBackingFormat), marking the ones the copy engine emulates.
 *
 *   dxclinfo [--no-formats]
 *
 * Exit status: 0 when everything could be listed; 1 when OpenCL.dll cannot be loaded or is not
 * dxcl; 2 when dxcl is loaded but has no driver or platform, or a probe could not run. */
#define COBJMACROS
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <windows.h>
#include <d3d9.h>
#include <d3d10.h>
#include <d3d11.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <CL/cl_dx9_media_sharing.h>
#include <dxcl/dxcl.h>

#include "core/names.h"

/* --- The OpenCL.dll being examined, reached only through GetProcAddress. ------------------ */

static HMODULE opencl;
static char opencl_path[MAX_PATH];
static int status; /* the exit status: raised to 2 when something could not be probed */

/* clang-format off */
#define CL_FUNCTIONS(X)                                                                            \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)                  \
    X(clCreateContext) X(clReleaseContext) X(clGetImageInfo) X(clReleaseMemObject)                 \
    X(clGetExtensionFunctionAddressForPlatform)
/* clang-format on */
static struct {
#define X(name) __typeof__(name) *name;
    CL_FUNCTIONS(X)
#undef X
} cl;
static dxclGetInfo_fn dxcl_get_info;
static dxclGetBackingFormat_fn dxcl_get_backing_format;
static dxclGetExtensionPath_fn dxcl_get_extension_path;

static void *cl_extension_function(cl_platform_id platform, const char *name)
{
    return cl.clGetExtensionFunctionAddressForPlatform
               ? cl.clGetExtensionFunctionAddressForPlatform(platform, name)
               : NULL;
}

/* --- The sharing families and their extensions. ------------------------------------------- */

enum family { D3D11, D3D10, DX9, FAMILIES };
static const char *family_names[FAMILIES] = {"D3D11", "D3D10", "DX9 media"};
/* Per family: the standard extension, the vendor one, then Intel's format query. */
static const char *const extensions[FAMILIES][3] = {
    {"cl_khr_d3d11_sharing", "cl_nv_d3d11_sharing", "cl_intel_sharing_format_query_d3d11"},
    {"cl_khr_d3d10_sharing", "cl_nv_d3d10_sharing", "cl_intel_sharing_format_query_d3d10"},
    {"cl_khr_dx9_media_sharing", "cl_intel_dx9_media_sharing", "cl_intel_sharing_format_query_dx9"},
};
/* Families without a probe of their own. */
static const char *const other_extensions[] = {"cl_nv_d3d9_sharing",
                                               "cl_intel_d3d11_nv12_media_sharing"};

/* Prints the sharing extensions found in `list`; returns how many. */
static int print_sharing(const char *list)
{
    int count = 0;

    for (int f = 0; f < FAMILIES; f++)
        for (int k = 0; k < 3; k++)
            if (dxcl_has_word(list, extensions[f][k]))
                printf("%s%s", count++ ? " " : "", extensions[f][k]);
    for (size_t i = 0; i < sizeof(other_extensions) / sizeof(other_extensions[0]); i++)
        if (dxcl_has_word(list, other_extensions[i]))
            printf("%s%s", count++ ? " " : "", other_extensions[i]);
    if (!count)
        printf("none");
    printf("\n");
    return count;
}

/* --- Format tables to probe (the spec's: CURRENT.md 1.11.7). ------------------------------- */

#define DXGI(name)                                                                                 \
    {                                                                                              \
        DXGI_FORMAT_##name, #name                                                                  \
    }
static const struct {
    DXGI_FORMAT format;
    const char *name;
} dxgi_formats[] = {
    DXGI(R32G32B32A32_FLOAT),
    DXGI(R32G32B32A32_UINT),
    DXGI(R32G32B32A32_SINT),
    DXGI(R16G16B16A16_FLOAT),
    DXGI(R16G16B16A16_UNORM),
    DXGI(R16G16B16A16_UINT),
    DXGI(R16G16B16A16_SNORM),
    DXGI(R16G16B16A16_SINT),
    DXGI(B8G8R8A8_UNORM),
    DXGI(R8G8B8A8_UNORM),
    DXGI(R8G8B8A8_UINT),
    DXGI(R8G8B8A8_SNORM),
    DXGI(R8G8B8A8_SINT),
    DXGI(R32G32_FLOAT),
    DXGI(R32G32_UINT),
    DXGI(R32G32_SINT),
    DXGI(R16G16_FLOAT),
    DXGI(R16G16_UNORM),
    DXGI(R16G16_UINT),
    DXGI(R16G16_SNORM),
    DXGI(R16G16_SINT),
    DXGI(R8G8_UNORM),
    DXGI(R8G8_UINT),
    DXGI(R8G8_SNORM),
    DXGI(R8G8_SINT),
    DXGI(R32_FLOAT),
    DXGI(R32_UINT),
    DXGI(R32_SINT),
    DXGI(R16_FLOAT),
    DXGI(R16_UNORM),
    DXGI(R16_UINT),
    DXGI(R16_SNORM),
    DXGI(R16_SINT),
    DXGI(R8_UNORM),
    DXGI(R8_UINT),
    DXGI(R8_SNORM),
    DXGI(R8_SINT),
};
#undef DXGI

#define D3D9FMT(name, planes)                                                                      \
    {                                                                                              \
        D3DFMT_##name, #name, planes                                                               \
    }
static const struct {
    D3DFORMAT format;
    const char *name;
    unsigned planes;
} d3d9_formats[] = {
    D3D9FMT(R32F, 1),
    D3D9FMT(R16F, 1),
    D3D9FMT(L16, 1),
    D3D9FMT(A8, 1),
    D3D9FMT(L8, 1),
    D3D9FMT(G32R32F, 1),
    D3D9FMT(G16R16F, 1),
    D3D9FMT(G16R16, 1),
    D3D9FMT(A8L8, 1),
    D3D9FMT(A32B32G32R32F, 1),
    D3D9FMT(A16B16G16R16F, 1),
    D3D9FMT(A16B16G16R16, 1),
    D3D9FMT(A8B8G8R8, 1),
    D3D9FMT(X8B8G8R8, 1),
    D3D9FMT(A8R8G8B8, 1),
    D3D9FMT(X8R8G8B8, 1),
    {(D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'), "NV12", 2},
    {(D3DFORMAT)MAKEFOURCC('Y', 'V', '1', '2'), "YV12", 3},
};
#undef D3D9FMT

/* --- One table of probed formats. --------------------------------------------------------- */

struct tally {
    int native, emulated, rejected, untested;
    int native_ro, native_wo; /* D3D10/D3D11: read-write is the table; these the other accesses */
    bool by_access;
};

static void print_table_header(const char *what)
{
    printf("    %-22s %-28s %s\n", what, "CL format (programs see)", "driver format (dxcl uses)");
}

/* "CL_RGBA  CL_UNORM_INT8": a format as two aligned names. */
static const char *format_text(const cl_image_format *format, char *out, size_t size)
{
    snprintf(out, size, "%-8s %s", dxcl_channel_order_name(format->image_channel_order),
             dxcl_channel_type_name(format->image_channel_data_type));
    return out;
}

/* Prints the row of one created (or refused) shared image and releases it. */
static void print_row(const char *name, cl_mem image, cl_int err, struct tally *tally)
{
    cl_image_format spec, driver;
    cl_bool emulated = CL_FALSE;
    char spec_text[40], driver_text[40];

    if (!image || err != CL_SUCCESS) {
        printf("    %-22s not accepted: %s\n", name, dxcl_error_name(err));
        tally->rejected++;
        return;
    }
    err = cl.clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(spec), &spec, NULL);
    if (err != CL_SUCCESS) {
        printf("    %-22s clGetImageInfo(CL_IMAGE_FORMAT): %s\n", name, dxcl_error_name(err));
        tally->untested++, status = 2;
    } else if ((err = dxcl_get_backing_format(image, &driver, &emulated)) ==
               CL_INVALID_MEM_OBJECT) {
        /* dxcl keeps no record: the driver shares this family itself (native path). */
        printf("    %-22s %-28s the driver's own\n", name,
               format_text(&spec, spec_text, sizeof(spec_text)));
        tally->native++;
    } else if (err != CL_SUCCESS) {
        printf("    %-22s %-28s dxclGetBackingFormat: %s\n", name,
               format_text(&spec, spec_text, sizeof(spec_text)), dxcl_error_name(err));
        tally->untested++, status = 2;
    } else {
        format_text(&driver, driver_text, sizeof(driver_text));
        if (emulated)
            printf("    %-22s %-28s %-28s emulated\n", name,
                   format_text(&spec, spec_text, sizeof(spec_text)), driver_text);
        else
            printf("    %-22s %-28s %s\n", name, format_text(&spec, spec_text, sizeof(spec_text)),
                   driver_text);
        if (emulated)
            tally->emulated++;
        else
            tally->native++;
    }
    cl.clReleaseMemObject(image);
}

static void print_tally(const struct tally *t)
{
    printf("    %d accepted (%d native, %d emulated by the copy engine), %d not accepted",
           t->native + t->emulated, t->native, t->emulated, t->rejected);
    if (t->untested)
        printf(", %d not probed", t->untested);
    printf("\n");
    if (t->by_access)
        printf("    native for read-only images: %d, for write-only images: %d (the table is "
               "read-write)\n",
               t->native_ro, t->native_wo);
}

/* A context over every device the interop query returns for `object`. */
static cl_context make_context(cl_platform_id platform, cl_context_properties property,
                               void *object, cl_int query_err, cl_device_id *devices,
                               cl_uint num_devices)
{
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                          property, (cl_context_properties)object, 0};
    cl_context context;
    cl_int err;

    if (query_err != CL_SUCCESS || num_devices == 0) {
        printf("    no OpenCL device for this Direct3D device (%s)\n", dxcl_error_name(query_err));
        status = 2;
        return NULL;
    }
    context = cl.clCreateContext(properties, num_devices, devices, NULL, NULL, &err);
    if (!context || err != CL_SUCCESS) {
        printf("    clCreateContext with the Direct3D device: %s\n", dxcl_error_name(err));
        status = 2;
        return NULL;
    }
    return context;
}

/* Which names of a family the platform offers; the functions are looked up under the standard
 * ones when present, else the vendor ones. Returns the suffix, or NULL when neither is there. */
static const char *family_suffix(const char *platform_extensions, enum family f)
{
    static const char *suffixes[FAMILIES][2] = {{"KHR", "NV"}, {"KHR", "NV"}, {"KHR", "INTEL"}};
    bool khr = dxcl_has_word(platform_extensions, extensions[f][0]);
    bool vendor = dxcl_has_word(platform_extensions, extensions[f][1]);

    if (!khr && !vendor)
        return NULL;
    printf("\n  %s formats (", family_names[f]);
    if (khr)
        printf("%s%s", extensions[f][0], vendor ? ", " : "");
    if (vendor)
        printf("%s", extensions[f][1]);
    printf("; probed through the %s functions)\n", suffixes[f][khr ? 0 : 1]);
    return suffixes[f][khr ? 0 : 1];
}

static void *lookup(cl_platform_id platform, const char *base, const char *suffix)
{
    char name[128];
    void *fn;

    snprintf(name, sizeof(name), "%s%s", base, suffix);
    fn = cl_extension_function(platform, name);
    if (!fn) {
        printf("    clGetExtensionFunctionAddressForPlatform(%s) returned NULL\n", name);
        status = 2;
    }
    return fn;
}

/* --- D3D11 and D3D10 (the DXGI table). ----------------------------------------------------- */

/* The CL functions of the two families differ only in the Direct3D interface types they take:
 * one signature for each serves both. */
typedef cl_int(CL_API_CALL *get_ids_dxgi_fn)(cl_platform_id platform, cl_uint source, void *object,
                                             cl_uint set, cl_uint num_entries,
                                             cl_device_id *devices, cl_uint *num_devices);
typedef cl_mem(CL_API_CALL *create_dxgi_fn)(cl_context context, cl_mem_flags flags, void *texture,
                                            UINT subresource, cl_int *errcode_ret);

/* What differs between the D3D11 and D3D10 probes. The devices and textures are released
 * through IUnknown. */
struct dxgi_api {
    enum family family;
    const char *get_ids, *create; /* the CL functions, without their KHR or NV suffix */
    cl_uint device_source, device_set;
    cl_context_properties context_property;
    HRESULT (*create_device)(IUnknown **device);
    /* A 16x16 texture of `format` that shaders can sample. */
    HRESULT (*create_texture)(IUnknown *device, DXGI_FORMAT format, IUnknown **texture);
};

#define PROBE_TEXTURE_DESC(api, format)                                                            \
    {                                                                                              \
        .Width = 16, .Height = 16, .MipLevels = 1, .ArraySize = 1, .Format = (format),             \
        .SampleDesc = {1, 0}, .Usage = api##_USAGE_DEFAULT,                                        \
        .BindFlags = api##_BIND_SHADER_RESOURCE                                                    \
    }

static HRESULT create_d3d11_device(IUnknown **device)
{
    static const D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;

    return D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level, 1, D3D11_SDK_VERSION,
                             (ID3D11Device **)device, NULL, NULL);
}

static HRESULT create_d3d11_texture(IUnknown *device, DXGI_FORMAT format, IUnknown **texture)
{
    D3D11_TEXTURE2D_DESC desc = PROBE_TEXTURE_DESC(D3D11, format);

    return ID3D11Device_CreateTexture2D((ID3D11Device *)device, &desc, NULL,
                                        (ID3D11Texture2D **)texture);
}

static HRESULT create_d3d10_device(IUnknown **device)
{
    return D3D10CreateDevice(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_SDK_VERSION,
                             (ID3D10Device **)device);
}

static HRESULT create_d3d10_texture(IUnknown *device, DXGI_FORMAT format, IUnknown **texture)
{
    D3D10_TEXTURE2D_DESC desc = PROBE_TEXTURE_DESC(D3D10, format);

    return ID3D10Device_CreateTexture2D((ID3D10Device *)device, &desc, NULL,
                                        (ID3D10Texture2D **)texture);
}

static const struct dxgi_api d3d11_api = {
    D3D11,
    "clGetDeviceIDsFromD3D11",
    "clCreateFromD3D11Texture2D",
    CL_D3D11_DEVICE_KHR,
    CL_ALL_DEVICES_FOR_D3D11_KHR,
    CL_CONTEXT_D3D11_DEVICE_KHR,
    create_d3d11_device,
    create_d3d11_texture,
};
static const struct dxgi_api d3d10_api = {
    D3D10,
    "clGetDeviceIDsFromD3D10",
    "clCreateFromD3D10Texture2D",
    CL_D3D10_DEVICE_KHR,
    CL_ALL_DEVICES_FOR_D3D10_KHR,
    CL_CONTEXT_D3D10_DEVICE_KHR,
    create_d3d10_device,
    create_d3d10_texture,
};

/* Counts a texture natively backed for an access other than read-write (formats.c chooses the
 * backing per access: a driver may serve some only for some). */
static void count_access(create_dxgi_fn create, cl_context context, IUnknown *texture,
                         cl_mem_flags flags, int *native)
{
    cl_image_format driver;
    cl_bool emulated = CL_TRUE;
    cl_int err;
    cl_mem image = create(context, flags, texture, 0, &err);

    if (!image)
        return;
    if (dxcl_get_backing_format(image, &driver, &emulated) == CL_INVALID_MEM_OBJECT)
        emulated = CL_FALSE; /* the driver's own */
    *native += !emulated;
    cl.clReleaseMemObject(image);
}

static void probe_dxgi(const struct dxgi_api *api, cl_platform_id platform, const char *suffix)
{
    const char *family = family_names[api->family];
    get_ids_dxgi_fn get_ids = lookup(platform, api->get_ids, suffix);
    create_dxgi_fn create = lookup(platform, api->create, suffix);
    IUnknown *device = NULL;
    cl_device_id devices[16];
    cl_uint num_devices = 0;
    cl_context context;
    struct tally tally = {.by_access = true};
    HRESULT hr;
    cl_int err;

    if (!get_ids || !create)
        return;
    hr = api->create_device(&device);
    if (FAILED(hr)) {
        printf("    cannot create a %s device (0x%08lx): formats not probed\n", family,
               (unsigned long)hr);
        status = 2;
        return;
    }
    err = get_ids(platform, api->device_source, device, api->device_set, 16, devices, &num_devices);
    if ((context =
             make_context(platform, api->context_property, device, err, devices, num_devices))) {
        print_table_header("DXGI_FORMAT_");
        for (size_t i = 0; i < sizeof(dxgi_formats) / sizeof(dxgi_formats[0]); i++) {
            IUnknown *texture = NULL;
            cl_mem image;

            hr = api->create_texture(device, dxgi_formats[i].format, &texture);
            if (FAILED(hr)) {
                printf("    %-22s %s cannot create this texture (0x%08lx)\n", dxgi_formats[i].name,
                       family, (unsigned long)hr);
                tally.untested++;
                continue;
            }
            image = create(context, CL_MEM_READ_WRITE, texture, 0, &err);
            print_row(dxgi_formats[i].name, image, err, &tally);
            count_access(create, context, texture, CL_MEM_READ_ONLY, &tally.native_ro);
            count_access(create, context, texture, CL_MEM_WRITE_ONLY, &tally.native_wo);
            IUnknown_Release(texture);
        }
        print_tally(&tally);
        cl.clReleaseContext(context);
    }
    IUnknown_Release(device);
}

/* --- DX9 media sharing (the D3D9 and FourCC tables) on a D3D9Ex device. ------------------- */

typedef cl_int(CL_API_CALL *get_ids_intel_fn)(cl_platform_id platform, cl_uint source, void *object,
                                              cl_uint set, cl_uint num_entries,
                                              cl_device_id *devices, cl_uint *num_devices);
typedef cl_mem(CL_API_CALL *create_intel_fn)(cl_context context, cl_mem_flags flags,
                                             IDirect3DSurface9 *resource, HANDLE shared_handle,
                                             UINT plane, cl_int *errcode_ret);
/* Intel's tokens (CL/cl_dx9_media_sharing_intel.h), written here so that this file needs only
 * the KHR header. */
#define DXCLINFO_D3D9EX_DEVICE_INTEL 0x4070
#define DXCLINFO_ALL_DEVICES_FOR_DX9_INTEL 0x4025
#define DXCLINFO_CONTEXT_D3D9EX_DEVICE_INTEL 0x4072

static IDirect3DDevice9Ex *create_d3d9ex_device(void)
{
    IDirect3D9Ex *d3d9 = NULL;
    IDirect3DDevice9Ex *device = NULL;
    D3DPRESENT_PARAMETERS present = {
        .BackBufferWidth = 64,
        .BackBufferHeight = 64,
        .BackBufferFormat = D3DFMT_X8R8G8B8,
        .BackBufferCount = 1,
        .SwapEffect = D3DSWAPEFFECT_DISCARD,
        .Windowed = TRUE,
    };
    HWND window = CreateWindowA("static", "dxclinfo", WS_OVERLAPPEDWINDOW, 0, 0, 64, 64, NULL, NULL,
                                NULL, NULL);
    HRESULT hr;

    if (!window) {
        printf("    cannot create a window for the D3D9Ex device (error %lu)\n", GetLastError());
        return NULL;
    }
    present.hDeviceWindow = window;
    if (FAILED(hr = Direct3DCreate9Ex(D3D_SDK_VERSION, &d3d9))) {
        printf("    Direct3DCreate9Ex failed (0x%08lx)\n", (unsigned long)hr);
        return NULL;
    }
    hr = IDirect3D9Ex_CreateDeviceEx(d3d9, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window,
                                     D3DCREATE_SOFTWARE_VERTEXPROCESSING | D3DCREATE_MULTITHREADED,
                                     &present, NULL, &device);
    IDirect3D9Ex_Release(d3d9);
    if (FAILED(hr)) {
        printf("    cannot create a D3D9Ex device (0x%08lx)\n", (unsigned long)hr);
        return NULL;
    }
    return device;
}

static void probe_dx9(cl_platform_id platform, const char *suffix)
{
    bool khr = !strcmp(suffix, "KHR");
    void *get_ids = lookup(
        platform, khr ? "clGetDeviceIDsFromDX9MediaAdapter" : "clGetDeviceIDsFromDX9", suffix);
    void *create = lookup(platform, "clCreateFromDX9MediaSurface", suffix);
    IDirect3DDevice9Ex *device;
    cl_device_id devices[16];
    cl_uint num_devices = 0;
    cl_context context;
    struct tally tally = {0};
    cl_int err;

    if (!get_ids || !create)
        return;
    if (!(device = create_d3d9ex_device())) {
        printf("    formats not probed\n");
        status = 2;
        return;
    }
    if (khr) {
        cl_dx9_media_adapter_type_khr type = CL_ADAPTER_D3D9EX_KHR;
        void *adapters[1] = {device};
        err = ((clGetDeviceIDsFromDX9MediaAdapterKHR_fn)get_ids)(
            platform, 1, &type, adapters, CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR, 16, devices,
            &num_devices);
    } else {
        err = ((get_ids_intel_fn)get_ids)(platform, DXCLINFO_D3D9EX_DEVICE_INTEL, device,
                                          DXCLINFO_ALL_DEVICES_FOR_DX9_INTEL, 16, devices,
                                          &num_devices);
    }
    context = make_context(
        platform, khr ? CL_CONTEXT_ADAPTER_D3D9EX_KHR : DXCLINFO_CONTEXT_D3D9EX_DEVICE_INTEL,
        device, err, devices, num_devices);
    if (context) {
        print_table_header("D3DFMT_ / FourCC");
        for (size_t i = 0; i < sizeof(d3d9_formats) / sizeof(d3d9_formats[0]); i++) {
            IDirect3DSurface9 *surface = NULL;
            HRESULT hr = IDirect3DDevice9Ex_CreateOffscreenPlainSurface(
                device, 16, 16, d3d9_formats[i].format, D3DPOOL_DEFAULT, &surface, NULL);

            for (unsigned plane = 0; plane < d3d9_formats[i].planes; plane++) {
                static const char *yv12_planes[] = {"Y", "V", "U"}, *nv12_planes[] = {"Y", "UV"};
                char name[64];
                cl_mem image;

                if (d3d9_formats[i].planes == 1)
                    snprintf(name, sizeof(name), "%s", d3d9_formats[i].name);
                else
                    snprintf(name, sizeof(name), "%s plane %u (%s)", d3d9_formats[i].name, plane,
                             d3d9_formats[i].planes == 3 ? yv12_planes[plane] : nv12_planes[plane]);
                if (FAILED(hr)) {
                    printf("    %-22s D3D9 cannot create this surface (0x%08lx)\n", name,
                           (unsigned long)hr);
                    tally.untested++;
                    continue;
                }
                if (khr) {
                    cl_dx9_surface_info_khr info = {surface, NULL};
                    image = ((clCreateFromDX9MediaSurfaceKHR_fn)create)(
                        context, CL_MEM_READ_WRITE, CL_ADAPTER_D3D9EX_KHR, &info, plane, &err);
                } else {
                    image = ((create_intel_fn)create)(context, CL_MEM_READ_WRITE, surface, NULL,
                                                      plane, &err);
                }
                print_row(name, image, err, &tally);
            }
            if (surface)
                IDirect3DSurface9_Release(surface);
        }
        print_tally(&tally);
        cl.clReleaseContext(context);
    }
    IDirect3DDevice9Ex_Release(device);
}

/* --- Platforms and devices. ----------------------------------------------------------------- */

/* A string query of `device` (clGetDeviceInfo) or, when it is NULL, of `platform`. */
static cl_int get_string(cl_platform_id platform, cl_device_id device, cl_uint param, size_t size,
                         char *text, size_t *size_ret)
{
    return device ? cl.clGetDeviceInfo(device, param, size, text, size_ret)
                  : cl.clGetPlatformInfo(platform, param, size, text, size_ret);
}

/* The string as a malloc'ed copy; "" when the query fails. */
static char *info_string(cl_platform_id platform, cl_device_id device, cl_uint param)
{
    size_t size = 0;
    char *text;

    if (get_string(platform, device, param, 0, NULL, &size) != CL_SUCCESS || !size ||
        !(text = calloc(1, size + 1)))
        return calloc(1, 1);
    if (get_string(platform, device, param, size, text, NULL) != CL_SUCCESS)
        text[0] = 0;
    return text;
}

static const char *device_type_name(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (type & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

/* What the copy engine does on the device: zero-copy where the device shares host memory
 * (docs/design.md, "Zero-copy where host memory is shared"), else copies through staging kept
 * per object. A context of several devices gets zero-copy only when every one shares it. */
static void print_copy_engine(cl_device_id device)
{
    cl_bool unified = CL_FALSE;

    if (cl.clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified,
                           NULL) != CL_SUCCESS)
        printf("    Copy engine copies (CL_DEVICE_HOST_UNIFIED_MEMORY not answered)\n");
    else if (unified)
        printf("    Copy engine zero-copy: the device shares host memory (D3D10/D3D11 buffers and "
               "2D textures of native formats)\n");
    else
        printf("    Copy engine copies: the device does not share host memory\n");
}

/* How dxcl serves each sharing extension on the platform (every device alike). */
static void print_paths(cl_platform_id platform)
{
    static const char *const path_names[] = {"?", "copy engine", "native", "translated"};
    char served_by[64];
    cl_uint path;

    printf("  Paths         (the same for every device of the platform)\n");
    for (int f = 0; f < FAMILIES; f++)
        for (int k = 0; k < 2; k++) {
            if (dxcl_get_extension_path(platform, extensions[f][k], &path, sizeof(served_by),
                                        served_by) != CL_SUCCESS ||
                path > 3) {
                printf("    %-28s not exposed\n", extensions[f][k]);
                continue;
            }
            printf("    %-28s %s", extensions[f][k], path_names[path]);
            if (path == DXCL_PATH_COPY_ENGINE)
                printf(" (Data path above)\n");
            else
                printf(" (the driver's %s)\n", served_by);
        }
}

static void show_platform(cl_uint index, cl_platform_id platform, bool formats)
{
    char *name = info_string(platform, NULL, CL_PLATFORM_NAME);
    char *version = info_string(platform, NULL, CL_PLATFORM_VERSION);
    char *vendor = info_string(platform, NULL, CL_PLATFORM_VENDOR);
    char *extension_list = info_string(platform, NULL, CL_PLATFORM_EXTENSIONS);
    cl_device_id devices[16];
    cl_uint num_devices = 0;
    cl_int err;

    printf("\nPlatform %u      %s\n", index, name);
    printf("  Version       %s\n", version);
    printf("  Vendor        %s\n", vendor);
    printf("  Sharing       ");
    if (print_sharing(extension_list))
        print_paths(platform);
    err = cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 16, devices, &num_devices);
    if (err != CL_SUCCESS) {
        printf("  Devices       none (%s)\n", dxcl_error_name(err));
        num_devices = 0;
    }
    for (cl_uint d = 0; d < num_devices && d < 16; d++) {
        char *device_name = info_string(NULL, devices[d], CL_DEVICE_NAME);
        char *device_version = info_string(NULL, devices[d], CL_DEVICE_VERSION);
        char *device_extensions = info_string(NULL, devices[d], CL_DEVICE_EXTENSIONS);
        cl_device_type type = 0;

        cl.clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof(type), &type, NULL);
        printf("  Device %u      %s\n", d, device_name);
        printf("    Type        %s\n", device_type_name(type));
        printf("    Version     %s\n", device_version);
        printf("    Sharing     ");
        print_sharing(device_extensions);
        print_copy_engine(devices[d]);
        free(device_name), free(device_version), free(device_extensions);
    }
    if (formats) {
        const char *suffix;
        if ((suffix = family_suffix(extension_list, D3D11)))
            probe_dxgi(&d3d11_api, platform, suffix);
        if ((suffix = family_suffix(extension_list, D3D10)))
            probe_dxgi(&d3d10_api, platform, suffix);
        if ((suffix = family_suffix(extension_list, DX9)))
            probe_dx9(platform, suffix);
    }
    free(name), free(version), free(vendor), free(extension_list);
}

static void get_text(cl_uint param, char *out, size_t size)
{
    out[0] = 0;
    if (dxcl_get_info(param, size, out, NULL) != CL_SUCCESS)
        snprintf(out, size, "(dxclGetInfo(0x%x) failed)", param);
}

/* Where dxcl's Unix side looked for the host's OpenCL drivers and what it found (inside Steam's
 * container: docs/proxy.md, "Inside Steam's container"), when dxcl loaded the pair. */
static void show_host_drivers(void)
{
    typedef BOOL(WINAPI * host_drivers_fn)(char *text, DWORD size);
    HMODULE pair = GetModuleHandleA("dxclunix.dll");
    host_drivers_fn host_drivers =
        pair ? (host_drivers_fn)(void *)GetProcAddress(pair, "dxclunixGetHostDrivers") : NULL;
    char report[1536];
    const char *what = report;

    if (!host_drivers || !host_drivers(report, sizeof(report)) || !report[0])
        return;
    if (!strncmp(what, "host drivers: ", 14))
        what += 14;
    printf("  Host drivers  %s\n", what);
}

int main(int argc, char **argv)
{
    bool formats = true;
    char version[64], driver[MAX_PATH], route[MAX_PATH + 64], data_path[1024];
    cl_platform_id platforms[16];
    cl_uint num_platforms = 0;
    cl_int err;

    setvbuf(stdout, NULL, _IONBF, 0);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-formats")) {
            formats = false;
        } else {
            fprintf(stderr, "usage: dxclinfo [--no-formats]\n"
                            "Shows whether the OpenCL.dll programs load is dxcl, and what "
                            "Direct3D sharing it offers.\n");
            return !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ? 0 : 1;
        }
    }

    opencl = LoadLibraryA("OpenCL.dll");
    if (!opencl) {
        printf("dxclinfo: cannot load OpenCL.dll (error %lu): dxcl is not installed here\n",
               GetLastError());
        return 1;
    }
    GetModuleFileNameA(opencl, opencl_path, sizeof(opencl_path));
    dxcl_get_info = (dxclGetInfo_fn)(void *)GetProcAddress(opencl, "dxclGetInfo");
    dxcl_get_backing_format =
        (dxclGetBackingFormat_fn)(void *)GetProcAddress(opencl, "dxclGetBackingFormat");
    dxcl_get_extension_path =
        (dxclGetExtensionPath_fn)(void *)GetProcAddress(opencl, "dxclGetExtensionPath");
    if (!dxcl_get_info || !dxcl_get_backing_format || !dxcl_get_extension_path) {
        printf("dxclinfo: the loaded OpenCL.dll (%s) is not dxcl\n", opencl_path);
        return 1;
    }
#define X(name) cl.name = (__typeof__(name) *)(void *)GetProcAddress(opencl, #name);
    CL_FUNCTIONS(X)
#undef X

    get_text(DXCL_INFO_VERSION, version, sizeof(version));
    get_text(DXCL_INFO_DRIVER_PATH, driver, sizeof(driver));
    get_text(DXCL_INFO_DRIVER_ROUTE, route, sizeof(route));
    get_text(DXCL_INFO_DATA_PATH, data_path, sizeof(data_path));
    printf("dxcl %s\n", version);
    printf("  OpenCL.dll    %s\n", opencl_path);
    printf("  Driver        %s\n", driver[0] ? driver : "none (no OpenCL driver could be loaded)");
    if (driver[0])
        printf("  Route         %s\n", route);
    show_host_drivers();
    printf("  Data path     %s\n", data_path);

    if (!cl.clGetPlatformIDs) {
        printf("dxclinfo: %s does not export clGetPlatformIDs\n", opencl_path);
        return 2;
    }
    err = cl.clGetPlatformIDs(16, platforms, &num_platforms);
    if (err != CL_SUCCESS || num_platforms == 0) {
        printf("\nNo OpenCL platform through dxcl (%s)\n", dxcl_error_name(err));
        return 2;
    }
    for (cl_uint p = 0; p < num_platforms && p < 16; p++)
        show_platform(p, platforms[p], formats);
    return status;
}
