/* The program's semaphores and submissions, followed for idle hand-ins (progress.h). */
#define _GNU_SOURCE
#include "layer.h"

/* The program's semaphores and submissions, followed (progress.h). A queue's dispatch key is its
 * device's. */

VKAPI_ATTR VkResult VKAPI_CALL create_semaphore(VkDevice device, const VkSemaphoreCreateInfo *info,
                                                const VkAllocationCallbacks *alloc,
                                                VkSemaphore *out)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);
    VkResult result;

    if (!rec)
        return VK_ERROR_INITIALIZATION_FAILED;
    if ((result = rec->create_semaphore(device, info, alloc, out)) == VK_SUCCESS)
        dxcl_progress_semaphore_made(rec->progress, info, *out);
    return result;
}

VKAPI_ATTR void VKAPI_CALL destroy_semaphore(VkDevice device, VkSemaphore semaphore,
                                             const VkAllocationCallbacks *alloc)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);

    if (!rec)
        return;
    dxcl_progress_semaphore_gone(rec->progress, semaphore);
    rec->destroy_semaphore(device, semaphore, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue queue, uint32_t count,
                                            const VkSubmitInfo *batches, VkFence fence)
{
    struct device_rec *rec = find_device_by(key_of(queue), VK_NULL_HANDLE);

    if (!rec)
        return VK_ERROR_DEVICE_LOST;
    dxcl_progress_submitted(rec->progress, queue, count, batches);
    return rec->submit(queue, count, batches, fence);
}

/* vkQueueSubmit2, or its KHR form where the program called that one. */
static VkResult submit2_through(bool khr, VkQueue queue, uint32_t count,
                                const VkSubmitInfo2 *batches, VkFence fence)
{
    struct device_rec *rec = find_device_by(key_of(queue), VK_NULL_HANDLE);

    if (!rec)
        return VK_ERROR_DEVICE_LOST;
    dxcl_progress_submitted2(rec->progress, queue, count, batches);
    return (khr ? rec->submit2_khr : rec->submit2)(queue, count, batches, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_submit2(VkQueue queue, uint32_t count,
                                             const VkSubmitInfo2 *batches, VkFence fence)
{
    return submit2_through(false, queue, count, batches, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_submit2_khr(VkQueue queue, uint32_t count,
                                                 const VkSubmitInfo2 *batches, VkFence fence)
{
    return submit2_through(true, queue, count, batches, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_bind_sparse(VkQueue queue, uint32_t count,
                                                 const VkBindSparseInfo *binds, VkFence fence)
{
    struct device_rec *rec = find_device_by(key_of(queue), VK_NULL_HANDLE);

    if (!rec)
        return VK_ERROR_DEVICE_LOST;
    dxcl_progress_sparse_bound(rec->progress);
    return rec->bind_sparse(queue, count, binds, fence);
}
