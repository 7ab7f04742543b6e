#!/usr/bin/env bash
# .clients/run.sh: the real-client checks (tools/clients/README.md) on the GPU rig.
# Runs ON THE DEVICE MACHINE from the checkout's root, with `.gpu` (the rig's bundle, made by
# ../shared/gpu-rig/make-bundle.sh with PARTS including dxvk) and `.clients` carried:
#
#   bash .clients/run.sh                 every job of .clients/jobs.txt, Direct3D 10/11 on DXVK
#   CLIENTS_FILTER='nv12' bash .clients/run.sh      only the matching jobs
#
# It packs the programs of clients.tar.xz, DXVK's DLLs (from .gpu/dxvk.tar.xz: remote.sh puts
# them only beside dxcl's own programs) and jobs.txt into one folder and hands it to the rig's
# mode `extra` (.gpu/remote.sh): Wine, NVIDIA's OpenCL and Vulkan set up as for dxcl's tests,
# dxcl's OpenCL.dll from the bundle (.gpu/dxcl-bin.tar.xz) copied beside the programs, one
# line a job in results.txt/summary.txt, each job's whole output in logs.tar.xz (logs/LABEL.txt).
# Env: RIG_D3D (default dxvk), CLIENTS_FILTER (regex on job labels), and every RIG_* of remote.sh.
set -u
C=$(cd "$(dirname "$0")" && pwd)
G=${RIG_BUNDLE:-$(pwd)/.gpu}
X=/tmp/clients-extra
for f in "$G/remote.sh" "$G/dxvk.tar.xz" "$C/clients.tar.xz" "$C/jobs.txt"; do
  [ -f "$f" ] || { echo "clients: $f is missing (carry .gpu and .clients; make-bundle PARTS=dxvk)"; exit 2; }
done
rm -rf "$X"; mkdir -p "$X/stage/clients"
tar -xJf "$C/clients.tar.xz" -C "$X/stage/clients" || exit 2
tar -xJf "$G/dxvk.tar.xz" -C "$X" --wildcards 'dxvk/*.dll' || exit 2
cp "$X"/dxvk/*.dll "$X/stage/clients/"
grep -v -E '^\s*(#|$)' "$C/jobs.txt" | grep -E "${CLIENTS_FILTER:-.}" >"$X/stage/clients/jobs.txt"
echo "clients: $(wc -l <"$X/stage/clients/jobs.txt") jobs; programs: $(cd "$X/stage/clients" && ls *.exe | tr '\n' ' ')"
tar -C "$X/stage" -cJf "$X/extra.tar.xz" clients || exit 2
export RIG_D3D=${RIG_D3D:-dxvk} RIG_EXTRA=$X/extra.tar.xz
exec bash "$G/remote.sh" extra
