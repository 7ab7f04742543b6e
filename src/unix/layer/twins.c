/* Twins made, exported and freed for dxclunix.so (core/twin.h): ordinary twins on the device of
 * a program's image, and direct twins, the program's image itself. */
#define _GNU_SOURCE
#include "layer.h"

/* The twins (core/twin.h). */

int32_t fail(struct dxcl_twin *twin, int32_t result, const char *format, ...)
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
bool direct_alive(const struct dxcl_twin *twin)
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

int32_t export_semaphore(struct dxcl_twin *twin, const struct device_rec *rec, uint64_t semaphore,
                         struct dxcl_twin_sync *sync)
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
