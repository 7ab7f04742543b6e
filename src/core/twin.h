/* The GPU path's twins (docs/design.md, "The GPU path"): what dxcl's PE code (mingw), its Unix
 * half (dxclunix.so) and its host Vulkan layer (libdxcl_vk_layer.so) agree on. Plain C types of
 * fixed width only: both compilers read this file. In core/, the bottom layer, so that the native
 * parts (src/unix/) use it as they use core/cl_api.h, and nothing of dxcl's depends on them.
 *
 * The layer owns every Vulkan object of the path; PE code holds only the ids the layer issued
 * (a device's, a twin's) and facts it copied out. Every id is checked: an unknown or stale one is
 * an error, never a crash.
 *
 * Sharing starts on a device when dxcl makes an OpenCL context on a Direct3D device of it
 * (dxcl_layer_share, named by a VkImage of that device): from then on the layer makes DXVK's
 * larger shader-resource images exportable (direct candidates). Before, and on every device of a
 * process without dxcl, the layer changes nothing (docs/proxy.md, "The Vulkan layer").
 *
 * A twin is a Vulkan image made by the layer on the device, with dedicated memory exported as an
 * opaque file descriptor. DXVK wraps it as a D3D11 texture (IDXGIVkInteropDevice1::
 * CreateTexture2DFromVkImage) so that dxcl copies between the program's texture and the twin on
 * the GPU; where DXVK cannot (3D images, a plane of an NV12 image) the layer copies. OpenCL
 * imports the fd: the OpenCL object's storage is the twin's memory. A direct twin is the
 * program's image itself (made exportable at creation: 2D, optimal, one mip and one layer, at
 * least DXCL_TWIN_DIRECT_MIN_PIXELS, a shader resource only), and OpenCL imports its memory.
 *
 * Hand-overs (struct dxcl_hand_over) move a batch of twins between Direct3D's queue and OpenCL
 * with one submission on that queue, made while DXVK holds its submissions back:
 *   - to OpenCL (DXCL_HAND_IN): the layer's copy in where it copies, then the images' ownership
 *     released to VK_QUEUE_FAMILY_EXTERNAL in GENERAL; then the signal of each twin's binary
 *     `ready`, which OpenCL waits for, where asked; the batch also signals the layer's timeline
 *     (done_value), which the host waits for where OpenCL cannot wait on the GPU;
 *   - back (DXCL_HAND_OUT): a wait for the twin's release timeline (a timeline semaphore of the
 *     layer's, so that the wait may come first), then ownership acquired from the external queue
 *     family into DXVK's layout, then the layer's copy out where it copies. The release value is
 *     signalled from the host once OpenCL's release is done (dxcl_layer_released), or once its
 *     bound passed (dxcl_layer_release_bound): Direct3D never waits for OpenCL without a bound.
 *
 * The test-only import (host_visible): the twin is linear and host-visible, and the layer maps
 * it; an OpenCL driver without import (PoCL) then uses the mapping as host memory. Everything
 * but the import itself runs, on lavapipe in CI; it is never used in production. */
#ifndef DXCL_TWIN_H
#define DXCL_TWIN_H

#include <stdint.h>

/* A uint64_t that every compiler aligns to 8 in a struct, as x86-64 and i686 Windows do: i386
 * Linux aligns a uint64_t to 4, and an i386 Unix half (the 32-bit dxclunix.so) must lay out the
 * structs of this file and of src/unix/dxclunix.h as the i686 PE half does. */
typedef uint64_t dxcl_u64 __attribute__((aligned(8)));
_Static_assert(_Alignof(dxcl_u64) == 8, "dxcl_u64 is 8-aligned");

/* The smallest image the layer makes exportable for direct twins (width x height): every such
 * image gets an allocation of its own, and a program may make thousands of small ones. */
#define DXCL_TWIN_DIRECT_MIN_PIXELS (256u * 256u)

/* The bound of Direct3D's wait for OpenCL's release, unless DXCL_GPU_WAIT_BOUND_MS says
 * otherwise: as Windows' timeout for a GPU that stopped responding (TDR). */
#define DXCL_TWIN_WAIT_BOUND_MS 2000u

/* What failed, for dxcl's log: every call fills one of these where it fails. */
struct dxcl_layer_error {
    int32_t result; /* 0, or the VkResult (or -1) of the step that failed */
    char text[196]; /* that step, in words */
};

/* DXCL_LAYER_SHARE: sharing starts on the device that made `image`. */
struct dxcl_layer_share {
    dxcl_u64 image;            /* in: a VkImage of the device (the host's handle) */
    dxcl_u64 device;           /* out: the layer's id of the device */
    uint8_t uuid[16];          /* out: VkPhysicalDeviceIDProperties::deviceUUID */
    uint32_t semaphore_export; /* out: the device exports semaphores as opaque fds */
    struct dxcl_layer_error error;
};

/* What a twin must be: one subresource of the program's texture, on the shared device. */
struct dxcl_twin_request {
    dxcl_u64 device;     /* the layer's device id (dxcl_layer_share) */
    dxcl_u64 like_image; /* the program's VkImage: a direct twin is it */
    uint32_t format;     /* VkFormat */
    uint32_t image_type; /* VkImageType: 2D or 3D */
    uint32_t width, height, depth;
    uint32_t host_visible; /* the test-only import: linear, host-visible, mapped */
    uint32_t direct;       /* a direct twin: like_image itself */
};

/* What PE code knows of a twin: its id and facts copied out. */
struct dxcl_twin {
    dxcl_u64 id;    /* the layer's; 0: none */
    dxcl_u64 image; /* VkImage: for CreateTexture2DFromVkImage (a direct twin's is DXVK's) */
    dxcl_u64 size;  /* bytes of the dedicated allocation (what OpenCL imports) */
    int32_t fd;     /* an opaque fd of the memory (an import takes it); -1 when host_visible */
    uint32_t direct;
    uint32_t semaphores; /* it has `ready` (the device exports semaphores) */
    uint32_t width, height, depth;
    uint8_t device_uuid[16];
    /* host_visible only: the mapping of the image and its layout (vkGetImageSubresourceLayout). */
    dxcl_u64 host; /* a host address */
    dxcl_u64 row_pitch, slice_pitch;
    struct dxcl_layer_error error;
};

/* One twin's part of a hand-over. */
enum dxcl_hand_over_op {
    DXCL_HAND_IN = 1, /* to OpenCL */
    DXCL_HAND_OUT,    /* back to Direct3D */
    DXCL_HAND_RETIRE, /* given up: freed once the GPU ran everything submitted before it */
    /* A new twin that DXVK wraps as a texture: from UNDEFINED into `layout`, the layout DXVK
     * takes it to be in, before DXVK's first command on it. */
    DXCL_HAND_PREPARE,
};
struct dxcl_hand_over_item {
    dxcl_u64 twin;
    int32_t op; /* enum dxcl_hand_over_op */
    /* DXCL_HAND_IN: the twin holds Direct3D's contents (DXVK copied them into it, or the layer
     * copies them here); else OpenCL overwrites it and they are not kept. signal_ready: the
     * twin's `ready` is signalled for OpenCL to wait on. */
    uint32_t contents, signal_ready;
    /* DXCL_HAND_OUT: OpenCL used the twin, so Direct3D's queue waits for its release
     * (release_value, out); copy_back: the layer copies the twin into the program's image. */
    uint32_t opencl_used, copy_back;
    /* copies: the layer copies between the program's subresource and the twin (3D textures,
     * planes); `image` is then the program's VkImage. Otherwise `image` is the twin's own
     * (DXVK's image for a direct twin, the wrapped twin's for the others). `layout` is the
     * VkImageLayout DXVK keeps `image` in outside its command buffers
     * (IDXGIVkInteropSurface::GetVulkanImageInfo); aspect (the copy's VkImageAspectFlags),
     * mip_level and array_layer name the program's subresource. */
    uint32_t copies;
    dxcl_u64 image;
    uint32_t layout, aspect, mip_level, array_layer;
    dxcl_u64 release_value;
};

/* A batch on the device's queue (family, index) that the caller holds (DXVK's
 * LockSubmissionQueue). */
#define DXCL_HAND_OVER_MAX 64
struct dxcl_hand_over {
    dxcl_u64 device;
    uint32_t queue_family, queue_index;
    uint32_t count; /* at most DXCL_HAND_OVER_MAX */
    /* DXCL_HAND_IN: no `ready` is signalled where everything submitted to the device is known
     * done without waiting (progress.h); ready_skipped then says so. */
    uint32_t unless_idle, ready_skipped;
    dxcl_u64 done_value; /* out: the layer's timeline value that says the batch ran */
    struct dxcl_hand_over_item items[DXCL_HAND_OVER_MAX];
    struct dxcl_layer_error error;
};

/* DXCL_LAYER_RELEASED: OpenCL's release of a hand-out is done (status: its event's, 0 or a
 * negative error); the twin's release timeline reaches `value` once every earlier one is. */
struct dxcl_layer_released {
    dxcl_u64 twin, value;
    int32_t status;
    uint32_t unused;
};

/* DXCL_LAYER_RELEASE_WHEN (dxclunix.so, not the layer): DXCL_LAYER_RELEASED is called once the
 * host's cl_event `event` completes (the driver's event callback). result: 0, or the OpenCL
 * error that stopped it (then the caller tells the layer itself). */
struct dxcl_layer_release_when {
    dxcl_u64 event, twin, value;
    int32_t result;
    uint32_t unused;
};

/* DXCL_LAYER_RELEASE_STATE: how a twin's release `value` ended. */
enum dxcl_release_state {
    DXCL_RELEASE_PENDING, /* OpenCL's release is not done, the bound not passed */
    DXCL_RELEASE_DONE,    /* done: Direct3D's queue went on after it */
    DXCL_RELEASE_FAILED,  /* OpenCL's release failed (its status), or its bound passed first */
};
struct dxcl_layer_release_state {
    dxcl_u64 twin, value;
    int32_t state;  /* out: enum dxcl_release_state */
    int32_t status; /* out: the failed release's status; -1: the bound passed */
};

/* DXCL_LAYER_WAIT: the host waits until the device's timeline reaches `value` (a hand-over's
 * done_value), at most timeout_ms; result 0, or VK_TIMEOUT (2), or another VkResult. */
struct dxcl_layer_wait {
    dxcl_u64 device, value;
    uint32_t timeout_ms;
    int32_t result;
};

/* DXCL_LAYER_TWIN_CREATE. */
struct dxcl_layer_twin_create {
    struct dxcl_twin_request request;
    struct dxcl_twin twin; /* out */
};

/* DXCL_LAYER_TWIN_EXPORT: a new fd of the twin's memory (each OpenCL import takes one: an
 * import owns its fd, as Vulkan's does); DXCL_LAYER_TWIN_READY_FD: of its `ready`. */
struct dxcl_layer_twin_fd {
    dxcl_u64 twin;
    int32_t fd; /* out, or -1 */
    uint32_t unused;
    struct dxcl_layer_error error;
};

/* DXCL_LAYER_TWIN_CHECK: 0 while a direct twin's image is the one it was made of, alive;
 * DXCL_LAYER_TWIN_DESTROY: the twin is given up; the layer frees what is its own once the GPU
 * is done with it (once the device is known idle), never before. */
struct dxcl_layer_twin {
    dxcl_u64 twin;
    struct dxcl_layer_error error;
};

/* The calls PE code makes of the layer through dxcl's Unix side (dxclunixLayerCall), each with
 * its struct. The Unix side calls the layer's export of the same name in lower case
 * (dxcl_layer_share, ...): dlopen of DXCL_TWIN_LAYER_SONAME with RTLD_NOLOAD, since the Vulkan
 * loader loaded it where the layer is enabled. Each returns 0, or the error its struct's `error`
 * describes (-1 where the layer is not loaded). */
enum dxcl_layer_call {
    DXCL_LAYER_SHARE,         /* struct dxcl_layer_share */
    DXCL_LAYER_TWIN_CREATE,   /* struct dxcl_layer_twin_create */
    DXCL_LAYER_TWIN_EXPORT,   /* struct dxcl_layer_twin_fd */
    DXCL_LAYER_TWIN_READY_FD, /* struct dxcl_layer_twin_fd */
    DXCL_LAYER_TWIN_CHECK,    /* struct dxcl_layer_twin */
    DXCL_LAYER_TWIN_DESTROY,  /* struct dxcl_layer_twin */
    DXCL_LAYER_HAND_OVER,     /* struct dxcl_hand_over */
    DXCL_LAYER_RELEASED,      /* struct dxcl_layer_released */
    DXCL_LAYER_RELEASE_STATE, /* struct dxcl_layer_release_state */
    DXCL_LAYER_WAIT,          /* struct dxcl_layer_wait */
    DXCL_LAYER_RELEASE_WHEN,  /* struct dxcl_layer_release_when (dxclunix.so's own) */
    DXCL_LAYER_CALL_COUNT
};
#define DXCL_LAYER_EXPORTS                                                                         \
    DXCL_LAYER_EXPORT(DXCL_LAYER_SHARE, dxcl_layer_share)                                          \
    DXCL_LAYER_EXPORT(DXCL_LAYER_TWIN_CREATE, dxcl_layer_twin_create)                              \
    DXCL_LAYER_EXPORT(DXCL_LAYER_TWIN_EXPORT, dxcl_layer_twin_export)                              \
    DXCL_LAYER_EXPORT(DXCL_LAYER_TWIN_READY_FD, dxcl_layer_twin_ready_fd)                          \
    DXCL_LAYER_EXPORT(DXCL_LAYER_TWIN_CHECK, dxcl_layer_twin_check)                                \
    DXCL_LAYER_EXPORT(DXCL_LAYER_TWIN_DESTROY, dxcl_layer_twin_destroy)                            \
    DXCL_LAYER_EXPORT(DXCL_LAYER_HAND_OVER, dxcl_layer_hand_over)                                  \
    DXCL_LAYER_EXPORT(DXCL_LAYER_RELEASED, dxcl_layer_released)                                    \
    DXCL_LAYER_EXPORT(DXCL_LAYER_RELEASE_STATE, dxcl_layer_release_state)                          \
    DXCL_LAYER_EXPORT(DXCL_LAYER_WAIT, dxcl_layer_wait)
typedef int32_t (*dxcl_layer_export_fn)(void *params);

#define DXCL_TWIN_LAYER_SONAME "libdxcl_vk_layer.so"
/* The soname of dxcl's Unix side: a process that has it loaded is one where dxcl may share
 * (the layer is passive on every device of any other process). */
#define DXCL_UNIX_SONAME "dxclunix.so"

#endif
