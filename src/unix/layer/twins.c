/* The twins (core/twin.h), owned by the layer and named by id: ordinary twins (an image and
 * dedicated memory of the layer's, on the device of the program's texture) and direct twins (the
 * program's image itself). A twin is reference-counted: the table holds one reference until dxcl
 * gives the twin up, each call one while it runs. Its Vulkan objects go to the graves when it is
 * given up, freed once the GPU is done with them. Each twin has a timeline semaphore of the
 * layer's for Direct3D's waits for OpenCL's releases, signalled from the host in order, each value
 * once it and every earlier one ended (here; told by releases.c). */
#define _GNU_SOURCE
#include "twins.h"

/* ---- The table: id -> twin ---- */

#define TWIN_BUCKETS 256
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct twin *buckets[TWIN_BUCKETS];
static uint64_t last_twin_id;

static struct twin **bucket_of(uint64_t id)
{
    return &buckets[id % TWIN_BUCKETS];
}

struct twin *twin_hold(uint64_t id, struct dxcl_layer_error *error)
{
    struct twin *twin;

    pthread_mutex_lock(&table_lock);
    for (twin = *bucket_of(id); twin && twin->id != id; twin = twin->next)
        ;
    if (twin)
        atomic_fetch_add(&twin->refs, 1);
    pthread_mutex_unlock(&table_lock);
    if (!twin)
        layer_fail(error, -1, "no twin %" PRIu64 " (given up, or never made)", id);
    return twin;
}

void twin_put(struct twin *twin)
{
    if (atomic_fetch_sub(&twin->refs, 1) != 1)
        return;
    pthread_mutex_destroy(&twin->lock);
    free(twin->outcomes);
    free(twin);
}

struct device *twin_device(const struct twin *twin)
{
    return twin->device;
}

static void table_add(struct twin *twin)
{
    pthread_mutex_lock(&table_lock);
    twin->id = ++last_twin_id;
    twin->next = *bucket_of(twin->id);
    *bucket_of(twin->id) = twin;
    pthread_mutex_unlock(&table_lock);
}

/* Takes the twin out of the table (its reference passes to the caller); false if it was not. */
static bool table_remove(struct twin *twin)
{
    struct twin **link;
    bool found = false;

    pthread_mutex_lock(&table_lock);
    for (link = bucket_of(twin->id); *link && *link != twin; link = &(*link)->next)
        ;
    if (*link) {
        *link = twin->next;
        found = true;
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* ---- Making a twin ---- */

/* A memory type of `bits` with all of `want`, or -1. */
static int32_t memory_type(const struct device *device, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < device->memory.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (device->memory.memoryTypes[i].propertyFlags & want) == want)
            return (int32_t)i;
    return -1;
}

/* The usage the format allows with `tiling`: transfers always, sampled and storage if offered;
 * 0 when it lacks the transfers. */
static VkImageUsageFlags twin_usage(const struct device *device, VkFormat format,
                                    VkImageTiling tiling)
{
    const VkFormatFeatureFlags transfers =
        VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    VkFormatProperties properties = {0};
    VkFormatFeatureFlags features;
    VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

    if (!device->format_properties)
        return 0;
    device->format_properties(device->physical, format, &properties);
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

/* What the layer accepts of a request: a colour format without planes or blocks, a 2D or 3D
 * extent Vulkan allows everywhere. */
static bool request_valid(const struct dxcl_twin_request *request)
{
    const uint32_t limit = 16384;

    if (request->format < VK_FORMAT_R4G4_UNORM_PACK8 ||
        request->format > VK_FORMAT_E5B9G9R9_UFLOAT_PACK32 || !request->width || !request->height ||
        request->width > limit || request->height > limit)
        return false;
    if (request->image_type == VK_IMAGE_TYPE_2D)
        return request->depth <= 1;
    return request->image_type == VK_IMAGE_TYPE_3D && request->depth && request->depth <= 2048;
}

static int32_t make_image(struct twin *twin, const struct dxcl_twin_request *request,
                          struct dxcl_layer_error *error)
{
    struct device *device = twin->device;
    VkImageTiling tiling = twin->host_visible ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL;
    VkFormat format = (VkFormat)request->format;
    VkImageUsageFlags usage = twin_usage(device, format, tiling);
    VkExternalMemoryImageCreateInfo external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                              .pNext = &external,
                              .imageType = (VkImageType)request->image_type,
                              .format = format,
                              .extent = {twin->width, twin->height, twin->depth},
                              .mipLevels = 1,
                              .arrayLayers = 1,
                              .samples = VK_SAMPLE_COUNT_1_BIT,
                              .tiling = tiling,
                              .usage = usage,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
                              .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkResult result;

    if (!usage)
        return layer_fail(error, -1, "the format %u has no %s transfer support", request->format,
                          twin->host_visible ? "linear host-visible" : "optimal");
    if ((result = device->vk.create_image(device->handle, &info, NULL, &twin->image)))
        return layer_fail(error, result, "vkCreateImage: %d", result);
    return 0;
}

/* Dedicated exportable memory for the twin's image, allocated and bound. */
static int32_t make_memory(struct twin *twin, struct dxcl_layer_error *error)
{
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    struct device *device = twin->device;
    VkMemoryRequirements requirements;
    VkResult result;
    int32_t type;

    device->vk.requirements(device->handle, twin->image, &requirements);
    type = memory_type(device, requirements.memoryTypeBits,
                       twin->host_visible ? host : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type < 0 && !twin->host_visible)
        type = memory_type(device, requirements.memoryTypeBits, 0);
    if (type < 0)
        return layer_fail(error, -1, "no %smemory type for the image (types 0x%x)",
                          twin->host_visible ? "host-visible coherent " : "",
                          requirements.memoryTypeBits);
    VkMemoryDedicatedAllocateInfo dedicated = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .image = twin->image};
    VkExportMemoryAllocateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
        .pNext = &dedicated,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                 .pNext = &export_info,
                                 .allocationSize = requirements.size,
                                 .memoryTypeIndex = (uint32_t)type};
    if ((result = device->vk.allocate(device->handle, &info, NULL, &twin->memory)))
        return layer_fail(error, result, "vkAllocateMemory: %d", result);
    twin->size = requirements.size;
    if ((result = device->vk.bind(device->handle, twin->image, twin->memory, 0)))
        return layer_fail(error, result, "vkBindImageMemory: %d", result);
    return 0;
}

static int32_t export_memory(struct twin *twin, int32_t *fd, struct dxcl_layer_error *error)
{
    struct device *device = twin->device;
    VkMemoryGetFdInfoKHR info = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                 .memory = twin->memory,
                                 .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    int exported = -1;
    VkResult result = device->vk.get_memory_fd(device->handle, &info, &exported);

    if (result)
        return layer_fail(error, result, "vkGetMemoryFdKHR: %d", result);
    *fd = exported;
    return 0;
}

/* The test-only import: the mapping of the linear image and its layout. */
static int32_t map_twin(struct twin *twin, uint32_t image_type, struct dxcl_layer_error *error)
{
    struct device *device = twin->device;
    VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout;
    void *mapping;
    VkResult result;

    device->vk.subresource_layout(device->handle, twin->image, &subresource, &layout);
    result = device->vk.map(device->handle, twin->memory, 0, VK_WHOLE_SIZE, 0, &mapping);
    if (result)
        return layer_fail(error, result, "vkMapMemory: %d", result);
    twin->host = (char *)mapping + layout.offset;
    twin->row_pitch = layout.rowPitch;
    twin->slice_pitch = image_type == VK_IMAGE_TYPE_3D ? layout.depthPitch : layout.size;
    return 0;
}

/* The twin's semaphores: `ready`, binary and exportable as an opaque fd, where the device
 * exports them (else OpenCL's wait for Direct3D is the host's); `release`, a timeline of the
 * layer's, always. */
static int32_t make_semaphores(struct twin *twin, struct dxcl_layer_error *error)
{
    struct device *device = twin->device;
    VkExportSemaphoreCreateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkSemaphoreTypeCreateInfo timeline = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo ready = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                   .pNext = &export_info};
    VkSemaphoreCreateInfo release = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                     .pNext = &timeline};
    VkResult result;

    if ((result = device->vk.create_semaphore(device->handle, &release, NULL, &twin->release)))
        return layer_fail(error, result, "vkCreateSemaphore (timeline): %d", result);
    if (!device->semaphore_fd || !device->vk.get_semaphore_fd)
        return 0;
    if ((result = device->vk.create_semaphore(device->handle, &ready, NULL, &twin->ready))) {
        layer_note("vkCreateSemaphore (exportable): %d: the twin has no `ready`", result);
        twin->ready = VK_NULL_HANDLE;
    }
    return 0;
}

static int32_t build_ordinary(struct twin *twin, const struct dxcl_twin_request *request,
                              int32_t *fd, struct dxcl_layer_error *error)
{
    int32_t result = make_image(twin, request, error);

    if (!result)
        result = make_memory(twin, error);
    if (!result)
        result = export_memory(twin, fd, error);
    if (!result && twin->host_visible) {
        close(*fd); /* exported only to exercise the export */
        *fd = -1;
        result = map_twin(twin, request->image_type, error);
    }
    twin->fresh = true;
    return result;
}

/* A direct twin: the program's image itself, made exportable when DXVK created it. */
static int32_t build_direct(struct twin *twin, const struct image_slot *slot, int32_t *fd,
                            struct dxcl_layer_error *error)
{
    if (!slot->exportable)
        return layer_fail(error, -1,
                          "image 0x%" PRIx64 " was not made exportable (not a 2D colour image of "
                          "one subresource, smaller than %u pixels, a render target or storage "
                          "image, made before sharing started, or the driver exports none such)",
                          (uint64_t)twin->image, DXCL_TWIN_DIRECT_MIN_PIXELS);
    if (!slot->memory)
        return layer_fail(error, -1, "image 0x%" PRIx64 " has no dedicated exportable memory",
                          (uint64_t)twin->image);
    twin->memory = (VkDeviceMemory)slot->memory;
    twin->size = slot->size;
    twin->serial = slot->serial;
    twin->concurrent = slot->concurrent;
    return export_memory(twin, fd, error);
}

/* The Vulkan objects of the twin that are the layer's, to the graves: freed once the device's
 * timeline reaches `after` (0: once the device is known idle). */
static void bury(struct twin *twin, uint64_t after)
{
    struct grave grave = {
        .device = twin->device, .after = after, .semaphores = {twin->ready, twin->release}};

    if (!twin->direct) {
        grave.image = twin->image;
        grave.memory = twin->memory;
    }
    graves_add(&grave);
    twin->ready = twin->release = VK_NULL_HANDLE;
    twin->image = VK_NULL_HANDLE;
    twin->memory = VK_NULL_HANDLE;
    twin->host = NULL;
}

/* The facts PE code keeps. */
static void describe(const struct twin *twin, int32_t fd, struct dxcl_twin *out)
{
    out->id = twin->id;
    out->image = (uint64_t)twin->image;
    out->size = twin->size;
    out->fd = fd;
    out->direct = twin->direct;
    out->semaphores = twin->ready != VK_NULL_HANDLE;
    out->width = twin->width;
    out->height = twin->height;
    out->depth = twin->depth;
    memcpy(out->device_uuid, twin->device->uuid, sizeof(out->device_uuid));
    out->host = (uint64_t)(uintptr_t)twin->host;
    out->row_pitch = twin->row_pitch;
    out->slice_pitch = twin->slice_pitch;
}

static int32_t twin_build(struct twin *twin, const struct dxcl_twin_request *request, int32_t *fd,
                          struct dxcl_layer_error *error)
{
    struct device *device = twin->device;
    struct image_slot slot;
    int32_t result;

    if (!device->memory_fd || !device->vk.get_memory_fd)
        return layer_fail(error, -1,
                          "the device %p has no " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                          (void *)device->handle);
    if (!device->progress)
        return layer_fail(error, -1, "the device %p has no timeline semaphores",
                          (void *)device->handle);
    if (!request_valid(request))
        return layer_fail(error, -1, "no such twin: format %u, type %u, %ux%ux%u", request->format,
                          request->image_type, request->width, request->height, request->depth);
    if (!images_lookup(device, request->like_image, &slot))
        return layer_fail(error, -1, "the device made no image 0x%" PRIx64, request->like_image);
    if (request->direct)
        twin->image = (VkImage)request->like_image;
    result = request->direct ? build_direct(twin, &slot, fd, error)
                             : build_ordinary(twin, request, fd, error);
    if (!result)
        result = make_semaphores(twin, error);
    return result;
}

EXPORT int32_t dxcl_layer_twin_create(void *params)
{
    struct dxcl_layer_twin_create *create = params;
    const struct dxcl_twin_request *request = &create->request;
    struct dxcl_twin *out = &create->twin;
    struct dxcl_layer_error *error = &out->error;
    struct device *device;
    struct twin *twin;
    int32_t fd = -1, result;

    memset(out, 0, sizeof(*out));
    out->fd = -1;
    if (!(device = device_hold(request->device, error)))
        return error->result;
    if (!(twin = calloc(1, sizeof(*twin)))) {
        device_put(device);
        return layer_fail(error, -1, "out of memory for a twin");
    }
    pthread_mutex_init(&twin->lock, NULL);
    atomic_init(&twin->refs, 1);
    twin->device = device;
    twin->direct = request->direct != 0;
    twin->host_visible = request->host_visible != 0 && !twin->direct;
    twin->width = request->width;
    twin->height = request->height;
    twin->depth = request->image_type == VK_IMAGE_TYPE_3D ? request->depth : 1;
    if ((result = twin_build(twin, request, &fd, error))) {
        if (fd >= 0)
            close(fd);
        bury(twin, 0); /* never used by the GPU */
        graves_visit(device, false);
        twin_put(twin);
        device_put(device);
        return result;
    }
    table_add(twin);
    describe(twin, fd, out);
    layer_note("twin %" PRIu64 ": image 0x%" PRIx64 ", %" PRIu64 " bytes%s%s%s", twin->id,
               (uint64_t)twin->image, twin->size, twin->host_visible ? ", mapped" : "",
               twin->direct ? ", direct (the program's image)" : "",
               twin->ready ? ", with `ready`" : "");
    device_put(device);
    return 0;
}

/* A direct twin's image is the one it was made of, alive (the caller holds the device). */
bool twin_image_alive(struct twin *twin)
{
    struct image_slot slot;

    return !twin->direct || (images_lookup(twin->device, (uint64_t)twin->image, &slot) &&
                             slot.serial == twin->serial && slot.memory == (uint64_t)twin->memory);
}

/* The twin and its device, held for one of dxcl's calls; false with `error` set. */
bool twin_and_device(uint64_t id, struct twin **twin, struct device **device,
                     struct dxcl_layer_error *error)
{
    if (!(*twin = twin_hold(id, error)))
        return false;
    if ((*device = device_hold((*twin)->device->id, error)))
        return true;
    twin_put(*twin);
    return false;
}

/* What a call that gives a twin's fd asks, with the twin and its device held: 0 with `fd` set,
 * or the error's result. */
typedef int32_t twin_fd_getter(struct twin *twin, struct device *device, int32_t *fd,
                               struct dxcl_layer_error *error);

/* One of dxcl's calls that gives a twin's fd (struct dxcl_layer_twin_fd): the fd from `get`. */
static int32_t twin_fd_call(struct dxcl_layer_twin_fd *asked, twin_fd_getter *get)
{
    struct twin *twin;
    struct device *device;
    int32_t result;

    asked->fd = -1;
    memset(&asked->error, 0, sizeof(asked->error));
    if (!twin_and_device(asked->twin, &twin, &device, &asked->error))
        return asked->error.result;
    result = get(twin, device, &asked->fd, &asked->error);
    device_put(device);
    twin_put(twin);
    return result;
}

static int32_t get_memory_fd(struct twin *twin, struct device *device, int32_t *fd,
                             struct dxcl_layer_error *error)
{
    (void)device;
    if (twin->host_visible)
        return layer_fail(error, -1, "twin %" PRIu64 " is host-visible: OpenCL maps it", twin->id);
    if (!twin_image_alive(twin)) /* its memory may be freed */
        return layer_fail(error, -1, "direct twin %" PRIu64 ": DXVK destroyed the image", twin->id);
    return export_memory(twin, fd, error);
}

EXPORT int32_t dxcl_layer_twin_export(void *params)
{
    return twin_fd_call(params, get_memory_fd);
}

static int32_t get_ready_fd(struct twin *twin, struct device *device, int32_t *fd,
                            struct dxcl_layer_error *error)
{
    VkSemaphoreGetFdInfoKHR info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
                                    .semaphore = twin->ready,
                                    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    int exported = -1;
    VkResult vk;

    if (!twin->ready)
        return layer_fail(error, -1, "twin %" PRIu64 " has no `ready` (the device exports none)",
                          twin->id);
    if ((vk = device->vk.get_semaphore_fd(device->handle, &info, &exported)))
        return layer_fail(error, vk, "vkGetSemaphoreFdKHR: %d", vk);
    *fd = exported;
    return 0;
}

EXPORT int32_t dxcl_layer_twin_ready_fd(void *params)
{
    return twin_fd_call(params, get_ready_fd);
}

EXPORT int32_t dxcl_layer_twin_check(void *params)
{
    struct dxcl_layer_twin *asked = params;
    uint64_t id = asked->twin;
    struct dxcl_layer_error *error = &asked->error;
    struct twin *twin;
    struct device *device;
    int32_t result = 0;

    if (!twin_and_device(id, &twin, &device, error))
        return error->result;
    if (!twin_image_alive(twin))
        result = layer_fail(error, -1, "direct twin %" PRIu64 ": its image was destroyed", id);
    device_put(device);
    twin_put(twin);
    return result;
}

/* Gives the twin up: its pending releases end (Direct3D's queue must not wait for what OpenCL
 * will no longer signal), and its objects go to the graves after `after` (0: once the device is
 * idle). */
void twin_give_up(struct twin *twin, uint64_t after)
{
    if (!table_remove(twin))
        return; /* another call gave it up first */
    twin_end_releases(twin, "the twin was given up");
    pthread_mutex_lock(&twin->lock);
    bury(twin, after);
    pthread_mutex_unlock(&twin->lock);
    twin_put(twin); /* the table's reference */
}

/* The device is being destroyed (idle, by Vulkan's rule): its twins are given up now. */
void twins_forget_device(struct device *device)
{
    for (;;) {
        struct twin *found = NULL;

        pthread_mutex_lock(&table_lock);
        for (size_t b = 0; b < TWIN_BUCKETS && !found; b++)
            for (struct twin *twin = buckets[b]; twin && !found; twin = twin->next)
                if (twin->device == device) {
                    atomic_fetch_add(&twin->refs, 1);
                    found = twin;
                }
        pthread_mutex_unlock(&table_lock);
        if (!found)
            return;
        twin_give_up(found, 0);
        twin_put(found);
    }
}

/* ---- A twin's release values: how each ended (the caller holds the twin's lock, unless said) ----
 */

/* DXCL_GPU_READY_AHEAD=<n>: TWIN_READY_AHEAD, read once. */
uint64_t twin_ready_ahead(void)
{
    static _Atomic uint64_t ahead;

    if (!ahead)
        ahead = layer_setting_count("DXCL_GPU_READY_AHEAD", TWIN_READY_AHEAD);
    return ahead;
}

static struct release_outcome *outcome_of(struct twin *twin, uint64_t value)
{
    for (uint32_t i = 0; i < twin->outcome_count; i++)
        if (twin->outcomes[i].value == value)
            return &twin->outcomes[i];
    return NULL;
}

/* Signals the twin's timeline up to the last value before the first still pending. */
static void signal_contiguous(struct twin *twin)
{
    struct device *device = twin->device;
    uint64_t target = twin->release_issued;
    VkSemaphoreSignalInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                  .semaphore = twin->release};
    VkResult result;

    for (uint32_t i = 0; i < twin->outcome_count; i++)
        if (twin->outcomes[i].value && twin->outcomes[i].state == DXCL_RELEASE_PENDING &&
            twin->outcomes[i].value - 1 < target)
            target = twin->outcomes[i].value - 1;
    if (target <= twin->release_signalled || !twin->release)
        return;
    info.value = target;
    if ((result = device->vk.signal_semaphore(device->handle, &info)))
        layer_note("twin %" PRIu64 ": vkSignalSemaphore of release %" PRIu64 ": %d", twin->id,
                   target, result);
    else
        twin->release_signalled = target;
}

static void resolve_locked(struct twin *twin, uint64_t value, int32_t state, int32_t status)
{
    struct release_outcome *outcome = outcome_of(twin, value);

    if (!outcome || outcome->state != DXCL_RELEASE_PENDING)
        return;
    outcome->state = state;
    outcome->status = status;
    if (state == DXCL_RELEASE_FAILED && value > twin->ended_early)
        twin->ended_early = value;
    else if (state == DXCL_RELEASE_DONE && value > twin->ended_early)
        twin->ended_early = 0; /* OpenCL's queue passed the early one's wait for `ready` */
    if (state == DXCL_RELEASE_FAILED)
        layer_note("twin %" PRIu64 ": release %" PRIu64 " %s: Direct3D goes on without OpenCL's "
                   "writes",
                   twin->id, value,
                   status == -1   ? "was not done within its bound (DXCL_GPU_WAIT_BOUND_MS)"
                   : status == -2 ? "ended: too many releases pending"
                                  : "failed on OpenCL's side");
    signal_contiguous(twin);
}

/* Room for one more outcome: the outcomes doubled, up to the most; NULL when none is left. */
static struct release_outcome *grow_outcomes(struct twin *twin)
{
    uint32_t had = twin->outcome_count, count = had ? 2 * had : TWIN_OUTCOMES_FIRST;
    struct release_outcome *grown;

    if (had >= TWIN_OUTCOMES_MOST || !(grown = realloc(twin->outcomes, count * sizeof(*grown))))
        return NULL;
    memset(grown + had, 0, (count - had) * sizeof(*grown));
    twin->outcomes = grown;
    twin->outcome_count = count;
    return &grown[had];
}

uint64_t twin_issue_release(struct twin *twin)
{
    struct release_outcome *unused = NULL, *ended = NULL, *pending = NULL, *slot;

    /* A slot unused, else the oldest ended, else a new one; past the most, the oldest pending
     * ends now. */
    for (uint32_t i = 0; i < twin->outcome_count; i++) {
        struct release_outcome *o = &twin->outcomes[i];
        if (!o->value)
            unused = unused ? unused : o;
        else if (o->state != DXCL_RELEASE_PENDING)
            ended = !ended || o->value < ended->value ? o : ended;
        else
            pending = !pending || o->value < pending->value ? o : pending;
    }
    slot = unused ? unused : ended ? ended : NULL;
    if (!slot && !(slot = grow_outcomes(twin))) {
        if (!pending)
            return 0; /* no memory for the first: nothing to wait for */
        slot = pending;
        resolve_locked(twin, slot->value, DXCL_RELEASE_FAILED, -2);
    }
    *slot = (struct release_outcome){++twin->release_issued, DXCL_RELEASE_PENDING, 0};
    return slot->value;
}

bool twin_may_signal_ready(const struct twin *twin)
{
    return !twin->ended_early &&
           twin->release_issued - twin->release_signalled < twin_ready_ahead();
}

void twin_resolve(struct twin *twin, uint64_t value, int32_t state, int32_t status)
{
    pthread_mutex_lock(&twin->lock);
    resolve_locked(twin, value, state, status);
    pthread_mutex_unlock(&twin->lock);
}

void twin_end_releases(struct twin *twin, const char *why)
{
    pthread_mutex_lock(&twin->lock);
    for (uint32_t i = 0; i < twin->outcome_count; i++)
        if (twin->outcomes[i].value && twin->outcomes[i].state == DXCL_RELEASE_PENDING) {
            layer_note("twin %" PRIu64 ": release %" PRIu64 " pending: %s", twin->id,
                       twin->outcomes[i].value, why);
            resolve_locked(twin, twin->outcomes[i].value, DXCL_RELEASE_FAILED, -1);
        }
    pthread_mutex_unlock(&twin->lock);
}

EXPORT int32_t dxcl_layer_release_state(void *params)
{
    struct dxcl_layer_release_state *state = params;
    struct twin *twin = twin_hold(state->twin, NULL);
    struct release_outcome *outcome;

    state->state = DXCL_RELEASE_FAILED;
    state->status = -3; /* no such release */
    if (!twin)
        return -1;
    pthread_mutex_lock(&twin->lock);
    if ((outcome = outcome_of(twin, state->value))) {
        state->state = outcome->state;
        state->status = outcome->status;
    } else if (state->value && state->value <= twin->release_signalled) {
        state->state = DXCL_RELEASE_DONE; /* ended long ago */
        state->status = 0;
    }
    pthread_mutex_unlock(&twin->lock);
    twin_put(twin);
    return 0;
}
