/* The layer's records of instances and devices (layer.h). Instances are few and looked up only
 * while devices are made: a list under a lock. Devices are looked up by every call the layer
 * wraps: a copy-on-write array, read without a lock, whose records are never freed (a call on one
 * device may read another's record while that device is destroyed). In a process without dxcl's
 * Unix side a device is passive: the layer adds nothing to it and hands out the next layer's
 * functions, so that no call of it goes through the layer. */
#define _GNU_SOURCE
#include "layer.h"

static pthread_mutex_t instances_lock = PTHREAD_MUTEX_INITIALIZER;
static struct instance_rec *instances;

/* The instance of `key`; for a physical device whose key is not its instance's (the loader
 * gives them the same one), the newest instance rather than failing the program's call. */
struct instance_rec *find_instance(void *key, bool or_newest)
{
    struct instance_rec *rec;

    pthread_mutex_lock(&instances_lock);
    for (rec = instances; rec && rec->key != key; rec = rec->next)
        ;
    if (!rec && or_newest)
        rec = instances;
    pthread_mutex_unlock(&instances_lock);
    return rec;
}

PFN_vkVoidFunction instance_next_function(VkInstance instance, const char *name)
{
    struct instance_rec *rec = instance ? find_instance(key_of(instance), false) : NULL;

    return rec ? rec->gipa(instance, name) : NULL;
}

/* The loader's link to the next layer in a create info's chain, or NULL. */
void *next_link_of(const void *next, VkStructureType type, VkLayerFunction function)
{
    const VkLayerInstanceCreateInfo *link = next;

    while (link && !(link->sType == type && link->function == function))
        link = link->pNext;
    return (void *)link;
}

void *next_link(const void *next, VkStructureType type)
{
    return next_link_of(next, type, VK_LAYER_LINK_INFO);
}

VKAPI_ATTR VkResult VKAPI_CALL hook_create_instance(const VkInstanceCreateInfo *info,
                                                    const VkAllocationCallbacks *alloc,
                                                    VkInstance *out)
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
    pthread_mutex_lock(&instances_lock);
    rec->next = instances;
    instances = rec;
    pthread_mutex_unlock(&instances_lock);
    return result;
}

VKAPI_ATTR void VKAPI_CALL hook_destroy_instance(VkInstance instance,
                                                 const VkAllocationCallbacks *alloc)
{
    struct instance_rec **link, *rec = NULL;

    if (!instance)
        return;
    pthread_mutex_lock(&instances_lock);
    for (link = &instances; *link && (*link)->key != key_of(instance); link = &(*link)->next)
        ;
    if ((rec = *link))
        *link = rec->next;
    pthread_mutex_unlock(&instances_lock);
    if (!rec)
        return;
    if (rec->destroy_instance)
        rec->destroy_instance(instance, alloc);
    free(rec);
}

/* ---- The devices: a copy-on-write array ---- */

struct registry {
    struct registry *older; /* the arrays it replaced: never freed while a reader may hold one */
    size_t count;
    struct device *devices[];
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct registry *) registry;
static uint64_t last_device_id;

/* A new array: the current one with `add` added. Under registry_lock. */
static bool registry_publish(struct device *add)
{
    struct registry *now = atomic_load_explicit(&registry, memory_order_relaxed);
    size_t count = now ? now->count : 0;
    struct registry *next = malloc(sizeof(*next) + (count + 1) * sizeof(next->devices[0]));

    if (!next)
        return false;
    next->older = now;
    next->count = 0;
    for (size_t i = 0; i < count; i++)
        next->devices[next->count++] = now->devices[i];
    next->devices[next->count++] = add;
    atomic_store_explicit(&registry, next, memory_order_release);
    return true;
}

bool device_record(struct device *device)
{
    bool published;

    pthread_mutex_lock(&registry_lock);
    device->id = ++last_device_id;
    published = registry_publish(device);
    pthread_mutex_unlock(&registry_lock);
    return published;
}

struct device *device_of(void *key)
{
    struct registry *now = atomic_load_explicit(&registry, memory_order_acquire);
    struct device *gone = NULL;

    /* A destroyed device's record stays, so that a call made on it (the program's error) still
     * goes down to the driver; a new device at the same address wins. */
    for (size_t i = 0; now && i < now->count; i++)
        if (now->devices[i]->key == key) {
            if (!atomic_load_explicit(&now->devices[i]->gone, memory_order_acquire))
                return now->devices[i];
            gone = now->devices[i];
        }
    return gone;
}

static bool hold_alive(struct device *device)
{
    pthread_rwlock_rdlock(&device->alive);
    if (!device->destroyed)
        return true;
    pthread_rwlock_unlock(&device->alive);
    return false;
}

struct device *device_hold(uint64_t id, struct dxcl_layer_error *error)
{
    struct registry *now = atomic_load_explicit(&registry, memory_order_acquire);

    for (size_t i = 0; id && now && i < now->count; i++)
        if (now->devices[i]->id == id && now->devices[i]->may_share) {
            if (hold_alive(now->devices[i]))
                return now->devices[i];
            break;
        }
    layer_fail(error, -1, "no Vulkan device %" PRIu64 " (destroyed, or not one where dxcl shares)",
               id);
    return NULL;
}

void device_put(struct device *device)
{
    pthread_rwlock_unlock(&device->alive);
}

struct device *device_find(bool (*visit)(struct device *device, void *arg), void *arg)
{
    struct registry *now = atomic_load_explicit(&registry, memory_order_acquire);

    for (size_t i = 0; now && i < now->count; i++) {
        struct device *device = now->devices[i];
        if (!device->may_share || !hold_alive(device))
            continue;
        if (visit(device, arg))
            return device;
        device_put(device);
    }
    return NULL;
}

VkQueue device_queue(struct device *device, uint32_t family, uint32_t index)
{
    VkQueue queue = VK_NULL_HANDLE;

    for (uint32_t i = 0; i < device->queue_family_count; i++)
        if (device->queue_families[i] == family && index < device->queue_counts[i]) {
            device->vk.get_queue(device->handle, family, index, &queue);
            break;
        }
    return queue;
}

/* ---- Making and destroying devices ---- */
