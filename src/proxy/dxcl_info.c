/* dxcl's own exports (include/dxcl/dxcl.h). */
#include "core/info.h"
#include "core/memobj.h"
#include "engine/object.h"
#include "core/route.h"
#include "core/watch.h"
#include "core/driver.h"
#include "engine/lazy.h"
#include "engine/lifetime.h"
#include "engine/zerocopy.h"
#include "dxcl_version.h" /* generated at build time: cmake/version.cmake */

#include <dxcl/dxcl.h>
#include <stdio.h>

DXCL_DECLARE_EXPORT(dxclGetInfo);
DXCL_DECLARE_EXPORT(dxclGetBackingFormat);
DXCL_DECLARE_EXPORT(dxclGetTransferMode);
DXCL_DECLARE_EXPORT(dxclGetSkippedUploads);
DXCL_DECLARE_EXPORT(dxclGetKeptDriverObject);
DXCL_DECLARE_EXPORT(dxclGetPooledStagingCount);
DXCL_DECLARE_EXPORT(dxclGetExtensionPath);

#ifdef _WIN64
#define GPU_PATH_TEXT                                                                              \
    "the GPU path for D3D10 and D3D11 textures and NV12 planes on DXVK (D3D10's off with "         \
    "DXCL_GPU_D3D10=0) through the Unix side and its Vulkan layer, direct for large 2D ones, "     \
    "handed in at the acquire (with DXCL_GPU_LAZY=1 at the first command)"
#else
#define GPU_PATH_TEXT "no GPU path (32-bit: no Unix side, no Vulkan layer)"
#endif

/* The copy engine's choices that hold for every object (docs/design.md, "The copy engine"),
 * written once from the settings; which transfer an object got: dxclGetTransferMode. */
static char data_path[1024];

static BOOL CALLBACK write_data_path(INIT_ONCE *once, void *param, void **context)
{
    (void)once, (void)param, (void)context;
    snprintf(data_path, sizeof(data_path),
             "copy engine: staging kept per object and pooled, %s, %s, back only what a command "
             "may have written; %s; %s; %s",
             dxcl_keeping_allowed() ? "driver objects kept with it for the next object"
                                    : "driver objects not kept (DXCL_KEEP_DRIVER_OBJECTS=0)",
             dxcl_lazy_allowed() ? "read at the first command, none for a whole overwrite"
                                 : "read at each acquire (DXCL_LAZY=0)",
             dxcl_zero_copy_allowed()
                 ? "zero-copy for D3D10/D3D11 buffers and 2D textures of native formats where "
                   "the context's devices share host memory"
                 : "zero-copy off (DXCL_ZERO_COPY=0)",
             dxcl_watch_wait_text(), GPU_PATH_TEXT);
    return TRUE;
}

static const char *data_path_text(void)
{
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

    InitOnceExecuteOnce(&once, write_data_path, NULL, NULL);
    return data_path;
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetInfo(cl_uint param_name, size_t param_value_size,
                                           void *param_value, size_t *param_value_size_ret)
{
    const char *text;

    switch (param_name) {
    case DXCL_INFO_VERSION:
        text = DXCL_VERSION;
        break;
    case DXCL_INFO_DRIVER_PATH:
        text = dxcl_driver_path();
        break;
    case DXCL_INFO_DRIVER_ROUTE:
        text = dxcl_driver_route();
        break;
    case DXCL_INFO_DATA_PATH:
        text = data_path_text();
        break;
    case DXCL_INFO_WATCH_ROUTE:
        text = dxcl_watch_route();
        break;
    default:
        return DXCL_FAIL(CL_INVALID_VALUE, "dxclGetInfo: unknown param 0x%x", param_name);
    }
    return dxcl_info_return(text, strlen(text) + 1, param_value_size, param_value,
                            param_value_size_ret);
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetBackingFormat(cl_mem image, cl_image_format *driver_format,
                                                    cl_bool *emulated)
{
    struct dxcl_memobj *mem = dxcl_image_record(image);

    if (!mem || mem->desc.type == CL_MEM_OBJECT_BUFFER)
        return DXCL_FAIL(CL_INVALID_MEM_OBJECT,
                         "dxclGetBackingFormat: %p is neither shared nor emulated", (void *)image);
    if (driver_format)
        *driver_format = mem->backing.driver;
    if (emulated)
        *emulated = mem->backing.emulated ? CL_TRUE : CL_FALSE;
    return CL_SUCCESS;
}

/* The engine's object of a shared `mem` for the per-object exports, or NULL (logged as
 * `export`'s CL_INVALID_MEM_OBJECT). */
static struct dxcl_object *shared_object(cl_mem mem, const char *export)
{
    struct dxcl_memobj *record = dxcl_memobj_get(mem);

    if (!record) {
        (void)DXCL_FAIL(CL_INVALID_MEM_OBJECT, "%s: %p is not shared", export, (void *)mem);
        return NULL;
    }
    return dxcl_object_of(record);
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetTransferMode(cl_mem mem, cl_uint *mode)
{
    struct dxcl_object *obj = shared_object(mem, "dxclGetTransferMode");

    if (!obj)
        return CL_INVALID_MEM_OBJECT;
    if (mode)
        *mode = !dxcl_memobj_zero_copy(&obj->record) ? DXCL_TRANSFER_COPY
                : obj->direct                        ? DXCL_TRANSFER_GPU_DIRECT
                : obj->record.surface->gpu_synced    ? DXCL_TRANSFER_GPU_SEMAPHORES
                : obj->on_gpu                        ? DXCL_TRANSFER_GPU
                                                     : DXCL_TRANSFER_ZERO_COPY;
    return CL_SUCCESS;
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetSkippedUploads(cl_mem mem, cl_uint *count)
{
    struct dxcl_object *obj = shared_object(mem, "dxclGetSkippedUploads");

    if (!obj)
        return CL_INVALID_MEM_OBJECT;
    if (count)
        *count = (cl_uint)obj->skipped_uploads;
    return CL_SUCCESS;
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetKeptDriverObject(cl_mem mem, cl_bool *kept)
{
    struct dxcl_object *obj = shared_object(mem, "dxclGetKeptDriverObject");

    if (!obj)
        return CL_INVALID_MEM_OBJECT;
    if (kept)
        *kept = obj->from_kept ? CL_TRUE : CL_FALSE;
    return CL_SUCCESS;
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetPooledStagingCount(cl_context context, cl_uint *count)
{
    struct dxcl_context *ctx = dxcl_context_find(context);
    dxclGetPooledStagingCount_fn driver_count;
    cl_int err = CL_SUCCESS;

    /* A context of the driver's own sharing: the driver is another dxcl that may know it. */
    if (!ctx && (driver_count =
                     (dxclGetPooledStagingCount_fn)dxcl_driver_export("dxclGetPooledStagingCount")))
        return driver_count(context, count);
    if (!ctx || !ctx->backend || !ctx->backend->pooled_surfaces)
        err = DXCL_FAIL(CL_INVALID_CONTEXT, "dxclGetPooledStagingCount: %p has no staging pool",
                        (void *)context);
    else if (count)
        *count = ctx->backend->pooled_surfaces(ctx);
    if (ctx)
        dxcl_context_unref(ctx);
    return err;
}

static const struct dxcl_extension *exposed_extension(const char *name)
{
    for (size_t i = 0; name && i < dxcl_extension_count(); i++)
        if (!strcmp(dxcl_extension_at(i)->name, name))
            return dxcl_extension_at(i);
    return NULL;
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetExtensionPath(cl_platform_id platform, const char *extension,
                                                    cl_uint *path, size_t served_by_size,
                                                    char *served_by)
{
    static const cl_uint codes[] = {[DXCL_BY_ENGINE] = DXCL_PATH_COPY_ENGINE,
                                    [DXCL_NATIVE] = DXCL_PATH_NATIVE,
                                    [DXCL_TRANSLATED] = DXCL_PATH_TRANSLATED};
    const struct dxcl_extension *ext = exposed_extension(extension), *by;
    enum dxcl_path chosen;

    if (!ext)
        return DXCL_FAIL(CL_INVALID_VALUE, "dxclGetExtensionPath: dxcl has no %s",
                         extension ? extension : "(null)");
    if (!dxcl_driver_has_platform(platform))
        return DXCL_FAIL(CL_INVALID_PLATFORM, "dxclGetExtensionPath: %p is not a platform",
                         (void *)platform);
    chosen = dxcl_path_of(platform, ext, &by);
    if (path)
        *path = codes[chosen];
    if (served_by && served_by_size)
        snprintf(served_by, served_by_size, "%s", by ? by->name : "");
    return CL_SUCCESS;
}
