/* One shared object's bytes on their way between Direct3D and the driver (engine/copy.h). */
#include "engine/copy.h"
#include "core/driver.h"
#include "core/fault.h"
#include "engine/object.h"
#include "engine/zerocopy.h"
#include "engine/device_convert.h"
#include "formats/pixels.h"

cl_int dxcl_surface_in(struct dxcl_memobj *mem, bool contents)
{
    struct dxcl_surface *surface = mem->surface;
    const struct dxcl_backend *backend = surface->backend;
    cl_int err;

    if (surface->host_users == 0) {
        if (dxcl_fault_hit(DXCL_FAULT_LOCK))
            return CL_OUT_OF_RESOURCES;
        dxcl_lock_check_call("a backend's copy_to_host or map_host", __func__);
        /* A surface of planes holds its sibling planes too: only a copy keeps their bytes. */
        err = !contents && backend->map_host && !mem->desc.share_surface
                  ? backend->map_host(surface)
                  : backend->copy_to_host(surface);
        if (err != CL_SUCCESS)
            return err;
        surface->written = false;
    }
    surface->host_users++;
    return CL_SUCCESS;
}

cl_int dxcl_surface_out(struct dxcl_memobj *mem, bool changed)
{
    struct dxcl_surface *surface = mem->surface;

    surface->written |= changed;
    if (--surface->host_users > 0)
        return CL_SUCCESS;
    /* The GPU path: the driver lets go of the twin's memory before Direct3D copies out of it. */
    if (dxcl_object_of(mem)->imported)
        dxcl_zero_copy_hand_back(mem);
    dxcl_lock_check_call("a backend's unmap_host", __func__);
    return surface->backend->unmap_host(surface, surface->written);
}

static bool is_image(const struct dxcl_memobj *mem)
{
    return mem->desc.type != CL_MEM_OBJECT_BUFFER;
}

/* Where the object's bytes are on the host: the locked surface (or its plane), or the
 * conversion buffer for emulated formats. */
static void surface_view(const struct dxcl_memobj *mem, struct dxcl_mapping *view)
{
    const struct dxcl_surface *surface = mem->surface;

    if (surface->backend->plane_mapping)
        surface->backend->plane_mapping(mem, &surface->mapping, view);
    else
        *view = surface->mapping;
}

static size_t depth_of(const struct dxcl_memobj *mem)
{
    return mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1;
}

/* The backing-layout buffer the driver reads from and writes to for emulated formats. */
static cl_int convert_buffer(struct dxcl_memobj *mem, struct dxcl_pixel_box *box)
{
    struct dxcl_object *obj = dxcl_object_of(mem);
    size_t element = dxcl_element_size(&mem->backing.driver);

    box->row_pitch = element * mem->desc.width;
    box->slice_pitch = box->row_pitch * mem->desc.height;
    if (!obj->convert_buffer &&
        !(obj->convert_buffer = dxcl_malloc(box->slice_pitch * depth_of(mem))))
        return CL_OUT_OF_HOST_MEMORY;
    box->data = obj->convert_buffer;
    return CL_SUCCESS;
}

cl_int dxcl_enqueue_upload(cl_command_queue queue, struct dxcl_memobj *mem, const char *name,
                           cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_mapping view;
    size_t origin[3] = {0, 0, 0}, region[3] = {mem->desc.width, mem->desc.height, depth_of(mem)};
    cl_int err;

    if (dxcl_memobj_zero_copy(mem) && dxcl_zero_copy_in_place(mem, name))
        return dxcl_zero_copy_to_device(queue, mem, num_events, wait_list, event);
    surface_view(mem, &view);
    if (!is_image(mem))
        return drv->clEnqueueWriteBuffer(queue, mem->handle, CL_FALSE, 0, mem->desc.size, view.data,
                                         num_events, wait_list, event);
    if (mem->backing.emulated) {
        struct dxcl_pixel_box src = {view.data, view.row_pitch, view.slice_pitch}, dst;
        if (dxcl_device_upload(queue, mem, &src, num_events, wait_list, event, &err))
            return err;
        if ((err = convert_buffer(mem, &dst)) != CL_SUCCESS)
            return err;
        dxcl_pixels_to_backing(&mem->backing.layout, &src, &dst, region[0], region[1], region[2]);
        view.data = dst.data;
        view.row_pitch = dst.row_pitch;
        view.slice_pitch = dst.slice_pitch;
    }
    return drv->clEnqueueWriteImage(queue, mem->handle, CL_FALSE, origin, region, view.row_pitch,
                                    is_image(mem) && region[2] > 1 ? view.slice_pitch : 0,
                                    view.data, num_events, wait_list, event);
}

cl_int dxcl_enqueue_download(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                             cl_event *event)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_mapping view;
    size_t origin[3] = {0, 0, 0}, region[3] = {mem->desc.width, mem->desc.height, depth_of(mem)};
    struct dxcl_pixel_box box;
    cl_int err;

    if (dxcl_memobj_zero_copy(mem))
        return dxcl_zero_copy_to_host(queue, mem, after, event);
    surface_view(mem, &view);
    if (!is_image(mem))
        return drv->clEnqueueReadBuffer(queue, mem->handle, CL_FALSE, 0, mem->desc.size, view.data,
                                        1, &after, event);
    if (mem->backing.emulated) {
        box = (struct dxcl_pixel_box){view.data, view.row_pitch, view.slice_pitch};
        if (dxcl_device_download(queue, mem, &box, after, event, &err))
            return err;
        if ((err = convert_buffer(mem, &box)) != CL_SUCCESS)
            return err;
        view.data = box.data;
        view.row_pitch = box.row_pitch;
        view.slice_pitch = box.slice_pitch;
    }
    return drv->clEnqueueReadImage(queue, mem->handle, CL_FALSE, origin, region, view.row_pitch,
                                   region[2] > 1 ? view.slice_pitch : 0, view.data, 1, &after,
                                   event);
}

void dxcl_download_done(struct dxcl_memobj *mem)
{
    struct dxcl_mapping view;
    struct dxcl_pixel_box src, dst;

    if (!is_image(mem) || !mem->backing.emulated || dxcl_object_of(mem)->downloaded_on_device)
        return;
    surface_view(mem, &view);
    convert_buffer(mem, &src); /* allocated by dxcl_enqueue_download */
    dst = (struct dxcl_pixel_box){view.data, view.row_pitch, view.slice_pitch};
    dxcl_pixels_from_backing(&mem->backing.layout, &src, &dst, mem->desc.width, mem->desc.height,
                             depth_of(mem));
}

void dxcl_conversion_free(struct dxcl_memobj *mem)
{
    struct dxcl_object *obj = dxcl_object_of(mem);

    free(obj->convert_buffer);
    obj->convert_buffer = NULL;
    dxcl_device_convert_free(mem);
}
