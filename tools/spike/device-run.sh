#!/usr/bin/env bash
# Runs the issue-26 spike on the device machine (docs/perf.md, "GPU interop spike"). Copy this
# script, the binary (tools/spike/build.sh) and the .deb files below into a git-ignored .spike/
# of the checkout the device tool sends, get the Vulkan loader into .gl/ (device README,
# "Headless rendering"), then: run(kind nvidia-h100-x1, carry [".gl", ".spike"],
# command "bash .spike/device-run.sh"). Everything it prints also goes to $OUT/spike.txt.
# .spike/debs/: ocl-icd-libopencl1 (the OpenCL loader, so the run does not depend on the
# image's) and the X client libraries NVIDIA's Vulkan ICD needs and the image lacks
# (libx11-xcb1 libxcb-present0 libxcb-sync1 libxcb-xfixes0 libxcb-shm0 libxcb-randr0
# libxcb-dri2-0 libxcb-dri3-0 libxcb-glx0 libxshmfence1 libxxf86vm1: ../shared/gpu-rig).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/spike-out}
mkdir -p "$out"
{
  echo "== machine"
  uname -r
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  # The loaders: .gl into / (as the device README says), the rest under /tmp.
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  mkdir -p /tmp/spike-libs
  for f in "$here"/debs/*.deb; do dpkg -x "$f" /tmp/spike-libs; done
  export LD_LIBRARY_PATH=/tmp/spike-libs/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  icd=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1 /{print $NF; exit}')
  [ -n "$icd" ] || icd=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
  mkdir -p /tmp/spike-icd
  echo "$icd" >/tmp/spike-icd/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/spike-icd
  vk=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export VK_DRIVER_FILES=$vk VK_ICD_FILENAMES=$vk
  echo "OpenCL ICD: $icd; Vulkan ICD: $vk: $(tr -d ' \n' <"$vk" 2>&1)"
  echo "== ldd"
  ldd "$here/vk_cl_interop"
  echo "== vk_cl_interop"
  start=$(date +%s%N)
  timeout 150 "$here/vk_cl_interop" </dev/null
  echo "exit status $? after $((($(date +%s%N) - start) / 1000000)) ms"
} 2>&1 | tee "$out/spike.txt"
# A failed Vulkan start: the loader's own account, once.
if grep -q '^vk-instance: FAIL\|^vk-devices: FAIL' "$out/spike.txt"; then
  echo "== loader debug" | tee -a "$out/spike.txt"
  VK_LOADER_DEBUG=error,warn,driver timeout 60 "$here/vk_cl_interop" </dev/null 2>&1 |
    grep -v '^cl-' | head -60 | tee -a "$out/spike.txt"
fi
