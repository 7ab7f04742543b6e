/* DXVK's Vulkan interop interfaces, in C (src/dxgi/dxgi_interfaces.h of DXVK 2.6.2): the Vulkan
 * image behind a D3D11 texture (IDXGIVkInteropSurface) and a foreign VkImage wrapped as a texture
 * (IDXGIVkInteropDevice1), for the GPU path's twins (src/core/twin.h). PE code has no
 * Vulkan headers: the Vulkan types used are written out here with their x86-64 layout.
 *
 * The IIDs are DEFINE_GUIDs: one file includes <initguid.h> before this header (as
 * src/core/guids.c does for the others mingw-w64 lacks). */
#ifndef DXCL_DXVK_INTEROP_H
#define DXCL_DXVK_INTEROP_H

#include <windows.h>
#include <d3d11_3.h>

#include <stdint.h>

typedef uint64_t dxvk_vk_image; /* VkImage */

/* VkImageCreateInfo. */
struct dxvk_image_create_info {
    int32_t s_type; /* VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO (14) */
    const void *next;
    uint32_t flags;
    int32_t image_type; /* VkImageType */
    int32_t format;     /* VkFormat */
    uint32_t extent[3];
    uint32_t mip_levels, array_layers;
    int32_t samples, tiling;
    uint32_t usage;
    int32_t sharing_mode;
    uint32_t queue_family_count;
    const uint32_t *queue_families;
    int32_t initial_layout; /* VkImageLayout */
};
#define DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO 14

/* VkImageSubresourceRange. */
struct dxvk_image_subresource_range {
    uint32_t aspect_mask;
    uint32_t base_mip_level, level_count;
    uint32_t base_array_layer, layer_count;
};

DEFINE_GUID(IID_IDXGIVkInteropSurface, 0x5546cf8c, 0x77e7, 0x4341, 0xb0, 0x5d, 0x8d, 0x4d, 0x50,
            0x00, 0xe7, 0x7d);
DEFINE_GUID(IID_IDXGIVkInteropDevice, 0xe2ef5fa5, 0xdc21, 0x4af7, 0x90, 0xc4, 0xf6, 0x7e, 0xf6,
            0xa0, 0x93, 0x23);
DEFINE_GUID(IID_IDXGIVkInteropDevice1, 0xe2ef5fa5, 0xdc21, 0x4af7, 0x90, 0xc4, 0xf6, 0x7e, 0xf6,
            0xa0, 0x93, 0x24);

typedef struct IDXGIVkInteropSurface IDXGIVkInteropSurface;
typedef struct IDXGIVkInteropDevice1 IDXGIVkInteropDevice1;

typedef struct IDXGIVkInteropSurfaceVtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(IDXGIVkInteropSurface *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(IDXGIVkInteropSurface *);
    ULONG(STDMETHODCALLTYPE *Release)(IDXGIVkInteropSurface *);
    /* An IDXGIVkInteropDevice (referenced). */
    HRESULT(STDMETHODCALLTYPE *GetDevice)(IDXGIVkInteropSurface *, void **device);
    HRESULT(STDMETHODCALLTYPE *GetVulkanImageInfo)
    (IDXGIVkInteropSurface *, dxvk_vk_image *image, int32_t *layout,
     struct dxvk_image_create_info *info);
} IDXGIVkInteropSurfaceVtbl;
struct IDXGIVkInteropSurface {
    const IDXGIVkInteropSurfaceVtbl *lpVtbl;
};

/* IDXGIVkInteropDevice's methods, then IDXGIVkInteropDevice1's. Handles are the host's. */
typedef struct IDXGIVkInteropDevice1Vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(IDXGIVkInteropDevice1 *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(IDXGIVkInteropDevice1 *);
    ULONG(STDMETHODCALLTYPE *Release)(IDXGIVkInteropDevice1 *);
    void(STDMETHODCALLTYPE *GetVulkanHandles)(IDXGIVkInteropDevice1 *, void **instance,
                                              void **physical_device, void **device);
    void(STDMETHODCALLTYPE *GetSubmissionQueue)(IDXGIVkInteropDevice1 *, void **queue,
                                                uint32_t *queue_family);
    void(STDMETHODCALLTYPE *TransitionSurfaceLayout)(IDXGIVkInteropDevice1 *,
                                                     IDXGIVkInteropSurface *surface,
                                                     const struct dxvk_image_subresource_range *,
                                                     int32_t old_layout, int32_t new_layout);
    void(STDMETHODCALLTYPE *FlushRenderingCommands)(IDXGIVkInteropDevice1 *);
    void(STDMETHODCALLTYPE *LockSubmissionQueue)(IDXGIVkInteropDevice1 *);
    void(STDMETHODCALLTYPE *ReleaseSubmissionQueue)(IDXGIVkInteropDevice1 *);
    void(STDMETHODCALLTYPE *GetSubmissionQueue1)(IDXGIVkInteropDevice1 *, void **queue,
                                                 uint32_t *queue_index, uint32_t *queue_family);
    /* A texture backed by `image` (one the caller keeps alive; DXVK does not own it). */
    HRESULT(STDMETHODCALLTYPE *CreateTexture2DFromVkImage)
    (IDXGIVkInteropDevice1 *, const D3D11_TEXTURE2D_DESC1 *desc, dxvk_vk_image image,
     ID3D11Texture2D **texture);
} IDXGIVkInteropDevice1Vtbl;
struct IDXGIVkInteropDevice1 {
    const IDXGIVkInteropDevice1Vtbl *lpVtbl;
};

#endif
