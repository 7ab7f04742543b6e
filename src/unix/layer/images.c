/* The images each device made (layer.h), and the hooks that make DXVK's larger shader-resource
 * images exportable with dedicated memory for direct twins (core/twin.h). */
#define _GNU_SOURCE
#include "layer.h"

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
bool images_lookup(uint64_t image, struct image_slot *out)
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
void images_forget_device(struct device_rec *device)
{
    pthread_mutex_lock(&images_lock);
    for (size_t i = 0; i < image_capacity;)
        if (image_slots[i].image && image_slots[i].device == device)
            images_clear_slot(i); /* a later entry may have moved into i: look again */
        else
            i++;
    pthread_mutex_unlock(&images_lock);
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

VKAPI_ATTR VkResult VKAPI_CALL create_image(VkDevice device, const VkImageCreateInfo *info,
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
VKAPI_ATTR void VKAPI_CALL image_requirements2(VkDevice device,
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
VKAPI_ATTR VkResult VKAPI_CALL allocate_memory(VkDevice device, const VkMemoryAllocateInfo *info,
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

VKAPI_ATTR void VKAPI_CALL destroy_image(VkDevice device, VkImage image,
                                         const VkAllocationCallbacks *alloc)
{
    struct device_rec *rec = find_device_by(key_of(device), VK_NULL_HANDLE);

    if (image)
        images_remove((uint64_t)image);
    if (rec)
        rec->destroy_image(device, image, alloc);
}
