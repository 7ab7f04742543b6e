/* The layer's records of instances and devices (layer.h): made at vkCreateInstance and
 * vkCreateDevice, where the layer also adds the fd export extensions, and found by dispatch key. */
#define _GNU_SOURCE
#include "layer.h"

void note(const char *format, ...)
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

/* Instances and devices are few: lists under one lock. */
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static struct instance_rec *instances;
static struct device_rec *devices;

/* The instance of `key`; for a physical device whose key is not its instance's (the loader
 * gives them the same one), the newest instance rather than failing the program's call. */
struct instance_rec *find_instance(void *key, bool or_newest)
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

struct device_rec *find_device_by(void *key, VkDevice device)
{
    struct device_rec *rec;

    pthread_mutex_lock(&records_lock);
    for (rec = devices; rec && (key ? rec->key != key : rec->device != device); rec = rec->next)
        ;
    pthread_mutex_unlock(&records_lock);
    return rec;
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

VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                               const VkAllocationCallbacks *alloc, VkInstance *out)
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

VKAPI_ATTR void VKAPI_CALL destroy_instance(VkInstance instance, const VkAllocationCallbacks *alloc)
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

VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice physical,
                                             const VkDeviceCreateInfo *info,
                                             const VkAllocationCallbacks *alloc, VkDevice *out)
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

VKAPI_ATTR void VKAPI_CALL destroy_device(VkDevice device, const VkAllocationCallbacks *alloc)
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
