/* Fault injection (fault.h): the points' countdowns, DXCL_FAULT, and the dxclFaultArm export
 * (core/test_hooks.h). Compiled in the test build only (DXCL_TEST_HOOKS). */
#include "core/fault.h"

#ifdef DXCL_TEST_HOOKS
#include "core/env.h"
#include "core/log.h"
#include "core/test_hooks.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[DXCL_FAULT_COUNT] = {
    "lock", "upload",  "download", "staging",   "alloc",  "chain",
    "move", "convert", "twin",     "twin_make", "import", "release_watch"};

volatile LONG dxcl_fault_armed;
/* Passes left before the fault fires, per point; 0: disarmed. */
static volatile LONG countdown[DXCL_FAULT_COUNT];
static volatile LONG fired[DXCL_FAULT_COUNT];

static void arm(unsigned point, LONG nth)
{
    InterlockedExchange(&countdown[point], nth);
    InterlockedExchange(&dxcl_fault_armed, 1);
}

bool dxcl_fault_fire(enum dxcl_fault_point point)
{
    LONG left = countdown[point];

    /* Counts down only while armed; the pass that reaches 0 fails, once. */
    while (left > 0) {
        LONG seen = InterlockedCompareExchange(&countdown[point], left - 1, left);
        if (seen == left)
            break;
        left = seen;
    }
    if (left != 1)
        return false;
    InterlockedIncrement(&fired[point]);
    DXCL_LOG("fault injection: %s fires here", names[point]);
    return true;
}

void dxcl_fault_init(void)
{
    char spec[256];
    DWORD length = dxcl_getenv("FAULT", spec, sizeof(spec));
    char *item, *next;

    if (length == 0)
        return;
    for (item = strtok_r(spec, ",", &next); item; item = strtok_r(NULL, ",", &next)) {
        char *colon = strchr(item, ':');
        for (unsigned i = 0; colon && i < DXCL_FAULT_COUNT; i++)
            if (!strncmp(item, names[i], colon - item) && !names[i][colon - item])
                arm(i, atol(colon + 1));
    }
}

DXCL_DECLARE_EXPORT(dxclFaultArm);

DXCL_EXPORT cl_int CL_API_CALL dxclFaultArm(const char *point, cl_uint nth, cl_uint *fired_before)
{
    for (unsigned i = 0; point && i < DXCL_FAULT_COUNT; i++) {
        if (strcmp(point, names[i]))
            continue;
        if (fired_before)
            *fired_before = (cl_uint)fired[i];
        arm(i, (LONG)nth);
        return CL_SUCCESS;
    }
    return CL_INVALID_VALUE;
}

#endif
