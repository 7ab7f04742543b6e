/* Host commands on an image of an emulated format (CL_RG on PoCL) are chains of driver
 * commands (src/formats/host_commands.c). Two ends of such chains (issue 18):
 *   - A chain that fails after it queued the command that reads the program's memory: a
 *     non-blocking clEnqueueWriteImage gated on a user event, its third command failed by the
 *     fault point "chain". The call must return the error only once the queued commands are
 *     done (a thread sets the user event after 300 ms), so that the program may free its memory
 *     at once: the test frees it (VirtualFree) and finishes the queue, which would crash had the
 *     driver still to read it. The image keeps its contents.
 *   - An image released while mapped: map, write through the mapping, release the image (its
 *     dxcl record goes), create other images (whose records may take the freed one's place),
 *     unmap. The unmap must give what it gives on a native image of the driver (CL_RGBA), the
 *     image must live until the unmap (its destructor callback does not run before) and go
 *     after it (the callback runs).
 * Each runs in a child process, so that a crash is reported as one failed check. On a driver
 * that has CL_RG natively nothing is emulated: the write succeeds with no chain to fail, and
 * the unmap is the driver's; the test prints which case ran.
 *   test_emulated_chains                 the parent: runs the children
 *   test_emulated_chains failed_write    the failing chain
 *   test_emulated_chains released_map    the released mapped image */
#include "threads.h"
#include "core/test_hooks.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

enum { W = 8, H = 4 };

static const cl_image_format rg8 = {CL_RG, CL_UNORM_INT8}, rgba8 = {CL_RGBA, CL_UNORM_INT8};
static const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};

static cl_context context;
static cl_command_queue queue;
static bool emulated; /* dxcl emulates CL_RG on this driver */

static cl_mem image_2d(const cl_image_format *format)
{
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
    cl_int err;
    cl_mem image = clCreateImage(context, CL_MEM_READ_WRITE, format, &desc, NULL, &err);

    REQUIRE(err == CL_SUCCESS && image, "clCreateImage 0x%x/0x%x: %d", format->image_channel_order,
            format->image_channel_data_type, err);
    return image;
}

static void open_context(void)
{
    cl_device_id device = test_device(test_platform());
    dxclGetBackingFormat_fn backing_of = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(
        test_dxcl_module(), "dxclGetBackingFormat");
    cl_bool is_emulated = CL_FALSE;
    cl_image_format backing;
    cl_int err;
    cl_mem probe;

    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    REQUIRE(backing_of != NULL, "dxcl exports dxclGetBackingFormat");
    probe = image_2d(&rg8);
    emulated = backing_of(probe, &backing, &is_emulated) == CL_SUCCESS && is_emulated;
    clReleaseMemObject(probe);
    printf("emulated_chains: CL_RG/CL_UNORM_INT8 is %s here\n",
           emulated ? "emulated" : "the driver's own");
    fflush(stdout);
}

static void close_context(void)
{
    CHECK_ERR(clReleaseCommandQueue(queue), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
}

static void pattern(unsigned char *pixels, size_t bytes, unsigned seed)
{
    for (size_t i = 0; i < bytes; i++)
        pixels[i] = (unsigned char)(seed + 7 * i);
}

/* ---- A chain that fails after queuing the read of the program's memory ---- */

static cl_event gate;
static volatile LONG gate_set;

static DWORD WINAPI set_gate_later(void *arg)
{
    (void)arg;
    Sleep(300);
    InterlockedExchange(&gate_set, 1);
    clSetUserEventStatus(gate, CL_COMPLETE);
    return 0;
}

static dxclFaultArm_fn fault_arm(void)
{
    dxclFaultArm_fn arm =
        (dxclFaultArm_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclFaultArm");

    REQUIRE(arm != NULL, "dxcl exports dxclFaultArm");
    return arm;
}

static int child_failed_write(void)
{
    const size_t bytes = W * H * 2;
    unsigned char before[W * H * 2], after[W * H * 2];
    unsigned char *ptr = VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    dxclFaultArm_fn arm = fault_arm();
    cl_event event = NULL;
    cl_uint fired_before = 0, fired = 0;
    cl_int err;
    LONG set_at_return;
    HANDLE setter;
    cl_mem image;

    open_context();
    image = image_2d(&rg8);
    pattern(before, bytes, 1);
    CHECK_ERR(
        clEnqueueWriteImage(queue, image, CL_TRUE, origin, region, 0, 0, before, 0, NULL, NULL),
        CL_SUCCESS);
    REQUIRE(ptr != NULL, "VirtualAlloc");
    pattern(ptr, bytes, 100);
    gate = clCreateUserEvent(context, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    REQUIRE((setter = CreateThread(NULL, 0, set_gate_later, NULL, 0, NULL)), "a thread");

    /* The chain: the prefilled backing, the read of ptr (queued), the first channel move
     * (fails). */
    REQUIRE(arm("chain", 3, &fired_before) == CL_SUCCESS, "dxclFaultArm(chain, 3)");
    err = clEnqueueWriteImage(queue, image, CL_FALSE, origin, region, 0, 0, ptr, 1, &gate, &event);
    set_at_return = gate_set;
    CHECK_ERR(arm("chain", 0, &fired), CL_SUCCESS);
    if (emulated) {
        CHECK_ERR(err, CL_OUT_OF_RESOURCES);
        CHECK(fired == fired_before + 1, "the chain fault fired %u times, want 1",
              fired - fired_before);
        CHECK(event == NULL, "the failed write handed out an event %p", (void *)event);
        CHECK(set_at_return,
              "the failed write returned while its queued read of the program's memory still "
              "waited on the user event: the driver would read it after the return");
    } else {
        CHECK_ERR(err, CL_SUCCESS);
        CHECK(fired == fired_before, "a native image has no chain, yet the fault fired");
        if (event) {
            CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
            clReleaseEvent(event);
        }
    }
    /* The call has returned: the program's memory may go now. */
    CHECK(VirtualFree(ptr, 0, MEM_RELEASE), "VirtualFree");
    WaitForSingleObject(setter, INFINITE);
    CloseHandle(setter);
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, after, 0, NULL, NULL),
              CL_SUCCESS);
    if (emulated)
        CHECK(!memcmp(after, before, bytes), "the failed write changed the image");
    else
        CHECK(after[0] == 100 && after[bytes - 1] == (unsigned char)(100 + 7 * (bytes - 1)),
              "the native write's data is in the image");
    clReleaseEvent(gate);
    CHECK_ERR(clReleaseMemObject(image), CL_SUCCESS);
    close_context();
    return test_child_finish("emulated_chains failed_write");
}

/* ---- An image released while mapped ---- */

static void CL_CALLBACK on_destroyed(cl_mem mem, void *user_data)
{
    (void)mem;
    InterlockedIncrement((volatile LONG *)user_data);
}

/* Maps a new image for writing, writes through the mapping, releases the image, makes other
 * images of the format, unmaps; returns the unmap's error. An image of an emulated format is
 * dxcl's to keep while mapped; a native one is the driver's, which may delete it at the
 * release (the spec counts commands, not mappings: PoCL keeps it, NVIDIA does not), and then
 * there is nothing left to unmap. */
static cl_int map_release_unmap(const cl_image_format *format, bool is_emulated, const char *what)
{
    const size_t element = format == &rg8 ? 2 : 4, row = W * element;
    unsigned char data[W * H * 4];
    /* Static: a callback that comes late must not write into a returned frame. */
    static volatile LONG destroyed;
    cl_mem image = image_2d(format), others[8];
    size_t pitch = 0;
    cl_event event = NULL;
    unsigned char *ptr;
    cl_int err;

    destroyed = 0;
    pattern(data, row * H, 3);
    CHECK_ERR(clEnqueueWriteImage(queue, image, CL_TRUE, origin, region, 0, 0, data, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clSetMemObjectDestructorCallback(image, on_destroyed, (void *)&destroyed),
              CL_SUCCESS);
    ptr = clEnqueueMapImage(queue, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, region,
                            &pitch, NULL, 0, NULL, NULL, &err);
    REQUIRE(ptr && err == CL_SUCCESS, "%s: clEnqueueMapImage: %d", what, err);
    CHECK(pitch >= row && !memcmp(ptr, data, row), "%s: the mapping holds the image's first row",
          what);
    ptr[0] ^= 0xff;

    CHECK_ERR(clReleaseMemObject(image), CL_SUCCESS);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        others[i] = image_2d(format);
    Sleep(200);
    if (destroyed && !is_emulated) {
        printf("emulated_chains: %s: the driver deleted the released image while it was mapped "
               "(the spec allows it): nothing to unmap\n",
               what);
        for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
            CHECK_ERR(clReleaseMemObject(others[i]), CL_SUCCESS);
        return CL_SUCCESS;
    }
    CHECK(destroyed == 0, "%s: the image was destroyed while mapped", what);

    err = clEnqueueUnmapMemObject(queue, image, ptr, 0, NULL, &event);
    printf("emulated_chains: %s: the unmap of the released image returns %d\n", what, err);
    fflush(stdout);
    if (err == CL_SUCCESS) {
        CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
        clReleaseEvent(event);
    }
    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    CHECK(test_wait_count(&destroyed, 1, 10000),
          "%s: the image's destructor callback ran %ld times after the unmap, want 1", what,
          (long)destroyed);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        CHECK_ERR(clReleaseMemObject(others[i]), CL_SUCCESS);
    return err;
}

static int child_released_map(void)
{
    cl_int native, rg;

    open_context();
    native = map_release_unmap(&rgba8, false, "native CL_RGBA");
    rg = map_release_unmap(&rg8, emulated, emulated ? "emulated CL_RG" : "native CL_RG");
    CHECK(rg == native, "the unmap of a released mapped CL_RG image gives %d, a native image %d",
          rg, native);
    close_context();
    return test_child_finish("emulated_chains released_map");
}

static void run_child(const char *args, const char *what)
{
    DWORD code = test_run_child(args, 120000);

    printf("%s: %s (exit code %lu)\n", what, test_child_outcome(code), (unsigned long)code);
    fflush(stdout);
    CHECK(code == TEST_CHILD_PASSED, "%s: %s (exit code %lu)", what, test_child_outcome(code),
          (unsigned long)code);
}

int main(int argc, char **argv)
{
    test_exit_on_crash("emulated_chains");
    if (argc > 1 && !strcmp(argv[1], "failed_write"))
        return child_failed_write();
    if (argc > 1 && !strcmp(argv[1], "released_map"))
        return child_released_map();
    run_child("failed_write", "emulated_chains: a write whose chain fails after reading memory");
    run_child("released_map", "emulated_chains: an image released while mapped");
    return test_finish("emulated_chains");
}
