/* The shared part of clGetSupportedD3D10TextureFormatsINTEL, clGetSupportedD3D11Texture-
 * FormatsINTEL and clGetSupportedDX9MediaSurfaceFormatsINTEL: a format is listed when the
 * family's create function accepts it, the context's Direct3D device can make a resource of it
 * that the copy engine reaches, and the driver can back its CL format (itself or emulated) for
 * the flags and image type. */
#include "formats/format_query.h"
#include "formats/formats.h"
#include "core/fault.h"
#include "core/log.h"
#include "core/registry.h"

/* The values the Intel text allows in flags: one access qualifier (0 meaning READ_WRITE, as in
 * clCreateImage), or KERNEL_READ_AND_WRITE (alone or with READ_WRITE). */
static bool flags_valid(cl_mem_flags flags)
{
    const cl_mem_flags access = CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE;
    cl_mem_flags rest = flags & ~CL_MEM_KERNEL_READ_AND_WRITE;

    if (flags & ~(access | CL_MEM_KERNEL_READ_AND_WRITE))
        return false;
    if (rest & (rest - 1))
        return false; /* two access qualifiers */
    return !(flags & CL_MEM_KERNEL_READ_AND_WRITE) || !rest || rest == CL_MEM_READ_WRITE;
}

static bool is_image_type(cl_mem_object_type type)
{
    switch (type) {
    case CL_MEM_OBJECT_IMAGE2D:
    case CL_MEM_OBJECT_IMAGE3D:
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
        return true;
    default:
        return false;
    }
}

static cl_int list_formats(const struct dxcl_format_family *family, struct dxcl_context *ctx,
                           cl_mem_flags flags, cl_mem_object_type type, cl_uint plane,
                           cl_uint num_entries, cl_uint *formats, cl_uint *num_formats)
{
    size_t count = family->creates_type(type) ? family->count() : 0;
    cl_image_format *cl_formats = dxcl_calloc(count + 1, sizeof(*cl_formats));
    bool *candidate = dxcl_calloc(count + 1, sizeof(*candidate));
    bool *backable = dxcl_calloc(count + 1, sizeof(*backable));
    cl_uint found = 0;
    cl_int err = cl_formats && candidate && backable ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;

    /* The family's formats of this plane that the device can make, then those the driver can
     * back (0 in flags is READ_WRITE, as in clCreateImage). */
    for (size_t i = 0; i < count && err == CL_SUCCESS; i++) {
        cl_uint api_format = family->format_at(i);
        candidate[i] = family->plane_format(api_format, plane, &cl_formats[i]) &&
                       (!family->device_backs || family->device_backs(ctx, api_format, type));
    }
    /* A driver that refuses these flags or this type backs nothing for them. */
    if (err == CL_SUCCESS && count &&
        dxcl_backable_formats(ctx->handle, flags ? flags : CL_MEM_READ_WRITE, type, cl_formats,
                              count, backable) != CL_SUCCESS)
        memset(backable, 0, count * sizeof(*backable));
    for (size_t i = 0; i < count && err == CL_SUCCESS; i++) {
        if (!candidate[i] || !backable[i])
            continue;
        if (formats && found < num_entries)
            formats[found] = family->format_at(i);
        found++;
    }
    if (err == CL_SUCCESS && num_formats)
        *num_formats = found;
    free(cl_formats);
    free(candidate);
    free(backable);
    return err;
}

cl_int dxcl_query_sharing_formats(const char *name, const struct dxcl_format_family *family,
                                  cl_context context, cl_mem_flags flags,
                                  cl_mem_object_type image_type, cl_uint plane, cl_uint num_entries,
                                  cl_uint *formats, cl_uint *num_formats)
{
    struct dxcl_context *ctx;
    cl_int err = dxcl_context_get(context, family->backend, &ctx);

    if (err != CL_SUCCESS)
        return dxcl_log_result(name, err);
    if (!flags_valid(flags))
        err = DXCL_FAIL(CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
    else if (!is_image_type(image_type))
        err = DXCL_FAIL(CL_INVALID_VALUE, "image_type 0x%x is not an image type",
                        (unsigned)image_type);
    else if (num_entries == 0 && formats)
        err = DXCL_FAIL(CL_INVALID_VALUE, "num_entries is 0 with a format array");
    else if (!formats && !num_formats)
        err = DXCL_FAIL(CL_INVALID_VALUE, "both the format array and the count are NULL");
    else
        err =
            list_formats(family, ctx, flags, image_type, plane, num_entries, formats, num_formats);
    dxcl_context_unref(ctx);
    return dxcl_log_result(name, err);
}

/* The extension's own name string (cl_ext.h): the per-API functions come with the
 * _d3d10, _d3d11 and _dx9 names their backends register. */
static const struct dxcl_ext_function no_functions[] = {{NULL, NULL}};
static const struct dxcl_extension sharing_format_query = {.name = "cl_intel_sharing_format_query",
                                                           .version = CL_MAKE_VERSION(1, 0, 0),
                                                           .functions = no_functions};
DXCL_REGISTER_EXTENSION(sharing_format_query)
