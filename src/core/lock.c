/* The lock rules' checker (core/lock.h): a per-thread count of each lock, kept in TLS. */
#include "core/lock.h"
#include "core/env.h"

#include <stdio.h>
#include <stdlib.h>

SRWLOCK dxcl_lock = SRWLOCK_INIT;
SRWLOCK dxcl_device_lock = SRWLOCK_INIT;
LONG dxcl_lock_checking;

static DWORD depth_slot = TLS_OUT_OF_INDEXES;

static const char *const lock_names[DXCL_LOCK_COUNT] = {
    "a lazy-upload lock", "dxcl_device_lock", "the staging pool lock", "dxcl_lock",
    "the callbacks lock", "the waiter lock",  "the watch lock",        "the log lock",
};

/* Each lock's count on this thread, 4 bits a lock, packed in the TLS value: a pointer, so that
 * the 8 locks fit in 32 bits on i686 (a lock taken again by its holder is an error, so a
 * count is 0 or 1). */
enum { DEPTH_BITS = 4 };
_Static_assert(DEPTH_BITS *(int)DXCL_LOCK_COUNT <= 32,
               "the lock counts must fit a 32-bit TLS value");

static uint64_t depths(void)
{
    return (uint64_t)(uintptr_t)TlsGetValue(depth_slot);
}

static unsigned depth_of(uint64_t packed, enum dxcl_lock_id lock)
{
    return (unsigned)(packed >> (DEPTH_BITS * lock)) & ((1u << DEPTH_BITS) - 1);
}

/* The innermost lock the thread holds, or DXCL_LOCK_COUNT when it holds none. */
static enum dxcl_lock_id innermost_held(uint64_t packed)
{
    for (int lock = DXCL_LOCK_COUNT - 1; lock >= 0; lock--)
        if (depth_of(packed, (enum dxcl_lock_id)lock))
            return (enum dxcl_lock_id)lock;
    return DXCL_LOCK_COUNT;
}

static void broken(const char *what, const char *where)
{
    /* Straight to stderr: the log takes a lock of its own, which may be the one at fault. */
    fprintf(stderr, "dxcl: lock check: %s: %s; stopping\n", where, what);
    fflush(stderr);
    abort();
}

void dxcl_lock_check(enum dxcl_lock_id lock, int change, const char *where)
{
    uint64_t packed = depths();
    enum dxcl_lock_id inner = innermost_held(packed);
    char what[160];

    if (change > 0 && inner != DXCL_LOCK_COUNT && inner >= lock) {
        snprintf(what, sizeof(what), "%s taken while holding %s", lock_names[lock],
                 inner == lock ? "it already" : lock_names[inner]);
        broken(what, where);
    }
    if (change < 0 && !depth_of(packed, lock)) {
        snprintf(what, sizeof(what), "%s released by a thread that does not hold it",
                 lock_names[lock]);
        broken(what, where);
    }
    packed +=
        change > 0 ? (uint64_t)1 << (DEPTH_BITS * lock) : -((uint64_t)1 << (DEPTH_BITS * lock));
    TlsSetValue(depth_slot, (void *)(uintptr_t)packed);
}

void dxcl_lock_check_outside(const char *call, const char *where)
{
    uint64_t packed = depths();
    char what[160];

    for (enum dxcl_lock_id lock = DXCL_LOCK_POOL; lock < DXCL_LOCK_COUNT; lock++) {
        if (!depth_of(packed, lock))
            continue;
        snprintf(what, sizeof(what), "%s called while holding %s", call, lock_names[lock]);
        broken(what, where);
    }
}

const char *dxcl_lock_check_init(void)
{
    char value[8];

    if (!dxcl_getenv("LOCK_CHECK", value, sizeof(value)) || value[0] == '0')
        return NULL;
    if ((depth_slot = TlsAlloc()) == TLS_OUT_OF_INDEXES)
        return "lock check: no TLS slot; not checking";
    dxcl_lock_checking = 1;
    return "lock check: on";
}
