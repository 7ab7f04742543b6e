/* Ordinary images (clCreateImage and friends) of a spec-table format the driver lacks or gets
 * wrong for the access asked: created on the same wider backing as a shared image of that
 * format would be, and recorded like one (without a surface) so that host commands, copies and
 * queries give the spec's view. Every other image is the driver's. */
#include "formats/formats.h"
#include "core/memobj.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

static cl_mem fail_image(cl_int err, cl_int *errcode_ret)
{
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

static bool emulable_desc(const cl_image_desc *desc)
{
    return desc &&
           (desc->image_type == CL_MEM_OBJECT_IMAGE2D ||
            desc->image_type == CL_MEM_OBJECT_IMAGE3D) &&
           !desc->buffer;
}

/* The program's pixels in the backing layout, for CL_MEM_COPY_HOST_PTR (caller frees). */
static void *backing_copy(const struct dxcl_backing *backing, const cl_image_desc *desc,
                          const void *host_ptr)
{
    size_t depth = desc->image_type == CL_MEM_OBJECT_IMAGE3D ? desc->image_depth : 1;
    size_t spec_row = desc->image_row_pitch ? desc->image_row_pitch
                                            : desc->image_width * dxcl_element_size(&backing->spec);
    size_t spec_slice =
        desc->image_slice_pitch ? desc->image_slice_pitch : spec_row * desc->image_height;
    size_t row = desc->image_width * dxcl_element_size(&backing->driver);
    struct dxcl_pixel_box src = {(void *)host_ptr, spec_row, spec_slice};
    struct dxcl_pixel_box dst = {malloc(row * desc->image_height * depth), row,
                                 row * desc->image_height};

    if (dst.data)
        dxcl_pixels_to_backing(&backing->layout, &src, &dst, desc->image_width, desc->image_height,
                               depth);
    return dst.data;
}

static cl_mem create_emulated(cl_context context, cl_mem_flags flags,
                              const struct dxcl_backing *backing, const cl_image_desc *desc,
                              void *host_ptr, cl_int *errcode_ret)
{
    struct dxcl_memobj *mem;
    cl_image_desc driver_desc = *desc;
    void *copy = NULL;
    cl_int err;

    if (flags & CL_MEM_USE_HOST_PTR)
        return fail_image(DXCL_FAIL(CL_IMAGE_FORMAT_NOT_SUPPORTED,
                                    "clCreateImage: %s/%s is emulated, so CL_MEM_USE_HOST_PTR "
                                    "cannot alias the program's memory",
                                    dxcl_channel_order_name(backing->spec.image_channel_order),
                                    dxcl_channel_type_name(backing->spec.image_channel_data_type)),
                          errcode_ret);
    if ((flags & CL_MEM_COPY_HOST_PTR) && host_ptr &&
        !(copy = backing_copy(backing, desc, host_ptr)))
        return fail_image(CL_OUT_OF_HOST_MEMORY, errcode_ret);
    if (!(mem = calloc(1, sizeof(*mem)))) {
        free(copy);
        return fail_image(CL_OUT_OF_HOST_MEMORY, errcode_ret);
    }
    driver_desc.image_row_pitch = 0;
    driver_desc.image_slice_pitch = 0;
    mem->handle = dxcl_driver()->clCreateImage(context, flags, &backing->driver, &driver_desc,
                                               copy ? copy : host_ptr, &err);
    free(copy);
    if (!mem->handle) {
        free(mem);
        return fail_image(err, errcode_ret);
    }
    mem->mirror.app_refs = 1;
    mem->flags = flags;
    mem->backing = *backing;
    mem->desc.type = desc->image_type;
    mem->desc.width = desc->image_width;
    mem->desc.height = desc->image_height;
    mem->desc.depth = desc->image_type == CL_MEM_OBJECT_IMAGE3D ? desc->image_depth : 1;
    mem->desc.format = backing->spec;
    if (!dxcl_image_record_add(mem)) {
        dxcl_driver()->clReleaseMemObject(mem->handle);
        free(mem);
        return fail_image(CL_OUT_OF_HOST_MEMORY, errcode_ret);
    }
    DXCL_LOG("created image %p of %s/%s on a %s backing", (void *)mem->handle,
             dxcl_channel_order_name(backing->spec.image_channel_order),
             dxcl_channel_type_name(backing->spec.image_channel_data_type),
             dxcl_channel_order_name(backing->driver.image_channel_order));
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return mem->handle;
}

cl_mem CL_API_CALL DXCL_IMPL(clCreateImage)(cl_context context, cl_mem_flags flags,
                                            const cl_image_format *image_format,
                                            const cl_image_desc *image_desc, void *host_ptr,
                                            cl_int *errcode_ret)
{
    struct dxcl_backing backing;

    /* Anything dxcl cannot back, and every argument error, is the driver's to answer. */
    if (image_format && emulable_desc(image_desc) && context &&
        dxcl_choose_backing(context, flags, image_desc->image_type, image_format, &backing) ==
            CL_SUCCESS &&
        backing.emulated)
        return create_emulated(context, flags, &backing, image_desc, host_ptr, errcode_ret);
    if (!dxcl_driver()->clCreateImage)
        return fail_image(dxcl_driver_missing("clCreateImage"), errcode_ret);
    return dxcl_driver()->clCreateImage(context, flags, image_format, image_desc, host_ptr,
                                        errcode_ret);
}

/* The 1.0 create functions, on clCreateImage (a 1.1 driver gets its own call). */
static cl_mem create_legacy(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                            cl_mem_object_type type, const size_t *size, size_t row_pitch,
                            size_t slice_pitch, void *host_ptr, cl_int *errcode_ret)
{
    cl_image_desc desc = {.image_type = type,
                          .image_width = size[0],
                          .image_height = size[1],
                          .image_depth = size[2],
                          .image_array_size = 1,
                          .image_row_pitch = row_pitch,
                          .image_slice_pitch = slice_pitch};

    return DXCL_IMPL(clCreateImage)(context, flags, format, &desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL DXCL_IMPL(clCreateImage2D)(cl_context context, cl_mem_flags flags,
                                              const cl_image_format *image_format,
                                              size_t image_width, size_t image_height,
                                              size_t image_row_pitch, void *host_ptr,
                                              cl_int *errcode_ret)
{
    const size_t size[3] = {image_width, image_height, 1};

    if (!dxcl_driver()->clCreateImage && dxcl_driver()->clCreateImage2D)
        return dxcl_driver()->clCreateImage2D(context, flags, image_format, image_width,
                                              image_height, image_row_pitch, host_ptr, errcode_ret);
    return create_legacy(context, flags, image_format, CL_MEM_OBJECT_IMAGE2D, size, image_row_pitch,
                         0, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL DXCL_IMPL(clCreateImage3D)(cl_context context, cl_mem_flags flags,
                                              const cl_image_format *image_format,
                                              size_t image_width, size_t image_height,
                                              size_t image_depth, size_t image_row_pitch,
                                              size_t image_slice_pitch, void *host_ptr,
                                              cl_int *errcode_ret)
{
    const size_t size[3] = {image_width, image_height, image_depth};

    if (!dxcl_driver()->clCreateImage && dxcl_driver()->clCreateImage3D)
        return dxcl_driver()->clCreateImage3D(context, flags, image_format, image_width,
                                              image_height, image_depth, image_row_pitch,
                                              image_slice_pitch, host_ptr, errcode_ret);
    return create_legacy(context, flags, image_format, CL_MEM_OBJECT_IMAGE3D, size, image_row_pitch,
                         image_slice_pitch, host_ptr, errcode_ret);
}

cl_int CL_API_CALL DXCL_IMPL(clGetSupportedImageFormats)(cl_context context, cl_mem_flags flags,
                                                         cl_mem_object_type image_type,
                                                         cl_uint num_entries,
                                                         cl_image_format *image_formats,
                                                         cl_uint *num_image_formats)
{
    return dxcl_supported_formats(context, flags, image_type, num_entries, image_formats,
                                  num_image_formats);
}
