/* Fault injection for the reliability tests: DXCL_FAULT makes the N-th pass through a fault
 * point fail, so that the error paths of acquire, release and object creation run on the real
 * stack (or, for `move`, makes Direct3D's answer the rare one dxcl must survive). It exists in
 * the test build only (DXCL_TEST_HOOKS: build/bin/OpenCL.dll, which the tests load); in the
 * shipped build (build/release/OpenCL.dll) a fault point is the constant false, DXCL_FAULT is
 * not read and dxclFaultArm is not exported. In the test build a disarmed point costs one load
 * and a branch. */
#ifndef DXCL_FAULT_H
#define DXCL_FAULT_H

#include "core/common.h"

#include <stdlib.h>

enum dxcl_fault_point {
    DXCL_FAULT_LOCK,      /* reading a Direct3D resource on acquire (Map/LockRect + copies) */
    DXCL_FAULT_UPLOAD,    /* the driver write queued by an acquire */
    DXCL_FAULT_DOWNLOAD,  /* the driver read queued by a release */
    DXCL_FAULT_STAGING,   /* creating the staging copy of a D3D10/D3D11 resource */
    DXCL_FAULT_ALLOC,     /* dxcl's host allocations on the create, acquire and release paths */
    DXCL_FAULT_CHAIN,     /* a command of an emulated format's host command chain */
    DXCL_FAULT_MOVE,      /* a D3D10/D3D11 staging map returns another address (not a failure) */
    DXCL_FAULT_CONVERT,   /* the device conversion of an emulated format: its build, a command */
    DXCL_FAULT_TWIN,      /* a batch of GPU-path hand-overs on Direct3D's queue (not sent) */
    DXCL_FAULT_TWIN_MAKE, /* no twin serves a texture: neither direct, pooled nor new */
    DXCL_FAULT_IMPORT,    /* the driver's import of a twin's memory: asked for an image of width
                           * 0, so that the real driver refuses it (the fd stays with dxcl) */
    DXCL_FAULT_RELEASE_WATCH, /* the GPU path: OpenCL's release of a hand-out is never told to the
                               * Vulkan layer, which ends Direct3D's wait at its bound */
    DXCL_FAULT_COUNT
};

#ifdef DXCL_TEST_HOOKS
extern volatile LONG dxcl_fault_armed;
bool dxcl_fault_fire(enum dxcl_fault_point point);

/* True when this pass through `point` must fail, or take the rare branch (and logs it). */
static inline bool dxcl_fault_hit(enum dxcl_fault_point point)
{
    return dxcl_fault_armed && dxcl_fault_fire(point);
}

/* Reads DXCL_FAULT once at load: "lock:3,download:1" fails the 3rd lock and the 1st download. */
void dxcl_fault_init(void);
#else
static inline bool dxcl_fault_hit(enum dxcl_fault_point point)
{
    (void)point;
    return false;
}

static inline void dxcl_fault_init(void)
{
}
#endif

/* calloc and malloc through the alloc fault point. */
static inline void *dxcl_calloc(size_t count, size_t size)
{
    return dxcl_fault_hit(DXCL_FAULT_ALLOC) ? NULL : calloc(count, size);
}

static inline void *dxcl_malloc(size_t size)
{
    return dxcl_fault_hit(DXCL_FAULT_ALLOC) ? NULL : malloc(size);
}

#endif
