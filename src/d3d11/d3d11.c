/* The D3D11 backend (cl_khr_d3d11_sharing, cl_nv_d3d11_sharing, and the NV12 planes of
 * cl_intel_d3d11_nv12_media_sharing): ID3D11Device, buffers, 2D and 3D textures, copied
 * through the device's immediate context. */
#include "dxgi/dxgi_resources.h"
#include "core/driver.h"
#include "core/fault.h"
#include "core/route.h"

#include <d3d11_4.h>
#include <stdio.h>
#include <stdlib.h>
#include <CL/cl_d3d11.h>
#include "dxgi/dxvk_interop.h"

/* cl_intel_d3d11_nv12_media_sharing changes the D3D11 create functions only (no functions or
 * tokens of its own). Every driver with images holds both planes: CL_R and CL_RG of
 * UNORM_INT8 are native, or emulated in CL_RGBA/UNORM_INT8, which OpenCL requires of every
 * device with images (as for cl_khr_dx9_media_sharing's NV12). Unlike Intel's driver, dxcl
 * does not require D3D11_RESOURCE_MISC_SHARED: it copies whole slices, both planes at once. */
static const struct dxcl_extension nv12_media_sharing;

/* Without the extension (DXCL_FAMILIES leaves it out), NV12 is what the KHR text makes it:
 * a format outside the table. */
static bool d3d11_shares_planes(void)
{
    for (size_t i = 0; i < dxcl_extension_count(); i++)
        if (dxcl_extension_at(i) == &nv12_media_sharing)
            return true;
    return false;
}

DXCL_DXGI_RESOURCES(D3D11, d3d11, d3d11_shares_planes())

/* The immediate context's ID3D11Multithread, or NULL (a runtime without it). */
static struct dxcl_dxgi_multithread *d3d11_multithread(struct dxcl_context *ctx)
{
    ID3D11DeviceContext *immediate;
    void *mt;

    ID3D11Device_GetImmediateContext((ID3D11Device *)ctx->device, &immediate);
    if (FAILED(ID3D11DeviceContext_QueryInterface(immediate, &IID_ID3D11Multithread, &mt)))
        mt = NULL;
    ID3D11DeviceContext_Release(immediate);
    return mt;
}

DXCL_DXGI_PROTECTION(D3D11, d3d11)

/* The immediate context, inside the program's protection. */
static ID3D11DeviceContext *enter_device(struct dxcl_surface *surface, void **protection)
{
    ID3D11DeviceContext *immediate;

    *protection = d3d11_enter_device(surface->context);
    ID3D11Device_GetImmediateContext((ID3D11Device *)surface->context->device, &immediate);
    return immediate;
}

static void leave_device(ID3D11DeviceContext *immediate, void *protection)
{
    ID3D11DeviceContext_Release(immediate);
    dxcl_dxgi_leave_device(protection);
}

static void copy(ID3D11DeviceContext *immediate, struct dxcl_dxgi_surface *s, ID3D11Resource *dst,
                 UINT dst_sub, ID3D11Resource *src, UINT src_sub)
{
    if (s->kind == DXCL_DXGI_BUFFER)
        ID3D11DeviceContext_CopyResource(immediate, dst, src);
    else
        ID3D11DeviceContext_CopySubresourceRegion(immediate, dst, dst_sub, 0, 0, 0, src, src_sub,
                                                  NULL);
}

/* The staging copy as it is. */
static cl_int map_staging(ID3D11DeviceContext *immediate, struct dxcl_surface *surface,
                          struct dxcl_mapping *mapping)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    D3D11_MAPPED_SUBRESOURCE mapped;
    HRESULT hr = ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)s->staging, 0,
                                         D3D11_MAP_READ_WRITE, 0, &mapped);

    if (FAILED(hr))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "mapping the staging copy failed (0x%08lx)",
                         (unsigned long)hr);
    *mapping = (struct dxcl_mapping){mapped.pData, mapped.RowPitch, mapped.DepthPitch};
    return CL_SUCCESS;
}

/* ---- The GPU path's twins on DXVK (docs/design.md, "The GPU path") ---- */

/* Waits until the GPU has done every copy dxcl queued on the twin (and all work before them):
 * the twin's memory is then OpenCL's to use, or free. */
static void wait_for_gpu(ID3D11DeviceContext *immediate)
{
    D3D11_QUERY_DESC event = {D3D11_QUERY_EVENT, 0};
    ID3D11Device *device;
    ID3D11Query *done = NULL;

    /* A query of its own each time: a twin kept in the pool holds no more of the device than
     * a staging copy does (one reference, its texture). */
    ID3D11DeviceContext_GetDevice(immediate, &device);
    ID3D11Device_CreateQuery(device, &event, &done);
    ID3D11Device_Release(device);
    if (!done) {
        ID3D11DeviceContext_Flush(immediate);
        return;
    }
    ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)done);
    ID3D11DeviceContext_Flush(immediate);
    for (ULONGLONG start = GetTickCount64(), told = 0;
         ID3D11DeviceContext_GetData(immediate, (ID3D11Asynchronous *)done, NULL, 0, 0) == S_FALSE;
         SwitchToThread())
        if (!told && GetTickCount64() - start > 2000)
            DXCL_LOG("D3D11: the GPU has not done dxcl's copy of a twin after %d s",
                     (int)++told * 2);
    ID3D11Query_Release(done);
}

/* The twin's memory as the driver sees it: mapped with the test-only import, else none. */
static void twin_mapping(const struct dxcl_dxgi_twin *twin, struct dxcl_mapping *mapping)
{
    *mapping = (struct dxcl_mapping){twin->vk.host, (size_t)twin->vk.row_pitch,
                                     (size_t)twin->vk.slice_pitch};
}

/* The program's image and subresource for the layer's copy: false when DXVK gives none. */
static bool copy_subresource(struct dxcl_surface *surface, struct dxcl_twin_sync *sync)
{
    const struct dxcl_dxgi_surface *s = surface->backend_data;
    struct dxvk_image_create_info info = {.s_type = DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    unsigned planes;
    IDXGIVkInteropSurface *image;
    dxvk_vk_image handle = 0;
    int32_t layout = 0;
    HRESULT hr;

    if (FAILED(IUnknown_QueryInterface(surface->resource, &IID_IDXGIVkInteropSurface,
                                       (void **)&image)))
        return false;
    hr = image->lpVtbl->GetVulkanImageInfo(image, &handle, &layout, &info);
    image->lpVtbl->Release(image);
    if (FAILED(hr) || !handle || !info.mip_levels)
        return false;
    sync->image = handle;
    sync->layout = (uint32_t)layout;
    sync->aspect = 1; /* VK_IMAGE_ASPECT_COLOR_BIT */
    sync->mip_level = surface->subresource % info.mip_levels;
    sync->array_layer = surface->subresource / info.mip_levels;
    if (s->lone_plane) { /* subresource = plane + planes x slice, at mip 0 */
        planes = dxcl_dxgi_plane_count(s->format);
        sync->aspect = 0x10u << s->plane; /* VK_IMAGE_ASPECT_PLANE_0_BIT, _1_, _2_ */
        sync->mip_level = 0;
        sync->array_layer = surface->subresource / planes;
    }
    return true;
}

/* A hand-over of the twin ordered on Direct3D's queue (core/twin.h), with DXVK's submissions
 * held back: the signal of `ready` after everything dxcl queued (flushed through DXVK's threads
 * first), the wait for `done` before everything after it, or the layer's copy in (then the
 * signal) or out (after the wait), the semaphore only `with_semaphore`. No wait for the GPU. */
static bool sync_on_queue_as(struct dxcl_surface *surface, struct dxcl_dxgi_twin *twin,
                             struct dxcl_twin_sync *asked)
{
    struct dxcl_twin_sync sync = *asked;
    int32_t op = sync.op;
    bool signal = op == DXCL_TWIN_SYNC_SIGNAL_READY || op == DXCL_TWIN_SYNC_COPY_IN ||
                  op == DXCL_TWIN_SYNC_HAND_IN;
    bool copies = op != DXCL_TWIN_SYNC_SIGNAL_READY && op != DXCL_TWIN_SYNC_WAIT_DONE;
    LONG64 *ticks = signal ? twin->signal_ticks : twin->wait_ticks;
    LARGE_INTEGER t[4];
    IDXGIVkInteropDevice1 *interop;
    void *queue = NULL;
    bool done;

    if (dxcl_fault_hit(DXCL_FAULT_TWIN)) {
        snprintf(twin->vk.error, sizeof(twin->vk.error), "DXCL_FAULT twin");
        return false;
    }
    if (copies && !copy_subresource(surface, &sync)) {
        DXCL_LOG("D3D11 resource %p: DXVK gave no Vulkan image to copy", (void *)surface->resource);
        return false;
    }
    if (FAILED(IUnknown_QueryInterface((IUnknown *)surface->context->device,
                                       &IID_IDXGIVkInteropDevice1, (void **)&interop)))
        return false;
    interop->lpVtbl->GetSubmissionQueue1(interop, &queue, &sync.queue_index, &sync.queue_family);
    QueryPerformanceCounter(&t[0]);
    /* DXVK's work before must be on the queue before the layer's (DXVK's interop rule). */
    if (signal || copies)
        interop->lpVtbl->FlushRenderingCommands(interop);
    QueryPerformanceCounter(&t[1]);
    interop->lpVtbl->LockSubmissionQueue(interop);
    QueryPerformanceCounter(&t[2]);
    done = dxcl_driver_twin_sync(&twin->vk, &sync);
    interop->lpVtbl->ReleaseSubmissionQueue(interop);
    QueryPerformanceCounter(&t[3]);
    interop->lpVtbl->Release(interop);
    for (int i = 0; i < 3; i++)
        ticks[i] += t[i + 1].QuadPart - t[i].QuadPart;
    asked->skipped = sync.skipped;
    if (sync.skipped)
        twin->idle_hand_ins++;
    else
        signal ? twin->signals++ : twin->waits++;
    if (!done)
        DXCL_LOG("D3D11 resource %p: %s on Direct3D's queue failed: %s", (void *)surface->resource,
                 twin->vk.direct ? "the hand-over"
                 : copies        ? "the layer's copy"
                 : signal        ? "the signal"
                                 : "the wait",
                 twin->vk.error);
    return done;
}

static bool sync_on_queue(struct dxcl_surface *surface, struct dxcl_dxgi_twin *twin, int32_t op,
                          bool with_semaphore)
{
    struct dxcl_twin_sync sync = {.op = op, .with_semaphore = with_semaphore};

    return sync_on_queue_as(surface, twin, &sync);
}

/* The twin is Direct3D's copy of the resource: OpenCL waits for it on the GPU (the semaphore)
 * where it can, else the CPU waits here. */
static void twin_ready(struct dxcl_surface *surface, ID3D11DeviceContext *immediate)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;

    if (surface->gpu_synced && !surface->ready_signalled &&
        sync_on_queue(surface, s->twin, DXCL_TWIN_SYNC_SIGNAL_READY, true))
        surface->ready_signalled = true;
    else
        wait_for_gpu(immediate);
    twin_mapping(s->twin, &surface->mapping);
}

/* Ends the twin's idle query on the immediate context (made the first time); false without one.
 * Before the layer's copy, only so that something is recorded: DXVK's flush skips a context
 * with nothing recorded, and the initial data of a new texture goes to the GPU only with the
 * context's next commands. Its end then says nothing of the twin (idle_known false). */
static bool end_idle_query(ID3D11DeviceContext *immediate, struct dxcl_dxgi_twin *twin)
{
    D3D11_QUERY_DESC event = {D3D11_QUERY_EVENT, 0};
    ID3D11Device *device;

    if (!twin->idle) {
        ID3D11DeviceContext_GetDevice(immediate, &device);
        ID3D11Device_CreateQuery(device, &event, (ID3D11Query **)&twin->idle);
        ID3D11Device_Release(device);
    }
    twin->idle_known = false;
    if (twin->idle)
        ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)twin->idle);
    return twin->idle != NULL;
}

/* Before the surface's first copy by the layer, something on the immediate context, so that
 * DXVK's flush submits the texture's initial data (end_idle_query); later, DXVK's flush alone
 * submits what the program recorded since. */
static void before_layer_copy(ID3D11DeviceContext *immediate, struct dxcl_dxgi_surface *s)
{
    if (s->twin->vk.direct && s->twin->initial_flushed)
        s->initial_flushed = true; /* an earlier object of the texture did it */
    if (!s->initial_flushed)
        s->initial_flushed = end_idle_query(immediate, s->twin);
    else
        s->twin->idle_known = false;
    s->twin->initial_flushed = s->initial_flushed;
}

/* The layer's copy into the twin (or a direct twin's hand-over: DXVK's own image, moved by the
 * layer's barrier where DXVK keeps it outside GENERAL), with the signal of ready where OpenCL
 * waits for it on the GPU; else the CPU waits for Direct3D here. A direct twin in GENERAL needs
 * no signal where everything submitted to Direct3D's queues is done (the layer knows without
 * waiting): OpenCL then waits for nothing. */
static cl_int layer_copy_in(struct dxcl_surface *surface, ID3D11DeviceContext *immediate)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    bool signal = surface->gpu_synced && !surface->ready_signalled;
    int32_t op = !s->twin->vk.direct     ? DXCL_TWIN_SYNC_COPY_IN
                 : s->twin->layer_copies ? DXCL_TWIN_SYNC_HAND_IN
                                         : DXCL_TWIN_SYNC_SIGNAL_READY;
    struct dxcl_twin_sync sync = {
        .op = op, .with_semaphore = signal, .unless_idle = op == DXCL_TWIN_SYNC_SIGNAL_READY};

    before_layer_copy(immediate, s);
    if ((op != DXCL_TWIN_SYNC_SIGNAL_READY || signal) && !sync_on_queue_as(surface, s->twin, &sync))
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "the %s of resource %p into its twin failed",
                         s->twin->vk.direct ? "hand-over" : "copy", (void *)surface->resource);
    if (signal && !sync.skipped)
        surface->ready_signalled = true;
    else if (!sync.skipped) /* idle: Direct3D's work is done already */
        wait_for_gpu(immediate);
    twin_mapping(s->twin, &surface->mapping);
    return CL_SUCCESS;
}

/* After dxcl's copy out of the twin: an event query behind it, flushed, so that a later first
 * command that overwrites the object can see Direct3D is through with the twin. */
static void mark_copy_out(ID3D11DeviceContext *immediate, struct dxcl_dxgi_twin *twin)
{
    if (!end_idle_query(immediate, twin))
        return;
    twin->idle_known = true;
    ID3D11DeviceContext_Flush(immediate);
}

/* Direct3D has done every copy dxcl queued on the twin, the last being a copy out: OpenCL may
 * overwrite the twin without waiting for Direct3D. False when unknown (a copy in since, a new
 * twin, whose first use DXVK has yet to prepare) or not done yet. */
static bool twin_idle(ID3D11DeviceContext *immediate, struct dxcl_dxgi_twin *twin)
{
    return twin->idle_known && !twin->vk.direct &&
           ID3D11DeviceContext_GetData(immediate, (ID3D11Asynchronous *)twin->idle, NULL, 0,
                                       D3D11_ASYNC_GETDATA_DONOTFLUSH) == S_OK;
}

static void release_semaphores(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin);

/* The average time of each step of the twin's hand-overs on Direct3D's queue, in microseconds. */
static void log_hand_overs(const struct dxcl_dxgi_twin *twin)
{
    LARGE_INTEGER frequency;
    double us, s[3], w[3];

    if (!twin->signals && !twin->waits && !twin->idle_skips && !twin->idle_hand_ins)
        return;
    QueryPerformanceFrequency(&frequency);
    us = 1e6 / (double)frequency.QuadPart;
    for (int i = 0; i < 3; i++) {
        s[i] = twin->signals ? (double)twin->signal_ticks[i] * us / twin->signals : 0;
        w[i] = twin->waits ? (double)twin->wait_ticks[i] * us / twin->waits : 0;
    }
    DXCL_LOG("D3D11: twin 0x%llx: %ld signals of ready (us each: DXVK's flush %.1f, holding its "
             "submissions %.1f, the submission %.1f), %ld waits for done (holding %.1f, the "
             "submission %.1f); %ld overwrites needed neither (Direct3D was through with it); "
             "%ld hand-ins needed no signal (Direct3D's queues were idle)",
             (unsigned long long)twin->vk.image, (long)twin->signals, s[0], s[1], s[2],
             (long)twin->waits, w[1], w[2], (long)twin->idle_skips, (long)twin->idle_hand_ins);
}

/* Frees the twin once the GPU is done with it; the caller is inside dxcl_device_enter. */
static void drop_twin(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    ID3D11DeviceContext *immediate;

    ID3D11Device_GetImmediateContext((ID3D11Device *)ctx->device, &immediate);
    wait_for_gpu(immediate);
    ID3D11DeviceContext_Release(immediate);
    if (s->staging)
        IUnknown_Release(s->staging);
    DXCL_LOG("D3D11: twin 0x%llx freed", (unsigned long long)s->twin->vk.image);
    log_hand_overs(s->twin);
    release_semaphores(ctx, s->twin);
    if (s->twin->cl_import)
        dxcl_driver()->clReleaseMemObject(s->twin->cl_import);
    if (s->twin->idle)
        IUnknown_Release((IUnknown *)s->twin->idle);
    dxcl_driver_twin_destroy(&s->twin->vk);
    free(s->twin);
    s->twin = NULL;
}

extern const struct dxcl_backend dxcl_d3d11_backend;

static void release_twin(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    void *protection = dxcl_device_enter(&dxcl_d3d11_backend, ctx);

    drop_twin(ctx, s);
    dxcl_device_leave(&dxcl_d3d11_backend, protection);
}

/* DXVK's interop interfaces of the resource and of the device: false when Direct3D is not
 * DXVK. */
static bool dxvk_interfaces(struct dxcl_surface *surface, IDXGIVkInteropSurface **image,
                            IDXGIVkInteropDevice1 **device)
{
    *device = NULL;
    if (FAILED(
            IUnknown_QueryInterface(surface->resource, &IID_IDXGIVkInteropSurface, (void **)image)))
        return false;
    if (SUCCEEDED(IUnknown_QueryInterface((IUnknown *)surface->context->device,
                                          &IID_IDXGIVkInteropDevice1, (void **)device)))
        return true;
    (*image)->lpVtbl->Release(*image);
    return false;
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
static bool twin_request(const struct dxcl_dxgi_surface *want, uint64_t like_image, uint32_t format,
                         uint32_t image_type, bool host_import, struct dxcl_twin_request *request)
{
    struct dxcl_plane plane;

    *request = (struct dxcl_twin_request){
        like_image,   format,
        image_type,   want->width,
        want->height, want->kind == DXCL_DXGI_TEXTURE3D ? want->depth : 1,
        host_import,  0};
    if (!want->lone_plane)
        return true;
    if (!dxcl_format_from_dxgi_plane(want->format, want->plane, &plane))
        return false;
    request->format = plane_vk_format(&plane.format);
    request->width = want->width / plane.width_divisor;
    request->height = want->height / plane.height_divisor;
    return request->format != 0;
}

/* A new twin of the surface's subresource on the resource's Vulkan device, wrapped as a
 * texture where DXVK can (2D), else copied by the layer: its staging (or NULL) and twin go into
 * `want`. NULL, or why not. */
static const char *make_twin(struct dxcl_surface *surface, bool host_import,
                             struct dxcl_dxgi_surface *want)
{
    IDXGIVkInteropSurface *image;
    IDXGIVkInteropDevice1 *device;
    struct dxvk_image_create_info info = {.s_type = DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    struct dxcl_twin_request request;
    struct dxcl_dxgi_twin *twin;
    D3D11_TEXTURE2D_DESC1 desc = {
        want->width, want->height, 1, 1, want->format, {1, 0}, D3D11_USAGE_DEFAULT, 0, 0, 0, 0};
    ID3D11Texture2D *texture = NULL;
    dxvk_vk_image handle = 0;
    int32_t layout;
    HRESULT hr;

    if (!dxvk_interfaces(surface, &image, &device))
        return "Direct3D is not DXVK (no IDXGIVkInteropSurface and IDXGIVkInteropDevice1)";
    hr = image->lpVtbl->GetVulkanImageInfo(image, &handle, &layout, &info);
    image->lpVtbl->Release(image);
    if (SUCCEEDED(hr) && !twin_request(want, handle, (uint32_t)info.format,
                                       (uint32_t)info.image_type, host_import, &request)) {
        device->lpVtbl->Release(device);
        return "no single-plane format holds the plane";
    }
    if (FAILED(hr) || !(twin = calloc(1, sizeof(*twin)))) {
        device->lpVtbl->Release(device);
        return "DXVK gave no Vulkan image";
    }
    if (dxcl_fault_hit(DXCL_FAULT_TWIN_MAKE)) {
        twin->vk.result = -1;
        snprintf(twin->vk.error, sizeof(twin->vk.error), "fault injected (twin_make)");
    }
    if (twin->vk.result || !dxcl_driver_twin_create(&request, &twin->vk)) {
        device->lpVtbl->Release(device);
        DXCL_LOG("D3D11: no twin for resource %p: %s", (void *)surface->resource, twin->vk.error);
        free(twin);
        return "the Vulkan layer made no twin";
    }
    twin->release = release_twin;
    want->twin = twin;
    /* DXVK wraps 2D images and copies whole subresources only: the layer copies a 3D texture's
     * and a plane's. */
    if ((twin->layer_copies = want->kind == DXCL_DXGI_TEXTURE3D || want->lone_plane)) {
        device->lpVtbl->Release(device);
        want->staging = NULL;
        return NULL;
    }
    hr = device->lpVtbl->CreateTexture2DFromVkImage(device, &desc, twin->vk.image, &texture);
    device->lpVtbl->Release(device);
    if (FAILED(hr)) {
        if (texture)
            ID3D11Texture2D_Release(texture);
        dxcl_driver_twin_destroy(&twin->vk);
        free(twin);
        want->twin = NULL;
        return "DXVK refused the twin (CreateTexture2DFromVkImage)";
    }
    want->staging = (IUnknown *)texture;
    return NULL;
}

/* The VkImage of the texture where a direct twin may serve the object (core/twin.h): the real
 * import (the test-only one needs a linear twin), a 2D texture of one subresource, not a plane;
 * else 0. Whether it does, the layer says (it made the image exportable or not). */
static uint64_t direct_image_of(struct dxcl_surface *surface, const struct dxcl_dxgi_surface *want,
                                bool host_import, int32_t *layout)
{
    struct dxvk_image_create_info info = {.s_type = DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    IDXGIVkInteropSurface *image;
    dxvk_vk_image handle = 0;
    HRESULT hr;

    if (host_import || want->kind != DXCL_DXGI_TEXTURE2D || want->lone_plane ||
        FAILED(IUnknown_QueryInterface(surface->resource, &IID_IDXGIVkInteropSurface,
                                       (void **)&image)))
        return 0;
    hr = image->lpVtbl->GetVulkanImageInfo(image, &handle, layout, &info);
    image->lpVtbl->Release(image);
    if (FAILED(hr) || info.image_type != 1 /* VK_IMAGE_TYPE_2D */ || info.mip_levels != 1 ||
        info.array_layers != 1)
        return 0;
    return handle;
}

/* A direct twin of the texture: from the pool where one of it is there (with its kept import)
 * and DXVK's image is still the one it was made of, else new. False when the texture has none
 * (the layer did not make its image exportable: logged). DXVK keeps the image in `layout`
 * between its command buffers: in GENERAL, where OpenCL uses it too, the hand-overs are the
 * semaphores alone, as a twin's; in another, the layer's barriers move it (layer_copies). */
static bool take_direct(struct dxcl_surface *surface, cl_mem_flags flags,
                        struct dxcl_dxgi_surface *want, int32_t layout)
{
    struct dxcl_twin_sync check = {.op = DXCL_TWIN_SYNC_CHECK_DIRECT};
    struct dxcl_twin_request request = {.like_image = want->direct_image,
                                        .width = want->width,
                                        .height = want->height,
                                        .depth = 1,
                                        .image_type = 1, /* VK_IMAGE_TYPE_2D */
                                        .direct = 1};
    struct dxcl_dxgi_twin *twin;

    if (!want->direct_image)
        return false;
    if (dxcl_dxgi_pool_take_twin(surface->context, want, flags)) {
        if (dxcl_driver_twin_sync(&want->twin->vk, &check))
            return true;
        drop_twin(surface->context, want); /* of a texture since destroyed: its handle came back */
    }
    if (!(twin = calloc(1, sizeof(*twin))) || !dxcl_driver_twin_create(&request, &twin->vk)) {
        DXCL_LOG("D3D11 resource %p: no direct twin (%s)", (void *)surface->resource,
                 twin ? twin->vk.error : "out of memory");
        free(twin);
        want->direct_image = 0; /* an ordinary twin then, pooled as one */
        return false;
    }
    twin->release = release_twin;
    twin->layer_copies = layout != 1 /* VK_IMAGE_LAYOUT_GENERAL */;
    want->twin = twin;
    want->staging = NULL;
    return true;
}

/* The twin's fd for the driver's import: the one made with it, or a new one (an import takes
 * its fd). */
static bool hand_out_fd(struct dxcl_dxgi_twin *twin, struct dxcl_device_storage *storage)
{
    if (twin->vk.fd < 0 && !dxcl_driver_twin_export(&twin->vk)) {
        DXCL_LOG("D3D11: the twin's memory gave no fd: %s", twin->vk.error);
        return false;
    }
    storage->fd = twin->vk.fd;
    twin->vk.fd = -1;
    return true;
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

/* One of the twin's semaphores imported into the context's driver, or NULL (logged). */
static cl_semaphore_khr import_semaphore(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin,
                                         int32_t op)
{
    struct dxcl_twin_sync sync = {.op = op};

    if (dxcl_driver_twin_sync(&twin->vk, &sync))
        return dxcl_driver_import_semaphore(ctx->handle, sync.fd);
    DXCL_LOG("D3D11: the twin's semaphore gave no fd: %s", twin->vk.error);
    return NULL;
}

static void release_semaphores(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin)
{
    clReleaseSemaphoreKHR_fn release;

    if (!twin->cl_ready && !twin->cl_done)
        return;
    release = dxcl_driver_external(ctx->handle).release_semaphore;
    if (twin->cl_ready && release)
        release(twin->cl_ready);
    if (twin->cl_done && release)
        release(twin->cl_done);
    twin->cl_ready = twin->cl_done = NULL;
}

/* The twin's semaphores as the context's driver knows them, imported the first time (a pooled
 * twin keeps them); none where the twin has none or an import failed. */
static void hand_out_semaphores(struct dxcl_context *ctx, struct dxcl_dxgi_twin *twin,
                                struct dxcl_device_storage *storage)
{
    if (!twin->vk.ready)
        DXCL_LOG("D3D11: the twin has no semaphores (the Vulkan device exports none)");
    if (twin->vk.ready && !twin->cl_ready) {
        twin->cl_ready = import_semaphore(ctx, twin, DXCL_TWIN_SYNC_EXPORT_READY);
        twin->cl_done =
            twin->cl_ready ? import_semaphore(ctx, twin, DXCL_TWIN_SYNC_EXPORT_DONE) : NULL;
        if (!twin->cl_done)
            release_semaphores(ctx, twin);
    }
    storage->ready = twin->cl_ready;
    storage->done = twin->cl_done;
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

static bool d3d11_device_storage(struct dxcl_surface *surface, struct dxcl_device_storage *storage)
{
    struct dxcl_dxgi_surface *s = surface->backend_data, want = *s;
    const char *why = NULL;
    int32_t layout = 0;

    want.twin = NULL;
    want.direct_image = 0;
    if (s->kind == DXCL_DXGI_BUFFER || s->twin)
        why = "the GPU path shares textures";
    else if (s->of_staging)
        why = "a staging texture has no Vulkan image on DXVK";
    else {
        want.direct_image = direct_image_of(surface, &want, storage->host_import, &layout);
        storage->direct = take_direct(surface, storage->flags, &want, layout);
        if (!storage->direct && !dxcl_dxgi_pool_take_twin(surface->context, &want, storage->flags))
            why = make_twin(surface, storage->host_import, &want);
    }
    if (!why && !storage->host_import &&
        memcmp(want.twin->vk.device_uuid, storage->device_uuid, sizeof(storage->device_uuid)))
        why = "Direct3D and OpenCL are on different GPUs (device UUIDs)";
    else if (!why && !hand_out_import(want.twin, storage) && !storage->host_import &&
             !hand_out_fd(want.twin, storage))
        why = "the twin's memory gave no fd";
    if (why) {
        if (want.twin)
            drop_twin(surface->context, &want);
        DXCL_LOG("D3D11 resource %p: no GPU path (%s)", (void *)surface->resource, why);
        return false;
    }
    set_staging_aside(surface->context, s);
    s->staging = want.staging;
    s->twin = want.twin;
    s->direct_image = want.direct_image;
    storage->size = want.twin->vk.size;
    if (storage->host_import)
        twin_mapping(s->twin, &storage->host);
    else if (storage->sync_import)
        hand_out_semaphores(surface->context, s->twin, storage);
    return true;
}

static cl_int d3d11_copy_to_host(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    void *mt;
    ID3D11DeviceContext *immediate = enter_device(surface, &mt);
    cl_int err;

    if (s->twin && (s->twin->layer_copies || s->twin->vk.direct)) {
        s->twin->idle_known = false;
        err = layer_copy_in(surface, immediate);
        leave_device(immediate, mt);
        return err;
    }
    copy(immediate, s, (ID3D11Resource *)s->staging, 0, (ID3D11Resource *)surface->resource,
         surface->subresource);
    if (s->twin) {
        s->twin->idle_known = false;
        twin_ready(surface, immediate);
        leave_device(immediate, mt);
        return CL_SUCCESS;
    }
    err = map_staging(immediate, surface, &surface->mapping);
    leave_device(immediate, mt);
    if (err == CL_SUCCESS)
        dxcl_dxgi_mapped(surface);
    return err;
}

static cl_int d3d11_map_host(struct dxcl_surface *surface)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    void *mt;
    ID3D11DeviceContext *immediate = enter_device(surface, &mt);
    cl_int err;

    err = CL_SUCCESS;
    if (s->twin && s->twin->vk.direct) /* the texture itself: OpenCL's once Direct3D is done */
        err = layer_copy_in(surface, immediate);
    else if (s->twin && twin_idle(immediate, s->twin)) { /* Direct3D is through with the twin */
        s->twin->idle_skips++;
        twin_mapping(s->twin, &surface->mapping);
    } else if (s->twin) /* the last copy out of the twin must be done before OpenCL writes it */
        twin_ready(surface, immediate);
    if (s->twin) {
        leave_device(immediate, mt);
        return err;
    }
    err = map_staging(immediate, surface, &surface->mapping);

    leave_device(immediate, mt);
    if (err == CL_SUCCESS)
        dxcl_dxgi_mapped(surface);
    return err;
}

/* Direct3D's queue waits for OpenCL's release (where OpenCL signalled done), and the layer
 * copies the twin out (where it copies and the bytes go back); false if that failed and the
 * bytes were to go back. A wait is queued even without write-back: each signal has one. */
static bool twin_copy_out(ID3D11DeviceContext *immediate, struct dxcl_surface *surface,
                          bool write_back)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    bool wait = surface->done_signalled, queued = true;

    surface->done_signalled = false;
    if (s->twin->vk.direct && s->twin->layer_copies) /* back to DXVK's layout, written or not */
        return sync_on_queue(surface, s->twin, DXCL_TWIN_SYNC_HAND_OUT, wait) || !write_back;
    if (s->twin->vk.direct) /* in GENERAL: Direct3D's queue waits for OpenCL's release, if any */
        return !wait || sync_on_queue(surface, s->twin, DXCL_TWIN_SYNC_WAIT_DONE, true) ||
               !write_back;
    if (s->twin->layer_copies && write_back)
        before_layer_copy(immediate, s);
    if (s->twin->layer_copies && write_back)
        queued = sync_on_queue(surface, s->twin, DXCL_TWIN_SYNC_COPY_OUT, wait);
    else if (wait)
        queued = sync_on_queue(surface, s->twin, DXCL_TWIN_SYNC_WAIT_DONE, true);
    return queued || !write_back;
}

static cl_int d3d11_unmap_host(struct dxcl_surface *surface, bool write_back)
{
    struct dxcl_dxgi_surface *s = surface->backend_data;
    void *mt;
    ID3D11DeviceContext *immediate;

    if (!s->twin)
        dxcl_dxgi_unmapping(surface);
    immediate = enter_device(surface, &mt);
    if (!s->twin)
        ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)s->staging, 0);
    else if (!twin_copy_out(immediate, surface, write_back)) {
        leave_device(immediate, mt);
        return DXCL_FAIL(CL_OUT_OF_RESOURCES, "the resource keeps its contents: Direct3D's "
                                              "queue could not wait for OpenCL's writes");
    }
    if (write_back && !(s->twin && (s->twin->layer_copies || s->twin->vk.direct)))
        copy(immediate, s, (ID3D11Resource *)surface->resource, surface->subresource,
             (ID3D11Resource *)s->staging, 0);
    if (write_back && s->twin && !s->twin->vk.direct)
        mark_copy_out(immediate, s->twin);
    leave_device(immediate, mt);
    surface->mapping.data = NULL;
    return CL_SUCCESS;
}

DXCL_DXGI_FAMILY(D3D11, d3d11)

/* Offered where the copy engine serves cl_khr_d3d11_sharing (route.h). */
static const struct dxcl_ext_function no_functions[] = {{NULL, NULL}};
static const struct dxcl_extension nv12_media_sharing = {.name =
                                                             "cl_intel_d3d11_nv12_media_sharing",
                                                         .version = CL_MAKE_VERSION(0, 0, 0),
                                                         .functions = no_functions,
                                                         .extends = &khr_extension};
DXCL_REGISTER_EXTENSION(nv12_media_sharing)

/* cl_intel_sharing_format_query_d3d11: the DXGI table, and NV12 under plane 0 (Y) and plane 1
 * (UV) while cl_intel_d3d11_nv12_media_sharing is exposed. */
DXCL_DXGI_DEVICE_BACKS(D3D11, d3d11)

static cl_int CL_API_CALL get_supported_formats(cl_context context, cl_mem_flags flags,
                                                cl_mem_object_type image_type, cl_uint plane,
                                                cl_uint num_entries, DXGI_FORMAT *formats,
                                                cl_uint *num_formats)
{
    DXCL_ROUTE(dxcl_platform_of_context(context), get_supported_formats,
               (context, flags, image_type, plane, num_entries, formats, num_formats));
    const struct dxcl_format_family family =
        dxcl_dxgi_format_family(&dxcl_d3d11_backend, d3d11_device_backs, d3d11_shares_planes());

    return dxcl_query_sharing_formats("clGetSupportedD3D11TextureFormatsINTEL", &family, context,
                                      flags, image_type, plane, num_entries, (cl_uint *)formats,
                                      num_formats);
}

DXCL_FORMAT_QUERY_EXTENSION(format_query_d3d11, "cl_intel_sharing_format_query_d3d11",
                            "clGetSupportedD3D11TextureFormatsINTEL", get_supported_formats)
