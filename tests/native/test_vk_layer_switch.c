/* dxcl's Vulkan layer as an implicit layer (src/unix/layer/VkLayer_dxcl_interop.json;
 * docs/deploy.md, "The Vulkan layer"): found, as pressure-vessel hands the host's implicit layers
 * to Steam's container, through XDG_DATA_DIRS (build/lib/vulkan/share), with no VK_LAYER_PATH and
 * no VK_INSTANCE_LAYERS. One variable switches it: with DXCL_LAYER=1 an instance loads it and a
 * device gets its VK_KHR_external_memory_fd; without, or with DXCL_LAYER_DISABLE=1, it stays
 * out. DXCL_TEST_EXPECT_LAYER (1 or 0) says which this run must see. */
#define _GNU_SOURCE
#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_check.h"

/* Whether the instance's layer list names dxcl's layer (an implicit one that is off is not
 * listed as active, but still enumerated: the list says it was found at all). */
static bool layer_listed(void)
{
    VkLayerProperties layers[64];
    uint32_t count = 64;

    if (vkEnumerateInstanceLayerProperties(&count, layers) < 0)
        return false;
    for (uint32_t i = 0; i < count; i++)
        if (!strcmp(layers[i].layerName, "VK_LAYER_DXCL_interop"))
            return true;
    return false;
}

/* Whether a device of the first physical device has VK_KHR_external_memory_fd, enabled by the
 * layer (the program asks for no extension). */
static bool device_has_export(VkInstance instance)
{
    VkPhysicalDevice physical;
    uint32_t count = 1;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                               .queueCreateInfoCount = 1,
                               .pQueueCreateInfos = &queue};
    VkDevice device;
    bool has;

    if (vkEnumeratePhysicalDevices(instance, &count, &physical) < 0 || !count ||
        vkCreateDevice(physical, &info, NULL, &device) != VK_SUCCESS)
        return false;
    has = vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR") != NULL;
    vkDestroyDevice(device, NULL);
    return has;
}

int main(void)
{
    const char *expect = getenv("DXCL_TEST_EXPECT_LAYER");
    bool want = expect && !strcmp(expect, "1");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance;
    bool loaded;

    check(expect && (!strcmp(expect, "0") || want), "DXCL_TEST_EXPECT_LAYER is not 0 or 1");
    check(!getenv("VK_LAYER_PATH") && !getenv("VK_INSTANCE_LAYERS"),
          "an explicit layer setting is set: the test would prove nothing");
    check(layer_listed(), "the implicit manifest was not found (XDG_DATA_DIRS=%s)",
          getenv("XDG_DATA_DIRS") ? getenv("XDG_DATA_DIRS") : "");
    if (vkCreateInstance(&info, NULL, &instance) != VK_SUCCESS) {
        printf("FAIL: vkCreateInstance\n");
        return 1;
    }
    loaded = dlopen("libdxcl_vk_layer.so", RTLD_NOW | RTLD_NOLOAD) != NULL;
    check(loaded == want, "the layer is %sloaded (DXCL_LAYER=%s, DXCL_LAYER_DISABLE=%s)",
          loaded ? "" : "not ", getenv("DXCL_LAYER") ? getenv("DXCL_LAYER") : "unset",
          getenv("DXCL_LAYER_DISABLE") ? getenv("DXCL_LAYER_DISABLE") : "unset");
    check(!want || device_has_export(instance),
          "the layer is on, yet a device has no vkGetMemoryFdKHR");
    vkDestroyInstance(instance, NULL);
    printf("native vk_layer_switch (expect %s): %d passed, %d failed\n", want ? "on" : "off",
           passed, failed);
    return failed ? 1 : 0;
}
