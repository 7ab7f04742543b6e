/* What the files of dxcl's Vulkan layer share (dxcl_vk_layer.c's header says what the layer
 * does): the records of instances and devices, the image table, the twins' copier, and the
 * functions one file offers the others. Internal to libdxcl_vk_layer.so. */
#ifndef DXCL_LAYER_H
#define DXCL_LAYER_H

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
static inline void *key_of(const void *handle)
{
    return *(void *const *)handle;
}

void note(const char *format, ...) __attribute__((format(printf, 1, 2)));

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

/* records.c: instances and devices. */
struct instance_rec *find_instance(void *key, bool or_newest);
struct device_rec *find_device_by(void *key, VkDevice device);
VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                               const VkAllocationCallbacks *alloc, VkInstance *out);
VKAPI_ATTR void VKAPI_CALL destroy_instance(VkInstance instance,
                                            const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice physical,
                                             const VkDeviceCreateInfo *info,
                                             const VkAllocationCallbacks *alloc, VkDevice *out);
VKAPI_ATTR void VKAPI_CALL destroy_device(VkDevice device, const VkAllocationCallbacks *alloc);

/* images.c: the image table and the hooks that make direct candidates exportable. */
bool images_lookup(uint64_t image, struct image_slot *out);
void images_forget_device(struct device_rec *device);
VKAPI_ATTR VkResult VKAPI_CALL create_image(VkDevice device, const VkImageCreateInfo *info,
                                            const VkAllocationCallbacks *alloc, VkImage *out);
VKAPI_ATTR void VKAPI_CALL image_requirements2(VkDevice device,
                                               const VkImageMemoryRequirementsInfo2 *info,
                                               VkMemoryRequirements2 *out);
VKAPI_ATTR VkResult VKAPI_CALL allocate_memory(VkDevice device, const VkMemoryAllocateInfo *info,
                                               const VkAllocationCallbacks *alloc,
                                               VkDeviceMemory *out);
VKAPI_ATTR void VKAPI_CALL destroy_image(VkDevice device, VkImage image,
                                         const VkAllocationCallbacks *alloc);

/* submits.c: the program's semaphores and submissions, followed (progress.h). */
VKAPI_ATTR VkResult VKAPI_CALL create_semaphore(VkDevice device, const VkSemaphoreCreateInfo *info,
                                                const VkAllocationCallbacks *alloc,
                                                VkSemaphore *out);
VKAPI_ATTR void VKAPI_CALL destroy_semaphore(VkDevice device, VkSemaphore semaphore,
                                             const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue queue, uint32_t count,
                                            const VkSubmitInfo *batches, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL queue_submit2(VkQueue queue, uint32_t count,
                                             const VkSubmitInfo2 *batches, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL queue_submit2_khr(VkQueue queue, uint32_t count,
                                                 const VkSubmitInfo2 *batches, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL queue_bind_sparse(VkQueue queue, uint32_t count,
                                                 const VkBindSparseInfo *binds, VkFence fence);

/* twins.c: twins made, exported and freed. */
int32_t fail(struct dxcl_twin *twin, int32_t result, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
bool direct_alive(const struct dxcl_twin *twin);
int32_t export_semaphore(struct dxcl_twin *twin, const struct device_rec *rec, uint64_t semaphore,
                         struct dxcl_twin_sync *sync);

/* copier.c: the ring of command buffers of a twin's copies and hand-overs. */
void free_copier(const struct device_rec *rec, struct dxcl_twin *twin);
struct copier *copier_of(struct dxcl_twin *twin, const struct device_rec *rec, uint32_t family);
int next_slot(struct dxcl_twin *twin, const struct device_rec *rec, struct copier *c);

#endif
