/* Wine's signal handlers in a process whose OpenCL driver compiles with LLVM (docs/proxy.md,
 * "Signal handlers"): saved before the host library loads, put back after the calls that may
 * compile, and counted for dxcl's log (DXCLUNIX_SIGNALS). */
#define _GNU_SOURCE
#include "dxclunix_so.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Signal handlers (docs/proxy.md, "Signal handlers"). Wine runs on its handlers: SIGUSR1
 * suspends a thread (SuspendThread, GetThreadContext), SIGQUIT ends the other threads at exit,
 * SIGSEGV and others raise exceptions. LLVM, in a driver that compiles with it (PoCL), puts
 * its own in their place the first time it writes a file (llvm::sys::RemoveFileOnSignal):
 * SIGUSR1 then suspends nothing, GetThreadContext waits forever, and its one-shot SIGQUIT
 * handler lets a second SIGQUIT kill the process. Wine's handlers are saved before the host
 * library loads and put back after each call that may compile, wherever the handler in place
 * is LLVM's (its code lives in a library named *LLVM*); a driver's other handlers stay. LLVM
 * installs its handlers once, so after the first put-back it does not take them again. */
#define DXCLUNIX_SIGNAL_LIMIT 32
static struct sigaction wine_actions[DXCLUNIX_SIGNAL_LIMIT];
static pthread_mutex_t signals_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint signals_put_back;
static char signals_owner[256]; /* the library whose handlers were taken out */

void dxclunix_save_wine_handlers(void)
{
    for (int sig = 1; sig < DXCLUNIX_SIGNAL_LIMIT; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, NULL, &wine_actions[sig]);
}

static bool same_handler(const struct sigaction *a, const struct sigaction *b)
{
    return a->sa_handler == b->sa_handler;
}

/* The file of the library a handler lives in, when that is LLVM's. */
static const char *llvm_library_of(const struct sigaction *action)
{
    Dl_info info;

    if (action->sa_handler == SIG_DFL || action->sa_handler == SIG_IGN ||
        !dladdr((void *)action->sa_handler, &info) || !info.dli_fname)
        return NULL;
    const char *base = strrchr(info.dli_fname, '/');
    return strstr(base ? base : info.dli_fname, "LLVM") ? info.dli_fname : NULL;
}

static bool handler_changed(int sig)
{
    struct sigaction now;

    return sigaction(sig, NULL, &now) == 0 && !same_handler(&now, &wine_actions[sig]);
}

void dxclunix_put_back_wine_handlers(void)
{
    /* LLVM takes all its signals at once; these two are the ones Wine cannot do without. */
    if (!handler_changed(SIGUSR1) && !handler_changed(SIGQUIT))
        return;
    pthread_mutex_lock(&signals_lock);
    for (int sig = 1; sig < DXCLUNIX_SIGNAL_LIMIT; sig++) {
        struct sigaction now;
        const char *owner;

        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &now) != 0 ||
            same_handler(&now, &wine_actions[sig]) || !(owner = llvm_library_of(&now)))
            continue;
        if (sigaction(sig, &wine_actions[sig], NULL) == 0) {
            if (!signals_owner[0])
                snprintf(signals_owner, sizeof(signals_owner), "%s", owner);
            atomic_fetch_add(&signals_put_back, 1);
        }
    }
    pthread_mutex_unlock(&signals_lock);
}

/* LLVM also gives the thread that registers its handlers an alternate signal stack of its own
 * where the one in place is smaller than it wants (llvm::sys CreateSigAltStack). Wine's i386
 * signal handler finds the thread's TEB from its signal stack, so on that stack it faults itself
 * (a second SIGSEGV, SI_KERNEL) and the process dies at the next fault of a Unix call; Wine's
 * x86-64 handler finds the TEB through a segment register and does not mind. So the calling
 * thread's alternate stack is noted before each call that may compile, until LLVM's handlers
 * were put back once (it registers them once per process), and put back after it. */
bool dxclunix_save_signal_stack(stack_t *stack)
{
    return !atomic_load(&signals_put_back) && sigaltstack(NULL, stack) == 0;
}

void dxclunix_put_back_signal_stack(const stack_t *stack)
{
    stack_t now, wine = *stack;

    if (sigaltstack(NULL, &now) != 0 ||
        (now.ss_sp == stack->ss_sp && now.ss_size == stack->ss_size))
        return;
    wine.ss_flags &= SS_DISABLE; /* SS_ONSTACK is a state, not a setting */
    sigaltstack(&wine, NULL);
}

/* The count and the owner are copied out under the lock and written to the PE half's
 * parameters after it: a fault there leaves the lock free. */
NTSTATUS dxclunix_signals(void *args)
{
    struct dxclunix_signals *params = args;
    char owner[sizeof(signals_owner)];
    uint32_t count;

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    pthread_mutex_lock(&signals_lock);
    count = atomic_load(&signals_put_back);
    memcpy(owner, signals_owner, sizeof(owner));
    pthread_mutex_unlock(&signals_lock);
    params->count = count;
    memcpy(params->owner, owner, sizeof(params->owner));
    return 0;
}

bool dxclunix_signals_lock_busy(void)
{
    if (pthread_mutex_trylock(&signals_lock))
        return true;
    pthread_mutex_unlock(&signals_lock);
    return false;
}
