#!/usr/bin/env bash
# Installs dxcl into a fresh Wine prefix with scripts/dxcl-wine.sh and checks it with dxclinfo
# run from a folder that holds no OpenCL.dll: after install it must find dxcl (from system32)
# with its sharing extensions, after uninstall it must say that the OpenCL.dll is not dxcl.
# With DXCLINFO32.EXE (the x32 build's, build/x32/bin): the same for 32-bit programs, whose
# dxcl goes to syswow64 and forwards to Wine's 32-bit opencl.dll (the i386 PoCL behind it,
# DXCL_POCL_I386 as for scripts/wine-run.sh DXCL_X32=1).
#
#   test-install.sh DXCL-WINE.SH OPENCL.DLL DXCLINFO.EXE [DXCLINFO32.EXE]
#
# Uses the rig's Xvfb display (DXCL_RIG_DIR/display) when it is alive, else starts its own.
# The prefix, its wineserver and any Xvfb it started are removed on exit.
set -euo pipefail

installer=$1 dll=$2 dxclinfo=$3 dxclinfo32=${4:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/dxcl-install-test.XXXXXX")
# The build tree the DLL is from (its Unix side and Vulkan layer go with it); the layer is
# registered in the test's own XDG_DATA_HOME.
from=$(cd "$(dirname "$dll")/.." && pwd)
export WINEPREFIX=$work/prefix WINEARCH=win64 WINEDEBUG=-all XDG_DATA_HOME=$work/data
# Only what keeps wineboot from looking for Mono and Gecko: the opencl override must come from
# the prefix's registry, as for any program started in it.
export WINEDLLOVERRIDES="mscoree=;mshtml="
. "$(dirname "${BASH_SOURCE[0]}")/test-display.sh"

cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

# A display for Direct3D (wined3d): the rig's, or our own Xvfb.
use_display "$work"
echo "display $DISPLAY, prefix $WINEPREFIX"

step "fresh prefix"
wineboot -i >/dev/null 2>&1 || fail "wineboot -i failed"
wineserver -w

# dxclinfo alone in a folder: it can only find OpenCL.dll through the prefix.
mkdir "$work/app"
cp "$dxclinfo" "$work/app/dxclinfo.exe"
run_dxclinfo() { (cd "$work/app" && wine dxclinfo.exe "$@" 2>&1); }
syswow64=$WINEPREFIX/drive_c/windows/syswow64
if [ -n "$dxclinfo32" ]; then
  [ -f "$from/x32/release/OpenCL.dll" ] || fail "no 32-bit OpenCL.dll in $from/x32/release"
  [ -f "$syswow64/opencl.dll" ] || fail "the fresh prefix has no syswow64/opencl.dll (wine32?)"
  mkdir "$work/app32"
  cp "$dxclinfo32" "$work/app32/dxclinfo.exe"
  cp "$syswow64/opencl.dll" "$work/original-opencl32.dll"
fi
pocl_i386=${DXCL_POCL_I386:-/opt/dxcl/pocl-i386}
run_dxclinfo32() {
  (cd "$work/app32" && OCL_ICD_VENDORS=$pocl_i386/vendors \
    LD_LIBRARY_PATH=$pocl_i386/root/usr/lib/i386-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    wine dxclinfo.exe "$@" 2>&1)
}

step "before install: status"
cp "$WINEPREFIX/drive_c/windows/system32/opencl.dll" "$work/original-opencl.dll"
if "$installer" status --prefix "$WINEPREFIX"; then fail "status says installed in a fresh prefix"; fi

step "install"
"$installer" install --prefix "$WINEPREFIX" --dll "$dll" --from "$from" || fail "install failed"
"$installer" status --prefix "$WINEPREFIX" || fail "status says not installed after install"

step "dxclinfo with dxcl installed"
status=0
output=$(run_dxclinfo) || status=$?
echo "$output"
[ "$status" = 0 ] || fail "dxclinfo exited with $status after install"
grep -q '^dxcl [0-9]' <<<"$output" || fail "dxclinfo does not report dxcl"
grep -qi 'OpenCL.dll *C:\\windows\\system32\\OpenCL.dll' <<<"$output" ||
  fail "dxcl was not loaded from system32"
grep -qi 'Driver *Z:.*\\x86_64-windows\\OpenCL.dll' <<<"$output" ||
  fail "dxcl does not forward to Wine's builtin opencl.dll"
grep -q '^  Sharing .*cl_khr_d3d11_sharing' <<<"$output" ||
  fail "dxclinfo lists no cl_khr_d3d11_sharing"
grep -q 'R8G8B8A8_UNORM *CL_RGBA *CL_UNORM_INT8' <<<"$output" ||
  fail "the D3D11 format probe did not accept R8G8B8A8_UNORM"

if [ -n "$dxclinfo32" ]; then
  step "32-bit dxclinfo with dxcl installed"
  status=0
  output=$(run_dxclinfo32) || status=$?
  echo "$output"
  [ "$status" = 0 ] || fail "the 32-bit dxclinfo exited with $status after install"
  grep -q '^dxcl [0-9]' <<<"$output" || fail "the 32-bit dxclinfo does not report dxcl"
  grep -qi 'OpenCL.dll *C:\\windows\\\(system32\|syswow64\)\\OpenCL.dll' <<<"$output" ||
    fail "the 32-bit dxcl was not loaded from the prefix"
  grep -qi 'Driver *Z:.*\\i386-windows\\OpenCL.dll' <<<"$output" ||
    fail "the 32-bit dxcl does not forward to Wine's 32-bit builtin opencl.dll"
  grep -q '^  Sharing .*cl_khr_d3d11_sharing' <<<"$output" ||
    fail "the 32-bit dxclinfo lists no cl_khr_d3d11_sharing"
  grep -q '^  Data path .*no GPU path (32-bit' <<<"$output" ||
    fail "the 32-bit dxcl's data path does not say that it has no GPU path"
fi

step "install again (idempotent)"
"$installer" install --prefix "$WINEPREFIX" --dll "$dll" --from "$from" >/dev/null ||
  fail "second install failed"
cmp -s "$WINEPREFIX/.dxcl-install/backup/drive_c/windows/system32/opencl.dll" \
  "$work/original-opencl.dll" || fail "a second install lost the backup of the prefix's opencl.dll"

step "uninstall"
"$installer" uninstall --prefix "$WINEPREFIX" || fail "uninstall failed"
if "$installer" status --prefix "$WINEPREFIX"; then fail "status says installed after uninstall"; fi
[ ! -e "$WINEPREFIX/.dxcl-install" ] || fail "the backup is left behind"
cmp -s "$WINEPREFIX/drive_c/windows/system32/opencl.dll" "$work/original-opencl.dll" ||
  fail "uninstall did not put the prefix's own opencl.dll back"
[ -z "$dxclinfo32" ] || cmp -s "$syswow64/opencl.dll" "$work/original-opencl32.dll" ||
  fail "uninstall did not put the prefix's own 32-bit opencl.dll back"

step "dxclinfo after uninstall"
status=0
output=$(run_dxclinfo --no-formats) || status=$?
echo "$output"
[ "$status" != 0 ] || fail "dxclinfo succeeded after uninstall"
grep -q 'the loaded OpenCL.dll (.*) is not dxcl' <<<"$output" ||
  fail "dxclinfo does not say that the OpenCL.dll is not dxcl"
if [ -n "$dxclinfo32" ]; then
  status=0
  output=$(run_dxclinfo32 --no-formats) || status=$?
  echo "$output"
  [ "$status" != 0 ] || fail "the 32-bit dxclinfo succeeded after uninstall"
  grep -q 'the loaded OpenCL.dll (.*) is not dxcl' <<<"$output" ||
    fail "the 32-bit dxclinfo does not say that the OpenCL.dll is not dxcl"
fi

echo "install test: OK"
