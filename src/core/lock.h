/* dxcl's two locks and their rules:
 *   dxcl_lock        the tables and the records' state. Never held across a call that can block
 *                    on the driver or on Direct3D, and never taken twice by one thread: Windows'
 *                    (and Wine's) SRW locks let a waiting writer block new readers, so a thread
 *                    that takes the shared lock again deadlocks as soon as a writer queues up
 *                    between its two takes.
 *   dxcl_device_lock dxcl's own use of Direct3D immediate contexts and surface lock counts. Taken
 *                    inside the program's Direct3D multithread protection, never while holding
 *                    dxcl_lock, never twice.
 * DXCL_LOCK_CHECK=1 (set for every test) makes each take check these rules on a per-thread
 * count and stop the process with a log line naming the function that broke one. Off, a take
 * costs one extra load and branch. */
#ifndef DXCL_LOCK_H
#define DXCL_LOCK_H

#include "core/common.h"

extern SRWLOCK dxcl_lock;
extern SRWLOCK dxcl_device_lock;

enum dxcl_lock_id { DXCL_LOCK_TABLES, DXCL_LOCK_DEVICE };

extern LONG dxcl_lock_checking;
/* Checks the rules for a take (+1) or a release (-1) of `lock` by the calling thread. */
void dxcl_lock_check(enum dxcl_lock_id lock, int change, const char *where);
/* Reads DXCL_LOCK_CHECK once at load. */
void dxcl_lock_check_init(void);

static inline void dxcl_lock_take(enum dxcl_lock_id lock, bool exclusive, const char *where)
{
    if (dxcl_lock_checking)
        dxcl_lock_check(lock, +1, where);
    if (lock == DXCL_LOCK_DEVICE)
        AcquireSRWLockExclusive(&dxcl_device_lock);
    else if (exclusive)
        AcquireSRWLockExclusive(&dxcl_lock);
    else
        AcquireSRWLockShared(&dxcl_lock);
}

static inline void dxcl_lock_leave(enum dxcl_lock_id lock, bool exclusive, const char *where)
{
    if (lock == DXCL_LOCK_DEVICE)
        ReleaseSRWLockExclusive(&dxcl_device_lock);
    else if (exclusive)
        ReleaseSRWLockExclusive(&dxcl_lock);
    else
        ReleaseSRWLockShared(&dxcl_lock);
    if (dxcl_lock_checking)
        dxcl_lock_check(lock, -1, where);
}

#define dxcl_lock_shared() dxcl_lock_take(DXCL_LOCK_TABLES, false, __func__)
#define dxcl_unlock_shared() dxcl_lock_leave(DXCL_LOCK_TABLES, false, __func__)
#define dxcl_lock_exclusive() dxcl_lock_take(DXCL_LOCK_TABLES, true, __func__)
#define dxcl_unlock_exclusive() dxcl_lock_leave(DXCL_LOCK_TABLES, true, __func__)
#define dxcl_lock_device() dxcl_lock_take(DXCL_LOCK_DEVICE, true, __func__)
#define dxcl_unlock_device() dxcl_lock_leave(DXCL_LOCK_DEVICE, true, __func__)

#endif
