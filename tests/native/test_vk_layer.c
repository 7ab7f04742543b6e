/* dxcl's Vulkan layer (src/unix/layer/) on the host's Vulkan (lavapipe here), enabled by the
 * environment (VK_LAYER_PATH=build/lib/vulkan, VK_INSTANCE_LAYERS=VK_LAYER_DXCL_interop), reached
 * by its exports as dxclunix.so reaches them (core/twin.h); run under the Khronos validation
 * layer in CTest (native.vk_layer: no message of error severity). It checks:
 *   - passive: in a process where dxcl may not share (DXCL_LAYER_MODE=passive, or no dxclunix.so
 *     loaded), a device gets the next layer's functions, no fd extension, images as asked, and
 *     sharing cannot start on it;
 *   - where dxcl may share (DXCL_LAYER_MODE=share): two devices get VK_KHR_external_memory_fd; the
 *     images made from several threads on both are each found on their own device, by id, and
 *     no longer once destroyed; sharing starts on the device of an image;
 *   - twins by id: an optimal twin's fd, size and UUID, new fds; a host-visible twin mapped with
 *     its pitches, 2D and 3D; failures name their step; a twin given up is gone;
 *   - direct twins: before sharing starts a large shader-resource image is as asked; after, it
 *     is exportable with dedicated memory, its twin is the image, handed to OpenCL and back with
 *     its pixels kept, stale once destroyed; small images, render targets, storage images and
 *     DXCL_GPU_DIRECT=0 are left as they are; a refused export falls back to the memory asked;
 *   - hand-overs and releases: a hand-in's timeline value, waited for by the host; a hand-out
 *     holds the queue until its release is told (dxcl_layer_released), or fails, or its bound
 *     passes, or its twin is given up; values end in order;
 *   - idle hand-ins (DXCL_GPU_IDLE_READY=host): `ready` is skipped exactly when every batch
 *     submitted to the device is known done; by default it never is;
 *   - threads handing their own twins over at once, and a twin given up under another's use. */
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
#include <time.h>
#include <unistd.h>

enum { THREADS = 4, IMAGES_PER_THREAD = 600 };

#include "native_check.h"

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            check(false, __VA_ARGS__);                                                             \
            printf("vk_layer: aborting, %d passed, %d failed\n", passed, failed);                  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The layer's exports, by call (core/twin.h). */
static dxcl_layer_export_fn layer[DXCL_LAYER_CALL_COUNT];
static void *layer_library;

static void find_layer(void)
{
    static const char *const names[DXCL_LAYER_CALL_COUNT] = {
#define DXCL_LAYER_EXPORT(call, name) [call] = #name,
        DXCL_LAYER_EXPORTS
#undef DXCL_LAYER_EXPORT
    };

    layer_library = dlopen(DXCL_TWIN_LAYER_SONAME, RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(layer_library, "the layer is not loaded (VK_LAYER_PATH=build/lib/vulkan, "
                           "VK_INSTANCE_LAYERS=VK_LAYER_DXCL_interop)");
    for (int i = 0; i < DXCL_LAYER_CALL_COUNT; i++)
        if (names[i])
            REQUIRE((layer[i] = (dxcl_layer_export_fn)dlsym(layer_library, names[i])),
                    "the layer exports no %s", names[i]);
}

/* Whether a function pointer lives in the layer's library. */
static bool in_layer(PFN_vkVoidFunction function)
{
    Dl_info mine, layers;

    return function && dladdr((void *)function, &mine) &&
           dladdr((void *)layer[DXCL_LAYER_SHARE], &layers) && mine.dli_fbase == layers.dli_fbase;
}

/* ---- Devices and images ---- */

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

/* A device as DXVK makes one: timeline semaphores and synchronization2. */
static VkDevice make_device(VkPhysicalDevice physical)
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

/* An image made as DXVK makes a texture: created, its requirements asked with
 * VkMemoryDedicatedRequirements, dedicated memory where that asks for it, bound. */
struct texture_like {
    VkImage image;
    VkDeviceMemory memory;
    VkDeviceSize size;
    bool dedicated; /* the requirements asked for dedicated memory */
};

#define SAMPLED_USAGE                                                                              \
    (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT)
#define TARGET_USAGE (SAMPLED_USAGE | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)

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

/* ---- The layer's calls ---- */

static uint64_t share(VkImage image, struct dxcl_layer_share *out)
{
    struct dxcl_layer_share asked = {.image = (uint64_t)image};

    layer[DXCL_LAYER_SHARE](&asked);
    if (out)
        *out = asked;
    return asked.device;
}

static struct dxcl_twin make_twin(uint64_t device, VkImage like, uint32_t width, uint32_t height,
                                  bool host_visible, bool direct)
{
    struct dxcl_layer_twin_create create = {.request = {device, (uint64_t)like,
                                                        VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                                        width, height, 1, host_visible, direct}};

    layer[DXCL_LAYER_TWIN_CREATE](&create);
    return create.twin;
}

static int32_t give_up(uint64_t twin)
{
    struct dxcl_layer_twin gone = {.twin = twin};

    return layer[DXCL_LAYER_TWIN_DESTROY](&gone);
}

static int export_fd(uint64_t twin, struct dxcl_layer_twin_fd *out)
{
    struct dxcl_layer_twin_fd asked = {.twin = twin, .fd = -1};

    layer[DXCL_LAYER_TWIN_EXPORT](&asked);
    if (out)
        *out = asked;
    return asked.fd;
}

/* One hand-over of one twin on queue 0: its batch's result (batch into *out). */
static int32_t hand_over(uint64_t device, struct dxcl_hand_over_item item,
                         struct dxcl_hand_over *out)
{
    struct dxcl_hand_over batch = {.device = device, .count = 1, .unless_idle = 1};
    int32_t result;

    batch.items[0] = item;
    result = layer[DXCL_LAYER_HAND_OVER](&batch);
    if (out)
        *out = batch;
    return result;
}

/* A twin's own image handed in (contents kept) or out (OpenCL used it: a release to wait for),
 * in `layout` (DXVK's). */
static struct dxcl_hand_over_item own_item(const struct dxcl_twin *twin, int32_t op,
                                           uint32_t layout)
{
    return (struct dxcl_hand_over_item){.twin = twin->id,
                                        .op = op,
                                        .contents = 1,
                                        .opencl_used = op == DXCL_HAND_OUT,
                                        .image = twin->image,
                                        .layout = layout};
}

static void released(uint64_t twin, uint64_t value, int32_t status)
{
    struct dxcl_layer_released done = {twin, value, status, 0};

    layer[DXCL_LAYER_RELEASED](&done);
}

static struct dxcl_layer_release_state release_state(uint64_t twin, uint64_t value)
{
    struct dxcl_layer_release_state state = {twin, value, -1, 0};

    layer[DXCL_LAYER_RELEASE_STATE](&state);
    return state;
}

static int32_t wait_value(uint64_t device, uint64_t value, uint32_t ms)
{
    struct dxcl_layer_wait wait = {device, value, ms, -1};

    layer[DXCL_LAYER_WAIT](&wait);
    return wait.result;
}

/* ---- One command buffer on queue 0, run to the end ---- */

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

/* ---- Passive devices ---- */

/* A process where dxcl may not share: the device is the program's alone. */
static void check_passive(VkPhysicalDevice physical, const char *setting)
{
    VkDevice device;
    struct texture_like big;
    struct dxcl_layer_share answer;

    if (setting)
        setenv("DXCL_LAYER_MODE", setting, 1);
    else
        unsetenv("DXCL_LAYER_MODE");
    device = make_device(physical);
    check(!in_layer(vkGetDeviceProcAddr(device, "vkCreateImage")) &&
              !in_layer(vkGetDeviceProcAddr(device, "vkQueueSubmit")) &&
              !in_layer(vkGetDeviceProcAddr(device, "vkAllocateMemory")),
          "DXCL_LAYER_MODE=%s: the device's calls go straight to the driver",
          setting ? setting : "");
    check(!vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"),
          "DXCL_LAYER_MODE=%s: no fd export extension added", setting ? setting : "");
    big = make_texture_like(device, 512, 256, SAMPLED_USAGE);
    check(share(big.image, &answer) == 0 && strstr(answer.error.text, "no device where dxcl"),
          "sharing cannot start on it: %s", answer.error.text);
    check(!big.dedicated, "its images are as asked");
    free_texture_like(device, &big);
    vkDestroyDevice(device, NULL);
    setenv("DXCL_LAYER_MODE", "share", 1);
}

/* ---- Devices where dxcl may share: images by device ---- */

struct maker {
    VkDevice devices[2];
    VkImage images[IMAGES_PER_THREAD];
    pthread_t thread;
};

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

/* Each live image is found on its own device (a twin of it can be made there), not on the
 * other. */
static void check_image_table(struct maker *makers, const uint64_t ids[2])
{
    int wrong = 0, live = 0;

    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < IMAGES_PER_THREAD; i += 7) {
            VkImage image = makers[t].images[i];
            struct dxcl_twin own, other;
            if (!image)
                continue;
            live++;
            own = make_twin(ids[i % 2], image, 4, 4, false, false);
            other = make_twin(ids[(i + 1) % 2], image, 4, 4, false, false);
            wrong += !own.id || other.id || !strstr(other.error.text, "made no image");
            if (own.fd >= 0)
                close(own.fd);
            give_up(own.id);
        }
    check(live > 100 && wrong == 0, "%d of %d images not found on their own device alone", wrong,
          live);
}

static void check_sharing_starts(VkDevice devices[2], struct maker *makers, uint64_t ids[2])
{
    struct dxcl_layer_share answer;
    VkImage gone = small_image(devices[0]);

    vkDestroyImage(devices[0], gone, NULL);
    check(in_layer(vkGetDeviceProcAddr(devices[0], "vkCreateImage")),
          "DXCL_LAYER_MODE=share: the layer follows the device's images");
    ids[0] = share(makers[0].images[0], &answer);
    check(ids[0] && answer.uuid[0] | answer.uuid[1] | answer.uuid[15], "sharing starts: id %llu",
          (unsigned long long)ids[0]);
    ids[1] = share(makers[0].images[1], NULL);
    check(ids[1] && ids[1] != ids[0], "the other device has its own id (%llu)",
          (unsigned long long)ids[1]);
    check(share(makers[0].images[0], NULL) == ids[0], "sharing again: the same id");
    check(!share(gone, &answer) && strstr(answer.error.text, "made image"),
          "a destroyed image names no device: %s", answer.error.text);
}

/* ---- Twins ---- */

static void check_optimal_twin(VkPhysicalDevice physical, uint64_t device, VkImage like)
{
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
    struct dxcl_twin twin = make_twin(device, like, 61, 33, false, false);
    struct dxcl_layer_twin_fd fd;
    int second;

    vkGetPhysicalDeviceProperties2(physical, &properties);
    REQUIRE(twin.id, "optimal twin: %d (%s)", twin.error.result, twin.error.text);
    check(twin.fd >= 0 && fcntl(twin.fd, F_GETFD) != -1, "an optimal twin has its fd (%d)",
          twin.fd);
    check(twin.image && twin.size >= 61 * 33 * 4 && !twin.host && !twin.direct,
          "its image and size %llu, no mapping", (unsigned long long)twin.size);
    check(!memcmp(twin.device_uuid, id.deviceUUID, VK_UUID_SIZE), "its device's UUID");
    second = export_fd(twin.id, &fd);
    check(second >= 0 && second != twin.fd, "a new fd of the twin's memory (%d)", second);
    close(second);
    close(twin.fd);
    check(give_up(twin.id) == 0, "the twin is given up");
    check(export_fd(twin.id, &fd) == -1 && strstr(fd.error.text, "no twin"), "its id is gone: %s",
          fd.error.text);
    check(give_up(twin.id) != 0, "given up twice: refused");
}

static void check_host_visible_twins(uint64_t device, VkImage like)
{
    struct dxcl_twin twin = make_twin(device, like, 61, 33, true, false);
    struct dxcl_layer_twin_create three = {.request = {device, (uint64_t)like,
                                                       VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D,
                                                       16, 8, 4, 1, 0}};

    REQUIRE(twin.id, "host-visible twin: %s", twin.error.text);
    check(twin.fd == -1 && twin.host, "a host-visible twin: no fd, mapped");
    check(twin.row_pitch >= 61 * 4 && twin.slice_pitch >= twin.row_pitch * 32 + 61 * 4,
          "pitches %llu, %llu", (unsigned long long)twin.row_pitch,
          (unsigned long long)twin.slice_pitch);
    memset((void *)(uintptr_t)twin.host, 0x5a, (size_t)(twin.row_pitch * 32 + 61 * 4));
    give_up(twin.id);
    layer[DXCL_LAYER_TWIN_CREATE](&three);
    REQUIRE(three.twin.id, "3D twin: %s", three.twin.error.text);
    check(three.twin.row_pitch >= 16 * 4 && three.twin.slice_pitch >= three.twin.row_pitch * 8 &&
              three.twin.size >= three.twin.slice_pitch * 4,
          "3D pitches %llu, %llu", (unsigned long long)three.twin.row_pitch,
          (unsigned long long)three.twin.slice_pitch);
    give_up(three.twin.id);
}

static void check_failure(struct dxcl_twin_request request, const char *error)
{
    struct dxcl_layer_twin_create create = {.request = request};
    int32_t result = layer[DXCL_LAYER_TWIN_CREATE](&create);

    check(result != 0 && create.twin.error.result == result &&
              strstr(create.twin.error.text, error),
          "fails with \"%s\": %d \"%s\"", error, result, create.twin.error.text);
    check(!create.twin.id && !create.twin.image && !create.twin.host && create.twin.fd == -1,
          "and holds nothing");
}

static void check_failures(uint64_t device, VkImage like)
{
    struct dxcl_twin_request request = {
        device, (uint64_t)like, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, 4, 4, 1, 1, 0};

    request.device = 999999;
    check_failure(request, "no Vulkan device 999999");
    request.device = device;
    request.like_image = 0x1234;
    check_failure(request, "made no image 0x1234");
    request.like_image = (uint64_t)like;
    request.width = 0;
    check_failure(request, "no such twin");
    request.width = 4;
    request.format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
    check_failure(request, "no such twin");
    request.format = VK_FORMAT_R8G8B8A8_UNORM;
    request.image_type = 7;
    check_failure(request, "no such twin");
}

/* ---- Hand-overs ---- */

/* A direct twin handed to OpenCL and back on queue 0 (no release to wait for): the image keeps
 * its pixels; a hand-over naming another image, or a second hand-in, is refused. */
static void check_hand_overs(VkPhysicalDevice physical, VkDevice handle, uint64_t device,
                             struct dxcl_twin *twin, uint32_t width, uint32_t height)
{
    static const float green[4] = {0.0f, 1.0f, 0.0f, 1.0f};
    struct dxcl_hand_over_item in =
        own_item(twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    struct dxcl_hand_over_item out =
        own_item(twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    struct dxcl_hand_over batch;

    clear_image(handle, (VkImage)twin->image, green);
    check(hand_over(device, in, &batch) == 0, "a hand-over to OpenCL: %s", batch.error.text);
    check(wait_value(device, batch.done_value, 5000) == 0, "its batch runs (value %llu)",
          (unsigned long long)batch.done_value);
    /* DXCL_GPU_WAIT_SPIN_US: the host reads the timeline first; a done value is still done,
     * and a value never signalled still ends at the wait's timeout, not at the reading's. */
    setenv("DXCL_GPU_WAIT_SPIN_US", "2000", 1);
    check(wait_value(device, batch.done_value, 5000) == 0, "a reading wait sees it done");
    check(wait_value(device, batch.done_value + 1000, 50) != 0,
          "a reading wait for a value never signalled ends at its timeout");
    unsetenv("DXCL_GPU_WAIT_SPIN_US");
    check(hand_over(device, in, &batch) != 0 && strstr(batch.error.text, "already OpenCL's"),
          "a second hand-in is refused: %s", batch.error.text);
    out.opencl_used = 0;
    check(hand_over(device, out, &batch) == 0, "a hand-over back: %s", batch.error.text);
    check(wait_value(device, batch.done_value, 5000) == 0, "it runs");
    check(pixels_differing(physical, handle, (VkImage)twin->image, width, height, 0xff00ff00u) == 0,
          "the image keeps its pixels through the hand-overs");
    in.image = twin->image + 1;
    check(hand_over(device, in, &batch) != 0 && strstr(batch.error.text, "its image is"),
          "a hand-over of another image is refused: %s", batch.error.text);
}

/* Whether the batch after a hand-out has run: a fence of the program's behind it. */
struct blocked {
    VkDevice device;
    VkQueue queue;
    VkFence fence;
};

static struct blocked submit_behind(VkDevice device)
{
    VkFenceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    struct blocked b = {.device = device};

    vkGetDeviceQueue(device, 0, 0, &b.queue);
    REQUIRE(vkCreateFence(device, &info, NULL, &b.fence) == VK_SUCCESS, "vkCreateFence");
    REQUIRE(vkQueueSubmit(b.queue, 0, NULL, b.fence) == VK_SUCCESS, "a fence behind");
    return b;
}

/* The fence signalled within `ms`; the fence goes. */
static bool went_on_within(struct blocked *b, uint64_t ms)
{
    VkResult result = vkWaitForFences(b->device, 1, &b->fence, VK_TRUE, ms * 1000000u);

    if (result == VK_SUCCESS)
        vkDestroyFence(b->device, b->fence, NULL);
    return result == VK_SUCCESS;
}

/* Direct twins (core/twin.h): DXVK's own image, made exportable by the layer at creation once
 * sharing started on the device. */
static void check_direct_twins(VkPhysicalDevice physical)
{
    VkDevice handle = make_device(physical);
    struct texture_like before = make_texture_like(handle, 512, 256, SAMPLED_USAGE), big;
    uint64_t device;
    struct dxcl_twin twin;
    struct dxcl_layer_twin alive;

    check(!before.dedicated, "before sharing starts, a large sampled image is as asked");
    device = share(before.image, NULL);
    REQUIRE(device, "sharing on the device");
    twin = make_twin(device, before.image, 512, 256, false, true);
    check(!twin.id && strstr(twin.error.text, "made before sharing started"),
          "an image made before has no direct twin: %s", twin.error.text);
    free_texture_like(handle, &before);
    big = make_texture_like(handle, 512, 256, SAMPLED_USAGE);
    if (!exports_optimal(physical, SAMPLED_USAGE)) {
        check(!big.dedicated, "the driver exports no such image: no dedicated memory asked");
        printf("vk_layer: the device exports no optimal RGBA8 image: no direct twins\n");
        free_texture_like(handle, &big);
        vkDestroyDevice(handle, NULL);
        return;
    }
    check(big.dedicated, "a 512x256 image made after asks for dedicated memory");
    twin = make_twin(device, big.image, 512, 256, false, true);
    REQUIRE(twin.id, "direct twin: %s", twin.error.text);
    check(twin.direct && twin.image == (uint64_t)big.image && twin.size == big.size,
          "the direct twin is the image itself, with its size");
    check(twin.fd >= 0 && fcntl(twin.fd, F_GETFD) != -1, "an fd of the image's memory (%d)",
          twin.fd);
    close(twin.fd);
    alive.twin = twin.id;
    check(layer[DXCL_LAYER_TWIN_CHECK](&alive) == 0, "its image is alive");
    check_hand_overs(physical, handle, device, &twin, 512, 256);
    give_up(twin.id);
    check(pixels_differing(physical, handle, big.image, 512, 256, 0xff00ff00u) == 0,
          "given up, the twin left the image and its memory to their owner");

    /* The program destroys a direct twin's image while the layer's batch behind OpenCL's
     * release still holds it (DXVK knows only its own use): the image and its memory go to a
     * grave, freed once that batch ran (the validation layer says "in use" otherwise). */
    {
        static const float green[4] = {0.0f, 1.0f, 0.0f, 1.0f};
        struct texture_like doomed = make_texture_like(handle, 512, 256, SAMPLED_USAGE);
        struct dxcl_twin held = make_twin(device, doomed.image, 512, 256, false, true);
        struct dxcl_hand_over batch;
        struct blocked behind;

        REQUIRE(held.id, "direct twin: %s", held.error.text);
        close(held.fd);
        clear_image(handle, doomed.image, green);
        REQUIRE(hand_over(device,
                          own_item(&held, DXCL_HAND_IN, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL),
                          &batch) == 0 &&
                    wait_value(device, batch.done_value, 5000) == 0,
                "hand-in: %s", batch.error.text);
        REQUIRE(hand_over(device,
                          own_item(&held, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL),
                          &batch) == 0,
                "hand-out: %s", batch.error.text);
        behind = submit_behind(handle);
        check(!went_on_within(&behind, 50), "the layer's batch waits for OpenCL's release");
        free_texture_like(handle, &doomed);
        released(held.id, batch.items[0].release_value, 0);
        check(went_on_within(&behind, 2000), "told, the queue goes on");
        give_up(held.id);
    }

    /* A twin of an image since destroyed: stale, its memory never touched again. */
    twin = make_twin(device, big.image, 512, 256, false, true);
    REQUIRE(twin.id, "direct twin again: %s", twin.error.text);
    close(twin.fd);
    free_texture_like(handle, &big);
    alive.twin = twin.id;
    check(layer[DXCL_LAYER_TWIN_CHECK](&alive) != 0 && strstr(alive.error.text, "destroyed"),
          "its image destroyed, the twin is stale: %s", alive.error.text);
    check(export_fd(twin.id, NULL) == -1, "no fd of freed memory");
    give_up(twin.id);

    struct texture_like small = make_texture_like(handle, 64, 64, SAMPLED_USAGE);
    check(!small.dedicated, "a 64x64 image is left as it was");
    free_texture_like(handle, &small);
    big = make_texture_like(handle, 512, 256, TARGET_USAGE);
    check(!big.dedicated, "a render target is left as it was");
    free_texture_like(handle, &big);
    big = make_texture_like(handle, 512, 256, SAMPLED_USAGE | VK_IMAGE_USAGE_STORAGE_BIT);
    check(!big.dedicated, "a storage image too");
    free_texture_like(handle, &big);
    setenv("DXCL_GPU_DIRECT", "0", 1);
    big = make_texture_like(handle, 512, 256, SAMPLED_USAGE);
    check(!big.dedicated, "DXCL_GPU_DIRECT=0: no image is made exportable");
    free_texture_like(handle, &big);
    setenv("DXCL_GPU_DIRECT", "all", 1);
    small = make_texture_like(handle, 64, 64, SAMPLED_USAGE);
    twin = make_twin(device, small.image, 64, 64, false, true);
    check(small.dedicated && twin.id, "DXCL_GPU_DIRECT=all: a 64x64 image has a direct twin");
    if (twin.fd >= 0)
        close(twin.fd);
    give_up(twin.id);
    free_texture_like(handle, &small);
    unsetenv("DXCL_GPU_DIRECT");
    /* A driver that refuses the export: the memory is what the program asked for. */
    setenv("DXCL_LAYER_FAULT", "export_memory", 1);
    big = make_texture_like(handle, 512, 256, SAMPLED_USAGE);
    twin = make_twin(device, big.image, 512, 256, false, true);
    check(big.memory && !twin.id && strstr(twin.error.text, "no dedicated exportable memory"),
          "a refused export falls back to the program's memory: %s", twin.error.text);
    free_texture_like(handle, &big);
    unsetenv("DXCL_LAYER_FAULT");
    vkDestroyDevice(handle, NULL);
}

static uint64_t now_ms(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* A hand-in then a hand-out of an ordinary twin (its own image in GENERAL): the release value
 * Direct3D's queue now waits for. With `wait_in` the host waits for the hand-in first (it runs
 * only once every earlier release of the twin ended). */
static uint64_t in_and_out(uint64_t device, const struct dxcl_twin *twin, bool wait_in)
{
    struct dxcl_hand_over batch;

    REQUIRE(hand_over(device, own_item(twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_GENERAL), &batch) == 0,
            "hand-in: %s", batch.error.text);
    REQUIRE(!wait_in || wait_value(device, batch.done_value, 5000) == 0,
            "the host's wait for the hand-in");
    REQUIRE(hand_over(device, own_item(twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL), &batch) == 0,
            "hand-out: %s", batch.error.text);
    REQUIRE(batch.items[0].release_value, "a release value to wait for");
    return batch.items[0].release_value;
}

/* A hand-in whose contents OpenCL overwrites, of a twin of the layer's in GENERAL on an idle
 * device, submits nothing: Vulkan wants no ownership transfer where the contents need not
 * survive it, and the idle queues have done every use of the twin. One that keeps the contents
 * submits its barrier; DXCL_GPU_EMPTY_HAND_IN=0 submits both. */
static void hand_back_done(uint64_t device, const struct dxcl_twin *twin)
{
    struct dxcl_hand_over batch;

    REQUIRE(hand_over(device, own_item(twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL), &batch) == 0,
            "hand-out: %s", batch.error.text);
    released(twin->id, batch.items[0].release_value, 0);
    REQUIRE(wait_value(device, batch.done_value, 5000) == 0, "the hand-out ran");
}

static void check_empty_hand_ins(VkDevice handle, uint64_t device, const struct dxcl_twin *twin)
{
    struct dxcl_hand_over_item in = own_item(twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_GENERAL);
    struct dxcl_hand_over batch;

    vkDeviceWaitIdle(handle);
    in.contents = 0;
    check(hand_over(device, in, &batch) == 0 && !batch.done_value && batch.ready_skipped,
          "an idle device, contents overwritten: the hand-in submits nothing (%s)",
          batch.error.text);
    hand_back_done(device, twin);
    in.contents = 1;
    check(hand_over(device, in, &batch) == 0 && batch.done_value,
          "contents kept: the hand-in submits its barrier");
    REQUIRE(wait_value(device, batch.done_value, 5000) == 0, "it ran");
    hand_back_done(device, twin);
    setenv("DXCL_GPU_EMPTY_HAND_IN", "0", 1);
    in.contents = 0;
    check(hand_over(device, in, &batch) == 0 && batch.done_value,
          "DXCL_GPU_EMPTY_HAND_IN=0: the hand-in submits its barrier all the same");
    REQUIRE(wait_value(device, batch.done_value, 5000) == 0, "it ran");
    unsetenv("DXCL_GPU_EMPTY_HAND_IN");
    hand_back_done(device, twin);
}

static void check_releases(VkPhysicalDevice physical)
{
    VkDevice handle = make_device(physical);
    VkImage like = small_image(handle);
    uint64_t device = share(like, NULL), v, w, start;
    struct dxcl_twin twin = make_twin(device, like, 64, 32, false, false);
    struct dxcl_layer_release_state state;
    struct blocked behind;

    REQUIRE(twin.id, "twin: %s", twin.error.text);
    close(twin.fd);
    v = in_and_out(device, &twin, true);
    behind = submit_behind(handle);
    check(!went_on_within(&behind, 50), "the queue waits for OpenCL's release");
    state = release_state(twin.id, v);
    check(state.state == DXCL_RELEASE_PENDING, "its release is pending (%d)", state.state);
    released(twin.id, v, 0);
    check(went_on_within(&behind, 2000), "told it is done, the queue goes on");
    state = release_state(twin.id, v);
    check(state.state == DXCL_RELEASE_DONE, "the release ended done (%d)", state.state);

    v = in_and_out(device, &twin, true);
    behind = submit_behind(handle);
    released(twin.id, v, -5);
    check(went_on_within(&behind, 2000), "a failed release: the queue goes on");
    state = release_state(twin.id, v);
    check(state.state == DXCL_RELEASE_FAILED && state.status == -5,
          "the release ended failed with its status (%d, %d)", state.state, state.status);

    /* Values end in order: the later one told first holds the queue at the earlier. */
    v = in_and_out(device, &twin, true);
    w = in_and_out(device, &twin, false);
    behind = submit_behind(handle);
    released(twin.id, w, 0);
    check(!went_on_within(&behind, 100), "a later release alone: the queue still waits");
    released(twin.id, v, 0);
    check(went_on_within(&behind, 2000), "the earlier one too: it goes on");

    /* A program's loop runs ahead of the GPU: many releases pend at once, and none ends before
     * OpenCL says it is done (the H200's bench ran 200 pairs; past 16 the oldest used to end
     * early, and Direct3D's signals of `ready` then outran OpenCL's waits). */
    {
        enum { AHEAD = 40 };
        uint64_t values[AHEAD];
        int pending = 0;

        values[0] = in_and_out(device, &twin, true);
        for (int i = 1; i < AHEAD; i++)
            values[i] = in_and_out(device, &twin, false);
        behind = submit_behind(handle);
        for (int i = 0; i < AHEAD; i++)
            pending += release_state(twin.id, values[i]).state == DXCL_RELEASE_PENDING;
        check(pending == AHEAD, "%d releases ahead: all still pending (%d)", AHEAD, pending);
        check(!went_on_within(&behind, 50), "the queue waits for the first of them");
        /* This far ahead, a hand-in leaves `ready` alone (the host waits for it instead). */
        {
            struct dxcl_hand_over_item in = own_item(&twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_GENERAL);
            struct dxcl_hand_over batch = {.device = device, .count = 1};

            in.signal_ready = 1;
            batch.items[0] = in;
            REQUIRE(layer[DXCL_LAYER_HAND_OVER](&batch) == 0, "hand-in: %s", batch.error.text);
            check(batch.ready_skipped, "%d releases pending: the hand-in skips `ready`", AHEAD);
            batch = (struct dxcl_hand_over){.device = device, .count = 1};
            batch.items[0] = own_item(&twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL);
            batch.items[0].opencl_used = 0;
            REQUIRE(layer[DXCL_LAYER_HAND_OVER](&batch) == 0, "hand-out: %s", batch.error.text);
        }
        for (int i = 0; i < AHEAD; i++)
            released(twin.id, values[i], 0);
        check(went_on_within(&behind, 2000), "all told done: the queue goes on");
        state = release_state(twin.id, values[0]);
        check(state.state == DXCL_RELEASE_DONE, "the first ended done (%d, %d)", state.state,
              state.status);
    }

    /* The bound: nothing tells the release; the queue goes on after it all the same. */
    setenv("DXCL_GPU_WAIT_BOUND_MS", "300", 1);
    start = now_ms();
    v = in_and_out(device, &twin, true);
    behind = submit_behind(handle);
    check(went_on_within(&behind, 5000), "an untold release: the queue goes on at its bound");
    check(now_ms() - start >= 250, "not before it (%llu ms)",
          (unsigned long long)(now_ms() - start));
    state = release_state(twin.id, v);
    check(state.state == DXCL_RELEASE_FAILED && state.status == -1,
          "the release ended failed at its bound (%d, %d)", state.state, state.status);
    released(twin.id, v, 0); /* late: changes nothing */
    check(release_state(twin.id, v).state == DXCL_RELEASE_FAILED, "a late word changes nothing");
    /* OpenCL may not have taken `ready`'s last signal: the next hand-in does not signal it
     * (even on a busy device), until a later release ends done. */
    {
        struct dxcl_hand_over_item in = own_item(&twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_GENERAL);
        struct dxcl_hand_over batch = {.device = device, .count = 1};

        in.signal_ready = 1;
        batch.items[0] = in;
        REQUIRE(layer[DXCL_LAYER_HAND_OVER](&batch) == 0, "hand-in: %s", batch.error.text);
        check(batch.ready_skipped, "after a release ended at its bound, `ready` is not signalled");
        REQUIRE(wait_value(device, batch.done_value, 5000) == 0, "the hand-in ran");
        REQUIRE(
            hand_over(device, own_item(&twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL), &batch) == 0,
            "hand-out: %s", batch.error.text);
        released(twin.id, batch.items[0].release_value, 0);
        batch = (struct dxcl_hand_over){.device = device, .count = 1};
        batch.items[0] = in;
        REQUIRE(layer[DXCL_LAYER_HAND_OVER](&batch) == 0, "hand-in: %s", batch.error.text);
        check(!batch.ready_skipped, "a later release ended done: `ready` is signalled again");
        REQUIRE(wait_value(device, batch.done_value, 5000) == 0, "the hand-in ran");
        REQUIRE(
            hand_over(device, own_item(&twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL), &batch) == 0,
            "hand-out: %s", batch.error.text);
        released(twin.id, batch.items[0].release_value, 0);
    }
    unsetenv("DXCL_GPU_WAIT_BOUND_MS");
    check_empty_hand_ins(handle, device, &twin);

    /* Given up with a release pending: the queue goes on. */
    v = in_and_out(device, &twin, true);
    behind = submit_behind(handle);
    give_up(twin.id);
    check(went_on_within(&behind, 2000), "the twin given up: the queue goes on");
    vkDeviceWaitIdle(handle);
    vkDestroyImage(handle, like, NULL);
    vkDestroyDevice(handle, NULL);
}

/* ---- Idle hand-ins (progress.h) ---- */

static VkSemaphore make_timeline(VkDevice device)
{
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    VkSemaphore semaphore = VK_NULL_HANDLE;

    REQUIRE(vkCreateSemaphore(device, &info, NULL, &semaphore) == VK_SUCCESS, "timeline");
    return semaphore;
}

/* A hand-in that asks for `ready` unless idle: true when the layer skipped it. Its hand-out
 * follows (no release); with `settle` the host waits for both, so that the next ask sees only
 * what the program submitted since. */
static bool hand_in_skipped(uint64_t device, const struct dxcl_twin *twin, bool settle)
{
    struct dxcl_hand_over_item in = own_item(twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_GENERAL);
    struct dxcl_hand_over_item out = own_item(twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL);
    struct dxcl_hand_over batch;
    bool skipped;

    in.signal_ready = 1;
    out.opencl_used = 0;
    REQUIRE(hand_over(device, in, &batch) == 0, "hand-in: %s", batch.error.text);
    skipped = batch.ready_skipped;
    REQUIRE(hand_over(device, out, &batch) == 0, "hand-out: %s", batch.error.text);
    if (settle)
        REQUIRE(wait_value(device, batch.done_value, 5000) == 0, "the hand-out ran");
    return skipped;
}

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

static void check_idle_hand_ins(VkPhysicalDevice physical)
{
    VkDevice handle = make_device(physical);
    VkImage like = small_image(handle);
    VkSemaphore gate = make_timeline(handle), progress = make_timeline(handle);
    uint64_t device, two = 2;
    struct dxcl_twin twin;
    VkQueue queue;

    /* What the layer knows of the queues, through the setting that skips `ready` when idle.
     * Before sharing starts the layer keeps nothing of a submission (it goes straight on), so
     * the queue is unknown once sharing started, until its next batch. */
    setenv("DXCL_GPU_IDLE_READY", "host", 1);
    vkGetDeviceQueue(handle, 0, 0, &queue);
    submit_commands_alone(handle, queue);
    device = share(like, NULL);
    twin = make_twin(device, like, 4, 4, false, false);
    REQUIRE(twin.id, "twin: %s", twin.error.text);
    close(twin.fd);
    check(!hand_in_skipped(device, &twin, true),
          "sharing just started, the queue's earlier batches unknown: `ready` is signalled");
    check(hand_in_skipped(device, &twin, true), "the layer's own batches since: no ready");
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
    check(!hand_in_skipped(device, &twin, false), "a batch still waiting: `ready` is signalled");
    vkSignalSemaphore(handle,
                      &(VkSemaphoreSignalInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                               .semaphore = gate,
                                               .value = 1});
    vkQueueWaitIdle(queue);
    check(hand_in_skipped(device, &twin, true), "everything done: no ready");
    submit_commands_alone(handle, queue);
    check(!hand_in_skipped(device, &twin, true), "commands that signal no timeline: unknown");
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
    check(hand_in_skipped(device, &twin, true), "the layer's own batches after it: known done");
    unsetenv("DXCL_GPU_IDLE_READY");
    check(!hand_in_skipped(device, &twin, true),
          "by default an idle device's hand-in signals `ready` all the same (OpenCL waits on the "
          "GPU, not the host)");
    give_up(twin.id);
    vkDeviceWaitIdle(handle);
    vkDestroySemaphore(handle, progress, NULL);
    vkDestroySemaphore(handle, gate, NULL);
    vkDestroyImage(handle, like, NULL);
    vkDestroyDevice(handle, NULL);
}

/* ---- Threads: each hands its own twin over; one twin is given up under another's use ---- */

enum { HAND_OVERS = 150 };

struct hander {
    uint64_t device;
    struct dxcl_twin twin;
    pthread_mutex_t *queue_lock; /* DXVK's submission lock, as the program's caller holds it */
    int failures;
    bool may_vanish; /* its twin is given up by another thread: failures are expected */
    pthread_t thread;
};

static void *hand_over_loop(void *arg)
{
    struct hander *h = arg;
    struct dxcl_hand_over batch;
    int32_t result;

    for (int i = 0; i < HAND_OVERS; i++) {
        pthread_mutex_lock(h->queue_lock);
        result =
            hand_over(h->device, own_item(&h->twin, DXCL_HAND_IN, VK_IMAGE_LAYOUT_GENERAL), &batch);
        pthread_mutex_unlock(h->queue_lock);
        if (!result)
            result = wait_value(h->device, batch.done_value, 5000);
        if (!result) {
            pthread_mutex_lock(h->queue_lock);
            result = hand_over(h->device,
                               own_item(&h->twin, DXCL_HAND_OUT, VK_IMAGE_LAYOUT_GENERAL), &batch);
            pthread_mutex_unlock(h->queue_lock);
        }
        if (!result)
            released(h->twin.id, batch.items[0].release_value, 0);
        h->failures += result != 0;
        if (result && h->may_vanish)
            break;
    }
    return NULL;
}

static void check_threads(VkPhysicalDevice physical)
{
    VkDevice handle = make_device(physical);
    VkImage like = small_image(handle);
    uint64_t device = share(like, NULL);
    pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
    struct hander handers[THREADS];
    int failures = 0;

    for (int t = 0; t < THREADS; t++) {
        handers[t] = (struct hander){.device = device,
                                     .twin = make_twin(device, like, 32, 16, false, false),
                                     .queue_lock = &queue_lock,
                                     .may_vanish = t == THREADS - 1};
        REQUIRE(handers[t].twin.id, "twin %d: %s", t, handers[t].twin.error.text);
        close(handers[t].twin.fd);
        pthread_create(&handers[t].thread, NULL, hand_over_loop, &handers[t]);
    }
    usleep(20000);
    give_up(handers[THREADS - 1].twin.id); /* under its thread's use */
    for (int t = 0; t < THREADS; t++) {
        pthread_join(handers[t].thread, NULL);
        if (t < THREADS - 1)
            failures += handers[t].failures;
    }
    check(failures == 0, "%d threads, %d hand-overs each: %d failed", THREADS - 1, 2 * HAND_OVERS,
          failures);
    check(handers[THREADS - 1].failures <= 1, "the twin given up under its thread's use: its "
                                              "calls failed, nothing crashed");
    for (int t = 0; t < THREADS - 1; t++)
        give_up(handers[t].twin.id);
    vkDeviceWaitIdle(handle);
    vkDestroyImage(handle, like, NULL);
    vkDestroyDevice(handle, NULL);
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
    VkDevice handle = make_device_with(physical, NULL);
    VkImage image = small_image(handle);
    uint64_t device = share(image, NULL);
    struct dxcl_twin twin = make_twin(device, image, 4, 4, false, false);
    check(!twin.id && strstr(twin.error.text, "has no VK_KHR_external_memory_fd"),
          "a 1.0 device's image has no twin: %s", twin.error.text);
    vkDestroyImage(handle, image, NULL);
    vkDestroyDevice(handle, NULL);
    vkDestroyInstance(instance, NULL);
}

int main(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance;
    VkPhysicalDevice physical;
    uint32_t count = 1;
    static struct maker makers[THREADS];
    uint64_t ids[2];

    REQUIRE(vkCreateInstance(&info, NULL, &instance) == VK_SUCCESS, "vkCreateInstance");
    find_layer();
    vkEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE(count == 1, "no Vulkan device");
    check_passive(physical, "passive");
    check_passive(physical, NULL); /* no dxclunix.so in this process */

    VkDevice devices[2] = {make_device(physical), make_device(physical)};
    REQUIRE(vkGetDeviceProcAddr(devices[0], "vkGetMemoryFdKHR"),
            "the layer added no VK_KHR_external_memory_fd to the device");
    for (int t = 0; t < THREADS; t++) {
        memcpy(makers[t].devices, devices, sizeof(devices));
        pthread_create(&makers[t].thread, NULL, make_images, &makers[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(makers[t].thread, NULL);
    check_sharing_starts(devices, makers, ids);
    check_image_table(makers, ids);
    check_optimal_twin(physical, ids[0], makers[0].images[0]);
    check_host_visible_twins(ids[0], makers[0].images[0]);
    check_failures(ids[0], makers[0].images[0]);
    check_direct_twins(physical);
    check_releases(physical);
    check_idle_hand_ins(physical);
    check_threads(physical);

    /* devices[0] goes with thread 0's images still alive (a program's mistake): it can no
     * longer share; the other device keeps its images. */
    for (int t = 1; t < THREADS; t++)
        for (int i = 0; i < IMAGES_PER_THREAD; i += 2)
            if (makers[t].images[i])
                vkDestroyImage(devices[0], makers[t].images[i], NULL);
    vkDestroyDevice(devices[0], NULL);
    check(!make_twin(ids[0], makers[1].images[1], 4, 4, false, false).id,
          "a destroyed device's id names nothing");
    check(share(makers[0].images[1], NULL) == ids[1], "the other device is still found");
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
