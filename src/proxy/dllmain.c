/* DllMain: at load, dxcl starts its log, fault injection (test builds only) and the lock
 * checker, and under Wine makes its Unix side known to its Vulkan layer (core/driver.h,
 * dxcl_driver_announce); at unload, it closes the log, and at process exit it first stops the
 * callback waiter's driver calls (core/waiter.h). */
#include "core/common.h"
#include "core/driver.h"
#include "core/fault.h"
#include "core/lock.h"
#include "core/waiter.h"

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, void *reserved);

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, void *reserved)
{
    if (reason == DLL_PROCESS_ATTACH) {
        DisableThreadLibraryCalls(instance);
        dxcl_log_init();
        dxcl_fault_init();
        const char *lock_check = dxcl_lock_check_init();
        if (lock_check)
            DXCL_LOG("%s", lock_check);
        dxcl_driver_announce();
    } else if (reason == DLL_PROCESS_DETACH) {
        if (reserved) /* the process is exiting, not FreeLibrary */
            dxcl_waiter_process_exit();
        dxcl_log_shutdown();
    }
    return TRUE;
}
