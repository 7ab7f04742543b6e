/* The exported entry points, generated from cl_api.h: FWD entries forward to the driver; OWN
 * and GRD entries call dxcl's implementation (core/api.h) and log its result when DXCL_LOG
 * is on, so that every intercepted call is logged, and only here; QRY entries do one or the
 * other by the param name.
 *
 * A FWD export is one instruction, an indirect jump through its slot, and a QRY export two
 * compares before it: a forwarded call costs what calling the driver costs (docs/perf.md,
 * P2). A slot starts at a C stub that loads the driver (and fails like a driver lacking the
 * function); the first such call binds every slot the driver fills to the driver's own entry
 * point, and with DXCL_BIND_IMPORTS=1 the program's import slots of FWD exports to it too
 * (bind_imports.h).
 *
 * x64: the exports are assembly, and a QRY export reads the param name from %edx. i686 (the
 * x32 build): they are naked stdcall functions, which the compiler names _name@N for the
 * export list (cmake/x32-implib.sh), reading the param name from the stack; a program's
 * imports stay on dxcl's exports (binding is x64 only). */
#include "core/driver.h"
#include "core/api.h"
#include "proxy/answers.h"
#include "proxy/bind_imports.h"

#define DXCL_MISSING_INT(name) return dxcl_driver_missing(#name);
#define DXCL_MISSING_OBJ(name)                                                                     \
    dxcl_driver_missing(#name);                                                                    \
    if (errcode_ret)                                                                               \
        *errcode_ret = CL_INVALID_OPERATION;                                                       \
    return NULL;
#define DXCL_MISSING_PTR(name)                                                                     \
    dxcl_driver_missing(#name);                                                                    \
    return NULL;
#define DXCL_MISSING_NONE(name)                                                                    \
    dxcl_driver_missing(#name);                                                                    \
    return;

#define DXCL_CALL_INT(fn, args) return fn args;
#define DXCL_CALL_OBJ(fn, args) return fn args;
#define DXCL_CALL_PTR(fn, args) return fn args;
#define DXCL_CALL_NONE(fn, args) fn args;

/* Logging the result of an intercepted call: the error code, or for calls returning an
 * object, the object and *errcode_ret (which the wrapper provides when the caller did not).
 * With the log off the implementation is tail-called; the flag is read again after the call
 * because the log closes at process detach. */
#define DXCL_LOGGED_INT(ret, name, args)                                                           \
    if (!dxcl_log_calls_on)                                                                        \
        return DXCL_IMPL(name) args;                                                               \
    cl_int result = DXCL_IMPL(name) args;                                                          \
    if (dxcl_log_calls_on)                                                                         \
        dxcl_logf("%s -> %s", #name, dxcl_error_name(result));                                     \
    return result;
#define DXCL_LOGGED_OBJ(ret, name, args)                                                           \
    if (!dxcl_log_calls_on)                                                                        \
        return DXCL_IMPL(name) args;                                                               \
    cl_int status;                                                                                 \
    if (!errcode_ret)                                                                              \
        errcode_ret = &status;                                                                     \
    ret result = DXCL_IMPL(name) args;                                                             \
    if (dxcl_log_calls_on)                                                                         \
        dxcl_logf("%s -> %p %s", #name, (void *)result, dxcl_error_name(*errcode_ret));            \
    return result;
#define DXCL_LOGGED_PTR(ret, name, args) return DXCL_IMPL(name) args;

#define DXCL_STUB_OWN(kind, ret, name, params, args)                                               \
    DXCL_EXPORT ret CL_API_CALL name params                                                        \
    {                                                                                              \
        DXCL_LOGGED_##kind(ret, name, args)                                                        \
    }
#define DXCL_STUB_GRD DXCL_STUB_OWN

/* ---- Slots of the FWD and QRY exports ---- */

typedef void (*dxcl_entry)(void);

#define DXCL_SLOT_FWD(name) extern dxcl_entry dxcl_slot_##name;
#define DXCL_SLOT_QRY DXCL_SLOT_FWD
#define DXCL_SLOT_OWN(name)
#define DXCL_SLOT_GRD(name)
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCL_SLOT_##route(name)
#include "core/cl_api.h"
#undef DXCL_API_FN

static BOOL CALLBACK bind_slots(INIT_ONCE *once, void *drv_arg, void **context)
{
    const struct dxcl_driver *drv = drv_arg;

    (void)once;
    (void)context;
#define DXCL_BIND_FWD(name)                                                                        \
    if (drv->name)                                                                                 \
        __atomic_store_n(&dxcl_slot_##name, (dxcl_entry)drv->name, __ATOMIC_RELEASE);
/* With the calls logged (debug), QRY slots keep the logged C path. */
#define DXCL_BIND_QRY(name)                                                                        \
    if (drv->name && !dxcl_log_calls_on)                                                           \
        __atomic_store_n(&dxcl_slot_##name, (dxcl_entry)drv->name, __ATOMIC_RELEASE);
#define DXCL_BIND_OWN(name)
#define DXCL_BIND_GRD(name)
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCL_BIND_##route(name)
#include "core/cl_api.h"
#undef DXCL_API_FN
    return TRUE;
}

#ifdef _WIN64
/* dxcl's FWD exports by their assembler names (the C names of some are the headers'). */
#define DXCL_EXPORT_SYMBOL_FWD(name) extern const char dxcl_export_##name[] __asm__(#name);
#define DXCL_EXPORT_SYMBOL_QRY(name)
#define DXCL_EXPORT_SYMBOL_OWN(name)
#define DXCL_EXPORT_SYMBOL_GRD(name)
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCL_EXPORT_SYMBOL_##route(name)
#include "core/cl_api.h"
#undef DXCL_API_FN

#define DXCL_IS_FWD_FWD 1
#define DXCL_IS_FWD_QRY 0
#define DXCL_IS_FWD_OWN 0
#define DXCL_IS_FWD_GRD 0
enum {
    DXCL_FWD_EXPORTS = 0
#define DXCL_API_FN(route, kind, ret, name, version, params, args) +DXCL_IS_FWD_##route
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* The program's static imports of FWD exports go to the driver from now on (bind_imports.h);
 * QRY exports keep their compares. */
static void bind_program_imports(const struct dxcl_driver *drv)
{
    struct dxcl_import_binding bindings[DXCL_FWD_EXPORTS];
    size_t count = 0;

#define DXCL_BINDING_FWD(name)                                                                     \
    if (drv->name)                                                                                 \
        bindings[count++] =                                                                        \
            (struct dxcl_import_binding){dxcl_export_##name, (const void *)drv->name};
#define DXCL_BINDING_QRY(name)
#define DXCL_BINDING_OWN(name)
#define DXCL_BINDING_GRD(name)
#define DXCL_API_FN(route, kind, ret, name, version, params, args) DXCL_BINDING_##route(name)
#include "core/cl_api.h"
#undef DXCL_API_FN
    dxcl_bind_imports(bindings, count);
}
#endif

static const struct dxcl_driver *bound_driver(void)
{
    static INIT_ONCE bind_once = INIT_ONCE_STATIC_INIT;
    static LONG imports_bound;
    const struct dxcl_driver *drv = dxcl_driver();

    InitOnceExecuteOnce(&bind_once, bind_slots, (void *)drv, NULL);
#ifdef _WIN64
    /* Outside the once, which other threads wait on: the walk takes the loader's lock. */
    if (!InterlockedCompareExchange(&imports_bound, 1, 0))
        bind_program_imports(drv);
#else
    (void)imports_bound;
#endif
    return drv;
}

/* A slot and the C stub it holds until the driver is bound. */
#define DXCL_UNBOUND(kind, ret, name, params, args)                                                \
    static ret CL_API_CALL dxcl_unbound_##name params                                              \
    {                                                                                              \
        const struct dxcl_driver *drv = bound_driver();                                            \
        if (!drv->name) {                                                                          \
            DXCL_MISSING_##kind(name)                                                              \
        }                                                                                          \
        DXCL_CALL_##kind(drv->name, args)                                                          \
    }                                                                                              \
    __attribute__((used)) dxcl_entry dxcl_slot_##name = (dxcl_entry)dxcl_unbound_##name;

#ifdef _WIN64
/* An export written in assembly (the compiler never sees its definition, so a linker
 * directive exports it); it ends in a jump through its slot. */
#define DXCL_ASM_EXPORT(name, code)                                                                \
    __asm__(".text\n"                                                                              \
            ".globl " #name "\n"                                                                   \
            ".def " #name "; .scl 2; .type 32; .endef\n"                                           \
            ".p2align 4\n" #name ":\n" code "\tjmp *dxcl_slot_" #name "(%rip)\n"                   \
            ".section .drectve\n"                                                                  \
            ".ascii \" -export:" #name "\"\n"                                                      \
            ".text\n");
#define DXCL_EXPORT_JUMPS(kind, ret, name, params, checks, tail) DXCL_ASM_EXPORT(name, checks)
#else
/* i686: a naked stdcall function (no prologue: the stack is the caller's when it jumps), so
 * that the compiler gives it its decorated name; its parameters are read by the assembly. */
#define DXCL_EXPORT_JUMPS(kind, ret, name, params, checks, tail)                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")        \
        DXCL_EXPORT __attribute__((naked)) ret CL_API_CALL name params                             \
    {                                                                                              \
        __asm__(checks "\tjmp *_dxcl_slot_" #name "\n" tail);                                      \
    }                                                                                              \
    _Pragma("GCC diagnostic pop")
#endif

#define DXCL_STUB_FWD(kind, ret, name, params, args)                                               \
    DXCL_UNBOUND(kind, ret, name, params, args)                                                    \
    DXCL_EXPORT_JUMPS(kind, ret, name, params, "", "")

/* ---- QRY exports ---- */

/* The param name is the second argument: in %edx on x64, at 8(%esp) on i686, where a match
 * jumps through dxcl_answer_<name> (a stdcall target's name carries its argument size). The
 * answered ones are listed in core/api.h. */
#define DXCL_STRING(x) #x
#define DXCL_EXPAND_STRING(x) DXCL_STRING(x)
#ifdef _WIN64
#define DXCL_ASM_ANSWER(name, param, answer)                                                       \
    "\tcmpl $" DXCL_EXPAND_STRING(param) ", %edx\n\tje dxcl_logged_" #name "\n"
#define DXCL_QRY_TAIL(name) ""
#define DXCL_QRY_ANSWER(name)
#else
#define DXCL_ASM_ANSWER(name, param, answer)                                                       \
    "\tcmpl $" DXCL_EXPAND_STRING(param) ", 8(%esp)\n\tje 1f\n"
#define DXCL_QRY_TAIL(name) "1:\tjmp *_dxcl_answer_" #name "\n"
#define DXCL_QRY_ANSWER(name)                                                                      \
    __attribute__((used)) const dxcl_entry dxcl_answer_##name = (dxcl_entry)dxcl_logged_##name;
#endif

/* The C path of a QRY export: dxcl's implementation (which forwards the param names it does not
 * answer), logged when DXCL_LOG is on. The slot holds it until the driver is bound, and for
 * good while the log is on. */
/* Formatted by hand: DXCL_QRY_ANSWER, a declaration on i686 only, takes no semicolon. */
// clang-format off
#define DXCL_STUB_QRY(kind, ret, name, params, args)                                               \
    ret CL_API_CALL dxcl_logged_##name params;                                                     \
    __attribute__((used)) ret CL_API_CALL dxcl_logged_##name params                                \
    {                                                                                              \
        DXCL_LOGGED_##kind(ret, name, args)                                                        \
    }                                                                                              \
    DXCL_QRY_ANSWER(name)                                                                          \
    static ret CL_API_CALL dxcl_unbound_##name params                                              \
    {                                                                                              \
        bound_driver();                                                                            \
        return dxcl_logged_##name args;                                                            \
    }                                                                                              \
    __attribute__((used)) dxcl_entry dxcl_slot_##name = (dxcl_entry)dxcl_unbound_##name;           \
    DXCL_EXPORT_JUMPS(kind, ret, name, params, DXCL_ANSWERS_##name(DXCL_ASM_ANSWER),               \
                      DXCL_QRY_TAIL(name))
// clang-format on

#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCL_STUB_##route(kind, ret, name, params, args)
#include "core/cl_api.h"
#undef DXCL_API_FN
