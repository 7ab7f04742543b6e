/* Typed calls of the host's OpenCL functions, generated from the lists that carry each
 * function's parameters with their types (core/cl_api.h, ../dxclunix_ext.h). A Unix call's
 * arguments come in fixed-width slots (dxclunix.h); the host's function takes them with their
 * own types. On x86-64 every integer and pointer argument fills a 64-bit register or stack slot,
 * so a call with every argument as a uint64_t worked by chance; on i386 (cdecl, the 32-bit
 * dxclunix.so of Wine's old WoW64) a pointer or a size_t takes 4 bytes of the stack and a
 * cl_ulong 8. So each call narrows every slot to its parameter's type (the low bytes of the slot:
 * x86 is little-endian) and calls through a function-pointer type made from the parameter list.
 *
 * DXCLUNIX_HOST_INVOKER(kind, ret, name, params, args, params_union) defines
 *   static uint64_t invoke_<name>(uintptr_t fn, const uint64_t *slot)
 * which calls the host function `fn` with slot[0..n-1] and answers its result widened to 64 bits
 * (a cl_int sign-extended, a pointer zero-extended; 0 for a void function). */
#ifndef DXCLUNIX_HOST_CALL_H
#define DXCLUNIX_HOST_CALL_H

#include "../dxclunix.h"

#include <stdint.h>
#include <string.h>

/* m(x) for each of the first n elements of `list`: one after another (EACH_OF), or joined by
 * commas (JOIN). n comes from the names (`args`): `params` is (void) for a function of none. */
#define DXCLUNIX_EACH_OF(m, n, list)                                                               \
    DXCLUNIX_APPLY(DXCLUNIX_CAT(DXCLUNIX_EACH_, n), m, DXCLUNIX_UNPAREN list)
#define DXCLUNIX_JOIN(m, n, list)                                                                  \
    DXCLUNIX_APPLY(DXCLUNIX_CAT(DXCLUNIX_JOIN_, n), m, DXCLUNIX_UNPAREN list)
#define DXCLUNIX_JOIN_0(m, ...)
#define DXCLUNIX_JOIN_1(m, a) m(a)
#define DXCLUNIX_JOIN_2(m, a, ...) m(a), DXCLUNIX_JOIN_1(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_3(m, a, ...) m(a), DXCLUNIX_JOIN_2(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_4(m, a, ...) m(a), DXCLUNIX_JOIN_3(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_5(m, a, ...) m(a), DXCLUNIX_JOIN_4(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_6(m, a, ...) m(a), DXCLUNIX_JOIN_5(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_7(m, a, ...) m(a), DXCLUNIX_JOIN_6(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_8(m, a, ...) m(a), DXCLUNIX_JOIN_7(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_9(m, a, ...) m(a), DXCLUNIX_JOIN_8(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_10(m, a, ...) m(a), DXCLUNIX_JOIN_9(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_11(m, a, ...) m(a), DXCLUNIX_JOIN_10(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_12(m, a, ...) m(a), DXCLUNIX_JOIN_11(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_13(m, a, ...) m(a), DXCLUNIX_JOIN_12(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_14(m, a, ...) m(a), DXCLUNIX_JOIN_13(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_15(m, a, ...) m(a), DXCLUNIX_JOIN_14(m, __VA_ARGS__)
#define DXCLUNIX_JOIN_16(m, a, ...) m(a), DXCLUNIX_JOIN_15(m, __VA_ARGS__)

/* A parameter's declaration as a member of the struct of typed arguments; a slot's low bytes
 * into it; the member as an argument. */
#define DXCLUNIX_TYPED_MEMBER(declaration) declaration;
#define DXCLUNIX_NARROW(name) memcpy(&typed.name, &in->name, sizeof(typed.name));
#define DXCLUNIX_TYPED_ARG(name) typed.name

/* The host's result, widened into a slot. */
#define DXCLUNIX_WIDEN_INT(call) return (uint64_t)(int64_t)(call);
#define DXCLUNIX_WIDEN_OBJ(call) return (uint64_t)(uintptr_t)(call);
#define DXCLUNIX_WIDEN_PTR DXCLUNIX_WIDEN_OBJ
#define DXCLUNIX_WIDEN_NONE(call)                                                                  \
    call;                                                                                          \
    return 0;

#define DXCLUNIX_HOST_INVOKER(kind, ret, name, params, args, params_union)                         \
    typedef ret(CL_API_CALL *host_##name##_fn) params;                                             \
    static uint64_t invoke_##name(uintptr_t fn, const uint64_t *slot)                              \
    {                                                                                              \
        const params_union *in = (const void *)slot;                                               \
        struct {                                                                                   \
            DXCLUNIX_EACH_OF(DXCLUNIX_TYPED_MEMBER, DXCLUNIX_ARITY(args), params)                  \
            char none; /* a member for a function of no parameters */                              \
        } typed;                                                                                   \
                                                                                                   \
        (void)in, (void)&typed;                                                                    \
        DXCLUNIX_FOR_EACH(DXCLUNIX_NARROW, args)                                                   \
        DXCLUNIX_WIDEN_##kind(                                                                     \
            ((host_##name##_fn)fn)(DXCLUNIX_JOIN(DXCLUNIX_TYPED_ARG, DXCLUNIX_ARITY(args), args))) \
    }

#endif
