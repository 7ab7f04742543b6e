/* Issue 26's spike, step 3: a host Vulkan layer under Wine 8 + DXVK (never shipped).
 *
 * Enabled as an explicit layer (VK_LAYER_PATH=<dir of dxcl_spike_layer.json>,
 * VK_INSTANCE_LAYERS=VK_LAYER_DXCL_spike), it sits between winevulkan's host side and the
 * driver, so it sees DXVK's vkCreateDevice as the host loader gets it. It:
 * - adds VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd to each device the driver
 *   offers them on (winevulkan 8 hides them from PE code, so DXVK cannot ask for them);
 * - records the handle of every image of the twin's size, to compare with what DXVK's
 *   IDXGIVkInteropSurface hands PE code;
 * - creates one "twin" per device (DXCL_SPIKE_TWIN=WxH): an R8G8B8A8 optimal image with
 *   dedicated memory exportable as an opaque fd, exported at once.
 * Everything goes to DXCL_SPIKE_LAYER_OUT (default /tmp/dxcl-spike-layer.txt), one line each,
 * where the Windows side of the spike (d3d11_twin.c) reads the twin's handle and fd.
 *
 * Build: tools/spike/build.sh (host gcc). A spike: one instance and a few devices at a time. */
#define _GNU_SOURCE
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The dispatch of a dispatchable handle is its first pointer; keyed by it. */
static void *key_of(const void *handle)
{
    return *(void *const *)handle;
}

struct instance_rec {
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
};
struct device_rec {
    void *key;
    VkDevice device;
    PFN_vkGetDeviceProcAddr gdpa;
};
static struct instance_rec instances[16];
static struct device_rec devices[16];

static void note(const char *fmt, ...)
{
    const char *path = getenv("DXCL_SPIKE_LAYER_OUT");
    FILE *f = fopen(path ? path : "/tmp/dxcl-spike-layer.txt", "a");
    va_list ap;

    if (!f)
        return;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

static struct instance_rec *last_instance(void)
{
    for (int i = 15; i >= 0; i--)
        if (instances[i].key)
            return &instances[i];
    return NULL;
}

static PFN_vkGetDeviceProcAddr device_gdpa(const void *handle)
{
    void *key = key_of(handle);
    PFN_vkGetDeviceProcAddr gdpa = NULL;

    pthread_mutex_lock(&lock);
    for (int i = 0; i < 16; i++)
        if (devices[i].key == key)
            gdpa = devices[i].gdpa;
    pthread_mutex_unlock(&lock);
    return gdpa;
}

static PFN_vkGetInstanceProcAddr instance_gipa(const void *handle)
{
    void *key = key_of(handle);
    PFN_vkGetInstanceProcAddr gipa = NULL;

    pthread_mutex_lock(&lock);
    for (int i = 0; i < 16; i++)
        if (instances[i].key == key)
            gipa = instances[i].gipa;
    pthread_mutex_unlock(&lock);
    return gipa;
}

static VKAPI_ATTR VkResult VKAPI_CALL create_instance(const VkInstanceCreateInfo *info,
                                                      const VkAllocationCallbacks *alloc,
                                                      VkInstance *out)
{
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;

    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
                     link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance next = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult result = next(info, alloc, out);

    if (result != VK_SUCCESS)
        return result;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < 16; i++)
        if (!instances[i].key) {
            instances[i] = (struct instance_rec){key_of(*out), *out, gipa};
            break;
        }
    pthread_mutex_unlock(&lock);
    note("instance %p api 0x%x", (void *)*out,
         info->pApplicationInfo ? info->pApplicationInfo->apiVersion : 0);
    return result;
}

static bool has_extension(VkPhysicalDevice physical, PFN_vkGetInstanceProcAddr gipa,
                          VkInstance instance, const char *name)
{
    PFN_vkEnumerateDeviceExtensionProperties enumerate =
        (PFN_vkEnumerateDeviceExtensionProperties)gipa(instance,
                                                       "vkEnumerateDeviceExtensionProperties");
    uint32_t count = 0;
    bool found = false;

    if (!enumerate || enumerate(physical, NULL, &count, NULL) != VK_SUCCESS)
        return false;
    VkExtensionProperties *props = calloc(count, sizeof(*props));
    if (props && enumerate(physical, NULL, &count, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < count; i++)
            found |= !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

static bool enabled(const VkDeviceCreateInfo *info, const char *name)
{
    for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
        if (!strcmp(info->ppEnabledExtensionNames[i], name))
            return true;
    return false;
}

static int32_t memory_type(VkPhysicalDevice physical, PFN_vkGetInstanceProcAddr gipa,
                           VkInstance instance, uint32_t bits, VkMemoryPropertyFlags want)
{
    PFN_vkGetPhysicalDeviceMemoryProperties get = (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(
        instance, "vkGetPhysicalDeviceMemoryProperties");
    VkPhysicalDeviceMemoryProperties props;

    get(physical, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want)
            return (int32_t)i;
    return -1;
}

/* The twin: an exportable optimal R8G8B8A8 image with dedicated memory, its fd exported. */
static void make_twin(VkDevice device, VkPhysicalDevice physical, PFN_vkGetDeviceProcAddr gdpa,
                      PFN_vkGetInstanceProcAddr gipa, VkInstance instance)
{
    const char *size = getenv("DXCL_SPIKE_TWIN");
    unsigned width, height;

    if (!size || sscanf(size, "%ux%u", &width, &height) != 2)
        return;
    PFN_vkCreateImage create_image = (PFN_vkCreateImage)gdpa(device, "vkCreateImage");
    PFN_vkGetImageMemoryRequirements requirements =
        (PFN_vkGetImageMemoryRequirements)gdpa(device, "vkGetImageMemoryRequirements");
    PFN_vkAllocateMemory allocate = (PFN_vkAllocateMemory)gdpa(device, "vkAllocateMemory");
    PFN_vkBindImageMemory bind = (PFN_vkBindImageMemory)gdpa(device, "vkBindImageMemory");
    PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)gdpa(device, "vkGetMemoryFdKHR");
    const VkExternalMemoryHandleTypeFlagBits opaque_fd =
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalMemoryImageCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO, .handleTypes = opaque_fd};
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                              .pNext = &external,
                              .imageType = VK_IMAGE_TYPE_2D,
                              .format = VK_FORMAT_R8G8B8A8_UNORM,
                              .extent = {width, height, 1},
                              .mipLevels = 1,
                              .arrayLayers = 1,
                              .samples = VK_SAMPLE_COUNT_1_BIT,
                              .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                       VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT,
                              .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkImage image;
    VkDeviceMemory memory;
    VkMemoryRequirements req;
    VkResult result;
    int fd = -1;

    if (!get_fd) {
        note("twin: no vkGetMemoryFdKHR on device %p", (void *)device);
        return;
    }
    if ((result = create_image(device, &info, NULL, &image))) {
        note("twin: vkCreateImage %d", result);
        return;
    }
    requirements(device, image, &req);
    int32_t type = memory_type(physical, gipa, instance, req.memoryTypeBits,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0)
        type = memory_type(physical, gipa, instance, req.memoryTypeBits, 0);
    VkMemoryDedicatedAllocateInfo dedicated = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .image = image};
    VkExportMemoryAllocateInfo export_info = {.sType =
                                                  VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                              .pNext = &dedicated,
                                              .handleTypes = opaque_fd};
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                  .pNext = &export_info,
                                  .allocationSize = req.size,
                                  .memoryTypeIndex = (uint32_t)type};
    if ((result = allocate(device, &alloc, NULL, &memory))) {
        note("twin: vkAllocateMemory %" PRIu64 " B type %d: %d", (uint64_t)req.size, type, result);
        return;
    }
    if ((result = bind(device, image, memory, 0))) {
        note("twin: vkBindImageMemory %d", result);
        return;
    }
    VkMemoryGetFdInfoKHR fd_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                    .memory = memory,
                                    .handleType = opaque_fd};
    if ((result = get_fd(device, &fd_info, &fd))) {
        note("twin: vkGetMemoryFdKHR %d", result);
        return;
    }
    note("twin image=0x%" PRIx64 " fd=%d size=%" PRIu64 " type=%d width=%u height=%u device=%p",
         (uint64_t)image, fd, (uint64_t)req.size, type, width, height, (void *)device);
}

static VKAPI_ATTR VkResult VKAPI_CALL create_device(VkPhysicalDevice physical,
                                                    const VkDeviceCreateInfo *info,
                                                    const VkAllocationCallbacks *alloc,
                                                    VkDevice *out)
{
    static const char *const wanted[] = {"VK_KHR_external_memory_fd",
                                         "VK_KHR_external_semaphore_fd"};
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;

    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
                     link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    struct instance_rec *inst = last_instance();
    VkInstance instance = inst ? inst->instance : VK_NULL_HANDLE;
    PFN_vkCreateDevice next = (PFN_vkCreateDevice)gipa(instance, "vkCreateDevice");

    /* The program's list plus what the driver offers of the two. */
    const char **names = calloc(info->enabledExtensionCount + 2, sizeof(*names));
    VkDeviceCreateInfo changed = *info;
    char added[256] = "";
    if (!names)
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(names, info->ppEnabledExtensionNames, info->enabledExtensionCount * sizeof(*names));
    changed.ppEnabledExtensionNames = names;
    for (size_t i = 0; i < 2; i++) {
        bool offered = has_extension(physical, inst ? inst->gipa : gipa, instance, wanted[i]);
        if (offered && !enabled(info, wanted[i])) {
            names[changed.enabledExtensionCount++] = wanted[i];
            strncat(added, " ", sizeof(added) - strlen(added) - 1);
            strncat(added, wanted[i], sizeof(added) - strlen(added) - 1);
        } else if (!offered) {
            strncat(added, " (not offered: ", sizeof(added) - strlen(added) - 1);
            strncat(added, wanted[i], sizeof(added) - strlen(added) - 1);
            strncat(added, ")", sizeof(added) - strlen(added) - 1);
        }
    }
    VkResult result = next(physical, &changed, alloc, out);
    free(names);
    if (result != VK_SUCCESS) {
        note("device: vkCreateDevice with%s: %d", added, result);
        return result;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < 16; i++)
        if (!devices[i].key) {
            devices[i] = (struct device_rec){key_of(*out), *out, gdpa};
            break;
        }
    pthread_mutex_unlock(&lock);
    note("device %p physical %p: %u extensions asked, added:%s", (void *)*out, (void *)physical,
         info->enabledExtensionCount, added);
    make_twin(*out, physical, gdpa, inst ? inst->gipa : gipa, instance);
    return result;
}

static VKAPI_ATTR void VKAPI_CALL destroy_device(VkDevice device,
                                                 const VkAllocationCallbacks *alloc)
{
    PFN_vkGetDeviceProcAddr gdpa = device_gdpa(device);
    void *key = key_of(device);

    pthread_mutex_lock(&lock);
    for (int i = 0; i < 16; i++)
        if (devices[i].key == key)
            devices[i].key = NULL;
    pthread_mutex_unlock(&lock);
    if (gdpa)
        ((PFN_vkDestroyDevice)gdpa(device, "vkDestroyDevice"))(device, alloc);
}

/* Images of the twin's size: their host handles, to compare with DXVK's interop answer. */
static VKAPI_ATTR VkResult VKAPI_CALL create_image(VkDevice device, const VkImageCreateInfo *info,
                                                   const VkAllocationCallbacks *alloc, VkImage *out)
{
    PFN_vkGetDeviceProcAddr gdpa = device_gdpa(device);
    VkResult result = ((PFN_vkCreateImage)gdpa(device, "vkCreateImage"))(device, info, alloc, out);
    const char *size = getenv("DXCL_SPIKE_TWIN");
    unsigned width, height;

    if (result == VK_SUCCESS && size && sscanf(size, "%ux%u", &width, &height) == 2 &&
        info->extent.width == width && info->extent.height == height)
        note("image 0x%" PRIx64 " format %d tiling %d usage 0x%x", (uint64_t)*out, info->format,
             info->tiling, info->usage);
    return result;
}

static PFN_vkVoidFunction own_function(const char *name)
{
    if (!strcmp(name, "vkCreateInstance"))
        return (PFN_vkVoidFunction)create_instance;
    if (!strcmp(name, "vkCreateDevice"))
        return (PFN_vkVoidFunction)create_device;
    if (!strcmp(name, "vkDestroyDevice"))
        return (PFN_vkVoidFunction)destroy_device;
    if (!strcmp(name, "vkCreateImage"))
        return (PFN_vkVoidFunction)create_image;
    return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_spike_GetDeviceProcAddr(VkDevice device,
                                                                             const char *name)
{
    PFN_vkVoidFunction own = own_function(name);
    PFN_vkGetDeviceProcAddr gdpa;

    if (own && strcmp(name, "vkCreateInstance") && strcmp(name, "vkCreateDevice"))
        return own;
    gdpa = device_gdpa(device);
    return gdpa ? gdpa(device, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL dxcl_spike_GetInstanceProcAddr(VkInstance instance,
                                                                               const char *name)
{
    PFN_vkVoidFunction own = own_function(name);
    PFN_vkGetInstanceProcAddr gipa;

    if (!strcmp(name, "vkGetDeviceProcAddr"))
        return (PFN_vkVoidFunction)dxcl_spike_GetDeviceProcAddr;
    if (!strcmp(name, "vkGetInstanceProcAddr"))
        return (PFN_vkVoidFunction)dxcl_spike_GetInstanceProcAddr;
    if (own)
        return own;
    if (!instance)
        return NULL;
    gipa = instance_gipa(instance);
    return gipa ? gipa(instance, name) : NULL;
}
