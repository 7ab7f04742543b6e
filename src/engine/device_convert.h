/* Emulated formats converted on the device (docs/design.md, "Formats the driver lacks"), only
 * with DXCL_CONVERT=device (off by default: the copy engine converts on the host,
 * engine/copy.c): a shared image's upload writes the spec-layout bytes as they are into a
 * device buffer (one write of the spec's size) and a small kernel spreads them into the backing
 * layout, which the driver copies into the image; a download runs the same backwards. The
 * kernels are OpenCL C that dxcl builds once per context, on first use; where that fails the
 * copy engine converts on the host. */
#ifndef DXCL_DEVICE_CONVERT_H
#define DXCL_DEVICE_CONVERT_H

#include "core/memobj.h"
#include "formats/pixels.h"

/* Queues the upload of the object's spec-layout pixels at `src` (host memory with its pitches;
 * the whole image) into its driver image, converting on the device. The first command waits
 * for the wait list, *event is the last one's. True when the upload was queued (*err then
 * holds the result, CL_OUT_OF_HOST_MEMORY when the object's conversion record could not be
 * allocated); false when the device path is not available for this object (nothing of it
 * remains queued): the caller converts on the host. */
bool dxcl_device_upload(cl_command_queue queue, struct dxcl_memobj *mem,
                        const struct dxcl_pixel_box *src, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event, cl_int *err);
/* The reverse, after `after`: the image's pixels in the spec's layout into `dst`, complete
 * when *event is. Same return convention. */
bool dxcl_device_download(cl_command_queue queue, struct dxcl_memobj *mem,
                          const struct dxcl_pixel_box *dst, cl_event after, cl_event *event,
                          cl_int *err);
/* The object's buffers and kernels go (its teardown). */
void dxcl_device_convert_free(struct dxcl_memobj *mem);

#endif
