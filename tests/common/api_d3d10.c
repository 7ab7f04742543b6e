/* The D3D10 sharing APIs for the shared suites: cl_khr_d3d10_sharing and cl_nv_d3d10_sharing
 * (the same token values, other entry point names), on ID3D10Device devices and, for KHR,
 * also on ID3D10Device1 devices. The device is its own immediate context; staging copies are
 * mapped through their own resource type. */
#include "api_dxgi.h"

#include <d3d10_1.h>
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <dxcl/cl_nv_d3d10.h>

void *test_create_d3d10_device(void)
{
    ID3D10Device *device = NULL;
    HRESULT hr =
        D3D10CreateDevice(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_SDK_VERSION, &device);

    CHECK(SUCCEEDED(hr) && device, "D3D10CreateDevice: 0x%08lx", (unsigned long)hr);
    return SUCCEEDED(hr) ? device : NULL;
}

/* mingw-w64 has no import library for d3d10_1.dll: D3D10CreateDevice1 is looked up by name. */
typedef HRESULT(WINAPI *create_device1_fn)(IDXGIAdapter *adapter, D3D10_DRIVER_TYPE type,
                                           HMODULE software, UINT flags, D3D10_FEATURE_LEVEL1 level,
                                           UINT sdk_version, ID3D10Device1 **device);

static void *create_device1(void)
{
    HMODULE module = LoadLibraryA("d3d10_1.dll");
    create_device1_fn create =
        module ? (create_device1_fn)(void *)GetProcAddress(module, "D3D10CreateDevice1") : NULL;
    ID3D10Device1 *device = NULL;
    HRESULT hr = E_NOTIMPL;

    CHECK(create != NULL, "D3D10CreateDevice1 not found in d3d10_1.dll (module %p)",
          (void *)module);
    if (create)
        hr = create(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_FEATURE_LEVEL_10_1,
                    D3D10_1_SDK_VERSION, &device);
    CHECK(SUCCEEDED(hr) && device, "D3D10CreateDevice1(feature level 10.1): 0x%08lx",
          (unsigned long)hr);
    /* d3d10_1.dll stays loaded: the device lives in it. */
    return SUCCEEDED(hr) ? device : NULL;
}

static void copy_subresource(ID3D10Device *device, ID3D10Resource *dst, UINT dst_sub,
                             ID3D10Resource *src, UINT src_sub)
{
    ID3D10Device_CopySubresourceRegion(device, dst, dst_sub, 0, 0, 0, src, src_sub, NULL);
}

static HRESULT map_staging(ID3D10Device *device, ID3D10Resource *staging, enum test_kind kind,
                           bool write, struct test_mapped *mapped)
{
    const D3D10_MAP type = write ? D3D10_MAP_WRITE : D3D10_MAP_READ;
    D3D10_MAPPED_TEXTURE2D m2 = {0};
    D3D10_MAPPED_TEXTURE3D m3 = {0};
    HRESULT hr;

    (void)device;
    memset(mapped, 0, sizeof(*mapped));
    switch (kind) {
    case TEST_KIND_BUFFER:
        return ID3D10Buffer_Map((ID3D10Buffer *)staging, type, 0, &mapped->data);
    case TEST_KIND_TEXTURE2D:
        hr = ID3D10Texture2D_Map((ID3D10Texture2D *)staging, 0, type, 0, &m2);
        *mapped = (struct test_mapped){m2.pData, m2.RowPitch, 0};
        return hr;
    default:
        hr = ID3D10Texture3D_Map((ID3D10Texture3D *)staging, 0, type, 0, &m3);
        *mapped = (struct test_mapped){m3.pData, m3.RowPitch, m3.DepthPitch};
        return hr;
    }
}

static void unmap_staging(ID3D10Device *device, ID3D10Resource *staging, enum test_kind kind)
{
    (void)device;
    if (kind == TEST_KIND_BUFFER)
        ID3D10Buffer_Unmap((ID3D10Buffer *)staging);
    else if (kind == TEST_KIND_TEXTURE2D)
        ID3D10Texture2D_Unmap((ID3D10Texture2D *)staging, 0);
    else
        ID3D10Texture3D_Unmap((ID3D10Texture3D *)staging, 0);
}

static void *multithread(void *device)
{
    void *object = NULL;

    ID3D10Device_QueryInterface((ID3D10Device *)device, &IID_ID3D10Multithread, &object);
    return object;
}

TEST_DXGI_API(D3D10)

TEST_DXGI_TABLES(D3D10, d3d10, CL_CONTEXT_D3D11_DEVICE_KHR, test_create_d3d11_device);
/* The KHR names on ID3D10Device1: the device property, the device source and the resources'
 * device all take it as an ID3D10Device. */
const struct test_api api_d3d10_1_khr =
    TEST_DXGI_TABLE(D3D10, "D3D10.1 KHR", "cl_khr_d3d10_sharing", "KHR", khr_fns, create_device1,
                    CL_CONTEXT_D3D11_DEVICE_KHR, test_create_d3d11_device);
