/* What the layer knows of a device's submitted work (progress.h). */
#include "progress.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_QUEUES = 16 };

/* A queue's latest batch that decides: the timeline value it signals, or none (unknown). */
struct queue_latest {
    VkQueue queue;
    VkSemaphore timeline;
    uint64_t value;
};

struct dxcl_progress {
    pthread_mutex_t lock;
    VkDevice device;
    PFN_vkGetSemaphoreCounterValue counter_value;
    PFN_vkDestroySemaphore destroy_semaphore;
    PFN_vkWaitSemaphores wait_semaphores;
    VkSemaphore own; /* the layer's timeline */
    uint64_t own_value;
    struct queue_latest queues[MAX_QUEUES];
    uint32_t queue_count;
    bool untracked;         /* a sparse bind, or more queues than kept: never known idle */
    VkSemaphore *timelines; /* the program's timeline semaphores */
    size_t timeline_count, timeline_capacity;
};

static const VkBaseInStructure *in_chain(const void *next, VkStructureType type)
{
    const VkBaseInStructure *s = next;

    while (s && s->sType != type)
        s = s->pNext;
    return s;
}

/* The device enabled timeline semaphores (Vulkan 1.2's features or the extension's). */
static bool timeline_enabled(const VkDeviceCreateInfo *info)
{
    const VkPhysicalDeviceVulkan12Features *v12 =
        (const void *)in_chain(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    const VkPhysicalDeviceTimelineSemaphoreFeatures *own = (const void *)in_chain(
        info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES);

    return (v12 && v12->timelineSemaphore) || (own && own->timelineSemaphore);
}

struct dxcl_progress *dxcl_progress_new(VkDevice device, PFN_vkGetDeviceProcAddr gdpa,
                                        const VkDeviceCreateInfo *info)
{
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo create_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                         .pNext = &type};
    PFN_vkCreateSemaphore create_semaphore;
    struct dxcl_progress *p;

    if (!timeline_enabled(info) || !(p = calloc(1, sizeof(*p))))
        return NULL;
    p->device = device;
    p->counter_value = (PFN_vkGetSemaphoreCounterValue)gdpa(device, "vkGetSemaphoreCounterValue");
    if (!p->counter_value)
        p->counter_value =
            (PFN_vkGetSemaphoreCounterValue)gdpa(device, "vkGetSemaphoreCounterValueKHR");
    p->destroy_semaphore = (PFN_vkDestroySemaphore)gdpa(device, "vkDestroySemaphore");
    p->wait_semaphores = (PFN_vkWaitSemaphores)gdpa(device, "vkWaitSemaphores");
    if (!p->wait_semaphores)
        p->wait_semaphores = (PFN_vkWaitSemaphores)gdpa(device, "vkWaitSemaphoresKHR");
    create_semaphore = (PFN_vkCreateSemaphore)gdpa(device, "vkCreateSemaphore");
    if (!p->counter_value || !p->destroy_semaphore || !p->wait_semaphores || !create_semaphore ||
        create_semaphore(device, &create_info, NULL, &p->own) != VK_SUCCESS) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void dxcl_progress_free(struct dxcl_progress *p)
{
    if (!p)
        return;
    p->destroy_semaphore(p->device, p->own, NULL);
    pthread_mutex_destroy(&p->lock);
    free(p->timelines);
    free(p);
}

void dxcl_progress_semaphore_made(struct dxcl_progress *p, const VkSemaphoreCreateInfo *info,
                                  VkSemaphore semaphore)
{
    const VkSemaphoreTypeCreateInfo *type =
        (const void *)in_chain(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
    VkSemaphore *grown;

    if (!p || !type || type->semaphoreType != VK_SEMAPHORE_TYPE_TIMELINE)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->timeline_count == p->timeline_capacity) {
        size_t capacity = p->timeline_capacity ? 2 * p->timeline_capacity : 16;
        if ((grown = realloc(p->timelines, capacity * sizeof(*grown)))) {
            p->timelines = grown;
            p->timeline_capacity = capacity;
        }
    }
    if (p->timeline_count < p->timeline_capacity)
        p->timelines[p->timeline_count++] = semaphore;
    else
        p->untracked = true; /* a signal of it would go unrecognised: unknown for good */
    pthread_mutex_unlock(&p->lock);
}

void dxcl_progress_semaphore_gone(struct dxcl_progress *p, VkSemaphore semaphore)
{
    if (!p || !semaphore)
        return;
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->timeline_count; i++)
        if (p->timelines[i] == semaphore) {
            p->timelines[i] = p->timelines[--p->timeline_count];
            break;
        }
    /* A queue whose latest signal was of it can no longer be read: unknown. */
    for (uint32_t i = 0; i < p->queue_count; i++)
        if (p->queues[i].timeline == semaphore)
            p->queues[i].timeline = VK_NULL_HANDLE;
    pthread_mutex_unlock(&p->lock);
}

/* The caller holds the lock. */
static bool is_timeline(const struct dxcl_progress *p, VkSemaphore semaphore)
{
    if (semaphore == p->own)
        return true;
    for (size_t i = 0; i < p->timeline_count; i++)
        if (p->timelines[i] == semaphore)
            return true;
    return false;
}

/* The caller holds the lock. A batch with commands and no timeline signal makes the queue
 * unknown; a batch without commands and without one changes nothing (it touches no image). */
static void batch_submitted(struct dxcl_progress *p, VkQueue queue, VkSemaphore timeline,
                            uint64_t value, bool has_commands)
{
    struct queue_latest *q = NULL;

    if (!timeline && !has_commands)
        return;
    for (uint32_t i = 0; i < p->queue_count && !q; i++)
        if (p->queues[i].queue == queue)
            q = &p->queues[i];
    if (!q && p->queue_count == MAX_QUEUES) {
        p->untracked = true;
        return;
    }
    if (!q) {
        q = &p->queues[p->queue_count++];
        q->queue = queue;
    }
    q->timeline = timeline;
    q->value = value;
}

void dxcl_progress_submitted(struct dxcl_progress *p, VkQueue queue, uint32_t count,
                             const VkSubmitInfo *batches)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    for (uint32_t b = 0; b < count; b++) {
        const VkSubmitInfo *batch = &batches[b];
        const VkTimelineSemaphoreSubmitInfo *values =
            (const void *)in_chain(batch->pNext, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
        VkSemaphore timeline = VK_NULL_HANDLE;
        uint64_t value = 0;

        /* A signal of vkQueueSubmit comes after every earlier command, at every stage. */
        for (uint32_t i = 0; values && i < batch->signalSemaphoreCount && !timeline; i++)
            if (i < values->signalSemaphoreValueCount && values->pSignalSemaphoreValues[i] &&
                is_timeline(p, batch->pSignalSemaphores[i])) {
                timeline = batch->pSignalSemaphores[i];
                value = values->pSignalSemaphoreValues[i];
            }
        batch_submitted(p, queue, timeline, value, batch->commandBufferCount > 0);
    }
    pthread_mutex_unlock(&p->lock);
}

void dxcl_progress_submitted2(struct dxcl_progress *p, VkQueue queue, uint32_t count,
                              const VkSubmitInfo2 *batches)
{
    /* Stages whose signal comes after every earlier command (BOTTOM_OF_PIPE, in a first
     * scope, is ALL_COMMANDS): DXVK signals its timelines so. */
    const VkPipelineStageFlags2 after_all =
        VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT;

    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    for (uint32_t b = 0; b < count; b++) {
        const VkSubmitInfo2 *batch = &batches[b];
        VkSemaphore timeline = VK_NULL_HANDLE;
        uint64_t value = 0;

        for (uint32_t i = 0; i < batch->signalSemaphoreInfoCount && !timeline; i++) {
            const VkSemaphoreSubmitInfo *signal = &batch->pSignalSemaphoreInfos[i];
            if (signal->value && (signal->stageMask & after_all) &&
                is_timeline(p, signal->semaphore)) {
                timeline = signal->semaphore;
                value = signal->value;
            }
        }
        batch_submitted(p, queue, timeline, value, batch->commandBufferInfoCount > 0);
    }
    pthread_mutex_unlock(&p->lock);
}

void dxcl_progress_start(struct dxcl_progress *p, const VkQueue *queues, uint32_t count)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    /* A queue's batches before now were not followed: unknown until its next one. */
    for (uint32_t i = 0; i < count; i++)
        batch_submitted(p, queues[i], VK_NULL_HANDLE, 0, true);
    pthread_mutex_unlock(&p->lock);
}

void dxcl_progress_sparse_bound(struct dxcl_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->untracked = true;
    pthread_mutex_unlock(&p->lock);
}

VkResult dxcl_progress_submit_own(struct dxcl_progress *p, PFN_vkQueueSubmit submit, VkQueue queue,
                                  const struct dxcl_own_submit *own, uint64_t *value)
{
    enum { MAX_SEMAPHORES = 2 * DXCL_OWN_SUBMIT_MAX + 1 };
    VkSemaphore signals[MAX_SEMAPHORES];
    uint64_t signal_values[MAX_SEMAPHORES];
    VkPipelineStageFlags stages[MAX_SEMAPHORES];
    VkTimelineSemaphoreSubmitInfo timeline = {.sType =
                                                  VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                              .waitSemaphoreValueCount = own->wait_count,
                                              .pWaitSemaphoreValues = own->wait_values,
                                              .signalSemaphoreValueCount = own->signal_count + 1,
                                              .pSignalSemaphoreValues = signal_values};
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                         .pNext = &timeline,
                         .waitSemaphoreCount = own->wait_count,
                         .pWaitSemaphores = own->waits,
                         .pWaitDstStageMask = stages,
                         .commandBufferCount = own->buffer_count,
                         .pCommandBuffers = own->buffers,
                         .signalSemaphoreCount = own->signal_count + 1,
                         .pSignalSemaphores = signals};

    if (!p || own->signal_count > 2 * DXCL_OWN_SUBMIT_MAX || own->wait_count > MAX_SEMAPHORES)
        return VK_ERROR_INITIALIZATION_FAILED;
    for (uint32_t i = 0; i < own->wait_count; i++)
        stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    memcpy(signals, own->signals, own->signal_count * sizeof(*signals));
    memcpy(signal_values, own->signal_values, own->signal_count * sizeof(*signal_values));
    /* The value and the queue's latest batch are set before the driver's call, which runs
     * without the lock: the caller submits one of its own at a time (in value order). A value
     * whose submission fails is never reached; a later one covers it. */
    pthread_mutex_lock(&p->lock);
    *value = ++p->own_value;
    batch_submitted(p, queue, p->own, *value, true);
    pthread_mutex_unlock(&p->lock);
    signals[own->signal_count] = p->own;
    signal_values[own->signal_count] = *value;
    return submit(queue, 1, &info, VK_NULL_HANDLE);
}

uint64_t dxcl_progress_last_own(struct dxcl_progress *p)
{
    return p ? p->own_value : 0;
}

bool dxcl_progress_reached(struct dxcl_progress *p, uint64_t value)
{
    uint64_t reached = 0;

    return p && p->counter_value(p->device, p->own, &reached) == VK_SUCCESS && reached >= value;
}

VkResult dxcl_progress_wait(struct dxcl_progress *p, uint64_t value, uint64_t timeout_ns)
{
    VkSemaphoreWaitInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                .semaphoreCount = 1,
                                .pSemaphores = &p->own,
                                .pValues = &value};

    return p->wait_semaphores(p->device, &info, timeout_ns);
}

bool dxcl_progress_idle(struct dxcl_progress *p)
{
    bool idle;

    if (!p)
        return false;
    pthread_mutex_lock(&p->lock);
    idle = !p->untracked;
    for (uint32_t i = 0; i < p->queue_count && idle; i++) {
        uint64_t reached = 0;
        idle = p->queues[i].timeline &&
               p->counter_value(p->device, p->queues[i].timeline, &reached) == VK_SUCCESS &&
               reached >= p->queues[i].value;
    }
    pthread_mutex_unlock(&p->lock);
    return idle;
}
