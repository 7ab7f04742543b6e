#!/usr/bin/env bash
# Installs the Debian packages dxcl builds and tests with, only when one is missing.
# Idempotent and quiet: used by `make demo`, `make check` and .ci/run.
set -euo pipefail

packages=(
  gcc gcc-mingw-w64-x86-64 cmake make clang-format # gcc: also dxcl's Unix side (dxclunix.so)
  wine wine64 xvfb xauth libgl1-mesa-dri
  pocl-opencl-icd ocl-icd-libopencl1 opencl-c-headers
  libvulkan1 mesa-vulkan-drivers # Vulkan (lavapipe) for DXVK: make check DXVK=DIR
  libvulkan-dev # the headers of dxcl's Vulkan layer (libdxcl_vk_layer.so)
  vulkan-validationlayers # the GPU path's tests run under the Khronos validation layer
  bubblewrap # the container.* tests: a container built as Steam's pressure-vessel builds one
)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
