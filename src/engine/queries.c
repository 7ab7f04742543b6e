/* clGetMemObjectInfo and clGetImageInfo: the families' own tokens (the resource, subresource,
 * plane...), and the spec's view of objects whose driver object differs from what the spec
 * describes (an emulated format's wider backing, a zero-copy object's staging pitches). */
#include "core/api.h"
#include "core/driver.h"
#include "core/info.h"
#include "core/memobj.h"
#include "core/registry.h"
#include "core/route.h"
#include "engine/lifetime.h"
#include "engine/object.h"
#include "formats/pixels.h"

/* The shared record of `handle`, held (dxcl_memobj_put), or NULL. */
static struct dxcl_memobj *hold_shared(cl_mem handle)
{
    struct dxcl_memobj *mem;

    dxcl_lock_shared();
    if ((mem = dxcl_memobj_lookup(handle)) && mem->surface)
        dxcl_memobj_hold(mem);
    else
        mem = NULL;
    dxcl_unlock_shared();
    return mem;
}

/* What the spec's view of an emulated or zero-copy object needs of its record, copied under
 * dxcl_lock: an ordinary emulated image's record has no holds (it goes with the program's
 * last release), and these fields never change after creation. */
struct spec_view {
    struct dxcl_shared_desc desc;
    struct dxcl_backing backing;
    cl_mem_flags flags;
};

/* False when `handle` is neither emulated nor zero-copy: the driver's answers stand. */
static bool spec_view_of(cl_mem handle, struct spec_view *view)
{
    struct dxcl_memobj *mem;
    bool differs;

    dxcl_lock_shared();
    mem = dxcl_memobj_lookup(handle);
    differs =
        mem && (mem->backing.emulated || (mem->surface && (dxcl_object_of(mem)->host_copy.data ||
                                                           dxcl_object_of(mem)->imported)));
    if (differs)
        *view = (struct spec_view){mem->desc, mem->backing, mem->flags};
    dxcl_unlock_shared();
    return differs;
}

/* The resource and subresource queries every family has. */
static cl_int common_query(const struct dxcl_backend *backend, const struct dxcl_memobj *mem,
                           bool image, cl_uint param, size_t size, void *value, size_t *size_ret)
{
    if (!image && backend->resource_query && param == backend->resource_query) {
        IUnknown *resource = mem ? mem->desc.resource : NULL;
        if (!mem)
            return DXCL_FAIL(backend->errors.invalid_resource, "not a %s shared object",
                             backend->name);
        return dxcl_info_return(&resource, sizeof(resource), size, value, size_ret);
    }
    if (image && backend->subresource_query && param == backend->subresource_query) {
        UINT subresource = mem ? mem->desc.subresource : 0;
        if (!mem || mem->desc.type == CL_MEM_OBJECT_BUFFER)
            return DXCL_FAIL(backend->errors.invalid_resource, "not a %s texture object",
                             backend->name);
        return dxcl_info_return(&subresource, sizeof(subresource), size, value, size_ret);
    }
    if (backend->query)
        return backend->query(mem, image, param, size, value, size_ret);
    return DXCL_NOT_MY_QUERY;
}

/* An object of a context of the driver's own sharing (see core/route.h). */
static bool drivers_object(cl_mem handle)
{
    struct dxcl_context *ctx;
    cl_context context;

    if (!dxcl_any_routed() ||
        DXCL_DRIVER_CALL_INT(clGetMemObjectInfo, (handle, CL_MEM_CONTEXT, sizeof(context), &context,
                                                  NULL)) != CL_SUCCESS)
        return false;
    if ((ctx = dxcl_context_find(context))) {
        dxcl_context_unref(ctx);
        return false;
    }
    return dxcl_context_is_drivers(context);
}

/* The backends' own tokens. `mem` is the record if it belongs to the backend asked. */
static cl_int backend_query_of(struct dxcl_memobj *mem, cl_mem handle, bool image, cl_uint param,
                               size_t size, void *value, size_t *size_ret, bool *answered)
{
    /* The object's own family first: families may share token values (NV D3D9 and Intel DX9). */
    for (size_t i = 0; i <= dxcl_backend_count(); i++) {
        const struct dxcl_backend *backend =
            i == 0 ? (mem ? mem->desc.backend : NULL) : dxcl_backend_at(i - 1);
        const struct dxcl_memobj *own = mem && mem->desc.backend == backend ? mem : NULL;

        if (!backend || (i > 0 && own))
            continue;
        cl_int err = common_query(backend, own, image, param, size, value, size_ret);
        if (err == DXCL_NOT_MY_QUERY)
            continue;
        if (!mem && err != CL_SUCCESS && drivers_object(handle))
            break; /* an object of the driver's own sharing: it answers */
        *answered = true;
        if (!mem && err != CL_SUCCESS) {
            /* An invalid handle is CL_INVALID_MEM_OBJECT before it is a foreign object. */
            cl_mem_object_type type;
            if (DXCL_DRIVER_CALL_INT(clGetMemObjectInfo, (handle, CL_MEM_TYPE, sizeof(type), &type,
                                                          NULL)) != CL_SUCCESS)
                err = CL_INVALID_MEM_OBJECT;
        }
        return err;
    }
    *answered = false;
    return CL_SUCCESS;
}

static cl_int backend_query(cl_mem handle, bool image, cl_uint param, size_t size, void *value,
                            size_t *size_ret, bool *answered)
{
    struct dxcl_memobj *mem = hold_shared(handle);
    cl_int err = backend_query_of(mem, handle, image, param, size, value, size_ret, answered);

    if (mem)
        dxcl_memobj_put(mem);
    return err;
}

static size_t spec_element_size(const struct spec_view *mem)
{
    return dxcl_element_size(&mem->backing.spec);
}

/* Emulated formats and zero-copy objects: the spec's format and tight pitches, not the backing
 * image's format or the staging resource's pitches. */
static cl_int emulated_image_info(const struct spec_view *mem, cl_image_info param, size_t size,
                                  void *value, size_t *size_ret, bool *answered)
{
    size_t element = spec_element_size(mem);
    size_t row = element * mem->desc.width;
    size_t slice = mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? row * mem->desc.height : 0;

    *answered = true;
    switch (param) {
    case CL_IMAGE_FORMAT:
        return dxcl_info_return(&mem->backing.spec, sizeof(cl_image_format), size, value, size_ret);
    case CL_IMAGE_ELEMENT_SIZE:
        return dxcl_info_return(&element, sizeof(element), size, value, size_ret);
    case CL_IMAGE_ROW_PITCH:
        return dxcl_info_return(&row, sizeof(row), size, value, size_ret);
    case CL_IMAGE_SLICE_PITCH:
        return dxcl_info_return(&slice, sizeof(slice), size, value, size_ret);
    }
    *answered = false;
    return CL_SUCCESS;
}

/* Emulated formats and zero-copy objects: what a driver object of the spec's format, created
 * without a host pointer, reports. */
static cl_int spec_mem_info(const struct spec_view *mem, cl_mem_info param, size_t size,
                            void *value, size_t *size_ret, bool *answered)
{
    bool image = mem->desc.type != CL_MEM_OBJECT_BUFFER;
    size_t bytes = image ? spec_element_size(mem) * mem->desc.width * mem->desc.height *
                               (mem->desc.type == CL_MEM_OBJECT_IMAGE3D ? mem->desc.depth : 1)
                         : mem->desc.size;
    cl_mem_flags flags = mem->flags ? mem->flags : CL_MEM_READ_WRITE;
    void *host_ptr = NULL;

    *answered = true;
    switch (param) {
    case CL_MEM_SIZE:
        return dxcl_info_return(&bytes, sizeof(bytes), size, value, size_ret);
    case CL_MEM_FLAGS:
        return dxcl_info_return(&flags, sizeof(flags), size, value, size_ret);
    case CL_MEM_HOST_PTR:
        return dxcl_info_return(&host_ptr, sizeof(host_ptr), size, value, size_ret);
    }
    *answered = false;
    return CL_SUCCESS;
}

cl_int CL_API_CALL DXCL_IMPL(clGetMemObjectInfo)(cl_mem memobj, cl_mem_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
    bool answered;
    cl_int err = backend_query(memobj, false, param_name, param_value_size, param_value,
                               param_value_size_ret, &answered);
    struct spec_view view;

    if (answered)
        return err;
    if (spec_view_of(memobj, &view)) {
        err = spec_mem_info(&view, param_name, param_value_size, param_value, param_value_size_ret,
                            &answered);
        if (answered)
            return err;
    }
    return DXCL_DRIVER_CALL_INT(clGetMemObjectInfo, (memobj, param_name, param_value_size,
                                                     param_value, param_value_size_ret));
}

cl_int CL_API_CALL DXCL_IMPL(clGetImageInfo)(cl_mem image, cl_image_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret)
{
    bool answered;
    cl_int err = backend_query(image, true, param_name, param_value_size, param_value,
                               param_value_size_ret, &answered);
    struct spec_view view;

    if (answered)
        return err;
    if (spec_view_of(image, &view)) {
        err = emulated_image_info(&view, param_name, param_value_size, param_value,
                                  param_value_size_ret, &answered);
        if (answered)
            return err;
    }
    return DXCL_DRIVER_CALL_INT(
        clGetImageInfo, (image, param_name, param_value_size, param_value, param_value_size_ret));
}
