#include "dx9/d3d9_device.h"
#include "core/com.h"

bool dxcl_d3d9ex_luid(const void *object, LUID *luid)
{
    IDirect3DDevice9Ex *device;
    D3DDEVICE_CREATION_PARAMETERS params;
    IDirect3D9 *d3d9;
    IDirect3D9Ex *d3d9ex;
    bool found = false;

    if (FAILED(dxcl_query_interface(object, &IID_IDirect3DDevice9Ex, (void **)&device)))
        return false;
    if (SUCCEEDED(IDirect3DDevice9Ex_GetDirect3D(device, &d3d9))) {
        if (SUCCEEDED(IDirect3D9_QueryInterface(d3d9, &IID_IDirect3D9Ex, (void **)&d3d9ex))) {
            IDirect3DDevice9Ex_GetCreationParameters(device, &params);
            found = SUCCEEDED(IDirect3D9Ex_GetAdapterLUID(d3d9ex, params.AdapterOrdinal, luid));
            IDirect3D9Ex_Release(d3d9ex);
        }
        IDirect3D9_Release(d3d9);
    }
    IDirect3DDevice9Ex_Release(device);
    return found;
}

bool dxcl_d3d9_resource_of(IDirect3DResource9 *resource, void *device)
{
    IDirect3DDevice9 *owner;
    bool same;

    if (FAILED(IDirect3DResource9_GetDevice(resource, &owner)))
        return false;
    same = dxcl_same_object((IUnknown *)owner, device);
    IDirect3DDevice9_Release(owner);
    return same;
}
