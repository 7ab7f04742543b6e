/* Spike for issue 26 (docs/perf.md, "GPU interop spike"): can OpenCL use Vulkan memory and
 * semaphores of the same GPU through opaque file descriptors, with exact pixels, and at what cost?
 *
 * A native Linux program. It loads libvulkan.so.1 and libOpenCL.so.1 at run time, so a missing
 * loader, extension or entry point is one FAIL line and the rest still runs. Every step prints
 * one line "step: OK|FAIL detail"; the exit status is 0 when it ran to the end.
 *
 * Steps: pick the OpenCL device (cl_khr_device_uuid) and the Vulkan device of the same UUID;
 * export a dedicated 1920x1080 RGBA8 image (optimal and linear tiling) and a buffer of the same
 * bytes as opaque fds; where the fd is a memfd (lavapipe) mmap it and use it as host memory;
 * import each into OpenCL; Vulkan writes a pattern that OpenCL reads, OpenCL writes one that
 * Vulkan reads; time the import, 1080p copies on both sides and a Vulkan -> OpenCL -> Vulkan
 * round trip with a fence + clFinish and with exported binary semaphores. Step 4: the same
 * exchange on images made as DXVK makes a render target (color attachment, mutable format; one
 * mip level and a full chain), then render passes that clear the whole image or a rectangle,
 * read by OpenCL through its import of mip 0. */
#define _GNU_SOURCE
#define VK_NO_PROTOTYPES
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <vulkan/vulkan.h>
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WIDTH 1920u
#define HEIGHT 1080u
#define PIXEL_BYTES 4u
#define FRAME_BYTES ((VkDeviceSize)WIDTH * HEIGHT * PIXEL_BYTES)
#define TIMING_RUNS 20
#define ROUND_TRIPS 100
#define FENCE_TIMEOUT_NS 5000000000ull
#define STEP_WATCHDOG_S 60
#define SEED_VULKAN 1u         /* what Vulkan writes */
#define SEED_OPENCL 2u         /* what OpenCL writes */
#define FILL_PIXEL 0xFF0033FFu /* RGBA (255, 51, 0, 255) as clEnqueueFill* writes it */
#define ERRCODE_NOT_SET 12345  /* no OpenCL error has this value */

/* ---- steps, output, watchdog ----------------------------------------------------------- */

static const char *current_step = "start";
static int failures;
static int gpu_stuck; /* a round trip failed: the queues may never drain, so no waits at the end */

static void on_signal(int sig)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%s: FAIL %s during this step; stopping\n", current_step,
                     sig == SIGALRM ? "watchdog: no progress in 60 s" : strsignal(sig));
    if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0)
        _exit(3);
    _exit(sig == SIGALRM ? 4 : 3);
}

static void step_begin(const char *name)
{
    current_step = name;
    alarm(STEP_WATCHDOG_S);
}

static void step_line(const char *name, int ok, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    printf("%s: %s ", name, ok ? "OK" : "FAIL");
    vprintf(fmt, args);
    printf("\n");
    va_end(args);
    if (!ok)
        failures++;
}

static uint64_t now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_us(uint64_t *ns, int count)
{
    qsort(ns, (size_t)count, sizeof *ns, compare_u64);
    return (double)ns[count / 2] / 1000.0;
}

static double mean_us(const uint64_t *ns, int count)
{
    double sum = 0;
    for (int i = 0; i < count; i++)
        sum += (double)ns[i];
    return sum / count / 1000.0;
}

/* A pixel that differs with x, y and the writer, so any misplaced byte shows (a uniform clear
 * would look right under any tiling). */
static uint32_t pattern_pixel(uint32_t x, uint32_t y, uint32_t seed)
{
    uint32_t h = x * 0x9E3779B1u ^ y * 0x85EBCA77u ^ seed * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static void pattern_fill(uint32_t *pixels, uint32_t seed)
{
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++)
            pixels[y * WIDTH + x] = pattern_pixel(x, y, seed);
}

/* The rectangle clEnqueueFillImage/FillBuffer overwrites after OpenCL's pattern. */
static const size_t fill_origin[3] = {100, 50, 0}, fill_region[3] = {256, 128, 1};

static int in_fill_rect(uint32_t x, uint32_t y)
{
    return x >= fill_origin[0] && x < fill_origin[0] + fill_region[0] && y >= fill_origin[1] &&
           y < fill_origin[1] + fill_region[1];
}

/* Compares rows of `pixels` (row_pitch bytes apart) with the expected pattern; with_fill: the
 * fill rectangle holds FILL_PIXEL. Writes "exact" or the mismatch count and the first one. */
static int pattern_check(const void *pixels, size_t row_pitch, uint32_t seed, int with_fill,
                         char *what, size_t what_size)
{
    uint64_t bad = 0;
    uint32_t first_x = 0, first_y = 0, got = 0, want = 0;
    for (uint32_t y = 0; y < HEIGHT; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)pixels + (size_t)y * row_pitch);
        for (uint32_t x = 0; x < WIDTH; x++) {
            uint32_t expected =
                with_fill && in_fill_rect(x, y) ? FILL_PIXEL : pattern_pixel(x, y, seed);
            if (row[x] == expected)
                continue;
            if (bad++ == 0) {
                first_x = x;
                first_y = y;
                got = row[x];
                want = expected;
            }
        }
    }
    if (bad == 0)
        snprintf(what, what_size, "exact (%u x %u pixels)", WIDTH, HEIGHT);
    else
        snprintf(what, what_size,
                 "%" PRIu64 " of %u pixels differ, first at (%u,%u): 0x%08x, expected 0x%08x", bad,
                 WIDTH * HEIGHT, first_x, first_y, got, want);
    return bad == 0;
}

/* ---- OpenCL, loaded at run time --------------------------------------------------------- */

#define CL_CORE_FUNCS(X)                                                                           \
    X(clGetPlatformIDs)                                                                            \
    X(clGetPlatformInfo)                                                                           \
    X(clGetDeviceIDs)                                                                              \
    X(clGetDeviceInfo)                                                                             \
    X(clCreateContext)                                                                             \
    X(clReleaseContext)                                                                            \
    X(clCreateCommandQueue)                                                                        \
    X(clReleaseCommandQueue)                                                                       \
    X(clCreateBuffer)                                                                              \
    X(clCreateImage)                                                                               \
    X(clReleaseMemObject)                                                                          \
    X(clEnqueueReadImage)                                                                          \
    X(clEnqueueWriteImage)                                                                         \
    X(clEnqueueReadBuffer)                                                                         \
    X(clEnqueueWriteBuffer)                                                                        \
    X(clEnqueueCopyImage)                                                                          \
    X(clEnqueueCopyBufferToImage)                                                                  \
    X(clEnqueueFillImage)                                                                          \
    X(clEnqueueFillBuffer)                                                                         \
    X(clFlush)                                                                                     \
    X(clFinish)                                                                                    \
    X(clWaitForEvents)                                                                             \
    X(clGetEventProfilingInfo)                                                                     \
    X(clReleaseEvent)                                                                              \
    X(clGetExtensionFunctionAddressForPlatform)
/* OpenCL 3.0: an older loader lacks them; looked up, not required. */
#define CL_30_FUNCS(X)                                                                             \
    X(clCreateBufferWithProperties)                                                                \
    X(clCreateImageWithProperties)

#define CL_DECLARE(name) __typeof__(&name) name;
static struct {
    CL_CORE_FUNCS(CL_DECLARE)
    CL_30_FUNCS(CL_DECLARE)
} cl;

struct cl_side {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    int has_uuid, has_memory_fd, has_semaphore_fd;
    uint8_t uuid[CL_UUID_SIZE_KHR];
    clEnqueueAcquireExternalMemObjectsKHR_fn acquire;
    clEnqueueReleaseExternalMemObjectsKHR_fn release;
    clCreateSemaphoreWithPropertiesKHR_fn create_semaphore;
    clEnqueueWaitSemaphoresKHR_fn wait_semaphores;
    clEnqueueSignalSemaphoresKHR_fn signal_semaphores;
    clReleaseSemaphoreKHR_fn release_semaphore;
};

static int cl_load(void)
{
    step_begin("cl-loader");
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        step_line("cl-loader", 0, "dlopen libOpenCL.so.1: %s", dlerror());
        return 0;
    }
    const char *missing = NULL;
#define CL_LOOKUP(name)                                                                            \
    if (!(cl.name = (__typeof__(cl.name))dlsym(lib, #name)) && !missing)                           \
        missing = #name;
    CL_CORE_FUNCS(CL_LOOKUP)
#undef CL_LOOKUP
    if (missing) {
        step_line("cl-loader", 0, "libOpenCL.so.1 lacks %s", missing);
        return 0;
    }
    cl.clCreateBufferWithProperties =
        (__typeof__(cl.clCreateBufferWithProperties))dlsym(lib, "clCreateBufferWithProperties");
    cl.clCreateImageWithProperties =
        (__typeof__(cl.clCreateImageWithProperties))dlsym(lib, "clCreateImageWithProperties");
    step_line("cl-loader", 1,
              "libOpenCL.so.1; clCreateBufferWithProperties %s, "
              "clCreateImageWithProperties %s",
              cl.clCreateBufferWithProperties ? "exported" : "MISSING",
              cl.clCreateImageWithProperties ? "exported" : "MISSING");
    return 1;
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static void uuid_text(const uint8_t *uuid, char *text)
{
    for (int i = 0; i < 16; i++)
        sprintf(text + 2 * i + (i >= 4) + (i >= 6) + (i >= 8) + (i >= 10), "%02x", uuid[i]);
    text[8] = text[13] = text[18] = text[23] = '-';
    text[36] = '\0';
}

/* The list of handle types a device info query returns, as hex words. */
static void handle_types_text(cl_device_id device, cl_device_info what, char *text, size_t size)
{
    cl_uint types[16];
    size_t bytes = 0;
    text[0] = '\0';
    if (cl.clGetDeviceInfo(device, what, sizeof types, types, &bytes) != CL_SUCCESS) {
        snprintf(text, size, "(query failed)");
        return;
    }
    if (bytes == 0)
        snprintf(text, size, "none");
    for (size_t i = 0; i < bytes / sizeof *types; i++) {
        size_t used = strlen(text);
        snprintf(text + used, size - used, "%s0x%04x", i ? "," : "", types[i]);
    }
}

/* The first GPU of any platform that has cl_khr_device_uuid, else the first device at all. */
static int cl_pick_device(struct cl_side *c)
{
    cl_platform_id platforms[8];
    cl_uint platform_count = 0;
    int found = 0, found_uuid = 0;
    step_begin("cl-platform");
    if (cl.clGetPlatformIDs(8, platforms, &platform_count) != CL_SUCCESS || platform_count == 0) {
        step_line("cl-platform", 0, "no OpenCL platform");
        return 0;
    }
    for (cl_uint p = 0; p < platform_count && p < 8 && !found_uuid; p++) {
        cl_device_id devices[8];
        cl_uint device_count = 0;
        if (cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 8, devices, &device_count))
            continue;
        for (cl_uint d = 0; d < device_count && d < 8 && !found_uuid; d++) {
            char extensions[8192] = "";
            cl.clGetDeviceInfo(devices[d], CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions,
                               NULL);
            int uuid = has_word(extensions, "cl_khr_device_uuid");
            if (!found || uuid) {
                c->platform = platforms[p];
                c->device = devices[d];
                found = 1;
                found_uuid = uuid;
            }
        }
    }
    if (!found) {
        step_line("cl-platform", 0, "no OpenCL device");
        return 0;
    }
    char platform_name[256] = "", platform_version[256] = "", device_name[256] = "",
         driver[256] = "", extensions[8192] = "";
    cl.clGetPlatformInfo(c->platform, CL_PLATFORM_NAME, 255, platform_name, NULL);
    cl.clGetPlatformInfo(c->platform, CL_PLATFORM_VERSION, 255, platform_version, NULL);
    cl.clGetDeviceInfo(c->device, CL_DEVICE_NAME, 255, device_name, NULL);
    cl.clGetDeviceInfo(c->device, CL_DRIVER_VERSION, 255, driver, NULL);
    cl.clGetDeviceInfo(c->device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
    step_line("cl-platform", 1, "%s, %s; device %s, driver %s", platform_name, platform_version,
              device_name, driver);

    static const char *wanted[] = {
        "cl_khr_device_uuid", "cl_khr_external_memory",    "cl_khr_external_memory_opaque_fd",
        "cl_khr_semaphore",   "cl_khr_external_semaphore", "cl_khr_external_semaphore_opaque_fd"};
    char summary[512] = "";
    int all = 1;
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++) {
        int has = has_word(extensions, wanted[i]);
        all &= has;
        size_t used = strlen(summary);
        snprintf(summary + used, sizeof summary - used, "%s%s=%s", i ? " " : "", wanted[i],
                 has ? "yes" : "MISSING");
    }
    step_line("cl-extensions", all, "%s", summary);
    c->has_uuid = has_word(extensions, "cl_khr_device_uuid");
    c->has_memory_fd = has_word(extensions, "cl_khr_external_memory_opaque_fd");
    c->has_semaphore_fd = has_word(extensions, "cl_khr_external_semaphore_opaque_fd");

    char memory_types[128], semaphore_types[128];
    handle_types_text(c->device, CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR, memory_types,
                      sizeof memory_types);
    handle_types_text(c->device, CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR, semaphore_types,
                      sizeof semaphore_types);
    step_line("cl-import-types", c->has_memory_fd,
              "memory import %s, semaphore import %s (opaque fd: memory 0x%04x, semaphore 0x%04x)",
              memory_types, semaphore_types, CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
              CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR);

    if (c->has_uuid && cl.clGetDeviceInfo(c->device, CL_DEVICE_UUID_KHR, CL_UUID_SIZE_KHR, c->uuid,
                                          NULL) == CL_SUCCESS) {
        char text[40];
        uuid_text(c->uuid, text);
        step_line("cl-uuid", 1, "%s", text);
    } else {
        c->has_uuid = 0;
        step_line("cl-uuid", 0, "missing cl_khr_device_uuid: cannot prove Vulkan is the same GPU");
    }
    return 1;
}

static void *cl_extension_function(struct cl_side *c, const char *name, char *missing,
                                   size_t missing_size)
{
    void *function = cl.clGetExtensionFunctionAddressForPlatform(c->platform, name);
    if (!function) {
        size_t used = strlen(missing);
        snprintf(missing + used, missing_size - used, " %s", name);
    }
    return function;
}

static int cl_open(struct cl_side *c)
{
    cl_int err;
    step_begin("cl-context");
    c->context = cl.clCreateContext(NULL, 1, &c->device, NULL, NULL, &err);
    if (!c->context) {
        step_line("cl-context", 0, "clCreateContext: %d", err);
        return 0;
    }
    c->queue = cl.clCreateCommandQueue(c->context, c->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!c->queue) {
        step_line("cl-context", 0, "clCreateCommandQueue: %d", err);
        return 0;
    }
    char missing[512] = "";
    c->acquire = (clEnqueueAcquireExternalMemObjectsKHR_fn)cl_extension_function(
        c, "clEnqueueAcquireExternalMemObjectsKHR", missing, sizeof missing);
    c->release = (clEnqueueReleaseExternalMemObjectsKHR_fn)cl_extension_function(
        c, "clEnqueueReleaseExternalMemObjectsKHR", missing, sizeof missing);
    c->create_semaphore = (clCreateSemaphoreWithPropertiesKHR_fn)cl_extension_function(
        c, "clCreateSemaphoreWithPropertiesKHR", missing, sizeof missing);
    c->wait_semaphores = (clEnqueueWaitSemaphoresKHR_fn)cl_extension_function(
        c, "clEnqueueWaitSemaphoresKHR", missing, sizeof missing);
    c->signal_semaphores = (clEnqueueSignalSemaphoresKHR_fn)cl_extension_function(
        c, "clEnqueueSignalSemaphoresKHR", missing, sizeof missing);
    c->release_semaphore = (clReleaseSemaphoreKHR_fn)cl_extension_function(
        c, "clReleaseSemaphoreKHR", missing, sizeof missing);
    step_line("cl-context", 1, "context and profiling queue made");
    step_line("cl-entry-points", missing[0] == '\0', "%s%s",
              missing[0] ? "missing:" : "all external memory and semaphore functions found",
              missing);
    return 1;
}

/* ---- Vulkan, loaded at run time --------------------------------------------------------- */

#define VK_INSTANCE_FUNCS(X)                                                                       \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceProperties2)                                                              \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkGetPhysicalDeviceImageFormatProperties2)                                                   \
    X(vkGetPhysicalDeviceExternalBufferProperties)                                                 \
    X(vkGetPhysicalDeviceExternalSemaphoreProperties)                                              \
    X(vkCreateDevice)                                                                              \
    X(vkGetDeviceProcAddr)
#define VK_DEVICE_FUNCS(X)                                                                         \
    X(vkDestroyDevice)                                                                             \
    X(vkGetDeviceQueue)                                                                            \
    X(vkDeviceWaitIdle)                                                                            \
    X(vkCreateImage)                                                                               \
    X(vkDestroyImage)                                                                              \
    X(vkCreateBuffer)                                                                              \
    X(vkDestroyBuffer)                                                                             \
    X(vkGetImageMemoryRequirements2)                                                               \
    X(vkGetBufferMemoryRequirements2)                                                              \
    X(vkGetImageSubresourceLayout)                                                                 \
    X(vkAllocateMemory)                                                                            \
    X(vkFreeMemory)                                                                                \
    X(vkBindImageMemory)                                                                           \
    X(vkBindBufferMemory)                                                                          \
    X(vkMapMemory)                                                                                 \
    X(vkCreateCommandPool)                                                                         \
    X(vkDestroyCommandPool)                                                                        \
    X(vkAllocateCommandBuffers)                                                                    \
    X(vkBeginCommandBuffer)                                                                        \
    X(vkEndCommandBuffer)                                                                          \
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdCopyBufferToImage)                                                                      \
    X(vkCmdCopyImageToBuffer)                                                                      \
    X(vkCmdCopyImage)                                                                              \
    X(vkCmdResetQueryPool)                                                                         \
    X(vkCmdWriteTimestamp)                                                                         \
    X(vkCreateQueryPool)                                                                           \
    X(vkDestroyQueryPool)                                                                          \
    X(vkGetQueryPoolResults)                                                                       \
    X(vkQueueSubmit)                                                                               \
    X(vkCreateFence)                                                                               \
    X(vkDestroyFence)                                                                              \
    X(vkWaitForFences)                                                                             \
    X(vkResetFences)                                                                               \
    X(vkCreateSemaphore)                                                                           \
    X(vkDestroySemaphore)                                                                          \
    X(vkCreateImageView)                                                                           \
    X(vkDestroyImageView)                                                                          \
    X(vkCreateRenderPass)                                                                          \
    X(vkDestroyRenderPass)                                                                         \
    X(vkCreateFramebuffer)                                                                         \
    X(vkDestroyFramebuffer)                                                                        \
    X(vkCmdBeginRenderPass)                                                                        \
    X(vkCmdEndRenderPass)                                                                          \
    X(vkCmdClearAttachments)
/* Extension functions: NULL when the extension is absent. */
#define VK_DEVICE_EXT_FUNCS(X)                                                                     \
    X(vkGetMemoryFdKHR)                                                                            \
    X(vkGetSemaphoreFdKHR)

#define VK_DECLARE(name) PFN_##name name;
static struct {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    PFN_vkCreateInstance vkCreateInstance;
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion;
    VK_INSTANCE_FUNCS(VK_DECLARE)
    VK_DEVICE_FUNCS(VK_DECLARE)
    VK_DEVICE_EXT_FUNCS(VK_DECLARE)
} vk;

struct vk_side {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    int same_gpu, has_memory_fd, has_semaphore_fd;
    float timestamp_period_ns;
    uint32_t timestamp_bits;
    VkPhysicalDeviceMemoryProperties memory;
    VkCommandPool pool;
    VkCommandBuffer cmd, cmds[2]; /* cmd: the one being recorded, one of cmds */
    VkFence fence;
    VkQueryPool queries;
};

static int vk_load(struct vk_side *v)
{
    step_begin("vk-loader");
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        step_line("vk-loader", 0, "dlopen libvulkan.so.1: %s", dlerror());
        return 0;
    }
    vk.vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
    if (!vk.vkGetInstanceProcAddr) {
        step_line("vk-loader", 0, "libvulkan.so.1 lacks vkGetInstanceProcAddr");
        return 0;
    }
    vk.vkCreateInstance = (PFN_vkCreateInstance)vk.vkGetInstanceProcAddr(NULL, "vkCreateInstance");
    vk.vkEnumerateInstanceVersion = (PFN_vkEnumerateInstanceVersion)vk.vkGetInstanceProcAddr(
        NULL, "vkEnumerateInstanceVersion");
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vk.vkEnumerateInstanceVersion)
        vk.vkEnumerateInstanceVersion(&loader_version);
    step_line("vk-loader", 1, "libvulkan.so.1, instance version %u.%u.%u",
              VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version),
              VK_API_VERSION_PATCH(loader_version));

    step_begin("vk-instance");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "vk_cl_interop",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkResult result = vk.vkCreateInstance ? vk.vkCreateInstance(&info, NULL, &v->instance)
                                          : VK_ERROR_INITIALIZATION_FAILED;
    if (result != VK_SUCCESS) {
        step_line("vk-instance", 0, "vkCreateInstance: %d (no Vulkan driver found?)", result);
        return 0;
    }
    const char *missing = NULL;
#define VK_LOOKUP_INSTANCE(name)                                                                   \
    if (!(vk.name = (PFN_##name)vk.vkGetInstanceProcAddr(v->instance, #name)) && !missing)         \
        missing = #name;
    VK_INSTANCE_FUNCS(VK_LOOKUP_INSTANCE)
#undef VK_LOOKUP_INSTANCE
    if (missing) {
        step_line("vk-instance", 0, "no %s (Vulkan 1.1 needed)", missing);
        return 0;
    }
    step_line("vk-instance", 1, "Vulkan 1.1 instance made");
    return 1;
}

static int vk_has_extension(const VkExtensionProperties *list, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(list[i].extensionName, name) == 0)
            return 1;
    return 0;
}

/* Lists every physical device; picks the one whose deviceUUID is OpenCL's. */
static int vk_pick_device(struct vk_side *v, const struct cl_side *c)
{
    VkPhysicalDevice devices[16];
    uint32_t count = 16;
    step_begin("vk-devices");
    if (vk.vkEnumeratePhysicalDevices(v->instance, &count, devices) < 0 || count == 0) {
        step_line("vk-devices", 0, "no Vulkan physical device");
        return 0;
    }
    int chosen = -1;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceDriverProperties driver = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                           .pNext = &driver};
        VkPhysicalDeviceProperties2 props = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
        VkPhysicalDeviceProperties plain;
        vk.vkGetPhysicalDeviceProperties(devices[i], &plain);
        if (plain.apiVersion < VK_API_VERSION_1_2)
            id.pNext = NULL; /* VkPhysicalDeviceDriverProperties is Vulkan 1.2 */
        vk.vkGetPhysicalDeviceProperties2(devices[i], &props);
        char text[40], name[40];
        uuid_text(id.deviceUUID, text);
        snprintf(name, sizeof name, "vk-device-%u", i);
        int match = c->has_uuid && memcmp(id.deviceUUID, c->uuid, VK_UUID_SIZE) == 0;
        step_line(name, 1, "%s, Vulkan %u.%u.%u, driver %s %s, deviceUUID %s%s",
                  props.properties.deviceName, VK_API_VERSION_MAJOR(plain.apiVersion),
                  VK_API_VERSION_MINOR(plain.apiVersion), VK_API_VERSION_PATCH(plain.apiVersion),
                  id.pNext ? driver.driverName : "?", id.pNext ? driver.driverInfo : "", text,
                  match ? " = OpenCL's" : "");
        if (match && chosen < 0)
            chosen = (int)i;
    }
    v->same_gpu = chosen >= 0;
    if (chosen < 0) {
        step_line("vk-match-uuid", 0,
                  "no Vulkan device has OpenCL's UUID%s; using device 0 for the Vulkan-only steps",
                  c->has_uuid ? "" : " (OpenCL gave none)");
        chosen = 0;
    } else {
        step_line("vk-match-uuid", 1, "Vulkan device %d is OpenCL's device", chosen);
    }
    v->physical = devices[chosen];
    return 1;
}

static int vk_open(struct vk_side *v)
{
    step_begin("vk-extensions");
    uint32_t count = 0;
    vk.vkEnumerateDeviceExtensionProperties(v->physical, NULL, &count, NULL);
    VkExtensionProperties *extensions = calloc(count ? count : 1, sizeof *extensions);
    vk.vkEnumerateDeviceExtensionProperties(v->physical, NULL, &count, extensions);
    v->has_memory_fd =
        vk_has_extension(extensions, count, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    v->has_semaphore_fd =
        vk_has_extension(extensions, count, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    step_line("vk-ext-memory-fd", v->has_memory_fd, "%s %s",
              VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, v->has_memory_fd ? "offered" : "MISSING");
    step_line("vk-ext-semaphore-fd", v->has_semaphore_fd, "%s %s",
              VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
              v->has_semaphore_fd ? "offered" : "MISSING");
    printf("vk-extension-list: OK %u:", count);
    for (uint32_t i = 0; i < count; i++)
        printf(" %s", extensions[i].extensionName);
    printf("\n");
    free(extensions);

    step_begin("vk-device");
    uint32_t families = 0;
    vk.vkGetPhysicalDeviceQueueFamilyProperties(v->physical, &families, NULL);
    VkQueueFamilyProperties *family = calloc(families ? families : 1, sizeof *family);
    vk.vkGetPhysicalDeviceQueueFamilyProperties(v->physical, &families, family);
    v->family = UINT32_MAX;
    for (uint32_t i = 0; i < families && v->family == UINT32_MAX; i++)
        if (family[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
            v->family = i;
    if (v->family == UINT32_MAX) {
        free(family);
        step_line("vk-device", 0, "no graphics or compute queue");
        return 0;
    }
    v->timestamp_bits = family[v->family].timestampValidBits;
    free(family);
    VkPhysicalDeviceProperties props;
    vk.vkGetPhysicalDeviceProperties(v->physical, &props);
    v->timestamp_period_ns = props.limits.timestampPeriod;
    vk.vkGetPhysicalDeviceMemoryProperties(v->physical, &v->memory);

    const char *enabled[2];
    uint32_t enabled_count = 0;
    if (v->has_memory_fd)
        enabled[enabled_count++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    if (v->has_semaphore_fd)
        enabled[enabled_count++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = v->family,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                               .queueCreateInfoCount = 1,
                               .pQueueCreateInfos = &queue,
                               .enabledExtensionCount = enabled_count,
                               .ppEnabledExtensionNames = enabled};
    VkResult result = vk.vkCreateDevice(v->physical, &info, NULL, &v->device);
    if (result != VK_SUCCESS) {
        step_line("vk-device", 0, "vkCreateDevice: %d", result);
        return 0;
    }
    const char *missing = NULL;
#define VK_LOOKUP_DEVICE(name)                                                                     \
    if (!(vk.name = (PFN_##name)vk.vkGetDeviceProcAddr(v->device, #name)) && !missing)             \
        missing = #name;
    VK_DEVICE_FUNCS(VK_LOOKUP_DEVICE)
#undef VK_LOOKUP_DEVICE
    if (missing) {
        step_line("vk-device", 0, "no %s", missing);
        return 0;
    }
    vk.vkGetMemoryFdKHR =
        v->has_memory_fd
            ? (PFN_vkGetMemoryFdKHR)vk.vkGetDeviceProcAddr(v->device, "vkGetMemoryFdKHR")
            : NULL;
    vk.vkGetSemaphoreFdKHR =
        v->has_semaphore_fd
            ? (PFN_vkGetSemaphoreFdKHR)vk.vkGetDeviceProcAddr(v->device, "vkGetSemaphoreFdKHR")
            : NULL;
    vk.vkGetDeviceQueue(v->device, v->family, 0, &v->queue);

    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = v->family};
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkQueryPoolCreateInfo queries = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = 2};
    if (vk.vkCreateCommandPool(v->device, &pool, NULL, &v->pool) ||
        vk.vkCreateFence(v->device, &fence, NULL, &v->fence) ||
        vk.vkCreateQueryPool(v->device, &queries, NULL, &v->queries)) {
        step_line("vk-device", 0, "command pool, fence or query pool not made");
        return 0;
    }
    VkCommandBufferAllocateInfo cmd = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = v->pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 2};
    if (vk.vkAllocateCommandBuffers(v->device, &cmd, v->cmds)) {
        step_line("vk-device", 0, "no command buffer");
        return 0;
    }
    step_line("vk-device", 1, "queue family %u, timestamps %u bits, %.3f ns a tick", v->family,
              v->timestamp_bits, v->timestamp_period_ns);
    return 1;
}

/* Starts recording into command buffer `index` (the other may still be pending). */
static void vk_begin_on(struct vk_side *v, int index)
{
    v->cmd = v->cmds[index];
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vk.vkBeginCommandBuffer(v->cmd, &begin);
}

static void vk_begin(struct vk_side *v)
{
    vk_begin_on(v, 0);
}

enum submit_mode { SUBMIT_NO_FENCE, SUBMIT_FENCE, SUBMIT_AND_WAIT };

/* Ends the command buffer, submits it with optional semaphores, the fence unless NO_FENCE, and
 * AND_WAIT blocks on the fence (FENCE_TIMEOUT_NS). Returns the first error. */
static VkResult vk_submit(struct vk_side *v, VkSemaphore wait_on, VkSemaphore signal,
                          enum submit_mode mode)
{
    vk.vkEndCommandBuffer(v->cmd);
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .waitSemaphoreCount = wait_on ? 1 : 0,
                           .pWaitSemaphores = &wait_on,
                           .pWaitDstStageMask = &stage,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &v->cmd,
                           .signalSemaphoreCount = signal ? 1 : 0,
                           .pSignalSemaphores = &signal};
    if (mode != SUBMIT_NO_FENCE)
        vk.vkResetFences(v->device, 1, &v->fence);
    VkResult result =
        vk.vkQueueSubmit(v->queue, 1, &submit, mode == SUBMIT_NO_FENCE ? VK_NULL_HANDLE : v->fence);
    if (result != VK_SUCCESS || mode != SUBMIT_AND_WAIT)
        return result;
    return vk.vkWaitForFences(v->device, 1, &v->fence, VK_TRUE, FENCE_TIMEOUT_NS);
}

static VkResult vk_wait(struct vk_side *v)
{
    return vk.vkWaitForFences(v->device, 1, &v->fence, VK_TRUE, FENCE_TIMEOUT_NS);
}

/* Every image lives in GENERAL layout after its first use; these barriers hand it to OpenCL
 * (release to VK_QUEUE_FAMILY_EXTERNAL) and take it back, with full memory dependencies. */
enum ownership { KEEP, TO_EXTERNAL, FROM_EXTERNAL, FROM_UNDEFINED };

static void vk_image_barrier(struct vk_side *v, VkImage image, enum ownership move)
{
    VkImageMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
        .oldLayout = move == FROM_UNDEFINED ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_GENERAL,
        .newLayout = VK_IMAGE_LAYOUT_GENERAL,
        .srcQueueFamilyIndex = move == FROM_EXTERNAL ? VK_QUEUE_FAMILY_EXTERNAL : v->family,
        .dstQueueFamilyIndex = move == TO_EXTERNAL ? VK_QUEUE_FAMILY_EXTERNAL : v->family,
        .image = image,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    if (move == KEEP || move == FROM_UNDEFINED)
        barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    vk.vkCmdPipelineBarrier(v->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &barrier);
}

static void vk_buffer_barrier(struct vk_side *v, VkBuffer buffer, enum ownership move)
{
    VkBufferMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
        .srcQueueFamilyIndex = move == FROM_EXTERNAL ? VK_QUEUE_FAMILY_EXTERNAL : v->family,
        .dstQueueFamilyIndex = move == TO_EXTERNAL ? VK_QUEUE_FAMILY_EXTERNAL : v->family,
        .buffer = buffer,
        .size = VK_WHOLE_SIZE};
    if (move == KEEP || move == FROM_UNDEFINED)
        barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    vk.vkCmdPipelineBarrier(v->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 1, &barrier, 0, NULL);
}

static const VkBufferImageCopy whole_frame = {
    .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {WIDTH, HEIGHT, 1}};
static const VkImageCopy whole_image = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                        .extent = {WIDTH, HEIGHT, 1}};

static int32_t vk_memory_type(const struct vk_side *v, uint32_t allowed, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < v->memory.memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (v->memory.memoryTypes[i].propertyFlags & want) == want)
            return (int32_t)i;
    return -1;
}

/* ---- the shared objects ----------------------------------------------------------------- */

/* IMAGE_RT, IMAGE_RT_MIPS (step 4): made as DXVK makes a D3D11 DEFAULT texture bound as shader
 * resource, render target and unordered access (color attachment and storage usage, a mutable
 * format with UNORM and SRGB views), one mip level or a full chain, made exportable. */
enum object_kind {
    IMAGE_OPTIMAL,
    IMAGE_LINEAR,
    BUFFER,
    PLAIN_IMAGE,
    STAGING,
    IMAGE_RT,
    IMAGE_RT_MIPS
};

struct object {
    const char *name;
    enum object_kind kind;
    VkImage image;
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize allocation;
    VkSubresourceLayout layout; /* linear images */
    int fd;
    void *mapped;       /* STAGING: vkMapMemory; exported: mmap of a memfd */
    size_t mapped_size; /* the memfd's whole mapping */
    uint8_t *data;      /* the memfd's bytes of the object, after Mesa's header */
    cl_mem cl_object;
    cl_mem host_view; /* an OpenCL buffer on `mapped` (the CPU stack's stand-in for import) */
};

static int is_image(const struct object *o)
{
    return o->kind != BUFFER && o->kind != STAGING;
}

static int is_exported(const struct object *o)
{
    return o->kind == IMAGE_OPTIMAL || o->kind == IMAGE_LINEAR || o->kind == BUFFER ||
           o->kind == IMAGE_RT || o->kind == IMAGE_RT_MIPS;
}

static int is_optimal(const struct object *o)
{
    return o->kind == IMAGE_OPTIMAL || o->kind == IMAGE_RT || o->kind == IMAGE_RT_MIPS;
}

static int is_render_target(const struct object *o)
{
    return o->kind == IMAGE_RT || o->kind == IMAGE_RT_MIPS;
}

static const VkFormat rt_view_formats[2] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB};

static const VkExternalMemoryHandleTypeFlagBits opaque_fd =
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

/* Can this image be exported as an opaque fd? Prints the driver's answer. */
static int vk_image_exportable(struct vk_side *v, struct object *o, VkImageUsageFlags usage)
{
    VkImageCreateFlags flags = is_render_target(o) ? VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT : 0;
    VkPhysicalDeviceExternalImageFormatInfo external = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
        .handleType = opaque_fd};
    VkPhysicalDeviceImageFormatInfo2 info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
        .pNext = &external,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .type = VK_IMAGE_TYPE_2D,
        .tiling = o->kind == IMAGE_LINEAR ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .flags = flags};
    VkExternalImageFormatProperties external_props = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
    VkImageFormatProperties2 props = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
                                      .pNext = &external_props};
    VkResult result = vk.vkGetPhysicalDeviceImageFormatProperties2(v->physical, &info, &props);
    VkExternalMemoryFeatureFlags features =
        external_props.externalMemoryProperties.externalMemoryFeatures;
    char name[64];
    snprintf(name, sizeof name, "vk-format-%s", o->name);
    int ok = result == VK_SUCCESS && (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT);
    step_line(name, ok,
              "RGBA8 %s usage 0x%x flags 0x%x: %d, opaque fd exportable %s importable %s "
              "dedicated-only %s",
              o->kind == IMAGE_LINEAR ? "linear" : "optimal", usage, flags, result,
              features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT ? "yes" : "no",
              features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT ? "yes" : "no",
              features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT ? "yes" : "no");
    return ok;
}

static void fd_target(int fd, char *text, size_t size)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, text, size - 1);
    text[n > 0 ? n : 0] = '\0';
}

/* Makes the object; exported ones get dedicated memory with export info and an fd. */
static int object_create(struct vk_side *v, struct object *o)
{
    char step[64];
    snprintf(step, sizeof step, "export-%s", o->name);
    step_begin(step);
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    o->fd = -1;
    int exported = is_exported(o);
    if (exported && !v->has_memory_fd) {
        step_line(step, 0, "missing VK_KHR_external_memory_fd");
        return 0;
    }
    VkExternalMemoryImageCreateInfo image_external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO, .handleTypes = opaque_fd};
    VkExternalMemoryBufferCreateInfo buffer_external = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = opaque_fd};
    VkMemoryDedicatedRequirements dedicated = {.sType =
                                                   VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 requirements = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
                                          .pNext = &dedicated};
    VkResult result;
    if (is_image(o)) {
        VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                  VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                  VK_IMAGE_USAGE_STORAGE_BIT;
        VkImageFormatListCreateInfo view_formats = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO,
            .viewFormatCount = 2,
            .pViewFormats = rt_view_formats};
        if (is_render_target(o)) {
            usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
            image_external.pNext = &view_formats;
            if (!vk_image_exportable(v, o, usage)) {
                step_line(step, 0, "the driver exports no such render target");
                return 0;
            }
        }
        if (exported && !is_render_target(o) && !vk_image_exportable(v, o, usage)) {
            usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
            if (!vk_image_exportable(v, o, usage)) {
                step_line(step, 0, "the driver exports no such image");
                return 0;
            }
        }
        VkImageCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
            .pNext = exported ? &image_external : NULL,
            .imageType = VK_IMAGE_TYPE_2D,
            .format = VK_FORMAT_R8G8B8A8_UNORM,
            .extent = {WIDTH, HEIGHT, 1},
            .flags = is_render_target(o) ? VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT : 0,
            .mipLevels = o->kind == IMAGE_RT_MIPS ? 11 : 1,
            .arrayLayers = 1,
            .samples = VK_SAMPLE_COUNT_1_BIT,
            .tiling = o->kind == IMAGE_LINEAR ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL,
            .usage = usage,
            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
        if ((result = vk.vkCreateImage(v->device, &info, NULL, &o->image))) {
            step_line(step, 0, "vkCreateImage: %d", result);
            return 0;
        }
        VkImageMemoryRequirementsInfo2 query = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, .image = o->image};
        vk.vkGetImageMemoryRequirements2(v->device, &query, &requirements);
    } else {
        VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                   .pNext = exported ? &buffer_external : NULL,
                                   .size = FRAME_BYTES,
                                   .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                            VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
        if ((result = vk.vkCreateBuffer(v->device, &info, NULL, &o->buffer))) {
            step_line(step, 0, "vkCreateBuffer: %d", result);
            return 0;
        }
        VkBufferMemoryRequirementsInfo2 query = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2, .buffer = o->buffer};
        vk.vkGetBufferMemoryRequirements2(v->device, &query, &requirements);
    }
    VkMemoryPropertyFlags want = o->kind == STAGING ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int32_t type = vk_memory_type(v, requirements.memoryRequirements.memoryTypeBits, want);
    if (type < 0 && o->kind != STAGING)
        type = vk_memory_type(v, requirements.memoryRequirements.memoryTypeBits, 0);
    if (type < 0) {
        step_line(step, 0, "no memory type (bits 0x%x)",
                  requirements.memoryRequirements.memoryTypeBits);
        return 0;
    }
    VkMemoryDedicatedAllocateInfo dedicated_info = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
        .image = o->image,
        .buffer = o->buffer};
    VkExportMemoryAllocateInfo export_info = {.sType =
                                                  VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                              .pNext = &dedicated_info,
                                              .handleTypes = opaque_fd};
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .pNext = exported ? &export_info : NULL,
                                     .allocationSize = requirements.memoryRequirements.size,
                                     .memoryTypeIndex = (uint32_t)type};
    o->allocation = requirements.memoryRequirements.size;
    if ((result = vk.vkAllocateMemory(v->device, &allocate, NULL, &o->memory))) {
        step_line(step, 0, "vkAllocateMemory %" PRIu64 " B: %d", (uint64_t)o->allocation, result);
        return 0;
    }
    result = is_image(o) ? vk.vkBindImageMemory(v->device, o->image, o->memory, 0)
                         : vk.vkBindBufferMemory(v->device, o->buffer, o->memory, 0);
    if (result) {
        step_line(step, 0, "bind: %d", result);
        return 0;
    }
    if (o->kind == IMAGE_LINEAR) {
        VkImageSubresource sub = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
        vk.vkGetImageSubresourceLayout(v->device, o->image, &sub, &o->layout);
    }
    if (o->kind == STAGING &&
        vk.vkMapMemory(v->device, o->memory, 0, VK_WHOLE_SIZE, 0, &o->mapped) != VK_SUCCESS) {
        step_line(step, 0, "vkMapMemory failed");
        return 0;
    }
    if (!exported)
        return 1;

    VkMemoryGetFdInfoKHR get_fd = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                   .memory = o->memory,
                                   .handleType = opaque_fd};
    if (!vk.vkGetMemoryFdKHR || (result = vk.vkGetMemoryFdKHR(v->device, &get_fd, &o->fd))) {
        step_line(step, 0, "vkGetMemoryFdKHR: %d", vk.vkGetMemoryFdKHR ? (int)result : -1);
        o->fd = -1;
        return 0;
    }
    double ms = (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e6;
    char target[256];
    struct stat st = {0};
    fd_target(o->fd, target, sizeof target);
    fstat(o->fd, &st);
    char layout[128] = "";
    if (o->kind == IMAGE_LINEAR)
        snprintf(layout, sizeof layout, ", layout offset %" PRIu64 " row pitch %" PRIu64,
                 (uint64_t)o->layout.offset, (uint64_t)o->layout.rowPitch);
    step_line(step, 1,
              "%.3f ms to create, allocate, bind, get the fd; %" PRIu64 " B (data %" PRIu64
              " B) memory type %d (flags 0x%x), dedicated "
              "preferred %u required %u%s, fd %d -> %s (st_size %lld)",
              ms, (uint64_t)o->allocation, (uint64_t)FRAME_BYTES, type,
              v->memory.memoryTypes[type].propertyFlags, dedicated.prefersDedicatedAllocation,
              dedicated.requiresDedicatedAllocation, layout, o->fd, target, (long long)st.st_size);
    return 1;
}

/* Where an exported object's pixels start, and how far apart its rows are. */
static void object_rows(const struct object *o, size_t *offset, size_t *row_pitch)
{
    *offset = o->kind == IMAGE_LINEAR ? (size_t)o->layout.offset : 0;
    *row_pitch = o->kind == IMAGE_LINEAR ? (size_t)o->layout.rowPitch : WIDTH * PIXEL_BYTES;
}

/* Vulkan writes SEED_VULKAN's pattern into the object from the staging buffer, then hands the
 * object to OpenCL. */
static int vk_fill(struct vk_side *v, struct object *o, struct object *upload)
{
    char step[64];
    snprintf(step, sizeof step, "vk-write-%s", o->name);
    step_begin(step);
    pattern_fill(upload->mapped, SEED_VULKAN);
    vk_begin(v);
    if (is_image(o)) {
        vk_image_barrier(v, o->image, FROM_UNDEFINED);
        vk.vkCmdCopyBufferToImage(v->cmd, upload->buffer, o->image, VK_IMAGE_LAYOUT_GENERAL, 1,
                                  &whole_frame);
        vk_image_barrier(v, o->image, TO_EXTERNAL);
    } else {
        VkBufferCopy region = {0, 0, FRAME_BYTES};
        vk.vkCmdCopyBuffer(v->cmd, upload->buffer, o->buffer, 1, &region);
        vk_buffer_barrier(v, o->buffer, TO_EXTERNAL);
    }
    VkResult result = vk_submit(v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
    step_line(step, result == VK_SUCCESS, "pattern %u copied from a host-visible buffer: %d",
              SEED_VULKAN, result);
    return result == VK_SUCCESS;
}

/* Vulkan takes the object back from OpenCL and copies it into the readback buffer. */
static int vk_read(struct vk_side *v, struct object *o, struct object *readback)
{
    memset(readback->mapped, 0, FRAME_BYTES);
    vk_begin(v);
    if (is_image(o)) {
        vk_image_barrier(v, o->image, FROM_EXTERNAL);
        vk.vkCmdCopyImageToBuffer(v->cmd, o->image, VK_IMAGE_LAYOUT_GENERAL, readback->buffer, 1,
                                  &whole_frame);
        vk_image_barrier(v, o->image, TO_EXTERNAL);
    } else {
        VkBufferCopy region = {0, 0, FRAME_BYTES};
        vk_buffer_barrier(v, o->buffer, FROM_EXTERNAL);
        vk.vkCmdCopyBuffer(v->cmd, o->buffer, readback->buffer, 1, &region);
        vk_buffer_barrier(v, o->buffer, TO_EXTERNAL);
    }
    return vk_submit(v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT) == VK_SUCCESS;
}

/* lavapipe: the fd is a memfd made by Mesa's os_malloc_aligned_fd (src/util/os_memory_fd.c):
 * a header {size_t size; size_t offset; uint8_t uuid[16]} (uuid: SHA-1 of "llvmpipe" and Mesa's
 * git hash), then the object's bytes from `offset` (a page). Reads Vulkan's pattern through mmap,
 * then gives the mapping to OpenCL as host memory (CL_MEM_USE_HOST_PTR), the CPU stack's
 * stand-in for an import, and checks both directions. */
static void memfd_checks(struct vk_side *v, struct cl_side *c, struct object *o,
                         struct object *readback)
{
    char step[64], target[256], what[160];
    snprintf(step, sizeof step, "mmap-%s", o->name);
    step_begin(step);
    fd_target(o->fd, target, sizeof target);
    if (!strstr(target, "memfd:")) {
        step_line(step, 0, "fd is %s, not a memfd: not mapped (expected on a GPU driver)", target);
        return;
    }
    uint64_t header[2] = {0, 0}; /* Mesa's size and offset */
    struct stat st = {0};
    if (fstat(o->fd, &st) || pread(o->fd, header, sizeof header, 0) != (ssize_t)sizeof header ||
        header[0] != (uint64_t)st.st_size || header[1] + o->allocation > header[0]) {
        step_line(step, 0,
                  "no Mesa memory header (size %" PRIu64 ", offset %" PRIu64 ", file %lld B)",
                  header[0], header[1], (long long)st.st_size);
        return;
    }
    o->mapped_size = (size_t)st.st_size;
    o->mapped = mmap(NULL, o->mapped_size, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, 0);
    if (o->mapped == MAP_FAILED) {
        o->mapped = NULL;
        step_line(step, 0, "mmap: %s", strerror(errno));
        return;
    }
    o->data = (uint8_t *)o->mapped + header[1];
    size_t offset, row_pitch;
    object_rows(o, &offset, &row_pitch);
    int exact = pattern_check(o->data + offset, row_pitch, SEED_VULKAN, 0, what, sizeof what);
    if (is_optimal(o))
        step_line(step, 1,
                  "mapped %zu B, data at %" PRIu64 "; read as linear rows (tiling unknown): %s",
                  o->mapped_size, header[1], what);
    else
        step_line(step, exact,
                  "mapped %zu B, data at %" PRIu64 " (Mesa's header); Vulkan's "
                  "pattern: %s",
                  o->mapped_size, header[1], what);
    if (is_optimal(o) || !c->context)
        return;

    snprintf(step, sizeof step, "cl-hostptr-%s", o->name);
    step_begin(step);
    cl_int err;
    o->host_view = cl.clCreateBuffer(c->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                     (size_t)o->allocation, o->data, &err);
    if (!o->host_view) {
        step_line(step, 0, "clCreateBuffer(USE_HOST_PTR on the mapping): %d", err);
        return;
    }
    uint32_t *pixels = malloc(FRAME_BYTES);
    err = CL_SUCCESS;
    for (uint32_t y = 0; y < HEIGHT && err == CL_SUCCESS; y++)
        err = cl.clEnqueueReadBuffer(c->queue, o->host_view, CL_FALSE, offset + y * row_pitch,
                                     WIDTH * PIXEL_BYTES, pixels + y * WIDTH, 0, NULL, NULL);
    cl.clFinish(c->queue);
    exact = err == CL_SUCCESS &&
            pattern_check(pixels, WIDTH * PIXEL_BYTES, SEED_VULKAN, 0, what, sizeof what);
    step_line(step, exact, "OpenCL reads Vulkan's pattern through the mapping: %s",
              err ? "read failed" : what);

    pattern_fill(pixels, SEED_OPENCL);
    err = CL_SUCCESS;
    for (uint32_t y = 0; y < HEIGHT && err == CL_SUCCESS; y++)
        err = cl.clEnqueueWriteBuffer(c->queue, o->host_view, CL_FALSE, offset + y * row_pitch,
                                      WIDTH * PIXEL_BYTES, pixels + y * WIDTH, 0, NULL, NULL);
    cl.clFinish(c->queue);
    exact = err == CL_SUCCESS && vk_read(v, o, readback) &&
            pattern_check(readback->mapped, WIDTH * PIXEL_BYTES, SEED_OPENCL, 0, what, sizeof what);
    step_line(step, exact, "Vulkan reads what OpenCL wrote through the mapping: %s",
              err ? "write failed" : what);
    free(pixels);
}

static int fd_is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1;
}

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};

static cl_image_desc frame_desc(void)
{
    cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = WIDTH, .image_height = HEIGHT};
    return desc;
}

/* Imports the exported object into OpenCL from its fd; times the call. */
static int cl_import(struct cl_side *c, struct object *o)
{
    char step[64];
    snprintf(step, sizeof step, "import-%s", o->name);
    step_begin(step);
    if (o->fd < 0) {
        step_line(step, 0, "no fd to import");
        return 0;
    }
    if (!c->context || !c->has_memory_fd) {
        step_line(step, 0, "missing cl_khr_external_memory_opaque_fd: not tried");
        return 0;
    }
    if (!(is_image(o) ? (void *)cl.clCreateImageWithProperties
                      : (void *)cl.clCreateBufferWithProperties)) {
        step_line(step, 0, "missing clCreate%sWithProperties in the loader",
                  is_image(o) ? "Image" : "Buffer");
        return 0;
    }
    cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                 (cl_mem_properties)o->fd,
                                 CL_DEVICE_HANDLE_LIST_KHR,
                                 (cl_mem_properties)c->device,
                                 CL_DEVICE_HANDLE_LIST_END_KHR,
                                 0};
    cl_image_desc desc = frame_desc();
    cl_int err = ERRCODE_NOT_SET;
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    o->cl_object = is_image(o)
                       ? cl.clCreateImageWithProperties(c->context, props, CL_MEM_READ_WRITE,
                                                        &rgba8, &desc, NULL, &err)
                       : cl.clCreateBufferWithProperties(c->context, props, CL_MEM_READ_WRITE,
                                                         FRAME_BYTES, NULL, &err);
    double ms = (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e6;
    if (!o->cl_object) {
        step_line(step, 0, "clCreate%sWithProperties: NULL, errcode %d%s after %.3f ms",
                  is_image(o) ? "Image" : "Buffer", err,
                  err == ERRCODE_NOT_SET ? " (the driver did not set it)" : "", ms);
        return 0;
    }
    step_line(step, 1, "clCreate%sWithProperties %.3f ms; fd %d %s after the import",
              is_image(o) ? "Image" : "Buffer", ms, o->fd,
              fd_is_open(o->fd) ? "still open (the caller keeps it)" : "closed by the driver");
    return 1;
}

/* The CPU stack (lavapipe + PoCL): no import, so an OpenCL object on the mapped memfd
 * (CL_MEM_USE_HOST_PTR) stands in for it, to run the same exchange and round trips. Linear
 * images and buffers only: an optimal image's tiling is the driver's secret. */
static int cl_stand_in(struct cl_side *c, struct object *o)
{
    char step[64];
    snprintf(step, sizeof step, "stand-in-%s", o->name);
    step_begin(step);
    if (!o->data || !c->context || is_optimal(o)) {
        step_line(step, 0, "%s",
                  is_optimal(o) ? "optimal tiling: no host stand-in"
                                : "no mapped memfd: no host stand-in");
        return 0;
    }
    cl_int err;
    if (o->kind == IMAGE_LINEAR) {
        cl_image_desc desc = frame_desc();
        desc.image_row_pitch = (size_t)o->layout.rowPitch;
        o->cl_object = cl.clCreateImage(c->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &rgba8,
                                        &desc, o->data + o->layout.offset, &err);
    } else {
        o->cl_object = cl.clCreateBuffer(c->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                         FRAME_BYTES, o->data, &err);
    }
    step_line(step, o->cl_object != NULL,
              "an OpenCL %s on the mapped memfd (CL_MEM_USE_HOST_PTR), not an import: %d",
              is_image(o) ? "image" : "buffer", err);
    return o->cl_object != NULL;
}

static cl_int cl_acquire(struct cl_side *c, cl_mem object)
{
    return c->acquire ? c->acquire(c->queue, 1, &object, 0, NULL, NULL) : CL_SUCCESS;
}

static cl_int cl_release(struct cl_side *c, cl_mem object)
{
    return c->release ? c->release(c->queue, 1, &object, 0, NULL, NULL) : CL_SUCCESS;
}

static const size_t zero_origin[3] = {0, 0, 0}, frame_region[3] = {WIDTH, HEIGHT, 1};

/* OpenCL reads Vulkan's pattern, writes its own and fills a rectangle; Vulkan reads it back. */
static void exchange(struct vk_side *v, struct cl_side *c, struct object *o,
                     struct object *readback)
{
    char step[64], what[160];
    uint32_t *pixels = malloc(FRAME_BYTES);
    snprintf(step, sizeof step, "cl-read-%s", o->name);
    step_begin(step);
    cl_int err = cl_acquire(c, o->cl_object);
    cl_int read = is_image(o) ? cl.clEnqueueReadImage(c->queue, o->cl_object, CL_TRUE, zero_origin,
                                                      frame_region, 0, 0, pixels, 0, NULL, NULL)
                              : cl.clEnqueueReadBuffer(c->queue, o->cl_object, CL_TRUE, 0,
                                                       FRAME_BYTES, pixels, 0, NULL, NULL);
    int exact = !err && !read &&
                pattern_check(pixels, WIDTH * PIXEL_BYTES, SEED_VULKAN, 0, what, sizeof what);
    step_line(step, exact, "acquire %d, read %d: Vulkan's pattern %s", err, read,
              err || read ? "not read" : what);

    snprintf(step, sizeof step, "cl-write-%s", o->name);
    step_begin(step);
    pattern_fill(pixels, SEED_OPENCL);
    static const cl_float fill_color[4] = {1.0f, 51.0f / 255.0f, 0.0f, 1.0f};
    static const uint32_t fill_pixel = FILL_PIXEL;
    cl_int write, fill = CL_SUCCESS;
    if (is_image(o)) {
        write = cl.clEnqueueWriteImage(c->queue, o->cl_object, CL_TRUE, zero_origin, frame_region,
                                       0, 0, pixels, 0, NULL, NULL);
        if (!write)
            fill = cl.clEnqueueFillImage(c->queue, o->cl_object, fill_color, fill_origin,
                                         fill_region, 0, NULL, NULL);
    } else {
        write = cl.clEnqueueWriteBuffer(c->queue, o->cl_object, CL_TRUE, 0, FRAME_BYTES, pixels, 0,
                                        NULL, NULL);
        for (size_t y = 0; y < fill_region[1] && !write && !fill; y++)
            fill = cl.clEnqueueFillBuffer(c->queue, o->cl_object, &fill_pixel, sizeof fill_pixel,
                                          ((fill_origin[1] + y) * WIDTH + fill_origin[0]) *
                                              PIXEL_BYTES,
                                          fill_region[0] * PIXEL_BYTES, 0, NULL, NULL);
    }
    err = cl_release(c, o->cl_object);
    cl_int finish = cl.clFinish(c->queue);
    int ok = !write && !fill && !err && !finish;
    step_line(step, ok, "write %d, fill %d, release %d, finish %d", write, fill, err, finish);

    snprintf(step, sizeof step, "vk-read-%s", o->name);
    step_begin(step);
    exact = ok && vk_read(v, o, readback) &&
            pattern_check(readback->mapped, WIDTH * PIXEL_BYTES, SEED_OPENCL, 1, what, sizeof what);
    step_line(step, exact, "OpenCL's pattern and fill rectangle: %s",
              ok ? what : "not tried (OpenCL failed)");
    free(pixels);
}

/* ---- step 4: Direct3D's own render targets, imported ------------------------------------ */

#define GREEN_PIXEL 0xFF00FF00u /* RGBA (0, 255, 0, 255) */

/* A render pass over mip 0 of a render target that OpenCL holds (GENERAL, external): CLEAR to
 * green, or (load_rect) Vulkan's pattern copied in, LOAD, and the fill rectangle cleared to
 * FILL_PIXEL's colour by vkCmdClearAttachments. The pass moves the image through
 * COLOR_ATTACHMENT_OPTIMAL, where a GPU may compress or fast-clear it, and back to GENERAL for
 * OpenCL. */
static int vk_render_pass(struct vk_side *v, struct object *o, int load_rect, struct object *upload)
{
    VkImageViewCreateInfo view_info = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                       .image = o->image,
                                       .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                       .format = VK_FORMAT_R8G8B8A8_UNORM,
                                       .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VkAttachmentDescription attachment = {.format = VK_FORMAT_R8G8B8A8_UNORM,
                                          .samples = VK_SAMPLE_COUNT_1_BIT,
                                          .loadOp = load_rect ? VK_ATTACHMENT_LOAD_OP_LOAD
                                                              : VK_ATTACHMENT_LOAD_OP_CLEAR,
                                          .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                          .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                          .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                          .initialLayout = VK_IMAGE_LAYOUT_GENERAL,
                                          .finalLayout = VK_IMAGE_LAYOUT_GENERAL};
    VkAttachmentReference color = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                    .colorAttachmentCount = 1,
                                    .pColorAttachments = &color};
    VkRenderPassCreateInfo pass_info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                        .attachmentCount = 1,
                                        .pAttachments = &attachment,
                                        .subpassCount = 1,
                                        .pSubpasses = &subpass};
    VkImageView view = VK_NULL_HANDLE;
    VkRenderPass pass = VK_NULL_HANDLE;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
    VkResult result = vk.vkCreateImageView(v->device, &view_info, NULL, &view);
    if (!result)
        result = vk.vkCreateRenderPass(v->device, &pass_info, NULL, &pass);
    if (!result) {
        VkFramebufferCreateInfo fb_info = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                           .renderPass = pass,
                                           .attachmentCount = 1,
                                           .pAttachments = &view,
                                           .width = WIDTH,
                                           .height = HEIGHT,
                                           .layers = 1};
        result = vk.vkCreateFramebuffer(v->device, &fb_info, NULL, &framebuffer);
    }
    if (!result) {
        VkClearValue green = {.color.float32 = {0.0f, 1.0f, 0.0f, 1.0f}};
        VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                       .renderPass = pass,
                                       .framebuffer = framebuffer,
                                       .renderArea = {{0, 0}, {WIDTH, HEIGHT}},
                                       .clearValueCount = 1,
                                       .pClearValues = &green};
        vk_begin(v);
        vk_image_barrier(v, o->image, FROM_EXTERNAL);
        if (load_rect) {
            pattern_fill(upload->mapped, SEED_VULKAN);
            vk.vkCmdCopyBufferToImage(v->cmd, upload->buffer, o->image, VK_IMAGE_LAYOUT_GENERAL, 1,
                                      &whole_frame);
            vk_image_barrier(v, o->image, KEEP);
        }
        vk.vkCmdBeginRenderPass(v->cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
        if (load_rect) {
            VkClearAttachment fill = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
                                      .colorAttachment = 0,
                                      .clearValue.color.float32 = {1.0f, 0.2f, 0.0f, 1.0f}};
            VkClearRect rect = {{{(int32_t)fill_origin[0], (int32_t)fill_origin[1]},
                                 {(uint32_t)fill_region[0], (uint32_t)fill_region[1]}},
                                0,
                                1};
            vk.vkCmdClearAttachments(v->cmd, 1, &fill, 1, &rect);
        }
        vk.vkCmdEndRenderPass(v->cmd);
        vk_image_barrier(v, o->image, TO_EXTERNAL);
        result = vk_submit(v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
    }
    if (framebuffer)
        vk.vkDestroyFramebuffer(v->device, framebuffer, NULL);
    if (pass)
        vk.vkDestroyRenderPass(v->device, pass, NULL);
    if (view)
        vk.vkDestroyImageView(v->device, view, NULL);
    return result == VK_SUCCESS;
}

/* Each render pass, then OpenCL reads mip 0 through its import: the rectangle over Vulkan's
 * pattern, or green everywhere after the whole clear. */
static void render_pass_checks(struct vk_side *v, struct cl_side *c, struct object *o,
                               struct object *upload)
{
    uint32_t *pixels = malloc(FRAME_BYTES);
    for (int load_rect = 1; load_rect >= 0; load_rect--) {
        char step[64], what[160];
        snprintf(step, sizeof step, "cl-read-%s-after-%s", o->name,
                 load_rect ? "clear-rect" : "render-pass-clear");
        step_begin(step);
        if (!vk_render_pass(v, o, load_rect, upload)) {
            step_line(step, 0, "the render pass failed");
            continue;
        }
        if (!o->cl_object) {
            step_line(step, 0, "not imported: only the render pass ran");
            continue;
        }
        memset(pixels, 0, FRAME_BYTES);
        cl_int err = cl_acquire(c, o->cl_object);
        cl_int read = err ? err
                          : cl.clEnqueueReadImage(c->queue, o->cl_object, CL_TRUE, zero_origin,
                                                  frame_region, 0, 0, pixels, 0, NULL, NULL);
        cl_int release = cl_release(c, o->cl_object);
        cl_int finish = cl.clFinish(c->queue);
        int exact = 0;
        if (!read && !release && !finish && load_rect) {
            exact = pattern_check(pixels, WIDTH * PIXEL_BYTES, SEED_VULKAN, 1, what, sizeof what);
        } else if (!read && !release && !finish) {
            uint64_t bad = 0;
            for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++)
                bad += pixels[i] != GREEN_PIXEL;
            exact = bad == 0;
            snprintf(what, sizeof what, "%" PRIu64 " of %u pixels not green (first 0x%08x)", bad,
                     WIDTH * HEIGHT, pixels[0]);
        } else {
            snprintf(what, sizeof what, "not read");
        }
        step_line(step, exact, "acquire %d, read %d, release %d, finish %d: %s", err, read, release,
                  finish, what);
    }
    free(pixels);
}

/* ---- timings ---------------------------------------------------------------------------- */

/* Times `record` (commands between two timestamps) TIMING_RUNS times: GPU time from the
 * timestamps, CPU time from submit to fence. */
static void vk_time(struct vk_side *v, const char *step, void (*record)(struct vk_side *, void *),
                    void *arg)
{
    step_begin(step);
    uint64_t gpu[TIMING_RUNS], cpu[TIMING_RUNS];
    for (int i = 0; i < TIMING_RUNS; i++) {
        vk_begin(v);
        vk.vkCmdResetQueryPool(v->cmd, v->queries, 0, 2);
        vk.vkCmdWriteTimestamp(v->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, v->queries, 0);
        record(v, arg);
        vk.vkCmdWriteTimestamp(v->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, v->queries, 1);
        uint64_t start = now_ns(CLOCK_MONOTONIC);
        VkResult result = vk_submit(v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
        cpu[i] = now_ns(CLOCK_MONOTONIC) - start;
        uint64_t ticks[2] = {0, 0};
        if (result == VK_SUCCESS)
            result = vk.vkGetQueryPoolResults(v->device, v->queries, 0, 2, sizeof ticks, ticks,
                                              sizeof ticks[0],
                                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (result != VK_SUCCESS) {
            step_line(step, 0, "run %d: %d", i, result);
            return;
        }
        gpu[i] = (uint64_t)((double)(ticks[1] - ticks[0]) * v->timestamp_period_ns);
    }
    double gpu_mean = mean_us(gpu, TIMING_RUNS), cpu_mean = mean_us(cpu, TIMING_RUNS);
    double gpu_median = median_us(gpu, TIMING_RUNS), cpu_median = median_us(cpu, TIMING_RUNS);
    step_line(step, v->timestamp_bits > 0,
              "GPU %.1f us median (%.1f mean), submit-to-fence %.1f us median (%.1f mean), "
              "%d runs, %.1f GB/s read+write%s",
              gpu_median, gpu_mean, cpu_median, cpu_mean, TIMING_RUNS,
              gpu_median > 0 ? 2.0 * (double)FRAME_BYTES / (gpu_median * 1e3) : 0.0,
              v->timestamp_bits ? "" : " (no timestamps on this queue)");
}

struct copy_args {
    struct object *from, *to;
};

static void record_image_copy(struct vk_side *v, void *arg)
{
    struct copy_args *a = arg;
    vk.vkCmdCopyImage(v->cmd, a->from->image, VK_IMAGE_LAYOUT_GENERAL, a->to->image,
                      VK_IMAGE_LAYOUT_GENERAL, 1, &whole_image);
}

static void record_image_to_buffer(struct vk_side *v, void *arg)
{
    struct copy_args *a = arg;
    vk.vkCmdCopyImageToBuffer(v->cmd, a->from->image, VK_IMAGE_LAYOUT_GENERAL, a->to->buffer, 1,
                              &whole_frame);
}

/* Times one OpenCL command TIMING_RUNS times from its profiling event. */
static void cl_time(struct cl_side *c, const char *step, cl_mem from, cl_mem to, int from_buffer)
{
    step_begin(step);
    uint64_t gpu[TIMING_RUNS], cpu[TIMING_RUNS];
    for (int i = 0; i < TIMING_RUNS; i++) {
        cl_event event = NULL;
        uint64_t start = now_ns(CLOCK_MONOTONIC);
        cl_int err = from_buffer
                         ? cl.clEnqueueCopyBufferToImage(c->queue, from, to, 0, zero_origin,
                                                         frame_region, 0, NULL, &event)
                         : cl.clEnqueueCopyImage(c->queue, from, to, zero_origin, zero_origin,
                                                 frame_region, 0, NULL, &event);
        if (!err)
            err = cl.clWaitForEvents(1, &event);
        cpu[i] = now_ns(CLOCK_MONOTONIC) - start;
        cl_ulong begin = 0, end = 0;
        if (!err)
            err = cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof begin,
                                             &begin, NULL);
        if (!err)
            err =
                cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        if (event)
            cl.clReleaseEvent(event);
        if (err) {
            step_line(step, 0, "run %d: %d", i, err);
            return;
        }
        gpu[i] = end - begin;
    }
    double gpu_mean = mean_us(gpu, TIMING_RUNS), cpu_mean = mean_us(cpu, TIMING_RUNS);
    double gpu_median = median_us(gpu, TIMING_RUNS), cpu_median = median_us(cpu, TIMING_RUNS);
    step_line(step, 1,
              "GPU %.1f us median (%.1f mean), enqueue-to-complete %.1f us median (%.1f mean), "
              "%d runs, %.1f GB/s read+write",
              gpu_median, gpu_mean, cpu_median, cpu_mean, TIMING_RUNS,
              gpu_median > 0 ? 2.0 * (double)FRAME_BYTES / (gpu_median * 1e3) : 0.0);
}

static cl_int cl_write_pattern(struct cl_side *c, cl_mem image, uint32_t seed)
{
    uint32_t *pixels = malloc(FRAME_BYTES);
    pattern_fill(pixels, seed);
    cl_int err = cl.clEnqueueWriteImage(c->queue, image, CL_TRUE, zero_origin, frame_region, 0, 0,
                                        pixels, 0, NULL, NULL);
    free(pixels);
    return err;
}

static cl_mem cl_frame_image(struct cl_side *c, uint32_t seed)
{
    cl_image_desc desc = frame_desc();
    cl_int err;
    cl_mem image = cl.clCreateImage(c->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
    if (!image)
        return NULL;
    if (cl_write_pattern(c, image, seed)) {
        cl.clReleaseMemObject(image);
        return NULL;
    }
    return image;
}

/* ---- Vulkan -> OpenCL -> Vulkan round trips --------------------------------------------- */

/* One frame of the path issue 26 plans: Vulkan copies the program's texture (src) into the twin
 * and hands it over; OpenCL reads the twin (into cl_read), writes its result (from cl_result)
 * into it and hands it back; Vulkan copies the twin into dst. */
struct frame {
    struct vk_side *v;
    struct cl_side *c;
    struct object *src, *twin, *dst;
    cl_mem cl_read, cl_result;
    VkSemaphore to_cl, to_vk; /* VK_NULL_HANDLE: fence + clFinish instead */
    cl_semaphore_khr cl_to_cl, cl_to_vk;
    int copies;
};

static void record_to_twin(struct frame *f)
{
    if (f->copies) {
        vk_image_barrier(f->v, f->twin->image, FROM_EXTERNAL);
        vk.vkCmdCopyImage(f->v->cmd, f->src->image, VK_IMAGE_LAYOUT_GENERAL, f->twin->image,
                          VK_IMAGE_LAYOUT_GENERAL, 1, &whole_image);
        vk_image_barrier(f->v, f->twin->image, TO_EXTERNAL);
    }
}

static void record_from_twin(struct frame *f)
{
    if (f->copies) {
        vk_image_barrier(f->v, f->twin->image, FROM_EXTERNAL);
        vk.vkCmdCopyImage(f->v->cmd, f->twin->image, VK_IMAGE_LAYOUT_GENERAL, f->dst->image,
                          VK_IMAGE_LAYOUT_GENERAL, 1, &whole_image);
        vk_image_barrier(f->v, f->twin->image, TO_EXTERNAL);
    }
}

static cl_int cl_frame_work(struct frame *f)
{
    cl_int err = CL_SUCCESS;
    if (!f->copies)
        return err;
    cl_mem twin = f->twin->cl_object;
    err = cl_acquire(f->c, twin);
    if (!err)
        err = cl.clEnqueueCopyImage(f->c->queue, twin, f->cl_read, zero_origin, zero_origin,
                                    frame_region, 0, NULL, NULL);
    if (!err)
        err = cl.clEnqueueCopyImage(f->c->queue, f->cl_result, twin, zero_origin, zero_origin,
                                    frame_region, 0, NULL, NULL);
    if (!err)
        err = cl_release(f->c, twin);
    return err;
}

/* One round trip. Returns a short error text, or NULL. submit_ns: time in the calls that
 * submit work (no waits). */
static const char *round_trip(struct frame *f, uint64_t *submit_ns)
{
    static char error[128];
    uint64_t start = now_ns(CLOCK_MONOTONIC), waited = 0;
    VkResult result;
    cl_int err;
    vk_begin(f->v);
    record_to_twin(f);
    if (f->to_cl) {
        if ((result = vk_submit(f->v, VK_NULL_HANDLE, f->to_cl, SUBMIT_NO_FENCE)))
            return snprintf(error, sizeof error, "vkQueueSubmit (signal): %d", result), error;
        err = f->c->wait_semaphores(f->c->queue, 1, &f->cl_to_cl, NULL, 0, NULL, NULL);
        if (!err)
            err = cl_frame_work(f);
        if (!err)
            err = f->c->signal_semaphores(f->c->queue, 1, &f->cl_to_vk, NULL, 0, NULL, NULL);
        if (!err)
            err = cl.clFlush(f->c->queue);
        if (err)
            return snprintf(error, sizeof error, "OpenCL wait/work/signal/flush: %d", err), error;
        vk_begin_on(f->v, 1); /* the first may still run */
        record_from_twin(f);
        if ((result = vk_submit(f->v, f->to_vk, VK_NULL_HANDLE, SUBMIT_FENCE)))
            return snprintf(error, sizeof error, "vkQueueSubmit (wait): %d", result), error;
        uint64_t wait_start = now_ns(CLOCK_MONOTONIC);
        result = vk_wait(f->v);
        waited = now_ns(CLOCK_MONOTONIC) - wait_start;
        if (result)
            return snprintf(error, sizeof error, "the fence after the semaphore wait: %d (%s)",
                            result, result == VK_TIMEOUT ? "timed out after 5 s" : "error"),
                   error;
    } else {
        if ((result = vk_submit(f->v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_FENCE)))
            return snprintf(error, sizeof error, "Vulkan to the twin: %d", result), error;
        uint64_t wait_start = now_ns(CLOCK_MONOTONIC);
        result = vk_wait(f->v);
        waited += now_ns(CLOCK_MONOTONIC) - wait_start;
        if (result)
            return snprintf(error, sizeof error, "Vulkan to the twin, fence: %d", result), error;
        err = cl_frame_work(f);
        wait_start = now_ns(CLOCK_MONOTONIC);
        if (!err)
            err = cl.clFinish(f->c->queue);
        waited += now_ns(CLOCK_MONOTONIC) - wait_start;
        if (err)
            return snprintf(error, sizeof error, "OpenCL work/finish: %d", err), error;
        vk_begin(f->v);
        record_from_twin(f);
        if ((result = vk_submit(f->v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_FENCE)))
            return snprintf(error, sizeof error, "Vulkan from the twin: %d", result), error;
        wait_start = now_ns(CLOCK_MONOTONIC);
        result = vk_wait(f->v);
        waited += now_ns(CLOCK_MONOTONIC) - wait_start;
        if (result)
            return snprintf(error, sizeof error, "Vulkan from the twin, fence: %d", result), error;
    }
    *submit_ns = now_ns(CLOCK_MONOTONIC) - start - waited;
    return NULL;
}

static void round_trips(struct frame *f, const char *step, struct object *readback)
{
    step_begin(step);
    uint64_t wall[ROUND_TRIPS], submit[ROUND_TRIPS], cpu[ROUND_TRIPS];
    for (int i = 0; i < ROUND_TRIPS; i++) {
        uint64_t start = now_ns(CLOCK_MONOTONIC), cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
        const char *error = round_trip(f, &submit[i]);
        if (error) {
            step_line(step, 0, "round trip %d: %s", i, error);
            gpu_stuck = 1;
            return;
        }
        wall[i] = now_ns(CLOCK_MONOTONIC) - start;
        cpu[i] = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
    }
    char what[400] = "no copies, nothing to check";
    int exact = 1;
    if (f->copies) {
        char read_what[160], dst_what[160];
        uint32_t *pixels = malloc(FRAME_BYTES);
        cl_int err = cl.clEnqueueReadImage(f->c->queue, f->cl_read, CL_TRUE, zero_origin,
                                           frame_region, 0, 0, pixels, 0, NULL, NULL);
        exact = !err && pattern_check(pixels, WIDTH * PIXEL_BYTES, SEED_VULKAN, 0, read_what,
                                      sizeof read_what);
        free(pixels);
        memset(readback->mapped, 0, FRAME_BYTES);
        vk_begin(f->v);
        vk.vkCmdCopyImageToBuffer(f->v->cmd, f->dst->image, VK_IMAGE_LAYOUT_GENERAL,
                                  readback->buffer, 1, &whole_frame);
        int dst_exact =
            vk_submit(f->v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT) == VK_SUCCESS &&
            pattern_check(readback->mapped, WIDTH * PIXEL_BYTES, SEED_OPENCL, 0, dst_what,
                          sizeof dst_what);
        exact = exact && dst_exact;
        snprintf(what, sizeof what, "OpenCL saw Vulkan's frame: %s; Vulkan got OpenCL's: %s",
                 err ? "read failed" : read_what, dst_what);
    }
    step_line(step, exact,
              "%d round trips: wall %.1f us median (%.1f mean), submitting calls %.1f us median "
              "(%.1f mean), thread CPU %.1f us median (%.1f mean); %s",
              ROUND_TRIPS, median_us(wall, ROUND_TRIPS), mean_us(wall, ROUND_TRIPS),
              median_us(submit, ROUND_TRIPS), mean_us(submit, ROUND_TRIPS),
              median_us(cpu, ROUND_TRIPS), mean_us(cpu, ROUND_TRIPS), what);
}

/* Exports a binary semaphore as an opaque fd and imports it into OpenCL. */
static int semaphore_pair(struct vk_side *v, struct cl_side *c, const char *name,
                          VkSemaphore *vk_semaphore, cl_semaphore_khr *cl_semaphore)
{
    char step[64];
    snprintf(step, sizeof step, "semaphore-%s", name);
    step_begin(step);
    VkExportSemaphoreCreateInfo export_info = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                  .pNext = &export_info};
    VkResult result = vk.vkCreateSemaphore(v->device, &info, NULL, vk_semaphore);
    if (result) {
        step_line(step, 0, "vkCreateSemaphore (exportable): %d", result);
        return 0;
    }
    VkSemaphoreGetFdInfoKHR get_fd = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
                                      .semaphore = *vk_semaphore,
                                      .handleType =
                                          VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    int fd = -1;
    if ((result = vk.vkGetSemaphoreFdKHR(v->device, &get_fd, &fd))) {
        step_line(step, 0, "vkGetSemaphoreFdKHR: %d", result);
        return 0;
    }
    /* Without a device list first (one device in the context); then the two names the
     * property has had (0x2053 final, 0x2051 provisional). */
    static const cl_semaphore_properties_khr list_names[] = {0, 0x2053, CL_DEVICE_HANDLE_LIST_KHR};
    cl_int err = CL_INVALID_VALUE;
    double ms = 0;
    size_t tried;
    for (tried = 0; tried < 3 && !*cl_semaphore; tried++) {
        cl_semaphore_properties_khr props[8] = {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
                                                CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
                                                (cl_semaphore_properties_khr)fd, 0};
        if (list_names[tried]) {
            props[4] = list_names[tried];
            props[5] = (cl_semaphore_properties_khr)c->device;
            props[6] = 0;
            props[7] = 0;
        }
        uint64_t start = now_ns(CLOCK_MONOTONIC);
        *cl_semaphore = c->create_semaphore(c->context, props, &err);
        ms = (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e6;
    }
    if (!*cl_semaphore) {
        step_line(step, 0, "clCreateSemaphoreWithPropertiesKHR (opaque fd %d): %d", fd, err);
        return 0;
    }
    step_line(step, 1,
              "exported fd %d, imported by clCreateSemaphoreWithPropertiesKHR in %.3f ms (%s); "
              "fd %s after the import",
              fd, ms,
              tried == 1   ? "no device list"
              : tried == 2 ? "device list 0x2053"
                           : "device list 0x2051",
              fd_is_open(fd) ? "still open" : "closed by the driver");
    return 1;
}

static int semaphores_possible(struct vk_side *v, struct cl_side *c)
{
    step_begin("semaphore-support");
    if (!v->has_semaphore_fd || !vk.vkGetSemaphoreFdKHR) {
        step_line("semaphore-support", 0, "missing VK_KHR_external_semaphore_fd");
        return 0;
    }
    VkPhysicalDeviceExternalSemaphoreInfo info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
        .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkExternalSemaphoreProperties props = {.sType =
                                               VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vk.vkGetPhysicalDeviceExternalSemaphoreProperties(v->physical, &info, &props);
    if (!(props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT)) {
        step_line("semaphore-support", 0, "Vulkan cannot export an opaque-fd binary semaphore");
        return 0;
    }
    if (!c->context || !c->has_semaphore_fd || !c->create_semaphore || !c->wait_semaphores ||
        !c->signal_semaphores) {
        step_line("semaphore-support", 0,
                  "missing cl_khr_external_semaphore_opaque_fd or its functions");
        return 0;
    }
    if (!v->same_gpu) {
        step_line("semaphore-support", 0, "Vulkan and OpenCL are not on one GPU");
        return 0;
    }
    step_line("semaphore-support", 1, "Vulkan exports and OpenCL imports opaque-fd semaphores");
    return 1;
}

/* ---- main ------------------------------------------------------------------------------- */

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGABRT, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGALRM, on_signal);

    struct cl_side c = {0};
    struct vk_side v = {0};
    int have_cl = cl_load() && cl_pick_device(&c) && cl_open(&c);
    if (!have_cl)
        memset(&c, 0, sizeof c);
    if (!vk_load(&v) || !vk_pick_device(&v, &c) || !vk_open(&v)) {
        step_line("done", 1, "stopped early: no usable Vulkan device; %d failures", failures);
        return 0;
    }
    int interop = have_cl && v.same_gpu;
    if (have_cl && !v.same_gpu)
        step_line("interop", 0, "OpenCL's device is not Vulkan's: imports skipped");

    struct object shared[3] = {{.name = "image-optimal", .kind = IMAGE_OPTIMAL},
                               {.name = "image-linear", .kind = IMAGE_LINEAR},
                               {.name = "buffer", .kind = BUFFER}};
    struct object upload = {.name = "upload", .kind = STAGING},
                  readback = {.name = "readback", .kind = STAGING},
                  plain_src = {.name = "plain-src", .kind = PLAIN_IMAGE},
                  plain_dst = {.name = "plain-dst", .kind = PLAIN_IMAGE};
    if (!object_create(&v, &upload) || !object_create(&v, &readback) ||
        !object_create(&v, &plain_src) || !object_create(&v, &plain_dst)) {
        step_line("done", 1, "stopped early: Vulkan resources not made; %d failures", failures);
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        struct object *o = &shared[i];
        if (!object_create(&v, o) || !vk_fill(&v, o, &upload))
            continue;
        memfd_checks(&v, &c, o, &readback);
        if (o->host_view && !vk_fill(&v, o, &upload)) /* OpenCL wrote through the mapping */
            continue;
        if (interop ? cl_import(&c, o) : have_cl && cl_stand_in(&c, o))
            exchange(&v, &c, o, &readback);
    }

    /* Refused imports: does the driver keep or close the fd it refused? A new fd of the optimal
     * image's memory each time, an image OpenCL must refuse (width 0, or larger than the
     * memory), then whether the fd is still open. */
    if (interop && shared[IMAGE_OPTIMAL].memory && vk.vkGetMemoryFdKHR &&
        cl.clCreateImageWithProperties) {
        static const struct {
            const char *what;
            size_t width, height;
        } refusals[] = {{"width 0", 0, HEIGHT}, {"larger than the memory", WIDTH, HEIGHT * 8}};
        for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
            VkMemoryGetFdInfoKHR get_fd = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                           .memory = shared[IMAGE_OPTIMAL].memory,
                                           .handleType = opaque_fd};
            int fd = -1;
            step_begin("import-refused");
            if (vk.vkGetMemoryFdKHR(v.device, &get_fd, &fd) || fd < 0) {
                step_line("import-refused", 0, "%s: vkGetMemoryFdKHR failed", refusals[i].what);
                continue;
            }
            cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                         (cl_mem_properties)fd,
                                         CL_DEVICE_HANDLE_LIST_KHR,
                                         (cl_mem_properties)c.device,
                                         CL_DEVICE_HANDLE_LIST_END_KHR,
                                         0};
            cl_image_desc desc = frame_desc();
            desc.image_width = refusals[i].width;
            desc.image_height = refusals[i].height;
            cl_int err = ERRCODE_NOT_SET;
            cl_mem refused = cl.clCreateImageWithProperties(c.context, props, CL_MEM_READ_WRITE,
                                                            &rgba8, &desc, NULL, &err);
            int open_after = fd_is_open(fd);
            char target[256] = "";
            if (open_after)
                fd_target(fd, target, sizeof target);
            step_line("import-refused", !refused, "%s: object %p, errcode %d; fd %d %s%s",
                      refusals[i].what, (void *)refused, err, fd,
                      open_after ? "still open, the caller's: -> " : "closed by the driver",
                      target);
            if (refused)
                cl.clReleaseMemObject(refused);
            if (open_after)
                close(fd);
        }
    }

    /* Step 4: images made as DXVK makes a render target, exported; OpenCL imports mip 0. */
    struct object targets[2] = {{.name = "rt", .kind = IMAGE_RT},
                                {.name = "rt-mips", .kind = IMAGE_RT_MIPS}};
    for (int i = 0; i < 2; i++) {
        struct object *o = &targets[i];
        if (!object_create(&v, o) || !vk_fill(&v, o, &upload))
            continue;
        if (interop && cl_import(&c, o))
            exchange(&v, &c, o, &readback);
        render_pass_checks(&v, &c, o, &upload);
    }

    /* Copies of a 1080p frame on each side. plain_src holds Vulkan's pattern, in GENERAL. */
    pattern_fill(upload.mapped, SEED_VULKAN);
    vk_begin(&v);
    vk_image_barrier(&v, plain_src.image, FROM_UNDEFINED);
    vk_image_barrier(&v, plain_dst.image, FROM_UNDEFINED);
    vk.vkCmdCopyBufferToImage(v.cmd, upload.buffer, plain_src.image, VK_IMAGE_LAYOUT_GENERAL, 1,
                              &whole_frame);
    vk_submit(&v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
    struct copy_args plain = {&plain_src, &plain_dst};
    vk_time(&v, "time-vk-copy-image", record_image_copy, &plain);
    /* The twin of the round trips: the optimal image, or the linear one where only it imports. */
    struct object *twin = shared[IMAGE_OPTIMAL].cl_object || !shared[IMAGE_LINEAR].cl_object
                              ? &shared[IMAGE_OPTIMAL]
                              : &shared[IMAGE_LINEAR];
    if (have_cl)
        step_line("twin", twin->cl_object != NULL, "the round trips use %s%s", twin->name,
                  twin->cl_object ? "" : " (not imported: OpenCL round trips skipped)");
    if (twin->memory) {
        /* The twin is OpenCL's between steps: take it, copy into it, hand it back. */
        vk_begin(&v);
        vk_image_barrier(&v, twin->image, FROM_EXTERNAL);
        vk_submit(&v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
        struct copy_args to_twin = {&plain_src, twin};
        vk_time(&v, "time-vk-copy-to-exported-image", record_image_copy, &to_twin);
        if (shared[BUFFER].memory) {
            struct copy_args to_buffer = {&plain_src, &shared[BUFFER]};
            vk_begin(&v);
            vk_buffer_barrier(&v, shared[BUFFER].buffer, FROM_EXTERNAL);
            vk_submit(&v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
            vk_time(&v, "time-vk-copy-image-to-exported-buffer", record_image_to_buffer,
                    &to_buffer);
            vk_begin(&v);
            vk_buffer_barrier(&v, shared[BUFFER].buffer, TO_EXTERNAL);
            vk_submit(&v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
        }
        vk_begin(&v);
        vk_image_barrier(&v, twin->image, TO_EXTERNAL);
        vk_submit(&v, VK_NULL_HANDLE, VK_NULL_HANDLE, SUBMIT_AND_WAIT);
    }

    cl_mem cl_a = NULL, cl_b = NULL;
    if (have_cl) {
        cl_a = cl_frame_image(&c, SEED_VULKAN);
        cl_b = cl_frame_image(&c, SEED_OPENCL);
        if (cl_a && cl_b)
            cl_time(&c, "time-cl-copy-image", cl_a, cl_b, 0);
        else
            step_line("time-cl-copy-image", 0, "OpenCL images not made");
    }
    if (cl_a && cl_b && twin->cl_object) {
        cl_acquire(&c, twin->cl_object);
        cl_time(&c, "time-cl-copy-from-imported-image", twin->cl_object, cl_a, 0);
        cl_time(&c, "time-cl-copy-to-imported-image", cl_b, twin->cl_object, 0);
        cl_release(&c, twin->cl_object);
        cl.clFinish(c.queue);
    }
    if (cl_a && shared[BUFFER].cl_object) {
        cl_acquire(&c, shared[BUFFER].cl_object);
        cl_time(&c, "time-cl-copy-imported-buffer-to-image", shared[BUFFER].cl_object, cl_a, 1);
        cl_release(&c, shared[BUFFER].cl_object);
        cl.clFinish(c.queue);
    }
    if (twin->cl_object && c.acquire) {
        step_begin("time-cl-acquire-release");
        uint64_t cpu[TIMING_RUNS];
        cl_int err = CL_SUCCESS;
        for (int i = 0; i < TIMING_RUNS && !err; i++) {
            uint64_t start = now_ns(CLOCK_MONOTONIC);
            err = cl_acquire(&c, twin->cl_object);
            if (!err)
                err = cl_release(&c, twin->cl_object);
            if (!err)
                err = cl.clFinish(c.queue);
            cpu[i] = now_ns(CLOCK_MONOTONIC) - start;
        }
        step_line("time-cl-acquire-release", !err,
                  "acquire + release + clFinish, nothing between: %.1f us median (%.1f mean): %d",
                  median_us(cpu, TIMING_RUNS), mean_us(cpu, TIMING_RUNS), err);
    }

    /* Round trips: the simple form first (no risk of a hang), then semaphores. */
    struct frame frame = {.v = &v,
                          .c = &c,
                          .src = &plain_src,
                          .twin = twin,
                          .dst = &plain_dst,
                          .cl_read = cl_a,
                          .cl_result = cl_b};
    frame.copies = 1;
    if (cl_b && cl_write_pattern(&c, cl_b, SEED_OPENCL)) /* the timed copies overwrote it */
        step_line("roundtrip-setup", 0, "rewriting OpenCL's frame failed");
    if (twin->cl_object && cl_a && cl_b)
        round_trips(&frame, "roundtrip-fence-clfinish", &readback);
    else
        step_line("roundtrip-fence-clfinish", 0, "needs an imported image");
    if (interop && !gpu_stuck && semaphores_possible(&v, &c) &&
        semaphore_pair(&v, &c, "vk-to-cl", &frame.to_cl, &frame.cl_to_cl) &&
        semaphore_pair(&v, &c, "cl-to-vk", &frame.to_vk, &frame.cl_to_vk)) {
        frame.copies = 0;
        round_trips(&frame, "roundtrip-semaphores-empty", &readback);
        frame.copies = twin->cl_object && cl_a && cl_b;
        if (frame.copies && !gpu_stuck)
            round_trips(&frame, "roundtrip-semaphores-copies", &readback);
    }

    step_begin("cleanup");
    if (gpu_stuck) {
        alarm(0);
        step_line("done", 1, "ran to the end (no cleanup: a round trip failed); %d FAIL lines",
                  failures);
        fflush(stdout);
        _exit(0); /* exit() could wait on a stuck driver thread */
    }
    if (c.queue)
        cl.clFinish(c.queue);
    vk.vkDeviceWaitIdle(v.device);
    if (frame.cl_to_cl && c.release_semaphore)
        c.release_semaphore(frame.cl_to_cl);
    if (frame.cl_to_vk && c.release_semaphore)
        c.release_semaphore(frame.cl_to_vk);
    if (cl_a)
        cl.clReleaseMemObject(cl_a);
    if (cl_b)
        cl.clReleaseMemObject(cl_b);
    for (int i = 0; i < 2; i++) {
        if (targets[i].cl_object)
            cl.clReleaseMemObject(targets[i].cl_object);
        if (targets[i].fd >= 0 && fd_is_open(targets[i].fd))
            close(targets[i].fd);
    }
    for (int i = 0; i < 3; i++) {
        if (shared[i].cl_object)
            cl.clReleaseMemObject(shared[i].cl_object);
        if (shared[i].host_view)
            cl.clReleaseMemObject(shared[i].host_view);
        if (shared[i].mapped)
            munmap(shared[i].mapped, shared[i].mapped_size);
        if (shared[i].fd >= 0 && fd_is_open(shared[i].fd))
            close(shared[i].fd);
    }
    alarm(0);
    step_line("done", 1, "ran to the end; %d FAIL lines", failures);
    return 0;
}
