/* Side tables: driver handle -> dxcl record. dxcl never wraps driver objects; it looks
 * handles up here. Not thread-safe by itself: callers hold dxcl_lock. */
#ifndef DXCL_TABLE_H
#define DXCL_TABLE_H

#include "core/common.h"

struct dxcl_table {
    struct dxcl_table_slot *slots;
    size_t capacity; /* power of two, or 0 */
    size_t count;
    size_t tombstones;
};

void *dxcl_table_get(const struct dxcl_table *table, const void *key);
/* Inserts; false when out of memory, or when `key` has a record already (logged: a record must
 * never outlive its handle, so a live key means a bug, and the old record is kept). */
bool dxcl_table_put(struct dxcl_table *table, const void *key, void *value);
/* Removes and returns the value (NULL when absent). */
void *dxcl_table_remove(struct dxcl_table *table, const void *key);
/* Calls fn for every entry; fn must not modify the table. */
void dxcl_table_each(const struct dxcl_table *table, void (*fn)(void *value, void *arg), void *arg);

/* Records that mirror the program's references to a driver object (dxcl gets no destructor
 * callbacks under Wine) begin with this. */
struct dxcl_mirrored {
    LONG app_refs;
};

/* After a successful clRetain*: one more program reference, when `handle` has a record. */
void dxcl_mirror_retain(struct dxcl_table *table, const void *handle);
/* Before the program's clRelease* reaches the driver: one reference fewer; returns the record,
 * removed from the table, when that was the program's last reference (the caller finishes it),
 * NULL otherwise. Removing it before the driver's release means the driver cannot hand the
 * handle out again while the table still maps it to the old record. Every table of records
 * that mirror the program's references (contexts, queues, events, kernels, shared memory
 * objects and their sub-buffers) goes through here. */
void *dxcl_mirror_release(struct dxcl_table *table, const void *handle);

/* The lock of all of dxcl's tables and record state, and its rules. */
#include "core/lock.h"

#endif
