/* Context creation with interop properties: dxcl validates and removes the properties it
 * owns, forwards the rest, and keeps the program's list for CL_CONTEXT_PROPERTIES. */
#include "core/context.h"
#include "core/registry.h"
#include "core/info.h"
#include "core/route.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

static struct dxcl_table contexts;

struct parsed_properties {
    cl_context_properties *forward; /* the list without dxcl's properties (NULL if none given) */
    size_t size;                    /* of the program's list, in bytes */
    const struct dxcl_backend *backend;
    cl_context_properties device_property;
    void *device;
    bool user_sync;
    bool has_user_sync;
    bool dropped; /* a property of the list is not forwarded (e.g. a NULL interop device) */
};

static bool is_other_interop_property(cl_context_properties name)
{
    return name == CL_GL_CONTEXT_KHR || name == CL_EGL_DISPLAY_KHR || name == CL_GLX_DISPLAY_KHR ||
           name == CL_WGL_HDC_KHR || name == CL_CGL_SHAREGROUP_KHR;
}

static cl_int parse_one(struct parsed_properties *out, cl_context_properties name,
                        cl_context_properties value, bool *other_interop, bool *keep)
{
    const struct dxcl_backend *backend = dxcl_backend_for_property(name);

    *keep = false;
    if (name == CL_CONTEXT_INTEROP_USER_SYNC) {
        if (value != CL_TRUE && value != CL_FALSE)
            return DXCL_FAIL(CL_INVALID_PROPERTY, "CL_CONTEXT_INTEROP_USER_SYNC value %lld",
                             (long long)value);
        out->has_user_sync = true;
        out->user_sync = value == CL_TRUE;
        return CL_SUCCESS;
    }
    if (backend) {
        if (!value)
            return CL_SUCCESS; /* NULL is the default: no interop with this API */
        if (out->backend)
            return DXCL_FAIL(CL_INVALID_OPERATION, "two interop devices given (%s and %s)",
                             out->backend->name, backend->name);
        out->backend = backend;
        out->device_property = name;
        out->device = (void *)value;
        return CL_SUCCESS;
    }
    if (is_other_interop_property(name) && value)
        *other_interop = true;
    *keep = true;
    return CL_SUCCESS;
}

static cl_int parse_properties(const cl_context_properties *props, struct parsed_properties *out)
{
    size_t count = 0, kept = 0;
    bool other_interop = false;

    memset(out, 0, sizeof(*out));
    if (!props)
        return CL_SUCCESS;
    while (props[count * 2])
        count++;
    out->size = (count * 2 + 1) * sizeof(*props);
    if (!(out->forward = calloc(count * 2 + 1, sizeof(*props))))
        return CL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < count; i++) {
        cl_context_properties name = props[i * 2], value = props[i * 2 + 1];
        bool keep;
        cl_int err;

        for (size_t j = 0; j < i; j++)
            if (props[j * 2] == name)
                return DXCL_FAIL(CL_INVALID_PROPERTY, "context property 0x%llx given twice",
                                 (unsigned long long)name);
        if ((err = parse_one(out, name, value, &other_interop, &keep)) != CL_SUCCESS)
            return err;
        if (keep) {
            out->forward[kept * 2] = name;
            out->forward[kept * 2 + 1] = value;
            kept++;
        } else {
            out->dropped = true;
        }
    }
    if (out->backend && other_interop)
        return DXCL_FAIL(CL_INVALID_OPERATION, "%s interop combined with GL/EGL interop",
                         out->backend->name);
    return CL_SUCCESS;
}

#include "core/com.h"

static cl_int open_device(struct dxcl_context *ctx, const struct dxcl_backend *backend,
                          cl_context_properties property, void *object)
{
    dxcl_lock_check_call("a backend's open_device", __func__);
    if (backend->open_device)
        return backend->open_device(ctx, property, object);
    if (FAILED(dxcl_query_interface(object, backend->device_iid, &ctx->device)))
        return DXCL_FAIL(backend->errors.invalid_device, "%p is not a %s device", object,
                         backend->name);
    return CL_SUCCESS;
}

static void free_record(struct dxcl_context *ctx)
{
    dxcl_lock_check_call("a backend's close_device", __func__);
    if (ctx->backend && ctx->device && ctx->backend->close_device)
        ctx->backend->close_device(ctx);
    else if (ctx->backend && ctx->device)
        IUnknown_Release((IUnknown *)ctx->device);
    for (struct dxcl_context_part *part = ctx->parts, *next; part; part = next) {
        next = part->next;
        part->kind->free(part);
    }
    free(ctx->properties);
    free(ctx);
}

struct dxcl_context_part *dxcl_context_part(struct dxcl_context *ctx,
                                            const struct dxcl_context_part_kind *kind)
{
    struct dxcl_context_part *part = ctx->parts;

    while (part && part->kind != kind)
        part = part->next;
    return part;
}

/* Parts are only ever added, at the head, until the record goes. */
struct dxcl_context_part *dxcl_context_add_part(struct dxcl_context *ctx,
                                                struct dxcl_context_part *part)
{
    struct dxcl_context_part *head, *found;

    do {
        head = ctx->parts;
        for (found = head; found && found->kind != part->kind; found = found->next)
            ;
        if (found)
            return found;
        part->next = head;
    } while (InterlockedCompareExchangePointer((void *volatile *)&ctx->parts, part, head) != head);
    return part;
}

/* Builds the record and validates the interop device before the driver context exists. */
static cl_int new_record(const cl_context_properties *props, struct parsed_properties *parsed,
                         struct dxcl_context **out)
{
    struct dxcl_context *ctx = calloc(1, sizeof(*ctx));
    cl_int err;

    if (!ctx)
        return CL_OUT_OF_HOST_MEMORY;
    ctx->mirror.app_refs = 1;
    ctx->record_refs = 1; /* the table's */
    ctx->user_sync = parsed->user_sync;
    if (props && !(ctx->properties = malloc(parsed->size))) {
        free(ctx);
        return CL_OUT_OF_HOST_MEMORY;
    }
    if (props)
        memcpy(ctx->properties, props, parsed->size);
    ctx->properties_size = props ? parsed->size : 0;
    if (parsed->backend) {
        err = open_device(ctx, parsed->backend, parsed->device_property, parsed->device);
        if (err != CL_SUCCESS) {
            free_record(ctx);
            return err;
        }
        ctx->backend = parsed->backend;
        ctx->device_property = parsed->device_property;
        ctx->any_thread = ctx->backend->prepare_device && ctx->backend->prepare_device(ctx);
    }
    *out = ctx;
    return CL_SUCCESS;
}

static cl_context finish_create(cl_context handle, struct dxcl_context *ctx, cl_int err,
                                cl_int *errcode_ret)
{
    if (handle) {
        ctx->handle = handle;
        dxcl_lock_exclusive();
        if (!dxcl_table_put(&contexts, handle, ctx))
            err = CL_OUT_OF_HOST_MEMORY;
        dxcl_unlock_exclusive();
        if (err != CL_SUCCESS) {
            dxcl_driver()->clReleaseContext(handle);
            handle = NULL;
        } else if (ctx->backend && ctx->backend->context_ready) {
            ctx->backend->context_ready(ctx);
        }
    }
    if (!handle)
        free_record(ctx);
    if (errcode_ret)
        *errcode_ret = err;
    return handle;
}

/* A record keeps the program's list for CL_CONTEXT_PROPERTIES whenever the driver gets
 * another one. */
static bool needs_record(const struct parsed_properties *parsed)
{
    return parsed->backend || parsed->has_user_sync || parsed->dropped;
}

static cl_context fail_create(struct parsed_properties *parsed, cl_int err, cl_int *errcode_ret)
{
    free(parsed->forward);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

/* The driver call of clCreateContext or clCreateContextFromType. */
struct create_call {
    bool from_type;
    cl_uint num_devices;
    const cl_device_id *devices;
    cl_device_type device_type;
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *);
    void *user_data;
};

static cl_context call_driver(const struct create_call *call,
                              const cl_context_properties *properties, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();

    if (call->from_type)
        return drv->clCreateContextFromType(properties, call->device_type, call->pfn_notify,
                                            call->user_data, errcode_ret);
    return drv->clCreateContext(properties, call->num_devices, call->devices, call->pfn_notify,
                                call->user_data, errcode_ret);
}

static cl_context create_context(const cl_context_properties *properties,
                                 const struct create_call *call, cl_int *errcode_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct parsed_properties parsed = {0};
    struct dxcl_context *ctx;
    cl_context handle;
    cl_int err;

    if (!(call->from_type ? (void *)drv->clCreateContextFromType : (void *)drv->clCreateContext))
        return fail_create(&parsed, dxcl_driver_missing("clCreateContext"), errcode_ret);
    if ((err = parse_properties(properties, &parsed)) != CL_SUCCESS)
        return fail_create(&parsed, err, errcode_ret);
    if (parsed.backend && dxcl_any_routed() &&
        dxcl_property_routed(dxcl_platform_of_creation(properties, call->devices),
                             parsed.device_property)) {
        /* The driver shares this API itself: the context is wholly its own. */
        free(parsed.forward);
        return call_driver(call, properties, errcode_ret);
    }
    if (!needs_record(&parsed)) {
        free(parsed.forward);
        return call_driver(call, properties, errcode_ret);
    }
    if ((err = new_record(properties, &parsed, &ctx)) != CL_SUCCESS)
        return fail_create(&parsed, err, errcode_ret);
    handle = call_driver(call, parsed.forward, &err);
    free(parsed.forward);
    return finish_create(handle, ctx, err, errcode_ret);
}

cl_context CL_API_CALL DXCL_IMPL(clCreateContext)(
    const cl_context_properties *properties, cl_uint num_devices, const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
    cl_int *errcode_ret)
{
    const struct create_call call = {false, num_devices, devices, 0, pfn_notify, user_data};

    return create_context(properties, &call, errcode_ret);
}

cl_context CL_API_CALL DXCL_IMPL(clCreateContextFromType)(
    const cl_context_properties *properties, cl_device_type device_type,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
    cl_int *errcode_ret)
{
    const struct create_call call = {true, 0, NULL, device_type, pfn_notify, user_data};

    return create_context(properties, &call, errcode_ret);
}

static struct dxcl_context *lookup(cl_context handle)
{
    struct dxcl_context *ctx;

    dxcl_lock_shared();
    ctx = dxcl_table_get(&contexts, handle);
    if (ctx)
        InterlockedIncrement(&ctx->record_refs);
    dxcl_unlock_shared();
    return ctx;
}

struct dxcl_context *dxcl_context_find(cl_context handle)
{
    return lookup(handle);
}

cl_int dxcl_context_get(cl_context handle, const struct dxcl_backend *backend,
                        struct dxcl_context **out)
{
    struct dxcl_context *ctx = lookup(handle);

    *out = NULL;
    if (!ctx)
        return DXCL_FAIL(CL_INVALID_CONTEXT, "context %p was not created with a %s device",
                         (void *)handle, backend->name);
    if (ctx->backend != backend && !(backend->accepts_context && backend->accepts_context(ctx))) {
        dxcl_context_unref(ctx);
        return DXCL_FAIL(CL_INVALID_CONTEXT, "context %p was not created with a %s device",
                         (void *)handle, backend->name);
    }
    *out = ctx;
    return CL_SUCCESS;
}

void dxcl_context_ref(struct dxcl_context *ctx)
{
    InterlockedIncrement(&ctx->record_refs);
}

void dxcl_context_unref(struct dxcl_context *ctx)
{
    /* The record left the table with the program's last reference (clReleaseContext), so
     * nothing can find it any more once the last holder lets go. */
    if (InterlockedDecrement(&ctx->record_refs) == 0)
        free_record(ctx);
}

cl_int CL_API_CALL DXCL_IMPL(clRetainContext)(cl_context context)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clRetainContext, (context));

    if (err == CL_SUCCESS)
        dxcl_mirror_retain(&contexts, context);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseContext)(cl_context context)
{
    /* Before the driver's release: the record leaves the table with the program's last
     * reference (shared objects and queues keep it, as they keep the driver's context). */
    struct dxcl_context *ctx = dxcl_mirror_release(&contexts, context);
    cl_int err;

    if (ctx)
        dxcl_context_unref(ctx); /* the table's */
    err = DXCL_DRIVER_CALL_INT(clReleaseContext, (context));
    if (err == CL_SUCCESS)
        dxcl_released(context);
    return err;
}

static bool driver_knows_context(cl_context handle)
{
    cl_uint refs;

    return DXCL_DRIVER_CALL_INT(clGetContextInfo, (handle, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs),
                                                   &refs, NULL)) == CL_SUCCESS;
}

static cl_int prefer_shared_answer(cl_context handle, struct dxcl_context *ctx,
                                   cl_context_info param, size_t size, void *value,
                                   size_t *size_ret, bool *answered)
{
    /* The copy engine is no faster with D3D1x_RESOURCE_MISC_SHARED resources. */
    const cl_bool prefer = CL_FALSE;

    *answered = false;
    for (size_t i = 0; i < dxcl_backend_count(); i++) {
        const struct dxcl_backend *backend = dxcl_backend_at(i);
        if (!backend->prefer_shared_query || backend->prefer_shared_query != param)
            continue;
        if (!ctx && dxcl_context_is_drivers(handle))
            return CL_SUCCESS; /* the driver's own context: it answers */
        *answered = true;
        if (!ctx && !driver_knows_context(handle))
            return DXCL_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)handle);
        if (!ctx || ctx->backend != backend)
            return DXCL_FAIL(CL_INVALID_VALUE, "context was not created with a %s device",
                             backend->name);
        return dxcl_info_return(&prefer, sizeof(prefer), size, value, size_ret);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL DXCL_IMPL(clGetContextInfo)(cl_context context, cl_context_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret)
{
    struct dxcl_context *ctx = lookup(context);
    size_t unused_size;
    bool answered;
    cl_int err = prefer_shared_answer(context, ctx, param_name, param_value_size, param_value,
                                      param_value_size_ret, &answered);

    if (!answered && ctx && param_name == CL_CONTEXT_PROPERTIES) {
        answered = true;
        err = dxcl_info_return(ctx->properties, ctx->properties_size, param_value_size, param_value,
                               param_value_size_ret);
    }
    if (ctx)
        dxcl_context_unref(ctx);
    if (answered)
        return err;
    /* PoCL through Wine faults (returns STATUS_ACCESS_VIOLATION) on CL_CONTEXT_PROPERTIES of a
     * context made without properties when param_value_size_ret is NULL: always pass one. */
    if (!param_value_size_ret)
        param_value_size_ret = &unused_size;
    return DXCL_DRIVER_CALL_INT(clGetContextInfo, (context, param_name, param_value_size,
                                                   param_value, param_value_size_ret));
}
