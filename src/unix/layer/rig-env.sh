# Sourced by the GPU rig (../shared/gpu-rig/README.md, "Native parts") with DXCL_LIB set to its
# copy of build/lib, before Wine starts: enables dxcl's Vulkan layer (docs/proxy.md, "The Vulkan
# layer") for DXVK's devices.
export VK_LAYER_PATH="$DXCL_LIB/vulkan${VK_LAYER_PATH:+:$VK_LAYER_PATH}"
export VK_INSTANCE_LAYERS="VK_LAYER_DXCL_interop${VK_INSTANCE_LAYERS:+:$VK_INSTANCE_LAYERS}"
