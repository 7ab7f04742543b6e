/* Races on the SAME shared objects (issue 18): 2, 4 and 8 threads race to acquire and release
 * the same two shared objects, round after round, and the Direct3D contents must come out
 * exact. test_stress_threads gives each thread its own objects; here every thread fights for
 * the same ones.
 *
 * A round: all threads start together (a barrier) and each calls the family's acquire of both
 * objects (one call, the same order everywhere) on its own queue. Exactly one call must win;
 * every other must fail with the family's ALREADY_ACQUIRED error (the spec's error for an
 * object that is acquired: a transfer in progress counts, so an object is idle, acquiring,
 * acquired or releasing and only one transfer at a time can move it). The winner enqueues a
 * kernel that adds 1 to every element of both objects and flushes. Then all threads race to
 * release both, each on its own queue, waiting for the winner's kernel event (a release only
 * waits for its own queue's work, so another queue's kernel must be in its wait list): exactly
 * one must win, the others must get NOT_ACQUIRED. When the round has had no acquire winner, every
 * release must get NOT_ACQUIRED. After a successful release Direct3D sees the data without
 * further synchronisation (the release's guarantee when CL_CONTEXT_INTEROP_USER_SYNC is not
 * CL_TRUE), so the main thread reads the resources through Direct3D every CHECK_EVERY rounds
 * and at the end: they must hold the initial contents plus one per round (each round has one
 * winner), i.e. every increment arrived.
 *
 * Two forms per thread count:
 *  - one context: each thread has its own queue of one context;
 *  - two contexts: two contexts on the same Direct3D device, each with its own cl_mem of the
 *    same two Direct3D resources (a cl_mem belongs to one context), and each thread a queue in
 *    each. Interpretation: "acquired" is a state of a cl_mem in its context, so an acquire in
 *    one context says nothing about the other context's cl_mem of the same resource; the spec
 *    lists ALREADY_ACQUIRED only for the cl_mem given. Both contexts may therefore have their
 *    objects acquired at once (checked once, without writes: both acquires succeed), but two
 *    contexts writing the resource at the same time is then the program's race (the spec
 *    makes Direct3D use of a resource acquired elsewhere undefined), so no exact contents can
 *    be asked of it. What is exact and testable: rounds alternate between the contexts, all
 *    threads racing in the round's context; each release must put the data into Direct3D
 *    and the next acquire in the other context must read it from there, so the contents still
 *    count every increment.
 *
 * Families: D3D11 (KHR, buffers) and D3D10 (KHR, buffers), each with ID3D1xMultithread
 * protection off and on, and DX9 media (D3D9Ex, A8R8G8B8 surfaces; the device is created
 * multithreaded). Each family and protection setting runs in a child process with a watchdog:
 * a hang prints what every thread was doing and fails that child (exit code 3) without hiding
 * the others' results.
 *
 *   test_race_shared [rounds]   every case; rounds per form (default 100; the full form of
 *                               issue 18 is 1000: test_race_shared 1000)
 *   test_race_shared child FAMILY PROTECTION ROUNDS   one case (FAMILY d3d11, d3d10 or dx9;
 *                               PROTECTION on or off)
 * DXCL_TEST_WATCHDOG_MS changes the watchdog's stall time (30 s). */
#include "dx9util.h"
#include "interop.h"
#include "threads.h"

#include <d3d10.h>
#include <stdlib.h>
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>

enum {
    MAX_THREADS = 8,
    OBJECTS = 2,
    CONTEXTS = 2,
    BYTES = 256, /* per object: 64 uints, or a 16 x 4 A8R8G8B8 surface */
    DX9_WIDTH = 16,
    DX9_HEIGHT = 4,
    DEFAULT_ROUNDS = 100,
    CHECK_EVERY = 10,
    STALL_MS = 30000,
    PROGRESS_EVERY = 250,
};

static const char *source =
    "__kernel void inc(__global uint *b) { b[get_global_id(0)] += 1u; }\n"
    /* UNORM8 channels as integers: + 1 modulo 256, exactly. */
    "__kernel void inc_unorm(__read_only image2d_t s, __write_only image2d_t d)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  uint4 v = convert_uint4_rte(read_imagef(s, p) * 255.0f);\n"
    "  write_imagef(d, p, convert_float4((v + 1u) & 255u) / 255.0f); }\n";

struct race;

/* What differs between the families. */
struct family {
    const char *name;
    const struct test_api *api; /* D3D1x: the API table; NULL for DX9 */
    cl_int already_acquired, not_acquired;
    void (*open)(struct race *race);
    cl_context (*context)(struct race *race);
    cl_mem (*share)(struct race *race, cl_context context, int object);
    bool (*read)(struct race *race, int object, unsigned char *out);
    /* The kernel (and copy) that adds 1 to an object; `scratch` is an ordinary image of the
     * object's format for families whose objects are images. */
    cl_int (*increment)(cl_command_queue queue, cl_kernel kernel, cl_mem object, cl_mem scratch,
                        cl_event *done);
    /* The contents after `count` increments. */
    void (*expect)(const unsigned char *initial, unsigned long count, unsigned char *out);
};

struct race {
    const struct family *family;
    bool protection;
    cl_platform_id platform;
    cl_device_id device;
    void *d3d;
    ID3D10Multithread *multithread; /* D3D1x: ID3D11Multithread has the same IID and vtable */
    void *resources[OBJECTS];
    unsigned char initial[OBJECTS][BYTES];
    test_acquire_fn acquire, release;
    cl_context contexts[CONTEXTS];
    cl_program programs[CONTEXTS];
    cl_mem objects[CONTEXTS][OBJECTS];
    unsigned long increments; /* kernels enqueued so far: what Direct3D must count */
};

/* ---- D3D10 and D3D11 buffers ---- */

static void dxgi_open(struct race *race)
{
    const struct test_api *api = race->family->api;

    interop_load(api, race->platform);
    race->acquire = api->cl->acquire;
    race->release = api->cl->release;
    REQUIRE((race->d3d = api->create_device()), "%s device", api->name);
    REQUIRE((race->multithread = api->multithread(race->d3d)), "%s multithread object", api->name);
    ID3D10Multithread_SetMultithreadProtected(race->multithread, race->protection);
    for (int i = 0; i < OBJECTS; i++) {
        race->resources[i] =
            api->create_buffer(race->d3d, BYTES, TEST_USAGE_DEFAULT, race->initial[i]);
        REQUIRE(race->resources[i], "%s buffer %d", api->name, i);
    }
}

static cl_context dxgi_context(struct race *race)
{
    cl_context_properties props[] = {race->family->api->context_property,
                                     (cl_context_properties)race->d3d, 0};
    cl_int err;
    cl_context context = clCreateContext(props, 1, &race->device, NULL, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "%s context: %d", race->family->name, err);
    return context;
}

static cl_mem dxgi_share(struct race *race, cl_context context, int object)
{
    cl_int err;
    cl_mem mem = race->family->api->cl->create_buffer(context, 0, race->resources[object], &err);

    REQUIRE(err == CL_SUCCESS, "%s: shared buffer %d: %d", race->family->name, object, err);
    return mem;
}

static bool dxgi_read(struct race *race, int object, unsigned char *out)
{
    bool ok;

    if (race->protection)
        ID3D10Multithread_Enter(race->multithread);
    ok = race->family->api->read_subresource(race->resources[object], 0, out);
    if (race->protection)
        ID3D10Multithread_Leave(race->multithread);
    return ok;
}

static cl_int buffer_increment(cl_command_queue queue, cl_kernel kernel, cl_mem object,
                               cl_mem scratch, cl_event *done)
{
    const size_t count = BYTES / sizeof(cl_uint);

    (void)object; /* set as the kernel's argument once */
    (void)scratch;
    return clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &count, NULL, 0, NULL, done);
}

static void buffer_expect(const unsigned char *initial, unsigned long count, unsigned char *out)
{
    for (int i = 0; i < BYTES; i += 4) {
        cl_uint value;
        memcpy(&value, initial + i, 4);
        value += (cl_uint)count;
        memcpy(out + i, &value, 4);
    }
}

/* ---- DX9 media surfaces ---- */

static void dx9_open_race(struct race *race)
{
    dx9_load(race->platform);
    race->acquire = (test_acquire_fn)dx9.acquire;
    race->release = (test_acquire_fn)dx9.release;
    race->d3d = dx9_device(DX9_D3D9EX);
    for (int i = 0; i < OBJECTS; i++) {
        race->resources[i] =
            dx9_surface(race->d3d, DX9_WIDTH, DX9_HEIGHT, D3DFMT_A8R8G8B8, DX9_PLAIN);
        REQUIRE(dx9_write(race->resources[i], race->initial[i], false), "DX9 surface %d", i);
    }
}

static cl_context dx9_context(struct race *race)
{
    cl_context_properties props[] = {CL_CONTEXT_ADAPTER_D3D9EX_KHR,
                                     (cl_context_properties)race->d3d, 0};
    cl_int err;
    cl_context context = clCreateContext(props, 1, &race->device, NULL, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "DX9 context: %d", err);
    return context;
}

static cl_mem dx9_share(struct race *race, cl_context context, int object)
{
    cl_dx9_surface_info_khr info = {race->resources[object], NULL};
    cl_int err;
    cl_mem mem = dx9.create(context, 0, CL_ADAPTER_D3D9EX_KHR, &info, 0, &err);

    REQUIRE(err == CL_SUCCESS, "DX9: shared surface %d: %d", object, err);
    return mem;
}

static bool dx9_read_race(struct race *race, int object, unsigned char *out)
{
    return dx9_read(race->resources[object], out, false);
}

/* The kernel writes object + 1 into the scratch image; a copy brings it back. */
static cl_int image_increment(cl_command_queue queue, cl_kernel kernel, cl_mem object,
                              cl_mem scratch, cl_event *done)
{
    const size_t size[2] = {DX9_WIDTH, DX9_HEIGHT};
    const size_t origin[3] = {0, 0, 0}, region[3] = {DX9_WIDTH, DX9_HEIGHT, 1};
    cl_int err = clEnqueueNDRangeKernel(queue, kernel, 2, NULL, size, NULL, 0, NULL, NULL);

    if (err != CL_SUCCESS)
        return err;
    return clEnqueueCopyImage(queue, scratch, object, origin, origin, region, 0, NULL, done);
}

static void unorm_expect(const unsigned char *initial, unsigned long count, unsigned char *out)
{
    for (int i = 0; i < BYTES; i++)
        out[i] = (unsigned char)(initial[i] + count);
}

static const struct family families[] = {
    {"d3d11", &api_d3d11_khr, CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR,
     CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR, dxgi_open, dxgi_context, dxgi_share, dxgi_read,
     buffer_increment, buffer_expect},
    {"d3d10", &api_d3d10_khr, CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR,
     CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR, dxgi_open, dxgi_context, dxgi_share, dxgi_read,
     buffer_increment, buffer_expect},
    {"dx9", NULL, CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR, CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR,
     dx9_open_race, dx9_context, dx9_share, dx9_read_race, image_increment, unorm_expect},
};

/* ---- The threads ---- */

struct worker {
    struct race *race;
    int index;
    unsigned rounds;
    cl_command_queue queues[CONTEXTS];
    cl_kernel kernels[CONTEXTS][OBJECTS];
    cl_mem scratch[CONTEXTS][OBJECTS]; /* DX9: the kernels' output images */
    /* This round's results, read by the main thread after the round's last barrier. */
    cl_int acquired, incremented, released;
    cl_event increment_done;
    /* For the watchdog. */
    volatile LONG round;
    const char *volatile step;
};

static struct {
    struct test_barrier barrier;
    int context; /* the round's context */
    unsigned threads;
    struct worker workers[MAX_THREADS];
    const char *volatile main_step;
    volatile LONG main_round;
    const char *form;
} round_state;

static void report_threads(void *unused)
{
    (void)unused;
    fprintf(stderr, "  form: %s\n  main thread: round %ld, %s\n", round_state.form,
            (long)round_state.main_round, round_state.main_step ? round_state.main_step : "-");
    for (unsigned i = 0; i < round_state.threads; i++)
        fprintf(stderr, "  thread %u: round %ld, %s\n", i, (long)round_state.workers[i].round,
                round_state.workers[i].step ? round_state.workers[i].step : "-");
}

static void step(struct worker *w, const char *what)
{
    w->step = what;
    test_watchdog_progress();
}

static void meet(struct worker *w)
{
    step(w, "waiting for the other threads");
    test_barrier_wait(&round_state.barrier);
}

static void increment(struct worker *w, int context)
{
    const struct family *family = w->race->family;
    cl_int err = CL_SUCCESS;

    step(w, "enqueueing the increments");
    for (int i = 0; i < OBJECTS && err == CL_SUCCESS; i++) {
        cl_event *done = i == OBJECTS - 1 ? &w->increment_done : NULL;
        err = family->increment(w->queues[context], w->kernels[context][i],
                                w->race->objects[context][i], w->scratch[context][i], done);
    }
    w->incremented = err;
    if (err == CL_SUCCESS)
        clFlush(w->queues[context]); /* other queues' releases wait for its event */
}

/* Every release waits for the kernels of the round (any queue's). */
static void release(struct worker *w, int context)
{
    cl_event waits[MAX_THREADS];
    cl_uint count = 0;

    for (unsigned i = 0; i < round_state.threads; i++)
        if (round_state.workers[i].increment_done)
            waits[count++] = round_state.workers[i].increment_done;
    step(w, "release");
    w->released = w->race->release(w->queues[context], OBJECTS, w->race->objects[context], count,
                                   count ? waits : NULL, NULL);
}

static DWORD WINAPI run_worker(void *arg)
{
    struct worker *w = arg;

    for (unsigned round = 0; round < w->rounds; round++) {
        meet(w);
        int context = round_state.context;
        w->round = (LONG)round;
        step(w, "acquire");
        w->acquired =
            w->race->acquire(w->queues[context], OBJECTS, w->race->objects[context], 0, NULL, NULL);
        meet(w);
        if (w->acquired == CL_SUCCESS)
            increment(w, context);
        meet(w);
        release(w, context);
        meet(w);
    }
    step(w, "done");
    return 0;
}

static void open_worker(struct race *race, struct worker *w, int index, int contexts,
                        unsigned rounds)
{
    static const cl_image_format bgra = {CL_BGRA, CL_UNORM_INT8};
    cl_int err;

    memset(w, 0, sizeof(*w));
    w->race = race;
    w->index = index;
    w->rounds = rounds;
    for (int c = 0; c < contexts; c++) {
        w->queues[c] = clCreateCommandQueue(race->contexts[c], race->device, 0, &err);
        REQUIRE(err == CL_SUCCESS, "queue: %d", err);
        for (int i = 0; i < OBJECTS; i++) {
            bool image = race->family->api == NULL;
            w->kernels[c][i] = test_program_kernel(race->programs[c], image ? "inc_unorm" : "inc");
            CHECK_ERR(clSetKernelArg(w->kernels[c][i], 0, sizeof(cl_mem), &race->objects[c][i]),
                      CL_SUCCESS);
            if (!image)
                continue;
            w->scratch[c][i] = clCreateImage2D(race->contexts[c], CL_MEM_READ_WRITE, &bgra,
                                               DX9_WIDTH, DX9_HEIGHT, 0, NULL, &err);
            REQUIRE(err == CL_SUCCESS, "scratch image: %d", err);
            CHECK_ERR(clSetKernelArg(w->kernels[c][i], 1, sizeof(cl_mem), &w->scratch[c][i]),
                      CL_SUCCESS);
        }
    }
}

static void close_worker(struct worker *w, int contexts)
{
    for (int c = 0; c < contexts; c++) {
        CHECK_ERR(clFinish(w->queues[c]), CL_SUCCESS);
        for (int i = 0; i < OBJECTS; i++) {
            clReleaseKernel(w->kernels[c][i]);
            if (w->scratch[c][i])
                clReleaseMemObject(w->scratch[c][i]);
        }
        clReleaseCommandQueue(w->queues[c]);
    }
}

/* ---- Counting ---- */

struct tally {
    unsigned long rounds;
    unsigned long double_acquires;  /* rounds where more than one acquire won */
    unsigned long lost_acquires;    /* rounds where no acquire won */
    unsigned long double_releases;  /* rounds where more than one release won */
    unsigned long missing_releases; /* rounds with an acquire winner but no release winner */
    unsigned long wrong_errors;     /* calls that failed with another error than the spec's */
    unsigned long increment_errors; /* winners whose kernel could not be enqueued */
    cl_int first_increment_error;
    unsigned long increments; /* rounds with an acquire winner: one increment each */
    long lost_increments;     /* at the last check: increments Direct3D lacks */
    long first_wrong_round;   /* the first check where Direct3D was wrong, or -1 */
    cl_int first_wrong_error;
};

static void count_round(struct tally *tally, unsigned threads, const struct family *family)
{
    unsigned acquired = 0, released = 0;

    for (unsigned i = 0; i < threads; i++) {
        struct worker *w = &round_state.workers[i];
        acquired += w->acquired == CL_SUCCESS;
        released += w->released == CL_SUCCESS;
        if (w->acquired != CL_SUCCESS && w->acquired != family->already_acquired &&
            !tally->wrong_errors++)
            tally->first_wrong_error = w->acquired;
        if (w->released != CL_SUCCESS && w->released != family->not_acquired &&
            !tally->wrong_errors++)
            tally->first_wrong_error = w->released;
        if (w->acquired == CL_SUCCESS && w->incremented != CL_SUCCESS && !tally->increment_errors++)
            tally->first_increment_error = w->incremented;
        if (w->increment_done)
            clReleaseEvent(w->increment_done);
        w->increment_done = NULL;
        w->acquired = w->incremented = w->released = CL_INVALID_VALUE;
    }
    tally->rounds++;
    tally->increments += acquired > 0; /* what the round must add, once */
    tally->double_acquires += acquired > 1;
    tally->lost_acquires += acquired == 0;
    tally->double_releases += released > 1;
    tally->missing_releases += acquired > 0 && released == 0;
}

/* How many increments the first element of `got` shows over `initial` (modulo 256 for
 * UNORM8 channels). */
static long shown_increments(const struct race *race, const unsigned char *got,
                             const unsigned char *initial)
{
    cl_uint now, before;

    if (!race->family->api)
        return (unsigned char)(got[0] - initial[0]);
    memcpy(&now, got, 4);
    memcpy(&before, initial, 4);
    return (long)(now - before);
}

/* Direct3D must hold the form's initial contents plus one per round with an acquire winner so far.
 * Returns 0 when it does, else the increments it lacks (negative: extra ones), or 1 when the
 * elements disagree among themselves. */
static long check_contents(struct race *race)
{
    unsigned char got[BYTES], want[BYTES];
    long lost = 0;

    for (int i = 0; i < OBJECTS && !lost; i++) {
        race->family->expect(race->initial[i], race->increments, want);
        if (!race->family->read(race, i, got))
            return 1; /* the read reported its failure */
        if (!memcmp(got, want, BYTES))
            continue;
        long missing = (long)race->increments - shown_increments(race, got, race->initial[i]);
        if (!race->family->api)
            missing = (long)((unsigned long)missing & 255);
        lost = missing ? missing : 1;
    }
    return lost;
}

/* Both contexts' objects of the same resources may be acquired at once (see the top). */
static void check_contexts_independent(struct race *race)
{
    cl_command_queue queues[CONTEXTS];
    cl_int err;

    for (int c = 0; c < CONTEXTS; c++) {
        queues[c] = clCreateCommandQueue(race->contexts[c], race->device, 0, &err);
        REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    }
    for (int c = 0; c < CONTEXTS; c++)
        CHECK(race->acquire(queues[c], OBJECTS, race->objects[c], 0, NULL, NULL) == CL_SUCCESS,
              "%s: context %d's objects are acquired while context %d's objects of the same "
              "resources are",
              race->family->name, c, 1 - c);
    for (int c = 0; c < CONTEXTS; c++) {
        CHECK_ERR(race->release(queues[c], OBJECTS, race->objects[c], 0, NULL, NULL), CL_SUCCESS);
        clReleaseCommandQueue(queues[c]);
    }
}

static void print_tally(const char *form, const struct tally *t)
{
    printf("race: %s: %lu rounds: %lu double acquires, %lu without acquire winner, %lu double "
           "releases, %lu without release winner, %lu other errors (first %d), %lu kernel "
           "enqueue errors (first %d); %ld of %lu increments lost (first wrong check: round %ld)\n",
           form, t->rounds, t->double_acquires, t->lost_acquires, t->double_releases,
           t->missing_releases, t->wrong_errors, t->first_wrong_error, t->increment_errors,
           t->first_increment_error, t->lost_increments, t->increments, t->first_wrong_round);
    fflush(stdout);
}

static void check_tally(const char *form, const struct tally *t)
{
    CHECK(t->double_acquires == 0, "%s: two acquires won in %lu of %lu rounds", form,
          t->double_acquires, t->rounds);
    CHECK(t->lost_acquires == 0, "%s: no acquire won in %lu of %lu rounds", form, t->lost_acquires,
          t->rounds);
    CHECK(t->double_releases == 0, "%s: two releases won in %lu of %lu rounds", form,
          t->double_releases, t->rounds);
    CHECK(t->missing_releases == 0, "%s: no release won in %lu of %lu rounds", form,
          t->missing_releases, t->rounds);
    CHECK(t->wrong_errors == 0,
          "%s: %lu acquires or releases failed with another error than ALREADY_ACQUIRED / "
          "NOT_ACQUIRED (first %d)",
          form, t->wrong_errors, t->first_wrong_error);
    CHECK(t->increment_errors == 0, "%s: %lu winners could not enqueue their kernel (first %d)",
          form, t->increment_errors, t->first_increment_error);
    CHECK(t->lost_increments == 0,
          "%s: Direct3D lacks %ld of %lu increments (wrong from the check after round %ld)", form,
          t->lost_increments, t->increments, t->first_wrong_round);
}

/* The main thread's side of the rounds: it chooses the context, counts, and reads Direct3D
 * while the workers wait at the barrier. */
static void coordinate(struct race *race, unsigned rounds, int contexts, struct tally *tally)
{
    for (unsigned round = 0; round < rounds; round++) {
        round_state.main_round = (LONG)round;
        round_state.context = contexts > 1 ? (int)(round % 2) : 0;
        round_state.main_step = "in the round";
        for (int phase = 0; phase < 4; phase++)
            test_barrier_wait(&round_state.barrier);
        round_state.main_step = "counting";
        test_watchdog_progress();
        unsigned long before = tally->increments;
        count_round(tally, round_state.threads, race->family);
        race->increments += tally->increments - before;
        if ((round + 1) % CHECK_EVERY && round + 1 != rounds)
            continue;
        round_state.main_step = "reading Direct3D";
        tally->lost_increments = check_contents(race);
        if (tally->lost_increments && tally->first_wrong_round < 0)
            tally->first_wrong_round = (long)round;
        if ((round + 1) % PROGRESS_EVERY == 0 && round + 1 != rounds)
            print_tally(round_state.form, tally);
    }
}

static void open_race(struct race *race, const struct family *family, bool protection)
{
    memset(race, 0, sizeof(*race));
    race->family = family;
    race->protection = protection;
    race->platform = test_platform();
    race->device = test_device(race->platform);
    for (int i = 0; i < OBJECTS; i++)
        test_fill_bytes(race->initial[i], BYTES, 1800u + (unsigned)i);
    family->open(race);
}

/* Fresh contexts and objects for each form: a form's damage stays its own. */
static void open_objects(struct race *race, int contexts)
{
    for (int c = 0; c < contexts; c++) {
        race->contexts[c] = race->family->context(race);
        race->programs[c] = test_program(race->contexts[c], race->device, source);
        for (int i = 0; i < OBJECTS; i++)
            race->objects[c][i] = race->family->share(race, race->contexts[c], i);
    }
}

static void close_objects(struct race *race, int contexts)
{
    for (int c = 0; c < contexts; c++) {
        for (int i = 0; i < OBJECTS; i++)
            CHECK_ERR(clReleaseMemObject(race->objects[c][i]), CL_SUCCESS);
        clReleaseProgram(race->programs[c]);
        CHECK_ERR(clReleaseContext(race->contexts[c]), CL_SUCCESS);
    }
}

static void close_race(struct race *race)
{
    for (int i = 0; i < OBJECTS; i++)
        IUnknown_Release((IUnknown *)race->resources[i]);
    if (race->multithread)
        ID3D10Multithread_Release(race->multithread);
    IUnknown_Release((IUnknown *)race->d3d);
}

static void run_form(struct race *race, unsigned threads, int contexts, unsigned rounds)
{
    char form[160];
    HANDLE handles[MAX_THREADS];
    struct tally tally = {.first_wrong_round = -1};
    DWORD start = GetTickCount();

    snprintf(form, sizeof(form), "%s, protection %s, %u threads, %s", race->family->name,
             race->family->api ? (race->protection ? "on" : "off") : "(D3D9 multithreaded)",
             threads, contexts > 1 ? "two contexts" : "one context");
    round_state.form = form;
    round_state.threads = threads;
    round_state.main_step = "setting up";
    open_objects(race, contexts);
    if (contexts > 1)
        check_contexts_independent(race);
    /* Each form counts from what Direct3D holds now: a form's losses are its own. */
    race->increments = 0;
    for (int i = 0; i < OBJECTS; i++)
        REQUIRE(race->family->read(race, i, race->initial[i]), "%s: Direct3D contents", form);
    test_barrier_init(&round_state.barrier, threads + 1);
    for (unsigned i = 0; i < threads; i++)
        open_worker(race, &round_state.workers[i], (int)i, contexts, rounds);
    for (unsigned i = 0; i < threads; i++) {
        handles[i] = CreateThread(NULL, 0, run_worker, &round_state.workers[i], 0, NULL);
        REQUIRE(handles[i] != NULL, "CreateThread: %lu", GetLastError());
    }
    coordinate(race, rounds, contexts, &tally);
    round_state.main_step = "joining the threads";
    WaitForMultipleObjects(threads, handles, TRUE, INFINITE);
    for (unsigned i = 0; i < threads; i++) {
        CloseHandle(handles[i]);
        close_worker(&round_state.workers[i], contexts);
    }
    close_objects(race, contexts);
    print_tally(form, &tally);
    printf("race: %s: %lu ms\n", form, (unsigned long)(GetTickCount() - start));
    check_tally(form, &tally);
}

static int run_child(const char *family_name, const char *protection, unsigned rounds)
{
    static const unsigned thread_counts[] = {2, 4, 8};
    const struct family *family = NULL;
    struct race race;

    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
        if (!strcmp(families[i].name, family_name))
            family = &families[i];
    REQUIRE(family != NULL, "unknown family %s", family_name);
    round_state.form = "setup";
    test_watchdog_start("race_shared", STALL_MS, report_threads, NULL);
    open_race(&race, family, !strcmp(protection, "on"));
    for (int contexts = 1; contexts <= CONTEXTS; contexts++)
        for (size_t i = 0; i < sizeof(thread_counts) / sizeof(thread_counts[0]); i++)
            run_form(&race, thread_counts[i], contexts, rounds);
    round_state.form = "cleanup";
    close_race(&race);
    test_watchdog_stop();
    return test_child_finish("race_shared child");
}

int main(int argc, char **argv)
{
    static const char *const cases[][2] = {
        {"d3d11", "off"}, {"d3d11", "on"}, {"d3d10", "off"}, {"d3d10", "on"}, {"dx9", "off"},
    };
    unsigned rounds = DEFAULT_ROUNDS;

    test_exit_on_crash("race_shared");
    if (argc == 5 && !strcmp(argv[1], "child"))
        return run_child(argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10));
    if (argc > 1)
        rounds = (unsigned)strtoul(argv[1], NULL, 10);
    REQUIRE(rounds >= 1, "rounds: at least 1");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char args[64], what[96];
        snprintf(args, sizeof(args), "child %s %s %u", cases[i][0], cases[i][1], rounds);
        if (strcmp(cases[i][0], "dx9"))
            snprintf(what, sizeof(what), "race: %s, protection %s", cases[i][0], cases[i][1]);
        else
            snprintf(what, sizeof(what), "race: dx9 (D3D9Ex device, D3DCREATE_MULTITHREADED)");
        test_check_child(args, what);
    }
    return test_finish("race_shared");
}
