/* The GPU path's hand-overs (gpu/batch.h): gathered inside dxcl_device_enter, under
 * dxcl_lock_device, and sent to the layer in one batch with one flush of DXVK and one hold of its
 * submissions; each surface's state settled from the batch's answer. */
#include "gpu/batch.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/fault.h"
#include "gpu/dxvk.h"
#include "gpu/gpu_path.h"
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>

#define VK_IMAGE_ASPECT_COLOR_BIT 1

void dxcl_dxgi_twin_mapping(const struct dxcl_dxgi_twin *twin, struct dxcl_mapping *mapping)
{
    *mapping = (struct dxcl_mapping){(void *)(uintptr_t)twin->vk.host, (size_t)twin->vk.row_pitch,
                                     (size_t)twin->vk.slice_pitch};
}

static struct {
    struct dxcl_context *ctx; /* the device of the batch */
    struct dxcl_hand_over batch;
    struct dxcl_gpu_batch_item items[DXCL_HAND_OVER_MAX];
} pending;
/* The time of each batch's steps (QueryPerformanceCounter ticks), for the log at the context's
 * end: [0] DXVK's flush through its threads, [1] holding its submissions back, [2] the layer's
 * submission. */
static LONG64 batch_ticks[3];
static LONG batch_count, batch_items;

/* A slot of the batch for the context's device (the batch of another device is sent first). */
struct dxcl_hand_over_item *dxcl_gpu_batch_add(struct dxcl_context *ctx,
                                               const struct dxcl_gpu_batch_item *item)
{
    struct dxcl_hand_over_item *slot;

    if (pending.batch.count &&
        (pending.ctx->device != ctx->device || pending.batch.count == DXCL_HAND_OVER_MAX))
        dxcl_gpu_batch_send();
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
    if (!(image = dxcl_gpu_vulkan_image(surface->resource, &layout, &info)) || !info.mip_levels)
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
    struct dxcl_hand_over_item *item = dxcl_gpu_batch_add(
        surface->context, &(struct dxcl_gpu_batch_item){surface, s->twin, false});

    item->op = DXCL_HAND_OUT;
    if (!name_images(surface, s->twin, item))
        pending.batch.count--; /* not sent: it stays OpenCL's */
    else
        dxcl_gpu_batch_send();
    return !s->twin->handed_in;
}

/* DXCL_GPU_READY=host: OpenCL never waits for Direct3D's hand-in on the GPU (its `ready`); the
 * host waits for the hand-in's end instead, as where the driver imports no semaphore. */
static bool host_waits_hand_ins(void)
{
    static volatile LONG host;

    return dxcl_setting_is(&host, "GPU_READY", "host");
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
        dxcl_gpu_dxvk_nudge(surface->context);
        twin->initial_flushed = true;
    }
    if (dxvk_copies)
        dxcl_gpu_dxvk_copy(surface, true);
    item =
        dxcl_gpu_batch_add(surface->context, &(struct dxcl_gpu_batch_item){surface, twin, false});
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
    item = dxcl_gpu_batch_add(
        surface->context,
        &(struct dxcl_gpu_batch_item){surface, twin,
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
static void settle_item(const struct dxcl_gpu_batch_item *p, const struct dxcl_hand_over_item *item,
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
        dxcl_gpu_dxvk_copy(surface, false);
}

cl_int dxcl_gpu_batch_send(void)
{
    struct dxcl_context *ctx = pending.ctx;
    struct dxcl_hand_over *batch = &pending.batch;
    IDXGIVkInteropDevice1 *interop = dxcl_gpu_interop_of(ctx);
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
void dxcl_gpu_batch_prepare(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin)
{
    struct dxcl_hand_over_item *item =
        dxcl_gpu_batch_add(ctx, &(struct dxcl_gpu_batch_item){NULL, twin, false});

    item->op = DXCL_HAND_PREPARE;
    item->image = twin->vk.image;
    item->layout = twin->layout;
    dxcl_gpu_batch_send();
}

cl_int dxcl_dxgi_end_hand_overs(struct dxcl_context *ctx)
{
    (void)ctx;
    return pending.batch.count ? dxcl_gpu_batch_send() : CL_SUCCESS;
}

/* The batches' step times so far, in the log (with each twin given up). */
void dxcl_gpu_batch_log_times(void)
{
    LARGE_INTEGER frequency;
    double us;

    if (!batch_count)
        return;
    QueryPerformanceFrequency(&frequency);
    us = 1e6 / (double)frequency.QuadPart / batch_count;
    DXCL_LOG("the GPU path: %ld batches of %ld hand-overs so far (us each: DXVK's flush %.1f, "
             "holding its submissions %.1f, the layer's submission %.1f)",
             (long)batch_count, (long)batch_items, (double)batch_ticks[0] * us,
             (double)batch_ticks[1] * us, (double)batch_ticks[2] * us);
}
