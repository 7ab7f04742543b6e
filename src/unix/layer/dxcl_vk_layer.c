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
#include "layer.h"

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
