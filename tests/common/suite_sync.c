/* Synchronisation: the events acquire and release return (command type, status, retain and
 * release, profiling), wait lists with a user event, several queues of one context, and
 * CL_CONTEXT_INTEROP_USER_SYNC true and false. */
#include "suites.h"

#include <dxcl/dxcl.h>

#include <stdlib.h>

#define W 16
#define H 8
#define BYTES (W * H * 4)

/* A pair of R32_UINT textures (src, dst) with shared objects; the "xor2" kernel turns src
 * into dst. */
struct pair {
    struct test_texture src, dst;
    cl_mem mems[2];
    cl_kernel kernel;
};

static void open_pair(struct interop_env *env, struct pair *p, uint32_t seed)
{
    struct test_texture_desc desc = {W, H, 1, 1, 1, DXGI_FORMAT_R32_UINT, TEST_USAGE_DEFAULT, 1};
    cl_uint4 mask = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}};
    cl_int err;

    REQUIRE(test_texture_create(env->api, env->d3d, &p->src, &desc, false, seed), "src");
    REQUIRE(test_texture_create(env->api, env->d3d, &p->dst, &desc, false, seed + 1), "dst");
    p->mems[0] =
        env->cl->create_texture2d(env->context, CL_MEM_READ_ONLY, p->src.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "src object: %d", err);
    p->mems[1] =
        env->cl->create_texture2d(env->context, CL_MEM_WRITE_ONLY, p->dst.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "dst object: %d", err);
    p->kernel = interop_kernel(env, "xor2");
    CHECK_ERR(clSetKernelArg(p->kernel, 0, sizeof(cl_mem), &p->mems[0]), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(p->kernel, 1, sizeof(cl_mem), &p->mems[1]), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(p->kernel, 2, sizeof(mask), &mask), CL_SUCCESS);
}

static cl_int run_kernel(cl_command_queue queue, struct pair *p, cl_uint num_events,
                         const cl_event *wait_list, cl_event *event)
{
    size_t global[2] = {W, H};

    return clEnqueueNDRangeKernel(queue, p->kernel, 2, NULL, global, NULL, num_events, wait_list,
                                  event);
}

/* dst holds ~src and src is intact. */
static void check_pair(struct interop_env *env, struct pair *p, const char *what)
{
    const uint32_t *s = p->src.data[0];
    uint32_t *d = p->dst.data[0];

    for (size_t i = 0; i < W * H; i++)
        d[i] = ~s[i];
    test_texture_intact(env->api, &p->dst, what);
    test_texture_intact(env->api, &p->src, what);
}

static void close_pair(struct interop_env *env, struct pair *p)
{
    clReleaseMemObject(p->mems[0]);
    clReleaseMemObject(p->mems[1]);
    clReleaseKernel(p->kernel);
    test_texture_free(env->api, &p->src);
    test_texture_free(env->api, &p->dst);
}

/* The event's reference count once the driver's own reference is gone: PoCL wakes the
 * waiters of an event (status CL_COMPLETE) before the finished command drops the reference
 * it holds, so for a moment after clWaitForEvents the count is one higher. Waits up to 2 s for
 * it to fall to `want`; a reference that dxcl kept would never go. */
static cl_uint settled_refcount(cl_event event, cl_uint refs, cl_uint want)
{
    const DWORD start = GetTickCount();

    while (refs > want && GetTickCount() - start < 2000) {
        Sleep(1);
        if (clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL) !=
            CL_SUCCESS)
            break;
    }
    return refs;
}

static void check_event(cl_event event, cl_command_type type, cl_command_queue queue,
                        cl_context context, const char *what)
{
    cl_command_type got_type = 0;
    cl_command_queue got_queue = NULL;
    cl_context got_context = NULL;
    cl_int status = -1;
    cl_uint refs = 0;

    REQUIRE(event != NULL, "%s: no event", what);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(got_type), &got_type, NULL),
              CL_SUCCESS);
    CHECK(got_type == type, "%s: CL_EVENT_COMMAND_TYPE 0x%x, want 0x%x", what, got_type, type);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof(got_queue), &got_queue, NULL),
              CL_SUCCESS);
    CHECK(got_queue == queue, "%s: CL_EVENT_COMMAND_QUEUE %p, want %p", what, (void *)got_queue,
          (void *)queue);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_CONTEXT, sizeof(got_context), &got_context, NULL),
              CL_SUCCESS);
    CHECK(got_context == context, "%s: CL_EVENT_CONTEXT", what);
    CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
    CHECK_ERR(
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
        CL_SUCCESS);
    CHECK(status == CL_COMPLETE, "%s: status %d after the wait", what, status);
    /* Retain and release: the event (and its command type) survive until the last one. */
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL),
              CL_SUCCESS);
    refs = settled_refcount(event, refs, 1);
    CHECK(refs == 1, "%s: reference count %u", what, refs);
    CHECK_ERR(clRetainEvent(event), CL_SUCCESS);
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL),
              CL_SUCCESS);
    CHECK(refs == 2, "%s: reference count %u after a retain", what, refs);
    CHECK_ERR(clReleaseEvent(event), CL_SUCCESS);
    got_type = 0;
    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(got_type), &got_type, NULL),
              CL_SUCCESS);
    CHECK(got_type == type, "%s: command type 0x%x after retain and release", what, got_type);
}

static void check_profiling(cl_event event, const char *what)
{
    cl_ulong t[4] = {0, 0, 0, 0};
    static const cl_profiling_info names[4] = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END};

    for (int i = 0; i < 4; i++)
        CHECK_ERR(clGetEventProfilingInfo(event, names[i], sizeof(t[i]), &t[i], NULL), CL_SUCCESS);
    CHECK(t[0] && t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3],
          "%s: profiling times %llu %llu %llu %llu", what, (unsigned long long)t[0],
          (unsigned long long)t[1], (unsigned long long)t[2], (unsigned long long)t[3]);
}

static cl_ulong profiling_time(cl_event event, cl_profiling_info name)
{
    cl_ulong t = 0;

    CHECK_ERR(clGetEventProfilingInfo(event, name, sizeof(t), &t, NULL), CL_SUCCESS);
    return t;
}

static void check_not_available(cl_event event, const char *what)
{
    for (cl_profiling_info name = CL_PROFILING_COMMAND_QUEUED; name <= CL_PROFILING_COMMAND_END;
         name++) {
        cl_ulong t = 0;
        cl_int err = clGetEventProfilingInfo(event, name, sizeof(t), &t, NULL);
        CHECK(err == CL_PROFILING_INFO_NOT_AVAILABLE,
              "%s: clGetEventProfilingInfo(0x%x) gave %d, want CL_PROFILING_INFO_NOT_AVAILABLE",
              what, name, err);
    }
}

/* The spec's rules for profiling times, as for the driver's own events, on every driver (a
 * driver whose markers and barriers report no times included: the .quirks variants): no times
 * on a queue without profiling or before the call completed; times for calls that move no
 * data (every upload deferred, nothing to bring back, no objects); the same times at every
 * read; an acquire that ends before the kernel waiting for it starts; the driver's errors for
 * a bad name or size; CL_PROFILING_COMMAND_COMPLETE where the driver has it. */
static void profiling_rules(const struct test_api *api)
{
    struct interop_env env;
    struct pair p;
    cl_event acquired = NULL, released = NULL, ran = NULL, user, plain = NULL, empty[2] = {0};
    cl_ulong t = 0, end, complete;
    size_t size = 0;
    cl_int err, plain_err;

    /* A queue without CL_QUEUE_PROFILING_ENABLE. */
    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    open_pair(&env, &p, 40);
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, &acquired), CL_SUCCESS);
    CHECK_ERR(run_kernel(env.queue, &p, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 0, NULL, &released), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &acquired), CL_SUCCESS);
    check_not_available(acquired, "acquire event of a queue without profiling");
    check_not_available(released, "release event of a queue without profiling");
    clReleaseEvent(acquired);
    clReleaseEvent(released);
    close_pair(&env, &p);
    interop_close(&env);

    interop_open(&env, api, INTEROP_NO_USER_SYNC, CL_QUEUE_PROFILING_ENABLE);
    open_pair(&env, &p, 41);
    user = clCreateUserEvent(env.context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 1, &user, &acquired), CL_SUCCESS);
    CHECK_ERR(clFlush(env.queue), CL_SUCCESS);
    check_not_available(acquired, "acquire event before its wait list completed");
    CHECK_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &acquired), CL_SUCCESS);
    check_profiling(acquired, "acquire event after its wait list completed");
    /* Nothing used the objects: the release brings nothing back. */
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 0, NULL, &released), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
    check_profiling(released, "release that brings nothing back");
    end = profiling_time(acquired, CL_PROFILING_COMMAND_END);
    CHECK(profiling_time(acquired, CL_PROFILING_COMMAND_END) == end &&
              profiling_time(acquired, CL_PROFILING_COMMAND_QUEUED) <= end,
          "acquire event: its times changed between reads");
    CHECK(end <= profiling_time(released, CL_PROFILING_COMMAND_START),
          "the release started before the acquire ended");
    CHECK_ERR(clGetEventProfilingInfo(acquired, CL_PROFILING_COMMAND_QUEUED, 0, NULL, &size),
              CL_SUCCESS);
    CHECK(size == sizeof(cl_ulong), "size of a profiling time: %zu", size);
    CHECK_ERR(clGetEventProfilingInfo(acquired, CL_PROFILING_COMMAND_END, 4, &t, NULL),
              CL_INVALID_VALUE);
    CHECK_ERR(
        clGetEventProfilingInfo(acquired, CL_PROFILING_COMMAND_QUEUED - 1, sizeof(t), &t, NULL),
        CL_INVALID_VALUE);
    /* CL_PROFILING_COMMAND_COMPLETE (2.0): what the driver answers for its own marker. */
    CHECK_ERR(clEnqueueMarkerWithWaitList(env.queue, 0, NULL, &plain), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &plain), CL_SUCCESS);
    plain_err = clGetEventProfilingInfo(plain, CL_PROFILING_COMMAND_COMPLETE, sizeof(t), &t, NULL);
    err = clGetEventProfilingInfo(acquired, CL_PROFILING_COMMAND_COMPLETE, sizeof(complete),
                                  &complete, NULL);
    CHECK(err == plain_err,
          "CL_PROFILING_COMMAND_COMPLETE of the acquire event: %d, of a marker %d", err, plain_err);
    CHECK(err != CL_SUCCESS || complete >= end, "acquire event: COMPLETE %llu before END %llu",
          (unsigned long long)complete, (unsigned long long)end);
    printf("CL_PROFILING_COMMAND_COMPLETE: %d\n", plain_err);
    clReleaseEvent(plain);
    clReleaseEvent(acquired);
    clReleaseEvent(released);
    clReleaseEvent(user);

    /* No objects at all. */
    CHECK_ERR(env.cl->acquire(env.queue, 0, NULL, 0, NULL, &empty[0]), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 0, NULL, 1, &empty[0], &empty[1]), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(2, empty), CL_SUCCESS);
    check_profiling(empty[0], "acquire of no objects");
    check_profiling(empty[1], "release of no objects");
    clReleaseEvent(empty[0]);
    clReleaseEvent(empty[1]);

    /* The kernel that waits for the acquire starts after it ended; the release ends after the
     * kernel did. */
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, &acquired), CL_SUCCESS);
    CHECK_ERR(run_kernel(env.queue, &p, 1, &acquired, &ran), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 1, &ran, &released), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
    check_profiling(acquired, "acquire event before a kernel");
    check_profiling(released, "release event after a kernel");
    CHECK(profiling_time(acquired, CL_PROFILING_COMMAND_END) <=
              profiling_time(ran, CL_PROFILING_COMMAND_START),
          "the kernel started before the acquire it waits for ended");
    CHECK(profiling_time(ran, CL_PROFILING_COMMAND_END) <=
              profiling_time(released, CL_PROFILING_COMMAND_END),
          "the release ended before the kernel");
    check_pair(&env, &p, "profiling: data");
    clReleaseEvent(acquired);
    clReleaseEvent(ran);
    clReleaseEvent(released);
    close_pair(&env, &p);
    interop_close(&env);
}

/* Acquire and release events on a profiling queue. */
static void events(const struct test_api *api)
{
    struct interop_env env;
    struct pair p;
    cl_event acquired = NULL, ran = NULL, released = NULL;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, CL_QUEUE_PROFILING_ENABLE);
    open_pair(&env, &p, 1);
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, &acquired), CL_SUCCESS);
    CHECK_ERR(run_kernel(env.queue, &p, 1, &acquired, &ran), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 1, &ran, &released), CL_SUCCESS);
    check_event(acquired, api->command_acquire, env.queue, env.context, "acquire event");
    check_event(released, api->command_release, env.queue, env.context, "release event");
    check_profiling(acquired, "acquire event");
    check_profiling(released, "release event");
    CHECK_ERR(clWaitForEvents(1, &ran), CL_SUCCESS);
    /* The release finished what the kernel wrote: it ended after the kernel did. */
    cl_ulong kernel_end = 0, release_end = 0;
    CHECK_ERR(clGetEventProfilingInfo(ran, CL_PROFILING_COMMAND_END, sizeof(kernel_end),
                                      &kernel_end, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetEventProfilingInfo(released, CL_PROFILING_COMMAND_END, sizeof(release_end),
                                      &release_end, NULL),
              CL_SUCCESS);
    CHECK(kernel_end <= release_end, "release ended (%llu) before the kernel (%llu)",
          (unsigned long long)release_end, (unsigned long long)kernel_end);
    /* Two events at once through clWaitForEvents. */
    cl_event both[2] = {acquired, released};
    CHECK_ERR(clWaitForEvents(2, both), CL_SUCCESS);
    check_pair(&env, &p, "events: data");
    CHECK_ERR(clReleaseEvent(acquired), CL_SUCCESS);
    CHECK_ERR(clReleaseEvent(released), CL_SUCCESS);
    CHECK_ERR(clReleaseEvent(ran), CL_SUCCESS);

    /* An event of an acquire can be in another command's wait list after its objects are
     * released again: acquire -> release, each waiting on the previous event. */
    cl_event chain[2] = {NULL, NULL};
    CHECK_ERR(env.cl->acquire(env.queue, 1, &p.mems[0], 0, NULL, &chain[0]), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 1, &p.mems[0], 1, &chain[0], &chain[1]), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(2, chain), CL_SUCCESS);
    check_event(chain[1], api->command_release, env.queue, env.context, "chained release");
    clReleaseEvent(chain[0]);
    clReleaseEvent(chain[1]);
    close_pair(&env, &p);
    interop_close(&env);
}

/* A rescue for a call that would block forever on a user event the calling thread sets only
 * after the call: set after 60 s, and counted as a failure (`rescued`). */
struct rescue {
    cl_event event;
    HANDLE cancel;
    volatile LONG rescued;
};

static DWORD WINAPI rescue_later(void *arg)
{
    struct rescue *rescue = arg;

    if (WaitForSingleObject(rescue->cancel, 60000) == WAIT_OBJECT_0)
        return 0;
    InterlockedExchange(&rescue->rescued, 1);
    clSetUserEventStatus(rescue->event, CL_COMPLETE);
    return 0;
}

static HANDLE start_rescue(struct rescue *rescue)
{
    HANDLE thread;

    rescue->cancel = CreateEventW(NULL, TRUE, FALSE, NULL);
    thread = CreateThread(NULL, 0, rescue_later, rescue, 0, NULL);
    REQUIRE(rescue->cancel && thread, "rescue thread: %lu", GetLastError());
    return thread;
}

static void stop_rescue(struct rescue *rescue, HANDLE thread, const char *what)
{
    SetEvent(rescue->cancel);
    WaitForSingleObject(thread, INFINITE);
    CloseHandle(thread);
    CloseHandle(rescue->cancel);
    CHECK(!rescue->rescued, "%s: the call waited for a user event the same thread sets after it",
          what);
}

static cl_int event_status(cl_event event)
{
    cl_int status = -1;

    CHECK_ERR(
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
        CL_SUCCESS);
    return status;
}

/* A program shaped as real ones are: one thread acquires, runs a kernel and releases with a user
 * event in the wait list, and sets the event only after the call. The release returns at once;
 * its event completes, and Direct3D has the data, only once the user event is set; an acquire
 * before that is refused (the objects are still being released), one after it works. */
static void gated_release(const struct test_api *api, int user_sync_value)
{
    struct interop_env env;
    struct pair p;
    struct rescue rescue = {0};
    cl_event released = NULL;
    HANDLE thread;
    cl_int err;
    char what[64];

    snprintf(what, sizeof(what), "release gated on a user event (USER_SYNC %d)", user_sync_value);
    interop_open(&env, api, user_sync_value, 0);
    open_pair(&env, &p, 40 + (uint32_t)user_sync_value);
    rescue.event = clCreateUserEvent(env.context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(run_kernel(env.queue, &p, 0, NULL, NULL), CL_SUCCESS);
    thread = start_rescue(&rescue);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 1, &rescue.event, &released), CL_SUCCESS);
    REQUIRE(released != NULL, "no release event");
    if (!rescue.rescued) {
        CHECK(event_status(released) > CL_COMPLETE, "%s: the event completed before the wait list",
              what);
        /* Where dst's storage is the texture's own memory (a direct twin, as a vendor driver's),
         * the kernel wrote it already: Direct3D reading it while OpenCL holds it is undefined. */
        if (interop_transfer_mode(p.mems[1]) != DXCL_TRANSFER_GPU_DIRECT)
            test_texture_intact(api, &p.dst, "dst before the user event is set");
        CHECK_ERR(env.cl->acquire(env.queue, 1, &p.mems[1], 0, NULL, NULL),
                  api->err_already_acquired);
    }
    stop_rescue(&rescue, thread, what);
    CHECK_ERR(clSetUserEventStatus(rescue.event, CL_COMPLETE),
              rescue.rescued ? CL_INVALID_OPERATION : CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
    CHECK(event_status(released) == CL_COMPLETE, "%s: event status after the wait", what);
    check_pair(&env, &p, what);
    /* Released once the event completed: the objects can be acquired again at once. */
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    clReleaseEvent(released);
    clReleaseEvent(rescue.event);
    close_pair(&env, &p);
    interop_close(&env);
}

/* A user event in the acquire's wait list: the call returns at once, the acquire completes
 * only after the user event does. */
static void user_event(const struct test_api *api)
{
    struct interop_env env;
    struct pair p;
    cl_event user, acquired = NULL;
    cl_int err, status = -1;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    open_pair(&env, &p, 10);
    user = clCreateUserEvent(env.context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    DWORD start = GetTickCount();
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 1, &user, &acquired), CL_SUCCESS);
    CHECK(GetTickCount() - start < 5000, "the acquire waited for the user event");
    REQUIRE(acquired != NULL, "no acquire event");
    CHECK_ERR(run_kernel(env.queue, &p, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFlush(env.queue), CL_SUCCESS);
    Sleep(100);
    CHECK_ERR(
        clGetEventInfo(acquired, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
        CL_SUCCESS);
    CHECK(status > CL_COMPLETE, "acquire event status %d before the user event is set", status);
    /* Direct3D was not changed yet either (where dst is not the texture's own memory: reading
     * a texture OpenCL holds is undefined, and a direct twin's has gone to OpenCL). */
    if (interop_transfer_mode(p.mems[1]) != DXCL_TRANSFER_GPU_DIRECT)
        test_texture_intact(api, &p.dst, "dst before the user event is set");
    CHECK_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(1, &acquired), CL_SUCCESS);
    CHECK_ERR(
        clGetEventInfo(acquired, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
        CL_SUCCESS);
    CHECK(status == CL_COMPLETE, "acquire event status %d after the wait", status);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    check_pair(&env, &p, "user event: data");

    clReleaseEvent(user);
    clReleaseEvent(acquired);

    close_pair(&env, &p);
    interop_close(&env);
}

/* Acquired objects belong to the context: acquire on queue A, run on queue B, release on B. */
static void two_queues(const struct test_api *api)
{
    struct interop_env env;
    struct pair p;
    cl_command_queue other;
    cl_event acquired = NULL;
    cl_int err;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    open_pair(&env, &p, 20);
    other = clCreateCommandQueue(env.context, env.device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "second queue: %d", err);
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, &acquired), CL_SUCCESS);
    CHECK_ERR(run_kernel(other, &p, 1, &acquired, NULL), CL_SUCCESS);
    /* Acquired in the context: a second acquire on the other queue is refused. */
    CHECK_ERR(env.cl->acquire(other, 1, &p.mems[0], 0, NULL, NULL), api->err_already_acquired);
    CHECK_ERR(env.cl->release(other, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(other), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    check_pair(&env, &p, "two queues: data");
    /* Released in the context: releasing again on the first queue is refused. */
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 0, NULL, NULL), api->err_not_acquired);
    clReleaseEvent(acquired);
    clReleaseCommandQueue(other);
    close_pair(&env, &p);
    interop_close(&env);
}

/* CL_CONTEXT_INTEROP_USER_SYNC true (the program synchronises: it finishes its queue before
 * Direct3D reads) and false; an out-of-order queue as well. */
static void user_sync(const struct test_api *api, int value, cl_command_queue_properties props)
{
    struct interop_env env;
    struct pair p;
    cl_event acquired = NULL, ran = NULL, released = NULL;
    char what[96];

    snprintf(what, sizeof(what), "USER_SYNC %d, queue properties 0x%llx", value,
             (unsigned long long)props);
    interop_open(&env, api, value, props);
    open_pair(&env, &p, 30 + (uint32_t)value);
    for (int round = 0; round < 2; round++) {
        CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, &acquired), CL_SUCCESS);
        CHECK_ERR(run_kernel(env.queue, &p, 1, &acquired, &ran), CL_SUCCESS);
        CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 1, &ran, &released), CL_SUCCESS);
        CHECK_ERR(clWaitForEvents(1, &released), CL_SUCCESS);
        if (value == CL_TRUE)
            CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
        check_pair(&env, &p, what);
        clReleaseEvent(acquired);
        clReleaseEvent(ran);
        clReleaseEvent(released);
        /* Direct3D changes src between rounds; the next acquire sees the change. */
        test_fill_bytes(p.src.data[0], BYTES, 77 + (uint32_t)round);
        CHECK(api->write_subresource(p.src.resource, 0, p.src.data[0]), "%s: write src", what);
    }
    close_pair(&env, &p);
    interop_close(&env);
}

/* A release whose wait list holds a user event that fails after the kernel ran: the release's
 * event ends with a negative status, the resources keep what they had before the acquire (the
 * kernel's result is not taken), and the objects can be acquired again. PoCL 3.1 aborted here
 * (pocl_update_event_failed) while dxcl released its barrier after the wait list before the
 * release ended. */
static void failed_wait_list(const struct test_api *api)
{
    struct interop_env env;
    struct pair p;
    cl_event user, released = NULL;
    cl_int err, status = CL_COMPLETE;

    interop_open(&env, api, INTEROP_NO_USER_SYNC, 0);
    open_pair(&env, &p, 70);
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(run_kernel(env.queue, &p, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    user = clCreateUserEvent(env.context, &err);
    REQUIRE(err == CL_SUCCESS, "user event: %d", err);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 1, &user, &released), CL_SUCCESS);
    CHECK_ERR(clSetUserEventStatus(user, -7), CL_SUCCESS);
    clWaitForEvents(1, &released);
    clGetEventInfo(released, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    CHECK(status < 0, "a release behind a failed user event ends with a negative status (%d)",
          status);
    test_texture_intact(api, &p.dst, "dst after a release that failed");
    test_texture_intact(api, &p.src, "src after a release that failed");
    CHECK_ERR(env.cl->acquire(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(run_kernel(env.queue, &p, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(env.cl->release(env.queue, 2, p.mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env.queue), CL_SUCCESS);
    check_pair(&env, &p, "acquired, run and released again after the failed release");
    clReleaseEvent(released);
    clReleaseEvent(user);
    close_pair(&env, &p);
    interop_close(&env);
}

void suite_sync(const struct test_api *api)
{
    events(api);
    profiling_rules(api);
    user_event(api);
    gated_release(api, INTEROP_NO_USER_SYNC);
    gated_release(api, CL_TRUE);
    failed_wait_list(api);
    two_queues(api);
    user_sync(api, CL_FALSE, 0);
    user_sync(api, CL_TRUE, 0);
    user_sync(api, INTEROP_NO_USER_SYNC, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}
