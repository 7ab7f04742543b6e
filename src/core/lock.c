/* The lock rules' checker (core/lock.h): a per-thread count of each lock, kept in TLS. */
#include "core/lock.h"
#include "core/env.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>

SRWLOCK dxcl_lock = SRWLOCK_INIT;
SRWLOCK dxcl_device_lock = SRWLOCK_INIT;
LONG dxcl_lock_checking;

static DWORD depth_slot = TLS_OUT_OF_INDEXES;

static const char *const lock_names[] = {"dxcl_lock", "dxcl_device_lock"};

/* Each lock's count on this thread, packed in the TLS value: tables in the low byte. */
static uintptr_t depths(void)
{
    return (uintptr_t)TlsGetValue(depth_slot);
}

static unsigned depth_of(uintptr_t packed, enum dxcl_lock_id lock)
{
    return (unsigned)(packed >> (8 * lock)) & 0xff;
}

static void broken(const char *rule, enum dxcl_lock_id lock, const char *where)
{
    fprintf(stderr, "dxcl: lock check: %s: %s %s; stopping\n", where, lock_names[lock], rule);
    DXCL_LOG("lock check: %s: %s %s; stopping", where, lock_names[lock], rule);
    abort();
}

void dxcl_lock_check(enum dxcl_lock_id lock, int change, const char *where)
{
    uintptr_t packed = depths();

    if (change > 0 && depth_of(packed, lock))
        broken("taken again by the thread that holds it", lock, where);
    if (change > 0 && lock == DXCL_LOCK_DEVICE && depth_of(packed, DXCL_LOCK_TABLES))
        broken("taken while dxcl_lock is held", lock, where);
    if (change < 0 && !depth_of(packed, lock))
        broken("released by a thread that does not hold it", lock, where);
    packed += change > 0 ? (uintptr_t)1 << (8 * lock) : -((uintptr_t)1 << (8 * lock));
    TlsSetValue(depth_slot, (void *)packed);
}

void dxcl_lock_check_init(void)
{
    char value[8];

    if (!dxcl_getenv("LOCK_CHECK", value, sizeof(value)) || value[0] == '0')
        return;
    if ((depth_slot = TlsAlloc()) == TLS_OUT_OF_INDEXES) {
        DXCL_LOG("lock check: no TLS slot; not checking");
        return;
    }
    dxcl_lock_checking = 1;
    DXCL_LOG("lock check: on");
}
