/* Driver commands chained on one queue, for the work dxcl queues in the program's place (an
 * emulated format's host commands, formats/host_commands.c; the copy engine's conversions on
 * the device, engine/device_convert.c). The first command waits for the program's wait list and
 * each next one for the one before: on an out-of-order queue through the previous command's
 * event; on an in-order queue the queue orders them, and a command makes an event only where
 * the caller needs one (on PoCL through Wine an event between two commands costs about a third
 * of a 1080p RG8 upload). Nothing blocks the host. */
#ifndef DXCL_CHAIN_H
#define DXCL_CHAIN_H

#include "core/common.h"
#include "core/fault.h"

struct dxcl_chain {
    cl_command_queue queue;
    bool in_order;
    cl_uint num_events;
    const cl_event *wait_list;
    enum dxcl_fault_point fault; /* the fault point that fails a command of the chain */
    bool started;                /* a command is queued */
    cl_event last;               /* the event of the last command that made one */
    cl_int err;
    bool uses_host; /* a queued command reads or writes the program's memory */
};

struct dxcl_chain dxcl_chain_start(cl_command_queue queue, cl_uint num_events,
                                   const cl_event *wait_list, enum dxcl_fault_point fault);
/* The next command's wait list: DXCL_CHAIN_WAIT(c) as its two arguments. */
cl_uint dxcl_chain_wait_count(const struct dxcl_chain *c);
const cl_event *dxcl_chain_wait_list(const struct dxcl_chain *c);
#define DXCL_CHAIN_WAIT(c) dxcl_chain_wait_count(c), dxcl_chain_wait_list(c)
/* Whether the next command makes an event: `needed` for the last one and the one that uses host
 * memory, and every one on an out-of-order queue. */
bool dxcl_chain_wants(const struct dxcl_chain *c, bool needed);
/* Whether the chain may enqueue its next command: no step failed, and the chain's fault point
 * does not fail this one (docs/reliability.md). */
bool dxcl_chain_next(struct dxcl_chain *c);
/* The result of the command just enqueued, and its event (wanted: it was asked for one). */
void dxcl_chain_step(struct dxcl_chain *c, cl_int err, bool wanted, cl_event next);
/* A chain that failed part-way: when a queued command reads or writes host memory (uses_host),
 * waits for the chain so far (the last event made is that command's or a later one's), so that
 * the caller may give that memory back; drops the chain's event. */
void dxcl_chain_abandon(struct dxcl_chain *c);

#endif
