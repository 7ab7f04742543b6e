/* Host commands on images whose format the driver lacks (CL_RG on PoCL), shared or ordinary:
 * the driver image holds the pixels in a wider backing format, so every command that moves
 * pixels between the image and host or buffer memory is a chain of driver commands that
 * converts on the device (rectangle copies between the backing and a spec-layout buffer).
 * The program's wait list goes on the first command and its event is the last: nothing blocks
 * the host. Other images are forwarded untouched. The enqueue guard (src/engine/guard.c) has
 * checked every object before these run. */
#include "formats/host_commands.h"
#include "core/chain.h"
#include "core/driver.h"
#include "core/event.h"
#include "core/fault.h"
#include "core/log.h"
#include "core/names.h"
#include "core/table.h"
#include "formats/pixels.h"

#include <stdlib.h>

/* What a chain needs of an emulated image, copied from its record when the command starts: a
 * chain, and a mapping that outlives the command, never read the record, which the program's
 * last release frees. */
struct image_view {
    cl_mem handle;
    struct dxcl_backing backing;
    size_t size[3];
    bool is_3d;
};

static void view_of(cl_mem handle, const struct dxcl_memobj *mem, struct image_view *view)
{
    view->handle = handle;
    view->backing = mem->backing;
    view->is_3d = mem->desc.type == CL_MEM_OBJECT_IMAGE3D;
    view->size[0] = mem->desc.width;
    view->size[1] = mem->desc.height;
    view->size[2] = view->is_3d ? mem->desc.depth : 1;
}

static bool emulated_image(cl_mem handle, struct image_view *view)
{
    struct dxcl_memobj *mem = dxcl_image_record(handle);

    if (!mem || mem->desc.type == CL_MEM_OBJECT_BUFFER || !mem->backing.emulated)
        return false;
    view_of(handle, mem, view);
    return true;
}

/* A non-empty region inside the image. Anything else goes to the driver, whose image has the
 * same size and so gives the error a native image gives. */
static bool fits(const struct image_view *img, const size_t *origin, const size_t *region)
{
    if (!origin || !region)
        return false;
    for (int i = 0; i < 3; i++)
        if (!region[i] || origin[i] >= img->size[i] || region[i] > img->size[i] - origin[i])
            return false;
    return true;
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

/* Every command of a host command's chain makes an event (core/chain.h). */
static void chain_step(struct dxcl_chain *c, cl_int err, cl_event next)
{
    dxcl_chain_step(c, err, true, next);
}

/* Ends the chain: blocks only when the program asked for a blocking command (or the chain
 * failed after using the program's memory). */
static cl_int chain_finish(struct dxcl_chain *c, bool blocking, cl_command_type type,
                           cl_event *event)
{
    if (c->err == CL_SUCCESS && blocking && dxcl_driver()->clWaitForEvents(1, &c->last))
        c->err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    if (c->err == CL_SUCCESS && event)
        c->err = dxcl_event_register(c->last, type, NULL);
    if (c->err != CL_SUCCESS) {
        dxcl_chain_abandon(c);
        return c->err;
    }
    if (event)
        *event = c->last;
    else
        dxcl_driver()->clReleaseEvent(c->last);
    return CL_SUCCESS;
}

/* A device buffer of `bytes`. Released by the caller after enqueueing: the driver keeps it
 * until the commands using it are done. */
static cl_mem temp_buffer(struct dxcl_chain *c, size_t bytes)
{
    cl_context context = NULL;
    cl_mem buffer = NULL;

    if (c->err == CL_SUCCESS)
        c->err = dxcl_driver()->clGetCommandQueueInfo(c->queue, CL_QUEUE_CONTEXT, sizeof(context),
                                                      &context, NULL);
    if (c->err == CL_SUCCESS)
        buffer = dxcl_driver()->clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &c->err);
    return buffer;
}

static size_t region_pixels(const size_t *region)
{
    return region[0] * region[1] * region[2];
}

/* The backing pixels of a region, tightly packed. */
static cl_mem backing_buffer(struct dxcl_chain *c, const struct image_view *img,
                             const size_t *region)
{
    return temp_buffer(c, dxcl_element_size(&img->backing.driver) * region_pixels(region));
}

/* The spec-layout pixels of a region, tightly packed. */
static cl_mem spec_buffer(struct dxcl_chain *c, const struct image_view *img, const size_t *region)
{
    return temp_buffer(c, dxcl_element_size(&img->backing.spec) * region_pixels(region));
}

/* The spec-layout side of a channel move: a buffer region, tightly packed. */
enum spec_side { SPEC_BUFFER_FROM_BACKING, SPEC_BUFFER_TO_BACKING };

struct spec_place {
    enum spec_side side;
    cl_mem buffer;
    size_t offset;
    size_t row_pitch, slice_pitch;
};

/* One rectangle copy of `bytes` per pixel between the backing buffer (pixel stride `bpx`)
 * and the spec side (pixel stride `spx`): pixels are the rectangle's rows, image rows its
 * slices. */
static void move_run(struct dxcl_chain *c, cl_mem backing, size_t backing_offset, size_t bpx,
                     const struct spec_place *spec, size_t spec_offset, size_t spx, size_t bytes,
                     const size_t *region)
{
    const struct dxcl_driver *drv = dxcl_driver();
    const size_t rect[3] = {bytes, region[0], region[1]};
    const size_t b_origin[3] = {backing_offset, 0, 0}, s_origin[3] = {spec_offset, 0, 0};
    size_t brow = bpx * region[0];
    cl_event done = NULL;
    cl_int err;

    if (!dxcl_chain_next(c))
        return;
    if (spec->side == SPEC_BUFFER_FROM_BACKING)
        err = drv->clEnqueueCopyBufferRect(c->queue, backing, spec->buffer, b_origin, s_origin,
                                           rect, bpx, brow, spx, spec->row_pitch,
                                           DXCL_CHAIN_WAIT(c), &done);
    else
        err = drv->clEnqueueCopyBufferRect(c->queue, spec->buffer, backing, s_origin, b_origin,
                                           rect, spx, spec->row_pitch, bpx, brow,
                                           DXCL_CHAIN_WAIT(c), &done);
    chain_step(c, err, done);
}

/* Moves the spec's channels between the backing buffer of a region and the spec side: per
 * slice, one rectangle copy per run of spec channels that lie in order in the backing pixel
 * (one run for R, RG and A). */
static void move_channels(struct dxcl_chain *c, const struct image_view *img, cl_mem backing,
                          const struct spec_place *spec, const size_t *region)
{
    const struct dxcl_layout *layout = &img->backing.layout;
    size_t csize = layout->channel_size;
    size_t bpx = dxcl_element_size(&img->backing.driver);
    size_t spx = dxcl_element_size(&img->backing.spec);
    int where[4]; /* per spec channel: its backing channel */

    for (unsigned b = 0; b < layout->backing_channels; b++)
        if (layout->source[b] >= 0)
            where[layout->source[b]] = (int)b;
    for (size_t z = 0; z < region[2] && c->err == CL_SUCCESS; z++) {
        for (unsigned s = 0; s < layout->spec_channels && c->err == CL_SUCCESS;) {
            unsigned run = 1;
            while (s + run < layout->spec_channels && where[s + run] == where[s] + (int)run)
                run++;
            move_run(c, backing, z * bpx * region[0] * region[1] + where[s] * csize, bpx, spec,
                     spec->offset + z * spec->slice_pitch + s * csize, spx, run * csize, region);
            s += run;
        }
    }
}

/* The driver's pixels of an image region into `buffer` at `offset`. */
static void image_into_buffer(struct dxcl_chain *c, const struct image_view *img,
                              const size_t *origin, const size_t *region, cl_mem buffer,
                              size_t offset)
{
    cl_event done = NULL;

    if (dxcl_chain_next(c))
        chain_step(c,
                   dxcl_driver()->clEnqueueCopyImageToBuffer(c->queue, img->handle, buffer, origin,
                                                             region, offset, DXCL_CHAIN_WAIT(c),
                                                             &done),
                   done);
}

/* Backing pixels of the region into a new backing buffer (the chain's first command). */
static cl_mem image_to_backing(struct dxcl_chain *c, const struct image_view *img,
                               const size_t *origin, const size_t *region)
{
    cl_mem buffer = backing_buffer(c, img, region);

    if (buffer)
        image_into_buffer(c, img, origin, region, buffer, 0);
    return buffer;
}

/* A backing buffer prefilled with what the channels the spec lacks read as (0, or 1 for
 * alpha), for the spec's channels to be moved in. */
static cl_mem prefilled_backing(struct dxcl_chain *c, const struct image_view *img,
                                const size_t *region)
{
    unsigned char zero[16] = {0}, pixel[16];
    struct dxcl_pixel_box src = {zero, sizeof(zero), sizeof(zero)};
    struct dxcl_pixel_box dst = {pixel, sizeof(pixel), sizeof(pixel)};
    size_t bpx = dxcl_element_size(&img->backing.driver);
    cl_mem buffer = backing_buffer(c, img, region);
    cl_event done = NULL;

    dxcl_pixels_to_backing(&img->backing.layout, &src, &dst, 1, 1, 1);
    if (buffer && dxcl_chain_next(c))
        chain_step(c,
                   dxcl_driver()->clEnqueueFillBuffer(c->queue, buffer, pixel, bpx, 0,
                                                      bpx * region_pixels(region),
                                                      DXCL_CHAIN_WAIT(c), &done),
                   done);
    return buffer;
}

/* The driver keeps temporaries until the commands using them are done. */
static void release_temps(cl_mem a, cl_mem b)
{
    if (a)
        dxcl_driver()->clReleaseMemObject(a);
    if (b)
        dxcl_driver()->clReleaseMemObject(b);
}

/* `buffer` from `offset` into the driver's pixels of an image region. */
static void buffer_into_image(struct dxcl_chain *c, const struct image_view *img, cl_mem buffer,
                              size_t offset, const size_t *origin, const size_t *region)
{
    cl_event done = NULL;

    if (dxcl_chain_next(c))
        chain_step(c,
                   dxcl_driver()->clEnqueueCopyBufferToImage(c->queue, buffer, img->handle, offset,
                                                             origin, region, DXCL_CHAIN_WAIT(c),
                                                             &done),
                   done);
}

static void backing_to_image(struct dxcl_chain *c, const struct image_view *img, cl_mem buffer,
                             const size_t *origin, const size_t *region)
{
    buffer_into_image(c, img, buffer, 0, origin, region);
}

static struct spec_place spec_place_of(enum spec_side side, cl_mem buffer, size_t offset,
                                       const struct image_view *img, const size_t *region)
{
    struct dxcl_pixel_box box = box_of(NULL, dxcl_element_size(&img->backing.spec), region, 0, 0);

    return (struct spec_place){side, buffer, offset, box.row_pitch, box.slice_pitch};
}

/* Host memory with the program's pitches <-> a tight spec buffer (one rectangle command). From
 * here on a failure of the chain waits for it (dxcl_chain_abandon). */
static void host_rect(struct dxcl_chain *c, const struct image_view *img, cl_mem buffer, bool read,
                      void *host, const size_t *region, size_t row_pitch, size_t slice_pitch)
{
    size_t spx = dxcl_element_size(&img->backing.spec);
    struct dxcl_pixel_box box = box_of(host, spx, region, row_pitch, slice_pitch);
    const size_t zero[3] = {0, 0, 0}, rect[3] = {spx * region[0], region[1], region[2]};
    size_t row = spx * region[0], slice = row * region[1];
    cl_event done = NULL;
    cl_int err;

    if (!dxcl_chain_next(c))
        return;
    if (read)
        err = dxcl_driver()->clEnqueueReadBufferRect(c->queue, buffer, CL_FALSE, zero, zero, rect,
                                                     row, slice, box.row_pitch, box.slice_pitch,
                                                     host, DXCL_CHAIN_WAIT(c), &done);
    else
        err = dxcl_driver()->clEnqueueWriteBufferRect(c->queue, buffer, CL_FALSE, zero, zero, rect,
                                                      row, slice, box.row_pitch, box.slice_pitch,
                                                      host, DXCL_CHAIN_WAIT(c), &done);
    /* Queued, even if its event is missing and the marker for it fails. */
    c->uses_host |= err == CL_SUCCESS;
    chain_step(c, err, done);
}

cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueReadImage)(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_read, const size_t *origin,
    const size_t *region, size_t row_pitch, size_t slice_pitch, void *ptr,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    struct image_view img;
    struct dxcl_chain c =
        dxcl_chain_start(command_queue, num_events_in_wait_list, event_wait_list, DXCL_FAULT_CHAIN);
    struct spec_place spec;
    cl_mem backing = NULL, tight = NULL;

    if (!emulated_image(image, &img) || !ptr || !fits(&img, origin, region))
        return DXCL_DRIVER_CALL_INT(clEnqueueReadImage,
                                    (command_queue, image, blocking_read, origin, region, row_pitch,
                                     slice_pitch, ptr, num_events_in_wait_list, event_wait_list,
                                     event));
    if ((backing = image_to_backing(&c, &img, origin, region)) &&
        (tight = spec_buffer(&c, &img, region))) {
        spec = spec_place_of(SPEC_BUFFER_FROM_BACKING, tight, 0, &img, region);
        move_channels(&c, &img, backing, &spec, region);
        host_rect(&c, &img, tight, true, ptr, region, row_pitch, img.is_3d ? slice_pitch : 0);
    }
    release_temps(backing, tight);
    return chain_finish(&c, blocking_read, CL_COMMAND_READ_IMAGE, event);
}

cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueWriteImage)(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_write, const size_t *origin,
    const size_t *region, size_t input_row_pitch, size_t input_slice_pitch, const void *ptr,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    struct image_view img;
    struct dxcl_chain c =
        dxcl_chain_start(command_queue, num_events_in_wait_list, event_wait_list, DXCL_FAULT_CHAIN);
    struct spec_place spec;
    cl_mem backing = NULL, tight = NULL;

    if (!emulated_image(image, &img) || !ptr || !fits(&img, origin, region))
        return DXCL_DRIVER_CALL_INT(clEnqueueWriteImage,
                                    (command_queue, image, blocking_write, origin, region,
                                     input_row_pitch, input_slice_pitch, ptr,
                                     num_events_in_wait_list, event_wait_list, event));
    if ((tight = spec_buffer(&c, &img, region)) &&
        (backing = prefilled_backing(&c, &img, region))) {
        host_rect(&c, &img, tight, false, (void *)ptr, region, input_row_pitch,
                  img.is_3d ? input_slice_pitch : 0);
        spec = spec_place_of(SPEC_BUFFER_TO_BACKING, tight, 0, &img, region);
        move_channels(&c, &img, backing, &spec, region);
        backing_to_image(&c, &img, backing, origin, region);
    }
    release_temps(backing, tight);
    return chain_finish(&c, blocking_write, CL_COMMAND_WRITE_IMAGE, event);
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

cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueFillImage)(
    cl_command_queue command_queue, cl_mem image, const void *fill_color, const size_t *origin,
    const size_t *region, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event)
{
    struct image_view img;
    unsigned char color[16];

    if (emulated_image(image, &img) && fill_color) {
        fill_value(img.backing.spec.image_channel_order, img.backing.spec.image_channel_data_type,
                   fill_color, color);
        fill_color = color;
    }
    return DXCL_DRIVER_CALL_INT(clEnqueueFillImage,
                                (command_queue, image, fill_color, origin, region,
                                 num_events_in_wait_list, event_wait_list, event));
}

/* The spec-layout pixels of an image region into the spec side, packed: the driver's own copy
 * for a native image, a conversion for an emulated one. */
static void image_to_spec(struct dxcl_chain *c, const struct image_view *img, const size_t *origin,
                          const size_t *region, const struct spec_place *spec)
{
    cl_mem backing;

    if (!img->backing.emulated) {
        image_into_buffer(c, img, origin, region, spec->buffer, spec->offset);
        return;
    }
    if ((backing = image_to_backing(c, img, origin, region))) {
        move_channels(c, img, backing, spec, region);
        dxcl_driver()->clReleaseMemObject(backing);
    }
}

/* The reverse: packed spec-layout pixels into an image region. */
static void spec_to_image(struct dxcl_chain *c, const struct image_view *img, const size_t *origin,
                          const size_t *region, const struct spec_place *spec)
{
    cl_mem backing;

    if (!img->backing.emulated) {
        buffer_into_image(c, img, spec->buffer, spec->offset, origin, region);
        return;
    }
    if ((backing = prefilled_backing(c, img, region))) {
        move_channels(c, img, backing, spec, region);
        backing_to_image(c, img, backing, origin, region);
        dxcl_driver()->clReleaseMemObject(backing);
    }
}

cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueCopyImageToBuffer)(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin,
    const size_t *region, size_t dst_offset, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event)
{
    struct image_view img;
    struct dxcl_chain c =
        dxcl_chain_start(command_queue, num_events_in_wait_list, event_wait_list, DXCL_FAULT_CHAIN);
    struct spec_place spec;

    if (!emulated_image(src_image, &img) || !fits(&img, src_origin, region))
        return DXCL_DRIVER_CALL_INT(clEnqueueCopyImageToBuffer,
                                    (command_queue, src_image, dst_buffer, src_origin, region,
                                     dst_offset, num_events_in_wait_list, event_wait_list, event));
    spec = spec_place_of(SPEC_BUFFER_FROM_BACKING, dst_buffer, dst_offset, &img, region);
    image_to_spec(&c, &img, src_origin, region, &spec);
    return chain_finish(&c, false, CL_COMMAND_COPY_IMAGE_TO_BUFFER, event);
}

cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueCopyBufferToImage)(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image, size_t src_offset,
    const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event)
{
    struct image_view img;
    struct dxcl_chain c =
        dxcl_chain_start(command_queue, num_events_in_wait_list, event_wait_list, DXCL_FAULT_CHAIN);
    struct spec_place spec;

    if (!emulated_image(dst_image, &img) || !fits(&img, dst_origin, region))
        return DXCL_DRIVER_CALL_INT(clEnqueueCopyBufferToImage,
                                    (command_queue, src_buffer, dst_image, src_offset, dst_origin,
                                     region, num_events_in_wait_list, event_wait_list, event));
    spec = spec_place_of(SPEC_BUFFER_TO_BACKING, src_buffer, src_offset, &img, region);
    spec_to_image(&c, &img, dst_origin, region, &spec);
    return chain_finish(&c, false, CL_COMMAND_COPY_BUFFER_TO_IMAGE, event);
}

/* Any 2D or 3D image as a copy sees it: its record's view, or for an image dxcl keeps no record
 * of, the driver's format as both spec and backing. */
static bool copy_view(cl_mem handle, struct image_view *view)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct dxcl_memobj *mem = dxcl_image_record(handle);
    cl_mem_object_type type = 0;
    cl_image_format format;
    size_t depth = 1;

    if (mem) {
        if (mem->desc.type == CL_MEM_OBJECT_BUFFER)
            return false;
        view_of(handle, mem, view);
        return true;
    }
    if (drv->clGetMemObjectInfo(handle, CL_MEM_TYPE, sizeof(type), &type, NULL) != CL_SUCCESS ||
        (type != CL_MEM_OBJECT_IMAGE2D && type != CL_MEM_OBJECT_IMAGE3D) ||
        drv->clGetImageInfo(handle, CL_IMAGE_FORMAT, sizeof(format), &format, NULL) != CL_SUCCESS ||
        drv->clGetImageInfo(handle, CL_IMAGE_WIDTH, sizeof(size_t), &view->size[0], NULL) !=
            CL_SUCCESS ||
        drv->clGetImageInfo(handle, CL_IMAGE_HEIGHT, sizeof(size_t), &view->size[1], NULL) !=
            CL_SUCCESS ||
        (type == CL_MEM_OBJECT_IMAGE3D &&
         drv->clGetImageInfo(handle, CL_IMAGE_DEPTH, sizeof(depth), &depth, NULL) != CL_SUCCESS))
        return false;
    view->handle = handle;
    view->is_3d = type == CL_MEM_OBJECT_IMAGE3D;
    view->size[2] = depth;
    view->backing.spec = view->backing.driver = format;
    view->backing.emulated = false;
    return dxcl_layout_for(&format, &format, &view->backing.layout);
}

static bool same_format(const cl_image_format *a, const cl_image_format *b)
{
    return a->image_channel_order == b->image_channel_order &&
           a->image_channel_data_type == b->image_channel_data_type;
}

/* A copy between two images whose spec formats dxcl knows: the driver's own where both have one
 * backing; across a native and an emulated image of one spec format (the access asked gave
 * them different backings) the source's spec-layout pixels go through a packed buffer into the
 * destination; images of two spec formats are a mismatch even where their backings agree. */
cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueCopyImage)(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_image, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event)
{
    struct image_view src, dst;
    struct dxcl_chain c =
        dxcl_chain_start(command_queue, num_events_in_wait_list, event_wait_list, DXCL_FAULT_CHAIN);
    struct spec_place from, to;
    cl_mem tight;

    /* Images with no emulated side (most copies) cost no queries. */
    bool emulated = emulated_image(src_image, &src) | emulated_image(dst_image, &dst);

    if (!emulated || !copy_view(src_image, &src) || !copy_view(dst_image, &dst) ||
        (same_format(&src.backing.spec, &dst.backing.spec) &&
         same_format(&src.backing.driver, &dst.backing.driver)))
        return DXCL_DRIVER_CALL_INT(clEnqueueCopyImage,
                                    (command_queue, src_image, dst_image, src_origin, dst_origin,
                                     region, num_events_in_wait_list, event_wait_list, event));
    if (!same_format(&src.backing.spec, &dst.backing.spec))
        return DXCL_FAIL(CL_IMAGE_FORMAT_MISMATCH, "clEnqueueCopyImage: %s/%s into %s/%s",
                         dxcl_channel_order_name(src.backing.spec.image_channel_order),
                         dxcl_channel_type_name(src.backing.spec.image_channel_data_type),
                         dxcl_channel_order_name(dst.backing.spec.image_channel_order),
                         dxcl_channel_type_name(dst.backing.spec.image_channel_data_type));
    if (!fits(&src, src_origin, region) || !fits(&dst, dst_origin, region))
        return DXCL_FAIL(CL_INVALID_VALUE, "clEnqueueCopyImage: the region is outside an image");
    if ((tight = spec_buffer(&c, &src, region))) {
        from = spec_place_of(SPEC_BUFFER_FROM_BACKING, tight, 0, &src, region);
        image_to_spec(&c, &src, src_origin, region, &from);
        to = spec_place_of(SPEC_BUFFER_TO_BACKING, tight, 0, &dst, region);
        spec_to_image(&c, &dst, dst_origin, region, &to);
        dxcl_driver()->clReleaseMemObject(tight);
    }
    return chain_finish(&c, false, CL_COMMAND_COPY_IMAGE, event);
}

/* A map of an emulated image: the program maps a device buffer holding the region in the
 * spec's layout; the unmap moves it back into the image when the map could write. The map
 * keeps what the unmap needs (a copy of the image's view) and a driver reference on the image,
 * as a driver's own map keeps its image: the program may release the image while it is
 * mapped, and its record then goes, but the unmap still works. */
struct shadow_map {
    struct image_view image; /* its handle holds a driver reference until the unmap */
    cl_mem tight;            /* the spec-layout buffer mapped */
    size_t origin[3], region[3];
    cl_map_flags flags;
};

static struct dxcl_table shadow_maps; /* mapped pointer -> struct shadow_map */

static void *fail_map(cl_int err, cl_int *errcode_ret)
{
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

/* The region in the spec's layout into the map's buffer, unless the map discards it. */
static void fill_shadow(struct dxcl_chain *c, struct shadow_map *map)
{
    struct spec_place place;
    cl_mem backing;

    if (!(map->tight = spec_buffer(c, &map->image, map->region)) ||
        (map->flags & CL_MAP_WRITE_INVALIDATE_REGION))
        return;
    if ((backing = image_to_backing(c, &map->image, map->origin, map->region))) {
        place = spec_place_of(SPEC_BUFFER_FROM_BACKING, map->tight, 0, &map->image, map->region);
        move_channels(c, &map->image, backing, &place, map->region);
        release_temps(backing, NULL);
    }
}

static void *map_tight(struct dxcl_chain *c, struct shadow_map *map, size_t bytes)
{
    cl_event done = NULL;
    cl_int err = CL_SUCCESS;
    void *ptr;

    if (!dxcl_chain_next(c))
        return NULL;
    ptr = dxcl_driver()->clEnqueueMapBuffer(c->queue, map->tight, CL_FALSE, map->flags, 0, bytes,
                                            DXCL_CHAIN_WAIT(c), &done, &err);
    chain_step(c, ptr ? CL_SUCCESS : err, done);
    return ptr;
}

/* Records the map under its pointer, with a driver reference on the image. */
static bool keep_shadow(struct dxcl_chain *c, struct shadow_map *map, void *ptr)
{
    bool stored;

    if (c->err != CL_SUCCESS)
        return false;
    if ((c->err = dxcl_driver()->clRetainMemObject(map->image.handle)) != CL_SUCCESS)
        return false;
    dxcl_lock_exclusive();
    stored = dxcl_table_put(&shadow_maps, ptr, map);
    dxcl_unlock_exclusive();
    if (!stored) {
        dxcl_driver()->clReleaseMemObject(map->image.handle);
        c->err = CL_OUT_OF_HOST_MEMORY;
    }
    return stored;
}

/* Undoes a map that failed after some of its steps. */
static void drop_shadow(cl_command_queue queue, struct shadow_map *map, void *ptr, bool kept)
{
    if (kept) {
        dxcl_lock_exclusive();
        dxcl_table_remove(&shadow_maps, ptr);
        dxcl_unlock_exclusive();
        dxcl_driver()->clReleaseMemObject(map->image.handle);
    }
    if (ptr)
        dxcl_driver()->clEnqueueUnmapMemObject(queue, map->tight, ptr, 0, NULL, NULL);
    release_temps(map->tight, NULL);
    free(map);
}

static void *map_shadow(cl_command_queue queue, const struct image_view *img, cl_bool blocking,
                        cl_map_flags flags, const size_t *origin, const size_t *region,
                        size_t *row_pitch, size_t *slice_pitch, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event, cl_int *errcode_ret)
{
    struct dxcl_chain c = dxcl_chain_start(queue, num_events, wait_list, DXCL_FAULT_CHAIN);
    struct shadow_map *map = calloc(1, sizeof(*map));
    struct dxcl_pixel_box spec = box_of(NULL, dxcl_element_size(&img->backing.spec), region, 0, 0);
    void *ptr;
    bool kept;
    cl_int err;

    if (!map)
        return fail_map(CL_OUT_OF_HOST_MEMORY, errcode_ret);
    map->image = *img;
    map->flags = flags;
    memcpy(map->origin, origin, sizeof(map->origin));
    memcpy(map->region, region, sizeof(map->region));
    fill_shadow(&c, map);
    ptr = map_tight(&c, map, box_bytes(&spec, region));
    kept = keep_shadow(&c, map, ptr);
    if ((err = chain_finish(&c, blocking, CL_COMMAND_MAP_IMAGE, event)) != CL_SUCCESS) {
        drop_shadow(queue, map, ptr, kept);
        return fail_map(err, errcode_ret);
    }
    *row_pitch = spec.row_pitch;
    if (slice_pitch)
        *slice_pitch = img->is_3d ? spec.slice_pitch : 0;
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return ptr;
}

void *dxcl_emulated_map_image(cl_command_queue command_queue, cl_mem image, cl_bool blocking_map,
                              cl_map_flags map_flags, const size_t *origin, const size_t *region,
                              size_t *image_row_pitch, size_t *image_slice_pitch,
                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                              cl_event *event, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct image_view img;

    if (emulated_image(image, &img) && fits(&img, origin, region) && image_row_pitch)
        return map_shadow(command_queue, &img, blocking_map, map_flags, origin, region,
                          image_row_pitch, image_slice_pitch, num_events_in_wait_list,
                          event_wait_list, event, errcode_ret);
    if (!drv->clEnqueueMapImage)
        return fail_map(dxcl_driver_missing("clEnqueueMapImage"), errcode_ret);
    return drv->clEnqueueMapImage(command_queue, image, blocking_map, map_flags, origin, region,
                                  image_row_pitch, image_slice_pitch, num_events_in_wait_list,
                                  event_wait_list, event, errcode_ret);
}

/* The map of `memobj` at `mapped_ptr`, out of the table; NULL when there is none. */
static struct shadow_map *take_shadow(cl_mem memobj, void *mapped_ptr)
{
    struct shadow_map *map;

    dxcl_lock_exclusive();
    map = dxcl_table_get(&shadow_maps, mapped_ptr);
    if (map && map->image.handle == memobj)
        dxcl_table_remove(&shadow_maps, mapped_ptr);
    else
        map = NULL;
    dxcl_unlock_exclusive();
    return map;
}

cl_int dxcl_emulated_unmap(cl_command_queue command_queue, cl_mem memobj, void *mapped_ptr,
                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                           cl_event *event)
{
    struct shadow_map *map = take_shadow(memobj, mapped_ptr);
    struct dxcl_chain c =
        dxcl_chain_start(command_queue, num_events_in_wait_list, event_wait_list, DXCL_FAULT_CHAIN);
    struct spec_place place;
    cl_mem backing = NULL;
    cl_event done = NULL;

    if (!map)
        return DXCL_DRIVER_CALL_INT(
            clEnqueueUnmapMemObject,
            (command_queue, memobj, mapped_ptr, num_events_in_wait_list, event_wait_list, event));
    if (dxcl_chain_next(&c))
        chain_step(&c,
                   dxcl_driver()->clEnqueueUnmapMemObject(command_queue, map->tight, mapped_ptr,
                                                          DXCL_CHAIN_WAIT(&c), &done),
                   done);
    if ((map->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
        (backing = prefilled_backing(&c, &map->image, map->region))) {
        place = spec_place_of(SPEC_BUFFER_TO_BACKING, map->tight, 0, &map->image, map->region);
        move_channels(&c, &map->image, backing, &place, map->region);
        backing_to_image(&c, &map->image, backing, map->origin, map->region);
    }
    /* The driver keeps what the queued commands use: the buffers and the image. */
    release_temps(backing, map->tight);
    dxcl_driver()->clReleaseMemObject(map->image.handle);
    free(map);
    return chain_finish(&c, false, CL_COMMAND_UNMAP_MEM_OBJECT, event);
}
