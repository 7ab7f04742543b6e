/* dxcl's locks, their one order, and the rules the checker enforces.
 *
 * Order: a thread takes locks only in this order, outermost first, and never one it holds:
 *   [the program's Direct3D multithread protection: not dxcl's, entered before any of these]
 *   DXCL_LOCK_LAZY    a shared object's first-touch lock (engine/lazy.c): held while its
 *                     Direct3D contents are brought in and their upload is queued
 *   DXCL_LOCK_DEVICE  dxcl_device_lock: dxcl's own use of Direct3D immediate contexts and the
 *                     surfaces' host-copy counts
 *   DXCL_LOCK_POOL    a context's pool of idle staging resources (dxgi/dxgi.c)
 *   DXCL_LOCK_TABLES  dxcl_lock: the side tables and the records' state
 *   DXCL_LOCK_CALLBACKS  the callbacks dxcl delivers, on their way to the waiter
 *                     (compat/callbacks.c)
 *   DXCL_LOCK_WAITER  the waiter thread's new work (core/waiter.c)
 *   DXCL_LOCK_WATCH   the events watched for the waiter (core/watch.c)
 *   DXCL_LOCK_LOG     one log line at a time (core/log.c)
 * Calls: no driver call and no Direct3D call while holding POOL, TABLES, CALLBACKS, WAITER,
 * WATCH or LOG: those guard dxcl's own data only, and a call that blocks (on a user event, on
 * Direct3D work) would hold up every thread behind them. LAZY and DEVICE exist to serialise
 * such calls.
 *
 * DXCL_LOCK_CHECK=1 (set for every test) checks both rules: every take against the locks the
 * thread holds (a per-thread count of each), every driver call (core/driver.c hands out a table
 * of checking entry points) and every call into a Direct3D backend (dxcl_lock_check_call where
 * the engine calls one). A broken rule stops the process with a log line naming the function.
 * Off, a take costs one extra load and branch. */
#ifndef DXCL_LOCK_H
#define DXCL_LOCK_H

#include "core/common.h"

enum dxcl_lock_id {
    DXCL_LOCK_LAZY,
    DXCL_LOCK_DEVICE,
    DXCL_LOCK_POOL,
    DXCL_LOCK_TABLES,
    DXCL_LOCK_CALLBACKS,
    DXCL_LOCK_WAITER,
    DXCL_LOCK_WATCH,
    DXCL_LOCK_LOG,
    DXCL_LOCK_COUNT
};

extern SRWLOCK dxcl_lock;
extern SRWLOCK dxcl_device_lock;

extern LONG dxcl_lock_checking;
/* Checks the order for a take (+1) of `lock` by the calling thread, or records its release
 * (-1). */
void dxcl_lock_check(enum dxcl_lock_id lock, int change, const char *where);
/* Checks that the calling thread may call out of dxcl (the driver, Direct3D) now. */
void dxcl_lock_check_outside(const char *call, const char *where);
/* Reads DXCL_LOCK_CHECK once at load; returns a line for the log, or NULL. (The log takes a lock
 * itself, so the checker does not log.) */
const char *dxcl_lock_check_init(void);

static inline void dxcl_lock_check_call(const char *call, const char *where)
{
    if (dxcl_lock_checking)
        dxcl_lock_check_outside(call, where);
}

/* Takes and releases `lock` (an SRW lock) as the lock `id` of the order. */
static inline void dxcl_take(SRWLOCK *lock, enum dxcl_lock_id id, bool exclusive, const char *where)
{
    if (dxcl_lock_checking)
        dxcl_lock_check(id, +1, where);
    if (exclusive)
        AcquireSRWLockExclusive(lock);
    else
        AcquireSRWLockShared(lock);
}

static inline void dxcl_leave(SRWLOCK *lock, enum dxcl_lock_id id, bool exclusive,
                              const char *where)
{
    if (exclusive)
        ReleaseSRWLockExclusive(lock);
    else
        ReleaseSRWLockShared(lock);
    if (dxcl_lock_checking)
        dxcl_lock_check(id, -1, where);
}

#define dxcl_lock_shared() dxcl_take(&dxcl_lock, DXCL_LOCK_TABLES, false, __func__)
#define dxcl_unlock_shared() dxcl_leave(&dxcl_lock, DXCL_LOCK_TABLES, false, __func__)
#define dxcl_lock_exclusive() dxcl_take(&dxcl_lock, DXCL_LOCK_TABLES, true, __func__)
#define dxcl_unlock_exclusive() dxcl_leave(&dxcl_lock, DXCL_LOCK_TABLES, true, __func__)
#define dxcl_lock_device() dxcl_take(&dxcl_device_lock, DXCL_LOCK_DEVICE, true, __func__)
#define dxcl_unlock_device() dxcl_leave(&dxcl_device_lock, DXCL_LOCK_DEVICE, true, __func__)

#endif
