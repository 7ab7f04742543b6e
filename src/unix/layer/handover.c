/* A twin's hand-overs on Direct3D's queue (core/twin.h, dxcl_layer_twin_sync): the signal and
 * the wait of its semaphores, the layer's copies, a direct twin's barriers. */
#define _GNU_SOURCE
#include "layer.h"

/* A barrier on one subresource: everything before it against the copy, or the copy against
 * everything after it. */
static void image_barrier(const struct device_rec *rec, VkCommandBuffer buffer, VkImage image,
                          VkImageSubresourceRange range, VkImageLayout from, VkImageLayout to,
                          bool before_copy)
{
    const VkAccessFlags any = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    const VkAccessFlags copy = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    VkImageMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                    .srcAccessMask = before_copy ? any : copy,
                                    .dstAccessMask = before_copy ? copy : any,
                                    .oldLayout = from,
                                    .newLayout = to,
                                    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                    .image = image,
                                    .subresourceRange = range};

    rec->barrier(buffer,
                 before_copy ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_TRANSFER_BIT,
                 before_copy ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                 0, 0, NULL, 0, NULL, 1, &barrier);
}

/* The aspect of barriers on the program's image: a plane's copy names the plane, but a barrier
 * on an image without disjoint planes (DXVK's) takes the colour aspect. */
static VkImageAspectFlags barrier_aspect(uint32_t copy_aspect)
{
    const uint32_t planes =
        VK_IMAGE_ASPECT_PLANE_0_BIT | VK_IMAGE_ASPECT_PLANE_1_BIT | VK_IMAGE_ASPECT_PLANE_2_BIT;

    return copy_aspect & planes ? VK_IMAGE_ASPECT_COLOR_BIT : copy_aspect;
}

/* Records the copy between the program's subresource and the whole twin. The program's image
 * goes back to DXVK's layout after it (DXVK assumes it there between its command buffers); the
 * twin stays GENERAL, where OpenCL's import reads and writes it. */
static void record_copy(const struct device_rec *rec, VkCommandBuffer buffer,
                        const struct dxcl_twin *twin, const struct dxcl_twin_sync *sync)
{
    bool in = sync->op == DXCL_TWIN_SYNC_COPY_IN;
    VkImage program = (VkImage)sync->image, own = (VkImage)twin->image;
    VkImageLayout layout = (VkImageLayout)sync->layout;
    VkImageLayout during = layout == VK_IMAGE_LAYOUT_GENERAL ? VK_IMAGE_LAYOUT_GENERAL
                           : in                              ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                                                             : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    VkImageSubresourceRange program_range = {barrier_aspect(sync->aspect), sync->mip_level, 1,
                                             sync->array_layer, 1};
    VkImageSubresourceRange own_range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageSubresourceLayers program_layers = {sync->aspect, sync->mip_level, sync->array_layer, 1};
    VkImageSubresourceLayers own_layers = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    VkImageCopy region = {.srcSubresource = in ? program_layers : own_layers,
                          .dstSubresource = in ? own_layers : program_layers,
                          .extent = {twin->width, twin->height, twin->depth ? twin->depth : 1}};

    image_barrier(rec, buffer, program, program_range, layout, during, true);
    /* A copy in replaces all of the twin: what it held need not be kept. */
    image_barrier(rec, buffer, own, own_range,
                  in ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                  true);
    if (in)
        rec->copy_image(buffer, program, during, own, VK_IMAGE_LAYOUT_GENERAL, 1, &region);
    else
        rec->copy_image(buffer, own, VK_IMAGE_LAYOUT_GENERAL, program, during, 1, &region);
    image_barrier(rec, buffer, program, program_range, during, layout, false);
    image_barrier(rec, buffer, own, own_range, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                  false);
}

/* Records a direct twin's hand-over: DXVK's image itself goes to OpenCL (GENERAL, the external
 * queue family, after all of Direct3D's work) or comes back to DXVK's layout and queue family
 * (before all of Direct3D's later work). The transfer of ownership lets a driver that
 * compresses render targets make the memory plain for OpenCL. */
static void record_hand_over(const struct device_rec *rec, VkCommandBuffer buffer,
                             const struct dxcl_twin_sync *sync, bool concurrent)
{
    const VkAccessFlags any = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    bool in = sync->op == DXCL_TWIN_SYNC_HAND_IN;
    uint32_t own = concurrent ? VK_QUEUE_FAMILY_IGNORED : sync->queue_family;
    VkImageLayout layout = (VkImageLayout)sync->layout;
    VkImageMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                    .srcAccessMask = in ? any : 0,
                                    .dstAccessMask = in ? 0 : any,
                                    .oldLayout = in ? layout : VK_IMAGE_LAYOUT_GENERAL,
                                    .newLayout = in ? VK_IMAGE_LAYOUT_GENERAL : layout,
                                    .srcQueueFamilyIndex = in ? own : VK_QUEUE_FAMILY_EXTERNAL,
                                    .dstQueueFamilyIndex = in ? VK_QUEUE_FAMILY_EXTERNAL : own,
                                    .image = (VkImage)sync->image,
                                    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};

    rec->barrier(buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                 0, NULL, 0, NULL, 1, &barrier);
}

/* Records the copy, or a direct twin's hand-over; false when the direct twin's image is gone
 * or is not the one named. */
static bool record_in_out(struct dxcl_twin *twin, const struct device_rec *rec,
                          VkCommandBuffer buffer, const struct dxcl_twin_sync *sync)
{
    struct image_slot slot;

    if (sync->op == DXCL_TWIN_SYNC_COPY_IN || sync->op == DXCL_TWIN_SYNC_COPY_OUT) {
        record_copy(rec, buffer, twin, sync);
        return true;
    }
    if (sync->image != twin->image || !direct_alive(twin) || !images_lookup(twin->image, &slot)) {
        fail(twin, -1, "direct twin 0x%" PRIx64 ": DXVK's image is now 0x%" PRIx64 " or gone",
             twin->image, sync->image);
        return false;
    }
    record_hand_over(rec, buffer, sync, slot.concurrent);
    return true;
}

/* One submission: [the wait for done,] the copy or hand-over[, the signal of ready]. */
static int32_t copy_in_out(struct dxcl_twin *twin, const struct device_rec *rec,
                           const struct dxcl_twin_sync *sync, VkQueue queue)
{
    const VkPipelineStageFlags all = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    bool in = sync->op == DXCL_TWIN_SYNC_COPY_IN || sync->op == DXCL_TWIN_SYNC_HAND_IN;
    VkSemaphore semaphore = (VkSemaphore)(in ? twin->ready : twin->done);
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1};
    struct copier *c;
    VkResult result;
    int slot;

    if (sync->with_semaphore && !semaphore)
        return fail(twin, -1, "twin 0x%" PRIx64 " has no semaphores", twin->image);
    if (!sync->image)
        return fail(twin, -1, "no image to copy %s", in ? "from" : "into");
    if (!(c = copier_of(twin, rec, sync->queue_family)) || (slot = next_slot(twin, rec, c)) < 0)
        return -1;
    if ((result = rec->begin(c->buffers[slot], &begin)))
        return fail(twin, result, "vkBeginCommandBuffer: %d", result);
    if (!record_in_out(twin, rec, c->buffers[slot], sync)) {
        rec->end(c->buffers[slot]);
        return -1;
    }
    if ((result = rec->end(c->buffers[slot])))
        return fail(twin, result, "vkEndCommandBuffer: %d", result);
    if (sync->with_semaphore && in) {
        info.signalSemaphoreCount = 1;
        info.pSignalSemaphores = &semaphore;
    } else if (sync->with_semaphore) {
        /* The wait goes alone first: it holds every later command on the queue back just the
         * same, and NVIDIA's submission of commands that wait for a signal OpenCL has yet to
         * submit took 0.2 ms in the call, where the wait alone returns at once. */
        info.commandBufferCount = 0;
        info.waitSemaphoreCount = 1;
        info.pWaitSemaphores = &semaphore;
        info.pWaitDstStageMask = &all;
        if ((result = dxcl_progress_submit_own(rec->progress, rec->submit, queue, &info,
                                               VK_NULL_HANDLE)))
            return fail(twin, result, "vkQueueSubmit (the wait for done): %d", result);
        info = (VkSubmitInfo){.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1};
    }
    info.pCommandBuffers = &c->buffers[slot];
    if ((result =
             dxcl_progress_submit_own(rec->progress, rec->submit, queue, &info, c->fences[slot])))
        return fail(twin, result, "vkQueueSubmit (the copy %s): %d", in ? "in" : "out", result);
    c->submitted[slot] = true;
    return 0;
}

/* One submission: a signal after everything submitted before it, a wait that everything
 * submitted after it waits for, or a copy of the layer's (the caller holds the queue). */
static int32_t submit_sync(struct dxcl_twin *twin, const struct device_rec *rec,
                           struct dxcl_twin_sync *sync)
{
    const VkPipelineStageFlags all = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    bool signal = sync->op == DXCL_TWIN_SYNC_SIGNAL_READY;
    VkSemaphore semaphore = (VkSemaphore)(signal ? twin->ready : twin->done);
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    VkQueue queue = VK_NULL_HANDLE;
    VkResult result;

    rec->get_queue(rec->device, sync->queue_family, sync->queue_index, &queue);
    if (!queue)
        return fail(twin, -1, "the device has no queue %u of family %u", sync->queue_index,
                    sync->queue_family);
    if (sync->op != DXCL_TWIN_SYNC_SIGNAL_READY && sync->op != DXCL_TWIN_SYNC_WAIT_DONE)
        return copy_in_out(twin, rec, sync, queue);
    if (signal && sync->unless_idle && dxcl_progress_idle(rec->progress)) {
        sync->skipped = 1; /* everything submitted is done: OpenCL has nothing to wait for */
        return 0;
    }
    if (!semaphore)
        return fail(twin, -1, "twin 0x%" PRIx64 " has no semaphores", twin->image);
    if (signal) {
        info.signalSemaphoreCount = 1;
        info.pSignalSemaphores = &semaphore;
    } else {
        info.waitSemaphoreCount = 1;
        info.pWaitSemaphores = &semaphore;
        info.pWaitDstStageMask = &all;
    }
    /* A signal alone touches no image: the queue's progress need not know of it (progress.h).
     * The wait must be known done before OpenCL may skip its next one. */
    result =
        signal ? rec->submit(queue, 1, &info, VK_NULL_HANDLE)
               : dxcl_progress_submit_own(rec->progress, rec->submit, queue, &info, VK_NULL_HANDLE);
    if (result)
        return fail(twin, result, "vkQueueSubmit (%s): %d", signal ? "signal" : "wait", result);
    return 0;
}

EXPORT int32_t dxcl_layer_twin_sync(struct dxcl_twin *twin, struct dxcl_twin_sync *sync)
{
    struct device_rec *rec;

    if (!twin || !sync || !twin->device)
        return -1;
    sync->fd = -1;
    sync->skipped = 0;
    if (!(rec = find_device_by(NULL, (VkDevice)twin->device)))
        return fail(twin, -1, "twin 0x%" PRIx64 ": its device is gone", twin->image);
    switch (sync->op) {
    case DXCL_TWIN_SYNC_EXPORT_READY:
        return export_semaphore(twin, rec, twin->ready, sync);
    case DXCL_TWIN_SYNC_EXPORT_DONE:
        return export_semaphore(twin, rec, twin->done, sync);
    case DXCL_TWIN_SYNC_SIGNAL_READY:
    case DXCL_TWIN_SYNC_WAIT_DONE:
    case DXCL_TWIN_SYNC_COPY_IN:
    case DXCL_TWIN_SYNC_COPY_OUT:
    case DXCL_TWIN_SYNC_HAND_IN:
    case DXCL_TWIN_SYNC_HAND_OUT:
        return submit_sync(twin, rec, sync);
    case DXCL_TWIN_SYNC_CHECK_DIRECT: /* an error is what tells dxclunix.dll it failed */
        if (twin->direct && direct_alive(twin))
            return 0;
        return fail(twin, -1, "direct twin 0x%" PRIx64 ": its image was destroyed", twin->image);
    default:
        return fail(twin, -1, "no such sync operation %d", sync->op);
    }
}
