/* A twin's record (twins.c), shared with the files that hand twins over (handover.c) and end
 * Direct3D's waits for OpenCL's releases (releases.c). Internal to libdxcl_vk_layer.so. */
#ifndef DXCL_LAYER_TWINS_H
#define DXCL_LAYER_TWINS_H

#include "layer.h"

/* How one release value of a twin ended, or that it is still pending (enum dxcl_release_state). */
struct release_outcome {
    uint64_t value; /* 0: unused */
    int32_t state, status;
};
/* A twin's outcomes grow as releases pend: a program's loop of acquire and release runs ahead of
 * the GPU, each release pending until OpenCL's event ends. Only past the most does the oldest
 * pending one end early (said in the log), which lets Direct3D's queue go on without it. */
#define TWIN_OUTCOMES_FIRST 16
#define TWIN_OUTCOMES_MOST 4096
/* How many releases of a twin may pend while its hand-ins still signal `ready` for OpenCL's
 * wait on the GPU; past that the host waits for the hand-in instead, which keeps a program's
 * loop this close to the GPU. NVIDIA's OpenCL stopped taking `ready` with 168 releases pending
 * (the H200, test_gpu_path's ahead_of_the_gpu). */
#define TWIN_READY_AHEAD 4

struct twin {
    struct twin *next; /* in its bucket of the table */
    uint64_t id;
    struct device *device; /* its record (never freed); dxcl's calls hold the device */
    atomic_int refs;
    pthread_mutex_t lock; /* its hand-over state and its releases */
    bool direct, host_visible;
    bool fresh;      /* a layer-made image never handed over: its layout is UNDEFINED */
    bool external;   /* handed to OpenCL: its ownership is the external queue family's */
    bool concurrent; /* a direct twin whose image DXVK made CONCURRENT */
    VkImage image;
    VkDeviceMemory memory;
    uint64_t size, serial;
    uint32_t width, height, depth;
    void *host;
    uint64_t row_pitch, slice_pitch;
    VkSemaphore ready;   /* binary, exported to OpenCL; VK_NULL_HANDLE where none */
    VkSemaphore release; /* timeline: Direct3D's waits for OpenCL's releases */
    uint64_t release_issued, release_signalled;
    /* A release ended before OpenCL said it was done (its bound, or failed): OpenCL may not have
     * taken `ready`'s last signal yet, and a binary semaphore must not be signalled twice. Hand-
     * ins skip `ready` (the host waits instead) until a later release ends done. */
    uint64_t ended_early;
    struct release_outcome *outcomes; /* outcome_count of them (NULL before the first) */
    uint32_t outcome_count;
};

/* twins.c */
bool twin_image_alive(struct twin *twin);
bool twin_and_device(uint64_t id, struct twin **twin, struct device **device,
                     struct dxcl_layer_error *error);
/* Gives the twin up (from the table); its objects are buried after `after` (0: device idle). */
void twin_give_up(struct twin *twin, uint64_t after);

/* releases.c: the twin's next release value (Direct3D's queue waits for it; the bound starts);
 * under the twin's lock. */
uint64_t twin_issue_release(struct twin *twin);
/* Ends `value` (DONE, or FAILED with status) and signals what is contiguous; the caller holds
 * the twin's device (or destroys it). */
void twin_resolve(struct twin *twin, uint64_t value, int32_t state, int32_t status);
/* Whether a hand-in may signal the twin's `ready`: not after a release ended early, nor with
 * TWIN_READY_AHEAD releases pending; under the twin's lock. */
bool twin_may_signal_ready(const struct twin *twin);
/* TWIN_READY_AHEAD, or DXCL_GPU_READY_AHEAD. */
uint64_t twin_ready_ahead(void);
/* Every pending release of the twin ends as failed (logged with `why`). */
void twin_end_releases(struct twin *twin, const char *why);

/* devices.c: the hooks of vkCreateDevice and vkDestroyDevice. */
VKAPI_ATTR VkResult VKAPI_CALL hook_create_device(VkPhysicalDevice physical,
                                                  const VkDeviceCreateInfo *info,
                                                  const VkAllocationCallbacks *alloc,
                                                  VkDevice *out);
VKAPI_ATTR void VKAPI_CALL hook_destroy_device(VkDevice device, const VkAllocationCallbacks *alloc);

#endif
