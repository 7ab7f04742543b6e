/* fd handles (dxclunix.h, "An fd handle"): the host file descriptors that the Unix half holds
 * for the PE half (a twin's memory and semaphores), named by handles it issued, so that the PE
 * half never holds a raw fd and no Unix call closes or imports an fd it did not issue.
 *
 * A handle is DXCLUNIX_FD_HANDLE_TAG | generation << 8 | slot: a stale handle (its slot freed,
 * perhaps issued again) is none, since each freeing moves the slot's generation on. The table's
 * lock is taken only around the table itself: nothing under it reads the PE half's memory or
 * calls the host, so no fault can leave it held. */
#define _GNU_SOURCE
#include "dxclunix_so.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define FD_SLOTS 256

enum slot_state { SLOT_FREE, SLOT_ISSUED, SLOT_LENT /* in an import now */ };

static struct {
    int fd;
    uint16_t generation;
    uint8_t state;
} slots[FD_SLOTS];
static unsigned next_slot; /* where the search for a free slot starts */
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

static int32_t handle_of(unsigned slot)
{
    return DXCLUNIX_FD_HANDLE_TAG | (int32_t)slots[slot].generation << 8 | (int32_t)slot;
}

/* The slot `handle` names while in `state`, or -1. With fd_lock held. */
static int handle_slot(int32_t handle, enum slot_state state)
{
    unsigned slot = (uint32_t)handle & 0xff;

    if (((uint32_t)handle & 0xff000000u) != DXCLUNIX_FD_HANDLE_TAG || slots[slot].state != state ||
        handle_of(slot) != handle)
        return -1;
    return (int)slot;
}

static void free_slot(unsigned slot)
{
    slots[slot].state = SLOT_FREE;
    slots[slot].fd = -1;
    slots[slot].generation++;
}

int32_t dxclunix_issue_fd(int fd)
{
    int32_t handle = -1;

    if (fd < 0)
        return -1;
    pthread_mutex_lock(&fd_lock);
    for (unsigned i = 0; i < FD_SLOTS; i++) {
        unsigned slot = (next_slot + i) % FD_SLOTS;

        if (slots[slot].state != SLOT_FREE)
            continue;
        slots[slot].state = SLOT_ISSUED;
        slots[slot].fd = fd;
        handle = handle_of(slot);
        next_slot = (slot + 1) % FD_SLOTS;
        break;
    }
    pthread_mutex_unlock(&fd_lock);
    return handle;
}

int dxclunix_take_fd(int32_t handle)
{
    int slot, fd = -1;

    pthread_mutex_lock(&fd_lock);
    if ((slot = handle_slot(handle, SLOT_ISSUED)) >= 0) {
        fd = slots[slot].fd;
        free_slot((unsigned)slot);
    }
    pthread_mutex_unlock(&fd_lock);
    return fd;
}

NTSTATUS dxclunix_close_fd(void *args)
{
    const struct dxclunix_fd *params = args;
    int fd;

    if (!params)
        return DXCLUNIX_STATUS_INVALID_PARAMETER;
    if ((fd = dxclunix_take_fd(params->handle)) < 0)
        return DXCLUNIX_STATUS_INVALID_HANDLE;
    close(fd);
    return 0;
}

/* An issued handle lent to an import: its fd, or -1. */
static int lend(int32_t handle)
{
    int slot, fd = -1;

    pthread_mutex_lock(&fd_lock);
    if ((slot = handle_slot(handle, SLOT_ISSUED)) >= 0) {
        slots[slot].state = SLOT_LENT;
        fd = slots[slot].fd;
    }
    pthread_mutex_unlock(&fd_lock);
    return fd;
}

/* A lent handle back: spent (the import owns its fd) or issued again. */
static void give_back(int32_t handle, bool spent)
{
    int slot;

    pthread_mutex_lock(&fd_lock);
    if ((slot = handle_slot(handle, SLOT_LENT)) >= 0) {
        if (spent)
            free_slot((unsigned)slot);
        else
            slots[slot].state = SLOT_ISSUED;
    }
    pthread_mutex_unlock(&fd_lock);
}

bool dxclunix_fd_lock_busy(void)
{
    if (pthread_mutex_trylock(&fd_lock))
        return true;
    pthread_mutex_unlock(&fd_lock);
    return false;
}

/* Property names whose value is an fd, and those followed by a 0-terminated list. */
static bool names_fd(uint64_t name)
{
    return name == CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR ||
           name == CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR ||
           name == CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR || name == CL_SEMAPHORE_HANDLE_SYNC_FD_KHR;
}

static bool names_list(uint64_t name)
{
    return name == CL_DEVICE_HANDLE_LIST_KHR || name == CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR;
}

/* Copies the PE half's list into `out` (its terminating 0 too): its length, or 0 when it does
 * not fit; *fds counts the fd properties in it. */
static unsigned copy_properties(const uint64_t *in, uint64_t *out, unsigned *fds)
{
    unsigned n = 0;

    *fds = 0;
    for (;;) {
        uint64_t name;

        if (n >= DXCLUNIX_IMPORT_MAX_PROPERTIES - 1)
            return 0;
        name = in[n];
        out[n++] = name;
        if (!name)
            return n;
        *fds += names_fd(name);
        if (!names_list(name)) {
            out[n] = in[n];
            n++;
            continue;
        }
        do {
            if (n >= DXCLUNIX_IMPORT_MAX_PROPERTIES - 1)
                return 0;
            out[n] = in[n];
        } while (out[n++]);
    }
}

enum dxclunix_import_result dxclunix_import_properties(const uint64_t *properties,
                                                       struct dxclunix_import *import)
{
    unsigned length, fds;

    import->handle_count = 0;
    if (!properties)
        return DXCLUNIX_IMPORT_AS_IS;
    if (!(length = copy_properties(properties, import->properties, &fds)))
        return DXCLUNIX_IMPORT_REFUSED;
    if (!fds)
        return DXCLUNIX_IMPORT_AS_IS;
    if (fds > DXCLUNIX_IMPORT_MAX_FDS)
        return DXCLUNIX_IMPORT_REFUSED;
    for (unsigned i = 0; i + 1 < length; i++) {
        uint64_t *value = &import->properties[i + 1];
        int fd;

        if (names_list(import->properties[i])) {
            while (import->properties[++i])
                ;
            continue;
        }
        if (names_fd(import->properties[i])) {
            if (*value > INT32_MAX || (fd = lend((int32_t)*value)) < 0) {
                dxclunix_import_done(import, false);
                return DXCLUNIX_IMPORT_REFUSED;
            }
            import->handles[import->handle_count++] = (int32_t)*value;
            *value = (uint64_t)fd;
        }
        i++; /* the value */
    }
    return DXCLUNIX_IMPORT_FDS;
}

void dxclunix_import_done(struct dxclunix_import *import, bool imported)
{
    for (unsigned i = 0; i < import->handle_count; i++)
        give_back(import->handles[i], imported);
    import->handle_count = 0;
}
