/* The images each device where dxcl may share made (layer.h: a table per device), and the hooks
 * that make DXVK's larger shader-resource images exportable with dedicated memory for direct
 * twins (core/twin.h) once sharing started on the device. Before, an image and its memory are
 * exactly what the program asked for. */
#define _GNU_SOURCE
#include "layer.h"

static size_t image_home(uint64_t image, size_t capacity)
{
    return (size_t)((image * 0x9E3779B97F4A7C15ull) >> 17) & (capacity - 1);
}

static void slots_put(struct image_slot *slots, size_t capacity, const struct image_slot *slot)
{
    size_t i = image_home(slot->image, capacity);

    while (slots[i].image && slots[i].image != slot->image)
        i = (i + 1) & (capacity - 1);
    slots[i] = *slot;
}

static bool table_grow(struct image_table *table)
{
    size_t capacity = table->capacity ? table->capacity * 2 : 256;
    struct image_slot *slots = calloc(capacity, sizeof(*slots));

    if (!slots)
        return false;
    for (size_t i = 0; i < table->capacity; i++)
        if (table->slots[i].image)
            slots_put(slots, capacity, &table->slots[i]);
    free(table->slots);
    table->slots = slots;
    table->capacity = capacity;
    return true;
}

/* The slot of `image`, or of the empty place for it; the caller holds the lock and the table
 * has room. */
static struct image_slot *table_slot(struct image_table *table, uint64_t image)
{
    size_t i = image_home(image, table->capacity);

    while (table->slots[i].image && table->slots[i].image != image)
        i = (i + 1) & (table->capacity - 1);
    return &table->slots[i];
}

void images_init(struct image_table *table)
{
    pthread_mutex_init(&table->lock, NULL);
}

void images_free(struct image_table *table)
{
    pthread_mutex_lock(&table->lock);
    free(table->slots);
    table->slots = NULL;
    table->capacity = table->count = 0;
    pthread_mutex_unlock(&table->lock);
}

static void images_add(struct image_table *table, const struct image_slot *slot)
{
    pthread_mutex_lock(&table->lock);
    if ((table->count + 1) * 4 <= table->capacity * 3 || table_grow(table)) {
        struct image_slot *place = table_slot(table, slot->image);

        table->count += !place->image; /* a reused handle replaces its stale entry */
        *place = *slot;
    }
    pthread_mutex_unlock(&table->lock);
}

bool images_lookup(struct device *device, uint64_t image, struct image_slot *out)
{
    struct image_table *table = &device->images;
    bool found = false;

    pthread_mutex_lock(&table->lock);
    if (table->capacity && image) {
        struct image_slot *slot = table_slot(table, image);

        if ((found = slot->image != 0))
            *out = *slot;
    }
    pthread_mutex_unlock(&table->lock);
    return found;
}

/* An exportable image's dedicated memory (0: its export was refused: no direct twin of it). */
static void images_set_memory(struct image_table *table, uint64_t image, uint64_t memory,
                              uint64_t size)
{
    pthread_mutex_lock(&table->lock);
    if (table->capacity) {
        struct image_slot *slot = table_slot(table, image);

        if (slot->image && slot->exportable) {
            slot->memory = memory;
            slot->size = size;
        }
    }
    pthread_mutex_unlock(&table->lock);
}

/* Empties slot i and moves later entries of its run back where their probe can find them. */
static void table_clear_slot(struct image_table *table, size_t i)
{
    size_t mask = table->capacity - 1;

    table->slots[i].image = 0;
    table->count--;
    for (size_t j = (i + 1) & mask; table->slots[j].image; j = (j + 1) & mask) {
        size_t home = image_home(table->slots[j].image, table->capacity);

        /* j's entry may move to i when its home is not within (i, j] cyclically. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            table->slots[i] = table->slots[j];
            table->slots[j].image = 0;
            i = j;
        }
    }
}

static void images_remove(struct image_table *table, uint64_t image)
{
    pthread_mutex_lock(&table->lock);
    if (table->capacity) {
        size_t i = image_home(image, table->capacity);

        while (table->slots[i].image && table->slots[i].image != image)
            i = (i + 1) & (table->capacity - 1);
        if (table->slots[i].image)
            table_clear_slot(table, i);
    }
    pthread_mutex_unlock(&table->lock);
}

/* The least width x height of the images made exportable for direct twins; 0: none
 * (DXCL_GPU_DIRECT=0). DXCL_GPU_DIRECT=all: every size (for tests). */
static uint64_t direct_min_pixels(void)
{
    const char *setting = dxcl_host_setting("DXCL_GPU_DIRECT");

    if (setting && !strcmp(setting, "0"))
        return 0;
    return setting && !strcmp(setting, "all") ? 1 : DXCL_TWIN_DIRECT_MIN_PIXELS;
}

/* Whether the driver can export the image's memory as an opaque fd. */
static bool exportable(const struct device *device, const VkImageCreateInfo *info)
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

    return device->image_format_properties2 &&
           device->image_format_properties2(device->physical, &format, &properties) == VK_SUCCESS &&
           (answer.externalMemoryProperties.externalMemoryFeatures &
            VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT);
}

/* An image a direct twin may be made of: one 2D colour subresource, optimal, not sparse, large
 * enough, not already external, exportable, and a shader resource only (no attachment, no
 * storage): NVIDIA keeps a render target's clears where its OpenCL import does not look
 * (test_gpu_path on the H100: after a clear, every pixel differed both ways, with storage usage
 * too and with the ownership moved to the external queue family), and storage images were
 * never shown exact on the H100, where shader resources were (every D3D11 suite). */
static bool direct_candidate(const struct device *device, const VkImageCreateInfo *info)
{
    const VkImageCreateFlags unsuitable = VK_IMAGE_CREATE_SPARSE_BINDING_BIT |
                                          VK_IMAGE_CREATE_SPARSE_RESIDENCY_BIT |
                                          VK_IMAGE_CREATE_SPARSE_ALIASED_BIT |
                                          VK_IMAGE_CREATE_DISJOINT_BIT | VK_IMAGE_CREATE_ALIAS_BIT;
    const VkImageUsageFlags unproven =
        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
        VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
    uint64_t least = direct_min_pixels();

    if (!least || !device->memory_fd || !device->vk.get_memory_fd)
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
        layer_chained(info->pNext, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO))
        return false;
    return exportable(device, info);
}

/* The hooks below are handed out only for devices where dxcl may share (dxcl_vk_layer.c), whose
 * records outlive them: device_of finds the record for any call the program may make, even on a
 * destroyed device (the program's error), which then goes down to the driver as made. Only a
 * device the layer never recorded has none: it was never handed these hooks. */
static struct device *hooked(VkDevice handle)
{
    struct device *device = device_of(key_of(handle));

    if (!device)
        layer_note("a call on device %p, which the layer does not know (destroyed?)",
                   (void *)handle);
    return device;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_create_image(VkDevice handle, const VkImageCreateInfo *info,
                                                 const VkAllocationCallbacks *alloc, VkImage *out)
{
    static atomic_uint_fast64_t serials;
    struct device *device = hooked(handle);
    VkExternalMemoryImageCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
        .pNext = info->pNext,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkImageCreateInfo changed = *info;
    struct image_slot slot = {0};
    VkResult result;

    if (!device)
        return VK_ERROR_DEVICE_LOST;
    if (atomic_load_explicit(&device->sharing, memory_order_relaxed) &&
        (slot.exportable = direct_candidate(device, info))) {
        changed.pNext = &external;
        slot.concurrent = info->sharingMode == VK_SHARING_MODE_CONCURRENT;
        slot.serial = atomic_fetch_add(&serials, 1) + 1;
    }
    result = device->vk.create_image(handle, &changed, alloc, out);
    if (result != VK_SUCCESS && slot.exportable) { /* as the program asked, then */
        slot.exportable = false;
        result = device->vk.create_image(handle, info, alloc, out);
    }
    slot.image = result == VK_SUCCESS ? (uint64_t)*out : 0;
    if (slot.image && !atomic_load_explicit(&device->gone, memory_order_relaxed))
        images_add(&device->images, &slot);
    return result;
}

/* An exportable image asks for memory of its own: DXVK then allocates it dedicated (it honours
 * requiresDedicatedAllocation), where nothing else shares the memory OpenCL imports, and its
 * defragmentation never moves it (it moves only suballocations). */
VKAPI_ATTR void VKAPI_CALL hook_image_requirements2(VkDevice handle,
                                                    const VkImageMemoryRequirementsInfo2 *info,
                                                    VkMemoryRequirements2 *out)
{
    struct device *device = hooked(handle);
    VkMemoryDedicatedRequirements *dedicated;
    struct image_slot slot;

    if (!device || !device->vk.requirements2)
        return;
    device->vk.requirements2(handle, info, out);
    if (!atomic_load_explicit(&device->sharing, memory_order_relaxed) ||
        !images_lookup(device, (uint64_t)info->image, &slot) || !slot.exportable)
        return;
    dedicated = (VkMemoryDedicatedRequirements *)layer_chained(
        out->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
    if (dedicated)
        dedicated->requiresDedicatedAllocation = dedicated->prefersDedicatedAllocation = VK_TRUE;
}

/* The dedicated memory of an exportable image is made exportable, and remembered; where the
 * driver refuses that, the memory is what the program asked for, and the image no candidate. */
VKAPI_ATTR VkResult VKAPI_CALL hook_allocate_memory(VkDevice handle,
                                                    const VkMemoryAllocateInfo *info,
                                                    const VkAllocationCallbacks *alloc,
                                                    VkDeviceMemory *out)
{
    struct device *device = hooked(handle);
    const VkMemoryDedicatedAllocateInfo *dedicated =
        layer_chained(info->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
    VkExportMemoryAllocateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
        .pNext = info->pNext,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo changed = *info;
    struct image_slot slot;
    VkResult result;
    bool exported;

    if (!device)
        return VK_ERROR_DEVICE_LOST;
    if (!dedicated || !dedicated->image ||
        !atomic_load_explicit(&device->sharing, memory_order_relaxed) ||
        !images_lookup(device, (uint64_t)dedicated->image, &slot) || !slot.exportable ||
        layer_chained(info->pNext, VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO))
        return device->vk.allocate(handle, info, alloc, out);
    changed.pNext = &export_info;
    /* DXCL_LAYER_FAULT=export_memory: the export refused, as a driver may (for the tests). */
    result = layer_fault("export_memory") ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                          : device->vk.allocate(handle, &changed, alloc, out);
    exported = result == VK_SUCCESS;
    if (!exported) {
        layer_note("image 0x%" PRIx64 ": exportable memory refused (%d): allocated as asked",
                   (uint64_t)dedicated->image, result);
        result = device->vk.allocate(handle, info, alloc, out);
    }
    images_set_memory(&device->images, (uint64_t)dedicated->image, exported ? (uint64_t)*out : 0,
                      info->allocationSize);
    return result;
}

/* A direct twin's image destroyed while a batch of the layer's that used it may still run
 * (DXVK knows only its own): it goes to a grave after that batch, and so does its memory when
 * DXVK frees it. The program no longer sees the handle either way. */
static bool bury_in_use(struct device *device, VkImage image, const struct image_slot *slot)
{
    uint64_t last;

    if (!slot->exportable || !device->progress)
        return false;
    pthread_mutex_lock(&device->submit_lock);
    last = dxcl_progress_last_own(device->progress);
    pthread_mutex_unlock(&device->submit_lock);
    if (!last || dxcl_progress_reached(device->progress, last))
        return false;
    layer_note("image 0x%" PRIx64 " destroyed while a batch of the layer's may use it: freed "
               "after it",
               (uint64_t)image);
    graves_add(&(struct grave){
        .device = device, .after = last, .image = image, .bound = (VkDeviceMemory)slot->memory});
    return true;
}

VKAPI_ATTR void VKAPI_CALL hook_destroy_image(VkDevice handle, VkImage image,
                                              const VkAllocationCallbacks *alloc)
{
    struct device *device = hooked(handle);
    struct image_slot slot;

    if (!device)
        return;
    if (image && !atomic_load_explicit(&device->gone, memory_order_relaxed)) {
        bool known = images_lookup(device, (uint64_t)image, &slot);
        images_remove(&device->images, (uint64_t)image);
        if (known && bury_in_use(device, image, &slot))
            return;
    }
    device->vk.destroy_image(handle, image, alloc);
}

VKAPI_ATTR void VKAPI_CALL hook_free_memory(VkDevice handle, VkDeviceMemory memory,
                                            const VkAllocationCallbacks *alloc)
{
    struct device *device = hooked(handle);

    if (!device)
        return;
    if (graves_take_memory(device, memory))
        return;
    device->vk.free_memory(handle, memory, alloc);
}
