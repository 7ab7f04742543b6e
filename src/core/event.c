#include "core/event.h"
#include "core/info.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/api.h"

#include <stdlib.h>

struct dxcl_event {
    struct dxcl_mirrored mirror;
    cl_command_type type;
};

static struct dxcl_table events;

cl_int dxcl_event_register(cl_event event, cl_command_type type)
{
    struct dxcl_event *record = malloc(sizeof(*record));
    bool ok;

    if (!record)
        return CL_OUT_OF_HOST_MEMORY;
    record->type = type;
    record->mirror.app_refs = 1;
    dxcl_lock_exclusive();
    ok = dxcl_table_put(&events, event, record);
    dxcl_unlock_exclusive();
    if (!ok)
        free(record);
    return ok ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
}

cl_int CL_API_CALL DXCL_IMPL(clGetEventInfo)(cl_event event, cl_event_info param_name,
                                             size_t param_value_size, void *param_value,
                                             size_t *param_value_size_ret)
{
    struct dxcl_event *record = NULL;
    cl_command_type type = 0;

    if (param_name == CL_EVENT_COMMAND_TYPE) {
        dxcl_lock_shared();
        if ((record = dxcl_table_get(&events, event)))
            type = record->type;
        dxcl_unlock_shared();
    }
    if (record)
        return dxcl_info_return(&type, sizeof(type), param_value_size, param_value,
                                param_value_size_ret);
    return DXCL_DRIVER_CALL_INT(
        clGetEventInfo, (event, param_name, param_value_size, param_value, param_value_size_ret));
}

cl_int CL_API_CALL DXCL_IMPL(clRetainEvent)(cl_event event)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clRetainEvent, (event));

    if (err == CL_SUCCESS)
        dxcl_mirror_retain(&events, event);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseEvent)(cl_event event)
{
    /* The record goes before the driver can hand the handle out again. */
    free(dxcl_mirror_release(&events, event));
    return DXCL_DRIVER_CALL_INT(clReleaseEvent, (event));
}
