/* dxcl's Vulkan layer (src/unix/layer/dxcl_vk_layer.c) on the host's Vulkan (lavapipe here),
 * enabled by the environment (VK_LAYER_PATH=build/lib/vulkan,
 * VK_INSTANCE_LAYERS=VK_LAYER_DXCL_interop), reached as dxclunix.so reaches it:
 *   - two devices of one instance get VK_KHR_external_memory_fd from the layer;
 *   - thousands of images made from several threads on both devices are each found on their
 *     own device, and a destroyed one on none (the image table grows and deletes);
 *   - an optimal twin has an fd, a size and the device's UUID, and its destroy closes the fd;
 *   - a host-visible twin is mapped with its pitches, 2D and 3D;
 *   - failures name their step and hold nothing;
 *   - a destroyed device's images are forgotten;
 *   - a Vulkan 1.0 program's device is left as it is, without twins;
 *   - direct twins: an image made as DXVK makes a large texture is made exportable with
 *     dedicated memory (where the driver exports such images); its twin is the image itself,
 *     handed over and back with its pixels kept, left to its owner at destroy, stale once the
 *     image is destroyed; small images, render targets, storage images and
 *     DXCL_GPU_DIRECT=0 are left as they are;
 *   - idle hand-ins: the signal of `ready` is skipped exactly when every batch submitted to
 *     the device is known done (its queue's latest batch signalled a timeline value that is
 *     reached); a batch still waiting, or commands that signal no timeline, keep it;
 *   - a twin's semaphores: where the device exports them (VK_KHR_external_semaphore_fd), fds of
 *     both and a signal and a wait on the device's queue that complete; where it does not
 *     (lavapipe), none, and every sync operation refused with the reason. */
#define _GNU_SOURCE
#include "core/twin.h"

#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { THREADS = 4, IMAGES_PER_THREAD = 600 };

static int passed, failed;

static void check(bool ok, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *format, ...)
{
    va_list args;

    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: ");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
}

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            check(false, __VA_ARGS__);                                                             \
            printf("vk_layer: aborting, %d passed, %d failed\n", passed, failed);                  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static dxcl_twin_create_fn twin_create;
static dxcl_twin_destroy_fn twin_destroy;
static dxcl_twin_export_fn twin_export;
static dxcl_twin_sync_fn twin_sync;

struct maker {
    VkDevice devices[2];
    VkImage images[IMAGES_PER_THREAD];
    pthread_t thread;
};

static VkImage small_image(VkDevice device)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                              .imageType = VK_IMAGE_TYPE_2D,
                              .format = VK_FORMAT_R8G8B8A8_UNORM,
                              .extent = {4, 4, 1},
                              .mipLevels = 1,
                              .arrayLayers = 1,
                              .samples = VK_SAMPLE_COUNT_1_BIT,
                              .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
    VkImage image = VK_NULL_HANDLE;

    if (vkCreateImage(device, &info, NULL, &image) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    return image;
}

/* Image i of a maker is on devices[i % 2]; every third is destroyed again at once. */
static void *make_images(void *arg)
{
    struct maker *maker = arg;

    for (int i = 0; i < IMAGES_PER_THREAD; i++) {
        maker->images[i] = small_image(maker->devices[i % 2]);
        if (i % 3 == 2 && maker->images[i]) {
            vkDestroyImage(maker->devices[i % 2], maker->images[i], NULL);
            maker->images[i] = VK_NULL_HANDLE;
        }
    }
    return NULL;
}

static struct dxcl_twin_request request_of(VkImage like, uint32_t format, bool host_visible)
{
    return (struct dxcl_twin_request){(uint64_t)like, format, VK_IMAGE_TYPE_2D, 61, 33, 1,
                                      host_visible,   0};
}

static void find_layer(void)
{
    void *layer = dlopen(DXCL_TWIN_LAYER_SONAME, RTLD_NOW | RTLD_NOLOAD);

    REQUIRE(layer, "the layer is not loaded (VK_LAYER_PATH=build/lib/vulkan, "
                   "VK_INSTANCE_LAYERS=VK_LAYER_DXCL_interop)");
    twin_create = (dxcl_twin_create_fn)dlsym(layer, DXCL_TWIN_CREATE_NAME);
    twin_destroy = (dxcl_twin_destroy_fn)dlsym(layer, DXCL_TWIN_DESTROY_NAME);
    twin_export = (dxcl_twin_export_fn)dlsym(layer, DXCL_TWIN_EXPORT_NAME);
    twin_sync = (dxcl_twin_sync_fn)dlsym(layer, DXCL_TWIN_SYNC_NAME);
    REQUIRE(twin_create && twin_destroy && twin_export && twin_sync,
            "the layer exports no twin functions");
}

/* A device of one queue, with `features` (a pNext chain, or NULL). */
static VkDevice make_device_with(VkPhysicalDevice physical, const void *features)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                               .pNext = features,
                               .queueCreateInfoCount = 1,
                               .pQueueCreateInfos = &queue};
    VkDevice device = VK_NULL_HANDLE;

    REQUIRE(vkCreateDevice(physical, &info, NULL, &device) == VK_SUCCESS, "vkCreateDevice");
    return device;
}

static VkDevice make_device(VkPhysicalDevice physical)
{
    return make_device_with(physical, NULL);
}

/* Each live image's twin is made on its own device; a destroyed image has none. */
static void check_image_table(struct maker *makers, VkDevice devices[2])
{
    int wrong = 0, live = 0;

    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < IMAGES_PER_THREAD; i += 7) {
            VkImage image = makers[t].images[i];
            struct dxcl_twin twin;

            if (!image)
                continue;
            live++;
            if (twin_create(&(struct dxcl_twin_request){(uint64_t)image, VK_FORMAT_R8G8B8A8_UNORM,
                                                        VK_IMAGE_TYPE_2D, 4, 4, 1, 0, 0},
                            &twin) ||
                twin.device != (uint64_t)devices[i % 2])
                wrong++;
            twin_destroy(&twin);
        }
    check(live > 100 && wrong == 0, "%d of %d images' twins not on their device", wrong, live);
}

/* After devices[0] went: every live image of devices[1] is still found there. */
static void check_image_table_odd(struct maker *makers, VkDevice device)
{
    int wrong = 0;

    for (int t = 0; t < THREADS; t++)
        for (int i = 1; i < IMAGES_PER_THREAD; i += 2) {
            struct dxcl_twin twin;

            if (!makers[t].images[i])
                continue;
            if (twin_create(&(struct dxcl_twin_request){(uint64_t)makers[t].images[i],
                                                        VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                                        4, 4, 1, 0, 0},
                            &twin) ||
                twin.device != (uint64_t)device)
                wrong++;
            twin_destroy(&twin);
        }
    check(wrong == 0, "%d images of the remaining device lost", wrong);
}

static void check_optimal_twin(VkPhysicalDevice physical, VkDevice device, VkImage like)
{
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
    struct dxcl_twin_request request = request_of(like, VK_FORMAT_R8G8B8A8_UNORM, false);
    struct dxcl_twin twin;
    int fd;

    vkGetPhysicalDeviceProperties2(physical, &properties);
    REQUIRE(twin_create(&request, &twin) == 0, "optimal twin: %d (%s)", twin.result, twin.error);
    fd = twin.fd;
    check(fd >= 0 && fcntl(fd, F_GETFD) != -1, "an optimal twin has its fd (%d)", fd);
    check(twin.image && twin.memory && twin.device == (uint64_t)device, "its handles");
    check(twin.size >= 61 * 33 * 4 && !twin.host, "its size %llu, no mapping",
          (unsigned long long)twin.size);
    check(!memcmp(twin.device_uuid, id.deviceUUID, VK_UUID_SIZE), "its device's UUID");
    /* An import takes its fd: each import asks for a new one (the one not taken is closed). */
    check(twin_export(&twin) == 0 && twin.fd >= 0 && fcntl(twin.fd, F_GETFD) != -1,
          "a new fd of the twin's memory (%d)", twin.fd);
    check(twin.fd == fd || fcntl(fd, F_GETFD) == -1, "the fd it replaced is closed");
    fd = twin.fd;
    twin_destroy(&twin);
    check(fcntl(fd, F_GETFD) == -1 && twin.fd == -1, "destroy closed the fd");
    check(!twin.image && !twin.memory && !twin.device, "destroy cleared the twin");
}

/* The twin's semaphores, as dxcl's D3D11 backend uses them (core/twin.h). */
static void check_twin_semaphores(VkDevice device, VkImage like)
{
    struct dxcl_twin_request request = request_of(like, VK_FORMAT_R8G8B8A8_UNORM, false);
    bool exports = vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR") != NULL;
    struct dxcl_twin_sync sync = {.op = DXCL_TWIN_SYNC_EXPORT_READY};
    struct dxcl_twin twin;
    VkQueue queue;

    REQUIRE(twin_create(&request, &twin) == 0, "twin: %d (%s)", twin.result, twin.error);
    if (!exports) {
        check(!twin.ready && !twin.done, "no semaphore fds on the device: the twin has none");
        check(twin_sync(&twin, &sync) != 0 && sync.fd == -1 && strstr(twin.error, "no semaphores"),
              "an export is refused: \"%s\"", twin.error);
        sync.op = DXCL_TWIN_SYNC_SIGNAL_READY;
        check(twin_sync(&twin, &sync) != 0 && strstr(twin.error, "no semaphores"),
              "a signal is refused: \"%s\"", twin.error);
        printf("vk_layer: the device exports no semaphores (%s): the twins have none\n",
               VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    } else {
        check(twin.ready && twin.done && twin.ready != twin.done, "the twin has two semaphores");
        for (int32_t op = DXCL_TWIN_SYNC_EXPORT_READY; op <= DXCL_TWIN_SYNC_EXPORT_DONE; op++) {
            sync = (struct dxcl_twin_sync){.op = op};
            check(twin_sync(&twin, &sync) == 0 && sync.fd >= 0 && fcntl(sync.fd, F_GETFD) != -1,
                  "an fd of semaphore %d (%d)", op, sync.fd);
            close(sync.fd);
        }
        /* A signal on the queue completes (OpenCL's side of the round trip needs a driver that
         * imports: the H100 rig runs it). */
        sync = (struct dxcl_twin_sync){.op = DXCL_TWIN_SYNC_SIGNAL_READY};
        check(twin_sync(&twin, &sync) == 0, "a signal of ready on queue 0: %s", twin.error);
        vkGetDeviceQueue(device, 0, 0, &queue);
        check(vkQueueWaitIdle(queue) == VK_SUCCESS, "the queue ran the signal");
    }
    sync = (struct dxcl_twin_sync){.op = 99};
    check(twin_sync(&twin, &sync) != 0, "an unknown operation is refused");
    twin_destroy(&twin);
    check(!twin.ready && !twin.done, "destroy freed the semaphores");
}

static void check_host_visible_twin(VkImage like)
{
    struct dxcl_twin_request request = request_of(like, VK_FORMAT_R8G8B8A8_UNORM, true);
    struct dxcl_twin twin;

    REQUIRE(twin_create(&request, &twin) == 0, "host-visible twin: %d (%s)", twin.result,
            twin.error);
    check(twin.fd == -1 && twin.host, "a host-visible twin: fd closed, mapped");
    check(twin.row_pitch >= 61 * 4 && twin.slice_pitch >= twin.row_pitch * 32 + 61 * 4,
          "pitches %llu, %llu", (unsigned long long)twin.row_pitch,
          (unsigned long long)twin.slice_pitch);
    memset(twin.host, 0x5a, (size_t)(twin.row_pitch * 32 + 61 * 4)); /* the whole image */
    twin_destroy(&twin);
    check(!twin.host, "destroy unmapped it");
}

/* 3D twins: one slice after another, slice_pitch apart. */
static void check_3d_twins(VkImage like)
{
    for (uint32_t host_visible = 0; host_visible < 2; host_visible++) {
        struct dxcl_twin_request request = {
            (uint64_t)like, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, 16, 8, 4, host_visible, 0};
        struct dxcl_twin twin;

        REQUIRE(twin_create(&request, &twin) == 0, "3D twin (host_visible %u): %d (%s)",
                host_visible, twin.result, twin.error);
        check(twin.size >= 16 * 8 * 4 * 4, "3D twin size %llu", (unsigned long long)twin.size);
        if (host_visible)
            check(twin.row_pitch >= 16 * 4 && twin.slice_pitch >= twin.row_pitch * 8 &&
                      twin.size >= twin.slice_pitch * 4,
                  "3D pitches %llu, %llu", (unsigned long long)twin.row_pitch,
                  (unsigned long long)twin.slice_pitch);
        else
            check(twin.fd >= 0, "an optimal 3D twin has its fd");
        twin_destroy(&twin);
    }
}

static void check_failure(struct dxcl_twin_request request, const char *error)
{
    struct dxcl_twin twin;
    int32_t result = twin_create(&request, &twin);

    check(result != 0 && twin.result == result && strstr(twin.error, error),
          "fails with \"%s\": %d \"%s\"", error, result, twin.error);
    check(!twin.image && !twin.memory && !twin.host && twin.fd == -1 && !twin.size,
          "and holds nothing");
}

/* An image made as DXVK makes a texture: created, its requirements asked with
 * VkMemoryDedicatedRequirements, dedicated memory where that asks for it, bound. */
struct texture_like {
    VkImage image;
    VkDeviceMemory memory;
    VkDeviceSize size;
    bool dedicated; /* the requirements asked for dedicated memory */
};

/* What DXVK gives a shader resource (sampled only), a render target, a render target that is
 * also an unordered-access view. */
#define SAMPLED_USAGE                                                                              \
    (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT)
#define TARGET_USAGE (SAMPLED_USAGE | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)
#define STORAGE_TARGET_USAGE (TARGET_USAGE | VK_IMAGE_USAGE_STORAGE_BIT)

static struct texture_like make_texture_like(VkDevice device, uint32_t width, uint32_t height,
                                             VkImageUsageFlags usage)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                              .imageType = VK_IMAGE_TYPE_2D,
                              .format = VK_FORMAT_R8G8B8A8_UNORM,
                              .extent = {width, height, 1},
                              .mipLevels = 1,
                              .arrayLayers = 1,
                              .samples = VK_SAMPLE_COUNT_1_BIT,
                              .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = usage};
    VkMemoryDedicatedRequirements dedicated = {.sType =
                                                   VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 requirements = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
                                          .pNext = &dedicated};
    VkImageMemoryRequirementsInfo2 which = {.sType =
                                                VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
    VkMemoryDedicatedAllocateInfo dedicated_info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    struct texture_like t = {0};

    REQUIRE(vkCreateImage(device, &info, NULL, &t.image) == VK_SUCCESS, "vkCreateImage %ux%u",
            width, height);
    which.image = dedicated_info.image = t.image;
    vkGetImageMemoryRequirements2(device, &which, &requirements);
    t.dedicated = dedicated.requiresDedicatedAllocation;
    allocate.pNext = t.dedicated ? &dedicated_info : NULL;
    allocate.allocationSize = t.size = requirements.memoryRequirements.size;
    allocate.memoryTypeIndex =
        (uint32_t)__builtin_ctz(requirements.memoryRequirements.memoryTypeBits);
    REQUIRE(vkAllocateMemory(device, &allocate, NULL, &t.memory) == VK_SUCCESS, "vkAllocateMemory");
    REQUIRE(vkBindImageMemory(device, t.image, t.memory, 0) == VK_SUCCESS, "vkBindImageMemory");
    return t;
}

static void free_texture_like(VkDevice device, struct texture_like *t)
{
    vkDestroyImage(device, t->image, NULL);
    vkFreeMemory(device, t->memory, NULL);
}

static struct dxcl_twin_request direct_request(const struct texture_like *t, uint32_t width,
                                               uint32_t height)
{
    return (struct dxcl_twin_request){
        (uint64_t)t->image, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, width, height, 1, 0, 1};
}

/* Whether the driver exports an optimal RGBA8 image as make_texture_like makes it. */
static bool exports_optimal(VkPhysicalDevice physical, VkImageUsageFlags usage)
{
    VkPhysicalDeviceExternalImageFormatInfo external = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkPhysicalDeviceImageFormatInfo2 format = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
        .pNext = &external,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .type = VK_IMAGE_TYPE_2D,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage};
    VkExternalImageFormatProperties answer = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
    VkImageFormatProperties2 properties = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
                                           .pNext = &answer};

    return vkGetPhysicalDeviceImageFormatProperties2(physical, &format, &properties) ==
               VK_SUCCESS &&
           (answer.externalMemoryProperties.externalMemoryFeatures &
            VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT);
}

/* One command buffer on queue 0, run to the end. */
struct one_shot {
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer buffer;
};

static struct one_shot begin_one_shot(VkDevice device)
{
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandBufferAllocateInfo buffers = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    struct one_shot s = {.device = device};

    vkGetDeviceQueue(device, 0, 0, &s.queue);
    REQUIRE(vkCreateCommandPool(device, &pool, NULL, &s.pool) == VK_SUCCESS, "command pool");
    buffers.commandPool = s.pool;
    REQUIRE(vkAllocateCommandBuffers(device, &buffers, &s.buffer) == VK_SUCCESS, "command buffer");
    vkBeginCommandBuffer(s.buffer, &begin);
    return s;
}

static void run_one_shot(struct one_shot *s)
{
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &s->buffer};

    vkEndCommandBuffer(s->buffer);
    REQUIRE(vkQueueSubmit(s->queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS, "vkQueueSubmit");
    vkQueueWaitIdle(s->queue);
    vkDestroyCommandPool(s->device, s->pool, NULL);
}

static void layout_barrier(VkCommandBuffer buffer, VkImage image, VkImageLayout from,
                           VkImageLayout to)
{
    VkImageMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                                    .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                                    .dstAccessMask =
                                        VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                                    .oldLayout = from,
                                    .newLayout = to,
                                    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                    .image = image,
                                    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};

    vkCmdPipelineBarrier(buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &barrier);
}

/* The image cleared to `rgba` and left in TRANSFER_SRC_OPTIMAL ("DXVK's layout" here). */
static void clear_image(VkDevice device, VkImage image, const float rgba[4])
{
    struct one_shot s = begin_one_shot(device);
    VkClearColorValue colour = {{rgba[0], rgba[1], rgba[2], rgba[3]}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};

    layout_barrier(s.buffer, image, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdClearColorImage(s.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &colour, 1, &range);
    layout_barrier(s.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    run_one_shot(&s);
}

/* How many pixels of the image (TRANSFER_SRC_OPTIMAL) differ from `pixel`, read through a
 * host-visible buffer. */
static long pixels_differing(VkPhysicalDevice physical, VkDevice device, VkImage image,
                             uint32_t width, uint32_t height, uint32_t pixel)
{
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                               .size = (VkDeviceSize)width * height * 4,
                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkPhysicalDeviceMemoryProperties types;
    VkMemoryRequirements requirements;
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {width, height, 1}};
    VkBuffer buffer;
    VkDeviceMemory memory;
    uint32_t *mapped;
    long differing = 0;

    REQUIRE(vkCreateBuffer(device, &info, NULL, &buffer) == VK_SUCCESS, "vkCreateBuffer");
    vkGetBufferMemoryRequirements(device, buffer, &requirements);
    vkGetPhysicalDeviceMemoryProperties(physical, &types);
    allocate.allocationSize = requirements.size;
    for (uint32_t i = 0; i < types.memoryTypeCount; i++)
        if ((requirements.memoryTypeBits & (1u << i)) &&
            (types.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
            allocate.memoryTypeIndex = i;
            break;
        }
    REQUIRE(vkAllocateMemory(device, &allocate, NULL, &memory) == VK_SUCCESS, "buffer memory");
    vkBindBufferMemory(device, buffer, memory, 0);
    struct one_shot s = begin_one_shot(device);
    vkCmdCopyImageToBuffer(s.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1,
                           &region);
    run_one_shot(&s);
    vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, (void **)&mapped);
    for (uint32_t i = 0; i < width * height; i++)
        differing += mapped[i] != pixel;
    vkUnmapMemory(device, memory);
    vkDestroyBuffer(device, buffer, NULL);
    vkFreeMemory(device, memory, NULL);
    return differing;
}

/* A direct twin's hand-overs on queue 0 without semaphores (the device may export none): to
 * OpenCL and back, the image keeps its pixels; a hand-over naming another image is refused. */
static void check_hand_overs(VkPhysicalDevice physical, VkDevice device, struct dxcl_twin *twin,
                             uint32_t width, uint32_t height)
{
    static const float green[4] = {0.0f, 1.0f, 0.0f, 1.0f};
    struct dxcl_twin_sync sync = {.op = DXCL_TWIN_SYNC_HAND_IN,
                                  .image = twin->image,
                                  .layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  .aspect = VK_IMAGE_ASPECT_COLOR_BIT};
    VkQueue queue;

    vkGetDeviceQueue(device, 0, 0, &queue);
    clear_image(device, (VkImage)twin->image, green);
    check(twin_sync(twin, &sync) == 0, "a hand-over to OpenCL: %s", twin->error);
    sync.op = DXCL_TWIN_SYNC_HAND_OUT;
    check(twin_sync(twin, &sync) == 0, "a hand-over back: %s", twin->error);
    vkQueueWaitIdle(queue);
    check(pixels_differing(physical, device, (VkImage)twin->image, width, height, 0xff00ff00u) == 0,
          "the image keeps its pixels through the hand-overs");
    sync.image = twin->image + 1;
    check(twin_sync(twin, &sync) != 0 && strstr(twin->error, "or gone"),
          "a hand-over of another image is refused: %s", twin->error);
}

/* Direct twins (core/twin.h): DXVK's own image, made exportable by the layer at creation. */
static void check_direct_twins(VkPhysicalDevice physical, VkDevice device)
{
    struct texture_like big = make_texture_like(device, 512, 256, SAMPLED_USAGE);
    struct dxcl_twin_sync alive = {.op = DXCL_TWIN_SYNC_CHECK_DIRECT};
    struct dxcl_twin_request request = direct_request(&big, 512, 256);
    struct dxcl_twin twin;

    if (!exports_optimal(physical, SAMPLED_USAGE)) {
        check(!big.dedicated, "the driver exports no such image: no dedicated memory asked");
        check_failure(direct_request(&big, 512, 256), "was not made exportable");
        printf("vk_layer: the device exports no optimal RGBA8 image: no direct twins\n");
        free_texture_like(device, &big);
        return;
    }
    check(big.dedicated, "a 512x256 image made exportable asks for dedicated memory");
    REQUIRE(twin_create(&request, &twin) == 0, "direct twin: %d (%s)", twin.result, twin.error);
    check(twin.direct && twin.image == (uint64_t)big.image && twin.memory == (uint64_t)big.memory &&
              twin.size == big.size,
          "the direct twin is the image itself, with its memory and size");
    check(twin.fd >= 0 && fcntl(twin.fd, F_GETFD) != -1, "an fd of the image's memory (%d)",
          twin.fd);
    check(twin_sync(&twin, &alive) == 0, "its image is alive");
    check_hand_overs(physical, device, &twin, 512, 256);
    twin_destroy(&twin);
    check(twin.fd == -1 && !twin.image && !twin.memory, "destroy cleared the twin");
    check(pixels_differing(physical, device, big.image, 512, 256, 0xff00ff00u) == 0,
          "destroy left the image and its memory to their owner");

    /* A twin of an image since destroyed: stale, its memory never touched again. */
    REQUIRE(twin_create(&request, &twin) == 0, "direct twin again: %s", twin.error);
    free_texture_like(device, &big);
    check(twin_sync(&twin, &alive) != 0 && strstr(twin.error, "was destroyed"),
          "its image destroyed, the twin is stale: %s", twin.error);
    check(twin_export(&twin) != 0 && strstr(twin.error, "destroyed"), "no fd of freed memory: %s",
          twin.error);
    twin_destroy(&twin);

    struct texture_like small = make_texture_like(device, 64, 64, SAMPLED_USAGE);
    check(!small.dedicated, "a 64x64 image is left as it was");
    check_failure(direct_request(&small, 64, 64), "was not made exportable");
    free_texture_like(device, &small);
    big = make_texture_like(device, 512, 256, TARGET_USAGE);
    check(!big.dedicated, "a render target is left as it was");
    check_failure(direct_request(&big, 512, 256), "a render target");
    free_texture_like(device, &big);
    big = make_texture_like(device, 512, 256, STORAGE_TARGET_USAGE);
    check(!big.dedicated, "a render target with storage usage too");
    free_texture_like(device, &big);
    big = make_texture_like(device, 512, 256, SAMPLED_USAGE | VK_IMAGE_USAGE_STORAGE_BIT);
    check(!big.dedicated, "a storage image too");
    check_failure(direct_request(&big, 512, 256), "storage image");
    free_texture_like(device, &big);
    setenv("DXCL_GPU_DIRECT", "0", 1);
    big = make_texture_like(device, 512, 256, SAMPLED_USAGE);
    check(!big.dedicated, "DXCL_GPU_DIRECT=0: no image is made exportable");
    free_texture_like(device, &big);
    setenv("DXCL_GPU_DIRECT", "all", 1);
    small = make_texture_like(device, 64, 64, SAMPLED_USAGE);
    request = direct_request(&small, 64, 64);
    check(small.dedicated && !twin_create(&request, &twin),
          "DXCL_GPU_DIRECT=all: a 64x64 image has a direct twin");
    twin_destroy(&twin);
    free_texture_like(device, &small);
    unsetenv("DXCL_GPU_DIRECT");
}

/* A Vulkan 1.0 program's device would need VK_KHR_external_memory and more: left as it is,
 * and its images get no twin. */
static void check_vulkan_1_0(void)
{
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    VkInstance instance;
    VkPhysicalDevice physical;
    uint32_t count = 1;

    REQUIRE(vkCreateInstance(&info, NULL, &instance) == VK_SUCCESS, "vkCreateInstance 1.0");
    vkEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE(count == 1, "no Vulkan device");
    VkDevice device = make_device(physical);
    VkImage image = small_image(device);
    check_failure(request_of(image, VK_FORMAT_R8G8B8A8_UNORM, false),
                  "has no VK_KHR_external_memory_fd");
    vkDestroyImage(device, image, NULL);
    vkDestroyDevice(device, NULL);
    vkDestroyInstance(instance, NULL);
}

/* A device that follows its queues, as DXVK's does: timeline semaphores and synchronization2. */
static VkDevice make_timeline_device(VkPhysicalDevice physical)
{
    VkPhysicalDeviceVulkan13Features v13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .synchronization2 = VK_TRUE};
    VkPhysicalDeviceVulkan12Features v12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &v13,
        .timelineSemaphore = VK_TRUE};

    return make_device_with(physical, &v12);
}

static VkSemaphore make_timeline(VkDevice device)
{
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkSemaphore semaphore = VK_NULL_HANDLE;

    REQUIRE(vkCreateSemaphore(device, &info, NULL, &semaphore) == VK_SUCCESS, "timeline");
    return semaphore;
}

/* The signal of ready unless the device is idle: true when the layer skipped it. */
static bool hand_in_skipped(struct dxcl_twin *twin)
{
    struct dxcl_twin_sync sync = {.op = DXCL_TWIN_SYNC_SIGNAL_READY, .unless_idle = 1};

    twin_sync(twin, &sync);
    return sync.skipped;
}

/* A batch of one empty command buffer that signals nothing (vkQueueSubmit). */
static void submit_commands_alone(VkDevice device, VkQueue queue)
{
    struct one_shot s = begin_one_shot(device);
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                         .commandBufferCount = 1,
                         .pCommandBuffers = &s.buffer};

    vkEndCommandBuffer(s.buffer);
    check(vkQueueSubmit(queue, 1, &info, VK_NULL_HANDLE) == VK_SUCCESS, "a bare command batch");
    vkQueueWaitIdle(queue);
    vkDestroyCommandPool(device, s.pool, NULL);
}

/* Idle hand-ins (src/unix/layer/progress.h): the layer skips the signal of `ready` exactly when
 * everything submitted to the device's queues is known done, without waiting. */
static void check_idle_hand_ins(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance;
    VkPhysicalDevice physical;
    VkQueue queue;
    uint32_t count = 1;
    struct dxcl_twin twin;

    REQUIRE(vkCreateInstance(&info, NULL, &instance) == VK_SUCCESS, "vkCreateInstance 1.3");
    vkEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE(count == 1, "no Vulkan device");
    VkDevice device = make_timeline_device(physical);
    VkImage like = small_image(device);
    VkSemaphore gate = make_timeline(device), progress = make_timeline(device);
    vkGetDeviceQueue(device, 0, 0, &queue);
    REQUIRE(twin_create(&(struct dxcl_twin_request){(uint64_t)like, VK_FORMAT_R8G8B8A8_UNORM,
                                                    VK_IMAGE_TYPE_2D, 4, 4, 1, 0, 0},
                        &twin) == 0,
            "twin: %s", twin.error);
    check(hand_in_skipped(&twin), "nothing submitted yet: the hand-in needs no signal");

    /* As DXVK submits: a batch that waits for the program's gate and signals its timeline. */
    VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                  .semaphore = gate,
                                  .value = 1,
                                  .stageMask = VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT};
    VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                    .semaphore = progress,
                                    .value = 1,
                                    .stageMask = VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT};
    VkSubmitInfo2 batch = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                           .waitSemaphoreInfoCount = 1,
                           .pWaitSemaphoreInfos = &wait,
                           .signalSemaphoreInfoCount = 1,
                           .pSignalSemaphoreInfos = &signal};
    check(vkQueueSubmit2(queue, 1, &batch, VK_NULL_HANDLE) == VK_SUCCESS, "vkQueueSubmit2");
    check(!hand_in_skipped(&twin), "a batch still waiting: the hand-in signals (or fails)");
    vkSignalSemaphore(device,
                      &(VkSemaphoreSignalInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                               .semaphore = gate,
                                               .value = 1});
    vkQueueWaitIdle(queue);
    check(hand_in_skipped(&twin), "the batch done (its timeline value reached): no signal");

    /* Commands with no timeline signal: the queue is unknown, done or not. */
    submit_commands_alone(device, queue);
    check(!hand_in_skipped(&twin), "commands that signal no timeline: the queue is unknown");

    /* vkQueueSubmit with a timeline value: it covers the commands before it. */
    uint64_t two = 2;
    VkTimelineSemaphoreSubmitInfo values = {.sType =
                                                VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                            .signalSemaphoreValueCount = 1,
                                            .pSignalSemaphoreValues = &two};
    VkSubmitInfo signal_alone = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                 .pNext = &values,
                                 .signalSemaphoreCount = 1,
                                 .pSignalSemaphores = &progress};
    check(vkQueueSubmit(queue, 1, &signal_alone, VK_NULL_HANDLE) == VK_SUCCESS, "vkQueueSubmit");
    vkQueueWaitIdle(queue);
    check(hand_in_skipped(&twin), "a later timeline signal, reached: known done again");

    /* The timeline of the queue's latest batch destroyed: it can no longer be read. */
    vkDestroySemaphore(device, progress, NULL);
    check(!hand_in_skipped(&twin), "the latest batch's timeline destroyed: unknown");

    twin_destroy(&twin);
    vkDestroySemaphore(device, gate, NULL);
    vkDestroyImage(device, like, NULL);
    vkDestroyDevice(device, NULL);
    vkDestroyInstance(instance, NULL);
}

int main(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance;
    VkPhysicalDevice physical;
    uint32_t count = 1;
    static struct maker makers[THREADS];

    REQUIRE(vkCreateInstance(&info, NULL, &instance) == VK_SUCCESS, "vkCreateInstance");
    find_layer();
    vkEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE(count == 1, "no Vulkan device");
    VkDevice devices[2] = {make_device(physical), make_device(physical)};
    REQUIRE(vkGetDeviceProcAddr(devices[0], "vkGetMemoryFdKHR"),
            "the layer added no VK_KHR_external_memory_fd to the device");

    for (int t = 0; t < THREADS; t++) {
        memcpy(makers[t].devices, devices, sizeof(devices));
        pthread_create(&makers[t].thread, NULL, make_images, &makers[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(makers[t].thread, NULL);
    check_image_table(makers, devices);
    VkImage like = makers[0].images[0], gone = small_image(devices[0]);
    vkDestroyImage(devices[0], gone, NULL);

    check_optimal_twin(physical, devices[0], like);
    check_twin_semaphores(devices[0], like);
    check_host_visible_twin(like);
    check_3d_twins(like);
    check_direct_twins(physical, devices[0]);
    check_idle_hand_ins();
    check_failure(request_of(gone, VK_FORMAT_R8G8B8A8_UNORM, true), "no device made image 0x");
    check_failure(request_of(like, VK_FORMAT_UNDEFINED, true),
                  "the format 0 has no linear host-visible transfer support");
    struct dxcl_twin_request empty = request_of(like, VK_FORMAT_R8G8B8A8_UNORM, true);
    empty.width = 0;
    check_failure(empty, "no such twin");

    /* devices[0] goes with thread 0's images still alive (a program's mistake): the table
     * forgets them; the other threads' are destroyed first. */
    for (int t = 1; t < THREADS; t++)
        for (int i = 0; i < IMAGES_PER_THREAD; i += 2)
            if (makers[t].images[i])
                vkDestroyImage(devices[0], makers[t].images[i], NULL);
    vkDestroyDevice(devices[0], NULL);
    int found = 0;
    for (int i = 0; i < IMAGES_PER_THREAD; i += 2) {
        struct dxcl_twin twin;

        if (makers[0].images[i] &&
            !twin_create(&(struct dxcl_twin_request){(uint64_t)makers[0].images[i],
                                                     VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, 4,
                                                     4, 1, 0, 0},
                         &twin)) {
            found++;
            twin_destroy(&twin);
        }
    }
    check(found == 0, "%d images of a destroyed device still found", found);
    check_image_table_odd(makers, devices[1]);
    for (int t = 0; t < THREADS; t++)
        for (int i = 1; i < IMAGES_PER_THREAD; i += 2)
            if (makers[t].images[i])
                vkDestroyImage(devices[1], makers[t].images[i], NULL);
    vkDestroyDevice(devices[1], NULL);
    vkDestroyInstance(instance, NULL);
    check_vulkan_1_0();
    printf("vk_layer: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
