/* The D3D11 sharing APIs for the shared suites: cl_khr_d3d11_sharing and cl_nv_d3d11_sharing.
 * Both use the same token values and the same Direct3D 11 operations; only the entry point
 * names differ. Copies and maps go through the device's immediate context. */
#include "api_dxgi.h"

#include <d3d10.h>
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <dxcl/cl_nv_d3d11.h>

void *test_create_d3d11_device(void)
{
    return test_d3d11_device(NULL);
}

static void copy_subresource(ID3D11Device *device, ID3D11Resource *dst, UINT dst_sub,
                             ID3D11Resource *src, UINT src_sub)
{
    ID3D11DeviceContext *immediate;

    ID3D11Device_GetImmediateContext(device, &immediate);
    ID3D11DeviceContext_CopySubresourceRegion(immediate, dst, dst_sub, 0, 0, 0, src, src_sub, NULL);
    ID3D11DeviceContext_Release(immediate);
}

static HRESULT map_staging(ID3D11Device *device, ID3D11Resource *staging, enum test_kind kind,
                           bool write, struct test_mapped *mapped)
{
    ID3D11DeviceContext *immediate;
    D3D11_MAPPED_SUBRESOURCE m = {0};
    HRESULT hr;

    (void)kind; /* one Map for every resource type */
    ID3D11Device_GetImmediateContext(device, &immediate);
    hr = ID3D11DeviceContext_Map(immediate, staging, 0, write ? D3D11_MAP_WRITE : D3D11_MAP_READ, 0,
                                 &m);
    ID3D11DeviceContext_Release(immediate);
    *mapped = (struct test_mapped){m.pData, m.RowPitch, m.DepthPitch};
    return hr;
}

static void unmap_staging(ID3D11Device *device, ID3D11Resource *staging, enum test_kind kind)
{
    ID3D11DeviceContext *immediate;

    (void)kind;
    ID3D11Device_GetImmediateContext(device, &immediate);
    ID3D11DeviceContext_Unmap(immediate, staging, 0);
    ID3D11DeviceContext_Release(immediate);
}

static void *multithread(void *device)
{
    ID3D11DeviceContext *immediate;
    void *object = NULL;

    ID3D11Device_GetImmediateContext((ID3D11Device *)device, &immediate);
    ID3D11DeviceContext_QueryInterface(immediate, &IID_ID3D10Multithread, &object);
    ID3D11DeviceContext_Release(immediate);
    return object;
}

TEST_DXGI_API(D3D11)

TEST_DXGI_TABLES(D3D11, d3d11, CL_CONTEXT_D3D10_DEVICE_KHR, test_create_d3d10_device);
