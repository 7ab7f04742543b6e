/* The GPU path's twins (docs/design.md, "The GPU path"): what dxcl's PE code (mingw), its Unix
 * half (dxclunix.so) and its host Vulkan layer (libdxcl_vk_layer.so) agree on. Plain C types
 * only: both compilers read this file. In core/, the bottom layer, so that the native parts
 * (src/unix/) use it as they use core/cl_api.h, and nothing of dxcl's depends on them.
 *
 * A twin is a Vulkan image made by the layer on the VkDevice of a program's DXVK texture, with
 * dedicated memory the layer exports as an opaque file descriptor. DXVK wraps it as a D3D11
 * texture (IDXGIVkInteropDevice1::CreateTexture2DFromVkImage) so that dxcl copies between the
 * program's texture and the twin on the GPU; where DXVK cannot (3D images, a plane of an NV12
 * image) the layer copies (DXCL_TWIN_SYNC_COPY_IN/OUT). OpenCL imports the fd: the OpenCL
 * object's storage is the twin's memory.
 *
 * A direct twin (request->direct) is the program's image itself: the layer made it exportable
 * when DXVK created it (2D, optimal, one mip and one layer, at least DXCL_TWIN_DIRECT_MIN_PIXELS,
 * a shader resource only; DXCL_GPU_DIRECT=0 turns that off), gave it dedicated memory, and OpenCL
 * imports that memory.
 * No copy: a hand-over moves the image between DXVK's layout and OpenCL's
 * (DXCL_TWIN_SYNC_HAND_IN/OUT). Its image and memory stay DXVK's.
 *
 * The test-only import (host_visible): the twin is linear and host-visible, and the layer maps
 * it; an OpenCL driver without import (PoCL) then uses the mapping as host memory. It exercises
 * everything but the import itself, on lavapipe in CI, and is never used in production. */
#ifndef DXCL_TWIN_H
#define DXCL_TWIN_H

#include <stdint.h>

/* What the twin must be: one subresource of the program's texture. */
struct dxcl_twin_request {
    /* The host VkImage of the program's texture (IDXGIVkInteropSurface::GetVulkanImageInfo):
     * the twin is made on the device that made it. */
    uint64_t like_image;
    uint32_t format;     /* VkFormat */
    uint32_t image_type; /* VkImageType: 2D or 3D */
    uint32_t width, height, depth;
    uint32_t host_visible; /* the test-only import: linear, host-visible, mapped */
    uint32_t direct;       /* a direct twin: like_image itself (above) */
};

/* The smallest image the layer makes exportable for direct twins (width x height): every such
 * image gets an allocation of its own, and a program may make thousands of small ones. */
#define DXCL_TWIN_DIRECT_MIN_PIXELS (256u * 256u)

struct dxcl_twin {
    int32_t result;          /* 0, or the VkResult (or -1) of the step that failed */
    char error[192];         /* that step, in words, for dxcl's log */
    uint64_t image;          /* VkImage: for CreateTexture2DFromVkImage */
    uint64_t memory;         /* VkDeviceMemory (the layer's, for destroy) */
    uint64_t device;         /* the host VkDevice (the layer's, for destroy) */
    uint64_t size;           /* bytes of the dedicated allocation (what OpenCL imports) */
    int32_t fd;              /* the opaque fd of the memory; -1 when host_visible */
    uint8_t device_uuid[16]; /* VkPhysicalDeviceIDProperties::deviceUUID of the device */
    /* host_visible only: the mapping of the image and its layout (vkGetImageSubresourceLayout). */
    void *host;
    uint64_t row_pitch, slice_pitch;
    /* Binary VkSemaphores exportable as opaque fds, 0 where the device cannot export them (and
     * with host_visible): `ready` is signalled on Direct3D's queue after its copy into the twin
     * and waited on by OpenCL; `done` is signalled by OpenCL after its last use of the twin and
     * waited on by Direct3D's queue. Each signal has exactly one wait, so both rest unsignalled
     * between hand-overs (and in the pool). */
    uint64_t ready, done;
    /* The twin's extent (its one subresource), for the layer's copies. */
    uint32_t width, height, depth;
    /* The layer's own state for its copies (command buffers, fences), 0 until the first. */
    uint64_t copier;
    /* A direct twin: image and memory are DXVK's, and serial names that image's life (a VkImage
     * handle may come back for a new image once DXVK destroyed the old one). */
    uint32_t direct;
    uint64_t serial;
};

/* What dxcl_layer_twin_sync does with a twin's semaphores. */
enum dxcl_twin_sync_op {
    DXCL_TWIN_SYNC_EXPORT_READY, /* a new opaque fd of `ready` into sync->fd (an import owns it) */
    DXCL_TWIN_SYNC_EXPORT_DONE,  /* a new opaque fd of `done` into sync->fd */
    /* A submission to the queue (family, index) of the twin's device, which the caller holds
     * (DXVK's LockSubmissionQueue): signals `ready` after all work before it, or waits for
     * `done` before all work after it. */
    DXCL_TWIN_SYNC_SIGNAL_READY,
    DXCL_TWIN_SYNC_WAIT_DONE,
    /* The layer's own copies, for twins DXVK cannot wrap as a texture (3D textures): on the same
     * queue, with DXVK's work flushed before and its submissions held back, a copy of the
     * program's image (`image`, in DXVK's `layout`) into the whole twin, then the signal of
     * `ready` where `with_semaphore`; or the wait for `done` where `with_semaphore`, then a copy
     * of the twin back into the program's image. */
    DXCL_TWIN_SYNC_COPY_IN,
    DXCL_TWIN_SYNC_COPY_OUT,
    /* A direct twin's hand-overs, as the copies but with no copy: the image moves from DXVK's
     * `layout` to GENERAL and to the external queue family (OpenCL's), then `ready` is
     * signalled where `with_semaphore`; or, after the wait for `done` where `with_semaphore`,
     * back to DXVK's queue family and layout. */
    DXCL_TWIN_SYNC_HAND_IN,
    DXCL_TWIN_SYNC_HAND_OUT,
    /* 0 while the direct twin's image is alive (not destroyed since: its serial), else -1. */
    DXCL_TWIN_SYNC_CHECK_DIRECT,
};
struct dxcl_twin_sync {
    int32_t op; /* enum dxcl_twin_sync_op */
    uint32_t queue_family, queue_index;
    int32_t fd;
    /* The copies only: the program's VkImage, the VkImageLayout DXVK keeps it in outside its
     * command buffers (IDXGIVkInteropSurface::GetVulkanImageInfo), the VkImageAspectFlags of the
     * copy and the subresource (its extent is the twin's). */
    uint64_t image;
    uint32_t layout, aspect, mip_level, array_layer;
    uint32_t with_semaphore;
    /* DXCL_TWIN_SYNC_SIGNAL_READY only: unless_idle asks for no signal where everything
     * submitted to the device is done (the layer knows it without waiting: its progress.h);
     * skipped then says none was submitted, and OpenCL must not wait for one. */
    uint32_t unless_idle, skipped;
};

/* The layer's exports, looked up by name by dxclunix.so (dlopen of DXCL_TWIN_LAYER_SONAME with
 * RTLD_NOLOAD: the Vulkan loader has loaded it when the layer is enabled).
 * dxcl_layer_twin_create: 0 and *twin filled, or twin->result/error set (nothing to destroy).
 * dxcl_layer_twin_destroy: frees the image and memory (and closes the fd if still >= 0). */
#define DXCL_TWIN_LAYER_SONAME "libdxcl_vk_layer.so"
#define DXCL_TWIN_CREATE_NAME "dxcl_layer_twin_create"
#define DXCL_TWIN_DESTROY_NAME "dxcl_layer_twin_destroy"
/* dxcl_layer_twin_export: a new fd of the twin's memory into twin->fd (each OpenCL import takes
 * one: an import owns its fd, as Vulkan's does); 0, or result/error set. */
#define DXCL_TWIN_EXPORT_NAME "dxcl_layer_twin_export"
/* dxcl_layer_twin_sync: 0, or result/error set (enum dxcl_twin_sync_op). */
#define DXCL_TWIN_SYNC_NAME "dxcl_layer_twin_sync"
typedef int32_t (*dxcl_twin_create_fn)(const struct dxcl_twin_request *request,
                                       struct dxcl_twin *twin);
typedef void (*dxcl_twin_destroy_fn)(struct dxcl_twin *twin);
typedef int32_t (*dxcl_twin_export_fn)(struct dxcl_twin *twin);
typedef int32_t (*dxcl_twin_sync_fn)(struct dxcl_twin *twin, struct dxcl_twin_sync *sync);

#endif
