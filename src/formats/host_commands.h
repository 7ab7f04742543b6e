/* Host commands on images whose format the driver lacks (docs/design.md, "Formats the driver
 * lacks"): each takes the arguments of the OpenCL function it stands for, runs it as a chain of
 * driver commands on an image of an emulated format, and forwards anything else to the driver. The
 * enqueue guard calls them after its checks (src/engine/guard.c). */
#ifndef DXCL_HOST_COMMANDS_H
#define DXCL_HOST_COMMANDS_H

#include "core/memobj.h"

#define DXCL_EMULATED_IMAGE(name) dxcl_emulated_image_##name

cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueReadImage)(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_read, const size_t *origin,
    const size_t *region, size_t row_pitch, size_t slice_pitch, void *ptr,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);
cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueWriteImage)(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_write, const size_t *origin,
    const size_t *region, size_t input_row_pitch, size_t input_slice_pitch, const void *ptr,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);
cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueFillImage)(
    cl_command_queue command_queue, cl_mem image, const void *fill_color, const size_t *origin,
    const size_t *region, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event);
cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueCopyImageToBuffer)(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin,
    const size_t *region, size_t dst_offset, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);
cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueCopyBufferToImage)(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image, size_t src_offset,
    const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);
/* clEnqueueCopyImage: across a native and an emulated image of one spec format, a chain. */
cl_int CL_API_CALL DXCL_EMULATED_IMAGE(clEnqueueCopyImage)(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_image, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);
/* clEnqueueMapImage: an emulated image maps a spec-layout copy of the region. */
void *dxcl_emulated_map_image(cl_command_queue command_queue, cl_mem image, cl_bool blocking_map,
                              cl_map_flags map_flags, const size_t *origin, const size_t *region,
                              size_t *image_row_pitch, size_t *image_slice_pitch,
                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                              cl_event *event, cl_int *errcode_ret);
/* clEnqueueUnmapMemObject: the unmap of such a copy moves what the map could write back into
 * the image; any other pointer is the driver's. */
cl_int dxcl_emulated_unmap(cl_command_queue command_queue, cl_mem memobj, void *mapped_ptr,
                           cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                           cl_event *event);

#endif
