/* dxcl reads lists and strings from its driver at their full size (issue 18: fixed buffers of
 * 8 or 16 platforms, 16 or 64 devices and 4,096-byte extension strings cut them off, and a
 * platform or device beyond a cap silently took the wrong path). dxcl runs in front of
 * fake_cl.exe (a DLL: tests/common/fake_driver.h), a made-up driver with 20 platforms, up to 70
 * devices per platform and 5,000-byte extension strings. Each cap the issue found fails a
 * check of its own here:
 *   - every platform gets its own path decision: cl_khr_d3d11_sharing native on the 17 that
 *     list it everywhere (a device query is routed to the driver's function, which answers a
 *     count of its own), NV translated there, and the copy engine on the platform whose 17th
 *     device lacks it (a device beyond the 16th counts) and on those that never list it;
 *   - dxclGetExtensionPath and clGetDeviceIDsFromD3D11KHR accept the 20th platform;
 *   - PREFERRED devices of a D3D11 device on the copy engine: the one device whose LUID is the
 *     adapter's, found behind a 5,000-byte extension string, among 70;
 *   - in a context of 70 devices on a platform named PoCL, CL_R/CL_HALF_FLOAT (a format PoCL
 *     lists but reads wrong) is emulated on CL_RGBA, as on PoCL itself;
 *   - a build callback on a program of 70 devices is not called while the build is in
 *     progress, and is called once when the driver completes it. */
#include "testlib.h"
#include "fake_driver.h"

#include <CL/cl_d3d11.h>
#include <dxcl/cl_nv_d3d11.h>
#include <dxcl/dxcl.h>
#include <dxgi.h>
#include <stdlib.h>

static cl_platform_id platforms[FAKE_PLATFORMS];

/* The fake driver beside this program is dxcl's driver; device 0 of its wide platform gets the
 * LUID of the D3D11 device's adapter. Before any OpenCL call: dxcl loads its driver on the
 * first. */
static void use_fake_driver(ID3D11Device *d3d)
{
    char path[MAX_PATH], luid_text[2 * sizeof(LUID) + 1], *slash;
    IDXGIDevice *dxgi;
    IDXGIAdapter *adapter;
    DXGI_ADAPTER_DESC desc;

    REQUIRE(SUCCEEDED(ID3D11Device_QueryInterface(d3d, &IID_IDXGIDevice, (void **)&dxgi)),
            "IDXGIDevice of the D3D11 device");
    REQUIRE(SUCCEEDED(IDXGIDevice_GetAdapter(dxgi, &adapter)), "the DXGI adapter");
    IDXGIAdapter_GetDesc(adapter, &desc);
    IDXGIAdapter_Release(adapter);
    IDXGIDevice_Release(dxgi);
    for (size_t i = 0; i < sizeof(LUID); i++)
        sprintf(luid_text + 2 * i, "%02x", ((const unsigned char *)&desc.AdapterLuid)[i]);
    SetEnvironmentVariableA(FAKE_LUID_ENV, luid_text);

    GetModuleFileNameA(NULL, path, sizeof(path));
    REQUIRE((slash = strrchr(path, '\\')), "the program's folder in %s", path);
    strcpy(slash + 1, "fake_cl.exe");
    REQUIRE(GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES, "%s exists", path);
    SetEnvironmentVariableA("DXCL_DRIVER", path);
}

static cl_uint path_of(cl_platform_id platform, const char *extension)
{
    static dxclGetExtensionPath_fn get;
    cl_uint path = 0;
    cl_int err;

    if (!get)
        get = (dxclGetExtensionPath_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                      "dxclGetExtensionPath");
    REQUIRE(get != NULL, "dxcl exports dxclGetExtensionPath");
    err = get(platform, extension, &path, 0, NULL);
    CHECK(err == CL_SUCCESS, "dxclGetExtensionPath(platform %p, %s): %d", (void *)platform,
          extension, err);
    return path;
}

static void check_paths(void)
{
    for (cl_uint p = 0; p < FAKE_PLATFORMS; p++) {
        bool shares = p >= FAKE_FIRST_SHARING && p <= FAKE_LAST_SHARING;
        cl_uint khr = path_of(platforms[p], "cl_khr_d3d11_sharing");
        cl_uint nv = path_of(platforms[p], "cl_nv_d3d11_sharing");

        CHECK(khr == (shares ? DXCL_PATH_NATIVE : DXCL_PATH_COPY_ENGINE),
              "platform %u: cl_khr_d3d11_sharing path %u, want %s", p, khr,
              shares ? "native" : "the copy engine");
        CHECK(nv == (shares ? DXCL_PATH_TRANSLATED : DXCL_PATH_COPY_ENGINE),
              "platform %u: cl_nv_d3d11_sharing path %u, want %s", p, nv,
              shares ? "translated" : "the copy engine");
    }
}

/* clGetDeviceIDsFromD3D11KHR and _NV as dxcl returns them for the platform. */
static clGetDeviceIDsFromD3D11KHR_fn khr_query(cl_platform_id platform)
{
    return (clGetDeviceIDsFromD3D11KHR_fn)clGetExtensionFunctionAddressForPlatform(
        platform, "clGetDeviceIDsFromD3D11KHR");
}

static clGetDeviceIDsFromD3D11NV_fn nv_query(cl_platform_id platform)
{
    return (clGetDeviceIDsFromD3D11NV_fn)clGetExtensionFunctionAddressForPlatform(
        platform, "clGetDeviceIDsFromD3D11NV");
}

/* Where the driver shares, the query is the driver's: it answers FAKE_ROUTED_BASE + p. */
static void check_routed_queries(ID3D11Device *d3d)
{
    for (cl_uint p = FAKE_FIRST_SHARING; p <= FAKE_LAST_SHARING; p++) {
        clGetDeviceIDsFromD3D11KHR_fn khr = khr_query(platforms[p]);
        clGetDeviceIDsFromD3D11NV_fn nv = nv_query(platforms[p]);
        cl_uint count = 0;

        REQUIRE(khr && nv, "platform %u: dxcl's D3D11 device queries", p);
        CHECK_ERR(khr(platforms[p], CL_D3D11_DEVICE_KHR, d3d, CL_ALL_DEVICES_FOR_D3D11_KHR, 0, NULL,
                      &count),
                  CL_SUCCESS);
        CHECK(count == FAKE_ROUTED_BASE + p,
              "platform %u: KHR query answered %u, want %u (the "
              "driver's own function)",
              p, count, FAKE_ROUTED_BASE + p);
        count = 0;
        CHECK_ERR(
            nv(platforms[p], CL_D3D11_DEVICE_NV, d3d, CL_ALL_DEVICES_FOR_D3D11_NV, 0, NULL, &count),
            CL_SUCCESS);
        CHECK(count == FAKE_ROUTED_BASE + p,
              "platform %u: NV query answered %u, want %u (the "
              "driver's KHR function)",
              p, count, FAKE_ROUTED_BASE + p);
    }
}

/* On the copy engine, dxcl answers: every device, or for PREFERRED the one of the adapter's
 * LUID where a device tells it. */
static void check_engine_queries(ID3D11Device *d3d)
{
    clGetDeviceIDsFromD3D11KHR_fn khr = khr_query(platforms[FAKE_WIDE_PLATFORM]);
    cl_platform_id wide = platforms[FAKE_WIDE_PLATFORM];
    cl_platform_id mixed = platforms[FAKE_MIXED_PLATFORM];
    cl_platform_id plain = platforms[FAKE_PLAIN_PLATFORM];
    cl_device_id all[FAKE_WIDE_DEVICES], preferred = NULL;
    cl_uint count = 0;

    REQUIRE(khr != NULL, "dxcl's clGetDeviceIDsFromD3D11KHR");
    CHECK_ERR(khr(plain, CL_D3D11_DEVICE_KHR, d3d, CL_ALL_DEVICES_FOR_D3D11_KHR, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(count == 1, "platform %d: %u devices for ALL, want 1", FAKE_PLAIN_PLATFORM, count);
    CHECK_ERR(khr(mixed, CL_D3D11_DEVICE_KHR, d3d, CL_ALL_DEVICES_FOR_D3D11_KHR, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(count == FAKE_MIXED_DEVICES, "platform %d: %u devices for ALL, want %d",
          FAKE_MIXED_PLATFORM, count, FAKE_MIXED_DEVICES);
    CHECK_ERR(khr(wide, CL_D3D11_DEVICE_KHR, d3d, CL_ALL_DEVICES_FOR_D3D11_KHR, 0, NULL, &count),
              CL_SUCCESS);
    CHECK(count == FAKE_WIDE_DEVICES, "platform %d: %u devices for ALL, want %d",
          FAKE_WIDE_PLATFORM, count, FAKE_WIDE_DEVICES);
    count = 0;
    CHECK_ERR(khr(wide, CL_D3D11_DEVICE_KHR, d3d, CL_PREFERRED_DEVICES_FOR_D3D11_KHR, 1, &preferred,
                  &count),
              CL_SUCCESS);
    CHECK_ERR(clGetDeviceIDs(wide, CL_DEVICE_TYPE_ALL, FAKE_WIDE_DEVICES, all, NULL), CL_SUCCESS);
    CHECK(count == 1 && preferred == all[0],
          "platform %d: PREFERRED gave %u devices (first %p), want 1: device 0 (%p), the one "
          "with the adapter's LUID",
          FAKE_WIDE_PLATFORM, count, (void *)preferred, (void *)all[0]);
}

static cl_context wide_context(void)
{
    cl_device_id all[FAKE_WIDE_DEVICES];
    cl_context context;
    cl_int err;

    REQUIRE(clGetDeviceIDs(platforms[FAKE_WIDE_PLATFORM], CL_DEVICE_TYPE_ALL, FAKE_WIDE_DEVICES,
                           all, NULL) == CL_SUCCESS,
            "the wide platform's devices");
    context = clCreateContext(NULL, FAKE_WIDE_DEVICES, all, NULL, NULL, &err);
    REQUIRE(context && err == CL_SUCCESS, "a context of %d devices: %d", FAKE_WIDE_DEVICES, err);
    return context;
}

/* dxcl backs CL_R/CL_HALF_FLOAT with CL_RGBA on PoCL (formats.c, "broken_formats"): it must
 * find the platform's name through a context of 70 devices. */
static void check_broken_format(cl_context context)
{
    dxclGetBackingFormat_fn backing_of = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(
        test_dxcl_module(), "dxclGetBackingFormat");
    const cl_image_format format = {CL_R, CL_HALF_FLOAT};
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4};
    cl_image_format driver = {0};
    cl_bool emulated = CL_FALSE;
    cl_int err;
    cl_mem image = clCreateImage(context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);

    REQUIRE(backing_of != NULL, "dxcl exports dxclGetBackingFormat");
    REQUIRE(image && err == CL_SUCCESS, "a CL_R/CL_HALF_FLOAT image: %d", err);
    err = backing_of(image, &driver, &emulated);
    CHECK(err == CL_SUCCESS && emulated && driver.image_channel_order == CL_RGBA,
          "CL_R/CL_HALF_FLOAT in a context of %d devices on PoCL: dxclGetBackingFormat %d, "
          "emulated %u, driver order 0x%x (want emulated on CL_RGBA)",
          FAKE_WIDE_DEVICES, err, emulated, driver.image_channel_order);
    CHECK_ERR(clReleaseMemObject(image), CL_SUCCESS);
}

static volatile LONG built;

static void CL_CALLBACK on_built(cl_program program, void *user_data)
{
    (void)program, (void)user_data;
    InterlockedIncrement(&built);
}

static void check_build_callback(cl_context context)
{
    static const char *source = "__kernel void k(void) {}";
    fake_finish_builds_fn finish = (fake_finish_builds_fn)(void (*)(void))GetProcAddress(
        GetModuleHandleA("fake_cl.exe"), "fake_finish_builds");
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);

    REQUIRE(finish != NULL, "fake_cl.exe is loaded and exports fake_finish_builds");
    REQUIRE(program && err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    CHECK_ERR(clBuildProgram(program, 0, NULL, "", on_built, NULL), CL_SUCCESS);
    CHECK(built == 0,
          "the build callback ran %ld times while the build of a program of %d devices was in "
          "progress",
          (long)built, FAKE_WIDE_DEVICES);
    finish();
    CHECK(built == 1, "the build callback ran %ld times once the build completed, want 1",
          (long)built);
    CHECK_ERR(clReleaseProgram(program), CL_SUCCESS);
}

int main(void)
{
    ID3D11Device *d3d = test_d3d11_device(NULL);
    cl_uint count = 0;
    cl_context context;

    use_fake_driver(d3d);
    REQUIRE(clGetPlatformIDs(FAKE_PLATFORMS, platforms, &count) == CL_SUCCESS &&
                count == FAKE_PLATFORMS,
            "dxcl in front of fake_cl.exe lists %u platforms, want %d", count, FAKE_PLATFORMS);
    check_paths();
    check_routed_queries(d3d);
    check_engine_queries(d3d);
    context = wide_context();
    check_broken_format(context);
    check_build_callback(context);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    ID3D11Device_Release(d3d);
    return test_finish("driver_sizes");
}
