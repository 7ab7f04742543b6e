/* What the files of dxcl's Vulkan layer share (dxcl_vk_layer.c's header says what the layer
 * does): the records of devices and twins, the functions of the next layer, and what one file
 * offers the others. Internal to libdxcl_vk_layer.so. */
#ifndef DXCL_LAYER_H
#define DXCL_LAYER_H

#include "base.h"
#include "core/twin.h"
#include "unix/host_config.h"
#include "progress.h"

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* The exports dxclunix.so looks up by name (core/twin.h, DXCL_LAYER_EXPORTS): each takes its
 * call's struct. */
#define DXCL_LAYER_EXPORT(call, name) EXPORT int32_t name(void *params);
DXCL_LAYER_EXPORTS
#undef DXCL_LAYER_EXPORT

/* The loader's dispatch table of a dispatchable handle is its first pointer: a physical device
 * shares its instance's, a queue or command buffer its device's. */
static inline void *key_of(const void *handle)
{
    return *(void *const *)handle;
}

/* The functions of the next layer a sharing device's record needs. */
struct device_functions {
    PFN_vkDestroyDevice destroy_device;
    PFN_vkGetDeviceQueue get_queue;
    PFN_vkCreateImage create_image;
    PFN_vkDestroyImage destroy_image;
    PFN_vkGetImageMemoryRequirements requirements;
    PFN_vkGetImageMemoryRequirements2 requirements2;
    PFN_vkAllocateMemory allocate;
    PFN_vkFreeMemory free_memory;
    PFN_vkBindImageMemory bind;
    PFN_vkMapMemory map;
    PFN_vkGetImageSubresourceLayout subresource_layout;
    PFN_vkGetMemoryFdKHR get_memory_fd;
    PFN_vkCreateSemaphore create_semaphore;
    PFN_vkDestroySemaphore destroy_semaphore;
    PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
    PFN_vkSignalSemaphore signal_semaphore;
    PFN_vkWaitSemaphores wait_semaphores;
    PFN_vkQueueSubmit submit;
    PFN_vkQueueSubmit2 submit2, submit2_khr;
    PFN_vkQueueBindSparse bind_sparse;
    PFN_vkCreateCommandPool create_pool;
    PFN_vkDestroyCommandPool destroy_pool;
    PFN_vkAllocateCommandBuffers allocate_buffers;
    PFN_vkResetCommandBuffer reset_buffer;
    PFN_vkBeginCommandBuffer begin;
    PFN_vkEndCommandBuffer end;
    PFN_vkCmdPipelineBarrier barrier;
    PFN_vkCmdCopyImage copy_image;
};

/* The images a sharing device made: VkImage -> what the layer knows of it. Open addressing with
 * linear probing, grown at 3/4 full, deletion by backward shift. Under the table's lock. */
struct image_slot {
    uint64_t image; /* 0: empty */
    /* Made exportable for a direct twin: its dedicated memory once allocated and its size, and
     * the serial of this image's life (a VkImage handle may come back for a new image).
     * concurrent: made with VK_SHARING_MODE_CONCURRENT (a hand-over then names no queue family
     * of its own). */
    bool exportable, concurrent;
    uint64_t memory, size, serial;
};
struct image_table {
    pthread_mutex_t lock;
    struct image_slot *slots;
    size_t capacity, count; /* capacity: 0 or a power of two */
};

/* The command buffers of the layer's submissions on a device (handover.c): each is reused
 * once the device's timeline says the GPU ran it. */
/* The ring grows while its command buffers are all on the GPU (a program's loop of acquire and
 * release runs ahead of it, each batch behind OpenCL's release); only at the most does a batch
 * wait for the GPU. */
#define RING_MOST 4096
struct ring {
    VkCommandPool pool;
    uint32_t family;
    unsigned count, capacity, next;
    VkCommandBuffer *buffers;
    uint64_t *values; /* the timeline value of each one's last submission; 0: never */
};

/* A device. Found from any of its dispatchable handles by dispatch key without a lock
 * (records.c); its record outlives it (a call racing with another device's destroy may still
 * read it). dxcl's calls hold `alive` shared; vkDestroyDevice takes it exclusive. */
struct device {
    uint64_t id; /* the layer's, never reused */
    void *key;
    VkDevice handle;
    VkPhysicalDevice physical;
    PFN_vkGetDeviceProcAddr gdpa;
    /* Made in a process where dxcl may share (its Unix side is loaded): the fd export
     * extensions were added, its images are recorded and its queues followed. Otherwise the
     * layer is passive on it: every call goes straight to the next layer. */
    bool may_share;
    bool memory_fd, semaphore_fd; /* the extensions are enabled */
    atomic_bool sharing;          /* dxcl_layer_share named it: direct candidates from now */
    pthread_rwlock_t alive;
    bool destroyed;   /* under `alive`, exclusive */
    atomic_bool gone; /* vkDestroyDevice began: the program's calls on it keep nothing more */
    uint8_t uuid[VK_UUID_SIZE];
    VkPhysicalDeviceMemoryProperties memory;
    PFN_vkGetPhysicalDeviceFormatProperties format_properties;
    PFN_vkGetPhysicalDeviceImageFormatProperties2 image_format_properties2;
    /* The queues the device was made with, so that a hand-over names one of them. */
    uint32_t queue_families[16], queue_counts[16], queue_family_count;
    PFN_vkSetDeviceLoaderData set_loader_data;
    struct device_functions vk;
    struct dxcl_progress *progress; /* NULL: no timeline semaphores (no hand-overs) */
    struct image_table images;
    /* The layer's own submissions, one at a time: their timeline values go up in order. */
    pthread_mutex_t submit_lock;
    struct ring rings[2]; /* one per queue family used */
};

/* records.c: instances and devices. */
struct instance_rec {
    struct instance_rec *next;
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    uint32_t api_version; /* the program's: external memory is core from 1.1 */
    /* Resolved when made: the loader's terminator no longer knows the instance at destroy. */
    PFN_vkDestroyInstance destroy_instance;
};
struct instance_rec *find_instance(void *key, bool or_newest);
/* The loader's link of `type` in a create info's chain (for `function`, or any). */
void *next_link_of(const void *next, VkStructureType type, VkLayerFunction function);
void *next_link(const void *next, VkStructureType type);
/* Gives a new device its id and publishes its record (copy-on-write); false when out of
 * memory (then no call finds it). */
bool device_record(struct device *device);
/* The next layer's function of the instance, or NULL. */
PFN_vkVoidFunction instance_next_function(VkInstance instance, const char *name);
/* The device of a dispatch key (no lock; NULL for a device the layer never saw). */
struct device *device_of(void *key);
/* The device of an id, alive and held for dxcl's call (`alive` shared), or NULL (error set). */
struct device *device_hold(uint64_t id, struct dxcl_layer_error *error);
void device_put(struct device *device);
/* Each sharing-capable device, held in turn, until `visit` returns true: that device (held). */
struct device *device_find(bool (*visit)(struct device *device, void *arg), void *arg);
VKAPI_ATTR VkResult VKAPI_CALL hook_create_instance(const VkInstanceCreateInfo *info,
                                                    const VkAllocationCallbacks *alloc,
                                                    VkInstance *out);
VKAPI_ATTR void VKAPI_CALL hook_destroy_instance(VkInstance instance,
                                                 const VkAllocationCallbacks *alloc);
/* The queue (family, index) the device was made with, or NULL. */
VkQueue device_queue(struct device *device, uint32_t family, uint32_t index);

/* images.c: each sharing-capable device's images, and the hooks that make direct candidates
 * exportable once sharing started. */
void images_init(struct image_table *table);
void images_free(struct image_table *table);
bool images_lookup(struct device *device, uint64_t image, struct image_slot *out);
VKAPI_ATTR VkResult VKAPI_CALL hook_create_image(VkDevice device, const VkImageCreateInfo *info,
                                                 const VkAllocationCallbacks *alloc, VkImage *out);
VKAPI_ATTR void VKAPI_CALL hook_image_requirements2(VkDevice device,
                                                    const VkImageMemoryRequirementsInfo2 *info,
                                                    VkMemoryRequirements2 *out);
VKAPI_ATTR VkResult VKAPI_CALL hook_allocate_memory(VkDevice device,
                                                    const VkMemoryAllocateInfo *info,
                                                    const VkAllocationCallbacks *alloc,
                                                    VkDeviceMemory *out);
VKAPI_ATTR void VKAPI_CALL hook_free_memory(VkDevice device, VkDeviceMemory memory,
                                            const VkAllocationCallbacks *alloc);
VKAPI_ATTR void VKAPI_CALL hook_destroy_image(VkDevice device, VkImage image,
                                              const VkAllocationCallbacks *alloc);

/* submits.c: the program's semaphores and submissions, followed (progress.h). */
VKAPI_ATTR VkResult VKAPI_CALL hook_create_semaphore(VkDevice device,
                                                     const VkSemaphoreCreateInfo *info,
                                                     const VkAllocationCallbacks *alloc,
                                                     VkSemaphore *out);
VKAPI_ATTR void VKAPI_CALL hook_destroy_semaphore(VkDevice device, VkSemaphore semaphore,
                                                  const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL hook_queue_submit(VkQueue queue, uint32_t count,
                                                 const VkSubmitInfo *batches, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL hook_queue_submit2(VkQueue queue, uint32_t count,
                                                  const VkSubmitInfo2 *batches, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL hook_queue_submit2_khr(VkQueue queue, uint32_t count,
                                                      const VkSubmitInfo2 *batches, VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL hook_queue_bind_sparse(VkQueue queue, uint32_t count,
                                                      const VkBindSparseInfo *binds, VkFence fence);

/* twins.c: the twins, by id. */
struct twin;
/* The twin of an id, referenced, or NULL (error set); twin_put drops the reference. */
struct twin *twin_hold(uint64_t id, struct dxcl_layer_error *error);
void twin_put(struct twin *twin);
/* The twin's device (the twin holds none of it: dxcl's call holds the device). */
struct device *twin_device(const struct twin *twin);
/* The twins of a device being destroyed: their Vulkan objects go now (the GPU is idle). */
void twins_forget_device(struct device *device);

/* graves.c: Vulkan objects freed once the GPU is done with them. */
struct grave {
    struct device *device;
    uint64_t after; /* the device's timeline value that says the GPU is done with them */
    VkImage image;
    VkDeviceMemory memory;
    VkSemaphore semaphores[2];
    /* A program's image the layer's batches used, destroyed while they may still run: the
     * memory it was bound to, taken into the grave when the program frees it. */
    VkDeviceMemory bound;
};
void graves_add(const struct grave *grave);
/* The program frees `memory` of an image in a grave: true when the grave took it. */
bool graves_take_memory(struct device *device, VkDeviceMemory memory);
/* Frees the graves whose value the device's timeline reached (all of them with `all`: the
 * device is idle, being destroyed). */
void graves_visit(struct device *device, bool all);
/* Visits the graves of every device (the bound's thread); true while some remain. */
bool graves_sweep(void);

/* releases.c: Direct3D's waits for OpenCL's releases, bounded. */
struct release_watch {
    uint64_t twin, value;
    uint64_t deadline_ns;
};
void releases_watch(const struct release_watch *watch);
void releases_unwatch(uint64_t twin, uint64_t value);
/* Wakes the bound's thread (it also sweeps the graves). */
void releases_wake(void);
/* DXCL_GPU_WAIT_BOUND_MS, or DXCL_TWIN_WAIT_BOUND_MS. */
uint64_t releases_bound_ns(void);

/* handover.c: the layer's submissions on a device (the caller holds its submit_lock). */
void rings_free(struct device *device);

#endif
