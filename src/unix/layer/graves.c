/* Vulkan objects of the layer's that the GPU may still use (layer.h, struct grave): kept until
 * the device's timeline says the GPU ran the batch after their last use, or until the device is
 * known idle, or until it is destroyed; never freed before. */
#define _GNU_SOURCE
#include "layer.h"

static pthread_mutex_t graves_lock = PTHREAD_MUTEX_INITIALIZER;
static struct grave *graves;
static size_t grave_count, grave_capacity;

static void free_grave(const struct grave *grave)
{
    struct device *device = grave->device;

    for (int i = 0; i < 2; i++)
        if (grave->semaphores[i])
            device->vk.destroy_semaphore(device->handle, grave->semaphores[i], NULL);
    if (grave->image)
        device->vk.destroy_image(device->handle, grave->image, NULL);
    if (grave->memory) /* unmaps it too */
        device->vk.free_memory(device->handle, grave->memory, NULL);
}

static atomic_size_t bound_graves; /* graves waiting for a program's vkFreeMemory */

bool graves_take_memory(struct device *device, VkDeviceMemory memory)
{
    bool taken = false;

    if (!atomic_load_explicit(&bound_graves, memory_order_relaxed) || !memory)
        return false;
    pthread_mutex_lock(&graves_lock);
    for (size_t i = 0; i < grave_count && !taken; i++)
        if (graves[i].device == device && graves[i].bound == memory) {
            graves[i].memory = memory;
            graves[i].bound = VK_NULL_HANDLE;
            atomic_fetch_sub(&bound_graves, 1);
            taken = true;
        }
    pthread_mutex_unlock(&graves_lock);
    return taken;
}

void graves_add(const struct grave *grave)
{
    struct grave *room;
    bool kept = false;

    if (!grave->image && !grave->memory && !grave->semaphores[0] && !grave->semaphores[1])
        return;
    pthread_mutex_lock(&graves_lock);
    if ((room = layer_room(graves, grave_count, &grave_capacity, sizeof(*room), 32))) {
        graves = room;
        graves[grave_count++] = *grave;
        kept = true;
    }
    if (kept && grave->bound)
        atomic_fetch_add(&bound_graves, 1);
    pthread_mutex_unlock(&graves_lock);
    if (!kept) /* out of memory: leaked rather than freed under the GPU's feet */
        layer_note("a twin's Vulkan objects are kept until exit (out of memory)");
}

static bool due(const struct grave *grave, bool all)
{
    struct dxcl_progress *progress = grave->device->progress;

    if (all)
        return true;
    return grave->after ? dxcl_progress_reached(progress, grave->after)
                        : dxcl_progress_idle(progress);
}

void graves_visit(struct device *device, bool all)
{
    struct grave freed[32];
    size_t count;

    do {
        count = 0;
        pthread_mutex_lock(&graves_lock);
        for (size_t i = 0; i < grave_count && count < 32;)
            if (graves[i].device == device && due(&graves[i], all)) {
                if (graves[i].bound) /* its memory is the program's to free, after it */
                    atomic_fetch_sub(&bound_graves, 1);
                freed[count++] = graves[i];
                graves[i] = graves[--grave_count];
            } else
                i++;
        pthread_mutex_unlock(&graves_lock);
        for (size_t i = 0; i < count; i++)
            free_grave(&freed[i]);
    } while (count == 32);
}

bool graves_sweep(void)
{
    struct device *device;
    bool remain;

    for (size_t i = 0;; i++) {
        pthread_mutex_lock(&graves_lock);
        device = i < grave_count ? graves[i].device : NULL;
        pthread_mutex_unlock(&graves_lock);
        if (!device)
            break;
        if ((device = device_hold(device->id, NULL))) {
            graves_visit(device, false);
            device_put(device);
        }
    }
    pthread_mutex_lock(&graves_lock);
    remain = grave_count > 0;
    pthread_mutex_unlock(&graves_lock);
    return remain;
}
