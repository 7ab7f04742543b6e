/* Event records of acquires and releases (event.h): the spec's command type and, on a profiling
 * queue, the whole call's times, answered in place of the driver's. */
#include "core/event.h"
#include "core/info.h"
#include "core/table.h"
#include "core/driver.h"
#include "core/api.h"
#include "core/registry.h"

#include <stdlib.h>

/* The commands of a call, for its event's profiling times (docs/design.md, "Events"). */
struct dxcl_event_commands {
    LONG refs;         /* the event's record, and each profiling query reading the commands */
    bool read;         /* times hold the call's times (under dxcl_lock) */
    cl_ulong times[4]; /* QUEUED, SUBMIT, START, END */
    cl_uint count, transfer_first, transfer_count;
    cl_event *commands; /* driver references, in queue order; NULL once given back */
};

struct dxcl_event {
    struct dxcl_mirrored mirror;
    cl_command_type type;
    struct dxcl_event_commands *timing; /* NULL: the driver's times */
};

static struct dxcl_table events;

/* User events the program has not set, per context: while a context has any, a wait on its
 * commands may be a wait for the program (engine/acquire.c). Keyed by the driver's context
 * handle, which stays the context's while the event lives (an event holds its context), so no
 * record of dxcl's is kept alive by an unset event. */
struct user_event {
    struct dxcl_mirrored mirror;
    cl_context context; /* NULL once set: no longer counted */
};
static struct dxcl_table user_events;
static struct dxcl_table unset_counts; /* cl_context -> count, as a pointer-sized integer */

/* Adds `change` to the context's count. Called with dxcl_lock held exclusively. */
static void count_unset(cl_context context, int change)
{
    uintptr_t count = (uintptr_t)dxcl_table_remove(&unset_counts, context) + (uintptr_t)change;

    if (count)
        dxcl_table_put(&unset_counts, context, (void *)count);
}

size_t dxcl_unset_user_events(cl_context context)
{
    uintptr_t count;

    dxcl_lock_shared();
    count = (uintptr_t)dxcl_table_get(&unset_counts, context);
    dxcl_unlock_shared();
    return count;
}

/* The event is set, or can be set no more: its context stops counting it. */
static void stop_counting(struct user_event *record)
{
    if (record->context)
        count_unset(record->context, -1);
    record->context = NULL;
}

cl_event CL_API_CALL DXCL_IMPL(clCreateUserEvent)(cl_context context, cl_int *errcode_ret)
{
    cl_event event = dxcl_driver()->clCreateUserEvent(context, errcode_ret);
    struct user_event *record;

    if (!event || !(record = calloc(1, sizeof(*record))))
        return event; /* uncounted (out of memory): waits that depend on it are not foreseen */
    record->mirror.app_refs = 1;
    record->context = context;
    dxcl_lock_exclusive();
    if (dxcl_table_put(&user_events, event, record))
        count_unset(context, +1);
    else
        record->context = NULL;
    dxcl_unlock_exclusive();
    if (!record->context)
        free(record);
    return event;
}

cl_int CL_API_CALL DXCL_IMPL(clSetUserEventStatus)(cl_event event, cl_int execution_status)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clSetUserEventStatus, (event, execution_status));
    struct user_event *record;

    if (err != CL_SUCCESS)
        return err;
    dxcl_lock_exclusive();
    if ((record = dxcl_table_get(&user_events, event)))
        stop_counting(record); /* the record stays for the program's references */
    dxcl_unlock_exclusive();
    dxcl_user_event_set();
    return err;
}

static void release_commands(cl_event *commands, cl_uint count)
{
    for (cl_uint i = 0; commands && i < count; i++)
        dxcl_driver()->clReleaseEvent(commands[i]);
    free(commands);
}

struct dxcl_event_commands *dxcl_event_commands_keep(cl_event first, const cl_event *transfer,
                                                     cl_uint count)
{
    cl_uint total = count + (first != NULL);
    struct dxcl_event_commands *kept;

    if (!total || !(kept = calloc(1, sizeof(*kept))))
        return NULL;
    if (!(kept->commands = calloc(total, sizeof(cl_event)))) {
        free(kept);
        return NULL;
    }
    kept->refs = 1;
    kept->transfer_first = first != NULL;
    kept->transfer_count = count;
    for (cl_uint i = 0; i < total; i++) {
        cl_event command = i < kept->transfer_first ? first : transfer[i - kept->transfer_first];
        if (dxcl_driver()->clRetainEvent(command) == CL_SUCCESS)
            kept->commands[kept->count++] = command;
    }
    if (kept->count != total) { /* a command would be missing: only the driver's times */
        dxcl_event_commands_drop(kept);
        return NULL;
    }
    return kept;
}

void dxcl_event_commands_drop(struct dxcl_event_commands *kept)
{
    if (!kept || InterlockedDecrement(&kept->refs) > 0)
        return;
    release_commands(kept->commands, kept->count);
    free(kept);
}

cl_int dxcl_event_register(cl_event event, cl_command_type type,
                           struct dxcl_event_commands *commands)
{
    struct dxcl_event *record = malloc(sizeof(*record));
    bool ok = false;

    if (record) {
        record->type = type;
        record->timing = commands;
        record->mirror.app_refs = 1;
        dxcl_lock_exclusive();
        ok = dxcl_table_put(&events, event, record);
        dxcl_unlock_exclusive();
    }
    if (!ok) {
        free(record);
        dxcl_event_commands_drop(commands);
    }
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

/* One command's four times from the driver; 0 for any it does not report. */
static void command_times(cl_event command, cl_ulong times[4])
{
    for (int i = 0; i < 4; i++) {
        times[i] = 0;
        DXCL_DRIVER_CALL_INT(clGetEventProfilingInfo,
                             (command, CL_PROFILING_COMMAND_QUEUED + (cl_profiling_info)i,
                              sizeof(cl_ulong), &times[i], NULL));
    }
}

/* The call's times from its commands and its event `last` (all complete): queued and submitted
 * with the first command that reports them, started with the earliest start of the transfer's
 * commands (of any command if none reports one), ended with the latest end; then made
 * consistent (QUEUED <= SUBMIT <= START <= END). False when a time is missing from all. */
static bool call_times(const struct dxcl_event_commands *kept, cl_event last, cl_ulong out[4])
{
    cl_ulong queued = 0, submit = 0, start = 0, any_start = 0, end = 0, t[4];

    for (cl_uint i = 0; i <= kept->count; i++) {
        bool transfer =
            i >= kept->transfer_first && i - kept->transfer_first < kept->transfer_count;
        command_times(i < kept->count ? kept->commands[i] : last, t);
        queued = queued ? queued : t[0];
        submit = submit ? submit : t[1];
        if (t[2] && transfer && (!start || t[2] < start))
            start = t[2];
        if (t[2] && (!any_start || t[2] < any_start))
            any_start = t[2];
        end = t[3] > end ? t[3] : end;
    }
    start = start ? start : any_start;
    if (!queued || !submit || !start || !end)
        return false;
    out[0] = queued;
    out[1] = submit > out[0] ? submit : out[0];
    out[2] = start > out[1] ? start : out[1];
    out[3] = end > out[2] ? end : out[2];
    return true;
}

/* The call's times, read once (the first query after the call completed) and kept; the commands
 * go back to the driver then unless another query is reading them. */
static bool kept_times(struct dxcl_event_commands *kept, cl_event last, cl_ulong out[4])
{
    cl_event *commands = NULL;
    cl_uint count = 0;
    bool read;

    dxcl_lock_shared();
    if ((read = kept->read))
        memcpy(out, kept->times, sizeof(kept->times));
    dxcl_unlock_shared();
    if (read)
        return true;
    if (!call_times(kept, last, out))
        return false;
    dxcl_lock_exclusive();
    if (kept->read) {
        memcpy(out, kept->times, sizeof(kept->times)); /* another query was first */
    } else {
        kept->read = true;
        memcpy(kept->times, out, sizeof(kept->times));
        /* The record's reference and this query's: no one else reads the commands. */
        if (kept->refs == 2) {
            commands = kept->commands;
            count = kept->count;
            kept->commands = NULL;
            kept->count = 0;
        }
    }
    dxcl_unlock_exclusive();
    release_commands(commands, count);
    return true;
}

cl_int CL_API_CALL DXCL_IMPL(clGetEventProfilingInfo)(cl_event event, cl_profiling_info param_name,
                                                      size_t param_value_size, void *param_value,
                                                      size_t *param_value_size_ret)
{
    struct dxcl_event *record;
    struct dxcl_event_commands *kept = NULL;
    cl_int err, status = CL_QUEUED;
    cl_ulong times[4];

    dxcl_lock_shared();
    if ((record = dxcl_table_get(&events, event)) && (kept = record->timing))
        InterlockedIncrement(&kept->refs);
    dxcl_unlock_shared();
    /* The driver's answer about the call's last command: its errors (a queue without profiling,
     * a bad name or size) are the event's. */
    err = DXCL_DRIVER_CALL_INT(clGetEventProfilingInfo, (event, param_name, param_value_size,
                                                         param_value, param_value_size_ret));
    if (!kept || err != CL_SUCCESS || param_name < CL_PROFILING_COMMAND_QUEUED ||
        param_name > CL_PROFILING_COMMAND_COMPLETE) {
        dxcl_event_commands_drop(kept);
        return err;
    }
    /* Some drivers answer 0 before the command completed; the spec's answer is this error. */
    if (DXCL_DRIVER_CALL_INT(clGetEventInfo, (event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                              sizeof(status), &status, NULL)) != CL_SUCCESS ||
        status != CL_COMPLETE)
        err = CL_PROFILING_INFO_NOT_AVAILABLE;
    else if (param_value && kept_times(kept, event, times)) {
        cl_ulong value, end = times[3];
        if (param_name == CL_PROFILING_COMMAND_COMPLETE) /* the driver's, when after the end */
            memcpy(&value, param_value, sizeof(value));
        else
            value = times[param_name - CL_PROFILING_COMMAND_QUEUED];
        if (param_name == CL_PROFILING_COMMAND_COMPLETE && value < end)
            value = end;
        memcpy(param_value, &value, sizeof(value));
    }
    dxcl_event_commands_drop(kept);
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clRetainEvent)(cl_event event)
{
    cl_int err = DXCL_DRIVER_CALL_INT(clRetainEvent, (event));

    if (err == CL_SUCCESS) {
        dxcl_mirror_retain(&events, event);
        dxcl_mirror_retain(&user_events, event);
    }
    return err;
}

cl_int CL_API_CALL DXCL_IMPL(clReleaseEvent)(cl_event event)
{
    /* The record goes before the driver can hand the handle out again; the commands it kept go
     * back with it (unless a query still reads them: it gives them back). */
    struct dxcl_event *record = dxcl_mirror_release(&events, event);
    struct user_event *user = dxcl_mirror_release(&user_events, event);

    if (record) {
        dxcl_event_commands_drop(record->timing);
        free(record);
    }
    if (user) {
        dxcl_lock_exclusive();
        stop_counting(user); /* if never set: nothing can set it any more */
        dxcl_unlock_exclusive();
        free(user);
    }
    return DXCL_DRIVER_CALL_INT(clReleaseEvent, (event));
}
