/* Event watches (dxclunix.h, "Event watches"; docs/design.md, "The waiter"): the standard Wine
 * pattern for a host callback. The host driver calls watch_fired, a function of the Unix half,
 * when a watched event completes; it only queues the event. A PE thread (dxcl's watch thread,
 * src/core/watch.c) sits in DXCLUNIX_WAIT_WATCHED, which returns once something is queued, and
 * wakes dxcl's waiter. No PE code is ever called from a host thread.
 *
 * The lock is taken around the queue only (the waits release it): the reads and writes of the
 * PE half's parameters and the host calls (clRetainEvent, clSetEventCallback, clReleaseEvent)
 * are made without it, so a fault in any of them leaves it free. */
#define _GNU_SOURCE
#include "dxclunix_so.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct host_fired {
    cl_event event; /* retained by the watch */
    struct host_fired *next;
};

static pthread_mutex_t host_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;
static struct host_fired *fired_head; /* guarded by host_watch_lock */
static bool watcher_woken;            /* guarded by host_watch_lock */

static void init_cond(void)
{
    pthread_condattr_t attr;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&watch_cond, &attr);
    pthread_condattr_destroy(&attr);
}

/* On a host driver thread: queues the event, nothing more. */
static void CL_CALLBACK watch_fired(cl_event event, cl_int status, void *data)
{
    struct host_fired *fired = data;

    (void)event, (void)status;
    pthread_mutex_lock(&host_watch_lock);
    fired->next = fired_head;
    fired_head = fired;
    pthread_cond_signal(&watch_cond);
    pthread_mutex_unlock(&host_watch_lock);
}

/* Registers the watch of `event`: the host's clSetEventCallback result. */
static cl_int watch_event(cl_event event)
{
    __typeof__(&clRetainEvent) retain =
        (__typeof__(&clRetainEvent))dxclunix_host_function(DXCLUNIX_API_clRetainEvent);
    __typeof__(&clReleaseEvent) release =
        (__typeof__(&clReleaseEvent))dxclunix_host_function(DXCLUNIX_API_clReleaseEvent);
    __typeof__(&clSetEventCallback) set_callback =
        (__typeof__(&clSetEventCallback))dxclunix_host_function(DXCLUNIX_API_clSetEventCallback);
    struct host_fired *fired;
    cl_int err;

    if (!retain || !release || !set_callback)
        return CL_INVALID_OPERATION;
    if ((err = retain(event)) != CL_SUCCESS)
        return err;
    if (!(fired = malloc(sizeof(*fired)))) {
        release(event);
        return CL_OUT_OF_HOST_MEMORY;
    }
    fired->event = event;
    if ((err = set_callback(event, CL_COMPLETE, watch_fired, fired)) != CL_SUCCESS) {
        release(event);
        free(fired);
    }
    return err;
}

NTSTATUS dxclunix_watch(void *args)
{
    struct dxclunix_watch *params = args;
    cl_event event;

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    pthread_once(&watch_once, init_cond);
    event = (cl_event)(uintptr_t)params->event;
    params->status = event ? watch_event(event) : CL_INVALID_EVENT;
    return 0;
}

/* Waits (with host_watch_lock held) until something is queued or watcher_woken, or `timeout_ms`
 * passed. */
static void wait_queue(uint32_t timeout_ms)
{
    struct timespec until;

    if (timeout_ms == DXCLUNIX_WAIT_FOREVER) {
        while (!fired_head && !watcher_woken)
            pthread_cond_wait(&watch_cond, &host_watch_lock);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    while (!fired_head && !watcher_woken)
        if (pthread_cond_timedwait(&watch_cond, &host_watch_lock, &until) == ETIMEDOUT)
            return;
}

NTSTATUS dxclunix_wait_watched(void *args)
{
    struct dxclunix_watched *params = args;
    __typeof__(&clReleaseEvent) release =
        (__typeof__(&clReleaseEvent))dxclunix_host_function(DXCLUNIX_API_clReleaseEvent);
    struct host_fired *taken = NULL, *next;
    uint32_t timeout_ms, count = 0, was_woken;
    uint64_t events[DXCLUNIX_WATCHED_MAX];

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    timeout_ms = params->timeout_ms;
    pthread_once(&watch_once, init_cond);
    pthread_mutex_lock(&host_watch_lock);
    wait_queue(timeout_ms);
    while (fired_head && count < DXCLUNIX_WATCHED_MAX) {
        next = fired_head->next;
        fired_head->next = taken;
        taken = fired_head;
        fired_head = next;
        count++;
    }
    was_woken = watcher_woken;
    watcher_woken = false;
    pthread_mutex_unlock(&host_watch_lock);
    for (count = 0; taken; taken = next, count++) {
        next = taken->next;
        events[count] = (uint64_t)(uintptr_t)taken->event;
        if (release)
            release(taken->event);
        free(taken);
    }
    for (uint32_t i = 0; i < count; i++)
        params->events[i] = events[i];
    params->count = count;
    params->woken = was_woken;
    return 0;
}

NTSTATUS dxclunix_wake_watcher(void *args)
{
    (void)args;
    pthread_once(&watch_once, init_cond);
    pthread_mutex_lock(&host_watch_lock);
    watcher_woken = true;
    pthread_cond_broadcast(&watch_cond);
    pthread_mutex_unlock(&host_watch_lock);
    return 0;
}

bool dxclunix_watch_lock_busy(void)
{
    if (pthread_mutex_trylock(&host_watch_lock))
        return true;
    pthread_mutex_unlock(&host_watch_lock);
    return false;
}
