/* A DLL that imports one forwarded function from OpenCL.dll, as a program's own DLL does
 * (FFmpeg's avutil): test_exports loads one copy (bind_probe_early.exe) before dxcl binds the
 * driver and one (bind_probe_late.exe) after, and reads their import slots
 * (src/proxy/bind_imports.c binds the modules loaded at that moment only), and three with
 * headers or an import table made unreadable before the binding, which it must leave alone
 * (bind_probe_lfanew, _rva, _noaccess). Named .exe, as
 * fake_cl.exe, so that it travels with the test programs. */
#include <CL/cl.h>
#include <windows.h>

extern void *__imp_clGetCommandQueueInfo;

__declspec(dllexport) void *bind_probe_slot(void);
__declspec(dllexport) void **bind_probe_slot_address(void);
__declspec(dllexport) cl_int bind_probe_call(cl_command_queue queue, cl_context *context);

/* The module's import slot of clGetCommandQueueInfo, as the loader (or dxcl) left it. */
void *bind_probe_slot(void)
{
    return __atomic_load_n(&__imp_clGetCommandQueueInfo, __ATOMIC_ACQUIRE);
}

/* Where that slot is (test_exports makes its page unreadable). */
void **bind_probe_slot_address(void)
{
    return &__imp_clGetCommandQueueInfo;
}

/* A call through that slot. */
cl_int bind_probe_call(cl_command_queue queue, cl_context *context)
{
    return clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof(*context), context, NULL);
}
