#!/usr/bin/env bash
# Builds the issue-26 spike: tools/spike/vk_cl_interop.c (step 1, a native program),
# tools/spike/vk_layer.c (step 3, a host Vulkan layer, with its manifest) with the host gcc, and
# tools/spike/d3d11_twin.c (step 3, the Windows side) with mingw-w64. Needs only headers
# (apt-get install libvulkan-dev opencl-c-headers gcc-mingw-w64-x86-64): the programs load
# libvulkan.so.1, libOpenCL.so.1 and OpenCL.dll at run time. Usage: tools/spike/build.sh
# [OUTPUT_DIR] (default .spike/, git-ignored through .git/info/exclude: never commit binaries).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.spike}
mkdir -p "$out/layer"
warn="-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes"
gcc -std=gnu11 -O2 -g $warn -o "$out/vk_cl_interop" tools/spike/vk_cl_interop.c -ldl
gcc -std=gnu11 -O2 -g $warn -fPIC -shared -fvisibility=hidden \
    -o "$out/layer/libdxcl_spike_layer.so" tools/spike/vk_layer.c -lpthread
cat >"$out/layer/dxcl_spike_layer.json" <<'JSON'
{
  "file_format_version": "1.1.2",
  "layer": {
    "name": "VK_LAYER_DXCL_spike",
    "type": "GLOBAL",
    "library_path": "./libdxcl_spike_layer.so",
    "api_version": "1.3.0",
    "implementation_version": "1",
    "description": "dxcl issue 26 spike: fd export extensions and a twin image",
    "functions": {
      "vkGetInstanceProcAddr": "dxcl_spike_GetInstanceProcAddr",
      "vkGetDeviceProcAddr": "dxcl_spike_GetDeviceProcAddr"
    }
  }
}
JSON
x86_64-w64-mingw32-gcc -std=gnu11 -O2 $warn -Wno-cast-function-type \
    -I"${DXCL_CL_INCLUDE:-build/khronos-include}" -o "$out/d3d11_twin.exe" tools/spike/d3d11_twin.c \
    -ld3d11 -ldxguid -luuid
echo "built $out/vk_cl_interop, $out/layer/ and $out/d3d11_twin.exe"
