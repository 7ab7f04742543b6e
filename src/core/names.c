/* Names of OpenCL values and extension-list matching (src/core/names.h). Part of the DLL and
 * compiled into dxclinfo, the demo and the tests as well: it depends on nothing else of dxcl. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include "names.h"

#include <CL/cl_ext.h>
#include <stdio.h>
#include <string.h>
/* The sharing extensions' headers include the Direct3D ones: Windows builds only. */
#ifdef _WIN32
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <CL/cl_dx9_media_sharing.h>
#endif

const char *dxcl_error_name(cl_int code)
{
    static const struct {
        cl_int code;
        const char *name;
    } names[] = {
#define NAME(x) {x, #x}
        NAME(CL_SUCCESS),
        NAME(CL_DEVICE_NOT_FOUND),
        NAME(CL_OUT_OF_RESOURCES),
        NAME(CL_OUT_OF_HOST_MEMORY),
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED),
        NAME(CL_INVALID_VALUE),
        NAME(CL_INVALID_PLATFORM),
        NAME(CL_INVALID_DEVICE),
        NAME(CL_INVALID_CONTEXT),
        NAME(CL_INVALID_QUEUE_PROPERTIES),
        NAME(CL_INVALID_COMMAND_QUEUE),
        NAME(CL_INVALID_MEM_OBJECT),
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
        NAME(CL_INVALID_IMAGE_SIZE),
        NAME(CL_INVALID_SAMPLER),
        NAME(CL_INVALID_KERNEL),
        NAME(CL_INVALID_ARG_INDEX),
        NAME(CL_INVALID_EVENT_WAIT_LIST),
        NAME(CL_INVALID_EVENT),
        NAME(CL_INVALID_OPERATION),
        NAME(CL_INVALID_PROPERTY),
        NAME(CL_PLATFORM_NOT_FOUND_KHR),
#ifdef _WIN32
        NAME(CL_INVALID_D3D10_DEVICE_KHR),
        NAME(CL_INVALID_D3D10_RESOURCE_KHR),
        NAME(CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR),
        NAME(CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR),
        NAME(CL_INVALID_D3D11_DEVICE_KHR),
        NAME(CL_INVALID_D3D11_RESOURCE_KHR),
        NAME(CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR),
        NAME(CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR),
        NAME(CL_INVALID_DX9_MEDIA_ADAPTER_KHR),
        NAME(CL_INVALID_DX9_MEDIA_SURFACE_KHR),
        NAME(CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR),
        NAME(CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR),
#endif
#undef NAME
    };
    static _Thread_local char unknown[32];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].code == code)
            return names[i].name;
    snprintf(unknown, sizeof(unknown), "error %d", (int)code);
    return unknown;
}

#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;

const char *dxcl_channel_order_name(cl_channel_order order)
{
    switch (order) {
        NAME(CL_R)
        NAME(CL_A)
        NAME(CL_RG)
        NAME(CL_RA)
        NAME(CL_RGB)
        NAME(CL_RGBA)
        NAME(CL_BGRA)
        NAME(CL_ARGB)
        NAME(CL_INTENSITY)
        NAME(CL_LUMINANCE)
        NAME(CL_Rx)
        NAME(CL_RGx)
        NAME(CL_RGBx)
        NAME(CL_DEPTH)
        NAME(CL_DEPTH_STENCIL)
        NAME(CL_sRGB)
        NAME(CL_sRGBx)
        NAME(CL_sRGBA)
        NAME(CL_sBGRA)
        NAME(CL_ABGR)
    default:
        return "?";
    }
}

const char *dxcl_channel_type_name(cl_channel_type type)
{
    switch (type) {
        NAME(CL_SNORM_INT8)
        NAME(CL_SNORM_INT16)
        NAME(CL_UNORM_INT8)
        NAME(CL_UNORM_INT16)
        NAME(CL_UNORM_SHORT_565)
        NAME(CL_UNORM_SHORT_555)
        NAME(CL_UNORM_INT_101010)
        NAME(CL_SIGNED_INT8)
        NAME(CL_SIGNED_INT16)
        NAME(CL_SIGNED_INT32)
        NAME(CL_UNSIGNED_INT8)
        NAME(CL_UNSIGNED_INT16)
        NAME(CL_UNSIGNED_INT32)
        NAME(CL_HALF_FLOAT)
        NAME(CL_FLOAT)
        NAME(CL_UNORM_INT24)
        NAME(CL_UNORM_INT_101010_2)
    default:
        return "?";
    }
}

#undef NAME

bool dxcl_has_word(const char *list, const char *word)
{
    size_t len = word ? strlen(word) : 0;

    if (!list || !len)
        return false;
    for (const char *p = list; (p = strstr(p, word)); p++) {
        bool starts = p == list || p[-1] == ' ';
        bool ends = p[len] == 0 || p[len] == ' ';
        if (starts && ends)
            return true;
    }
    return false;
}
