/* Fuzzing: every entry point of the four sharing families (D3D11 and D3D10, KHR and NV; DX9
 * media, KHR and Intel) and the core calls dxcl intercepts, called with arguments from a seeded
 * generator: NULL, garbage, released and foreign handles, wrong pointers to Direct3D objects,
 * out-of-range subresources and planes, flag and property combinations, wait lists. Every call
 * must return one of the codes listed for it (or succeed) and never crash; wrong Direct3D
 * pointers must give the family's invalid-resource/device error exactly. Afterwards the objects
 * used must still work: an exact round trip through every family.
 *
 * Usage: test_fuzz [seed [calls]] (defaults: seed 13, 100000 calls).
 *
 * The boundary (docs/reliability.md): handles that only the driver can check (events, kernels,
 * plain memory objects, the queues of other calls) are passed valid, foreign or NULL, never
 * released or garbage: the driver itself (PoCL through Wine) may crash on those, and dxcl
 * forwards them. Handles dxcl checks in its own tables (contexts of the sharing calls, the
 * queue and the memory objects of acquire and release) are also passed garbage, released and
 * objects of another kind. */
#include "dx9util.h"
#include "interop.h"

#include <stdlib.h>

static uint64_t rng_state;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static uint32_t pick(uint32_t n)
{
    return rnd() % n;
}

#define PICK(array) ((array)[pick(sizeof(array) / sizeof((array)[0]))])

static unsigned long long calls;
static const char *current_op = "setup"; /* named in the crash report */

/* A crash is the failure this test exists to find: report the call and stop at once (Wine
 * would otherwise start its debugger and hang the test until its time limit). */
static LONG WINAPI report_crash(EXCEPTION_POINTERS *info)
{
    char module[MAX_PATH] = "?";
    HMODULE base = NULL;

    if (GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                               GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                           info->ExceptionRecord->ExceptionAddress, &base))
        GetModuleFileNameA(base, module, sizeof(module));
    fprintf(stderr, "FAIL: exception %#lx at %p (%s+%#llx) during call %llu (%s)\n",
            info->ExceptionRecord->ExceptionCode, info->ExceptionRecord->ExceptionAddress, module,
            (unsigned long long)((char *)info->ExceptionRecord->ExceptionAddress - (char *)base),
            calls + 1, current_op);
    fflush(stderr);
    TerminateProcess(GetCurrentProcess(), 3);
    return EXCEPTION_EXECUTE_HANDLER;
}

/* ---- The Direct3D objects and wrong pointers ---- */

/* Pointers that are not the Direct3D object a call wants, none of which may be dereferenced
 * blindly: random heap bytes, a struct whose first field is a pointer to data (not a vtable),
 * freed heap memory, an unmapped address, a reserved page, a no-access page. */
enum {
    WRONG_HEAP,
    WRONG_STRUCT,
    WRONG_FREED,
    WRONG_SMALL,
    WRONG_HIGH,
    WRONG_RESERVED,
    WRONG_NOACCESS,
    WRONG_COUNT
};
static void *wrong[WRONG_COUNT];

static void make_wrong_pointers(void)
{
    static void *table[8];
    static struct {
        void **not_a_vtable;
        int value;
    } non_com;
    unsigned char *heap = malloc(256), *freed = malloc(256);
    DWORD old;

    for (int i = 0; i < 256; i++)
        heap[i] = (unsigned char)rnd();
    for (int i = 0; i < 8; i++)
        table[i] = heap + i;
    non_com.not_a_vtable = table;
    non_com.value = 42;
    memset(freed, 0x5a, 256);
    wrong[WRONG_FREED] = (void *)(uintptr_t)freed; /* kept as a number: it is freed next */
    free(freed);
    wrong[WRONG_HEAP] = heap;
    wrong[WRONG_STRUCT] = &non_com;
    wrong[WRONG_SMALL] = (void *)(uintptr_t)0x10;
    wrong[WRONG_HIGH] = (void *)(uintptr_t)0xdead0000beef0ull;
    wrong[WRONG_RESERVED] = VirtualAlloc(NULL, 65536, MEM_RESERVE, PAGE_READWRITE);
    wrong[WRONG_NOACCESS] = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    REQUIRE(wrong[WRONG_RESERVED] && wrong[WRONG_NOACCESS], "VirtualAlloc");
    VirtualProtect(wrong[WRONG_NOACCESS], 65536, PAGE_NOACCESS, &old);
}

static void *wrong_pointer(void)
{
    return wrong[pick(WRONG_COUNT)];
}

/* ---- The families ---- */

static const struct test_texture_desc tex2d_desc = {
    8, 8, 1, 2, 2, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
static const struct test_texture_desc tex3d_desc = {
    4, 4, 4, 2, 1, DXGI_FORMAT_R8G8B8A8_UNORM, TEST_USAGE_DEFAULT, 1};
#define BUFFER_BYTES 256

struct d3d1x_family {
    const struct test_api *api;
    struct interop_env env;
    void *buffer;
    struct test_texture tex2d, tex3d;
    cl_mem mems[3];      /* live shared objects: buffer, 2D subresource 1, 3D subresource 1 */
    cl_mem released;     /* a shared object released at setup */
    cl_context gone;     /* a context with the device, released at setup */
    cl_event user_event; /* complete */
};

#define D3D1X_COUNT 4
static struct d3d1x_family d3d1x[D3D1X_COUNT];

struct dx9_family {
    struct dx9_env env;
    bool intel;
    IDirect3DSurface9 *nv12, *yv12;
    cl_mem mems[2]; /* NV12 plane 0, YV12 plane 2 */
    cl_mem released;
    cl_event user_event;
};

static struct dx9_family dx9f[2];
static cl_context plain_context;
static cl_mem plain_buffer;
static cl_command_queue released_queue; /* made and released at setup */

static cl_event complete_event(cl_context context)
{
    cl_int err;
    cl_event event = clCreateUserEvent(context, &err);

    REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    CHECK_ERR(clSetUserEventStatus(event, CL_COMPLETE), CL_SUCCESS);
    return event;
}

static void open_d3d1x(struct d3d1x_family *f, const struct test_api *api, uint32_t seed)
{
    unsigned char data[BUFFER_BYTES];
    cl_int err;

    f->api = api;
    interop_open(&f->env, api, INTEROP_NO_USER_SYNC, 0);
    test_fill_bytes(data, sizeof(data), seed);
    f->buffer = api->create_buffer(f->env.d3d, BUFFER_BYTES, TEST_USAGE_DEFAULT, data);
    REQUIRE(f->buffer, "%s: buffer", api->name);
    REQUIRE(test_texture_create(api, f->env.d3d, &f->tex2d, &tex2d_desc, false, seed + 1),
            "%s: 2D texture", api->name);
    REQUIRE(test_texture_create(api, f->env.d3d, &f->tex3d, &tex3d_desc, true, seed + 2),
            "%s: 3D texture", api->name);
    f->mems[0] = api->cl->create_buffer(f->env.context, CL_MEM_READ_WRITE, f->buffer, &err);
    REQUIRE(err == CL_SUCCESS, "%s: buffer object: %d", api->name, err);
    f->mems[1] =
        api->cl->create_texture2d(f->env.context, CL_MEM_READ_WRITE, f->tex2d.resource, 1, &err);
    REQUIRE(err == CL_SUCCESS, "%s: 2D object: %d", api->name, err);
    f->mems[2] =
        api->cl->create_texture3d(f->env.context, CL_MEM_READ_WRITE, f->tex3d.resource, 1, &err);
    REQUIRE(err == CL_SUCCESS, "%s: 3D object: %d", api->name, err);
    f->released =
        api->cl->create_texture2d(f->env.context, CL_MEM_READ_ONLY, f->tex2d.resource, 0, &err);
    REQUIRE(err == CL_SUCCESS, "%s: object to release: %d", api->name, err);
    CHECK_ERR(clReleaseMemObject(f->released), CL_SUCCESS);
    f->gone = interop_context(&f->env, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "%s: second context: %d", api->name, err);
    CHECK_ERR(clReleaseContext(f->gone), CL_SUCCESS);
    f->user_event = complete_event(f->env.context);
}

static void open_dx9(struct dx9_family *f, bool intel)
{
    cl_int err;

    f->intel = intel;
    dx9_open(&f->env, DX9_D3D9EX, intel, DX9_NO_USER_SYNC);
    f->nv12 = dx9_surface(f->env.d3d, 16, 16, DX9_FMT_NV12, DX9_PLAIN);
    f->yv12 = dx9_surface(f->env.d3d, 16, 16, DX9_FMT_YV12, DX9_PLAIN);
    REQUIRE(f->nv12 && f->yv12, "DX9 surfaces");
    f->mems[0] = dx9_create(&f->env, intel, f->nv12, 0, CL_MEM_READ_WRITE, &err);
    REQUIRE(err == CL_SUCCESS, "DX9 NV12 object: %d", err);
    f->mems[1] = dx9_create(&f->env, intel, f->yv12, 2, CL_MEM_READ_WRITE, &err);
    REQUIRE(err == CL_SUCCESS, "DX9 YV12 object: %d", err);
    f->released = dx9_create(&f->env, intel, f->nv12, 1, CL_MEM_READ_ONLY, &err);
    REQUIRE(err == CL_SUCCESS, "DX9 object to release: %d", err);
    CHECK_ERR(clReleaseMemObject(f->released), CL_SUCCESS);
    f->user_event = complete_event(f->env.context);
}

/* Everything the run holds is released before exit: a process that ends with Direct3D devices
 * and driver contexts alive races Wine's GL teardown against their threads. */
static void close_d3d1x(struct d3d1x_family *f)
{
    for (int i = 0; i < 3; i++)
        CHECK_ERR(clReleaseMemObject(f->mems[i]), CL_SUCCESS);
    CHECK_ERR(clReleaseEvent(f->user_event), CL_SUCCESS);
    test_texture_free(f->api, &f->tex2d);
    test_texture_free(f->api, &f->tex3d);
    f->api->release(f->buffer);
    interop_close(&f->env);
}

static void close_dx9(struct dx9_family *f)
{
    for (int i = 0; i < 2; i++)
        CHECK_ERR(clReleaseMemObject(f->mems[i]), CL_SUCCESS);
    CHECK_ERR(clReleaseEvent(f->user_event), CL_SUCCESS);
    IDirect3DSurface9_Release(f->nv12);
    IDirect3DSurface9_Release(f->yv12);
    dx9_close(&f->env);
}

/* ---- Checking one result ---- */

static bool listed(cl_int err, const cl_int *codes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (codes[i] == err)
            return true;
    return false;
}

#define EXPECT_ONE_OF(err, what, ...)                                                              \
    do {                                                                                           \
        const cl_int codes_[] = {__VA_ARGS__};                                                     \
        calls++;                                                                                   \
        if (!listed(err, codes_, sizeof(codes_) / sizeof(codes_[0])))                              \
            CHECK(false, "call %llu: %s returned %d, not a listed code", calls, what, err);        \
    } while (0)

#define EXPECT_EXACT(err, want, what)                                                              \
    do {                                                                                           \
        if ((err) != (want))                                                                       \
            CHECK(false, "call %llu: %s returned %d, want %d", calls, what, err, want);            \
    } while (0)

/* ---- Argument pools ---- */

static cl_mem_flags random_flags(void)
{
    static const cl_mem_flags flags[] = {
        CL_MEM_READ_WRITE,     CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,     0,
        CL_MEM_USE_HOST_PTR,   CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        CL_MEM_ALLOC_HOST_PTR, CL_MEM_HOST_NO_ACCESS,
        (cl_mem_flags)1 << 40};
    return pick(4) ? PICK(flags) : (cl_mem_flags)rnd() << pick(40);
}

static bool valid_flags(cl_mem_flags flags)
{
    return flags == CL_MEM_READ_WRITE || flags == CL_MEM_READ_ONLY || flags == CL_MEM_WRITE_ONLY;
}

/* A context for a sharing call of family `self`: 0 its own, then foreign, NULL, garbage,
 * released ones. *own says whether it is the family's own context. */
static cl_context context_arg(struct d3d1x_family *self, bool *own)
{
    uint32_t which = pick(8);

    *own = which == 0;
    switch (which) {
    case 0:
        return self->env.context;
    case 1:
        return d3d1x[pick(D3D1X_COUNT)].env.context;
    case 2:
        return dx9f[pick(2)].env.context;
    case 3:
        return plain_context;
    case 4:
        return NULL;
    case 5:
        return (cl_context)wrong_pointer();
    case 6:
        return self->gone;
    default:
        return d3d1x[pick(D3D1X_COUNT)].gone;
    }
}

/* A memory object for an acquire/release list (dxcl checks these in its tables first). */
static cl_mem listed_mem_arg(void)
{
    switch (pick(7)) {
    case 0:
    case 1: {
        struct d3d1x_family *f = &d3d1x[pick(D3D1X_COUNT)];
        return f->mems[pick(3)];
    }
    case 2:
        return dx9f[pick(2)].mems[pick(2)];
    case 3:
        return plain_buffer;
    case 4:
        return NULL;
    case 5:
        return (cl_mem)wrong_pointer();
    default:
        return pick(2) ? d3d1x[pick(D3D1X_COUNT)].released : dx9f[pick(2)].released;
    }
}

/* Whether `handle` is a live queue of the test's: a released object's handle may be the
 * driver's for a queue made after it (the host's allocator reuses it), and then it is one. */
static bool live_queue(const void *handle)
{
    for (int i = 0; i < D3D1X_COUNT; i++)
        if (handle == d3d1x[i].env.queue)
            return true;
    for (int i = 0; i < 2; i++)
        if (handle == dx9f[i].env.queue)
            return true;
    return false;
}

/* What is no command queue, for acquire and release (dxcl decides from its records of queues,
 * never reading the value; issue 39): garbage, a released queue, objects of other kinds. */
static cl_command_queue any_bad_queue_arg(void)
{
    switch (pick(5)) {
    case 0:
        return (cl_command_queue)wrong_pointer();
    case 1:
        return released_queue;
    case 2:
        return (cl_command_queue)listed_mem_arg();
    case 3:
        return (cl_command_queue)(pick(2) ? plain_context : d3d1x[pick(D3D1X_COUNT)].env.context);
    default:
        return (cl_command_queue)d3d1x[pick(D3D1X_COUNT)].user_event;
    }
}

/* One that is no live queue of the test's. */
static cl_command_queue bad_queue_arg(void)
{
    cl_command_queue queue;

    while (live_queue(queue = any_bad_queue_arg()))
        ;
    return queue;
}

/* A memory object the driver may see: live, shared or not, or NULL. */
static cl_mem safe_mem_arg(void)
{
    switch (pick(4)) {
    case 0:
    case 1:
        return d3d1x[pick(D3D1X_COUNT)].mems[pick(3)];
    case 2:
        return dx9f[pick(2)].mems[pick(2)];
    default:
        return pick(2) ? plain_buffer : NULL;
    }
}

/* A wait list: empty, mismatched count/list, events of this context or another one. */
struct wait_args {
    cl_uint count;
    const cl_event *list;
    cl_event events[2];
};

static void wait_arg(struct wait_args *w, cl_event own)
{
    switch (pick(6)) {
    case 0:
    case 1:
        w->count = 0;
        w->list = NULL;
        break;
    case 2:
        w->events[0] = own;
        w->count = 1;
        w->list = w->events;
        break;
    case 3:
        w->events[0] = own;
        w->events[1] = pick(2) ? d3d1x[pick(D3D1X_COUNT)].user_event : dx9f[pick(2)].user_event;
        w->count = 2;
        w->list = w->events;
        break;
    case 4:
        w->count = 1 + pick(3);
        w->list = NULL;
        break;
    default:
        w->events[0] = own;
        w->count = 0;
        w->list = w->events;
        break;
    }
}

/* ---- Operations of the D3D10/D3D11 families ---- */

static void *d3d_object_arg(struct d3d1x_family *f, int *kind)
{
    /* kind: 0 buffer, 1 2D, 2 3D, 3 the device, 4 another family's resource, -1 wrong. */
    switch (pick(9)) {
    case 0:
    case 1:
        *kind = 0;
        return f->buffer;
    case 2:
    case 3:
        *kind = 1;
        return f->tex2d.resource;
    case 4:
        *kind = 2;
        return f->tex3d.resource;
    case 5:
        *kind = 3;
        return f->env.d3d;
    case 6:
        *kind = 4;
        return pick(2)
                   ? (void *)dx9f[0].nv12
                   : d3d1x[(f - d3d1x + 1 + pick(D3D1X_COUNT - 1)) % D3D1X_COUNT].tex2d.resource;
    default:
        *kind = -1;
        return wrong_pointer();
    }
}

static void fuzz_get_device_ids(struct d3d1x_family *f)
{
    const struct test_api *api = f->api;
    cl_platform_id platform = pick(5) ? f->env.platform : pick(2) ? NULL : wrong_pointer();
    cl_uint sources[] = {api->source_device, api->source_adapter, rnd()};
    cl_uint sets[] = {api->set_preferred, api->set_all, rnd()};
    cl_uint source = PICK(sources), set = PICK(sets), num_entries = pick(3) * 2, num = 7;
    cl_device_id devices[4];
    void *object;
    bool wrong_object = pick(3) == 0;
    cl_int err;

    if (wrong_object)
        object = pick(4) ? wrong_pointer() : NULL;
    else if (source == api->source_adapter)
        object = api->get_adapter(f->env.d3d);
    else
        object = f->env.d3d;
    cl_device_id *devices_arg = pick(4) ? devices : NULL;
    cl_uint *num_arg = pick(4) ? &num : NULL;
    bool sizes_ok = num_entries ? devices_arg != NULL : devices_arg == NULL && num_arg != NULL;

    err = api->cl->get_device_ids(platform, source, object, set, num_entries, devices_arg, num_arg);
    EXPECT_ONE_OF(err, "clGetDeviceIDsFromD3D", CL_SUCCESS, CL_INVALID_PLATFORM, CL_INVALID_VALUE,
                  CL_DEVICE_NOT_FOUND, api->err_invalid_device);
    if (wrong_object && object && sizes_ok && platform == f->env.platform &&
        (source == api->source_device || source == api->source_adapter) &&
        (set == api->set_preferred || set == api->set_all))
        /* No official error names a bad d3d_object (spec NOTES): dxcl answers CL_INVALID_VALUE. */
        EXPECT_EXACT(err, CL_INVALID_VALUE, "clGetDeviceIDsFromD3D(wrong object)");
    if (!wrong_object && source == api->source_adapter)
        api->release(object);
}

static void fuzz_create(struct d3d1x_family *f)
{
    const struct test_api *api = f->api;
    bool own;
    cl_context context = context_arg(f, &own);
    cl_mem_flags flags = random_flags();
    int kind;
    void *object = d3d_object_arg(f, &kind);
    UINT subresources[] = {0, 1, 2, 3, 4, 5, 7, 8, rnd(), UINT32_MAX};
    UINT subresource = PICK(subresources);
    cl_int err = 12345;
    int fn = pick(3);
    bool has_code;
    cl_mem mem;

    if (fn == 0)
        mem = api->cl->create_buffer(context, flags, object, pick(8) ? &err : NULL);
    else if (fn == 1)
        mem = api->cl->create_texture2d(context, flags, object, subresource, pick(8) ? &err : NULL);
    else
        mem = api->cl->create_texture3d(context, flags, object, subresource, pick(8) ? &err : NULL);
    has_code = err != 12345;
    if (!has_code)
        err = mem ? CL_SUCCESS : CL_INVALID_VALUE; /* no errcode_ret: only mem says */
    EXPECT_ONE_OF(err, "clCreateFromD3D", CL_SUCCESS, CL_INVALID_CONTEXT, CL_INVALID_VALUE,
                  CL_INVALID_OPERATION, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                  api->err_invalid_resource);
    CHECK((err == CL_SUCCESS) == (mem != NULL), "call %llu: create: %d with object %p", calls, err,
          (void *)mem);
    if (has_code && own && valid_flags(flags) && (kind == -1 || kind == 3 || kind == 4))
        EXPECT_EXACT(err, api->err_invalid_resource, "clCreateFromD3D(wrong object)");
    if (has_code && own && valid_flags(flags) && kind == 0 && fn != 0)
        EXPECT_EXACT(err, api->err_invalid_resource, "clCreateFromD3D texture(buffer)");
    if (mem)
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
}

typedef cl_int(CL_API_CALL *transfer_fn)(cl_command_queue queue, cl_uint num_objects,
                                         const cl_mem *mem_objects, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);

/* Acquire or release with generated arguments; a successful acquire is released again at once
 * (and must succeed), so no object stays acquired. */
static void fuzz_transfer(const char *what, transfer_fn acquire, transfer_fn release,
                          cl_command_queue own_queue, cl_command_queue foreign_queue,
                          cl_event own_event, cl_int err_acquired, cl_int err_not_acquired,
                          cl_mem *own_mems, cl_uint own_count)
{
    uint32_t which = pick(24);
    bool no_queue = which >= 21;
    cl_command_queue queue = which < 20   ? own_queue
                             : which < 21 ? foreign_queue
                             : which < 22 ? NULL
                                          : bad_queue_arg();
    cl_mem list[4];
    cl_uint count = pick(4) ? 1 + pick(3) : pick(2) ? 0 : 1;
    bool doing_release = pick(5) == 0, list_null = pick(12) == 0;
    struct wait_args w;
    cl_event event = NULL;
    cl_int err;

    for (cl_uint i = 0; i < count; i++)
        list[i] = own_mems[pick(own_count)];
    /* A successful acquire costs milliseconds (Direct3D map, driver copies): most calls get a
     * generated member, which is most often wrong. */
    if (count && pick(8))
        list[pick(count)] = listed_mem_arg();
    wait_arg(&w, own_event);
    err = (doing_release ? release : acquire)(queue, count, list_null ? NULL : list, w.count,
                                              w.list, pick(2) ? &event : NULL);
    EXPECT_ONE_OF(err, what, CL_SUCCESS, CL_INVALID_VALUE, CL_INVALID_MEM_OBJECT,
                  CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT, CL_INVALID_EVENT_WAIT_LIST,
                  err_acquired, err_not_acquired);
    if (no_queue && err != CL_INVALID_VALUE)
        EXPECT_EXACT(err, CL_INVALID_COMMAND_QUEUE, what);
    CHECK(!no_queue || !event, "call %llu: %s: an event from a call on no queue", calls, what);
    CHECK(!doing_release || err != CL_SUCCESS || count == 0,
          "call %llu: %s: a release of objects never acquired succeeded", calls, what);
    if (event)
        CHECK_ERR(clReleaseEvent(event), CL_SUCCESS);
    if (err == CL_SUCCESS && !doing_release && count && !list_null) {
        err = release(queue, count, list, 0, NULL, NULL);
        calls++;
        CHECK(err == CL_SUCCESS, "call %llu: %s: release after acquire: %d", calls, what, err);
        CHECK_ERR(clFinish(queue), CL_SUCCESS);
    }
}

static void fuzz_d3d1x_transfer(struct d3d1x_family *f)
{
    const struct test_api *api = f->api;
    struct d3d1x_family *other = &d3d1x[pick(D3D1X_COUNT)];

    fuzz_transfer("clEnqueueAcquire/ReleaseD3D", (transfer_fn)api->cl->acquire,
                  (transfer_fn)api->cl->release, f->env.queue, other->env.queue, f->user_event,
                  api->err_already_acquired, api->err_not_acquired, f->mems, 3);
}

/* ---- Operations of the DX9 families ---- */

static void *dx9_object_arg(struct dx9_family *f, int *kind)
{
    switch (pick(6)) {
    case 0:
    case 1:
        *kind = 0;
        return pick(2) ? f->nv12 : f->yv12;
    case 2:
        *kind = 1;
        return pick(2) ? (void *)f->env.d3d : d3d1x[0].tex2d.resource;
    default:
        *kind = -1;
        return wrong_pointer();
    }
}

static void fuzz_dx9_create(struct dx9_family *f)
{
    bool own = pick(6) != 0;
    cl_context context = own       ? f->env.context
                         : pick(2) ? d3d1x[pick(D3D1X_COUNT)].env.context
                         : pick(2) ? (cl_context)wrong_pointer()
                                   : NULL;
    cl_mem_flags flags = random_flags();
    int kind;
    void *object = dx9_object_arg(f, &kind);
    cl_uint planes[] = {0, 1, 2, 3, rnd()};
    cl_uint plane = PICK(planes);
    cl_int err;
    cl_mem mem;

    if (f->intel) {
        mem = dx9.intel_create(context, flags, object, NULL, plane, &err);
    } else {
        cl_dx9_media_adapter_type_khr types[] = {CL_ADAPTER_D3D9EX_KHR, CL_ADAPTER_D3D9_KHR,
                                                 CL_ADAPTER_DXVA_KHR, rnd()};
        cl_dx9_media_adapter_type_khr type = pick(3) ? types[0] : PICK(types);
        cl_dx9_surface_info_khr info = {object, NULL};
        bool no_info = pick(10) == 0;
        mem = dx9.create(context, flags, type, no_info ? NULL : &info, plane, &err);
        if (type != CL_ADAPTER_D3D9EX_KHR || no_info)
            own = false;
    }
    EXPECT_ONE_OF(err, "clCreateFromDX9MediaSurface", CL_SUCCESS, CL_INVALID_CONTEXT,
                  CL_INVALID_VALUE, CL_INVALID_OPERATION, CL_INVALID_DX9_MEDIA_SURFACE_KHR,
                  CL_INVALID_DX9_MEDIA_ADAPTER_KHR, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    if (own && valid_flags(flags) && kind != 0)
        EXPECT_EXACT(err, CL_INVALID_DX9_MEDIA_SURFACE_KHR, "clCreateFromDX9MediaSurface(wrong)");
    if (mem)
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
}

static void fuzz_dx9_get_device_ids(struct dx9_family *f)
{
    cl_platform_id platform = pick(5) ? f->env.platform : NULL;
    cl_device_id devices[4];
    cl_uint num = 9, entries = pick(3);
    bool wrong_object = pick(3) == 0;
    void *object = wrong_object ? wrong_pointer() : (void *)f->env.d3d;
    cl_int err;

    if (f->intel) {
        cl_dx9_device_source_intel sources[] = {CL_D3D9EX_DEVICE_INTEL, CL_D3D9_DEVICE_INTEL,
                                                rnd()};
        cl_dx9_device_set_intel sets[] = {CL_PREFERRED_DEVICES_FOR_DX9_INTEL,
                                          CL_ALL_DEVICES_FOR_DX9_INTEL, rnd()};
        err = dx9.intel_get_device_ids(platform, PICK(sources), object, PICK(sets), entries,
                                       pick(4) ? devices : NULL, pick(4) ? &num : NULL);
    } else {
        cl_dx9_media_adapter_type_khr types[2] = {CL_ADAPTER_D3D9EX_KHR, CL_ADAPTER_D3D9EX_KHR};
        void *adapters[2] = {object, f->env.d3d};
        cl_dx9_media_adapter_set_khr sets[] = {CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR,
                                               CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR, rnd()};
        if (pick(4) == 0)
            types[pick(2)] = pick(2) ? CL_ADAPTER_D3D9_KHR : rnd();
        err = dx9.get_device_ids(platform, pick(3), pick(8) ? types : NULL,
                                 pick(8) ? adapters : NULL, PICK(sets), entries,
                                 pick(4) ? devices : NULL, pick(4) ? &num : NULL);
    }
    EXPECT_ONE_OF(err, "clGetDeviceIDsFromDX9", CL_SUCCESS, CL_INVALID_PLATFORM, CL_INVALID_VALUE,
                  CL_DEVICE_NOT_FOUND, CL_INVALID_DX9_MEDIA_ADAPTER_KHR,
                  CL_INVALID_DX9_DEVICE_INTEL);
}

static void fuzz_dx9_transfer(struct dx9_family *f)
{
    struct dx9_family *other = &dx9f[!(f - dx9f)];

    if (f->intel)
        fuzz_transfer("clEnqueueAcquire/ReleaseDX9ObjectsINTEL", (transfer_fn)dx9.intel_acquire,
                      (transfer_fn)dx9.intel_release, f->env.queue, other->env.queue, f->user_event,
                      CL_DX9_RESOURCE_ALREADY_ACQUIRED_INTEL, CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL,
                      f->mems, 2);
    else
        fuzz_transfer("clEnqueueAcquire/ReleaseDX9MediaSurfaces", (transfer_fn)dx9.acquire,
                      (transfer_fn)dx9.release, f->env.queue, other->env.queue, f->user_event,
                      CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR,
                      CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR, f->mems, 2);
}

/* ---- Core calls dxcl intercepts ---- */

static void fuzz_create_context(void)
{
    struct d3d1x_family *f = &d3d1x[pick(D3D1X_COUNT)];
    cl_context_properties props[12];
    int n = 0, entries = 1 + pick(3);
    cl_device_id device = f->env.device;
    cl_int err;
    cl_context context;

    props[n++] = CL_CONTEXT_PLATFORM;
    props[n++] = (cl_context_properties)f->env.platform;
    for (int i = 0; i < entries; i++) {
        switch (pick(6)) {
        case 0:
            props[n++] = f->api->context_property;
            props[n++] = (cl_context_properties)(pick(2) ? f->env.d3d : wrong_pointer());
            break;
        case 1:
            props[n++] = d3d1x[pick(D3D1X_COUNT)].api->context_property;
            props[n++] = (cl_context_properties)(pick(3) ? NULL : wrong_pointer());
            break;
        case 2:
            props[n++] = pick(2) ? CL_CONTEXT_ADAPTER_D3D9EX_KHR : CL_CONTEXT_D3D9EX_DEVICE_INTEL;
            props[n++] = (cl_context_properties)(pick(2) ? dx9f[0].env.d3d : wrong_pointer());
            break;
        case 3:
            props[n++] = CL_CONTEXT_INTEROP_USER_SYNC;
            props[n++] = pick(3);
            break;
        case 4:
            props[n++] = 0x7fff0000 + pick(16);
            props[n++] = rnd();
            break;
        default:
            props[n++] = f->api->context_property;
            props[n++] =
                (cl_context_properties)(pick(2) ? f->env.d3d : d3d1x[pick(D3D1X_COUNT)].env.d3d);
            break;
        }
    }
    props[n] = 0;
    context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    EXPECT_ONE_OF(err, "clCreateContext", CL_SUCCESS, CL_INVALID_PROPERTY, CL_INVALID_VALUE,
                  CL_INVALID_OPERATION, d3d1x[0].api->err_invalid_device,
                  d3d1x[1].api->err_invalid_device, d3d1x[2].api->err_invalid_device,
                  d3d1x[3].api->err_invalid_device, CL_INVALID_DX9_MEDIA_ADAPTER_KHR,
                  CL_INVALID_DX9_DEVICE_INTEL, CL_INVALID_DEVICE);
    if (context)
        CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
}

/* A family-specific query on an object of another family: that family's invalid resource. */
#define INVALID_RESOURCE_CODES                                                                     \
    d3d1x[0].api->err_invalid_resource, d3d1x[1].api->err_invalid_resource,                        \
        d3d1x[2].api->err_invalid_resource, d3d1x[3].api->err_invalid_resource,                    \
        CL_INVALID_DX9_MEDIA_SURFACE_KHR, CL_INVALID_DX9_RESOURCE_INTEL

static void fuzz_queries(void)
{
    unsigned char value[256];
    size_t sizes[] = {0, 1, 4, 8, 16, 256}, size = PICK(sizes), size_ret;
    bool has_value = pick(4) != 0;
    cl_int err;

    switch (pick(4)) {
    case 0: {
        struct d3d1x_family *f = &d3d1x[pick(D3D1X_COUNT)];
        cl_context context = pick(6) ? f->env.context : pick(2) ? plain_context : NULL;
        cl_context_info params[] = {CL_CONTEXT_REFERENCE_COUNT,
                                    CL_CONTEXT_PROPERTIES,
                                    CL_CONTEXT_NUM_DEVICES,
                                    f->api->prefer_shared_query,
                                    d3d1x[pick(D3D1X_COUNT)].api->prefer_shared_query,
                                    rnd()};
        cl_context_info param = PICK(params);
        size_t *size_ret_arg = pick(2) ? &size_ret : NULL;
        err = clGetContextInfo(context, param, size, has_value ? value : NULL, size_ret_arg);
        EXPECT_ONE_OF(err, "clGetContextInfo", CL_SUCCESS, CL_INVALID_VALUE, CL_INVALID_CONTEXT);
        break;
    }
    case 1: {
        cl_mem_info params[] = {CL_MEM_TYPE,
                                CL_MEM_FLAGS,
                                CL_MEM_SIZE,
                                CL_MEM_CONTEXT,
                                d3d1x[pick(D3D1X_COUNT)].api->mem_resource_query,
                                CL_MEM_DX9_MEDIA_SURFACE_INFO_KHR,
                                CL_MEM_DX9_MEDIA_ADAPTER_TYPE_KHR,
                                CL_MEM_DX9_RESOURCE_INTEL,
                                rnd()};
        err = clGetMemObjectInfo(safe_mem_arg(), PICK(params), size, has_value ? value : NULL,
                                 pick(2) ? &size_ret : NULL);
        EXPECT_ONE_OF(err, "clGetMemObjectInfo", CL_SUCCESS, CL_INVALID_VALUE,
                      CL_INVALID_MEM_OBJECT, INVALID_RESOURCE_CODES);
        break;
    }
    case 2: {
        cl_image_info params[] = {CL_IMAGE_FORMAT,
                                  CL_IMAGE_WIDTH,
                                  CL_IMAGE_DEPTH,
                                  d3d1x[pick(D3D1X_COUNT)].api->image_subresource_query,
                                  CL_IMAGE_DX9_MEDIA_PLANE_KHR,
                                  CL_IMAGE_DX9_PLANE_INTEL,
                                  rnd()};
        err = clGetImageInfo(safe_mem_arg(), PICK(params), size, has_value ? value : NULL,
                             pick(2) ? &size_ret : NULL);
        EXPECT_ONE_OF(err, "clGetImageInfo", CL_SUCCESS, CL_INVALID_VALUE, CL_INVALID_MEM_OBJECT,
                      INVALID_RESOURCE_CODES);
        break;
    }
    default: {
        cl_event event = pick(5) ? d3d1x[pick(D3D1X_COUNT)].user_event : NULL;
        cl_event_info params[] = {CL_EVENT_COMMAND_TYPE, CL_EVENT_CONTEXT,
                                  CL_EVENT_COMMAND_EXECUTION_STATUS, CL_EVENT_REFERENCE_COUNT,
                                  rnd()};
        err = clGetEventInfo(event, PICK(params), size, has_value ? value : NULL,
                             pick(2) ? &size_ret : NULL);
        EXPECT_ONE_OF(err, "clGetEventInfo", CL_SUCCESS, CL_INVALID_VALUE, CL_INVALID_EVENT);
        break;
    }
    }
}

static cl_kernel fuzz_kernel;

static void fuzz_kernel_and_enqueue(void)
{
    struct d3d1x_family *f = &d3d1x[pick(D3D1X_COUNT)];
    cl_mem mem = safe_mem_arg();
    unsigned char bytes[BUFFER_BYTES];
    cl_int err;

    switch (pick(5)) {
    case 0: {
        size_t sizes[] = {sizeof(cl_mem), 0, 4, 16};
        err = clSetKernelArg(fuzz_kernel, pick(4), PICK(sizes), pick(6) ? &mem : NULL);
        EXPECT_ONE_OF(err, "clSetKernelArg", CL_SUCCESS, CL_INVALID_ARG_INDEX, CL_INVALID_ARG_SIZE,
                      CL_INVALID_ARG_VALUE, CL_INVALID_MEM_OBJECT);
        break;
    }
    case 1:
        /* A shared object that is not acquired may not be used by commands. */
        err = clEnqueueReadBuffer(f->env.queue, f->mems[0], CL_TRUE, pick(300), pick(300), bytes, 0,
                                  NULL, NULL);
        EXPECT_ONE_OF(err, "clEnqueueReadBuffer(shared)", f->api->err_not_acquired,
                      CL_INVALID_VALUE);
        break;
    case 2: {
        size_t origin[3] = {pick(8), pick(8), 0}, region[3] = {1 + pick(4), 1 + pick(4), 1};
        err = clEnqueueReadImage(f->env.queue, f->mems[1], CL_TRUE, origin, region, 0, 0, bytes, 0,
                                 NULL, NULL);
        EXPECT_ONE_OF(err, "clEnqueueReadImage(shared)", f->api->err_not_acquired,
                      CL_INVALID_VALUE);
        break;
    }
    case 3: {
        const cl_uint pattern = rnd();
        err = clEnqueueFillBuffer(f->env.queue, f->mems[0], &pattern, 4, 4 * pick(80), 4 * pick(80),
                                  0, NULL, NULL);
        EXPECT_ONE_OF(err, "clEnqueueFillBuffer(shared)", f->api->err_not_acquired,
                      CL_INVALID_VALUE);
        break;
    }
    default: {
        cl_mem target = f->mems[pick(3)];
        bool context = pick(2);
        err = context ? clRetainContext(f->env.context) : clRetainMemObject(target);
        EXPECT_ONE_OF(err, "clRetain", CL_SUCCESS);
        err = context ? clReleaseContext(f->env.context) : clReleaseMemObject(target);
        EXPECT_ONE_OF(err, "clRelease", CL_SUCCESS);
        break;
    }
    }
}

/* ---- Regressions found by this program ---- */

/* A resource of another family's device (a D3D11 texture given to the D3D10 calls: Wine's
 * ID3D10Resource::GetDevice then yields NULL) is an invalid resource, not a crash. */
static void regression_foreign_resources(void)
{
    for (int i = 0; i < D3D1X_COUNT; i++) {
        struct d3d1x_family *f = &d3d1x[i];
        for (int j = 0; j < D3D1X_COUNT; j++) {
            struct d3d1x_family *g = &d3d1x[j];
            cl_int err;
            cl_mem mem;
            if (g->api->create_device == f->api->create_device)
                continue;
            mem = f->api->cl->create_texture2d(f->env.context, CL_MEM_READ_WRITE, g->tex2d.resource,
                                               0, &err);
            CHECK(mem == NULL && err == f->api->err_invalid_resource,
                  "%s create from a %s texture: %d", f->api->name, g->api->name, err);
            mem = f->api->cl->create_buffer(f->env.context, CL_MEM_READ_WRITE, g->buffer, &err);
            CHECK(mem == NULL && err == f->api->err_invalid_resource,
                  "%s create from a %s buffer: %d", f->api->name, g->api->name, err);
        }
    }
}

/* ---- The final round trip ---- */

static void roundtrip_d3d1x(struct d3d1x_family *f, uint32_t seed)
{
    const struct test_api *api = f->api;
    unsigned char want[BUFFER_BYTES], got[BUFFER_BYTES], twod[4 * 4 * 4];
    size_t origin[3] = {0}, region[3] = {4, 4, 1};
    cl_int err;

    /* D3D -> CL: what the setup put in subresource 1 of the 2D texture (4x4 RGBA8). */
    CHECK_ERR(api->cl->acquire(f->env.queue, 3, f->mems, 0, NULL, NULL), CL_SUCCESS);
    err = clEnqueueReadImage(f->env.queue, f->mems[1], CL_TRUE, origin, region, 0, 0, twod, 0, NULL,
                             NULL);
    CHECK_ERR(err, CL_SUCCESS);
    test_same_bytes(twod, f->tex2d.data[1], sizeof(twod), "fuzzed 2D object after the run");
    /* CL -> D3D: a new buffer content. */
    test_fill_bytes(want, sizeof(want), seed);
    CHECK_ERR(clEnqueueWriteBuffer(f->env.queue, f->mems[0], CL_TRUE, 0, sizeof(want), want, 0,
                                   NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(api->cl->release(f->env.queue, 3, f->mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(f->env.queue), CL_SUCCESS);
    CHECK(api->read_subresource(f->buffer, 0, got), "%s: read back", api->name);
    test_same_bytes(got, want, sizeof(got), "fuzzed buffer object after the run");
    test_texture_intact(api, &f->tex3d, "3D texture after the run");
}

static void roundtrip_dx9(struct dx9_family *f, uint32_t seed)
{
    size_t bytes = dx9_content_bytes(DX9_FMT_NV12, 16, 16);
    unsigned char *want = malloc(bytes), *got = malloc(bytes), luma[16 * 16];
    size_t origin[3] = {0}, region[3] = {16, 16, 1};

    test_fill_bytes(want, bytes, seed);
    REQUIRE(dx9_write(f->nv12, want, false), "DX9 write");
    CHECK_ERR(f->intel ? dx9.intel_acquire(f->env.queue, 1, f->mems, 0, NULL, NULL)
                       : dx9.acquire(f->env.queue, 1, f->mems, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(f->env.queue, f->mems[0], CL_TRUE, origin, region, 0, 0, luma, 0,
                                 NULL, NULL),
              CL_SUCCESS);
    test_same_bytes(luma, want, sizeof(luma), "DX9 NV12 luma after the run");
    for (size_t i = 0; i < sizeof(luma); i++)
        luma[i] ^= 0xa5;
    CHECK_ERR(clEnqueueWriteImage(f->env.queue, f->mems[0], CL_TRUE, origin, region, 0, 0, luma, 0,
                                  NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(f->intel ? dx9.intel_release(f->env.queue, 1, f->mems, 0, NULL, NULL)
                       : dx9.release(f->env.queue, 1, f->mems, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clFinish(f->env.queue), CL_SUCCESS);
    REQUIRE(dx9_read(f->nv12, got, false), "DX9 read");
    memcpy(want, luma, sizeof(luma));
    test_same_bytes(got, want, bytes, "DX9 NV12 surface after the run");
    free(want);
    free(got);
}

int main(int argc, char **argv)
{
    const struct test_api *apis[D3D1X_COUNT] = {&api_d3d11_khr, &api_d3d11_nv, &api_d3d10_khr,
                                                &api_d3d10_nv};
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 13;
    unsigned long long target = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
    cl_int err;
    DWORD start;

    SetUnhandledExceptionFilter(report_crash);
    printf("fuzz seed %u, %llu calls (rerun: test_fuzz.exe %u %llu)\n", seed, target, seed, target);
    rng_state = 0x9e3779b97f4a7c15ull ^ seed;
    make_wrong_pointers();
    for (int i = 0; i < D3D1X_COUNT; i++)
        open_d3d1x(&d3d1x[i], apis[i], seed + 10 * i);
    dx9_load(d3d1x[0].env.platform);
    open_dx9(&dx9f[0], false);
    open_dx9(&dx9f[1], true);
    plain_context = clCreateContext(NULL, 1, &d3d1x[0].env.device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain context: %d", err);
    plain_buffer = clCreateBuffer(plain_context, CL_MEM_READ_WRITE, 64, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "plain buffer: %d", err);
    released_queue = clCreateCommandQueue(plain_context, d3d1x[0].env.device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "a queue to release: %d", err);
    CHECK_ERR(clReleaseCommandQueue(released_queue), CL_SUCCESS);
    fuzz_kernel = interop_kernel(&d3d1x[0].env, "xor2");

    regression_foreign_resources();
    start = GetTickCount();
    unsigned long long next_progress = 20000;
    while (calls < target && test_failures < 20) {
        if (calls >= next_progress) {
            test_progress("fuzz: %llu of %llu calls", calls, target);
            next_progress += 20000;
        }
        struct d3d1x_family *f = &d3d1x[pick(D3D1X_COUNT)];
        struct dx9_family *g = &dx9f[pick(2)];
        switch (pick(20)) {
        case 0:
            current_op = "fuzz_get_device_ids";
            fuzz_get_device_ids(f);
            break;
        case 1:
        case 2:
        case 3:
        case 4:
            current_op = "fuzz_create";
            fuzz_create(f);
            break;
        case 5:
        case 6:
        case 7:
            current_op = "fuzz_d3d1x_transfer";
            fuzz_d3d1x_transfer(f);
            break;
        case 8:
            current_op = "fuzz_dx9_get_device_ids";
            fuzz_dx9_get_device_ids(g);
            break;
        case 9:
        case 10:
            current_op = "fuzz_dx9_create";
            fuzz_dx9_create(g);
            break;
        case 11:
        case 12:
            current_op = "fuzz_dx9_transfer";
            fuzz_dx9_transfer(g);
            break;
        case 13:
            if (pick(64) == 0) /* a driver context costs milliseconds */
                fuzz_create_context();
            break;
        case 14:
        case 15:
        case 16:
            current_op = "fuzz_queries";
            fuzz_queries();
            break;
        default:
            current_op = "fuzz_kernel_and_enqueue";
            fuzz_kernel_and_enqueue();
            break;
        }
    }
    printf("fuzz: %llu calls in %lu ms, seed %u\n", calls, GetTickCount() - start, seed);

    for (int i = 0; i < D3D1X_COUNT; i++)
        roundtrip_d3d1x(&d3d1x[i], seed + 100 + i);
    for (int i = 0; i < 2; i++)
        roundtrip_dx9(&dx9f[i], seed + 200 + i);

    CHECK_ERR(clReleaseKernel(fuzz_kernel), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(plain_buffer), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(plain_context), CL_SUCCESS);
    for (int i = 0; i < D3D1X_COUNT; i++)
        close_d3d1x(&d3d1x[i]);
    for (int i = 0; i < 2; i++)
        close_dx9(&dx9f[i]);
    return test_finish("fuzz");
}
