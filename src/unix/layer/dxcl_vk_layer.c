/* libdxcl_vk_layer.so, dxcl's host Vulkan layer VK_LAYER_DXCL_interop (docs/proxy.md, "The
 * Vulkan layer"). An explicit layer between winevulkan's host side and the driver, so it sees
 * DXVK's calls as the host loader gets them. It:
 * - adds VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd to each device whose driver
 *   offers them (winevulkan hides them from PE code, so DXVK cannot ask for them);
 * - remembers which device made each image, so that a twin is made on the device of a texture;
 * - makes DXVK's larger 2D shader-resource images exportable, with dedicated memory, so that
 *   OpenCL can import a texture's own memory (a direct twin, core/twin.h);
 * - makes and frees twins for dxclunix.so (src/core/twin.h), exported by name, with the
 *   semaphores that order Direct3D's queue and OpenCL around them, and submits their signals and
 *   waits to the queue DXVK submits to (while DXVK holds its submissions back);
 * - copies between a program's image and its twin on that queue, for twins DXVK cannot wrap as
 *   a texture (3D textures, NV12 planes), and moves a direct twin's image between DXVK's layout
 *   and OpenCL's where they differ;
 * - follows what is submitted to each device's queues, so that a hand-in to OpenCL needs no
 *   signal once everything of Direct3D's is done (progress.h).
 * Thread-safe: DXVK and dxcl call it from several threads. Built with the host compiler; it links
 * no Vulkan library (the loader hands it every function). */
#define _GNU_SOURCE
#include "core/twin.h"
#include "progress.h"

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* The exports: the twins (core/twin.h) and the two the manifest names. */
EXPORT int32_t dxcl_layer_twin_create(const struct dxcl_twin_request *request,
                                      struct dxcl_twin *twin);
EXPORT void dxcl_layer_twin_destroy(struct dxcl_twin *twin);
EXPORT int32_t dxcl_layer_twin_export(struct dxcl_twin *twin);
EXPORT int32_t dxcl_layer_twin_sync(struct dxcl_twin *twin, struct dxcl_twin_sync *sync);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetInstanceProcAddr(VkInstance instance,
                                                                               const char *name);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetDeviceProcAddr(VkDevice device,
                                                                             const char *name);

/* The loader's dispatch table of a dispatchable handle is its first pointer: a physical device
 * shares its instance's, a queue or command buffer its device's. */
static void *key_of(const void *handle)
{
    return *(void *const *)handle;
}

static void note(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *format, ...)
{
    va_list args;

    if (!getenv("DXCL_LOG"))
        return;
    va_start(args, format);
    fputs("dxcl vk layer: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

struct instance_rec {
    struct instance_rec *next;
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    uint32_t api_version; /* the program's: external memory is core from 1.1 */
    /* Resolved when made: the loader's terminator no longer knows the instance at destroy. */
    PFN_vkDestroyInstance destroy_instance;
};

/* What a twin needs of a device: the next layer's functions and the physical device's facts. */
struct device_rec {
    struct device_rec *next;
    void *key;
    VkDevice device;
    VkPhysicalDevice physical;
    PFN_vkGetDeviceProcAddr gdpa;
    bool memory_fd;    /* VK_KHR_external_memory_fd is enabled */
    bool semaphore_fd; /* VK_KHR_external_semaphore_fd is enabled */
    uint8_t uuid[VK_UUID_SIZE];
    VkPhysicalDeviceMemoryProperties memory;
    PFN_vkGetPhysicalDeviceFormatProperties format_properties;
    PFN_vkGetPhysicalDeviceImageFormatProperties2 image_format_properties2;
    PFN_vkDestroyDevice destroy_device;
    PFN_vkCreateImage create_image;
    PFN_vkDestroyImage destroy_image;
    PFN_vkGetImageMemoryRequirements requirements;
    PFN_vkGetImageMemoryRequirements2 requirements2;
    PFN_vkAllocateMemory allocate;
    PFN_vkFreeMemory free_memory;
    PFN_vkBindImageMemory bind;
    PFN_vkMapMemory map;
    PFN_vkGetImageSubresourceLayout subresource_layout;
    PFN_vkGetMemoryFdKHR get_fd;
    PFN_vkCreateSemaphore create_semaphore;
    PFN_vkDestroySemaphore destroy_semaphore;
    PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
    PFN_vkGetDeviceQueue get_queue;
    PFN_vkQueueSubmit submit;
    PFN_vkQueueSubmit2 submit2, submit2_khr;
    PFN_vkQueueBindSparse bind_sparse;
    /* What is submitted to its queues (progress.h), or NULL where it cannot be known. */
    struct dxcl_progress *progress;
    /* The layer's own copies (copy_in_out): command buffers are dispatchable, so the loader's
     * callback gives each the device's dispatch as the loader's trampoline would. */
    PFN_vkSetDeviceLoaderData set_loader_data;
    PFN_vkCreateCommandPool create_pool;
    PFN_vkDestroyCommandPool destroy_pool;
    PFN_vkAllocateCommandBuffers allocate_buffers;
    PFN_vkBeginCommandBuffer begin;
    PFN_vkEndCommandBuffer end;
    PFN_vkCmdPipelineBarrier barrier;
    PFN_vkCmdCopyImage copy_image;
    PFN_vkCreateFence create_fence;
    PFN_vkDestroyFence destroy_fence;
    PFN_vkWaitForFences wait_fences;
    PFN_vkResetFences reset_fences;
    PFN_vkGetFenceStatus fence_status;
};

/* Instances and devices are few: lists under one lock. */
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static struct instance_rec *instances;
static struct device_rec *devices;

/* The instance of `key`; for a physical device whose key is not its instance's (the loader
 * gives them the same one), the newest instance rather than failing the program's call. */
static struct instance_rec *find_instance(void *key, bool or_newest)
{
    struct instance_rec *rec;

    pthread_mutex_lock(&records_lock);
    for (rec = instances; rec && rec->key != key; rec = rec->next)
        ;
    if (!rec && or_newest)
        rec = instances;
    pthread_mutex_unlock(&records_lock);
    return rec;
}

static struct device_rec *find_device_by(void *key, VkDevice device)
{
    struct device_rec *rec;

    pthread_mutex_lock(&records_lock);
    for (rec = devices; rec && (key ? rec->key != key : rec->device != device); rec = rec->next)
        ;
    pthread_mutex_unlock(&records_lock);
    return rec;
}

/* The images made on each device, VkImage -> device record: open addressing with linear
 * probing, grown at 3/4 full, deletion by backward shift (no tombstones). DXVK makes many. */
struct image_slot {
    uint64_t image; /* 0: empty */
    struct device_rec *device;
    /* Made exportable for a direct twin (core/twin.h): its dedicated memory once allocated and
     * its size, and the serial of this image's life. concurrent: DXVK made it with
     * VK_SHARING_MODE_CONCURRENT (a hand-over then names no queue family of its own). */
    bool exportable, concurrent;
    uint64_t memory, size, serial;
};
static pthread_mutex_t images_lock = PTHREAD_MUTEX_INITIALIZER;
static struct image_slot *image_slots;
static size_t image_capacity, image_count; /* capacity: 0 or a power of two */

static size_t image_home(uint64_t image, size_t capacity)
{
    return (size_t)((image * 0x9E3779B97F4A7C15ull) >> 17) & (capacity - 1);
}

static void images_put(struct image_slot *slots, size_t capacity, const struct image_slot *slot)
{
    size_t i = image_home(slot->image, capacity);

    while (slots[i].image && slots[i].image != slot->image)
        i = (i + 1) & (capacity - 1);
    slots[i] = *slot;
}

static bool images_grow(void)
{
    size_t capacity = image_capacity ? image_capacity * 2 : 256;
    struct image_slot *slots = calloc(capacity, sizeof(*slots));

    if (!slots)
        return false;
    for (size_t i = 0; i < image_capacity; i++)
        if (image_slots[i].image)
            images_put(slots, capacity, &image_slots[i]);
    free(image_slots);
    image_slots = slots;
    image_capacity = capacity;
    return true;
}

/* The slot of `image`, or of the empty place for it; the caller holds images_lock and the table
 * has room. */
static struct image_slot *images_slot(uint64_t image)
{
    size_t i = image_home(image, image_capacity);

    while (image_slots[i].image && image_slots[i].image != image)
        i = (i + 1) & (image_capacity - 1);
    return &image_slots[i];
}

static void images_add(const struct image_slot *slot)
{
    pthread_mutex_lock(&images_lock);
    if ((image_count + 1) * 4 <= image_capacity * 3 || images_grow()) {
        struct image_slot *place = images_slot(slot->image);

        image_count += !place->image; /* a reused handle replaces its stale entry */
        *place = *slot;
    }
    pthread_mutex_unlock(&images_lock);
}

/* A copy of the image's slot; false when no device made it. */
static bool images_lookup(uint64_t image, struct image_slot *out)
{
    bool found = false;

    pthread_mutex_lock(&images_lock);
    if (image_capacity && image) {
        struct image_slot *slot = images_slot(image);

        if ((found = slot->image != 0))
            *out = *slot;
    }
    pthread_mutex_unlock(&images_lock);
    return found;
}

/* The dedicated exportable memory DXVK allocated for an exportable image. */
static void images_set_memory(uint64_t image, uint64_t memory, uint64_t size)
{
    pthread_mutex_lock(&images_lock);
    if (image_capacity) {
        struct image_slot *slot = images_slot(image);

        if (slot->image && slot->exportable) {
            slot->memory = memory;
            slot->size = size;
        }
    }
    pthread_mutex_unlock(&images_lock);
}

/* Empties slot i and moves later entries of its run back where their probe can find them. */
static void images_clear_slot(size_t i)
{
    size_t mask = image_capacity - 1;

    image_slots[i].image = 0;
    image_count--;
    for (size_t j = (i + 1) & mask; image_slots[j].image; j = (j + 1) & mask) {
        size_t home = image_home(image_slots[j].image, image_capacity);

        /* j's entry may move to i when its home is not within (i, j] cyclically. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            image_slots[i] = image_slots[j];
            image_slots[j].image = 0;
            i = j;
        }
    }
}

static void images_remove(uint64_t image)
{
    pthread_mutex_lock(&images_lock);
    if (image_capacity) {
        size_t i = image_home(image, image_capacity);

        while (image_slots[i].image && image_slots[i].image != image)
            i = (i + 1) & (image_capacity - 1);
        if (image_slots[i].image)
            images_clear_slot(i);
    }
    pthread_mutex_unlock(&images_lock);
}

/* A destroyed device's images (the program should have destroyed them first). */
static void images_forget_device(struct device_rec *device)
{
    pthread_mutex_lock(&images_lock);
    for (size_t i = 0; i < image_capacity;)
        if (image_slots[i].image && image_slots[i].device == device)
            images_clear_slot(i); /* a later entry may have moved into i: look again */
        else
            i++;
    pthread_mutex_unlock(&images_lock);
}

/* The loader's link to the next layer in a create info's chain, or NULL. */
static void *next_link_of(const void *next, VkStructureType type, VkLayerFunction function)
{
    const VkLayerInstanceCreateInfo *link = next;

    while (link && !(link->sType == type && link->function == function))
        link = link->pNext;
    return (void *)link;
}

static void *next_link(const void *next, VkStructureType type)
{
    return next_link_of(next, type, VK_LAYER_LINK_INFO);
}

static VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                                      const VkAllocationCallbacks *alloc,
                                                      VkInstance *out)
{
    VkLayerInstanceCreateInfo *link =
        next_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    struct instance_rec *rec = calloc(1, sizeof(*rec));

    if (!link || !rec) {
        free(rec);
        return link ? VK_ERROR_OUT_OF_HOST_MEMORY : VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkCreateInstance next = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    VkResult result = next ? next(info, alloc, out) : VK_ERROR_INITIALIZATION_FAILED;

    if (result != VK_SUCCESS) {
        free(rec);
        return result;
    }
    *rec = (struct instance_rec){NULL,
                                 key_of(*out),
                                 *out,
                                 gipa,
                                 info->pApplicationInfo ? info->pApplicationInfo->apiVersion
                                                        : VK_API_VERSION_1_0,
                                 (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance")};
    pthread_mutex_lock(&records_lock);
    rec->next = instances;
    instances = rec;
    pthread_mutex_unlock(&records_lock);
    return result;
}

static VKAPI_ATTR void VKAPI_CALL destroy_instance(VkInstance instance,
                                                   const VkAllocationCallbacks *alloc)
{
    struct instance_rec **link, *rec = NULL;

    if (!instance)
        return;
    pthread_mutex_lock(&records_lock);
    for (link = &instances; *link && (*link)->key != key_of(instance); link = &(*link)->next)
        ;
    if ((rec = *link))
        *link = rec->next;
    pthread_mutex_unlock(&records_lock);
    if (!rec)
        return;
    if (rec->destroy_instance)
        rec->destroy_instance(instance, alloc);
    free(rec);
}

static bool offers_extension(VkPhysicalDevice physical, const struct instance_rec *instance,
                             const char *name)
{
    PFN_vkEnumerateDeviceExtensionProperties enumerate =
        (PFN_vkEnumerateDeviceExtensionProperties)instance->gipa(
            instance->instance, "vkEnumerateDeviceExtensionProperties");
    uint32_t count = 0;
    bool found = false;

    if (!enumerate || enumerate(physical, NULL, &count, NULL) != VK_SUCCESS)
        return false;
    VkExtensionProperties *properties = calloc(count ? count : 1, sizeof(*properties));
    if (properties && enumerate(physical, NULL, &count, properties) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = !strcmp(properties[i].extensionName, name);
    free(properties);
    return found;
}

static bool asks_extension(const VkDeviceCreateInfo *info, const char *name)
{
    for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
        if (!strcmp(info->ppEnabledExtensionNames[i], name))
            return true;
    return false;
}

/* Whether the device is Vulkan 1.1 for the program: external memory and the properties2
 * queries are core, so the fd extensions need nothing more. */
static bool api_1_1(VkPhysicalDevice physical, const struct instance_rec *instance)
{
    PFN_vkGetPhysicalDeviceProperties get = (PFN_vkGetPhysicalDeviceProperties)instance->gipa(
        instance->instance, "vkGetPhysicalDeviceProperties");
    VkPhysicalDeviceProperties properties;

    if (!get || instance->api_version < VK_API_VERSION_1_1)
        return false;
    get(physical, &properties);
    return properties.apiVersion >= VK_API_VERSION_1_1;
}

/* The physical device's facts a twin needs: memory types, format support, deviceUUID. */
static void describe_physical(struct device_rec *rec, const struct instance_rec *instance)
{
    PFN_vkGetInstanceProcAddr gipa = instance->gipa;
    PFN_vkGetPhysicalDeviceMemoryProperties memory = (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(
        instance->instance, "vkGetPhysicalDeviceMemoryProperties");
    PFN_vkGetPhysicalDeviceProperties2 properties2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(
        instance->instance, "vkGetPhysicalDeviceProperties2");
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};

    rec->format_properties = (PFN_vkGetPhysicalDeviceFormatProperties)gipa(
        instance->instance, "vkGetPhysicalDeviceFormatProperties");
    if (api_1_1(rec->physical, instance))
        rec->image_format_properties2 = (PFN_vkGetPhysicalDeviceImageFormatProperties2)gipa(
            instance->instance, "vkGetPhysicalDeviceImageFormatProperties2");
    if (memory)
        memory(rec->physical, &rec->memory);
    if (properties2 && api_1_1(rec->physical, instance)) {
        properties2(rec->physical, &properties);
        memcpy(rec->uuid, id.deviceUUID, sizeof(rec->uuid));
    }
}

#define DEVICE_FN(rec, type, name) ((rec)->name = (PFN_##type)(rec)->gdpa((rec)->device, #type))

static void resolve_device_functions(struct device_rec *rec)
{
    DEVICE_FN(rec, vkDestroyDevice, destroy_device);
    DEVICE_FN(rec, vkCreateImage, create_image);
    DEVICE_FN(rec, vkDestroyImage, destroy_image);
    DEVICE_FN(rec, vkGetImageMemoryRequirements, requirements);
    DEVICE_FN(rec, vkGetImageMemoryRequirements2, requirements2);
    if (!rec->requirements2) /* a 1.0 device that has the extension */
        rec->requirements2 = (PFN_vkGetImageMemoryRequirements2)rec->gdpa(
            rec->device, "vkGetImageMemoryRequirements2KHR");
    DEVICE_FN(rec, vkAllocateMemory, allocate);
    DEVICE_FN(rec, vkFreeMemory, free_memory);
    DEVICE_FN(rec, vkBindImageMemory, bind);
    DEVICE_FN(rec, vkMapMemory, map);
    DEVICE_FN(rec, vkGetImageSubresourceLayout, subresource_layout);
    if (rec->memory_fd)
        DEVICE_FN(rec, vkGetMemoryFdKHR, get_fd);
    DEVICE_FN(rec, vkCreateSemaphore, create_semaphore);
    DEVICE_FN(rec, vkDestroySemaphore, destroy_semaphore);
    DEVICE_FN(rec, vkGetDeviceQueue, get_queue);
    DEVICE_FN(rec, vkQueueSubmit, submit);
    DEVICE_FN(rec, vkQueueSubmit2, submit2);
    rec->submit2_khr = (PFN_vkQueueSubmit2)rec->gdpa(rec->device, "vkQueueSubmit2KHR");
    DEVICE_FN(rec, vkQueueBindSparse, bind_sparse);
    if (rec->semaphore_fd)
        DEVICE_FN(rec, vkGetSemaphoreFdKHR, get_semaphore_fd);
    DEVICE_FN(rec, vkCreateCommandPool, create_pool);
    DEVICE_FN(rec, vkDestroyCommandPool, destroy_pool);
    DEVICE_FN(rec, vkAllocateCommandBuffers, allocate_buffers);
    DEVICE_FN(rec, vkBeginCommandBuffer, begin);
    DEVICE_FN(rec, vkEndCommandBuffer, end);
    DEVICE_FN(rec, vkCmdPipelineBarrier, barrier);
    DEVICE_FN(rec, vkCmdCopyImage, copy_image);
    DEVICE_FN(rec, vkCreateFence, create_fence);
    DEVICE_FN(rec, vkDestroyFence, destroy_fence);
    DEVICE_FN(rec, vkWaitForFences, wait_fences);
    DEVICE_FN(rec, vkResetFences, reset_fences);
    DEVICE_FN(rec, vkGetFenceStatus, fence_status);
}

static VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice physical,
                                                    const VkDeviceCreateInfo *info,
                                                    const VkAllocationCallbacks *alloc,
                                                    VkDevice *out)
{
    static const char *const wanted[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                         VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
    VkLayerDeviceCreateInfo *link =
        next_link(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    const VkLayerDeviceCreateInfo *loader_data = next_link_of(
        info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, VK_LOADER_DATA_CALLBACK);
    struct instance_rec *instance = find_instance(key_of(physical), true);

    if (!link || !instance)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    PFN_vkCreateDevice next = (PFN_vkCreateDevice)link->u.pLayerInfo->pfnNextGetInstanceProcAddr(
        instance->instance, "vkCreateDevice");
    const char **names = calloc(info->enabledExtensionCount + 2, sizeof(*names));
    struct device_rec *rec = calloc(1, sizeof(*rec));
    VkDeviceCreateInfo changed = *info;

    if (!names || !rec || !next) {
        free(names), free(rec);
        return next ? VK_ERROR_OUT_OF_HOST_MEMORY : VK_ERROR_INITIALIZATION_FAILED;
    }
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    if (info->enabledExtensionCount)
        memcpy(names, info->ppEnabledExtensionNames, info->enabledExtensionCount * sizeof(*names));
    changed.ppEnabledExtensionNames = names;
    /* Before 1.1 they would need VK_KHR_external_memory and more: such a device gets no twins. */
    for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]) && api_1_1(physical, instance); i++)
        if (!asks_extension(info, wanted[i]) && offers_extension(physical, instance, wanted[i]))
            names[changed.enabledExtensionCount++] = wanted[i];
    VkResult result = next(physical, &changed, alloc, out);
    rec->memory_fd = asks_extension(&changed, wanted[0]);
    rec->semaphore_fd = asks_extension(&changed, wanted[1]);
    free(names);
    if (result != VK_SUCCESS) {
        free(rec);
        return result;
    }
    rec->key = key_of(*out);
    rec->device = *out;
    rec->physical = physical;
    rec->gdpa = gdpa;
    rec->set_loader_data = loader_data ? loader_data->u.pfnSetDeviceLoaderData : NULL;
    describe_physical(rec, instance);
    resolve_device_functions(rec);
    rec->progress = dxcl_progress_new(*out, gdpa, &changed);
    pthread_mutex_lock(&records_lock);
    rec->next = devices;
    devices = rec;
    pthread_mutex_unlock(&records_lock);
    note("device %p: %s, %s, %s", (void *)*out,
         rec->memory_fd ? "external memory fd enabled" : "no external memory fd (no twins)",
         rec->semaphore_fd ? "external semaphore fd enabled" : "no external semaphore fd",
         rec->progress ? "its queues followed" : "its queues not followed (no timelines)");
    return result;
}

static VKAPI_ATTR void VKAPI_CALL destroy_device(VkDevice device,
                                                 const VkAllocationCallbacks *alloc)
{
    struct device_rec **link, *rec;

    if (!device)
        return;
    pthread_mutex_lock(&records_lock);
    for (link = &devices; *link && (*link)->key != key_of(device); link = &(*link)->next)
        ;
    if ((rec = *link))
        *link = rec->next;
    pthread_mutex_unlock(&records_lock);
    if (!rec)
        return;
    images_forget_device(rec);
    dxcl_progress_free(rec->progress);
    rec->destroy_device(device, alloc);
    free(rec);
}

/* A structure of `type` in a pNext chain, or NULL. */
static const void *chained(const void *next, VkStructureType type)
{
    const VkBaseInStructure *link = next;

    while (link && link->sType != type)
        link = link->pNext;
    return link;
}

/* The least width x height of the images made exportable for direct twins; 0: none
 * (DXCL_GPU_DIRECT=0). DXCL_GPU_DIRECT=all: every size (for tests). */
static uint64_t direct_min_pixels(void)
{
    const char *setting = getenv("DXCL_GPU_DIRECT");

    if (setting && !strcmp(setting, "0"))
        return 0;
    return setting && !strcmp(setting, "all") ? 1 : DXCL_TWIN_DIRECT_MIN_PIXELS;
}

/* Whether the driver can export the image's memory as an opaque fd. */
static bool exportable(const struct device_rec *rec, const VkImageCreateInfo *info)
{
    VkPhysicalDeviceExternalImageFormatInfo external = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkPhysicalDeviceImageFormatInfo2 format = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
        .pNext = &external,
        .format = info->format,
        .type = info->imageType,
        .tiling = info->tiling,
        .usage = info->usage,
        .flags = info->flags};
    VkExternalImageFormatProperties answer = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
    VkImageFormatProperties2 properties = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
                                           .pNext = &answer};

    return rec->image_format_properties2 &&
           rec->image_format_properties2(rec->physical, &format, &properties) == VK_SUCCESS &&
           (answer.externalMemoryProperties.externalMemoryFeatures &
            VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT);
}

/* An image a direct twin may be made of: one 2D colour subresource, optimal, not sparse, large
 * enough, not already external, exportable, and a shader resource only (no attachment, no
 * storage): NVIDIA keeps a render target's clears where its OpenCL import does not look
 * (test_gpu_path on the H100: after a clear, every pixel differed both ways, with storage usage
 * too and with the ownership moved to the external queue family), and storage images were
 * never shown exact on the H100, where shader resources were (every D3D11 suite). */
static bool direct_candidate(const struct device_rec *rec, const VkImageCreateInfo *info)
{
    const VkImageCreateFlags unsuitable = VK_IMAGE_CREATE_SPARSE_BINDING_BIT |
                                          VK_IMAGE_CREATE_SPARSE_RESIDENCY_BIT |
                                          VK_IMAGE_CREATE_SPARSE_ALIASED_BIT |
                                          VK_IMAGE_CREATE_DISJOINT_BIT | VK_IMAGE_CREATE_ALIAS_BIT;
    const VkImageUsageFlags unproven =
        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
        VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
    uint64_t least = direct_min_pixels();

    if (!least || !rec->memory_fd || !rec->get_fd)
        return false;
    if (info->imageType != VK_IMAGE_TYPE_2D || info->tiling != VK_IMAGE_TILING_OPTIMAL ||
        info->mipLevels != 1 || info->arrayLayers != 1 || info->samples != VK_SAMPLE_COUNT_1_BIT ||
        (info->flags & unsuitable))
        return false;
    /* Colour formats without planes or blocks: R4G4 ... E5B9G9R9. */
    if (info->format < VK_FORMAT_R4G4_UNORM_PACK8 ||
        info->format > VK_FORMAT_E5B9G9R9_UFLOAT_PACK32)
        return false;
    if (info->usage & unproven)
        return false;
    if ((uint64_t)info->extent.width * info->extent.height < least ||
        chained(info->pNext, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO))
        return false;
    return exportable(rec, info);
}

static VKAPI_ATTR VkResult VKAPI_CALL create_image(VkDevice device, const VkImageCreateInfo *info,
                                                   const VkAllocationCallbacks *alloc, VkImage *out)
{
    static uint64_t serials;
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);
    VkExternalMemoryImageCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
        .pNext = info->pNext,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkImageCreateInfo changed = *info;
    struct image_slot slot = {.device = rec};
    VkResult result;

    if (!rec)
        return VK_ERROR_INITIALIZATION_FAILED;
    if ((slot.exportable = direct_candidate(rec, info))) {
        changed.pNext = &external;
        slot.concurrent = info->sharingMode == VK_SHARING_MODE_CONCURRENT;
        slot.serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    }
    result = rec->create_image(device, &changed, alloc, out);
    if (result != VK_SUCCESS && slot.exportable) { /* as DXVK asked, then */
        slot.exportable = false;
        result = rec->create_image(device, info, alloc, out);
    }
    slot.image = result == VK_SUCCESS ? (uint64_t)*out : 0;
    if (slot.image)
        images_add(&slot);
    return result;
}

/* An exportable image asks for memory of its own: DXVK then allocates it dedicated (it honours
 * requiresDedicatedAllocation), where nothing else shares the memory OpenCL imports, and its
 * defragmentation never moves it (it moves only suballocations). */
static VKAPI_ATTR void VKAPI_CALL image_requirements2(VkDevice device,
                                                      const VkImageMemoryRequirementsInfo2 *info,
                                                      VkMemoryRequirements2 *out)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);
    VkMemoryDedicatedRequirements *dedicated;
    struct image_slot slot;

    if (!rec || !rec->requirements2)
        return;
    rec->requirements2(device, info, out);
    if (!images_lookup((uint64_t)info->image, &slot) || !slot.exportable)
        return;
    dedicated = (VkMemoryDedicatedRequirements *)chained(
        out->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
    if (dedicated)
        dedicated->requiresDedicatedAllocation = dedicated->prefersDedicatedAllocation = VK_TRUE;
}

/* The dedicated memory of an exportable image is made exportable, and remembered. */
static VKAPI_ATTR VkResult VKAPI_CALL allocate_memory(VkDevice device,
                                                      const VkMemoryAllocateInfo *info,
                                                      const VkAllocationCallbacks *alloc,
                                                      VkDeviceMemory *out)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);
    const VkMemoryDedicatedAllocateInfo *dedicated =
        chained(info->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
    VkExportMemoryAllocateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
        .pNext = info->pNext,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo changed = *info;
    struct image_slot slot;
    VkResult result;

    if (!rec)
        return VK_ERROR_INITIALIZATION_FAILED;
    if (!dedicated || !dedicated->image || !images_lookup((uint64_t)dedicated->image, &slot) ||
        !slot.exportable || chained(info->pNext, VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO))
        return rec->allocate(device, info, alloc, out);
    changed.pNext = &export_info;
    result = rec->allocate(device, &changed, alloc, out);
    if (result == VK_SUCCESS)
        images_set_memory((uint64_t)dedicated->image, (uint64_t)*out, info->allocationSize);
    return result;
}

static VKAPI_ATTR void VKAPI_CALL destroy_image(VkDevice device, VkImage image,
                                                const VkAllocationCallbacks *alloc)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);

    if (image)
        images_remove((uint64_t)image);
    if (rec)
        rec->destroy_image(device, image, alloc);
}

/* The program's semaphores and submissions, followed (progress.h). A queue's dispatch key is its
 * device's. */

static VKAPI_ATTR VkResult VKAPI_CALL create_semaphore(VkDevice device,
                                                       const VkSemaphoreCreateInfo *info,
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

static VKAPI_ATTR void VKAPI_CALL destroy_semaphore(VkDevice device, VkSemaphore semaphore,
                                                    const VkAllocationCallbacks *alloc)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);

    if (!rec)
        return;
    dxcl_progress_semaphore_gone(rec->progress, semaphore);
    rec->destroy_semaphore(device, semaphore, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue queue, uint32_t count,
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

static VKAPI_ATTR VkResult VKAPI_CALL queue_submit2(VkQueue queue, uint32_t count,
                                                    const VkSubmitInfo2 *batches, VkFence fence)
{
    return submit2_through(false, queue, count, batches, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL queue_submit2_khr(VkQueue queue, uint32_t count,
                                                        const VkSubmitInfo2 *batches, VkFence fence)
{
    return submit2_through(true, queue, count, batches, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL queue_bind_sparse(VkQueue queue, uint32_t count,
                                                        const VkBindSparseInfo *binds,
                                                        VkFence fence)
{
    struct device_rec *rec = find_device_by(key_of(queue), VK_NULL_HANDLE);

    if (!rec)
        return VK_ERROR_DEVICE_LOST;
    dxcl_progress_sparse_bound(rec->progress);
    return rec->bind_sparse(queue, count, binds, fence);
}

/* The twins (core/twin.h). */

static int32_t fail(struct dxcl_twin *twin, int32_t result, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static int32_t fail(struct dxcl_twin *twin, int32_t result, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    vsnprintf(twin->error, sizeof(twin->error), format, args);
    va_end(args);
    twin->result = result;
    note("twin: %s", twin->error);
    return result;
}

/* A memory type of `bits` with all of `want`, or -1. */
static int32_t memory_type(const struct device_rec *rec, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < rec->memory.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (rec->memory.memoryTypes[i].propertyFlags & want) == want)
            return (int32_t)i;
    return -1;
}

/* The usage the format allows with `tiling`: transfers always, sampled and storage if offered;
 * 0 when it lacks the transfers. */
static VkImageUsageFlags twin_usage(const struct device_rec *rec, VkFormat format,
                                    VkImageTiling tiling)
{
    const VkFormatFeatureFlags transfers =
        VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    VkFormatProperties properties = {0};
    VkFormatFeatureFlags features;
    VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

    if (!rec->format_properties)
        return 0;
    rec->format_properties(rec->physical, format, &properties);
    features = tiling == VK_IMAGE_TILING_LINEAR ? properties.linearTilingFeatures
                                                : properties.optimalTilingFeatures;
    if ((features & transfers) != transfers)
        return 0;
    if (features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
        usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
    if (features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
        usage |= VK_IMAGE_USAGE_STORAGE_BIT;
    return usage;
}

static bool request_valid(const struct dxcl_twin_request *request)
{
    if (request->image_type == VK_IMAGE_TYPE_2D)
        return request->width && request->height && request->depth <= 1;
    return request->image_type == VK_IMAGE_TYPE_3D && request->width && request->height &&
           request->depth;
}

static int32_t make_image(struct dxcl_twin *twin, const struct device_rec *rec,
                          const struct dxcl_twin_request *request, VkImageTiling tiling,
                          VkImage *image)
{
    VkFormat format = (VkFormat)request->format;
    VkImageUsageFlags usage = twin_usage(rec, format, tiling);
    VkExternalMemoryImageCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkImageCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .pNext = &external,
        .imageType = (VkImageType)request->image_type,
        .format = format,
        .extent = {request->width, request->height,
                   request->image_type == VK_IMAGE_TYPE_3D ? request->depth : 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = tiling,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkResult result;

    if (!usage)
        return fail(twin, -1, "the format %u has no %s transfer support", request->format,
                    tiling == VK_IMAGE_TILING_LINEAR ? "linear host-visible" : "optimal");
    if ((result = rec->create_image(rec->device, &info, NULL, image)))
        return fail(twin, result, "vkCreateImage: %d", result);
    return 0;
}

/* Dedicated exportable memory for the image, allocated and bound. */
static int32_t make_memory(struct dxcl_twin *twin, const struct device_rec *rec, VkImage image,
                           bool host_visible, VkDeviceMemory *memory, VkDeviceSize *size)
{
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkMemoryRequirements requirements;
    VkResult result;
    int32_t type;

    rec->requirements(rec->device, image, &requirements);
    type = memory_type(rec, requirements.memoryTypeBits,
                       host_visible ? host : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0 && !host_visible)
        type = memory_type(rec, requirements.memoryTypeBits, 0);
    if (type < 0)
        return fail(twin, -1, "no %smemory type for the image (types 0x%x)",
                    host_visible ? "host-visible coherent " : "", requirements.memoryTypeBits);
    VkMemoryDedicatedAllocateInfo dedicated = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .image = image};
    VkExportMemoryAllocateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
        .pNext = &dedicated,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                 .pNext = &export_info,
                                 .allocationSize = requirements.size,
                                 .memoryTypeIndex = (uint32_t)type};
    if ((result = rec->allocate(rec->device, &info, NULL, memory)))
        return fail(twin, result, "vkAllocateMemory: %d", result);
    *size = requirements.size;
    if ((result = rec->bind(rec->device, image, *memory, 0)))
        return fail(twin, result, "vkBindImageMemory: %d", result);
    return 0;
}

static int32_t export_fd(struct dxcl_twin *twin, const struct device_rec *rec)
{
    VkMemoryGetFdInfoKHR info = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                 .memory = (VkDeviceMemory)twin->memory,
                                 .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    int fd = -1;
    VkResult result = rec->get_fd(rec->device, &info, &fd);

    if (result)
        return fail(twin, result, "vkGetMemoryFdKHR: %d", result);
    twin->fd = fd;
    return 0;
}

/* The test-only import: the mapping of the linear image and its layout. */
static int32_t map_twin(struct dxcl_twin *twin, const struct device_rec *rec, uint32_t image_type)
{
    VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout;
    void *mapping;
    VkResult result;

    rec->subresource_layout(rec->device, (VkImage)twin->image, &subresource, &layout);
    result = rec->map(rec->device, (VkDeviceMemory)twin->memory, 0, VK_WHOLE_SIZE, 0, &mapping);
    if (result)
        return fail(twin, result, "vkMapMemory: %d", result);
    twin->host = (char *)mapping + layout.offset;
    twin->row_pitch = layout.rowPitch;
    twin->slice_pitch = image_type == VK_IMAGE_TYPE_3D ? layout.depthPitch : layout.size;
    return 0;
}

/* A binary semaphore exportable as an opaque fd; 0 where the device cannot export one (the
 * twin is then handed over with the CPU waiting, as before semaphores). */
static uint64_t make_semaphore(const struct device_rec *rec)
{
    VkExportSemaphoreCreateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                  .pNext = &export_info};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VkResult result;

    if (!rec->semaphore_fd || !rec->get_semaphore_fd || !rec->create_semaphore)
        return 0;
    if ((result = rec->create_semaphore(rec->device, &info, NULL, &semaphore))) {
        note("vkCreateSemaphore (exportable): %d", result);
        return 0;
    }
    return (uint64_t)semaphore;
}

static void make_semaphores(struct dxcl_twin *twin, const struct device_rec *rec)
{
    twin->ready = make_semaphore(rec);
    twin->done = twin->ready ? make_semaphore(rec) : 0;
    if (twin->ready && !twin->done) {
        rec->destroy_semaphore(rec->device, (VkSemaphore)twin->ready, NULL);
        twin->ready = 0;
    }
}

static void free_copier(const struct device_rec *rec, struct dxcl_twin *twin);

static void free_twin(const struct device_rec *rec, struct dxcl_twin *twin)
{
    free_copier(rec, twin);
    if (twin->fd >= 0)
        close(twin->fd);
    if (twin->ready)
        rec->destroy_semaphore(rec->device, (VkSemaphore)twin->ready, NULL);
    if (twin->done)
        rec->destroy_semaphore(rec->device, (VkSemaphore)twin->done, NULL);
    twin->ready = twin->done = 0;
    if (twin->image && !twin->direct) /* a direct twin's are DXVK's */
        rec->destroy_image(rec->device, (VkImage)twin->image, NULL);
    if (twin->memory && !twin->direct)
        rec->free_memory(rec->device, (VkDeviceMemory)twin->memory, NULL); /* unmaps it too */
    note("twin 0x%" PRIx64 " freed", twin->image);
    twin->fd = -1;
    twin->image = twin->memory = 0;
    twin->host = NULL;
}

static int32_t build_twin(const struct dxcl_twin_request *request, struct dxcl_twin *twin,
                          const struct device_rec *rec)
{
    bool host_visible = request->host_visible != 0;
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    int32_t result;

    if (!rec->memory_fd || !rec->get_fd)
        return fail(twin, -1, "the device %p has no " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                    (void *)rec->device);
    if (!request_valid(request))
        return fail(twin, -1, "no such twin: type %u, %ux%ux%u", request->image_type,
                    request->width, request->height, request->depth);
    result = make_image(twin, rec, request,
                        host_visible ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL, &image);
    twin->image = (uint64_t)image;
    if (!result)
        result = make_memory(twin, rec, image, host_visible, &memory, &size);
    twin->memory = (uint64_t)memory;
    twin->size = size;
    if (!result)
        result = export_fd(twin, rec);
    if (!result && host_visible) {
        close(twin->fd); /* exported only to exercise the export */
        twin->fd = -1;
        result = map_twin(twin, rec, request->image_type);
    }
    if (!result && !host_visible)
        make_semaphores(twin, rec);
    return result;
}

/* A direct twin: the program's image itself, made exportable when DXVK created it. */
static int32_t build_direct(const struct dxcl_twin_request *request, struct dxcl_twin *twin,
                            const struct device_rec *rec, const struct image_slot *slot)
{
    int32_t result;

    if (!slot->exportable)
        return fail(twin, -1,
                    "image 0x%" PRIx64 " was not made exportable (not a 2D colour image of one "
                    "subresource, smaller than %u pixels, a render target or storage image, "
                    "or the driver exports none such)",
                    request->like_image, DXCL_TWIN_DIRECT_MIN_PIXELS);
    if (!slot->memory)
        return fail(twin, -1, "image 0x%" PRIx64 " has no dedicated exportable memory",
                    request->like_image);
    twin->direct = 1;
    twin->serial = slot->serial;
    twin->image = request->like_image;
    twin->memory = slot->memory;
    twin->size = slot->size;
    if (!(result = export_fd(twin, rec)))
        make_semaphores(twin, rec);
    return result;
}

/* Whether a direct twin's image is the one it was made of, still alive. */
static bool direct_alive(const struct dxcl_twin *twin)
{
    struct image_slot slot;

    return images_lookup(twin->image, &slot) && slot.serial == twin->serial &&
           slot.memory == twin->memory;
}

EXPORT int32_t dxcl_layer_twin_create(const struct dxcl_twin_request *request,
                                      struct dxcl_twin *twin)
{
    struct image_slot slot;
    struct device_rec *rec;
    int32_t result;

    memset(twin, 0, sizeof(*twin));
    twin->fd = -1;
    if (!images_lookup(request->like_image, &slot))
        return fail(twin, -1, "no device made image 0x%" PRIx64, request->like_image);
    rec = slot.device;
    result =
        request->direct ? build_direct(request, twin, rec, &slot) : build_twin(request, twin, rec);
    if (result) {
        free_twin(rec, twin);
        twin->size = 0;
        return result;
    }
    twin->device = (uint64_t)rec->device;
    twin->width = request->width;
    twin->height = request->height;
    twin->depth = request->image_type == VK_IMAGE_TYPE_3D ? request->depth : 1;
    memcpy(twin->device_uuid, rec->uuid, sizeof(twin->device_uuid));
    note("twin 0x%" PRIx64 " of image 0x%" PRIx64 ": %" PRIu64 " bytes%s%s%s", twin->image,
         request->like_image, twin->size, request->host_visible ? ", mapped" : "",
         twin->direct ? ", direct (the image itself)" : "", twin->ready ? ", with semaphores" : "");
    return 0;
}

EXPORT void dxcl_layer_twin_destroy(struct dxcl_twin *twin)
{
    struct device_rec *rec;

    if (!twin || !twin->device)
        return;
    if ((rec = find_device_by(NULL, (VkDevice)twin->device)))
        free_twin(rec, twin);
    else
        note("twin 0x%" PRIx64 ": its device 0x%" PRIx64 " is gone", twin->image, twin->device);
    twin->device = 0;
}

EXPORT int32_t dxcl_layer_twin_export(struct dxcl_twin *twin)
{
    struct device_rec *rec;

    if (!twin || !twin->device || !twin->memory)
        return -1;
    if (!(rec = find_device_by(NULL, (VkDevice)twin->device)))
        return fail(twin, -1, "twin 0x%" PRIx64 ": its device is gone", twin->image);
    if (twin->direct && !direct_alive(twin)) /* its memory may be freed */
        return fail(twin, -1, "direct twin 0x%" PRIx64 ": DXVK destroyed the image", twin->image);
    if (twin->fd >= 0)
        close(twin->fd); /* not imported: the new one replaces it */
    twin->fd = -1;
    return export_fd(twin, rec);
}

static int32_t export_semaphore(struct dxcl_twin *twin, const struct device_rec *rec,
                                uint64_t semaphore, struct dxcl_twin_sync *sync)
{
    VkSemaphoreGetFdInfoKHR info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
                                    .semaphore = (VkSemaphore)semaphore,
                                    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    int fd = -1;
    VkResult result;

    if (!semaphore)
        return fail(twin, -1, "twin 0x%" PRIx64 " has no semaphores", twin->image);
    if ((result = rec->get_semaphore_fd(rec->device, &info, &fd)))
        return fail(twin, result, "vkGetSemaphoreFdKHR: %d", result);
    sync->fd = fd;
    return 0;
}

/* The layer's copies between the program's image and a twin (DXCL_TWIN_SYNC_COPY_IN/OUT), for
 * twins DXVK cannot wrap, and a direct twin's hand-overs. A twin's submissions come from one
 * thread at a time (the caller holds DXVK's submission queue), so its ring needs no lock. A slot
 * is reused once its fence says the GPU is done with it; while every slot is still on the GPU
 * the ring grows (a release never waits for the GPU), and only a CPU COPIER_SLOTS submissions
 * ahead of the GPU waits. */
#define COPIER_SLOTS 32
struct copier {
    VkCommandPool pool;
    uint32_t family;
    unsigned count, next; /* slots made so far; the next in turn */
    VkCommandBuffer buffers[COPIER_SLOTS];
    VkFence fences[COPIER_SLOTS];
    bool submitted[COPIER_SLOTS];
};

static void free_copier(const struct device_rec *rec, struct dxcl_twin *twin)
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
static struct copier *copier_of(struct dxcl_twin *twin, const struct device_rec *rec,
                                uint32_t family)
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
static int next_slot(struct dxcl_twin *twin, const struct device_rec *rec, struct copier *c)
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

/* The layer's entry points (the manifest names these two). */

static PFN_vkVoidFunction device_function(const char *name);

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetDeviceProcAddr(VkDevice device,
                                                                             const char *name)
{
    PFN_vkVoidFunction own = device_function(name);
    struct device_rec *rec = device ? find_device_by(key_of(device), VK_NULL_HANDLE) : NULL;
    PFN_vkVoidFunction next = rec ? rec->gdpa(device, name) : NULL;

    /* A hook of a function the device lacks (vkQueueSubmit2 on a device without it) is none. */
    if (own && (next || !rec || !strncmp(name, "vkGetDeviceProcAddr", 19)))
        return own;
    return next;
}

/* The device functions the layer wraps, by name. */
static const struct {
    const char *name;
    PFN_vkVoidFunction function;
} device_hooks[] = {
    {"vkGetDeviceProcAddr", (PFN_vkVoidFunction)dxcl_layer_GetDeviceProcAddr},
    {"vkDestroyDevice", (PFN_vkVoidFunction)destroy_device},
    {"vkCreateImage", (PFN_vkVoidFunction)create_image},
    {"vkDestroyImage", (PFN_vkVoidFunction)destroy_image},
    {"vkGetImageMemoryRequirements2", (PFN_vkVoidFunction)image_requirements2},
    {"vkGetImageMemoryRequirements2KHR", (PFN_vkVoidFunction)image_requirements2},
    {"vkAllocateMemory", (PFN_vkVoidFunction)allocate_memory},
    {"vkCreateSemaphore", (PFN_vkVoidFunction)create_semaphore},
    {"vkDestroySemaphore", (PFN_vkVoidFunction)destroy_semaphore},
    {"vkQueueSubmit", (PFN_vkVoidFunction)queue_submit},
    {"vkQueueSubmit2", (PFN_vkVoidFunction)queue_submit2},
    {"vkQueueSubmit2KHR", (PFN_vkVoidFunction)queue_submit2_khr},
    {"vkQueueBindSparse", (PFN_vkVoidFunction)queue_bind_sparse},
};

static PFN_vkVoidFunction device_function(const char *name)
{
    for (size_t i = 0; i < sizeof(device_hooks) / sizeof(device_hooks[0]); i++)
        if (!strcmp(name, device_hooks[i].name))
            return device_hooks[i].function;
    return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetInstanceProcAddr(VkInstance instance,
                                                                               const char *name)
{
    PFN_vkVoidFunction own = device_function(name);
    struct instance_rec *rec;

    if (!strcmp(name, "vkGetInstanceProcAddr"))
        return (PFN_vkVoidFunction)dxcl_layer_GetInstanceProcAddr;
    if (!strcmp(name, "vkCreateInstance"))
        return (PFN_vkVoidFunction)create_instance;
    if (!strcmp(name, "vkDestroyInstance"))
        return (PFN_vkVoidFunction)destroy_instance;
    if (!strcmp(name, "vkCreateDevice"))
        return (PFN_vkVoidFunction)create_device;
    if (own)
        return own;
    rec = instance ? find_instance(key_of(instance), false) : NULL;
    return rec ? rec->gipa(instance, name) : NULL;
}
