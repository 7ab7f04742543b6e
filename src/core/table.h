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
/* Inserts or replaces; false when out of memory. */
bool dxcl_table_put(struct dxcl_table *table, const void *key, void *value);
/* Removes and returns the value (NULL when absent). */
void *dxcl_table_remove(struct dxcl_table *table, const void *key);
/* Calls fn for every entry; fn must not modify the table. */
void dxcl_table_each(const struct dxcl_table *table, void (*fn)(void *value, void *arg), void *arg);

/* The one lock for all of dxcl's tables and record state. Never held across a call that can
 * block on the driver or on Direct3D. */
extern SRWLOCK dxcl_lock;

#endif
