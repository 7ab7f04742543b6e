#!/usr/bin/env bash
# dxclinfo inside the pressure-vessel-like container (tests/container-run.sh; docs/testing.md,
# "Inside Steam's container"), through dxcl's Unix side:
#   1. with DXCL_HOST_ROOT=0 (dxcl does not look at /run/host) it must find no driver: the
#      container really hides the host's OpenCL, so the next step proves something;
#   2. as shipped, it must find PoCL through the host's vendor file, its library and the two it
#      needs rebased under /run/host, and the host's ICD loader (the container has none), and
#      say so on its "Host drivers" line;
#   3. with DXCL_LOG_PATH and DXCL_LOG_LEVEL=info, the process's own log file must hold the
#      same report and the route, and no per-call line (debug only).
#
#   test-container.sh DXCLINFO.EXE
set -euo pipefail
dxclinfo=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/dxcl-container-test.XXXXXX")
trap 'rm -rf "$out"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
run() { DXCL_OUT_DIR=$out bash "$here/container-run.sh" "$dxclinfo" --no-formats 2>&1; }

echo "--- DXCL_HOST_ROOT=0: the container alone"
status=0
output=$(DXCL_HOST_ROOT=0 run) || status=$?
echo "$output"
[ "$status" != 0 ] || fail "dxclinfo found a driver although dxcl did not look at /run/host"
grep -q 'No OpenCL platform\|Driver *none' <<<"$output" || fail "dxclinfo does not say it has no driver"

echo "--- as shipped: the host's drivers under /run/host"
status=0
output=$(run) || status=$?
echo "$output"
[ "$status" = 0 ] || fail "dxclinfo exited with $status inside the container"
grep -q '^  Route *the Unix side' <<<"$output" || fail "not through the Unix side"
line=$(grep '^  Host drivers' <<<"$output") || fail "no 'Host drivers' line"
for want in 'looked in /run/host/etc/OpenCL/vendors: ' 'pocl.icd -> /run/host/usr/lib/x86_64-linux-gnu/libpocl' \
  'from the host besides: ' 'libhwloc.so.15' 'libclang-cpp.so.15' \
  'the ICD loader is the host'"'"'s /run/host/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 (the container has none)' \
  ': 1 platform'; do
  grep -qF "$want" <<<"$line" || fail "the Host drivers line lacks '$want'"
done
grep -q '^Platform 0 *Portable Computing Language' <<<"$output" || fail "no PoCL platform"

echo "--- DXCL_LOG_PATH, DXCL_LOG_LEVEL=info: one log of the process"
mkdir "$out/logs"
DXCL_LOG_PATH=$out/logs DXCL_LOG_LEVEL=info run >/dev/null || fail "dxclinfo failed with the log on"
logs=("$out"/logs/dxclinfo_*_dxcl.log)
[ ${#logs[@]} = 1 ] && [ -f "${logs[0]}" ] || fail "want one dxclinfo_<pid>_dxcl.log, got: $(ls "$out/logs")"
cat "${logs[0]}"
grep -q "^dxcl: the Unix side's host drivers: looked in /run/host/etc/OpenCL/vendors: pocl.icd" "${logs[0]}" ||
  fail "the log has no host drivers line"
grep -q '^dxcl: forwarding to .*through the Unix side' "${logs[0]}" || fail "the log has no route line"
! grep -q ' -> CL_' "${logs[0]}" || fail "info level logged a call's result (debug only)"
echo "container test: OK"
