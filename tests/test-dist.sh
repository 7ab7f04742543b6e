#!/usr/bin/env bash
# The release archive (docs/deploy.md, "Releases"): builds it with `make dist`'s target, unpacks
# it into an empty folder and runs the demo from there under Wine (scripts/wine-run.sh), which
# loads the archive's OpenCL.dll beside it. Passes only when the demo reports OK and:
# - the archive holds what it must, named by the build's version;
# - its OpenCL.dll is the shipped build: no dxclFaultArm export, DXCL_FAULT ignored (the demo
#   runs with faults armed that would fail it), and the public header declares no test hook;
# - dxclinfo from the archive prints that version (dxclGetInfo).
#
#   test-dist.sh BUILD_DIR SOURCE_DIR OBJDUMP
set -euo pipefail
build=$1 source=$2 objdump=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/dxcl-dist-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cmake --build "$build" --target dist >"$work/dist.log" 2>&1 || {
  cat "$work/dist.log"
  fail "the dist target failed"
}
version=$(cat "$build/generated/version.txt")
archive=$build/dist/dxcl-$version.tar.gz
[ -f "$archive" ] || fail "no $archive after the dist target"
echo "archive: $archive"
tar -C "$work" -xzf "$archive"
root=$work/dxcl-$version
for file in OpenCL.dll dxclinfo.exe demo.exe scripts/dxcl-wine.sh README.md LICENSE CHANGELOG.md; do
  [ -f "$root/$file" ] || fail "the archive has no dxcl-$version/$file"
done
[ ! -d "$build/lib/wine" ] || [ -d "$root/lib/wine" ] || fail "the build's lib/wine is not in the archive"
[ ! -d "$build/lib/vulkan" ] || [ -f "$root/lib/vulkan/VkLayer_dxcl_interop.json" ] || fail "the build's lib/vulkan is not in the archive"
echo "contents: $(cd "$root" && find . -type f | sort | tr '\n' ' ')"

exports=$("$objdump" -p "$root/OpenCL.dll")
grep -q 'clGetPlatformIDs' <<<"$exports" || fail "objdump lists no clGetPlatformIDs export: cannot judge"
! grep -q 'dxclFaultArm' <<<"$exports" || fail "the archive's OpenCL.dll exports dxclFaultArm"
! grep -q 'dxclFaultArm' "$source/include/dxcl/dxcl.h" || fail "include/dxcl/dxcl.h declares dxclFaultArm"
echo "the archive's OpenCL.dll exports no test hook"

# Faults that would fail the demo in a test build (its first allocation, lock and staging).
info=$(DXCL_FAULT=alloc:1,lock:1,staging:1 "$source/scripts/wine-run.sh" "$root/dxclinfo.exe" --no-formats 2>&1) ||
  fail "dxclinfo from the archive failed: $info"
grep -qF "dxcl $version" <<<"$info" || fail "dxclinfo does not print 'dxcl $version': $info"
grep -F "dxcl $version" <<<"$info" | head -n 1
grep -qiF "dxcl-$version\\OpenCL.dll" <<<"$info" || fail "dxclinfo did not load the archive's OpenCL.dll: $info"
demo=$(DXCL_FAULT=alloc:1,lock:1,staging:1 "$source/scripts/wine-run.sh" "$root/demo.exe" "$work/out" 5 2>&1) || {
  echo "$demo"
  fail "the demo from the archive failed"
}
echo "$demo" | tail -n 3
grep -q '^demo: OK' <<<"$(tr -d '\r' <<<"$demo")" || fail "the demo did not report OK"
echo "dist: the demo runs from the unpacked archive (dxcl $version)"
