#!/usr/bin/env bash
# Builds the issue-26 spike (tools/spike/vk_cl_interop.c) natively with the host gcc.
# Needs only headers (apt-get install libvulkan-dev opencl-c-headers): the program loads
# libvulkan.so.1 and libOpenCL.so.1 at run time. Usage: tools/spike/build.sh [OUTPUT_DIR]
# (default .spike/, git-ignored through .git/info/exclude: never commit the binary).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.spike}
mkdir -p "$out"
gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
    -o "$out/vk_cl_interop" tools/spike/vk_cl_interop.c -ldl
echo "built $out/vk_cl_interop"
