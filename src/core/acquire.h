/* Acquire and release through the copy engine, for every family. */
#ifndef DXCL_ACQUIRE_H
#define DXCL_ACQUIRE_H

#include "core/backend.h"

cl_int dxcl_enqueue_acquire(const struct dxcl_backend *backend, cl_command_type command,
                            cl_command_queue queue, cl_uint num_objects, const cl_mem *mem_objects,
                            cl_uint num_events, const cl_event *wait_list, cl_event *event);
cl_int dxcl_enqueue_release(const struct dxcl_backend *backend, cl_command_type command,
                            cl_command_queue queue, cl_uint num_objects, const cl_mem *mem_objects,
                            cl_uint num_events, const cl_event *wait_list, cl_event *event);

#endif
