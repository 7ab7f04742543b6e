/* The waiter thread (core/waiter.h). Nothing pending: it sleeps on a condition variable.
 * Something pending: it runs a round (every source, then every poller) when woken: by new
 * work, by a set user event, and by the completion of each event a poller or a source named
 * (core/watch.h: the driver tells, through the Unix side or a callback, or a thread blocked in
 * clWaitForEvents does). Between wakes it also runs rounds on its own, with an exponential
 * backoff from 1 ms up to the least of the sources' limits and a second, reset by progress or
 * new work: the net for work that names no event. It pins dxcl in memory, so nothing ever
 * joins it. */
#include "core/waiter.h"
#include "core/lock.h"
#include "core/log.h"
#include "core/registry.h"

#include <stdlib.h>

/* Work of other layers that waits on the driver (dxcl_waiter_poll). */
struct poller {
    struct poller *next;
    bool (*poll)(void *arg);
    void *arg;
};

static SRWLOCK waiter_lock = SRWLOCK_INIT;
static CONDITION_VARIABLE waiter_wake = CONDITION_VARIABLE_INIT;
static INIT_ONCE waiter_once = INIT_ONCE_STATIC_INIT;
static bool waiter_running;
static bool new_work;              /* guarded by waiter_lock */
static struct poller *new_pollers; /* guarded by waiter_lock */
/* Registered at DLL load, before any thread runs; read-only afterwards. */
static struct dxcl_waiter_source *sources;

#define MAX_WAIT_MS 1000

/* Process exit. Wine ends the other threads (SIGQUIT) before the DLLs' PROCESS_DETACH, but a
 * thread whose SIGQUIT met LLVM's one-shot handler (installed by PoCL's kernel builds, and
 * taken back by dxcl's Unix side: docs/proxy.md, "Signal handlers") lives on, and the Unix exit
 * after the detach tears the driver down under it. From dxcl's detach on, the waiter starts no
 * driver call: the detach sets `exiting` and returns at once (nothing waits or sleeps in
 * DllMain, under the loader lock), and the waiter checks the flag before each source and each
 * poller, so a round that was running when the process began to exit stops at its next step. */
static volatile LONG exiting;

static bool process_exiting(void)
{
    return InterlockedCompareExchange(&exiting, 0, 0) != 0;
}

void dxcl_waiter_process_exit(void)
{
    InterlockedExchange(&exiting, 1);
}

void dxcl_waiter_add_source(struct dxcl_waiter_source *source)
{
    source->next = sources;
    sources = source;
}

/* Calls each poller; keeps those not done yet. */
static bool run_pollers(struct poller **list)
{
    struct poller **link = list, *poller;
    bool progress = false;

    while ((poller = *link) && !process_exiting()) {
        if (!poller->poll(poller->arg)) {
            link = &poller->next;
            continue;
        }
        *link = poller->next;
        free(poller);
        progress = true;
    }
    return progress;
}

/* Runs every source's round; *max_wait_ms is the least of their limits (0: none pending). */
static bool run_sources(DWORD *max_wait_ms)
{
    bool progress = false;

    *max_wait_ms = 0;
    for (struct dxcl_waiter_source *source = sources; source && !process_exiting();
         source = source->next) {
        DWORD wait = 0;

        progress |= source->round(&wait);
        if (wait && (!*max_wait_ms || wait < *max_wait_ms))
            *max_wait_ms = wait;
    }
    return progress;
}

static DWORD WINAPI waiter_main(void *param)
{
    struct poller *pollers = NULL, **tail;
    DWORD backoff_ms = 1, max_wait_ms = 0;

    (void)param;
    dxcl_take(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);
    for (;;) {
        bool progress;

        while (!new_work && !max_wait_ms && !pollers)
            SleepConditionVariableSRW(&waiter_wake, &waiter_lock, INFINITE, 0);
        for (tail = &pollers; *tail; tail = &(*tail)->next)
            ;
        *tail = new_pollers;
        new_pollers = NULL;
        if (new_work)
            backoff_ms = 1;
        new_work = false;
        dxcl_leave(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);

        while (process_exiting())
            Sleep(INFINITE);
        progress = run_sources(&max_wait_ms);
        progress |= run_pollers(&pollers);
        if (pollers && (!max_wait_ms || max_wait_ms > MAX_WAIT_MS))
            max_wait_ms = MAX_WAIT_MS;

        dxcl_take(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);
        backoff_ms = progress ? 1 : backoff_ms * 2;
        if (max_wait_ms && backoff_ms > max_wait_ms)
            backoff_ms = max_wait_ms;
        if (!new_work && max_wait_ms)
            SleepConditionVariableSRW(&waiter_wake, &waiter_lock, backoff_ms, 0);
    }
    return 0;
}

/* The waiter pins dxcl in memory: FreeLibrary then never unmaps code the waiter runs, and the
 * only DLL_PROCESS_DETACH dxcl sees is the process's exit, when Windows already ended the
 * waiter. So nothing joins it, under the loader lock or elsewhere. */
static BOOL CALLBACK start_waiter(INIT_ONCE *once, void *param, void **context)
{
    HMODULE self;
    HANDLE thread;

    (void)once, (void)param, (void)context;
    if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                            (const char *)&waiter_main, &self)) {
        DXCL_LOG("waiter: cannot pin dxcl in memory (error %lu)", GetLastError());
        return TRUE;
    }
    if (!(thread = CreateThread(NULL, 0, waiter_main, NULL, 0, NULL))) {
        DXCL_LOG("waiter: cannot start the waiter thread (error %lu)", GetLastError());
        return TRUE;
    }
    CloseHandle(thread);
    waiter_running = true;
    return TRUE;
}

bool dxcl_waiter_start(void)
{
    InitOnceExecuteOnce(&waiter_once, start_waiter, NULL, NULL);
    return waiter_running;
}

static void wake_waiter(void)
{
    new_work = true;
    WakeConditionVariable(&waiter_wake);
}

bool dxcl_waiter_poll(bool (*poll)(void *arg), void *arg)
{
    struct poller *poller = malloc(sizeof(*poller));

    if (!poller || !dxcl_waiter_start()) {
        free(poller);
        return false;
    }
    poller->poll = poll;
    poller->arg = arg;
    dxcl_take(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);
    poller->next = new_pollers;
    new_pollers = poller;
    wake_waiter();
    dxcl_leave(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);
    return true;
}

void dxcl_waiter_wake(void)
{
    if (!waiter_running)
        return;
    dxcl_take(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);
    wake_waiter();
    dxcl_leave(&waiter_lock, DXCL_LOCK_WAITER, true, __func__);
}

/* A set user event may let pollers' work go on: the next round comes at once. */
static struct dxcl_release_listener user_event_listener = {NULL, dxcl_waiter_wake, NULL};
DXCL_LISTEN_TO_RELEASES(user_event_listener)
