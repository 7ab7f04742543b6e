/* The GPU path's hooks (docs/design.md, "Layout"): the GPU path (src/gpu/) lives above the
 * engine and dxgi, which reach it only through this table, declared here and filled by that
 * layer when the DLL loads (dxcl_set_gpu_hooks, from a constructor of src/gpu/hooks.c). The
 * engine asks it at an object's creation and end and at its hand-overs; dxgi, whether a
 * texture's planes get a twin each and to give a pooled twin up. */
#ifndef DXCL_ENGINE_GPU_HOOKS_H
#define DXCL_ENGINE_GPU_HOOKS_H

#include "core/backend.h"
#include "core/memobj.h"

struct dxcl_dxgi_surface;

struct dxcl_gpu_hooks {
    /* Creation of an object (engine/lifetime.c; gpu/gpu_path.h says what each does). */
    bool (*probe)(struct dxcl_context *ctx, const struct dxcl_memobj *mem,
                  struct dxcl_device_storage *storage);
    cl_mem (*import)(struct dxcl_context *ctx, cl_mem_flags flags, const struct dxcl_memobj *mem,
                     const struct dxcl_device_storage *storage, cl_int *err);
    /* An imported object's hand-overs, instead of zero-copy's unmap and map
     * (engine/zerocopy.c; gpu/handover.h). */
    cl_int (*hand_in)(cl_command_queue queue, struct dxcl_memobj *mem, cl_uint num_events,
                      const cl_event *wait_list, cl_event *event);
    cl_int (*hand_out)(cl_command_queue queue, struct dxcl_memobj *mem, cl_event after,
                       cl_event *event);
    bool (*give_back)(struct dxcl_memobj *mem);
    /* A twin of the test-only import, handed over as a zero-copy object: the host's wait for
     * Direct3D's hand-in, and the event Direct3D waits for at the hand-out. */
    cl_int (*wait_hand_in)(struct dxcl_memobj *mem);
    void (*released_at)(struct dxcl_memobj *mem, cl_event event);
    /* dxgi: the resource is DXVK's and the context may take the GPU path (a planar texture's
     * planes then get a surface each); a pooled D3D1x surface's twin given up. */
    bool (*serves_resource)(struct dxcl_context *ctx, void *resource);
    void (*twin_release)(struct dxcl_context *ctx, struct dxcl_dxgi_surface *surface);
};

/* The hooks (set once, when the DLL loads, before any OpenCL call). */
void dxcl_set_gpu_hooks(const struct dxcl_gpu_hooks *hooks);
const struct dxcl_gpu_hooks *dxcl_gpu_hooks(void);

#endif
