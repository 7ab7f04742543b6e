/* The GPU path's hooks (see gpu_hooks.h). */
#include "engine/gpu_hooks.h"

static const struct dxcl_gpu_hooks *gpu_hooks;

void dxcl_set_gpu_hooks(const struct dxcl_gpu_hooks *hooks)
{
    gpu_hooks = hooks;
}

const struct dxcl_gpu_hooks *dxcl_gpu_hooks(void)
{
    return gpu_hooks;
}
