/* libdxcl_vk_layer.so, dxcl's host Vulkan layer VK_LAYER_DXCL_interop (docs/proxy.md, "The
 * Vulkan layer"). A layer between winevulkan's host side and the driver, so it sees DXVK's calls
 * as the host loader gets them. In a process without dxcl's Unix side it is passive: it adds
 * nothing to a device and hands out the next layer's functions, so that no call of the device
 * goes through it. Where dxcl may share, it:
 * - adds VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd to each device whose driver
 *   offers them (winevulkan hides them from PE code, so DXVK cannot ask for them), and records
 *   the device's images (records.c, images.c);
 * - once dxcl shares on the device (dxcl_layer_share), makes DXVK's larger 2D shader-resource
 *   images exportable, with dedicated memory, so that OpenCL can import a texture's own memory
 *   (a direct twin, core/twin.h);
 * - makes and gives up twins for dxclunix.so, by id (twins.c), and hands batches of them between
 *   Direct3D's queue and OpenCL with the ownership transfers Vulkan requires (handover.c);
 * - ends Direct3D's waits for OpenCL's releases from the host, within a bound (releases.c), and
 *   frees its Vulkan objects only once the GPU is done with them (graves.c);
 * - follows what is submitted to each device's queues, so that a hand-in to OpenCL needs no
 *   signal once everything of Direct3D's is done (submits.c, progress.h).
 * Thread-safe: DXVK and dxcl call it from several threads; no lock of the layer's is taken on a
 * program's call of a passive device, and none is held across a driver call the program made.
 * Built with the host compiler; it links no Vulkan library (the loader hands it every
 * function). */
#define _GNU_SOURCE
#include "twins.h"

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetInstanceProcAddr(VkInstance instance,
                                                                               const char *name);
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetDeviceProcAddr(VkDevice device,
                                                                             const char *name);

/* The device functions the layer wraps, by name. */
static const struct {
    const char *name;
    PFN_vkVoidFunction function;
} device_hooks[] = {
    {"vkGetDeviceProcAddr", (PFN_vkVoidFunction)dxcl_layer_GetDeviceProcAddr},
    {"vkDestroyDevice", (PFN_vkVoidFunction)hook_destroy_device},
    {"vkCreateImage", (PFN_vkVoidFunction)hook_create_image},
    {"vkDestroyImage", (PFN_vkVoidFunction)hook_destroy_image},
    {"vkGetImageMemoryRequirements2", (PFN_vkVoidFunction)hook_image_requirements2},
    {"vkGetImageMemoryRequirements2KHR", (PFN_vkVoidFunction)hook_image_requirements2},
    {"vkAllocateMemory", (PFN_vkVoidFunction)hook_allocate_memory},
    {"vkFreeMemory", (PFN_vkVoidFunction)hook_free_memory},
    {"vkCreateSemaphore", (PFN_vkVoidFunction)hook_create_semaphore},
    {"vkDestroySemaphore", (PFN_vkVoidFunction)hook_destroy_semaphore},
    {"vkQueueSubmit", (PFN_vkVoidFunction)hook_queue_submit},
    {"vkQueueSubmit2", (PFN_vkVoidFunction)hook_queue_submit2},
    {"vkQueueSubmit2KHR", (PFN_vkVoidFunction)hook_queue_submit2_khr},
    {"vkQueueBindSparse", (PFN_vkVoidFunction)hook_queue_bind_sparse},
};

static PFN_vkVoidFunction device_function(const char *name)
{
    for (size_t i = 0; i < sizeof(device_hooks) / sizeof(device_hooks[0]); i++)
        if (!strcmp(name, device_hooks[i].name))
            return device_hooks[i].function;
    return NULL;
}

/* The layer's entry points (the manifest names these two). A passive device gets the next
 * layer's functions, but for the two that keep the layer's record of it. */
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetDeviceProcAddr(VkDevice handle,
                                                                             const char *name)
{
    PFN_vkVoidFunction own = device_function(name), next;
    struct device *device = handle ? device_of(key_of(handle)) : NULL;

    if (!strcmp(name, "vkGetDeviceProcAddr"))
        return own;
    if (!device)
        return NULL;
    next = device->gdpa(handle, name);
    if (!strcmp(name, "vkDestroyDevice"))
        return own;
    if (!device->may_share)
        return next;
    /* A hook of a function the device lacks (vkQueueSubmit2 on a device without it) is none. */
    return own && next ? own : next;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_layer_GetInstanceProcAddr(VkInstance instance,
                                                                               const char *name)
{
    PFN_vkVoidFunction own = device_function(name);

    if (!strcmp(name, "vkGetInstanceProcAddr"))
        return (PFN_vkVoidFunction)dxcl_layer_GetInstanceProcAddr;
    if (!strcmp(name, "vkCreateInstance"))
        return (PFN_vkVoidFunction)hook_create_instance;
    if (!strcmp(name, "vkDestroyInstance"))
        return (PFN_vkVoidFunction)hook_destroy_instance;
    if (!strcmp(name, "vkCreateDevice"))
        return (PFN_vkVoidFunction)hook_create_device;
    if (own)
        return own;
    return instance_next_function(instance, name);
}
