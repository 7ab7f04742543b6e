/* Acquire and release through the copy engine, for every family. */
#ifndef DXCL_ACQUIRE_H
#define DXCL_ACQUIRE_H

#include "core/backend.h"
#include "core/context.h"
#include "core/route.h"

struct dxcl_memobj;

/* clEnqueueAcquire* (acquire == true) and clEnqueueRelease* of a family; `command` is the
 * command type its events report. */
cl_int dxcl_enqueue_transfer(const struct dxcl_backend *backend, bool acquire,
                             cl_command_type command, cl_command_queue queue, cl_uint num_objects,
                             const cl_mem *mem_objects, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event);

/* Defines an acquire or release entry point `name` of a family. */
#define DXCL_TRANSFER_ENTRY(name, backend, acquire, command)                                       \
    static cl_int CL_API_CALL name(cl_command_queue queue, cl_uint num_objects,                    \
                                   const cl_mem *mem_objects, cl_uint num_events,                  \
                                   const cl_event *wait_list, cl_event *event)                     \
    {                                                                                              \
        DXCL_ROUTE(dxcl_platform_of_queue(queue), name,                                            \
                   (queue, num_objects, mem_objects, num_events, wait_list, event));               \
        return dxcl_enqueue_transfer(&backend, acquire, command, queue, num_objects, mem_objects,  \
                                     num_events, wait_list, event);                                \
    }

#endif
