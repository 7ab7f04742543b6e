/* Direct3D's waits for OpenCL's releases, bounded (core/twin.h). A hand-out makes Direct3D's
 * queue wait for a value of the twin's release timeline (a timeline semaphore of the layer's, so
 * that the wait may be submitted before anything signals it). The value is signalled from the
 * host: when dxcl's Unix side sees OpenCL's release done (dxcl_layer_released, from the driver's
 * event callback), or, failing that, when the bound passed (a thread of the layer's). Values end
 * in order: a value is signalled once it and every earlier one ended, so that Direct3D never goes
 * past a release OpenCL has not finished. A release that failed or timed out is said in one
 * line; dxcl reads how it ended (dxcl_layer_release_state). */
#define _GNU_SOURCE
#include "twins.h"

#include <errno.h>
#include <time.h>

uint64_t releases_bound_ns(void)
{
    const char *setting = dxcl_host_setting("DXCL_GPU_WAIT_BOUND_MS");
    char *end;
    unsigned long ms = setting ? strtoul(setting, &end, 10) : 0;

    if (!setting || !*setting || *end || !ms)
        ms = DXCL_TWIN_WAIT_BOUND_MS;
    return (uint64_t)ms * 1000000u;
}

/* DXCL_GPU_READY_AHEAD=<n>: TWIN_READY_AHEAD, read once. */
uint64_t releases_ready_ahead(void)
{
    static _Atomic uint64_t ahead;
    const char *setting;
    char *end;
    unsigned long n;

    if (ahead)
        return ahead;
    setting = dxcl_host_setting("DXCL_GPU_READY_AHEAD");
    n = setting ? strtoul(setting, &end, 10) : 0;
    ahead = setting && *setting && !*end && n ? n : TWIN_READY_AHEAD;
    return ahead;
}

/* ---- A twin's release values (the caller holds the twin's lock) ---- */

static struct release_outcome *outcome_of(struct twin *twin, uint64_t value)
{
    for (uint32_t i = 0; i < twin->outcome_count; i++)
        if (twin->outcomes[i].value == value)
            return &twin->outcomes[i];
    return NULL;
}

/* Signals the twin's timeline up to the last value before the first still pending. */
static void signal_contiguous(struct twin *twin)
{
    struct device *device = twin->device;
    uint64_t target = twin->release_issued;
    VkSemaphoreSignalInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                  .semaphore = twin->release};
    VkResult result;

    for (uint32_t i = 0; i < twin->outcome_count; i++)
        if (twin->outcomes[i].value && twin->outcomes[i].state == DXCL_RELEASE_PENDING &&
            twin->outcomes[i].value - 1 < target)
            target = twin->outcomes[i].value - 1;
    if (target <= twin->release_signalled || !twin->release)
        return;
    info.value = target;
    if ((result = device->vk.signal_semaphore(device->handle, &info)))
        layer_note("twin %" PRIu64 ": vkSignalSemaphore of release %" PRIu64 ": %d", twin->id,
                   target, result);
    else
        twin->release_signalled = target;
}

static void resolve_locked(struct twin *twin, uint64_t value, int32_t state, int32_t status)
{
    struct release_outcome *outcome = outcome_of(twin, value);

    if (!outcome || outcome->state != DXCL_RELEASE_PENDING)
        return;
    outcome->state = state;
    outcome->status = status;
    if (state == DXCL_RELEASE_FAILED && value > twin->ended_early)
        twin->ended_early = value;
    else if (state == DXCL_RELEASE_DONE && value > twin->ended_early)
        twin->ended_early = 0; /* OpenCL's queue passed the early one's wait for `ready` */
    if (state == DXCL_RELEASE_FAILED)
        layer_note("twin %" PRIu64 ": release %" PRIu64 " %s: Direct3D goes on without OpenCL's "
                   "writes",
                   twin->id, value,
                   status == -1   ? "was not done within its bound (DXCL_GPU_WAIT_BOUND_MS)"
                   : status == -2 ? "ended: too many releases pending"
                                  : "failed on OpenCL's side");
    signal_contiguous(twin);
}

/* Room for one more outcome: the outcomes doubled, up to the most; NULL when none is left. */
static struct release_outcome *grow_outcomes(struct twin *twin)
{
    uint32_t had = twin->outcome_count, count = had ? 2 * had : TWIN_OUTCOMES_FIRST;
    struct release_outcome *grown;

    if (had >= TWIN_OUTCOMES_MOST || !(grown = realloc(twin->outcomes, count * sizeof(*grown))))
        return NULL;
    memset(grown + had, 0, (count - had) * sizeof(*grown));
    twin->outcomes = grown;
    twin->outcome_count = count;
    return &grown[had];
}

uint64_t twin_issue_release(struct twin *twin)
{
    struct release_outcome *unused = NULL, *ended = NULL, *pending = NULL, *slot;

    /* A slot unused, else the oldest ended, else a new one; past the most, the oldest pending
     * ends now. */
    for (uint32_t i = 0; i < twin->outcome_count; i++) {
        struct release_outcome *o = &twin->outcomes[i];
        if (!o->value)
            unused = unused ? unused : o;
        else if (o->state != DXCL_RELEASE_PENDING)
            ended = !ended || o->value < ended->value ? o : ended;
        else
            pending = !pending || o->value < pending->value ? o : pending;
    }
    slot = unused ? unused : ended ? ended : NULL;
    if (!slot && !(slot = grow_outcomes(twin))) {
        if (!pending)
            return 0; /* no memory for the first: nothing to wait for */
        slot = pending;
        resolve_locked(twin, slot->value, DXCL_RELEASE_FAILED, -2);
    }
    *slot = (struct release_outcome){++twin->release_issued, DXCL_RELEASE_PENDING, 0};
    return slot->value;
}

bool twin_may_signal_ready(const struct twin *twin)
{
    return !twin->ended_early &&
           twin->release_issued - twin->release_signalled < releases_ready_ahead();
}

void twin_resolve(struct twin *twin, uint64_t value, int32_t state, int32_t status)
{
    pthread_mutex_lock(&twin->lock);
    resolve_locked(twin, value, state, status);
    pthread_mutex_unlock(&twin->lock);
}

void twin_end_releases(struct twin *twin, const char *why)
{
    pthread_mutex_lock(&twin->lock);
    for (uint32_t i = 0; i < twin->outcome_count; i++)
        if (twin->outcomes[i].value && twin->outcomes[i].state == DXCL_RELEASE_PENDING) {
            layer_note("twin %" PRIu64 ": release %" PRIu64 " pending: %s", twin->id,
                       twin->outcomes[i].value, why);
            resolve_locked(twin, twin->outcomes[i].value, DXCL_RELEASE_FAILED, -1);
        }
    pthread_mutex_unlock(&twin->lock);
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

EXPORT int32_t dxcl_layer_release_state(void *params)
{
    struct dxcl_layer_release_state *state = params;
    struct twin *twin = twin_hold(state->twin, NULL);
    struct release_outcome *outcome;

    state->state = DXCL_RELEASE_FAILED;
    state->status = -3; /* no such release */
    if (!twin)
        return -1;
    pthread_mutex_lock(&twin->lock);
    if ((outcome = outcome_of(twin, state->value))) {
        state->state = outcome->state;
        state->status = outcome->status;
    } else if (state->value && state->value <= twin->release_signalled) {
        state->state = DXCL_RELEASE_DONE; /* ended long ago */
        state->status = 0;
    }
    pthread_mutex_unlock(&twin->lock);
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
    pthread_mutex_lock(&watch_lock);
    if (!timer_running)
        start_timer();
    if (watch_count == watch_capacity) {
        size_t capacity = watch_capacity ? 2 * watch_capacity : 32;
        struct release_watch *grown = realloc(watches, capacity * sizeof(*grown));
        if (grown) {
            watches = grown;
            watch_capacity = capacity;
        }
    }
    if (watch_count < watch_capacity)
        watches[watch_count++] = *watch;
    else /* no room: its bound is the next watch's, or the twin's end */
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
