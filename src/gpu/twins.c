/* The GPU path of D3D1x on DXVK (gpu/twins.h; docs/design.md, "The GPU path"). */
#include "gpu/twins.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/fault.h"
#include "gpu/batch.h"
#include "gpu/dxvk.h"
#include "gpu/gpu_path.h"
#include "formats/formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- Sharing starts ---- */

void dxcl_dxgi_share(struct dxcl_context *ctx)
{
    struct dxcl_layer_share share = {0};
    struct dxvk_image_create_info info;
    IDXGIVkInteropDevice1 *interop;
    IUnknown *probe;
    int32_t layout;

    if (!dxcl_gpu_path_may_serve(ctx) || !(interop = dxcl_gpu_interop_of(ctx)))
        return; /* no GPU path for it: dxcl_gpu_path_probe says why, per object */
    interop->lpVtbl->Release(interop);
    if (!(probe = dxcl_gpu_dxvk_probe(ctx)) ||
        !(share.image = dxcl_gpu_vulkan_image(probe, &layout, &info))) {
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

    if (!(image = dxcl_gpu_vulkan_image(surface->resource, &layout, &info)))
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
    if (!(interop = dxcl_gpu_interop_of(ctx)))
        return "Direct3D is not DXVK (no IDXGIVkInteropDevice1)";
    if (FAILED(interop->lpVtbl->CreateTexture2DFromVkImage(interop, &desc, twin->vk.image,
                                                           &texture))) {
        interop->lpVtbl->Release(interop);
        return "DXVK refused the twin (CreateTexture2DFromVkImage)";
    }
    interop->lpVtbl->Release(interop);
    want->staging = (IUnknown *)texture;
    dxcl_gpu_vulkan_image(want->staging, &layout, &wrapped_info);
    twin->layout = (uint32_t)layout;
    dxcl_gpu_batch_prepare(surface->context, twin);
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
    image = dxcl_gpu_vulkan_image(surface->resource, layout, &info);
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
    dxcl_gpu_vulkan_image(surface->resource, &layout, &info);
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
        memset(s->kept, 0, sizeof(s->kept)); /* the kept driver objects go with the staging */
        if (dxcl_dxgi_pool_put(ctx, aside))
            return;
        memcpy(s->kept, aside->kept, sizeof(s->kept));
        free(aside);
    }
    dxcl_dxgi_release_kept(s);
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
    if (dxcl_dxgi_pool_take_twin(surface->context, want, storage->flags)) {
        /* An ordinary twin serves any texture of its shape: this one's initial data is not yet
         * known submitted (its last texture may be gone, a new one at its address). */
        want->twin->initial_flushed = false;
        return NULL;
    }
    return make_twin(surface, storage->host_import, want);
}

bool dxcl_dxgi_device_storage(struct dxcl_surface *surface, struct dxcl_device_storage *storage)
{
    struct dxcl_dxgi_surface *s = surface->backend_data, want = *s;
    const char *why;

    want.twin = NULL;
    want.direct_image = 0;
    memset(want.kept, 0, sizeof(want.kept)); /* the staging copy's, which stay with it */
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

/* ---- Twins given up ---- */

static void log_twin(const struct dxcl_dxgi_twin *twin)
{
    DXCL_LOG("the GPU path: twin %llu given up: %ld hand-ins (%ld with `ready` for OpenCL, the "
             "others waited for by the host), %ld hand-outs",
             (unsigned long long)twin->vk.id, (long)twin->hand_ins, (long)twin->ready_signals,
             (long)twin->hand_outs);
    dxcl_gpu_batch_log_times();
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
        item = dxcl_gpu_batch_add(ctx, &(struct dxcl_gpu_batch_item){NULL, twin, false});
        item->op = DXCL_HAND_RETIRE;
        dxcl_gpu_batch_send();
    }
    s->twin = NULL;
}

void dxcl_dxgi_twin_release(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    void *protection = dxcl_device_enter(ctx->backend, ctx);

    drop_twin(ctx, s);
    dxcl_device_leave(ctx->backend, protection);
}
