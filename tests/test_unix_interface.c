/* The interface of dxcl's Unix side under bad input (issue 40; docs/proxy.md, "The Unix
 * side"). The program reaches dxclunix.dll's Unix calls itself, as its PE half does (ntdll's
 * __wine_unix_call_dispatcher and the handle of the pair's Unix half), and calls them with
 * NULL and unmapped parameters, bad counts, names, handles and fd handles, and host functions
 * with bad handles. No call may crash, close a host fd that the Unix side did not issue, or
 * leave one of the Unix side's locks held. It uses the Unix side's test hooks (test-only:
 * DXCL_UNIX_TEST_HOOKS=1, set by CTest): an fd handle of a new fd of /dev/null, the list of
 * host fds open, and a try of each lock. Then through the OpenCL API: a faulted call answers
 * the spec's error for the kind of handle it names, and NULL with that error in errcode_ret for
 * a function that returns an object, core and extension (clCreateCommandBufferKHR); and no
 * import takes a host fd by its number. CTest runs it only as test_unix_interface.unix. Run
 * elsewhere (the GPU rig runs every program): without the hooks it checks what needs none
 * and says so in one line; not through the Unix side, it checks the faulted calls through
 * dxcl alone. */
#include "testlib.h"
#include "real_driver.h"
#include "unix/dxclunix.h"

#include <CL/cl_ext.h>
#include <stdlib.h>
#include <string.h>

typedef LONG(WINAPI *unix_dispatcher_fn)(UINT64 handle, unsigned int code, void *args);
typedef LONG(WINAPI *query_memory_fn)(HANDLE process, const void *address, int info_class,
                                      void *buffer, SIZE_T size, SIZE_T *size_ret);

static unix_dispatcher_fn dispatcher;
static UINT64 unix_handle;
static real_driver_lookup_fn pair_lookup;
static HMODULE pair;    /* dxclunix.dll */
static void *unmapped;  /* an address with no page */
static void *no_access; /* a committed PAGE_NOACCESS page */
static uint8_t fds_before[128];
static bool hooks; /* the Unix side answers the test hooks (DXCL_UNIX_TEST_HOOKS=1) */

static LONG call(unsigned code, void *params)
{
    return dispatcher(unix_handle, code, params);
}

static bool faulted(LONG status)
{
    return status < DXCLUNIX_FAULTED;
}

/* The pair, its Unix half's dispatcher and handle, as its PE half finds them; false when
 * no Wine DLL folder has the pair. */
static bool find_pair(void)
{
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    query_memory_fn query = (query_memory_fn)(void *)GetProcAddress(ntdll, "NtQueryVirtualMemory");
    unix_dispatcher_fn *found =
        (unix_dispatcher_fn *)(void *)GetProcAddress(ntdll, "__wine_unix_call_dispatcher");

    if (!(pair = real_driver_load_unix_side(&pair_lookup)) || !pair_lookup)
        return false;
    REQUIRE(query && found && *found, "ntdll has no Unix call dispatcher");
    REQUIRE(!query(GetCurrentProcess(), pair, 1000 /* MemoryWineUnixFuncs */, &unix_handle,
                   sizeof(unix_handle), NULL) &&
                unix_handle,
            "dxclunix.dll has no Unix half");
    dispatcher = *found;
    return true;
}

static LONG test_hook(struct dxclunix_test *test, enum dxclunix_test_op op)
{
    memset(test, 0, sizeof(*test));
    test->op = op;
    return call(DXCLUNIX_TEST, test);
}

/* After every bad call: none of the Unix side's locks is held. */
static void check_no_lock_held(const char *after)
{
    struct dxclunix_test test = {0};

    if (!hooks)
        return;
    CHECK(test_hook(&test, DXCLUNIX_TEST_LOCKS) == 0 && test.locks_held == 0,
          "after %s: no lock of the Unix side is held (held: 0x%x)", after, test.locks_held);
}

static void open_fds(uint8_t fds[128])
{
    struct dxclunix_test test = {0};

    REQUIRE(test_hook(&test, DXCLUNIX_TEST_OPEN_FDS) == 0, "the test hooks answer");
    memcpy(fds, test.open_fds, sizeof(test.open_fds));
}

static bool fd_open(const uint8_t fds[128], int fd)
{
    return fds[fd / 8] & (1u << (fd % 8));
}

/* Every host fd open at the start is still open. */
static void check_fds_kept(const char *after)
{
    uint8_t now[128];
    int closed = -1;

    if (!hooks)
        return;
    open_fds(now);
    for (int fd = 0; fd < 1024 && closed < 0; fd++)
        if (fd_open(fds_before, fd) && !fd_open(now, fd))
            closed = fd;
    CHECK(closed < 0, "after %s: every host fd open before is open (fd %d was closed)", after,
          closed);
}

static int32_t issue_fd(int *fd)
{
    struct dxclunix_test test = {0};

    REQUIRE(test_hook(&test, DXCLUNIX_TEST_ISSUE_FD) == 0 && test.handle >= 0,
            "the test hook issues an fd handle");
    *fd = test.fd;
    return test.handle;
}

static LONG close_fd(int32_t handle)
{
    struct dxclunix_fd params = {handle};

    return call(DXCLUNIX_CLOSE_FD, &params);
}

/* Every call of fixed code with NULL, with an unmapped page and with a page it cannot read:
 * those of enum dxclunix_code, the Vulkan layer's calls among them. */
static void bad_parameter_pointers(void)
{
    static const unsigned codes[] = {DXCLUNIX_OPEN,         DXCLUNIX_QUERY,    DXCLUNIX_EXTENSION,
                                     DXCLUNIX_SIGNALS,      DXCLUNIX_CLOSE_FD, DXCLUNIX_WATCH,
                                     DXCLUNIX_WAIT_WATCHED, DXCLUNIX_HOST_ICDS};
    unsigned count = sizeof(codes) / sizeof(codes[0]);

    for (unsigned i = 0; i < count + DXCL_LAYER_CALL_COUNT; i++) {
        unsigned code = i < count ? codes[i] : DXCLUNIX_LAYER_CODE(i - count);
        char what[64];

        CHECK(call(code, NULL) == DXCLUNIX_STATUS_INVALID_PARAMETER,
              "Unix call %u with NULL parameters: refused", code);
        CHECK(faulted(call(code, unmapped)), "Unix call %u on an unmapped page: faulted", code);
        CHECK(faulted(call(code, no_access)), "Unix call %u on a PAGE_NOACCESS page: faulted",
              code);
        snprintf(what, sizeof(what), "Unix call %u with bad parameters", code);
        check_no_lock_held(what);
    }
    CHECK(faulted(call(DXCLUNIX_API_CODE(DXCLUNIX_API_clGetDeviceIDs), unmapped)),
          "an entry point's call on an unmapped page: faulted");
    CHECK(call(DXCLUNIX_API_CODE(DXCLUNIX_API_clGetDeviceIDs), NULL) ==
              DXCLUNIX_STATUS_INVALID_PARAMETER,
          "an entry point's call with NULL: refused");
    CHECK(call(DXCLUNIX_EXT_CODE(DXCLUNIX_EXT_clCreateCommandBufferKHR), NULL) ==
              DXCLUNIX_STATUS_INVALID_PARAMETER,
          "an extension function's call with NULL: refused");
    check_no_lock_held("the calls with bad parameters");
}

/* Counts and names: the query's count, a name that does not end, an unknown one. */
static void bad_counts_and_names(cl_platform_id platform)
{
    struct dxclunix_query query = {DXCLUNIX_API_COUNT - 1, {0}};
    struct dxclunix_extension ext = {.with_platform = 1, .platform = (UINT64)(UINT_PTR)platform};

    CHECK(call(DXCLUNIX_QUERY, &query) == DXCLUNIX_STATUS_INVALID_PARAMETER,
          "a query with the wrong count is refused");
    query.count = 1u << 31;
    CHECK(call(DXCLUNIX_QUERY, &query) == DXCLUNIX_STATUS_INVALID_PARAMETER,
          "a query with a huge count is refused");
    memset(ext.name, 'x', sizeof(ext.name));
    CHECK(call(DXCLUNIX_EXTENSION, &ext) == DXCLUNIX_STATUS_INVALID_PARAMETER,
          "an extension name that does not end in its array is refused");
    strcpy(ext.name, "clNoSuchFunctionKHR");
    CHECK(call(DXCLUNIX_EXTENSION, &ext) == 0 && ext.index == -1 && ext.why[0],
          "an unknown extension function has no index (%s)", ext.why);
    strcpy(ext.name, "clEnqueueSVMFreeARM");
    CHECK(call(DXCLUNIX_EXTENSION, &ext) == 0 && ext.index == -1,
          "an extension function that takes a callback is not handed out");
    strcpy(ext.name, "clCreateCommandBufferKHR");
    ext.platform = (UINT64)(UINT_PTR)unmapped;
    CHECK(faulted(call(DXCLUNIX_EXTENSION, &ext)) || ext.index == -1,
          "a look-up on a bad platform faults or finds nothing");
    check_no_lock_held("the bad counts and names");
}

/* fd handles: nothing closes an fd it did not issue; an issued one closes once. */
static void bad_fd_handles(void)
{
    const int32_t bad[] = {-1,
                           0,
                           1,
                           2,
                           INT32_MAX,
                           DXCLUNIX_FD_HANDLE_TAG,
                           DXCLUNIX_FD_HANDLE_TAG | 0xff,
                           DXCLUNIX_FD_HANDLE_TAG | 0xffffff};
    int fd;
    int32_t handle;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(close_fd(bad[i]) == DXCLUNIX_STATUS_INVALID_HANDLE,
              "closing fd handle 0x%x, never issued: refused", (unsigned)bad[i]);
    if (!hooks)
        return;
    for (int raw = 0; raw < 1024; raw++)
        if (fd_open(fds_before, raw))
            close_fd(raw); /* every open host fd by its number: none is a handle */
    check_fds_kept("closing every open host fd by its number");
    handle = issue_fd(&fd);
    CHECK(close_fd(handle ^ (1 << 8)) == DXCLUNIX_STATUS_INVALID_HANDLE,
          "a handle of another generation is refused");
    CHECK(close_fd((handle & ~0xff) | ((handle + 1) & 0xff)) == DXCLUNIX_STATUS_INVALID_HANDLE,
          "a handle of another slot is refused");
    CHECK(close_fd(handle) == 0, "an issued handle closes");
    CHECK(close_fd(handle) == DXCLUNIX_STATUS_INVALID_HANDLE, "a closed handle is stale");
    {
        uint8_t now[128];

        open_fds(now);
        CHECK(!fd_open(now, fd) || fd_open(fds_before, fd), "the handle's fd %d is closed", fd);
    }
    check_no_lock_held("the fd handles");
}

/* The Vulkan layer's calls (dxclunix.h, DXCLUNIX_LAYER_CALLS) with ids the layer never issued
 * and out fds that hold host fds: each answers (the layer refuses the id, or is not loaded), no
 * fd comes back, and the Unix side closes none. */
static void layer_bad_ids(void)
{
    struct dxclunix_layer_twin_export export = {.call = {.twin = 0xdead, .fd = 1}};
    struct dxclunix_layer_twin_ready_fd ready = {.call = {.twin = 0xdead, .fd = 2}};
    struct dxclunix_layer_twin_create create = {
        .call = {.request = {.device = 0xdead, .width = 64, .height = 64, .depth = 1}}};
    struct dxclunix_layer_twin_destroy destroy = {.call = {.twin = 0xdead}};
    struct dxclunix_layer_twin_check check = {.call = {.twin = 0}};
    struct dxclunix_layer_released released = {.call = {.twin = 0xdead, .value = 1}};
    struct dxclunix_layer_release_state state = {.call = {.twin = 0xdead, .value = 1}};
    struct dxclunix_layer_wait wait = {.call = {.device = 0xdead, .value = 1}};

    create.call.twin.fd = 0;
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_TWIN_EXPORT), &export) == 0 && export.result &&
              export.call.fd == -1,
          "an export of twin 0xdead: refused, no fd (%d, layer missing %u)", export.result,
          export.layer_missing);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_TWIN_READY_FD), &ready) == 0 && ready.result &&
              ready.call.fd == -1,
          "twin 0xdead's `ready`: refused, no fd (%d)", ready.result);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_TWIN_CREATE), &create) == 0 && create.result &&
              create.call.twin.fd == -1 && !create.call.twin.id,
          "a twin on device 0xdead: refused, no twin, no fd (%d)", create.result);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_TWIN_DESTROY), &destroy) == 0 && destroy.result,
          "a destroy of twin 0xdead: refused (%d)", destroy.result);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_TWIN_CHECK), &check) == 0 && check.result,
          "a check of twin 0: refused (%d)", check.result);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_RELEASED), &released) == 0,
          "a release of twin 0xdead answers (%d)", released.result);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_RELEASE_STATE), &state) == 0 && state.result,
          "the release state of twin 0xdead: refused (%d)", state.result);
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_WAIT), &wait) == 0 && wait.result,
          "a wait on device 0xdead: refused (%d)", wait.result);
    check_fds_kept("the layer's calls with bad ids");
    check_no_lock_held("the layer's calls with bad ids");
}

/* A hand-over's count beyond DXCL_HAND_OVER_MAX is refused before the layer reads the items. */
static void layer_bad_counts(void)
{
    static struct dxclunix_layer_hand_over batch;
    const uint32_t counts[] = {DXCL_HAND_OVER_MAX + 1, 1000, UINT32_MAX};

    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        memset(&batch, 0, sizeof(batch));
        batch.call.device = 0xdead;
        batch.call.count = counts[i];
        CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_HAND_OVER), &batch) ==
                  DXCLUNIX_STATUS_INVALID_PARAMETER,
              "a hand-over of %u twins: refused", counts[i]);
    }
    batch.call.count = 1;
    batch.call.items[0] = (struct dxcl_hand_over_item){.twin = 0xdead, .op = DXCL_HAND_IN};
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_HAND_OVER), &batch) == 0 && batch.result,
          "a hand-over of twin 0xdead: refused (%d)", batch.result);
    check_no_lock_held("the hand-overs with bad counts");
}

/* The release watch (the Unix side's own call): no event, a bad one, a user event. */
static void layer_release_watches(cl_context context)
{
    struct dxclunix_layer_release_when when = {.call = {.twin = 0xdead, .value = 1}};
    cl_int err;
    cl_event user = clCreateUserEvent(context, &err);

    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_RELEASE_WHEN), &when) == 0 &&
              when.result == CL_INVALID_EVENT,
          "a release watch of no event: CL_INVALID_EVENT (%d)", when.result);
    when.call.event = (UINT64)(UINT_PTR)unmapped;
    CHECK(faulted(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_RELEASE_WHEN), &when)),
          "a release watch of a bad event faults");
    check_no_lock_held("the release watch of a bad event");
    REQUIRE(user, "clCreateUserEvent: %d", err);
    when.call.event = (UINT64)(UINT_PTR)user;
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_RELEASE_WHEN), &when) == 0 && when.result == 0,
          "a release watch of a user event (%d)", when.result);
    clSetUserEventStatus(user, CL_COMPLETE);
    clReleaseEvent(user);
    when.call.event = 0; /* the next watch releases the ended one's event */
    CHECK(call(DXCLUNIX_LAYER_CODE(DXCL_LAYER_RELEASE_WHEN), &when) == 0 &&
              when.result == CL_INVALID_EVENT,
          "a release watch after an ended one answers (%d)", when.result);
    check_no_lock_held("the release watches");
}

typedef int32_t(WINAPI *pair_layer_call_fn)(uint32_t call, void *params, uint32_t *layer_missing);
typedef BOOL(WINAPI *pair_close_fd_fn)(int32_t handle);

/* What dxcl calls: dxclunixLayerCall refuses a call that does not exist, NULL parameters and a
 * hand-over's bad count; dxclunixCloseFd a handle never issued. */
static void layer_through_the_pair(void)
{
    pair_layer_call_fn layer_call =
        (pair_layer_call_fn)(void *)GetProcAddress(pair, "dxclunixLayerCall");
    pair_close_fd_fn close_handle =
        (pair_close_fd_fn)(void *)GetProcAddress(pair, "dxclunixCloseFd");
    static struct dxcl_hand_over batch = {.device = 0xdead, .count = DXCL_HAND_OVER_MAX + 1};
    struct dxcl_layer_twin twin = {.twin = 0xdead};
    uint32_t missing = 7;

    REQUIRE(layer_call && close_handle, "dxclunix.dll exports dxclunixLayerCall, dxclunixCloseFd");
    CHECK(layer_call(DXCL_LAYER_CALL_COUNT, &twin, &missing) == -1 && !missing,
          "layer call %d, which does not exist: -1", DXCL_LAYER_CALL_COUNT);
    CHECK(layer_call(UINT32_MAX, &twin, &missing) == -1 && !missing, "layer call 0xffffffff: -1");
    CHECK(layer_call(DXCL_LAYER_TWIN_CHECK, NULL, &missing) == -1 && !missing,
          "a layer call with NULL: -1");
    CHECK(layer_call(DXCL_LAYER_HAND_OVER, &batch, &missing) == -1 && !missing,
          "a hand-over of %u twins through the pair: -1", batch.count);
    CHECK(layer_call(DXCL_LAYER_TWIN_CHECK, &twin, &missing) != 0,
          "a check of twin 0xdead through the pair: refused (layer missing %u)", missing);
    CHECK(!close_handle(DXCLUNIX_FD_HANDLE_TAG | 0x123456) && !close_handle(1),
          "dxclunixCloseFd: handles never issued are refused");
    check_fds_kept("the layer's calls through the pair");
    check_no_lock_held("the layer's calls through the pair");
}

/* clCreateBufferWithProperties through the Unix call: `value` as the opaque fd. */
static LONG import_buffer(cl_context context, const cl_mem_properties *properties, cl_int *err,
                          cl_mem *made)
{
    union dxclunix_clCreateBufferWithProperties_params p = {.context = (UINT64)(UINT_PTR)context,
                                                            .properties =
                                                                (UINT64)(UINT_PTR)properties,
                                                            .flags = CL_MEM_READ_WRITE,
                                                            .size = 4096,
                                                            .errcode_ret = (UINT64)(UINT_PTR)err};
    LONG status = call(DXCLUNIX_API_CODE(DXCLUNIX_API_clCreateBufferWithProperties), &p);

    *made = (cl_mem)(UINT_PTR)p.result;
    return status;
}

/* The imports' fd properties: a raw fd number is refused, an issued handle is lent to the
 * driver and comes back when it refuses the import; a bad list faults with nothing lent. */
static void import_fds(cl_context context)
{
    cl_mem_properties properties[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, 1, 0};
    cl_mem_properties *long_list = calloc(400, sizeof(*long_list));
    cl_int err = CL_SUCCESS;
    cl_mem made = NULL;
    int fd;
    int32_t handle;

    REQUIRE(long_list, "out of memory");
    CHECK(import_buffer(context, properties, &err, &made) == 0 && !made &&
              err == CL_INVALID_PROPERTY,
          "an import of host fd 1 by its number: CL_INVALID_PROPERTY (%d)", err);
    if (!hooks) {
        free(long_list);
        return;
    }
    handle = issue_fd(&fd);
    properties[1] = (cl_mem_properties)handle;
    err = CL_SUCCESS;
    CHECK(import_buffer(context, properties, &err, &made) == 0 && (made || err != CL_SUCCESS),
          "an import of an issued handle reaches the driver (%d)", err);
    if (made)
        clReleaseMemObject(made);
    else
        CHECK(close_fd(handle) == 0, "a refused import leaves its handle issued");
    handle = issue_fd(&fd);
    CHECK(faulted(import_buffer(context, unmapped, &err, &made)),
          "an import with an unmapped property list faults");
    for (int i = 0; i < 398; i += 2)
        long_list[i] = CL_MEM_FLAGS, long_list[i + 1] = CL_MEM_READ_WRITE;
    long_list[0] = CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
    long_list[1] = (cl_mem_properties)handle;
    err = CL_SUCCESS;
    CHECK(import_buffer(context, long_list, &err, &made) == 0 && !made &&
              err == CL_INVALID_PROPERTY,
          "an import with a list longer than the Unix side reads: CL_INVALID_PROPERTY (%d)", err);
    CHECK(close_fd(handle) == 0, "the handle of the faulted and refused imports is still issued");
    free(long_list);
    check_fds_kept("the imports");
    check_no_lock_held("the imports");
}

/* Through dxcl's own OpenCL.dll: a program's import of a host fd by its number is refused. */
static void import_through_dxcl(cl_context context)
{
    const cl_mem_properties properties[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, 2, 0};
    cl_int err = CL_SUCCESS;
    cl_mem made =
        clCreateBufferWithProperties(context, properties, CL_MEM_READ_WRITE, 4096, NULL, &err);

    CHECK(!made && err != CL_SUCCESS, "a program's import of host fd 2 fails (%d)", err);
    if (made)
        clReleaseMemObject(made);
    check_fds_kept("a program's import of an fd by its number");
}

/* The pair's entry point `name` (what dxcl calls). */
#define PAIR_FN(name) ((__typeof__(&name))pair_lookup(#name))

/* Host functions given a handle that points nowhere: the host faults on it, and the call
 * answers the spec's error for that kind of handle. */
static void bad_handles_answer_their_kind(void)
{
    void *bad = unmapped;
    cl_event bad_event = bad;
    size_t size = 0;
    cl_int err = CL_SUCCESS;

    CHECK_ERR(PAIR_FN(clGetPlatformInfo)(bad, CL_PLATFORM_NAME, 0, NULL, &size),
              CL_INVALID_PLATFORM);
    CHECK_ERR(PAIR_FN(clGetDeviceInfo)(bad, CL_DEVICE_NAME, 0, NULL, &size), CL_INVALID_DEVICE);
    CHECK_ERR(PAIR_FN(clGetContextInfo)(bad, CL_CONTEXT_DEVICES, 0, NULL, &size),
              CL_INVALID_CONTEXT);
    CHECK_ERR(PAIR_FN(clGetCommandQueueInfo)(bad, CL_QUEUE_CONTEXT, 0, NULL, &size),
              CL_INVALID_COMMAND_QUEUE);
    CHECK_ERR(PAIR_FN(clGetMemObjectInfo)(bad, CL_MEM_SIZE, 0, NULL, &size), CL_INVALID_MEM_OBJECT);
    CHECK_ERR(PAIR_FN(clGetProgramInfo)(bad, CL_PROGRAM_CONTEXT, 0, NULL, &size),
              CL_INVALID_PROGRAM);
    CHECK_ERR(PAIR_FN(clGetKernelInfo)(bad, CL_KERNEL_CONTEXT, 0, NULL, &size), CL_INVALID_KERNEL);
    CHECK_ERR(PAIR_FN(clGetEventInfo)(bad, CL_EVENT_CONTEXT, 0, NULL, &size), CL_INVALID_EVENT);
    CHECK_ERR(PAIR_FN(clGetSamplerInfo)(bad, CL_SAMPLER_CONTEXT, 0, NULL, &size),
              CL_INVALID_SAMPLER);
    CHECK_ERR(PAIR_FN(clWaitForEvents)(1, &bad_event), CL_INVALID_EVENT);
    CHECK(!PAIR_FN(clCreateBuffer)(bad, CL_MEM_READ_WRITE, 64, NULL, &err) &&
              err == CL_INVALID_CONTEXT,
          "clCreateBuffer on a bad context: NULL, CL_INVALID_CONTEXT (%d)", err);
    err = CL_SUCCESS;
    CHECK(!PAIR_FN(clCreateKernel)(bad, "k", &err) && err == CL_INVALID_PROGRAM,
          "clCreateKernel on a bad program: NULL, CL_INVALID_PROGRAM (%d)", err);
    CHECK_ERR(clGetCommandQueueInfo(bad, CL_QUEUE_CONTEXT, 0, NULL, &size),
              CL_INVALID_COMMAND_QUEUE);
    check_no_lock_held("the calls with bad handles");
}

static int callback_calls;

static void CL_CALLBACK counting_callback(cl_program program, void *data)
{
    (void)program, (void)data;
    callback_calls++;
}

/* What would have the host call PE code is refused or dropped by the Unix side itself. */
static void callbacks_never_reach_the_host(cl_context context, cl_device_id device)
{
    union dxclunix_clSetEventCallback_params set = {.pfn_notify =
                                                        (UINT64)(UINT_PTR)counting_callback};
    union dxclunix_clGetExtensionFunctionAddress_params lookup = {
        .func_name = (UINT64)(UINT_PTR) "clCreateCommandBufferKHR"};
    union dxclunix_clBuildProgram_params build;
    const char *source = "__kernel void k(__global int *p) { p[0] = 1; }";
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);

    CHECK(call(DXCLUNIX_API_CODE(DXCLUNIX_API_clSetEventCallback), &set) == CL_INVALID_OPERATION,
          "clSetEventCallback's Unix call is refused");
    CHECK(call(DXCLUNIX_API_CODE(DXCLUNIX_API_clGetExtensionFunctionAddress), &lookup) ==
                  DXCLUNIX_MISSING &&
              !lookup.result,
          "no host address comes back from clGetExtensionFunctionAddress's Unix call");
    REQUIRE(program, "clCreateProgramWithSource: %d", err);
    build =
        (union dxclunix_clBuildProgram_params){.program = (UINT64)(UINT_PTR)program,
                                               .num_devices = 1,
                                               .device_list = (UINT64)(UINT_PTR)&device,
                                               .pfn_notify = (UINT64)(UINT_PTR)counting_callback};
    CHECK(call(DXCLUNIX_API_CODE(DXCLUNIX_API_clBuildProgram), &build) == CL_SUCCESS,
          "a build with a PE callback builds (the callback dropped)");
    Sleep(100);
    CHECK(callback_calls == 0, "the host never called the PE callback (%d calls)", callback_calls);
    clReleaseProgram(program);
    check_no_lock_held("the refused callbacks");
}

/* An extension function of the list, with a bad handle: through the pair and through dxcl. */
static void bad_extension_calls(cl_platform_id platform)
{
    clCreateCommandBufferKHR_fn create[2] = {
        (clCreateCommandBufferKHR_fn)PAIR_FN(clGetExtensionFunctionAddressForPlatform)(
            platform, "clCreateCommandBufferKHR"),
        (clCreateCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(
            platform, "clCreateCommandBufferKHR")};
    cl_command_queue bad = unmapped;

    CHECK(!PAIR_FN(clGetExtensionFunctionAddressForPlatform)(platform, "clNoSuchFunctionKHR"),
          "an unknown extension function is not handed out");
    if (!create[0]) {
        printf("unix_interface: the host has no clCreateCommandBufferKHR: not called\n");
        return;
    }
    for (int i = 0; i < 2; i++) {
        cl_int err = CL_SUCCESS;
        cl_command_buffer_khr made = create[i] ? create[i](1, &bad, NULL, &err) : NULL;

        CHECK(create[i] && !made && err == CL_INVALID_COMMAND_QUEUE,
              "clCreateCommandBufferKHR (%s) on a bad queue: NULL, CL_INVALID_COMMAND_QUEUE (%d)",
              i ? "dxcl" : "the pair", err);
    }
    check_no_lock_held("the bad extension calls");
}

/* Event watches: a bad event is refused or faults; a watched user event comes back once set;
 * a wake ends a wait. */
static void watches(cl_context context)
{
    struct dxclunix_watch watch = {0};
    struct dxclunix_watched watched = {.timeout_ms = 0};
    cl_int err;
    cl_event user = clCreateUserEvent(context, &err);

    CHECK(call(DXCLUNIX_WATCH, &watch) == 0 && watch.status == CL_INVALID_EVENT,
          "watching no event: CL_INVALID_EVENT");
    watch.event = (UINT64)(UINT_PTR)unmapped;
    CHECK(faulted(call(DXCLUNIX_WATCH, &watch)), "watching a bad event faults");
    check_no_lock_held("the bad watch");
    REQUIRE(user, "clCreateUserEvent: %d", err);
    watch.event = (UINT64)(UINT_PTR)user;
    CHECK(call(DXCLUNIX_WATCH, &watch) == 0 && watch.status == CL_SUCCESS,
          "a user event is watched");
    CHECK(call(DXCLUNIX_WAIT_WATCHED, &watched) == 0 && watched.count == 0,
          "nothing completed before the event is set");
    clSetUserEventStatus(user, CL_COMPLETE);
    watched.timeout_ms = 5000;
    CHECK(call(DXCLUNIX_WAIT_WATCHED, &watched) == 0 && watched.count == 1 &&
              watched.events[0] == (UINT64)(UINT_PTR)user,
          "the set event comes back from the wait (%u)", watched.count);
    CHECK(call(DXCLUNIX_WAKE_WATCHER, NULL) == 0, "a wake answers");
    CHECK(call(DXCLUNIX_WAIT_WATCHED, &watched) == 0 && watched.woken && watched.count == 0,
          "a wake ends the wait");
    clReleaseEvent(user);
    check_no_lock_held("the watches");
}

static void test_unix_interface_api(cl_platform_id platform, cl_device_id device,
                                    cl_context context)
{
    bad_handles_answer_their_kind();
    callbacks_never_reach_the_host(context, device);
    bad_extension_calls(platform);
    watches(context);
}

int main(void)
{
    struct dxclunix_open opening = {0};
    struct dxclunix_test test = {0};
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    cl_int err = CL_SUCCESS;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);

    REQUIRE(context, "clCreateContext: %d", err);
    no_access = VirtualAlloc(NULL, 4096, MEM_COMMIT | MEM_RESERVE, PAGE_NOACCESS);
    unmapped = VirtualAlloc(NULL, 4096, MEM_RESERVE, PAGE_NOACCESS);
    REQUIRE(no_access && unmapped, "VirtualAlloc: %lu", GetLastError());
    if (!find_pair()) {
        /* Run through the Unix side (wine-run.sh's DXCL_WINE_UNIX sets DXCL_UNIX=1), the pair
         * must be found: a 32-bit program's in i386-windows (<test>.x32_unix). */
        const char *wanted = getenv("DXCL_UNIX");

        CHECK(!wanted || strcmp(wanted, "1"), "DXCL_UNIX=1, but no Wine DLL folder has the pair");
        printf("unix_interface: no dxcl Unix side in Wine's DLL folders: only a program's "
               "import of a host fd is checked\n");
        import_through_dxcl(context);
        clReleaseContext(context);
        return test_finish("unix_interface");
    }
    REQUIRE(call(DXCLUNIX_OPEN, &opening) == 0 && opening.status == 0, "the host library opens");
    if ((hooks = test_hook(&test, DXCLUNIX_TEST_LOCKS) == 0)) {
        open_fds(fds_before);
        CHECK(fd_open(fds_before, 0) && fd_open(fds_before, 1) && fd_open(fds_before, 2),
              "the hook sees fds 0, 1 and 2 open");
    } else {
        printf("unix_interface: the Unix side's test hooks are off (DXCL_UNIX_TEST_HOOKS=1 "
               "turns them on): open fds and locks not checked, no fd handle issued\n");
    }
    bad_parameter_pointers();
    bad_counts_and_names(platform);
    bad_fd_handles();
    layer_bad_ids();
    layer_bad_counts();
    layer_release_watches(context);
    layer_through_the_pair();
    import_fds(context);
    import_through_dxcl(context);
    test_unix_interface_api(platform, device, context);
    clReleaseContext(context);
    check_fds_kept("the whole test");
    check_no_lock_held("the whole test");
    return test_finish("unix_interface");
}
