/* Host commands on shared images whose format the driver lacks (CL_RG on PoCL): the driver
 * image holds the pixels in a wider backing format, so every command that moves pixels
 * between the image and host or buffer memory converts between the backing layout and the
 * spec's. These paths complete before they return (dxcl gets no driver callbacks to convert
 * later); docs/design.md lists the consequences. Other images are forwarded untouched after
 * the enqueue guard. */
#include "core/event.h"
#include "core/memobj.h"
#include "core/table.h"
#include "proxy/driver.h"
#include "proxy/impl.h"

#include <stdlib.h>

static struct dxcl_memobj *emulated_image(cl_mem handle)
{
    struct dxcl_memobj *mem = dxcl_image_record(handle);

    return mem && mem->desc.type != CL_MEM_OBJECT_BUFFER && mem->backing.emulated ? mem : NULL;
}

/* A region of pixels in a layout: tight (pitch 0) or the caller's pitches. */
static struct dxcl_pixel_box box_of(void *data, size_t element, const size_t *region,
                                    size_t row_pitch, size_t slice_pitch)
{
    size_t row = row_pitch ? row_pitch : region[0] * element;
    size_t slice = slice_pitch ? slice_pitch : row * region[1];

    return (struct dxcl_pixel_box){data, row, slice};
}

static size_t box_bytes(const struct dxcl_pixel_box *box, const size_t *region)
{
    return box->slice_pitch * region[2];
}

static bool is_3d(const struct dxcl_memobj *mem)
{
    return mem->desc.type == CL_MEM_OBJECT_IMAGE3D;
}

static cl_int hand_out(cl_event done, cl_command_type type, cl_event *event)
{
    if (!event) {
        if (done)
            dxcl_driver()->clReleaseEvent(done);
        return CL_SUCCESS;
    }
    *event = done;
    return type ? dxcl_event_register(done, type) : CL_SUCCESS;
}

/* Reads the backing pixels of a region into a tight buffer, after the wait list. */
static cl_int read_backing(cl_command_queue queue, struct dxcl_memobj *mem, const size_t *origin,
                           const size_t *region, cl_uint num_events, const cl_event *wait_list,
                           struct dxcl_pixel_box *backing)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_event done = NULL;
    cl_int err;

    *backing = box_of(NULL, dxcl_element_size(&mem->backing.driver), region, 0, 0);
    if (!(backing->data = malloc(box_bytes(backing, region))))
        return CL_OUT_OF_HOST_MEMORY;
    err = drv->clEnqueueReadImage(queue, mem->handle, CL_FALSE, origin, region, backing->row_pitch,
                                  is_3d(mem) ? backing->slice_pitch : 0, backing->data, num_events,
                                  wait_list, &done);
    if (err == CL_SUCCESS && drv->clWaitForEvents(1, &done) != CL_SUCCESS)
        err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    if (done)
        drv->clReleaseEvent(done);
    if (err != CL_SUCCESS)
        free(backing->data);
    return err;
}

/* Writes spec-layout pixels into the region (blocking: the conversion buffer is freed). */
static cl_int write_backing(cl_command_queue queue, struct dxcl_memobj *mem, const size_t *origin,
                            const size_t *region, const struct dxcl_pixel_box *spec,
                            cl_uint num_events, const cl_event *wait_list, cl_event *done)
{
    struct dxcl_pixel_box backing =
        box_of(NULL, dxcl_element_size(&mem->backing.driver), region, 0, 0);
    cl_int err;

    if (!(backing.data = malloc(box_bytes(&backing, region))))
        return CL_OUT_OF_HOST_MEMORY;
    dxcl_pixels_to_backing(&mem->backing.layout, spec, &backing, region[0], region[1], region[2]);
    err = dxcl_driver()->clEnqueueWriteImage(
        queue, mem->handle, CL_TRUE, origin, region, backing.row_pitch,
        is_3d(mem) ? backing.slice_pitch : 0, backing.data, num_events, wait_list, done);
    free(backing.data);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueReadImage)(cl_command_queue command_queue, cl_mem image,
                                                 cl_bool blocking_read, const size_t *origin,
                                                 const size_t *region, size_t row_pitch,
                                                 size_t slice_pitch, void *ptr,
                                                 cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event)
{
    struct dxcl_memobj *mem = emulated_image(image);
    struct dxcl_pixel_box backing, spec;
    cl_int err = dxcl_memobj_check_acquired(image, "clEnqueueReadImage");

    if (err != CL_SUCCESS)
        return err;
    if (!mem || !ptr || !origin || !region)
        return DXCL_DRIVER_CALL_INT(clEnqueueReadImage,
                                    (command_queue, image, blocking_read, origin, region, row_pitch,
                                     slice_pitch, ptr, num_events_in_wait_list, event_wait_list,
                                     event));
    if ((err = read_backing(command_queue, mem, origin, region, num_events_in_wait_list,
                            event_wait_list, &backing)) != CL_SUCCESS)
        return err;
    spec = box_of(ptr, dxcl_element_size(&mem->backing.spec), region, row_pitch, slice_pitch);
    dxcl_pixels_from_backing(&mem->backing.layout, &backing, &spec, region[0], region[1],
                             region[2]);
    free(backing.data);
    /* The data is in place: the event is a completed marker of the right type. */
    err = event ? DXCL_DRIVER_CALL_INT(clEnqueueMarkerWithWaitList, (command_queue, 0, NULL, event))
                : CL_SUCCESS;
    return err == CL_SUCCESS && event ? dxcl_event_register(*event, CL_COMMAND_READ_IMAGE) : err;
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueWriteImage)(cl_command_queue command_queue, cl_mem image,
                                                  cl_bool blocking_write, const size_t *origin,
                                                  const size_t *region, size_t input_row_pitch,
                                                  size_t input_slice_pitch, const void *ptr,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list, cl_event *event)
{
    struct dxcl_memobj *mem = emulated_image(image);
    struct dxcl_pixel_box spec;
    cl_int err = dxcl_memobj_use(image, true, "clEnqueueWriteImage");

    if (err != CL_SUCCESS)
        return err;
    if (!mem || !ptr || !origin || !region)
        return DXCL_DRIVER_CALL_INT(clEnqueueWriteImage,
                                    (command_queue, image, blocking_write, origin, region,
                                     input_row_pitch, input_slice_pitch, ptr,
                                     num_events_in_wait_list, event_wait_list, event));
    spec = box_of((void *)ptr, dxcl_element_size(&mem->backing.spec), region, input_row_pitch,
                  input_slice_pitch);
    return write_backing(command_queue, mem, origin, region, &spec, num_events_in_wait_list,
                         event_wait_list, event);
}

/* What a native image of the spec's order reads back after a fill: missing color channels
 * are 0, a missing alpha is 1. */
static void fill_value(cl_channel_order order, cl_channel_type type, const void *color, void *out)
{
    static const struct {
        cl_channel_order order;
        bool present[4];
    } orders[] = {
        {CL_R, {1, 0, 0, 0}},  {CL_RG, {1, 1, 0, 0}},  {CL_A, {0, 0, 0, 1}},
        {CL_RA, {1, 0, 0, 1}}, {CL_RGB, {1, 1, 1, 0}},
    };
    bool integer = type == CL_SIGNED_INT8 || type == CL_SIGNED_INT16 || type == CL_SIGNED_INT32 ||
                   type == CL_UNSIGNED_INT8 || type == CL_UNSIGNED_INT16 ||
                   type == CL_UNSIGNED_INT32;

    memcpy(out, color, 4 * sizeof(float));
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(orders); i++) {
        if (orders[i].order != order)
            continue;
        for (int c = 0; c < 4; c++) {
            float f = c == 3 ? 1.0f : 0.0f;
            cl_int n = c == 3 ? 1 : 0;
            if (orders[i].present[c])
                continue;
            if (integer)
                memcpy((char *)out + c * 4, &n, 4);
            else
                memcpy((char *)out + c * 4, &f, 4);
        }
    }
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueFillImage)(cl_command_queue command_queue, cl_mem image,
                                                 const void *fill_color, const size_t *origin,
                                                 const size_t *region,
                                                 cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event)
{
    struct dxcl_memobj *mem = emulated_image(image);
    unsigned char color[16];
    cl_int err = dxcl_memobj_use(image, true, "clEnqueueFillImage");

    if (err != CL_SUCCESS)
        return err;
    if (mem && fill_color) {
        fill_value(mem->backing.spec.image_channel_order, mem->backing.spec.image_channel_data_type,
                   fill_color, color);
        fill_color = color;
    }
    return DXCL_DRIVER_CALL_INT(clEnqueueFillImage,
                                (command_queue, image, fill_color, origin, region,
                                 num_events_in_wait_list, event_wait_list, event));
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueCopyImageToBuffer)(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin,
    const size_t *region, size_t dst_offset, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event)
{
    const cl_mem mems[] = {src_image, dst_buffer};
    struct dxcl_memobj *mem = emulated_image(src_image);
    struct dxcl_pixel_box backing, spec;
    cl_event done = NULL;
    cl_int err = CL_SUCCESS;

    for (size_t i = 0; i < 2 && err == CL_SUCCESS; i++)
        err = dxcl_memobj_use(mems[i], i == 1, "clEnqueueCopyImageToBuffer");
    if (err != CL_SUCCESS)
        return err;
    if (!mem || !src_origin || !region)
        return DXCL_DRIVER_CALL_INT(clEnqueueCopyImageToBuffer,
                                    (command_queue, src_image, dst_buffer, src_origin, region,
                                     dst_offset, num_events_in_wait_list, event_wait_list, event));
    if ((err = read_backing(command_queue, mem, src_origin, region, num_events_in_wait_list,
                            event_wait_list, &backing)) != CL_SUCCESS)
        return err;
    spec = box_of(NULL, dxcl_element_size(&mem->backing.spec), region, 0, 0);
    if (!(spec.data = malloc(box_bytes(&spec, region)))) {
        free(backing.data);
        return CL_OUT_OF_HOST_MEMORY;
    }
    dxcl_pixels_from_backing(&mem->backing.layout, &backing, &spec, region[0], region[1],
                             region[2]);
    err = dxcl_driver()->clEnqueueWriteBuffer(command_queue, dst_buffer, CL_TRUE, dst_offset,
                                              box_bytes(&spec, region), spec.data, 0, NULL,
                                              event ? &done : NULL);
    free(spec.data);
    free(backing.data);
    return err != CL_SUCCESS ? err : hand_out(done, CL_COMMAND_COPY_IMAGE_TO_BUFFER, event);
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueCopyBufferToImage)(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image, size_t src_offset,
    const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event)
{
    const cl_mem mems[] = {src_buffer, dst_image};
    struct dxcl_memobj *mem = emulated_image(dst_image);
    struct dxcl_pixel_box spec;
    cl_event done = NULL;
    cl_int err = CL_SUCCESS;

    for (size_t i = 0; i < 2 && err == CL_SUCCESS; i++)
        err = dxcl_memobj_use(mems[i], i == 1, "clEnqueueCopyBufferToImage");
    if (err != CL_SUCCESS)
        return err;
    if (!mem || !dst_origin || !region)
        return DXCL_DRIVER_CALL_INT(clEnqueueCopyBufferToImage,
                                    (command_queue, src_buffer, dst_image, src_offset, dst_origin,
                                     region, num_events_in_wait_list, event_wait_list, event));
    spec = box_of(NULL, dxcl_element_size(&mem->backing.spec), region, 0, 0);
    if (!(spec.data = malloc(box_bytes(&spec, region))))
        return CL_OUT_OF_HOST_MEMORY;
    err = dxcl_driver()->clEnqueueReadBuffer(command_queue, src_buffer, CL_TRUE, src_offset,
                                             box_bytes(&spec, region), spec.data,
                                             num_events_in_wait_list, event_wait_list, NULL);
    if (err == CL_SUCCESS)
        err = write_backing(command_queue, mem, dst_origin, region, &spec, 0, NULL,
                            event ? &done : NULL);
    free(spec.data);
    return err != CL_SUCCESS ? err : hand_out(done, CL_COMMAND_COPY_BUFFER_TO_IMAGE, event);
}

/* A map of an emulated image: the program sees a spec-layout shadow of the region. */
struct shadow_map {
    struct dxcl_memobj *mem;
    void *backing; /* the driver's mapped pointer */
    struct dxcl_pixel_box driver_box;
    size_t region[3];
    cl_map_flags flags;
};

static struct dxcl_table shadow_maps; /* shadow pointer -> struct shadow_map */

static void *fail_map(cl_int err, cl_int *errcode_ret)
{
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

static void *map_shadow(cl_command_queue queue, struct dxcl_memobj *mem, cl_map_flags flags,
                        const size_t *origin, const size_t *region, size_t *row_pitch,
                        size_t *slice_pitch, cl_uint num_events, const cl_event *wait_list,
                        cl_event *event, cl_int *errcode_ret)
{
    struct shadow_map *map = calloc(1, sizeof(*map));
    struct dxcl_pixel_box spec = box_of(NULL, dxcl_element_size(&mem->backing.spec), region, 0, 0);
    cl_int err;
    bool stored;

    if (!map || !(spec.data = malloc(box_bytes(&spec, region)))) {
        free(map);
        return fail_map(CL_OUT_OF_HOST_MEMORY, errcode_ret);
    }
    map->backing = dxcl_driver()->clEnqueueMapImage(
        queue, mem->handle, CL_TRUE, flags, origin, region, &map->driver_box.row_pitch,
        &map->driver_box.slice_pitch, num_events, wait_list, event, &err);
    if (!map->backing) {
        free(spec.data);
        free(map);
        return fail_map(err, errcode_ret);
    }
    map->driver_box.data = map->backing;
    if (!(flags & CL_MAP_WRITE_INVALIDATE_REGION))
        dxcl_pixels_from_backing(&mem->backing.layout, &map->driver_box, &spec, region[0],
                                 region[1], region[2]);
    map->mem = mem;
    map->flags = flags;
    memcpy(map->region, region, sizeof(map->region));
    AcquireSRWLockExclusive(&dxcl_lock);
    stored = dxcl_table_put(&shadow_maps, spec.data, map);
    ReleaseSRWLockExclusive(&dxcl_lock);
    if (!stored) {
        dxcl_driver()->clEnqueueUnmapMemObject(queue, mem->handle, map->backing, 0, NULL, NULL);
        free(spec.data);
        free(map);
        return fail_map(CL_OUT_OF_HOST_MEMORY, errcode_ret);
    }
    *row_pitch = spec.row_pitch;
    if (slice_pitch)
        *slice_pitch = is_3d(mem) ? spec.slice_pitch : 0;
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return spec.data;
}

void *CL_API_CALL DXCL_IMPL(clEnqueueMapImage)(cl_command_queue command_queue, cl_mem image,
                                               cl_bool blocking_map, cl_map_flags map_flags,
                                               const size_t *origin, const size_t *region,
                                               size_t *image_row_pitch, size_t *image_slice_pitch,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event,
                                               cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_memobj *mem = emulated_image(image);
    bool writes = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION);
    cl_int err = dxcl_memobj_use(image, writes, "clEnqueueMapImage");

    if (err != CL_SUCCESS)
        return fail_map(err, errcode_ret);
    if (mem && origin && region && image_row_pitch)
        return map_shadow(command_queue, mem, map_flags, origin, region, image_row_pitch,
                          image_slice_pitch, num_events_in_wait_list, event_wait_list, event,
                          errcode_ret);
    if (!drv->clEnqueueMapImage)
        return fail_map(dxcl_driver_missing("clEnqueueMapImage"), errcode_ret);
    return drv->clEnqueueMapImage(command_queue, image, blocking_map, map_flags, origin, region,
                                  image_row_pitch, image_slice_pitch, num_events_in_wait_list,
                                  event_wait_list, event, errcode_ret);
}

cl_int CL_API_CALL DXCL_IMPL(clEnqueueUnmapMemObject)(cl_command_queue command_queue, cl_mem memobj,
                                                      void *mapped_ptr,
                                                      cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list,
                                                      cl_event *event)
{
    struct shadow_map *map;
    struct dxcl_pixel_box spec;
    cl_int err = dxcl_memobj_check_acquired(memobj, "clEnqueueUnmapMemObject");

    if (err != CL_SUCCESS)
        return err;
    AcquireSRWLockExclusive(&dxcl_lock);
    map = dxcl_table_get(&shadow_maps, mapped_ptr);
    if (map && map->mem->handle == memobj)
        dxcl_table_remove(&shadow_maps, mapped_ptr);
    else
        map = NULL;
    ReleaseSRWLockExclusive(&dxcl_lock);
    if (!map)
        return DXCL_DRIVER_CALL_INT(
            clEnqueueUnmapMemObject,
            (command_queue, memobj, mapped_ptr, num_events_in_wait_list, event_wait_list, event));
    spec = box_of(mapped_ptr, dxcl_element_size(&map->mem->backing.spec), map->region, 0, 0);
    if (map->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
        dxcl_pixels_to_backing(&map->mem->backing.layout, &spec, &map->driver_box, map->region[0],
                               map->region[1], map->region[2]);
    err = dxcl_driver()->clEnqueueUnmapMemObject(command_queue, memobj, map->backing,
                                                 num_events_in_wait_list, event_wait_list, event);
    free(mapped_ptr);
    free(map);
    return err;
}
