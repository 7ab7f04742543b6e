/* cl_intel_sharing_format_query: which Direct3D formats a context can share. A family names
 * its format table and what its Direct3D device can make; the core checks the arguments and
 * keeps the formats whose CL format the driver can back (src/formats/format_query.c). */
#ifndef DXCL_FORMAT_QUERY_H
#define DXCL_FORMAT_QUERY_H

#include "core/context.h"
#include "core/registry.h"

struct dxcl_format_family {
    const struct dxcl_backend *backend;
    /* The family's table (DXGI or D3D9): its size and entries, as 32-bit format values. */
    size_t (*count)(void);
    cl_uint (*format_at)(size_t index);
    /* The CL format of plane `plane` of `api_format`; false when it has no such plane. */
    bool (*plane_format)(cl_uint api_format, cl_uint plane, cl_image_format *format);
    /* Whether the family's create functions make images of `type`. */
    bool (*creates_type)(cl_mem_object_type type);
    /* Optional: whether the context's Direct3D device can make a resource of the format that
     * the copy engine reaches, for images of `type`. */
    bool (*device_backs)(struct dxcl_context *ctx, cl_uint api_format, cl_mem_object_type type);
};

/* The whole query function of the Intel text: CL_INVALID_CONTEXT unless `context` was made
 * with the family's device, CL_INVALID_VALUE for flags, image_type, num_entries and the
 * output pointers, then the formats of the table that the device and the driver can back
 * (each once, in table order). `name` is for the log. */
cl_int dxcl_query_sharing_formats(const char *name, const struct dxcl_format_family *family,
                                  cl_context context, cl_mem_flags flags,
                                  cl_mem_object_type image_type, cl_uint plane, cl_uint num_entries,
                                  cl_uint *formats, cl_uint *num_formats);

/* Registers a family's format query extension with its one function. */
#define DXCL_FORMAT_QUERY_EXTENSION(var, extension, function_name, function)                       \
    static const struct dxcl_ext_function var##_functions[] = {{function_name, (void *)function},  \
                                                               {NULL, NULL}};                      \
    static const struct dxcl_extension var = {                                                     \
        .name = extension, .version = CL_MAKE_VERSION(1, 0, 0), .functions = var##_functions};     \
    DXCL_REGISTER_EXTENSION(var)

#endif
