/* The ring of command buffers and fences of a twin's copies and hand-overs (layer.h). */
#define _GNU_SOURCE
#include "layer.h"

void free_copier(const struct device_rec *rec, struct dxcl_twin *twin)
{
    struct copier *c = (struct copier *)(uintptr_t)twin->copier;

    if (!c)
        return;
    for (unsigned i = 0; i < c->count; i++) {
        if (c->submitted[i])
            rec->wait_fences(rec->device, 1, &c->fences[i], VK_TRUE, UINT64_C(5000000000));
        if (c->fences[i])
            rec->destroy_fence(rec->device, c->fences[i], NULL);
    }
    if (c->pool) /* frees its command buffers */
        rec->destroy_pool(rec->device, c->pool, NULL);
    free(c);
    twin->copier = 0;
}

static int32_t make_copier(struct dxcl_twin *twin, const struct device_rec *rec, uint32_t family)
{
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                         .queueFamilyIndex = family};
    struct copier *c = calloc(1, sizeof(*c));
    VkResult result;

    if (!c)
        return fail(twin, -1, "out of memory for the copier");
    twin->copier = (uint64_t)(uintptr_t)c;
    c->family = family;
    if ((result = rec->create_pool(rec->device, &pool_info, NULL, &c->pool)))
        return fail(twin, result, "vkCreateCommandPool: %d", result);
    return 0;
}

/* One more slot: a command buffer and its fence; its index, or -1. */
static int add_slot(struct dxcl_twin *twin, const struct device_rec *rec, struct copier *c)
{
    VkCommandBufferAllocateInfo buffers = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .commandPool = c->pool,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    unsigned i = c->count;
    VkResult result;

    if ((result = rec->allocate_buffers(rec->device, &buffers, &c->buffers[i])))
        return fail(twin, result, "vkAllocateCommandBuffers: %d", result);
    if (rec->set_loader_data && (result = rec->set_loader_data(rec->device, c->buffers[i])))
        return fail(twin, result, "the loader's vkSetDeviceLoaderData: %d", result);
    if ((result = rec->create_fence(rec->device, &fence_info, NULL, &c->fences[i])))
        return fail(twin, result, "vkCreateFence: %d", result);
    c->count++;
    return (int)i;
}

/* The twin's copier for the queue family, made on first use; NULL with twin->error set. */
struct copier *copier_of(struct dxcl_twin *twin, const struct device_rec *rec, uint32_t family)
{
    struct copier *c = (struct copier *)(uintptr_t)twin->copier;

    if (!rec->create_pool || !rec->copy_image || !rec->barrier || !rec->fence_status) {
        fail(twin, -1, "the device has no copy functions");
        return NULL;
    }
    if (c && c->family != family)
        free_copier(rec, twin);
    if (!twin->copier && make_copier(twin, rec, family)) {
        free_copier(rec, twin);
        return NULL;
    }
    return (struct copier *)(uintptr_t)twin->copier;
}

/* Slot i is free again once the GPU is done with it (waiting for that only when `wait`). */
static bool slot_free(struct dxcl_twin *twin, const struct device_rec *rec, struct copier *c,
                      unsigned i, bool wait)
{
    VkResult result;

    if (!c->submitted[i])
        return true;
    result = wait ? rec->wait_fences(rec->device, 1, &c->fences[i], VK_TRUE, UINT64_C(5000000000))
                  : rec->fence_status(rec->device, c->fences[i]);
    if (result == VK_NOT_READY)
        return false;
    if (result) {
        fail(twin, result, "the fence of a submission %u before: %d", c->count, result);
        return false;
    }
    rec->reset_fences(rec->device, 1, &c->fences[i]);
    c->submitted[i] = false;
    return true;
}

/* A slot the GPU is done with, looked for from the next in turn; else a new one; else (all
 * COPIER_SLOTS on the GPU) the next in turn once the GPU is done with it. Its index, or -1. */
int next_slot(struct dxcl_twin *twin, const struct device_rec *rec, struct copier *c)
{
    unsigned i = c->next;

    for (unsigned n = 0; n < c->count; n++, i = (i + 1) % c->count)
        if (slot_free(twin, rec, c, i, false)) {
            c->next = (i + 1) % c->count;
            return (int)i;
        }
    if (c->count < COPIER_SLOTS)
        return add_slot(twin, rec, c);
    i = c->next;
    if (!slot_free(twin, rec, c, i, true))
        return -1;
    c->next = (i + 1) % c->count;
    return (int)i;
}
