/* The GPU path of D3D1x on DXVK (gpu/twins.h; docs/design.md, "The GPU path"). */
#include "gpu/twins.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/fault.h"
#include "gpu/gpu_path.h"
#include "formats/formats.h"

#include <stdio.h>
#include <stdlib.h>
/* Defines the IIDs of DXVK's interop interfaces (and no others: every other header is in). */
#include <initguid.h>
#include "gpu/dxvk_interop.h"

#define VK_IMAGE_TYPE_2D 1
#define VK_IMAGE_LAYOUT_GENERAL 1
#define VK_IMAGE_ASPECT_COLOR_BIT 1

/* A call of the layer; false (logged with `what`) where it failed. `error` is the call's struct's
 * own, where it has one. */
static bool layer_call(enum dxcl_layer_call call, void *params,
                       const struct dxcl_layer_error *error, const char *what)
{
    char why[256];

    if (dxcl_driver_layer_call(call, params, why, sizeof(why)) == 0)
        return true;
    DXCL_LOG("the GPU path: %s: %s", what, error && error->text[0] ? error->text : why);
    return false;
}

/* The Vulkan image behind a D3D1x resource and the layout DXVK keeps it in; 0 when DXVK gives
 * none (or the resource is not DXVK's). */
static uint64_t vulkan_image(IUnknown *resource, int32_t *layout,
                             struct dxvk_image_create_info *info)
{
    IDXGIVkInteropSurface *image;
    dxvk_vk_image handle = 0;
    HRESULT hr;

    *info = (struct dxvk_image_create_info){.s_type = DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    if (FAILED(IUnknown_QueryInterface(resource, &IID_IDXGIVkInteropSurface, (void **)&image)))
        return 0;
    hr = image->lpVtbl->GetVulkanImageInfo(image, &handle, layout, info);
    image->lpVtbl->Release(image);
    return SUCCEEDED(hr) ? handle : 0;
}

static IDXGIVkInteropDevice1 *interop_of(struct dxcl_context *ctx)
{
    IDXGIVkInteropDevice1 *interop;

    if (FAILED(IUnknown_QueryInterface((IUnknown *)ctx->device, &IID_IDXGIVkInteropDevice1,
                                       (void **)&interop)))
        return NULL;
    return interop;
}

/* DXVK's D3D11 device behind the context's device, referenced: the device itself for D3D11,
 * and for D3D10 the D3D11 device DXVK's D3D10 device is part of (each answers QueryInterface
 * for the other). NULL where Direct3D is not DXVK. */
static ID3D11Device *d3d11_device_of(struct dxcl_context *ctx)
{
    ID3D11Device *device;

    if (FAILED(
            IUnknown_QueryInterface((IUnknown *)ctx->device, &IID_ID3D11Device, (void **)&device)))
        return NULL;
    return device;
}

/* DXVK's copy of the surface's subresource into its twin's texture (to_twin) or back, on the
 * device's immediate context; inside dxcl_device_enter. */
static void dxvk_copy(struct dxcl_surface *surface, bool to_twin)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    ID3D11Device *device = d3d11_device_of(surface->context);
    ID3D11Resource *resource = NULL, *twin = (ID3D11Resource *)s->staging;
    ID3D11DeviceContext *immediate;

    if (!device)
        return;
    if (SUCCEEDED(
            IUnknown_QueryInterface(surface->resource, &IID_ID3D11Resource, (void **)&resource))) {
        ID3D11Device_GetImmediateContext(device, &immediate);
        if (to_twin)
            ID3D11DeviceContext_CopySubresourceRegion(immediate, twin, 0, 0, 0, 0, resource,
                                                      surface->subresource, NULL);
        else
            ID3D11DeviceContext_CopySubresourceRegion(immediate, resource, surface->subresource, 0,
                                                      0, 0, twin, 0, NULL);
        ID3D11DeviceContext_Release(immediate);
        ID3D11Resource_Release(resource);
    }
    ID3D11Device_Release(device);
}

/* An event query ended on the immediate context: DXVK's flush skips a context with nothing
 * recorded, and a new texture's initial data goes to the GPU with the context's next commands,
 * which the layer's own copies and hand-overs must come after. */
static void dxvk_nudge(struct dxcl_context *ctx)
{
    D3D11_QUERY_DESC event = {D3D11_QUERY_EVENT, 0};
    ID3D11Device *device = d3d11_device_of(ctx);
    ID3D11DeviceContext *immediate;
    ID3D11Query *query = NULL;

    if (!device)
        return;
    if (SUCCEEDED(ID3D11Device_CreateQuery(device, &event, &query))) {
        ID3D11Device_GetImmediateContext(device, &immediate);
        ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)query);
        ID3D11DeviceContext_Release(immediate);
        ID3D11Query_Release(query);
    }
    ID3D11Device_Release(device);
}

/* A 1x1 default texture of the context's device, referenced, or NULL: its Vulkan image names
 * the device to the layer. */
static IUnknown *dxvk_probe(struct dxcl_context *ctx)
{
    D3D11_TEXTURE2D_DESC desc = {1,
                                 1,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE,
                                 0,
                                 0};
    ID3D11Device *device = d3d11_device_of(ctx);
    ID3D11Texture2D *texture = NULL;

    if (!device)
        return NULL;
    if (FAILED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture)))
        texture = NULL;
    ID3D11Device_Release(device);
    return (IUnknown *)texture;
}

bool dxcl_gpu_is_dxvk(void *resource)
{
    IUnknown *interop;

    if (FAILED(IUnknown_QueryInterface((IUnknown *)resource, &IID_IDXGIVkInteropSurface,
                                       (void **)&interop)))
        return false;
    IUnknown_Release(interop);
    return true;
}

/* ---- Sharing starts ---- */

void dxcl_dxgi_share(struct dxcl_context *ctx)
{
    struct dxcl_layer_share share = {0};
    struct dxvk_image_create_info info;
    IDXGIVkInteropDevice1 *interop;
    IUnknown *probe;
    int32_t layout;

    if (!dxcl_gpu_path_may_serve(ctx) || !(interop = interop_of(ctx)))
        return; /* no GPU path for it: dxcl_gpu_path_probe says why, per object */
    interop->lpVtbl->Release(interop);
    if (!(probe = dxvk_probe(ctx)) || !(share.image = vulkan_image(probe, &layout, &info))) {
        DXCL_LOG("%s device %p: no Vulkan image of a texture of it: no GPU path",
                 ctx->backend->name, ctx->device);
    } else if (layer_call(DXCL_LAYER_SHARE, &share, &share.error, "sharing on the device")) {
        ctx->gpu_device = share.device;
        DXCL_LOG("%s device %p: the GPU path shares on Vulkan device %llu (its larger "
                 "shader-resource textures made from now on can be direct twins)",
                 ctx->backend->name, ctx->device, (unsigned long long)share.device);
    }
    if (probe)
        IUnknown_Release(probe);
}

/* ---- Twins made ---- */

void dxcl_dxgi_twin_mapping(const struct dxcl_dxgi_twin *twin, struct dxcl_mapping *mapping)
{
    *mapping = (struct dxcl_mapping){(void *)(uintptr_t)twin->vk.host, (size_t)twin->vk.row_pitch,
                                     (size_t)twin->vk.slice_pitch};
}

/* The VkFormat of a plane's twin: the single-plane format compatible with the plane
 * (vkCmdCopyImage copies a plane to it), from the plane's CL format; 0 for none. */
static uint32_t plane_vk_format(const cl_image_format *format)
{
    bool two = format->image_channel_order == CL_RG;

    if (format->image_channel_order != CL_R && !two)
        return 0;
    if (format->image_channel_data_type == CL_UNORM_INT8)
        return two ? 16 /* VK_FORMAT_R8G8_UNORM */ : 9 /* VK_FORMAT_R8_UNORM */;
    if (format->image_channel_data_type == CL_UNORM_INT16)
        return two ? 77 /* VK_FORMAT_R16G16_UNORM */ : 70 /* VK_FORMAT_R16_UNORM */;
    return 0;
}

/* What the layer must make: the subresource's format and extent; a lone plane's twin is an
 * image of the plane alone. False when no twin can hold it. */
static bool twin_request(struct dxcl_context *ctx, const struct dxcl_dxgi_surface *want,
                         uint64_t like_image, const struct dxvk_image_create_info *info,
                         bool host_import, struct dxcl_twin_request *request)
{
    struct dxcl_plane plane;

    *request = (struct dxcl_twin_request){ctx->gpu_device,
                                          like_image,
                                          (uint32_t)info->format,
                                          (uint32_t)info->image_type,
                                          want->width,
                                          want->height,
                                          want->kind == DXCL_DXGI_TEXTURE3D ? want->depth : 1,
                                          host_import,
                                          0};
    if (!want->lone_plane)
        return true;
    if (!dxcl_format_from_dxgi_plane(want->format, want->plane, &plane))
        return false;
    request->format = plane_vk_format(&plane.format);
    request->width = want->width / plane.width_divisor;
    request->height = want->height / plane.height_divisor;
    return request->format != 0;
}

static struct dxcl_dxgi_twin *new_twin(const struct dxcl_twin_request *request)
{
    struct dxcl_layer_twin_create create = {.request = *request};
    struct dxcl_dxgi_twin *twin;

    if (!layer_call(DXCL_LAYER_TWIN_CREATE, &create, &create.twin.error, "a twin") ||
        !(twin = calloc(1, sizeof(*twin)))) {
        if (create.twin.id) { /* made, but no memory here for it */
            struct dxcl_layer_twin gone = {.twin = create.twin.id};
            layer_call(DXCL_LAYER_TWIN_DESTROY, &gone, &gone.error, "a twin given up");
        }
        return NULL;
    }
    twin->vk = create.twin;
    return twin;
}

/* Gives the twin up to the layer at once (no GPU work of it was ever asked for). */
static void forget_twin(struct dxcl_dxgi_twin *twin)
{
    struct dxcl_layer_twin gone = {.twin = twin->vk.id};

    if (twin->vk.fd >= 0)
        dxcl_driver_close_fd(twin->vk.fd);
    layer_call(DXCL_LAYER_TWIN_DESTROY, &gone, &gone.error, "a twin given up");
    free(twin);
}

static void prepare_twin(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin);

/* A new twin of the surface's subresource, wrapped as a texture where DXVK can (2D), else
 * copied by the layer: its texture (or NULL) and twin go into `want`. NULL, or why not. */
static const char *make_twin(struct dxcl_surface *surface, bool host_import,
                             struct dxcl_dxgi_surface *want)
{
    struct dxcl_context *ctx = surface->context;
    D3D11_TEXTURE2D_DESC1 desc = {
        want->width, want->height, 1, 1, want->format, {1, 0}, D3D11_USAGE_DEFAULT, 0, 0, 0, 0};
    struct dxvk_image_create_info info, wrapped_info;
    struct dxcl_twin_request request;
    IDXGIVkInteropDevice1 *interop;
    struct dxcl_dxgi_twin *twin;
    ID3D11Texture2D *texture = NULL;
    uint64_t image;
    int32_t layout;

    if (!(image = vulkan_image(surface->resource, &layout, &info)))
        return "Direct3D is not DXVK (no IDXGIVkInteropSurface), or DXVK gave no Vulkan image";
    if (!twin_request(ctx, want, image, &info, host_import, &request))
        return "no single-plane format holds the plane";
    if (!(twin = new_twin(&request)))
        return "the Vulkan layer made no twin";
    want->twin = twin;
    /* DXVK wraps 2D images and copies whole subresources only: the layer copies a 3D texture's
     * and a plane's. */
    if ((twin->layer_copies = want->kind == DXCL_DXGI_TEXTURE3D || want->lone_plane)) {
        want->staging = NULL;
        return NULL;
    }
    if (!(interop = interop_of(ctx)))
        return "Direct3D is not DXVK (no IDXGIVkInteropDevice1)";
    if (FAILED(interop->lpVtbl->CreateTexture2DFromVkImage(interop, &desc, twin->vk.image,
                                                           &texture))) {
        interop->lpVtbl->Release(interop);
        return "DXVK refused the twin (CreateTexture2DFromVkImage)";
    }
    interop->lpVtbl->Release(interop);
    want->staging = (IUnknown *)texture;
    vulkan_image(want->staging, &layout, &wrapped_info);
    twin->layout = (uint32_t)layout;
    prepare_twin(surface->context, twin);
    return NULL;
}

/* The VkImage of the texture where a direct twin may serve the object (core/twin.h): the real
 * import (the test-only one needs a linear twin), a 2D texture of one subresource, not a plane;
 * else 0. Whether it does, the layer says (it made the image exportable or not). */
static uint64_t direct_image_of(struct dxcl_surface *surface, const struct dxcl_dxgi_surface *want,
                                bool host_import, int32_t *layout)
{
    struct dxvk_image_create_info info;
    uint64_t image;

    if (host_import || want->kind != DXCL_DXGI_TEXTURE2D || want->lone_plane)
        return 0;
    image = vulkan_image(surface->resource, layout, &info);
    if (!image || info.image_type != VK_IMAGE_TYPE_2D || info.mip_levels != 1 ||
        info.array_layers != 1)
        return 0;
    return image;
}

static bool direct_alive(struct dxcl_dxgi_twin *twin)
{
    struct dxcl_layer_twin check = {.twin = twin->vk.id};
    char why[256];

    return dxcl_driver_layer_call(DXCL_LAYER_TWIN_CHECK, &check, why, sizeof(why)) == 0;
}

static void drop_twin(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s);

/* A direct twin of the texture: from the pool where one of it is there (with its kept import)
 * and DXVK's image is still the one it was made of, else new. False when the texture has none
 * (the layer did not make its image exportable: logged). */
static bool take_direct(struct dxcl_surface *surface, cl_mem_flags flags,
                        struct dxcl_dxgi_surface *want, int32_t layout)
{
    struct dxcl_twin_request request = {.device = surface->context->gpu_device,
                                        .like_image = want->direct_image,
                                        .width = want->width,
                                        .height = want->height,
                                        .depth = 1,
                                        .image_type = VK_IMAGE_TYPE_2D,
                                        .direct = 1};
    struct dxvk_image_create_info info;
    struct dxcl_dxgi_twin *twin;

    if (!want->direct_image)
        return false;
    if (dxcl_dxgi_pool_take_twin(surface->context, want, flags)) {
        if (direct_alive(want->twin))
            return true;
        drop_twin(surface->context, want); /* of a texture since destroyed: its handle came back */
    }
    vulkan_image(surface->resource, &layout, &info);
    request.format = (uint32_t)info.format;
    if (!(twin = new_twin(&request))) {
        want->direct_image = 0; /* an ordinary twin then, pooled as one */
        return false;
    }
    twin->layout = (uint32_t)layout;
    want->twin = twin;
    want->staging = NULL;
    return true;
}

/* The twin's fd for the driver's import: the one made with it, or a new one (an import takes
 * its fd). */
static bool hand_out_fd(struct dxcl_dxgi_twin *twin, struct dxcl_device_storage *storage)
{
    struct dxcl_layer_twin_fd fd = {.twin = twin->vk.id, .fd = -1};

    if (twin->vk.fd < 0 && layer_call(DXCL_LAYER_TWIN_EXPORT, &fd, &fd.error, "the twin's fd"))
        twin->vk.fd = fd.fd;
    storage->fd = twin->vk.fd;
    twin->vk.fd = -1;
    return storage->fd >= 0;
}

/* The driver's import that the pooled twin's last object left, where it was made with the
 * object's flags (then no fd is needed); one made with other flags is released. */
static bool hand_out_import(struct dxcl_dxgi_twin *twin, struct dxcl_device_storage *storage)
{
    cl_mem kept = twin->cl_import;

    twin->cl_import = NULL;
    if (kept && twin->cl_import_flags == storage->flags) {
        storage->import = kept;
        return true;
    }
    if (kept)
        dxcl_driver()->clReleaseMemObject(kept);
    return false;
}

static void release_ready(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin)
{
    clReleaseSemaphoreKHR_fn release = dxcl_driver_external(ctx->handle).release_semaphore;

    if (twin->cl_ready && release)
        release(twin->cl_ready);
    twin->cl_ready = NULL;
}

/* The twin's `ready` as the context's driver knows it, imported the first time (a pooled twin
 * keeps it); none where the twin has none or the import failed: the host then waits for the
 * hand-ins. */
static void hand_out_ready(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin,
                           struct dxcl_device_storage *storage)
{
    struct dxcl_layer_twin_fd fd = {.twin = twin->vk.id, .fd = -1};

    if (!twin->vk.semaphores)
        DXCL_LOG("the GPU path: the twin has no `ready` (the Vulkan device exports no "
                 "semaphores): the host waits for Direct3D's hand-ins");
    else if (!twin->cl_ready &&
             layer_call(DXCL_LAYER_TWIN_READY_FD, &fd, &fd.error, "the twin's `ready`"))
        twin->cl_ready = dxcl_driver_import_semaphore(ctx->handle, fd.fd);
    storage->ready = twin->cl_ready;
}

/* The surface's staging copy, replaced by a twin: back to the pool, or freed. */
static void set_staging_aside(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    struct dxcl_dxgi_surface *aside = malloc(sizeof(*aside));

    if (aside) {
        *aside = *s;
        if (dxcl_dxgi_pool_put(ctx, aside))
            return;
        free(aside);
    }
    IUnknown_Release(s->staging);
}

/* A twin for `want`: direct, pooled or new; NULL, or why not. */
static const char *find_twin(struct dxcl_surface *surface, struct dxcl_device_storage *storage,
                             struct dxcl_dxgi_surface *want)
{
    const struct dxcl_dxgi_surface *s = surface->backend_data;
    int32_t layout = 0;

    if (s->kind == DXCL_DXGI_BUFFER || s->twin)
        return "the GPU path shares textures";
    if (s->of_staging)
        return "a staging texture has no Vulkan image on DXVK";
    if (!surface->context->gpu_device)
        return "sharing did not start on the device's Vulkan device (see above)";
    /* Once per texture, so that neither a direct nor an ordinary twin serves it. */
    if (dxcl_fault_hit(DXCL_FAULT_TWIN_MAKE))
        return "the Vulkan layer made no twin (fault injected: twin_make)";
    want->direct_image = direct_image_of(surface, want, storage->host_import, &layout);
    if ((storage->direct = take_direct(surface, storage->flags, want, layout)))
        return NULL;
    if (dxcl_dxgi_pool_take_twin(surface->context, want, storage->flags))
        return NULL;
    return make_twin(surface, storage->host_import, want);
}

bool dxcl_dxgi_device_storage(struct dxcl_surface *surface, struct dxcl_device_storage *storage)
{
    struct dxcl_dxgi_surface *s = surface->backend_data, want = *s;
    const char *why;

    want.twin = NULL;
    want.direct_image = 0;
    if (!(why = find_twin(surface, storage, &want)) && !storage->host_import &&
        memcmp(want.twin->vk.device_uuid, storage->device_uuid, sizeof(storage->device_uuid)))
        why = "Direct3D and OpenCL are on different GPUs (device UUIDs)";
    else if (!why && !hand_out_import(want.twin, storage) && !storage->host_import &&
             !hand_out_fd(want.twin, storage))
        why = "the twin's memory gave no fd";
    if (why) {
        if (want.twin)
            drop_twin(surface->context, &want);
        DXCL_LOG("%s resource %p: no GPU path (%s)", surface->backend->name,
                 (void *)surface->resource, why);
        return false;
    }
    set_staging_aside(surface->context, s);
    s->staging = want.staging;
    s->twin = want.twin;
    s->direct_image = want.direct_image;
    storage->size = want.twin->vk.size;
    storage->layer_device = surface->context->gpu_device;
    if (storage->host_import)
        dxcl_dxgi_twin_mapping(s->twin, &storage->host);
    else if (storage->sync_import)
        hand_out_ready(surface->context, s->twin, storage);
    return true;
}

/* ---- Hand-overs, gathered inside dxcl_device_enter (under dxcl_lock_device) ---- */

struct pending_item {
    struct dxcl_surface *surface; /* NULL for a retired twin */
    struct dxcl_dxgi_twin *twin;
    bool
        dxvk_copies_back; /* after the batch: DXVK's copy of the twin's texture into the resource */
};
static struct {
    struct dxcl_context *ctx; /* the device of the batch */
    struct dxcl_hand_over batch;
    struct pending_item items[DXCL_HAND_OVER_MAX];
} pending;
/* The time of each batch's steps (QueryPerformanceCounter ticks), for the log at the context's
 * end: [0] DXVK's flush through its threads, [1] holding its submissions back, [2] the layer's
 * submission. */
static LONG64 batch_ticks[3];
static LONG batch_count, batch_items;

static cl_int send_pending(void);

/* A slot of the batch for the context's device (the batch of another device is sent first). */
static struct dxcl_hand_over_item *add_item(struct dxcl_context *ctx,
                                            const struct pending_item *item)
{
    struct dxcl_hand_over_item *slot;

    if (pending.batch.count &&
        (pending.ctx->device != ctx->device || pending.batch.count == DXCL_HAND_OVER_MAX))
        send_pending();
    pending.ctx = ctx;
    pending.items[pending.batch.count] = *item;
    slot = &pending.batch.items[pending.batch.count++];
    *slot = (struct dxcl_hand_over_item){.twin = item->twin->vk.id};
    return slot;
}

/* What `item` hands over names the program's image (the layer copies), or the twin's own. */
static bool name_images(struct dxcl_surface *surface, struct dxcl_dxgi_twin *twin,
                        struct dxcl_hand_over_item *item)
{
    const struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxvk_image_create_info info;
    int32_t layout = 0;
    uint64_t image;

    item->copies = twin->layer_copies;
    if (!twin->layer_copies && !twin->vk.direct) { /* the texture DXVK wraps it in */
        item->image = twin->vk.image;
        item->layout = twin->layout;
        return true;
    }
    if (!(image = vulkan_image(surface->resource, &layout, &info)) || !info.mip_levels)
        return false;
    item->image = image;
    item->layout = (uint32_t)layout;
    item->aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    item->mip_level = surface->subresource % info.mip_levels;
    item->array_layer = surface->subresource / info.mip_levels;
    if (s->lone_plane) {                  /* subresource = plane + planes x slice, at mip 0 */
        item->aspect = 0x10u << s->plane; /* VK_IMAGE_ASPECT_PLANE_0_BIT, _1_, _2_ */
        item->mip_level = 0;
        item->array_layer = surface->subresource / dxcl_dxgi_plane_count(s->format);
    }
    return true;
}

/* A twin whose last hand-out failed is still OpenCL's as far as the layer knows: it comes back
 * (nothing written, nothing waited for) before its next hand-in, in a batch of its own, so that
 * DXVK's copy into it comes after. */
static bool take_back(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxcl_hand_over_item *item =
        add_item(surface->context, &(struct pending_item){surface, s->twin, false});

    item->op = DXCL_HAND_OUT;
    if (!name_images(surface, s->twin, item))
        pending.batch.count--; /* not sent: it stays OpenCL's */
    else
        send_pending();
    return !s->twin->handed_in;
}

/* DXCL_GPU_READY=host: OpenCL never waits for Direct3D's hand-in on the GPU (its `ready`); the
 * host waits for the hand-in's end instead, as where the driver imports no semaphore. */
static bool host_waits_hand_ins(void)
{
    static LONG state; /* 0 unread, 1 the GPU waits, 2 the host */
    char value[8];

    if (!state)
        InterlockedExchange(
            &state,
            dxcl_getenv("GPU_READY", value, sizeof(value)) && !strcmp(value, "host") ? 2 : 1);
    return state == 2;
}

cl_int dxcl_dxgi_twin_in(struct dxcl_surface *surface, bool contents)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxcl_dxgi_twin *twin = s->twin;
    struct dxcl_hand_over_item *item;
    bool dxvk_copies = contents && !twin->layer_copies && !twin->vk.direct;

    if (twin->handed_in && !take_back(surface))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES,
                         "%s resource %p: its twin is still OpenCL's (its "
                         "hand-out failed again)",
                         surface->backend->name, (void *)surface->resource);
    /* The layer's copy or barrier reads DXVK's image: its initial data must be on the GPU. */
    if (!dxvk_copies && !twin->initial_flushed) {
        dxvk_nudge(surface->context);
        twin->initial_flushed = true;
    }
    if (dxvk_copies)
        dxvk_copy(surface, true);
    item = add_item(surface->context, &(struct pending_item){surface, twin, false});
    item->op = DXCL_HAND_IN;
    item->contents = contents || twin->vk.direct; /* a direct twin is the texture: kept */
    item->signal_ready = surface->gpu_synced && !host_waits_hand_ins();
    if (!name_images(surface, twin, item))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s resource %p: DXVK gave no Vulkan image",
                         surface->backend->name, (void *)surface->resource);
    dxcl_dxgi_twin_mapping(twin, &surface->mapping);
    return CL_SUCCESS;
}

cl_int dxcl_dxgi_twin_out(struct dxcl_surface *surface, bool write_back)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxcl_dxgi_twin *twin = s->twin;
    struct dxcl_hand_over_item *item;

    surface->mapping.data = NULL;
    if (!twin->handed_in) /* its hand-in failed, or never went: OpenCL never had it */
        return CL_SUCCESS;
    item = add_item(surface->context,
                    &(struct pending_item){surface, twin,
                                           write_back && !twin->layer_copies && !twin->vk.direct});
    item->op = DXCL_HAND_OUT;
    item->opencl_used = surface->release_event != NULL;
    item->copy_back = write_back && twin->layer_copies;
    if (!name_images(surface, twin, item))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "%s resource %p: DXVK gave no Vulkan image",
                         surface->backend->name, (void *)surface->resource);
    return CL_SUCCESS;
}

/* Direct3D's queue waits for OpenCL's release: the layer signals the value once the driver says
 * the release event is done (through the Unix side), or says now that it will never be. */
static void watch_release(struct dxcl_surface *surface, struct dxcl_dxgi_twin *twin, uint64_t value)
{
    struct dxcl_layer_release_when when = {(uint64_t)(uintptr_t)surface->release_event, twin->vk.id,
                                           value, 0, 0};
    struct dxcl_layer_released released = {twin->vk.id, value, 0, 0};
    char why[256];

    if (dxcl_fault_hit(DXCL_FAULT_RELEASE_WATCH)) {
        DXCL_LOG("the GPU path: OpenCL's release is not watched: fault injected "
                 "(release_watch); Direct3D's queue goes on at its bound");
        return;
    }
    if (dxcl_driver_layer_call(DXCL_LAYER_RELEASE_WHEN, &when, why, sizeof(why)) == 0 &&
        when.result == 0)
        return;
    DXCL_LOG("the GPU path: OpenCL's release cannot be watched (%d: %s); Direct3D's queue goes "
             "on now",
             (int)when.result, why);
    released.status = when.result ? when.result : -1;
    dxcl_driver_layer_call(DXCL_LAYER_RELEASED, &released, why, sizeof(why));
}

/* A hand-over of the batch done (or not): the surface's state from it. */
static void settle_item(const struct pending_item *p, const struct dxcl_hand_over_item *item,
                        bool done)
{
    struct dxcl_surface *surface = p->surface;
    struct dxcl_dxgi_twin *twin = p->twin;

    if (item->op == DXCL_HAND_IN) {
        twin->handed_in = done;
        surface->ready_signalled = done && item->signal_ready && !pending.batch.ready_skipped;
        surface->hand_in_value = done && !surface->ready_signalled ? pending.batch.done_value : 0;
        twin->hand_ins += done;
        twin->ready_signals += surface->ready_signalled;
        return;
    }
    if (item->op != DXCL_HAND_OUT)
        return;
    twin->handed_in = !done; /* a failed one is tried again at the next hand-in */
    twin->hand_outs += done;
    if (done && item->opencl_used)
        watch_release(surface, twin, item->release_value);
    if (surface->release_event)
        dxcl_driver()->clReleaseEvent(surface->release_event);
    surface->release_event = NULL;
    if (done && p->dxvk_copies_back)
        dxvk_copy(surface, false);
}

static cl_int send_pending(void)
{
    struct dxcl_context *ctx = pending.ctx;
    struct dxcl_hand_over *batch = &pending.batch;
    IDXGIVkInteropDevice1 *interop = interop_of(ctx);
    LARGE_INTEGER t[4];
    void *queue = NULL;
    bool done = false;
    char why[256];

    batch->device = ctx->gpu_device;
    batch->unless_idle = 1;
    if (interop && !dxcl_fault_hit(DXCL_FAULT_TWIN)) {
        interop->lpVtbl->GetSubmissionQueue1(interop, &queue, &batch->queue_index,
                                             &batch->queue_family);
        QueryPerformanceCounter(&t[0]);
        /* DXVK's work before (its copies into twins among it) goes to the queue first. */
        interop->lpVtbl->FlushRenderingCommands(interop);
        QueryPerformanceCounter(&t[1]);
        interop->lpVtbl->LockSubmissionQueue(interop);
        QueryPerformanceCounter(&t[2]);
        done = dxcl_driver_layer_call(DXCL_LAYER_HAND_OVER, batch, why, sizeof(why)) == 0;
        interop->lpVtbl->ReleaseSubmissionQueue(interop);
        QueryPerformanceCounter(&t[3]);
        for (int i = 0; i < 3; i++)
            batch_ticks[i] += t[i + 1].QuadPart - t[i].QuadPart;
        batch_count++;
        batch_items += batch->count;
    }
    if (interop)
        interop->lpVtbl->Release(interop);
    if (!done)
        DXCL_LOG("%s device %p: %u hand-overs on Direct3D's queue failed: %s", ctx->backend->name,
                 ctx->device, batch->count,
                 !interop               ? "Direct3D is not DXVK"
                 : batch->error.text[0] ? batch->error.text
                 : queue                ? why
                                        : "DXCL_FAULT twin");
    for (uint32_t i = 0; i < batch->count; i++)
        if (pending.items[i].surface)
            settle_item(&pending.items[i], &batch->items[i], done);
    for (uint32_t i = 0; i < batch->count; i++)
        if (batch->items[i].op == DXCL_HAND_RETIRE) /* the layer frees it after the GPU */
            free(pending.items[i].twin);
    memset(batch, 0, sizeof(*batch));
    pending.ctx = NULL;
    return done ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
}

/* A new twin DXVK wraps: the layer moves it into the layout DXVK takes it to be in, before
 * DXVK's first command on it (Vulkan makes every new image UNDEFINED). A batch of its own. */
static void prepare_twin(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin)
{
    struct dxcl_hand_over_item *item = add_item(ctx, &(struct pending_item){NULL, twin, false});

    item->op = DXCL_HAND_PREPARE;
    item->image = twin->vk.image;
    item->layout = twin->layout;
    send_pending();
}

cl_int dxcl_dxgi_end_hand_overs(struct dxcl_context *ctx)
{
    (void)ctx;
    return pending.batch.count ? send_pending() : CL_SUCCESS;
}

/* ---- Twins given up ---- */

static void log_twin(const struct dxcl_dxgi_twin *twin)
{
    LARGE_INTEGER frequency;
    double us;

    DXCL_LOG("the GPU path: twin %llu given up: %ld hand-ins (%ld with `ready` for OpenCL, the "
             "others waited for by the host), %ld hand-outs",
             (unsigned long long)twin->vk.id, (long)twin->hand_ins, (long)twin->ready_signals,
             (long)twin->hand_outs);
    if (!batch_count)
        return;
    QueryPerformanceFrequency(&frequency);
    us = 1e6 / (double)frequency.QuadPart / batch_count;
    DXCL_LOG("the GPU path: %ld batches of %ld hand-overs so far (us each: DXVK's flush %.1f, "
             "holding its submissions %.1f, the layer's submission %.1f)",
             (long)batch_count, (long)batch_items, (double)batch_ticks[0] * us,
             (double)batch_ticks[1] * us, (double)batch_ticks[2] * us);
}

/* Gives the twin up: its texture, its driver objects, then the twin itself to the layer after
 * everything of Direct3D's submitted so far (a batch of its own). The caller is inside
 * dxcl_device_enter. */
static void drop_twin(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    struct dxcl_dxgi_twin *twin = s->twin;
    struct dxcl_hand_over_item *item;

    log_twin(twin);
    if (s->staging)
        IUnknown_Release(s->staging);
    s->staging = NULL;
    release_ready(ctx, twin);
    if (twin->cl_import)
        dxcl_driver()->clReleaseMemObject(twin->cl_import);
    if (twin->vk.fd >= 0)
        dxcl_driver_close_fd(twin->vk.fd);
    if (!ctx->gpu_device) { /* never handed over: nothing of the GPU's to wait for */
        twin->vk.fd = -1;
        forget_twin(twin);
    } else {
        item = add_item(ctx, &(struct pending_item){NULL, twin, false});
        item->op = DXCL_HAND_RETIRE;
        send_pending();
    }
    s->twin = NULL;
}

void dxcl_dxgi_twin_release(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    void *protection = dxcl_device_enter(ctx->backend, ctx);

    drop_twin(ctx, s);
    dxcl_device_leave(ctx->backend, protection);
}
