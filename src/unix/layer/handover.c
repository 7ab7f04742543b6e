/* Hand-overs (core/twin.h, dxcl_layer_hand_over): a batch of twins moved between Direct3D's queue
 * and OpenCL with one submission of the layer's on that queue, made while DXVK holds its own
 * submissions back. To OpenCL, each image's ownership is released to the external queue family
 * in GENERAL, after the layer's copy in where it copies, and the twins' `ready` are signalled;
 * back, Direct3D's queue first waits for each twin's release value (a timeline the host signals:
 * releases.c), then the ownership is acquired into DXVK's layout, and the layer copies out where
 * it copies. Every batch signals the layer's timeline (progress.h), which says when the GPU ran
 * it: the host waits for that where OpenCL cannot wait on the GPU, and the ring's command buffers
 * and the graves are freed by it. */
#define _GNU_SOURCE
#include "twins.h"

#include <inttypes.h>

/* ---- The ring of command buffers, per queue family (the caller holds submit_lock) ---- */

static struct ring *ring_of(struct device *device, uint32_t family, struct dxcl_layer_error *error)
{
    VkCommandPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = family};
    struct ring *ring = NULL;
    VkResult result;

    for (int i = 0; i < 2 && !ring; i++)
        if (device->rings[i].pool && device->rings[i].family == family)
            ring = &device->rings[i];
    for (int i = 0; i < 2 && !ring; i++)
        if (!device->rings[i].pool)
            ring = &device->rings[i];
    if (!ring) {
        layer_fail(error, -1, "hand-overs on a third queue family (%u)", family);
        return NULL;
    }
    if (!ring->pool) {
        if ((result = device->vk.create_pool(device->handle, &info, NULL, &ring->pool))) {
            layer_fail(error, result, "vkCreateCommandPool: %d", result);
            return NULL;
        }
        ring->family = family;
    }
    return ring;
}

/* Room for one more command buffer in the ring's arrays. */
static bool ring_grow(struct ring *ring)
{
    unsigned capacity = ring->capacity ? 2 * ring->capacity : 16;
    VkCommandBuffer *buffers;
    uint64_t *values;

    if (ring->count < ring->capacity)
        return true;
    if (!(buffers = realloc(ring->buffers, capacity * sizeof(*buffers))))
        return false;
    ring->buffers = buffers;
    if (!(values = realloc(ring->values, capacity * sizeof(*values))))
        return false;
    ring->values = values;
    ring->capacity = capacity;
    return true;
}

static int add_buffer(struct device *device, struct ring *ring, struct dxcl_layer_error *error)
{
    VkCommandBufferAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = ring->pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    VkResult result;

    if (!ring_grow(ring))
        return layer_fail(error, -1, "no memory for the ring's command buffers"), -1;
    if ((result = device->vk.allocate_buffers(device->handle, &info, &ring->buffers[ring->count])))
        return layer_fail(error, result, "vkAllocateCommandBuffers: %d", result), -1;
    /* Command buffers are dispatchable: the loader's callback gives them the device's dispatch. */
    if (device->set_loader_data &&
        (result = device->set_loader_data(device->handle, ring->buffers[ring->count])))
        return layer_fail(error, result, "the loader's vkSetDeviceLoaderData: %d", result), -1;
    ring->values[ring->count] = 0;
    return (int)ring->count++;
}

/* A command buffer the GPU is done with: the next in turn once its value is reached, else a new
 * one; with RING_MOST on the GPU, the next in turn after a bounded wait. -1: none. */
static int ring_take(struct device *device, struct ring *ring, struct dxcl_layer_error *error)
{
    unsigned i = ring->next;
    VkResult result;

    for (unsigned n = 0; n < ring->count; n++, i = (i + 1) % ring->count)
        if (!ring->values[i] || dxcl_progress_reached(device->progress, ring->values[i]))
            goto found;
    if (ring->count < RING_MOST)
        return add_buffer(device, ring, error);
    i = ring->next;
    if ((result = dxcl_progress_wait(device->progress, ring->values[i], 1000000000u))) {
        layer_fail(error, result, "every command buffer of the layer's is still on the GPU: %d",
                   result);
        return -1;
    }
found:
    ring->next = (i + 1) % ring->count;
    if (ring->values[i] && (result = device->vk.reset_buffer(ring->buffers[i], 0))) {
        layer_fail(error, result, "vkResetCommandBuffer: %d", result);
        return -1;
    }
    return (int)i;
}

void rings_free(struct device *device)
{
    for (int i = 0; i < 2; i++) {
        if (device->rings[i].pool) /* frees its command buffers */
            device->vk.destroy_pool(device->handle, device->rings[i].pool, NULL);
        free(device->rings[i].buffers);
        free(device->rings[i].values);
    }
    memset(device->rings, 0, sizeof(device->rings));
}

/* ---- What a batch records ---- */

struct barrier {
    VkImage image;
    VkImageAspectFlags aspect;
    uint32_t mip_level, array_layer;
    VkImageLayout from, to;
    uint32_t src_family, dst_family;
};

static void record_barrier(struct device *device, VkCommandBuffer buffer, const struct barrier *b)
{
    const VkAccessFlags any = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    VkImageMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        /* A release to the external queue family makes writes available; its second scope is
         * the external user's. An acquire's first scope is the external user's. */
        .srcAccessMask = b->src_family == VK_QUEUE_FAMILY_EXTERNAL ? 0 : any,
        .dstAccessMask = b->dst_family == VK_QUEUE_FAMILY_EXTERNAL ? 0 : any,
        .oldLayout = b->from,
        .newLayout = b->to,
        .srcQueueFamilyIndex = b->src_family,
        .dstQueueFamilyIndex = b->dst_family,
        .image = b->image,
        .subresourceRange = {b->aspect, b->mip_level, 1, b->array_layer, 1}};

    device->vk.barrier(buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &barrier);
}

/* The aspect of barriers on the program's image: a plane's copy names the plane, but a barrier
 * on an image without disjoint planes (DXVK's) takes the colour aspect. */
static VkImageAspectFlags barrier_aspect(uint32_t copy_aspect)
{
    const uint32_t planes =
        VK_IMAGE_ASPECT_PLANE_0_BIT | VK_IMAGE_ASPECT_PLANE_1_BIT | VK_IMAGE_ASPECT_PLANE_2_BIT;

    return copy_aspect & planes ? VK_IMAGE_ASPECT_COLOR_BIT : copy_aspect;
}

/* The queue families of a transfer of ownership between the batch's queue and OpenCL: a
 * CONCURRENT image names no family of its own (VUID-VkImageMemoryBarrier-image-04071). */
static uint32_t own_family(const struct twin *twin, uint32_t family)
{
    return twin->concurrent ? VK_QUEUE_FAMILY_IGNORED : family;
}

/* The layer's copy between the program's subresource (in its layout, back in it after) and the
 * twin (from `twin_from` to `twin_to`, TRANSFER_DST/SRC during). */
static void record_copy(struct device *device, VkCommandBuffer buffer, const struct twin *twin,
                        const struct dxcl_hand_over_item *item, bool in)
{
    VkImageLayout layout = (VkImageLayout)item->layout;
    VkImageLayout during = layout == VK_IMAGE_LAYOUT_GENERAL ? VK_IMAGE_LAYOUT_GENERAL
                           : in                              ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                                                             : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    VkImageLayout own =
        in ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkImageSubresourceLayers program_layers = {item->aspect, item->mip_level, item->array_layer, 1};
    VkImageSubresourceLayers own_layers = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    VkImageCopy region = {.srcSubresource = in ? program_layers : own_layers,
                          .dstSubresource = in ? own_layers : program_layers,
                          .extent = {twin->width, twin->height, twin->depth}};
    struct barrier program = {(VkImage)item->image,
                              barrier_aspect(item->aspect),
                              item->mip_level,
                              item->array_layer,
                              layout,
                              during,
                              VK_QUEUE_FAMILY_IGNORED,
                              VK_QUEUE_FAMILY_IGNORED};

    record_barrier(device, buffer, &program);
    if (in)
        device->vk.copy_image(buffer, program.image, during, twin->image, own, 1, &region);
    else
        device->vk.copy_image(buffer, twin->image, own, program.image, during, 1, &region);
    program.from = during;
    program.to = layout;
    record_barrier(device, buffer, &program);
}

/* To OpenCL: the twin holds what it must (a copy in, or DXVK's own copy before), then its
 * ownership goes to the external queue family in GENERAL. */
static void record_in(struct device *device, VkCommandBuffer buffer, const struct twin *twin,
                      const struct dxcl_hand_over_item *item, uint32_t family)
{
    struct barrier own = {twin->image,
                          VK_IMAGE_ASPECT_COLOR_BIT,
                          0,
                          0,
                          (VkImageLayout)item->layout,
                          VK_IMAGE_LAYOUT_GENERAL,
                          own_family(twin, family),
                          VK_QUEUE_FAMILY_EXTERNAL};

    if (item->copies) {
        /* The twin is the layer's: kept in GENERAL between hand-overs, UNDEFINED before its
         * first; a copy in replaces all of it. */
        struct barrier before = {twin->image,
                                 VK_IMAGE_ASPECT_COLOR_BIT,
                                 0,
                                 0,
                                 VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                 VK_QUEUE_FAMILY_IGNORED,
                                 VK_QUEUE_FAMILY_IGNORED};
        own.from = VK_IMAGE_LAYOUT_UNDEFINED;
        if (item->contents) {
            record_barrier(device, buffer, &before);
            record_copy(device, buffer, twin, item, true);
            own.from = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        }
    } else if (!item->contents) {
        own.from = VK_IMAGE_LAYOUT_UNDEFINED; /* OpenCL overwrites it: nothing to keep */
    }
    record_barrier(device, buffer, &own);
}

/* Back from OpenCL (after the wait for its release): the ownership comes back into DXVK's
 * layout (the layer's twin: GENERAL), then the layer's copy out where it copies. */
static void record_out(struct device *device, VkCommandBuffer buffer, const struct twin *twin,
                       const struct dxcl_hand_over_item *item, uint32_t family)
{
    struct barrier own = {twin->image,
                          VK_IMAGE_ASPECT_COLOR_BIT,
                          0,
                          0,
                          VK_IMAGE_LAYOUT_GENERAL,
                          item->copies ? VK_IMAGE_LAYOUT_GENERAL : (VkImageLayout)item->layout,
                          VK_QUEUE_FAMILY_EXTERNAL,
                          own_family(twin, family)};

    if (item->copies && item->copy_back)
        own.to = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    record_barrier(device, buffer, &own);
    if (!item->copies || !item->copy_back)
        return;
    record_copy(device, buffer, twin, item, false);
    own = (struct barrier){twin->image,
                           VK_IMAGE_ASPECT_COLOR_BIT,
                           0,
                           0,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           VK_IMAGE_LAYOUT_GENERAL,
                           VK_QUEUE_FAMILY_IGNORED,
                           VK_QUEUE_FAMILY_IGNORED};
    record_barrier(device, buffer, &own);
}

/* ---- A batch ---- */

struct batch {
    struct dxcl_hand_over *asked;
    struct device *device;
    VkQueue queue;
    struct twin *twins[DXCL_HAND_OVER_MAX];
    uint32_t held;
};

/* The item is one the layer can do on this device now. */
static int32_t check_item(struct batch *b, uint32_t i)
{
    const struct dxcl_hand_over_item *item = &b->asked->items[i];
    struct dxcl_layer_error *error = &b->asked->error;
    struct twin *twin = b->twins[i];
    struct image_slot slot;
    bool external, fresh;

    if (twin->device != b->device)
        return layer_fail(error, -1, "twin %" PRIu64 " is of another device", twin->id);
    pthread_mutex_lock(&twin->lock);
    external = twin->external;
    fresh = twin->fresh;
    pthread_mutex_unlock(&twin->lock);
    if (item->op == DXCL_HAND_RETIRE)
        return 0;
    if (item->op == DXCL_HAND_PREPARE && (!fresh || twin->direct))
        return layer_fail(error, -1, "twin %" PRIu64 " is not a new twin of the layer's", twin->id);
    if (item->op != DXCL_HAND_IN && item->op != DXCL_HAND_OUT && item->op != DXCL_HAND_PREPARE)
        return layer_fail(error, -1, "no such hand-over %d", item->op);
    if (item->op != DXCL_HAND_PREPARE && (item->op == DXCL_HAND_IN) == external)
        return layer_fail(error, -1, "twin %" PRIu64 " is %s OpenCL's", twin->id,
                          external ? "already" : "not");
    if (item->copies && (twin->direct || !images_lookup(b->device, item->image, &slot)))
        return layer_fail(error, -1, "twin %" PRIu64 ": no image 0x%" PRIx64 " to copy", twin->id,
                          item->image);
    if (!item->copies && item->image != (uint64_t)twin->image)
        return layer_fail(error, -1, "twin %" PRIu64 ": its image is 0x%" PRIx64 ", not 0x%" PRIx64,
                          twin->id, (uint64_t)twin->image, item->image);
    if (!twin_image_alive(twin))
        return layer_fail(error, -1, "direct twin %" PRIu64 ": DXVK destroyed the image", twin->id);
    if (item->layout > VK_IMAGE_LAYOUT_PREINITIALIZED && item->layout != 1000001002 &&
        item->layout != 1000314000) /* PRESENT_SRC_KHR, ATTACHMENT_OPTIMAL */
        return layer_fail(error, -1, "twin %" PRIu64 ": layout %u", twin->id, item->layout);
    return 0;
}

static int32_t hold_items(struct batch *b)
{
    struct dxcl_hand_over *asked = b->asked;

    for (b->held = 0; b->held < asked->count; b->held++) {
        if (!(b->twins[b->held] = twin_hold(asked->items[b->held].twin, &asked->error)))
            return asked->error.result;
        if (check_item(b, b->held)) {
            b->held++;
            return asked->error.result;
        }
    }
    return 0;
}

/* Direct3D's waits for OpenCL's releases, alone first: NVIDIA's submission of commands behind a
 * wait that nothing has signalled yet takes 0.2 ms in the call, the wait alone none. It holds
 * every later command of the queue back just the same. */
static int32_t submit_waits(struct batch *b, uint64_t *values)
{
    VkSemaphore waits[DXCL_HAND_OVER_MAX];
    uint64_t wait_values[DXCL_HAND_OVER_MAX], done;
    struct dxcl_own_submit own = {.waits = waits, .wait_values = wait_values};
    VkResult result;

    for (uint32_t i = 0; i < b->held; i++) {
        struct dxcl_hand_over_item *item = &b->asked->items[i];
        struct twin *twin = b->twins[i];
        if (item->op != DXCL_HAND_OUT || !item->opencl_used)
            continue;
        pthread_mutex_lock(&twin->lock);
        values[i] = twin_issue_release(twin);
        pthread_mutex_unlock(&twin->lock);
        if (!values[i]) /* out of memory: nothing to wait for */
            continue;
        waits[own.wait_count] = twin->release;
        wait_values[own.wait_count++] = values[i];
    }
    if (!own.wait_count)
        return 0;
    result =
        dxcl_progress_submit_own(b->device->progress, b->device->vk.submit, b->queue, &own, &done);
    if (result == VK_SUCCESS)
        return 0;
    for (uint32_t i = 0; i < b->held; i++) /* nothing waits for them: they end now */
        if (values[i])
            twin_resolve(b->twins[i], values[i], DXCL_RELEASE_FAILED, result);
    return layer_fail(&b->asked->error, result, "vkQueueSubmit (the waits for OpenCL): %d", result);
}

/* The batch's command buffer and its signals: each asked `ready` unless the device is idle. */
static int32_t submit_commands(struct batch *b, bool skip_ready, uint64_t *done)
{
    struct dxcl_hand_over *asked = b->asked;
    struct ring *ring = ring_of(b->device, asked->queue_family, &asked->error);
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkSemaphore signals[DXCL_HAND_OVER_MAX];
    uint64_t signal_values[DXCL_HAND_OVER_MAX] = {0};
    struct dxcl_own_submit own = {.signals = signals, .signal_values = signal_values};
    VkResult result;
    int slot;

    if (!ring || (slot = ring_take(b->device, ring, &asked->error)) < 0)
        return asked->error.result ? asked->error.result : -1;
    if ((result = b->device->vk.begin(ring->buffers[slot], &begin)))
        return layer_fail(&asked->error, result, "vkBeginCommandBuffer: %d", result);
    for (uint32_t i = 0; i < b->held; i++) {
        const struct dxcl_hand_over_item *item = &asked->items[i];
        if (item->op == DXCL_HAND_IN)
            record_in(b->device, ring->buffers[slot], b->twins[i], item, asked->queue_family);
        else if (item->op == DXCL_HAND_OUT)
            record_out(b->device, ring->buffers[slot], b->twins[i], item, asked->queue_family);
        else if (item->op == DXCL_HAND_PREPARE)
            record_barrier(b->device, ring->buffers[slot],
                           &(struct barrier){b->twins[i]->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, 0,
                                             VK_IMAGE_LAYOUT_UNDEFINED, (VkImageLayout)item->layout,
                                             VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED});
        if (item->op == DXCL_HAND_IN && item->signal_ready && !skip_ready && b->twins[i]->ready)
            signals[own.signal_count++] = b->twins[i]->ready;
    }
    if ((result = b->device->vk.end(ring->buffers[slot])))
        return layer_fail(&asked->error, result, "vkEndCommandBuffer: %d", result);
    own.buffer_count = 1;
    own.buffers = &ring->buffers[slot];
    result =
        dxcl_progress_submit_own(b->device->progress, b->device->vk.submit, b->queue, &own, done);
    if (result)
        return layer_fail(&asked->error, result, "vkQueueSubmit (the hand-overs): %d", result);
    ring->values[slot] = *done;
    return 0;
}

/* After the submission: the twins' state, the bounds of the releases waited for, the retired. */
static void settle(struct batch *b, const uint64_t *values, uint64_t done)
{
    uint64_t deadline = layer_now_ns() + releases_bound_ns();

    for (uint32_t i = 0; i < b->held; i++) {
        struct dxcl_hand_over_item *item = &b->asked->items[i];
        struct twin *twin = b->twins[i];
        if (item->op == DXCL_HAND_RETIRE) {
            twin_give_up(twin, done);
            continue;
        }
        pthread_mutex_lock(&twin->lock);
        twin->external = item->op == DXCL_HAND_IN;
        twin->fresh = false;
        pthread_mutex_unlock(&twin->lock);
        item->release_value = values[i];
        if (values[i])
            releases_watch(&(struct release_watch){twin->id, values[i], deadline});
    }
}

static bool ready_allowed(struct twin *twin)
{
    bool allowed;

    pthread_mutex_lock(&twin->lock);
    allowed = twin_may_signal_ready(twin);
    pthread_mutex_unlock(&twin->lock);
    return allowed;
}

/* How many batches were handed over and how many of them were empty (not submitted), for the
 * log every 256 batches (DXCL_LOG): which rows the empty hand-ins reach (perf.md). */
static void count_batch(bool empty)
{
    static uint64_t batches, empties;
    uint64_t count = __atomic_add_fetch(&batches, 1, __ATOMIC_RELAXED);
    uint64_t skipped = empty ? __atomic_add_fetch(&empties, 1, __ATOMIC_RELAXED)
                             : __atomic_load_n(&empties, __ATOMIC_RELAXED);

    if (count % 256 == 0)
        layer_note("hand-over batches: %" PRIu64 ", %" PRIu64 " of them empty (not submitted)",
                   count, skipped);
}

/* A batch with nothing to do on the GPU: hand-ins only, of the layer's own twins in GENERAL
 * (where they stay between hand-overs) whose contents OpenCL overwrites, with every queue of the
 * device idle. Vulkan wants no ownership transfer where the contents need not survive it (the
 * external user takes the image as it is, its contents undefined), and idle queues mean every
 * use of the twin by Direct3D is done: OpenCL may write at once. On the H200 a batch of the
 * layer's, barrier or not, took about 0.3 ms to be seen done (perf.md), which P1b "to a
 * texture" (a render target's twin, written whole each frame) paid every frame. */
static bool nothing_to_submit(struct batch *b)
{
    for (uint32_t i = 0; i < b->held; i++) {
        const struct dxcl_hand_over_item *item = &b->asked->items[i];
        struct twin *twin = b->twins[i];
        bool fresh;

        pthread_mutex_lock(&twin->lock);
        fresh = twin->fresh;
        pthread_mutex_unlock(&twin->lock);
        if (item->op != DXCL_HAND_IN || item->contents || item->copies || twin->direct || fresh ||
            item->layout != VK_IMAGE_LAYOUT_GENERAL)
            return false;
    }
    return b->held && dxcl_progress_idle(b->device->progress);
}

/* DXCL_GPU_EMPTY_HAND_IN=0 submits such batches all the same (to compare). */
static bool empty_hand_ins_allowed(void)
{
    const char *setting = dxcl_host_setting("DXCL_GPU_EMPTY_HAND_IN");

    return !setting || strcmp(setting, "0");
}

/* DXCL_GPU_IDLE_READY=host: a batch submitted while the device is idle signals no `ready`, and
 * the host waits for its done_value instead (before 2026-11-29's fifth session, to compare). On
 * NVIDIA that wait is the submission's whole latency, about 0.3 ms, on the calling thread, once
 * for each object a command touches first (perf.md); OpenCL's wait on the GPU costs the host
 * nothing, and the waits of one command's objects overlap. */
static bool idle_host_waits(void)
{
    const char *setting = dxcl_host_setting("DXCL_GPU_IDLE_READY");

    return setting && !strcmp(setting, "host");
}

static int32_t run_batch(struct batch *b)
{
    struct dxcl_hand_over *asked = b->asked;
    uint64_t values[DXCL_HAND_OVER_MAX] = {0}, done = 0;
    bool skip_ready = false, empty, idle_host_wait;
    int32_t result;

    if ((result = hold_items(b)))
        return result;
    /* After a release that ended early, `ready` may still hold its last signal: OpenCL gets no
     * `ready` and the host waits for done_value instead. The idle rule is the batch's, asked
     * once. */
    idle_host_wait =
        asked->unless_idle && idle_host_waits() && dxcl_progress_idle(b->device->progress);
    for (uint32_t i = 0; i < b->held && !skip_ready; i++)
        skip_ready = asked->items[i].op == DXCL_HAND_IN && asked->items[i].signal_ready &&
                     (idle_host_wait || !ready_allowed(b->twins[i]));
    pthread_mutex_lock(&b->device->submit_lock);
    empty = empty_hand_ins_allowed() && nothing_to_submit(b);
    if (empty)
        skip_ready = true; /* nothing submitted: done stays 0, nothing to wait for */
    else if (!(result = submit_waits(b, values)) &&
             (result = submit_commands(b, skip_ready, &done)))
        for (uint32_t i = 0; i < b->held; i++) /* the ownership never came back: they end now */
            if (values[i])
                twin_resolve(b->twins[i], values[i], DXCL_RELEASE_FAILED, result);
    if (!result)
        settle(b, values, done);
    pthread_mutex_unlock(&b->device->submit_lock);
    count_batch(empty); /* its log line outside the lock */
    asked->done_value = done;
    asked->ready_skipped = skip_ready;
    return result;
}

EXPORT int32_t dxcl_layer_hand_over(void *params)
{
    struct dxcl_hand_over *asked = params;
    struct batch b = {.asked = asked};
    int32_t result;

    memset(&asked->error, 0, sizeof(asked->error));
    asked->done_value = 0;
    asked->ready_skipped = 0;
    if (asked->count > DXCL_HAND_OVER_MAX)
        return layer_fail(&asked->error, -1, "%u hand-overs in one batch (at most %d)",
                          asked->count, DXCL_HAND_OVER_MAX);
    if (!(b.device = device_hold(asked->device, &asked->error)))
        return asked->error.result;
    if (!b.device->progress)
        result = layer_fail(&asked->error, -1, "the device has no timeline semaphores");
    else if (!(b.queue = device_queue(b.device, asked->queue_family, asked->queue_index)))
        result = layer_fail(&asked->error, -1, "the device has no queue %u of family %u",
                            asked->queue_index, asked->queue_family);
    else
        result = run_batch(&b);
    for (uint32_t i = 0; i < b.held; i++)
        if (b.twins[i])
            twin_put(b.twins[i]);
    graves_visit(b.device, false);
    device_put(b.device);
    for (uint32_t i = 0; i < asked->count; i++)
        if (asked->items[i].op == DXCL_HAND_RETIRE) {
            releases_wake(); /* the retired twins' graves are swept even if nothing follows */
            break;
        }
    return result;
}

EXPORT int32_t dxcl_layer_twin_destroy(void *params)
{
    struct dxcl_layer_twin *asked = params;
    struct twin *twin;
    struct device *device;

    if (!twin_and_device(asked->twin, &twin, &device, &asked->error))
        return asked->error.result;
    twin_give_up(twin, 0);
    graves_visit(device, false);
    releases_wake(); /* its graves are swept even if no hand-over follows */
    device_put(device);
    twin_put(twin);
    return 0;
}

/* The host's wait for a batch of the layer's: first by reading the timeline for at most
 * DXCL_GPU_WAIT_SPIN_US (default 0, at most 5 ms, never past the timeout), then asleep in the
 * driver. On the H200 a batch took about 0.3 ms to be seen done either way; reading for up to
 * 1 ms saved about 0.03-0.05 ms of it at 0.6 ms more of the calling thread's CPU a round
 * (perf.md). The averages go to the log every 256 waits (DXCL_LOG). */
static VkResult wait_for_batch(struct dxcl_progress *progress, uint64_t value, uint64_t timeout_ns)
{
    static uint64_t waits, at_once, slept, total_ns;
    uint64_t spin_ns = layer_setting_count("DXCL_GPU_WAIT_SPIN_US", 0) * 1000u;
    uint64_t start = layer_now_ns(), elapsed, count;
    VkResult result = VK_SUCCESS;
    bool reached = dxcl_progress_reached(progress, value);

    if (spin_ns > 5000000u)
        spin_ns = 5000000u;
    if (spin_ns > timeout_ns)
        spin_ns = timeout_ns;
    if (reached)
        __atomic_add_fetch(&at_once, 1, __ATOMIC_RELAXED);
    while (!reached && layer_now_ns() - start < spin_ns)
        reached = dxcl_progress_reached(progress, value);
    if (!reached) {
        __atomic_add_fetch(&slept, 1, __ATOMIC_RELAXED);
        elapsed = layer_now_ns() - start;
        result =
            dxcl_progress_wait(progress, value, timeout_ns > elapsed ? timeout_ns - elapsed : 0);
    }
    elapsed = layer_now_ns() - start;
    __atomic_add_fetch(&total_ns, elapsed, __ATOMIC_RELAXED);
    count = __atomic_add_fetch(&waits, 1, __ATOMIC_RELAXED);
    if (count % 256 == 0)
        layer_note("host waits for batches: %" PRIu64 ", %" PRIu64 " done at once, %" PRIu64
                   " asleep after %" PRIu64 " us of reading, %" PRIu64 " us each on average",
                   count, __atomic_load_n(&at_once, __ATOMIC_RELAXED),
                   __atomic_load_n(&slept, __ATOMIC_RELAXED), spin_ns / 1000u,
                   __atomic_load_n(&total_ns, __ATOMIC_RELAXED) / count / 1000u);
    return result;
}

EXPORT int32_t dxcl_layer_wait(void *params)
{
    struct dxcl_layer_wait *wait = params;
    struct device *device = device_hold(wait->device, NULL);

    wait->result = -1;
    if (!device)
        return -1;
    wait->result = device->progress ? wait_for_batch(device->progress, wait->value,
                                                     (uint64_t)wait->timeout_ms * 1000000u)
                                    : -1;
    device_put(device);
    return wait->result;
}
