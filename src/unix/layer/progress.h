/* What dxcl's Vulkan layer knows of the work submitted to a device's queues: whether all of it
 * is done, known without waiting (docs/design.md, "Idle hand-ins"). A twin's `ready` is then
 * not needed: nothing of Direct3D's is left for OpenCL to wait for.
 *
 * Each queue's latest submission decides: a semaphore signal of vkQueueSubmit(2) comes after
 * every command submitted before it on that queue, so the timeline value the latest batch
 * signals, once reached, says the whole queue is done. A latest batch that signals no timeline
 * semaphore leaves the queue unknown (not idle) until a later one does, and a batch with no
 * commands and no such signal changes nothing (it touches no image); a sparse bind leaves the
 * device unknown for good. The layer's own submissions that matter (the wait for OpenCL's
 * `done`, its copies) signal a timeline of the layer's own: the wait known done says OpenCL's
 * release is done too.
 * Known only where the device enabled timeline semaphores (DXVK does). Thread-safe. */
#ifndef DXCL_LAYER_PROGRESS_H
#define DXCL_LAYER_PROGRESS_H

#include <vulkan/vulkan.h>

#include <stdbool.h>

struct dxcl_progress;

/* NULL where the device cannot tell (no timeline semaphores enabled, or no memory): every
 * function below takes NULL and then knows nothing (dxcl_progress_idle is false). */
struct dxcl_progress *dxcl_progress_new(VkDevice device, PFN_vkGetDeviceProcAddr gdpa,
                                        const VkDeviceCreateInfo *info);
void dxcl_progress_free(struct dxcl_progress *progress);

/* The program's timeline semaphores, told apart from binary ones as they are made. */
void dxcl_progress_semaphore_made(struct dxcl_progress *progress, const VkSemaphoreCreateInfo *info,
                                  VkSemaphore semaphore);
void dxcl_progress_semaphore_gone(struct dxcl_progress *progress, VkSemaphore semaphore);

/* Sharing starts on the device: its submissions are followed from now on (before, nothing of
 * them is kept, so that a device that never shares pays nothing). Each of the `count` queues
 * is unknown until its next batch. */
void dxcl_progress_start(struct dxcl_progress *progress, const VkQueue *queues, uint32_t count);

/* The program's submissions, before they go to the driver (count batches), once started. */
void dxcl_progress_submitted(struct dxcl_progress *progress, VkQueue queue, uint32_t count,
                             const VkSubmitInfo *batches);
void dxcl_progress_submitted2(struct dxcl_progress *progress, VkQueue queue, uint32_t count,
                              const VkSubmitInfo2 *batches);
void dxcl_progress_sparse_bound(struct dxcl_progress *progress);

/* The layer's own submission of one batch: waits (timeline values, 0 for a binary semaphore, at
 * every stage), command buffers, signals (likewise); the batch also signals the layer's timeline,
 * whose new value goes into *value. The caller submits one at a time. */
#define DXCL_OWN_SUBMIT_MAX 64
struct dxcl_own_submit {
    uint32_t wait_count;
    const VkSemaphore *waits;
    const uint64_t *wait_values;
    uint32_t buffer_count;
    const VkCommandBuffer *buffers;
    uint32_t signal_count; /* at most 2 x DXCL_OWN_SUBMIT_MAX */
    const VkSemaphore *signals;
    const uint64_t *signal_values;
};
VkResult dxcl_progress_submit_own(struct dxcl_progress *progress, PFN_vkQueueSubmit submit,
                                  VkQueue queue, const struct dxcl_own_submit *own,
                                  uint64_t *value);
/* The value of the layer's latest submission (0: none); under the caller's one-at-a-time lock. */
uint64_t dxcl_progress_last_own(struct dxcl_progress *progress);
/* The layer's timeline reached `value` (false where unknown); the host waits for it. */
bool dxcl_progress_reached(struct dxcl_progress *progress, uint64_t value);
VkResult dxcl_progress_wait(struct dxcl_progress *progress, uint64_t value, uint64_t timeout_ns);

/* Everything submitted to the device so far is done. */
bool dxcl_progress_idle(struct dxcl_progress *progress);

#endif
