/* Direct3D's waits for OpenCL's releases, bounded (core/twin.h). A hand-out makes Direct3D's
 * queue wait for a value of the twin's release timeline (twins.c keeps how each value ended and
 * signals them in order). The value ends from the host: when dxcl's Unix side sees OpenCL's
 * release done (dxcl_layer_released, from the driver's event callback), or, failing that, when
 * its bound passed: a thread of the layer's, which also sweeps the graves. */
#define _GNU_SOURCE
#include "twins.h"

#include <errno.h>
#include <time.h>

uint64_t releases_bound_ns(void)
{
    return layer_setting_count("DXCL_GPU_WAIT_BOUND_MS", DXCL_TWIN_WAIT_BOUND_MS) * 1000000u;
}

EXPORT int32_t dxcl_layer_released(void *params)
{
    const struct dxcl_layer_released *released = params;
    struct twin *twin;
    struct device *device;

    releases_unwatch(released->twin, released->value);
    if (!twin_and_device(released->twin, &twin, &device, NULL))
        return 0; /* given up: its releases ended then */
    twin_resolve(twin, released->value,
                 released->status < 0 ? DXCL_RELEASE_FAILED : DXCL_RELEASE_DONE, released->status);
    device_put(device);
    twin_put(twin);
    return 0;
}

/* ---- The bound: a thread of the layer's ends what is late, and frees the graves ---- */

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_changed;
static struct release_watch *watches;
static size_t watch_count, watch_capacity;
static bool timer_running;

static void *timer_main(void *arg);

static void start_timer(void)
{
    pthread_condattr_t attr;
    pthread_t thread;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&watch_changed, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&thread, NULL, timer_main, NULL) == 0) {
        pthread_detach(thread);
        timer_running = true;
    }
}

void releases_watch(const struct release_watch *watch)
{
    struct release_watch *room;

    pthread_mutex_lock(&watch_lock);
    if (!timer_running)
        start_timer();
    if ((room = layer_room(watches, watch_count, &watch_capacity, sizeof(*room), 32))) {
        watches = room;
        watches[watch_count++] = *watch;
    } else /* no room: its bound is the next watch's, or the twin's end */
        layer_note("twin %" PRIu64 ": release %" PRIu64 " unwatched (out of memory)", watch->twin,
                   watch->value);
    pthread_cond_signal(&watch_changed);
    pthread_mutex_unlock(&watch_lock);
}

void releases_wake(void)
{
    pthread_mutex_lock(&watch_lock);
    if (!timer_running)
        start_timer();
    pthread_cond_signal(&watch_changed);
    pthread_mutex_unlock(&watch_lock);
}

void releases_unwatch(uint64_t twin, uint64_t value)
{
    pthread_mutex_lock(&watch_lock);
    for (size_t i = 0; i < watch_count; i++)
        if (watches[i].twin == twin && watches[i].value == value) {
            watches[i] = watches[--watch_count];
            break;
        }
    pthread_mutex_unlock(&watch_lock);
}

/* Takes out one watch past its deadline, or says when the next one is due. */
static bool take_late(uint64_t now, struct release_watch *late, uint64_t *next_due)
{
    *next_due = UINT64_MAX;
    for (size_t i = 0; i < watch_count; i++) {
        if (watches[i].deadline_ns <= now) {
            *late = watches[i];
            watches[i] = watches[--watch_count];
            return true;
        }
        if (watches[i].deadline_ns < *next_due)
            *next_due = watches[i].deadline_ns;
    }
    return false;
}

static void end_late(const struct release_watch *late)
{
    struct twin *twin;
    struct device *device;

    if (!twin_and_device(late->twin, &twin, &device, NULL))
        return;
    twin_resolve(twin, late->value, DXCL_RELEASE_FAILED, -1);
    device_put(device);
    twin_put(twin);
}

static void *timer_main(void *arg)
{
    const uint64_t sweep_ns = 100000000; /* the graves, every 100 ms while there are some */

    (void)arg;
    pthread_mutex_lock(&watch_lock);
    for (;;) {
        struct release_watch late;
        uint64_t next_due, now = layer_now_ns();
        struct timespec until;

        if (take_late(now, &late, &next_due)) {
            pthread_mutex_unlock(&watch_lock);
            end_late(&late);
            pthread_mutex_lock(&watch_lock);
            continue;
        }
        pthread_mutex_unlock(&watch_lock);
        if (graves_sweep() && next_due > now + sweep_ns)
            next_due = now + sweep_ns;
        pthread_mutex_lock(&watch_lock);
        if (next_due == UINT64_MAX) {
            pthread_cond_wait(&watch_changed, &watch_lock);
            continue;
        }
        until.tv_sec = (time_t)(next_due / 1000000000u);
        until.tv_nsec = (long)(next_due % 1000000000u);
        pthread_cond_timedwait(&watch_changed, &watch_lock, &until);
    }
    return NULL;
}
