/* Open addressing with linear probing; keys are handles (pointers), never NULL. */
#include "core/table.h"

#include <stdlib.h>

#define TOMBSTONE ((const void *)1)

struct dxcl_table_slot {
    const void *key;
    void *value;
};

static size_t slot_of(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key;

    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)h & (capacity - 1);
}

static struct dxcl_table_slot *find(const struct dxcl_table *table, const void *key)
{
    if (!table->capacity || !key)
        return NULL;
    for (size_t i = slot_of(key, table->capacity);; i = (i + 1) & (table->capacity - 1)) {
        struct dxcl_table_slot *slot = &table->slots[i];
        if (slot->key == key)
            return slot;
        if (!slot->key)
            return NULL;
    }
}

/* Puts a key that is not in the table into its first free slot; there is one. */
static void place(struct dxcl_table *table, const void *key, void *value)
{
    for (size_t i = slot_of(key, table->capacity);; i = (i + 1) & (table->capacity - 1)) {
        struct dxcl_table_slot *slot = &table->slots[i];
        if (!slot->key || slot->key == TOMBSTONE) {
            if (slot->key == TOMBSTONE)
                table->tombstones--;
            slot->key = key;
            slot->value = value;
            table->count++;
            return;
        }
    }
}

static bool grow(struct dxcl_table *table)
{
    size_t capacity = table->capacity ? table->capacity * 2 : 64;
    struct dxcl_table_slot *old = table->slots, *slots = calloc(capacity, sizeof(*slots));
    size_t old_capacity = table->capacity;

    if (!slots)
        return false;
    /* Rehashing at twice the size also drops the tombstones. */
    if ((table->count + 1) * 4 < old_capacity)
        capacity = old_capacity;
    table->slots = slots;
    table->capacity = capacity;
    table->count = 0;
    table->tombstones = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].key && old[i].key != TOMBSTONE)
            place(table, old[i].key, old[i].value);
    free(old);
    return true;
}

void *dxcl_table_get(const struct dxcl_table *table, const void *key)
{
    struct dxcl_table_slot *slot = find(table, key);

    return slot ? slot->value : NULL;
}

bool dxcl_table_put(struct dxcl_table *table, const void *key, void *value)
{
    if (find(table, key)) {
        /* A record outliving its handle would be handed to the handle's next owner. */
        DXCL_LOG("table: %p already has a record; the new one is not stored", key);
        return false;
    }
    if ((table->count + table->tombstones + 1) * 2 > table->capacity && !grow(table))
        return false;
    place(table, key, value);
    return true;
}

void *dxcl_table_remove(struct dxcl_table *table, const void *key)
{
    struct dxcl_table_slot *slot = find(table, key);
    void *value;

    if (!slot)
        return NULL;
    value = slot->value;
    slot->key = TOMBSTONE;
    slot->value = NULL;
    table->count--;
    table->tombstones++;
    return value;
}

void dxcl_table_each(const struct dxcl_table *table, void (*fn)(void *value, void *arg), void *arg)
{
    for (size_t i = 0; i < table->capacity; i++)
        if (table->slots[i].key && table->slots[i].key != TOMBSTONE)
            fn(table->slots[i].value, arg);
}

void dxcl_mirror_retain(struct dxcl_table *table, const void *handle)
{
    struct dxcl_mirrored *record;

    dxcl_lock_shared();
    if ((record = dxcl_table_get(table, handle)))
        InterlockedIncrement(&record->app_refs);
    dxcl_unlock_shared();
}

void *dxcl_mirror_release(struct dxcl_table *table, const void *handle)
{
    struct dxcl_mirrored *record;

    /* Called before the driver's release: the record leaves the table with the program's last
     * reference, before the driver can hand the same handle value out again. */
    dxcl_lock_exclusive();
    record = dxcl_table_get(table, handle);
    if (record && InterlockedDecrement(&record->app_refs) == 0)
        dxcl_table_remove(table, handle);
    else
        record = NULL;
    dxcl_unlock_exclusive();
    return record;
}
