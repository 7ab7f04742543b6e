/* A shared object as the copy engine keeps it: the core's record (core/memobj.h: handles,
 * holds, surface, description, transfer state) and, around it, the engine's own state of the
 * object's transfers. The engine allocates every shared record this way (engine/lifetime.c); an
 * ordinary image of an emulated format (formats/images.c) has a bare record and is never the
 * engine's, so the engine reaches an object only from a record whose surface is set. */
#ifndef DXCL_ENGINE_OBJECT_H
#define DXCL_ENGINE_OBJECT_H

#include "core/memobj.h"
#include <CL/cl_ext.h>

#include <stddef.h>

struct dxcl_device_convert;
struct dxcl_pending_release;

struct dxcl_object {
    struct dxcl_memobj record;
    /* A command that can write the object was accepted by the driver since the acquire:
     * release downloads and writes back only such objects (the Direct3D data of others is
     * unchanged). */
    volatile LONG written;
    void *convert_buffer; /* emulated formats converted on the host: the backing-layout copy */
    /* Emulated formats converted on the device (engine/device_convert.h): buffers and kernels,
     * made on first use; downloaded_on_device when the last download left nothing for the
     * host to convert. */
    struct dxcl_device_convert *device_convert;
    bool downloaded_on_device;
    /* The acquire's upload (or the first touch's), until release; changed under lazy_lock
     * once the object is acquired. */
    cl_event pending_write;
    /* Lazy uploads (engine/lazy.h): acquired, and no command has touched the object yet (its
     * surface is not in host memory for it); lazy_lock serialises the first touches and the
     * release's look at them. skipped_uploads counts the acquires whose Direct3D read and
     * upload were skipped. */
    volatile LONG lazy_pending;
    SRWLOCK lazy_lock;
    /* A copied object whose surface was only mapped for a whole overwrite the driver then
     * refused: the mapping holds none of the resource's contents; the next touch reads them in.
     * Under lazy_lock. */
    bool stale;
    volatile LONG skipped_uploads;
    cl_command_queue lazy_queue; /* where the deferred upload went (not retained), or NULL */
    /* Zero-copy (engine/zerocopy.h): the surface's host copy is the driver object's storage
     * (data NULL: the copy engine copies); host_mapped while the driver object is mapped for
     * Direct3D's turn; queue (retained) is the queue dxcl last used for the object. moved: an
     * acquire found the surface's mapping elsewhere than host_copy, which stays the driver's
     * storage for the object's life; the object copies from then on (set by the call that
     * holds the object: an acquire, or its first command under lazy_lock). */
    struct dxcl_mapping host_copy;
    /* The GPU path (gpu/gpu_path.h): the surface is a twin on the GPU (on_gpu), whose memory
     * is the driver object's storage: imported, and then handed over like a zero-copy object's
     * by the driver's external-memory acquire and release instead of unmap and map; or, with
     * the test-only import, host_copy (a zero-copy object's, the same in every way). */
    bool on_gpu, imported;
    bool direct; /* on_gpu: the storage is the texture's own memory (a direct twin) */
    /* The driver object was kept from an earlier object of this description (lifetime.c). */
    bool from_kept;
    bool device_held; /* imported: the driver's acquire of the memory has no release yet */
    /* The event of that acquire where it went to the program's queue (retained, with that
     * queue), or NULL: a release on dxcl's own queue must come after it (the queues are not
     * ordered otherwise), and that queue must be flushed first. */
    cl_event held_since;
    cl_command_queue held_on;
    /* The twin's `ready` as the driver imported it (gpu/gpu_path.h; the twin owns it), or
     * NULL: with it, the surface is gpu_synced. layer_device: the Vulkan layer's id of the
     * twin's device. */
    cl_semaphore_khr ready;
    uint64_t layer_device;
    void *host_mapped;
    cl_command_queue queue;
    volatile LONG moved;
    struct dxcl_memobj *next_parked; /* engine/lifetime.c: waiting for the driver to finish */
    /* The teardown's markers behind the program's commands (engine/lifetime.c). */
    bool fenced;
    cl_event *fences;
    size_t fence_count;
    /* A release of the object whose end waits for its downloads (engine/acquire.c), or NULL;
     * under dxcl_lock. The object stays RELEASING until then. */
    struct dxcl_pending_release *pending_release;
};

/* The engine's object of a shared record (one whose surface is set). */
static inline struct dxcl_object *dxcl_object_of(struct dxcl_memobj *mem)
{
    return (struct dxcl_object *)((char *)mem - offsetof(struct dxcl_object, record));
}
static inline const struct dxcl_object *dxcl_object_of_const(const struct dxcl_memobj *mem)
{
    return (const struct dxcl_object *)((const char *)mem - offsetof(struct dxcl_object, record));
}

/* Bytes move between Direct3D and the driver by map and unmap of the staging memory itself
 * (zero-copy), not by copies. */
static inline bool dxcl_memobj_zero_copy(const struct dxcl_memobj *mem)
{
    const struct dxcl_object *object = dxcl_object_of_const(mem);

    return (object->host_copy.data || object->imported) && !object->moved;
}

/* The engine's state of a context (dxcl's own queue, the conversion program), made on first
 * use and freed with the context's record; NULL when out of memory. */
#define DXCL_BACKING_CHOICES 8

struct dxcl_engine_context {
    struct dxcl_context_part part;
    /* dxcl's own queue on the context, for work that must not wait behind the program's
     * commands (engine/zerocopy.c); made on first use. */
    cl_command_queue own_queue;
    /* The conversion kernels of emulated formats (engine/device_convert.c), built for the
     * context's devices by the first conversion; convert_state says how that went (not tried,
     * building, built, failed: the host converts). */
    cl_program convert_program;
    volatile LONG convert_state;
    /* Image backings chosen on the context, the last DXCL_BACKING_CHOICES (engine/lifetime.c):
     * its devices' formats and limits never change, and objects made every frame ask again.
     * backing_lock is a leaf (nothing is taken or called while it is held), as driver.c's. */
    SRWLOCK backing_lock;
    struct dxcl_backing_choice {
        cl_mem_flags flags;
        cl_mem_object_type type;
        cl_image_format format;
        size_t width, height, depth;
        struct dxcl_backing backing;
    } backing_choices[DXCL_BACKING_CHOICES];
    unsigned backing_count, backing_next;
    /* Whether the GPU path can import on the context (gpu/gpu_path.c), asked of the driver
     * once: import_checked, then import_why (NULL: it can; its devices' UUID) and sync_why. */
    volatile LONG import_checked;
    const char *import_why, *sync_why;
    unsigned char import_uuid[CL_UUID_SIZE_KHR];
};
struct dxcl_engine_context *dxcl_engine_context(struct dxcl_context *ctx);

#endif
