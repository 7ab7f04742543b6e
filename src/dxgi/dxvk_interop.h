/* DXVK's interop interfaces (src/dxgi/dxgi_interfaces.h of DXVK 2.6.2), declared in C: what the
 * GPU path needs to reach the Vulkan image behind a texture and to wrap a twin as a texture.
 * DXVK's headers are C++ only; the IIDs and the vtable order are DXVK's. */
#ifndef DXCL_DXVK_INTEROP_H
#define DXCL_DXVK_INTEROP_H

#include <windows.h>
#include <d3d11_3.h>
#include <stdint.h>

/* Vulkan handles as PE code sees them under Wine: VkImage is the host's handle. */
typedef uint64_t dxcl_vk_image;

/* VkImageCreateInfo as laid out on x86-64 (DXVK fills it; dxcl reads format, type and extent). */
struct dxcl_vk_image_create_info {
    int s_type;
    const void *next;
    uint32_t flags;
    int image_type;
    int format;
    uint32_t extent[3];
    uint32_t mip_levels, array_layers;
    int samples, tiling;
    uint32_t usage;
    int sharing_mode;
    uint32_t queue_family_count;
    const uint32_t *queue_families;
    int initial_layout;
};

/* IDXGIVkInteropSurface {5546cf8c-77e7-4341-b05d-8d4d5000e77d}: on every DXVK texture. */
static const GUID dxcl_iid_dxvk_interop_surface = {
    0x5546cf8c, 0x77e7, 0x4341, {0xb0, 0x5d, 0x8d, 0x4d, 0x50, 0x00, 0xe7, 0x7d}};
struct dxcl_dxvk_surface;
struct dxcl_dxvk_surface_vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(struct dxcl_dxvk_surface *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(struct dxcl_dxvk_surface *);
    ULONG(STDMETHODCALLTYPE *Release)(struct dxcl_dxvk_surface *);
    HRESULT(STDMETHODCALLTYPE *GetDevice)(struct dxcl_dxvk_surface *, void **);
    HRESULT(STDMETHODCALLTYPE *GetVulkanImageInfo)
    (struct dxcl_dxvk_surface *, dxcl_vk_image *image, int *layout,
     struct dxcl_vk_image_create_info *info);
};
struct dxcl_dxvk_surface {
    const struct dxcl_dxvk_surface_vtbl *lpVtbl;
};

/* IDXGIVkInteropDevice1 {e2ef5fa5-dc21-4af7-90c4-f67ef6a09324}: on DXVK's D3D11 devices. */
static const GUID dxcl_iid_dxvk_interop_device1 = {
    0xe2ef5fa5, 0xdc21, 0x4af7, {0x90, 0xc4, 0xf6, 0x7e, 0xf6, 0xa0, 0x93, 0x24}};
struct dxcl_dxvk_device;
struct dxcl_dxvk_device_vtbl {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(struct dxcl_dxvk_device *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(struct dxcl_dxvk_device *);
    ULONG(STDMETHODCALLTYPE *Release)(struct dxcl_dxvk_device *);
    void(STDMETHODCALLTYPE *GetVulkanHandles)(struct dxcl_dxvk_device *, void **instance,
                                              void **physical, void **device);
    void(STDMETHODCALLTYPE *GetSubmissionQueue)(struct dxcl_dxvk_device *, void **queue,
                                                uint32_t *family);
    void(STDMETHODCALLTYPE *TransitionSurfaceLayout)(struct dxcl_dxvk_device *,
                                                     struct dxcl_dxvk_surface *, const void *range,
                                                     int old_layout, int new_layout);
    void(STDMETHODCALLTYPE *FlushRenderingCommands)(struct dxcl_dxvk_device *);
    void(STDMETHODCALLTYPE *LockSubmissionQueue)(struct dxcl_dxvk_device *);
    void(STDMETHODCALLTYPE *ReleaseSubmissionQueue)(struct dxcl_dxvk_device *);
    void(STDMETHODCALLTYPE *GetSubmissionQueue1)(struct dxcl_dxvk_device *, void **queue,
                                                 uint32_t *index, uint32_t *family);
    HRESULT(STDMETHODCALLTYPE *CreateTexture2DFromVkImage)
    (struct dxcl_dxvk_device *, const D3D11_TEXTURE2D_DESC1 *, dxcl_vk_image, ID3D11Texture2D **);
};
struct dxcl_dxvk_device {
    const struct dxcl_dxvk_device_vtbl *lpVtbl;
};

#endif
