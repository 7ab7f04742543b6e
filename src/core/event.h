/* Events dxcl returns for acquire and release: driver events that report the spec's command
 * type through clGetEventInfo(CL_EVENT_COMMAND_TYPE). */
#ifndef DXCL_EVENT_H
#define DXCL_EVENT_H

#include "core/common.h"

/* Records `event` (one program reference) as a command of `type`. */
cl_int dxcl_event_register(cl_event event, cl_command_type type);

#endif
