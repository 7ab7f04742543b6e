/* Event watches (core/watch.h; docs/design.md, "The waiter"): the waiter sleeps until an event
 * it waits for completes. The first watch chooses how the driver tells, once per process:
 *   - the Unix side (dxclunixWatchEvent): the host driver calls a function of the Unix half
 *     back, which queues the event; dxcl's watch thread, blocked in dxclunixWaitWatched (a Unix
 *     call that returns once something is queued), wakes the waiter. No PE code ever runs on a
 *     host thread: the standard Wine pattern for host callbacks;
 *   - a driver whose clSetEventCallback works (a Windows driver, another dxcl): its callback
 *     queues the event and wakes the waiter;
 *   - otherwise (Wine's opencl.dll refuses callbacks): a thread-pool thread blocks in
 *     clWaitForEvents on the event, then wakes the waiter; but where that wait spins (NVIDIA's:
 *     a core for every pending event), one thread looks at every watched event's status instead,
 *     from 50 us to 500 us apart (the spin probe at the first such watch decides; DXCL_WATCH_POLL
 *     =1 chooses that thread at once, =0 never).
 * Each event is watched once at a time (a set of them, under the watch lock, which guards the
 * set alone: the driver is called outside it), and retained until it completed. */
#include "core/watch.h"
#include "core/driver.h"
#include "core/env.h"
#include "core/lock.h"
#include "core/log.h"
#include "core/table.h"
#include "core/waiter.h"

#include <malloc.h>
#include <stdlib.h>

enum route { ROUTE_UNKNOWN, ROUTE_UNIX, ROUTE_CALLBACK, ROUTE_THREAD, ROUTE_POLL, ROUTE_NONE };
static const char *const route_names[] = {"not used yet",
                                          "the Unix side's event watches",
                                          "the driver's event callbacks",
                                          "threads waiting in clWaitForEvents",
                                          "one thread looking at the events",
                                          "none"};

static volatile LONG route = ROUTE_UNKNOWN;
static INIT_ONCE route_once = INIT_ONCE_STATIC_INIT;
static SRWLOCK watch_lock = SRWLOCK_INIT;
static struct dxcl_table watched; /* cl_event -> (void *)1, guarded by watch_lock */

/* The pair's watches (src/unix/pe/dxclunix_pe.c); WATCHED_MAX events at most per wait. */
#define WATCHED_MAX 64
typedef cl_int(WINAPI *pair_watch_fn)(cl_event event);
typedef DWORD(WINAPI *pair_wait_fn)(DWORD timeout_ms, cl_event *events, BOOL *woken);
static pair_watch_fn pair_watch;
static pair_wait_fn pair_wait;

/* A thread asleep in dxcl_watch_wait until `event` completes; on the calling thread's stack. */
struct sleeper {
    cl_event event;
    HANDLE wake;
    struct sleeper *next;
};
static struct sleeper *sleepers; /* guarded by watch_lock */

/* An event the driver's callback delivered, on its way to dxcl_watch_collect. */
struct fired {
    SLIST_ENTRY entry; /* first: MEMORY_ALLOCATION_ALIGNMENT */
    cl_event event;
};
static SLIST_HEADER fired_events;

/* This file's switches, each read once: DXCL_RELEASE_WAIT=sleep and =poll (a release's own wait:
 * asleep on the watch, or looking every POLL_STEP_US), DXCL_WATCH_POLL=1 (one thread looks at
 * the events from the start, the thread route never taken) and =0 (no spin probe). */
enum watch_switch { RELEASE_ASLEEP, RELEASE_POLLING, LOOKS_FORCED, PROBE_OFF, WATCH_SWITCHES };

static bool switched_on(enum watch_switch which)
{
    static const struct {
        const char *name, *value;
    } switches[WATCH_SWITCHES] = {{"RELEASE_WAIT", "sleep"},
                                  {"RELEASE_WAIT", "poll"},
                                  {"WATCH_POLL", "1"},
                                  {"WATCH_POLL", "0"}};
    static volatile LONG cached[WATCH_SWITCHES];

    return dxcl_setting_is(&cached[which], switches[which].name, switches[which].value);
}

static cl_int event_status(cl_event event)
{
    cl_int status = CL_COMPLETE;

    dxcl_driver()->clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                                  NULL);
    return status;
}

typedef LONG(NTAPI *delay_fn)(BOOLEAN alertable, const LARGE_INTEGER *interval);

/* Sleeps `us` microseconds (0: only says whether it can): NtDelayExecution, not Sleep, whose unit
 * is the millisecond; a wait that is not alertable sleeps in the host's kernel, with no Wine
 * server round trip. False where ntdll has none. */
static bool sleep_us(unsigned us)
{
    static delay_fn delay;
    LARGE_INTEGER interval = {.QuadPart = -(LONGLONG)us * 10}; /* relative, 100 ns units */

    if (!delay)
        delay = (delay_fn)(void *)GetProcAddress(GetModuleHandleA("ntdll.dll"), "NtDelayExecution");
    if (!delay)
        return false;
    if (us)
        delay(FALSE, &interval);
    return true;
}

/* Adds `event` to the set: 1 when it was not there, 0 when it is watched already, -1 when out
 * of memory. */
static int claim(cl_event event)
{
    int claimed;

    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    claimed = dxcl_table_get(&watched, event)              ? 0
              : dxcl_table_put(&watched, event, (void *)1) ? 1
                                                           : -1;
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    return claimed;
}

static void forget(cl_event event)
{
    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    dxcl_table_remove(&watched, event);
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
}

/* The threads asleep until `event` completes wake (it did, or failed). No lock where none sleeps
 * (without DXCL_RELEASE_WAIT=sleep, always): a sleeper that registers after this look sees the
 * event complete before it sleeps. */
static void wake_sleepers(cl_event event)
{
    if (!InterlockedCompareExchangePointer((void *volatile *)&sleepers, NULL, NULL))
        return;
    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, false, __func__);
    for (struct sleeper *s = sleepers; s; s = s->next)
        if (s->event == event)
            SetEvent(s->wake);
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, false, __func__);
}

/* The Unix side's watch thread: forgets what completed, and wakes the waiter. */
static DWORD WINAPI watch_thread(void *unused)
{
    cl_event events[WATCHED_MAX];

    (void)unused;
    for (;;) {
        BOOL woken = FALSE;
        DWORD count = pair_wait(INFINITE, events, &woken);

        if (count == (DWORD)-1 || count > WATCHED_MAX) {
            DXCL_LOG("watches: the Unix side's wait failed; the waiter polls instead");
            InterlockedExchange(&route, ROUTE_NONE);
            return 0;
        }
        for (DWORD i = 0; i < count; i++) {
            forget(events[i]);
            wake_sleepers(events[i]);
        }
        if (count)
            dxcl_waiter_wake();
    }
}

/* The pair's watches, where the driver is the Unix side; its thread pins nothing: the waiter
 * pinned dxcl already (dxcl_watch_event starts it first). */
static bool unix_route(void)
{
    HANDLE thread;

    pair_watch = (pair_watch_fn)dxcl_driver_export("dxclunixWatchEvent");
    pair_wait = (pair_wait_fn)dxcl_driver_export("dxclunixWaitWatched");
    if (!pair_watch || !pair_wait || !(thread = CreateThread(NULL, 0, watch_thread, NULL, 0, NULL)))
        return false;
    CloseHandle(thread);
    return true;
}

static BOOL CALLBACK choose_route(INIT_ONCE *once, void *param, void **context)
{
    const struct dxcl_driver *drv = dxcl_driver();

    (void)once, (void)param, (void)context;
    InitializeSListHead(&fired_events);
    if (unix_route())
        route = ROUTE_UNIX;
    else if (drv->clSetEventCallback && drv->clRetainEvent && drv->clReleaseEvent)
        route = ROUTE_CALLBACK; /* until the driver refuses one */
    else if (drv->clWaitForEvents && drv->clRetainEvent && drv->clReleaseEvent)
        route = switched_on(LOOKS_FORCED) ? ROUTE_POLL : ROUTE_THREAD;
    else
        route = ROUTE_NONE;
    DXCL_LOG("watches: the waiter learns of completed events through %s", route_names[route]);
    return TRUE;
}

/* The driver cannot call back: threads wait for the events from now on. */
static void fall_back(LONG from)
{
    LONG to = switched_on(LOOKS_FORCED) ? ROUTE_POLL : ROUTE_THREAD;

    if (InterlockedCompareExchange(&route, to, from) == from)
        DXCL_LOG("watches: %s refused a watch; %s instead", route_names[from], route_names[to]);
}

static void CL_CALLBACK callback_fired(cl_event event, cl_int status, void *data)
{
    struct fired *fired = data;

    (void)status;
    wake_sleepers(event);
    InterlockedPushEntrySList(&fired_events, &fired->entry);
    dxcl_waiter_wake();
}

/* The driver's callback; CL_INVALID_OPERATION when it cannot call back. */
static cl_int watch_by_callback(cl_event event)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct fired *fired = _aligned_malloc(sizeof(*fired), MEMORY_ALLOCATION_ALIGNMENT);
    cl_int err;

    if (!fired)
        return CL_OUT_OF_HOST_MEMORY;
    fired->event = event;
    if ((err = drv->clRetainEvent(event)) != CL_SUCCESS) {
        _aligned_free(fired);
        return err;
    }
    if ((err = drv->clSetEventCallback(event, CL_COMPLETE, callback_fired, fired)) != CL_SUCCESS) {
        drv->clReleaseEvent(event);
        _aligned_free(fired);
    }
    return err;
}

static DWORD WINAPI wait_in_thread(void *param)
{
    cl_event event = param;

    dxcl_driver()->clWaitForEvents(1, &event);
    forget(event);
    wake_sleepers(event);
    dxcl_driver()->clReleaseEvent(event);
    dxcl_waiter_wake();
    return 0;
}

/* ---- One thread looking at the events, where the driver's wait spins ---- */

/* The looks' steps: from the first, doubled while nothing completes, to the last (which bounds
 * how late a completion is seen, and what a pending event costs: a look every 500 us). */
#define LOOK_FIRST_US 50
#define LOOK_LAST_US 500

struct looked_at {
    cl_event event; /* retained */
    struct looked_at *next;
};
static struct looked_at *new_looks; /* guarded by watch_lock */
static HANDLE looks_wake;           /* set when new_looks gets one */
static INIT_ONCE looker_once = INIT_ONCE_STATIC_INIT;

/* Takes the new watches into `mine`; true when there were any. */
static bool take_new_looks(struct looked_at **mine)
{
    struct looked_at *taken, *last;

    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    taken = new_looks;
    new_looks = NULL;
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    if (!taken)
        return false;
    for (last = taken; last->next; last = last->next)
        ;
    last->next = *mine;
    *mine = taken;
    return true;
}

/* Looks at each event of `mine` once; those that completed (or failed) end as a fired watch's
 * do. True when one did. */
static bool look_once(struct looked_at **mine)
{
    struct looked_at **link = mine, *done;
    bool progress = false;

    while (*link) {
        if (event_status((*link)->event) > CL_COMPLETE) {
            link = &(*link)->next;
            continue;
        }
        done = *link;
        *link = done->next;
        forget(done->event);
        wake_sleepers(done->event);
        dxcl_driver()->clReleaseEvent(done->event);
        free(done);
        progress = true;
    }
    return progress;
}

/* How long the thread sleeps after a round of looks that took `round_us`: the step, or three
 * times the round where many events are pending (each look is a driver call: 10,000 pending
 * events take NVIDIA 10-20 ms a round), so that looking takes at most a quarter of a core and
 * leaves the driver's lock to the program's own calls most of the time. */
static unsigned rest_us(unsigned step, ULONGLONG round_us)
{
    return round_us * 3 > step ? (unsigned)(round_us * 3 > 1000000 ? 1000000 : round_us * 3) : step;
}

static DWORD WINAPI looker_thread(void *unused)
{
    struct looked_at *mine = NULL;
    unsigned step = LOOK_FIRST_US;
    LARGE_INTEGER frequency, start, end;

    (void)unused;
    QueryPerformanceFrequency(&frequency);
    for (;;) {
        if (take_new_looks(&mine))
            step = LOOK_FIRST_US;
        if (!mine) {
            WaitForSingleObject(looks_wake, INFINITE);
            continue;
        }
        QueryPerformanceCounter(&start);
        if (look_once(&mine)) {
            dxcl_waiter_wake();
            step = LOOK_FIRST_US;
        } else {
            step = step * 2 > LOOK_LAST_US ? LOOK_LAST_US : step * 2;
        }
        QueryPerformanceCounter(&end);
        if (mine)
            sleep_us(rest_us(step, (ULONGLONG)(end.QuadPart - start.QuadPart) * 1000000 /
                                       (ULONGLONG)frequency.QuadPart));
    }
    return 0;
}

static BOOL CALLBACK start_looker(INIT_ONCE *once, void *param, void **context)
{
    HANDLE thread = NULL;

    (void)once, (void)param, (void)context;
    if (sleep_us(0) && (looks_wake = CreateEventW(NULL, FALSE, FALSE, NULL)) &&
        (thread = CreateThread(NULL, 0, looker_thread, NULL, 0, NULL)))
        CloseHandle(thread);
    return thread != NULL;
}

static bool watch_by_looks(cl_event event)
{
    struct looked_at *look;

    if (!InitOnceExecuteOnce(&looker_once, start_looker, NULL, NULL) ||
        !(look = malloc(sizeof(*look))))
        return false;
    if (dxcl_driver()->clRetainEvent(event) != CL_SUCCESS) {
        free(look);
        return false;
    }
    look->event = event;
    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    look->next = new_looks;
    new_looks = look;
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    SetEvent(looks_wake);
    return true;
}

/* The spin probe: how much CPU a thread uses in 50 ms of clWaitForEvents on a user event of the
 * context. A wait that sleeps uses none; one that spins gets a fifth of a core or more even on a
 * busy machine (two other programs on two cores). GetThreadTimes counts in the host's clock ticks
 * (10 ms), so one tick or more is a wait that spins: from then on one thread looks at the events.
 * While the probe runs, watches are looked at too (right for any driver): threads that spin would
 * take the CPU the probe's own thread needs to show it spins. */
#define PROBE_MS 50
#define PROBE_SPINS_100NS (10 * 10000)

static volatile LONG probe_state; /* 0: not started, 1: under way, 2: decided */

static DWORD WINAPI probe_waits(void *param)
{
    cl_event user = param;

    dxcl_driver()->clWaitForEvents(1, &user);
    return 0;
}

static ULONGLONG thread_cpu_100ns(HANDLE thread)
{
    FILETIME created, exited, kernel, user;
    ULARGE_INTEGER k, u;

    if (!GetThreadTimes(thread, &created, &exited, &kernel, &user))
        return 0;
    k.LowPart = kernel.dwLowDateTime, k.HighPart = kernel.dwHighDateTime;
    u.LowPart = user.dwLowDateTime, u.HighPart = user.dwHighDateTime;
    return k.QuadPart + u.QuadPart;
}

static DWORD WINAPI probe_spin(void *param)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_context context = param;
    ULONGLONG used = 0;
    HANDLE waiter = NULL;
    cl_event user;
    cl_int err;

    user = drv->clCreateUserEvent(context, &err);
    if (user && (waiter = CreateThread(NULL, 0, probe_waits, user, 0, NULL))) {
        Sleep(PROBE_MS);
        used = thread_cpu_100ns(waiter);
    }
    if (user)
        drv->clSetUserEventStatus(user, CL_COMPLETE);
    if (waiter) {
        WaitForSingleObject(waiter, INFINITE);
        CloseHandle(waiter);
    }
    if (user)
        drv->clReleaseEvent(user);
    drv->clReleaseContext(context);
    if (used >= PROBE_SPINS_100NS &&
        InterlockedCompareExchange(&route, ROUTE_POLL, ROUTE_THREAD) == ROUTE_THREAD)
        DXCL_LOG("watches: the driver's clWaitForEvents spins (%llu ms of CPU in a %d ms wait): "
                 "from now on %s",
                 used / 10000, PROBE_MS, route_names[ROUTE_POLL]);
    else
        DXCL_LOG("watches: the driver's clWaitForEvents sleeps (%llu ms of CPU in a %d ms wait)",
                 used / 10000, PROBE_MS);
    InterlockedExchange(&probe_state, 2);
    return 0;
}

/* Once, at the first watch by a thread: the spin probe on the event's context, on a pool thread
 * of its own (the watch itself goes on at once, looked at). Where it cannot run, threads wait. */
static void probe_once(cl_event event)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_context context = NULL;

    if (InterlockedCompareExchange(&probe_state, 1, 0) != 0)
        return;
    if (switched_on(PROBE_OFF) || !drv->clCreateUserEvent || !drv->clSetUserEventStatus ||
        !drv->clRetainContext || !drv->clReleaseContext ||
        drv->clGetEventInfo(event, CL_EVENT_CONTEXT, sizeof(context), &context, NULL) !=
            CL_SUCCESS ||
        !context || drv->clRetainContext(context) != CL_SUCCESS) {
        InterlockedExchange(&probe_state, 2);
        return;
    }
    if (!QueueUserWorkItem(probe_spin, context, WT_EXECUTELONGFUNCTION)) {
        drv->clReleaseContext(context);
        InterlockedExchange(&probe_state, 2);
    }
}

static bool watch_by_thread(cl_event event)
{
    const struct dxcl_driver *drv = dxcl_driver();

    probe_once(event);
    if (probe_state != 2) /* the probe is under way */
        return watch_by_looks(event);
    if (drv->clRetainEvent(event) != CL_SUCCESS)
        return false;
    if (QueueUserWorkItem(wait_in_thread, event, WT_EXECUTELONGFUNCTION))
        return true;
    drv->clReleaseEvent(event);
    return false;
}

static bool watch_by_route(cl_event event)
{
    for (;;) {
        LONG now = route;
        cl_int err;

        switch (now) {
        case ROUTE_UNIX:
            if ((err = pair_watch(event)) != CL_INVALID_OPERATION)
                return err == CL_SUCCESS;
            fall_back(now);
            break;
        case ROUTE_CALLBACK:
            if ((err = watch_by_callback(event)) != CL_INVALID_OPERATION)
                return err == CL_SUCCESS;
            fall_back(now);
            break;
        case ROUTE_THREAD:
            return watch_by_thread(event);
        case ROUTE_POLL:
            return watch_by_looks(event);
        default:
            return false;
        }
    }
}

bool dxcl_watch_event(cl_event event)
{
    int claimed;

    if (!event || !dxcl_waiter_start())
        return false;
    InitOnceExecuteOnce(&route_once, choose_route, NULL, NULL);
    if ((claimed = claim(event)) <= 0)
        return claimed == 0;
    if (watch_by_route(event))
        return true;
    forget(event);
    return false;
}

bool dxcl_waiter_poll_event(bool (*poll)(void *arg), void *arg, cl_event event)
{
    dxcl_watch_event(event);
    return dxcl_waiter_poll(poll, arg);
}

/* Each round of the waiter lets go of the events that completed since the last, where the
 * driver's own callback delivered them. */
static bool collect_fired(DWORD *max_wait_ms)
{
    PSLIST_ENTRY entry = InterlockedFlushSList(&fired_events);

    while (entry) {
        struct fired *fired = (struct fired *)entry;

        entry = entry->Next;
        forget(fired->event);
        dxcl_driver()->clReleaseEvent(fired->event);
        _aligned_free(fired);
    }
    *max_wait_ms = 0;
    return false;
}
static struct dxcl_waiter_source collect_source = {collect_fired, NULL};
DXCL_WAITER_SOURCE(collect_source)

/* The step between two looks at the event's status in a polling wait: short against a release's
 * downloads (a 1080p image takes 0.5-2 ms), long against a look (a few microseconds). */
#define POLL_STEP_US 50

/* DXCL_RELEASE_WAIT=poll: the calling thread looks at the event's status, and sleeps
 * POLL_STEP_US between looks (sleep_us). The event's queue is flushed first, since a look,
 * unlike clWaitForEvents, does not flush. False where ntdll has no NtDelayExecution (the caller
 * waits in the driver). */
static bool poll_wait(cl_event event, cl_int *status)
{
    cl_command_queue queue = NULL;

    if (!sleep_us(0))
        return false;
    if (dxcl_driver()->clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof(queue), &queue, NULL) ==
            CL_SUCCESS &&
        queue)
        dxcl_driver()->clFlush(queue);
    while ((*status = event_status(event)) > CL_COMPLETE)
        sleep_us(POLL_STEP_US);
    return true;
}

cl_int dxcl_watch_wait(cl_event event)
{
    struct sleeper me = {event, NULL, NULL}, **link;
    cl_int status;

    if (switched_on(RELEASE_POLLING) && poll_wait(event, &status))
        return status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
    if (!switched_on(RELEASE_ASLEEP) || !(me.wake = CreateEventW(NULL, FALSE, FALSE, NULL)))
        return dxcl_driver()->clWaitForEvents(1, &event);
    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    me.next = sleepers;
    sleepers = &me;
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    /* Registered before the watch and before each look at the status: a watch that fires in
     * between leaves the wake set. The timeout is a backstop only. */
    if (dxcl_watch_event(event))
        while ((status = event_status(event)) > CL_COMPLETE)
            WaitForSingleObject(me.wake, 20);
    dxcl_take(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    for (link = &sleepers; *link != &me; link = &(*link)->next)
        ;
    *link = me.next;
    dxcl_leave(&watch_lock, DXCL_LOCK_WATCH, true, __func__);
    CloseHandle(me.wake);
    status = event_status(event);
    if (status > CL_COMPLETE) /* no watch could be set */
        return dxcl_driver()->clWaitForEvents(1, &event);
    return status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

const char *dxcl_watch_wait_text(void)
{
    if (switched_on(RELEASE_POLLING))
        return "a release that waits for its downloads looks at them every 50 us and sleeps in "
               "between (DXCL_RELEASE_WAIT=poll)";
    if (switched_on(RELEASE_ASLEEP))
        return "a release that waits for its downloads sleeps until their watch fires "
               "(DXCL_RELEASE_WAIT=sleep)";
    return "a release that waits for its downloads waits in the driver";
}

const char *dxcl_watch_route(void)
{
    return route_names[route];
}
