/* The program's semaphores and submissions on a device where dxcl may share, followed for idle
 * hand-ins (progress.h) before they go on to the driver: the device is found from the queue's
 * dispatch key without a lock, and no lock is held across the driver's call. Until sharing
 * starts on the device a submission goes straight on, with no lock taken (a sparse bind, rare,
 * is kept all the same: it makes the device unknown for good). */
#define _GNU_SOURCE
#include "layer.h"

static struct device *hooked(const void *handle)
{
    struct device *device = device_of(key_of(handle));

    if (!device)
        layer_note("a call on %p of a device the layer does not know (destroyed?)", handle);
    return device;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_create_semaphore(VkDevice handle,
                                                     const VkSemaphoreCreateInfo *info,
                                                     const VkAllocationCallbacks *alloc,
                                                     VkSemaphore *out)
{
    struct device *device = hooked(handle);
    VkResult result;

    if (!device)
        return VK_ERROR_DEVICE_LOST;
    if ((result = device->vk.create_semaphore(handle, info, alloc, out)) == VK_SUCCESS)
        dxcl_progress_semaphore_made(device->progress, info, *out);
    return result;
}

VKAPI_ATTR void VKAPI_CALL hook_destroy_semaphore(VkDevice handle, VkSemaphore semaphore,
                                                  const VkAllocationCallbacks *alloc)
{
    struct device *device = hooked(handle);

    if (!device)
        return;
    dxcl_progress_semaphore_gone(device->progress, semaphore);
    device->vk.destroy_semaphore(handle, semaphore, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_queue_submit(VkQueue queue, uint32_t count,
                                                 const VkSubmitInfo *batches, VkFence fence)
{
    struct device *device = hooked(queue);

    if (!device)
        return VK_ERROR_DEVICE_LOST;
    if (atomic_load_explicit(&device->sharing, memory_order_acquire))
        dxcl_progress_submitted(device->progress, queue, count, batches);
    return device->vk.submit(queue, count, batches, fence);
}

/* vkQueueSubmit2, or its KHR form where the program called that one. */
static VkResult submit2_through(bool khr, VkQueue queue, uint32_t count,
                                const VkSubmitInfo2 *batches, VkFence fence)
{
    struct device *device = hooked(queue);
    PFN_vkQueueSubmit2 submit2;

    if (!device)
        return VK_ERROR_DEVICE_LOST;
    submit2 = khr && device->vk.submit2_khr ? device->vk.submit2_khr : device->vk.submit2;
    if (atomic_load_explicit(&device->sharing, memory_order_acquire))
        dxcl_progress_submitted2(device->progress, queue, count, batches);
    return submit2(queue, count, batches, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_queue_submit2(VkQueue queue, uint32_t count,
                                                  const VkSubmitInfo2 *batches, VkFence fence)
{
    return submit2_through(false, queue, count, batches, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_queue_submit2_khr(VkQueue queue, uint32_t count,
                                                      const VkSubmitInfo2 *batches, VkFence fence)
{
    return submit2_through(true, queue, count, batches, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_queue_bind_sparse(VkQueue queue, uint32_t count,
                                                      const VkBindSparseInfo *binds, VkFence fence)
{
    struct device *device = hooked(queue);

    if (!device)
        return VK_ERROR_DEVICE_LOST;
    dxcl_progress_sparse_bound(device->progress);
    return device->vk.bind_sparse(queue, count, binds, fence);
}
