/* The GPU path's hooks (engine/gpu_hooks.h), which the engine and dxgi reach it through, set
 * when the DLL loads. */
#include "engine/gpu_hooks.h"
#include "gpu/gpu_path.h"
#include "gpu/handover.h"
#include "gpu/twins.h"

static bool serves_resource(struct dxcl_context *ctx, void *resource)
{
    return dxcl_gpu_is_dxvk(resource) && dxcl_gpu_path_may_serve(ctx);
}

static const struct dxcl_gpu_hooks hooks = {
    .probe = dxcl_gpu_path_probe,
    .import = dxcl_gpu_path_import,
    .hand_in = dxcl_gpu_hand_in,
    .hand_out = dxcl_gpu_hand_out,
    .give_back = dxcl_gpu_give_back,
    .wait_hand_in = dxcl_gpu_path_wait_hand_in,
    .released_at = dxcl_gpu_path_released_at,
    .serves_resource = serves_resource,
    .twin_release = dxcl_dxgi_twin_release,
};

__attribute__((constructor)) static void dxcl_register_gpu_hooks(void)
{
    dxcl_set_gpu_hooks(&hooks);
}
