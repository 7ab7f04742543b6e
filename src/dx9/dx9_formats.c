/* cl_intel_sharing_format_query_dx9: the D3D9 and FourCC formats of the DX9 media tables that
 * a context can share, per plane (plane 0 lists the RGB formats and the planar ones; planes 1
 * and 2 only NV12 and YV12, YV12 alone for plane 2). */
#include "core/com.h"
#include "formats/format_query.h"
#include "formats/formats.h"
#include "core/route.h"

#include <d3d9.h>
#include <CL/cl_dx9_media_sharing.h>

extern const struct dxcl_backend dxcl_dx9_backend;

static size_t d3d9_count(void)
{
    return dxcl_d3d9_format_count();
}

static cl_uint d3d9_format_at(size_t index)
{
    return (cl_uint)dxcl_d3d9_format_at(index);
}

static bool d3d9_plane_format(cl_uint format, cl_uint plane, cl_image_format *out)
{
    struct dxcl_plane p;

    if (!dxcl_format_from_d3d9((D3DFORMAT)format, plane, &p))
        return false;
    *out = p.format;
    return true;
}

static bool d3d9_creates_type(cl_mem_object_type type)
{
    return type == CL_MEM_OBJECT_IMAGE2D;
}

/* The surfaces the copy engine reaches in D3DPOOL_DEFAULT: offscreen plain surfaces (locked)
 * and render targets (read back); either is enough. A DXVA-HD adapter shares surfaces of any
 * D3D9 device: only the driver decides then. */
static bool d3d9_device_backs(struct dxcl_context *ctx, cl_uint format, cl_mem_object_type type)
{
    static const DWORD usages[] = {0, D3DUSAGE_RENDERTARGET};
    IDirect3DDevice9 *device;
    D3DDEVICE_CREATION_PARAMETERS params;
    D3DDISPLAYMODE mode;
    IDirect3D9 *d3d9;
    bool backs = false;

    (void)type;
    if (FAILED(dxcl_query_interface(ctx->device, &IID_IDirect3DDevice9, (void **)&device)))
        return true;
    if (SUCCEEDED(IDirect3DDevice9_GetDirect3D(device, &d3d9))) {
        IDirect3DDevice9_GetCreationParameters(device, &params);
        if (SUCCEEDED(IDirect3D9_GetAdapterDisplayMode(d3d9, params.AdapterOrdinal, &mode)))
            for (size_t i = 0; i < DXCL_ARRAY_SIZE(usages) && !backs; i++)
                backs = SUCCEEDED(IDirect3D9_CheckDeviceFormat(
                    d3d9, params.AdapterOrdinal, params.DeviceType, mode.Format, usages[i],
                    D3DRTYPE_SURFACE, (D3DFORMAT)format));
        IDirect3D9_Release(d3d9);
    }
    IDirect3DDevice9_Release(device);
    return backs;
}

static cl_int CL_API_CALL get_supported_formats(cl_context context, cl_mem_flags flags,
                                                cl_mem_object_type image_type, cl_uint plane,
                                                cl_uint num_entries, D3DFORMAT *formats,
                                                cl_uint *num_formats)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), get_supported_formats,
               (context, flags, image_type, plane, num_entries, formats, num_formats));
    static const struct dxcl_format_family family = {&dxcl_dx9_backend, d3d9_count,
                                                     d3d9_format_at,    d3d9_plane_format,
                                                     d3d9_creates_type, d3d9_device_backs};

    return dxcl_query_sharing_formats("clGetSupportedDX9MediaSurfaceFormatsINTEL", &family, context,
                                      flags, image_type, plane, num_entries, (cl_uint *)formats,
                                      num_formats);
}

DXCL_FORMAT_QUERY_EXTENSION(format_query_dx9, "cl_intel_sharing_format_query_dx9",
                            "clGetSupportedDX9MediaSurfaceFormatsINTEL", get_supported_formats)
