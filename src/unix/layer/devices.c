/* Devices made and destroyed (layer.h): the layer's hooks of vkCreateDevice and vkDestroyDevice,
 * which record each device in records.c and, where dxcl may share, add the external memory and
 * semaphore extensions and follow its queues; and dxcl_layer_share, where sharing starts on a
 * device. Above every other file of the layer: a device's end frees what they keep of it. */
#define _GNU_SOURCE
#include "twins.h"

#include <dlfcn.h>

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

/* Whether dxcl may share in this process: its Unix side is loaded (DXCL_LAYER_MODE=share or passive
 * decides instead). A device made before dxcl's OpenCL.dll loads its Unix side stays passive. */
static bool process_may_share(void)
{
    const char *setting = dxcl_host_setting("DXCL_LAYER_MODE");
    void *unix_side;

    if (setting && !strcmp(setting, "share"))
        return true;
    if (setting && !strcmp(setting, "passive"))
        return false;
    if (!(unix_side = dlopen(DXCL_UNIX_SONAME, RTLD_NOW | RTLD_NOLOAD)))
        return false;
    dlclose(unix_side);
    return true;
}

/* The physical device's facts a twin needs: memory types, format support, deviceUUID. */
static void describe_physical(struct device *device, const struct instance_rec *instance)
{
    PFN_vkGetInstanceProcAddr gipa = instance->gipa;
    PFN_vkGetPhysicalDeviceMemoryProperties memory = (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(
        instance->instance, "vkGetPhysicalDeviceMemoryProperties");
    PFN_vkGetPhysicalDeviceProperties2 properties2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(
        instance->instance, "vkGetPhysicalDeviceProperties2");
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};

    device->format_properties = (PFN_vkGetPhysicalDeviceFormatProperties)gipa(
        instance->instance, "vkGetPhysicalDeviceFormatProperties");
    device->image_format_properties2 = (PFN_vkGetPhysicalDeviceImageFormatProperties2)gipa(
        instance->instance, "vkGetPhysicalDeviceImageFormatProperties2");
    if (memory)
        memory(device->physical, &device->memory);
    if (properties2) {
        properties2(device->physical, &properties);
        memcpy(device->uuid, id.deviceUUID, sizeof(device->uuid));
    }
}

/* A device function, or its KHR form (a 1.0 device that has the extension). */
static PFN_vkVoidFunction device_function_or_khr(struct device *device, const char *name)
{
    char khr[64];
    PFN_vkVoidFunction function = device->gdpa(device->handle, name);

    if (function)
        return function;
    snprintf(khr, sizeof(khr), "%sKHR", name);
    return device->gdpa(device->handle, khr);
}

#define DEVICE_FN(device, type, field)                                                             \
    ((device)->vk.field = (PFN_##type)device_function_or_khr(device, #type))

static void resolve_functions(struct device *device)
{
    DEVICE_FN(device, vkGetDeviceQueue, get_queue);
    DEVICE_FN(device, vkCreateImage, create_image);
    DEVICE_FN(device, vkDestroyImage, destroy_image);
    DEVICE_FN(device, vkGetImageMemoryRequirements, requirements);
    DEVICE_FN(device, vkGetImageMemoryRequirements2, requirements2);
    DEVICE_FN(device, vkAllocateMemory, allocate);
    DEVICE_FN(device, vkFreeMemory, free_memory);
    DEVICE_FN(device, vkBindImageMemory, bind);
    DEVICE_FN(device, vkMapMemory, map);
    DEVICE_FN(device, vkGetImageSubresourceLayout, subresource_layout);
    DEVICE_FN(device, vkCreateSemaphore, create_semaphore);
    DEVICE_FN(device, vkDestroySemaphore, destroy_semaphore);
    DEVICE_FN(device, vkSignalSemaphore, signal_semaphore);
    DEVICE_FN(device, vkWaitSemaphores, wait_semaphores);
    DEVICE_FN(device, vkQueueSubmit, submit);
    device->vk.submit2 = (PFN_vkQueueSubmit2)device->gdpa(device->handle, "vkQueueSubmit2");
    device->vk.submit2_khr = (PFN_vkQueueSubmit2)device->gdpa(device->handle, "vkQueueSubmit2KHR");
    DEVICE_FN(device, vkQueueBindSparse, bind_sparse);
    DEVICE_FN(device, vkCreateCommandPool, create_pool);
    DEVICE_FN(device, vkDestroyCommandPool, destroy_pool);
    DEVICE_FN(device, vkAllocateCommandBuffers, allocate_buffers);
    DEVICE_FN(device, vkResetCommandBuffer, reset_buffer);
    DEVICE_FN(device, vkBeginCommandBuffer, begin);
    DEVICE_FN(device, vkEndCommandBuffer, end);
    DEVICE_FN(device, vkCmdPipelineBarrier, barrier);
    DEVICE_FN(device, vkCmdCopyImage, copy_image);
}

static void remember_queues(struct device *device, const VkDeviceCreateInfo *info)
{
    for (uint32_t i = 0; i < info->queueCreateInfoCount && device->queue_family_count < 16; i++) {
        device->queue_families[device->queue_family_count] =
            info->pQueueCreateInfos[i].queueFamilyIndex;
        device->queue_counts[device->queue_family_count++] = info->pQueueCreateInfos[i].queueCount;
    }
}

/* The program's create info with the fd export extensions the driver offers added (a 1.0
 * device would need VK_KHR_external_memory and more: it gets none). `names` holds room for
 * two more. */
static VkDeviceCreateInfo with_fd_extensions(VkPhysicalDevice physical,
                                             const struct instance_rec *instance,
                                             const VkDeviceCreateInfo *info, const char **names)
{
    static const char *const wanted[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                         VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
    VkDeviceCreateInfo changed = *info;

    if (info->enabledExtensionCount)
        memcpy(names, info->ppEnabledExtensionNames, info->enabledExtensionCount * sizeof(*names));
    changed.ppEnabledExtensionNames = names;
    for (size_t i = 0; i < 2 && api_1_1(physical, instance); i++)
        if (!asks_extension(info, wanted[i]) && offers_extension(physical, instance, wanted[i]))
            names[changed.enabledExtensionCount++] = wanted[i];
    return changed;
}

/* The record of a device the program made: passive, or ready to share. */
static void record_device(struct device *device, const struct instance_rec *instance,
                          const VkDeviceCreateInfo *made_with)
{
    pthread_rwlock_init(&device->alive, NULL);
    pthread_mutex_init(&device->submit_lock, NULL);
    images_init(&device->images);
    /* Resolved for a passive device too: a hook reached some other way still calls down. */
    resolve_functions(device);
    if (!device->may_share)
        return;
    device->memory_fd = asks_extension(made_with, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    device->semaphore_fd = asks_extension(made_with, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    if (device->memory_fd)
        device->vk.get_memory_fd =
            (PFN_vkGetMemoryFdKHR)device->gdpa(device->handle, "vkGetMemoryFdKHR");
    if (device->semaphore_fd)
        device->vk.get_semaphore_fd =
            (PFN_vkGetSemaphoreFdKHR)device->gdpa(device->handle, "vkGetSemaphoreFdKHR");
    describe_physical(device, instance);
    remember_queues(device, made_with);
    device->progress = dxcl_progress_new(device->handle, device->gdpa, made_with);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_create_device(VkPhysicalDevice physical,
                                                  const VkDeviceCreateInfo *info,
                                                  const VkAllocationCallbacks *alloc, VkDevice *out)
{
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
    struct device *device = calloc(1, sizeof(*device));
    const char **names = calloc(info->enabledExtensionCount + 2, sizeof(*names));
    VkDeviceCreateInfo changed = *info;
    VkResult result;

    if (!next)
        return VK_ERROR_INITIALIZATION_FAILED;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    if (!device || !names) { /* the layer cannot follow it: the program's device as it asked */
        free(device), free(names);
        return next(physical, info, alloc, out);
    }
    device->may_share = process_may_share();
    if (device->may_share)
        changed = with_fd_extensions(physical, instance, info, names);
    result = next(physical, &changed, alloc, out);
    if (result != VK_SUCCESS && changed.enabledExtensionCount != info->enabledExtensionCount) {
        layer_note("vkCreateDevice with the fd export extensions: %d; the program's as it asked",
                   result);
        changed = *info;
        result = next(physical, &changed, alloc, out);
    }
    if (result != VK_SUCCESS) {
        free(device), free(names);
        return result;
    }
    device->key = key_of(*out);
    device->handle = *out;
    device->physical = physical;
    device->gdpa = gdpa;
    device->set_loader_data = loader_data ? loader_data->u.pfnSetDeviceLoaderData : NULL;
    device->vk.destroy_device = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
    record_device(device, instance, &changed);
    free(names);
    if (!device_record(device))
        device->may_share = false; /* unrecorded: its calls find no record and go straight on */
    layer_note("device %p (id %" PRIu64 "): %s%s%s%s", (void *)*out, device->id,
               device->may_share ? "dxcl may share" : "passive (no dxcl in the process)",
               device->may_share && device->memory_fd ? ", external memory fd" : "",
               device->may_share && device->semaphore_fd ? ", external semaphore fd" : "",
               device->may_share && device->progress ? ", its queues followed once it shares" : "");
    return result;
}

VKAPI_ATTR void VKAPI_CALL hook_destroy_device(VkDevice handle, const VkAllocationCallbacks *alloc)
{
    struct device *device = handle ? device_of(key_of(handle)) : NULL;
    PFN_vkDestroyDevice destroy;

    if (!device || atomic_exchange(&device->gone, true))
        return;
    /* dxcl's calls on it end first; later ones find it destroyed. */
    pthread_rwlock_wrlock(&device->alive);
    device->destroyed = true;
    pthread_rwlock_unlock(&device->alive);
    if (device->may_share) { /* the program waited for the device to be idle (Vulkan's rule) */
        twins_forget_device(device);
        graves_visit(device, true);
        rings_free(device);
        dxcl_progress_free(device->progress);
        device->progress = NULL;
    }
    images_free(&device->images);
    destroy = device->vk.destroy_device;
    layer_note("device %p (id %" PRIu64 ") destroyed", (void *)handle, device->id);
    if (destroy)
        destroy(handle, alloc);
    /* The record stays: a call on another device may be reading it. */
}

/* ---- Sharing starts ---- */

static bool made_image(struct device *device, void *image)
{
    struct image_slot slot;

    return images_lookup(device, *(const uint64_t *)image, &slot);
}

EXPORT int32_t dxcl_layer_share(void *params)
{
    struct dxcl_layer_share *share = params;
    struct device *device = device_find(made_image, &share->image);

    memset(&share->error, 0, sizeof(share->error));
    if (!device)
        return layer_fail(&share->error, -1,
                          "no device where dxcl may share made image 0x%" PRIx64
                          " (made before dxcl's Unix side was loaded, or DXCL_LAYER_MODE=passive)",
                          share->image);
    if (!atomic_load(&device->sharing)) {
        VkQueue queues[64];
        uint32_t count = 0;

        for (uint32_t f = 0; f < device->queue_family_count; f++)
            for (uint32_t i = 0; i < device->queue_counts[f] && count < 64; i++)
                if ((queues[count] = device_queue(device, device->queue_families[f], i)))
                    count++;
        dxcl_progress_start(device->progress, queues, count);
    }
    if (!atomic_exchange(&device->sharing, true))
        layer_note("device %p (id %" PRIu64 "): sharing starts: larger shader-resource images "
                   "made from now on are exportable",
                   (void *)device->handle, device->id);
    share->device = device->id;
    memcpy(share->uuid, device->uuid, sizeof(share->uuid));
    share->semaphore_export = device->semaphore_fd && device->vk.get_semaphore_fd;
    device_put(device);
    return 0;
}
