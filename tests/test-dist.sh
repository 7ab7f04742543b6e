#!/usr/bin/env bash
# The release archive (docs/deploy.md, "Releases"): builds it with `make dist`'s target, unpacks
# it into an empty folder and runs the demo from there under Wine (scripts/wine-run.sh), which
# loads the archive's OpenCL.dll beside it. Passes only when the demo reports OK and:
# - the archive holds what it must, named by the build's version;
# - its OpenCL.dll is the shipped build: no dxclFaultArm export, DXCL_FAULT ignored (the demo
#   runs with faults armed that would fail it), and the public header declares no test hook;
# - dxclinfo from the archive prints that version (dxclGetInfo);
# - the archive's installer takes the archive's x64/ parts by itself (a Wine tree, in and out);
# - with x32 (the x32 build is on, cmake/x32.cmake): x32/OpenCL.dll is an i386 DLL exporting
#   undecorated names and no test hook, and x32/dxclinfo.exe, a 32-bit program
#   (scripts/wine-run.sh DXCL_X32=1), loads it and prints the version; x32/wine holds the Unix
#   side's 32-bit pair (an i386 dxclunix.dll, a 32-bit ELF dxclunix.so), x64/wine only the
#   64-bit one.
#
#   test-dist.sh BUILD_DIR SOURCE_DIR OBJDUMP [x32]
set -euo pipefail
build=$1 source=$2 objdump=$3 x32=${4:-}
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
for file in x64/OpenCL.dll x64/dxclinfo.exe x64/demo.exe scripts/dxcl-wine.sh README.md LICENSE \
  CHANGELOG.md x64/wine/x86_64-windows/dxclunix.dll x64/wine/x86_64-unix/dxclunix.so \
  x64/vulkan/VkLayer_dxcl_interop.json x64/vulkan/libdxcl_vk_layer.so; do
  [ -f "$root/$file" ] || fail "the archive has no dxcl-$version/$file"
done
echo "contents: $(cd "$root" && find . -type f | sort | tr '\n' ' ')"

exports=$("$objdump" -p "$root/x64/OpenCL.dll")
grep -q 'clGetPlatformIDs' <<<"$exports" || fail "objdump lists no clGetPlatformIDs export: cannot judge"
! grep -q 'dxclFaultArm' <<<"$exports" || fail "the archive's OpenCL.dll exports dxclFaultArm"
! grep -q 'dxclFaultArm' "$source/include/dxcl/dxcl.h" || fail "include/dxcl/dxcl.h declares dxclFaultArm"
echo "the archive's OpenCL.dll exports no test hook"

# Faults that would fail the demo in a test build (its first allocation, lock and staging).
info=$(DXCL_FAULT=alloc:1,lock:1,staging:1 "$source/scripts/wine-run.sh" "$root/x64/dxclinfo.exe" --no-formats 2>&1) ||
  fail "dxclinfo from the archive failed: $info"
grep -qF "dxcl $version" <<<"$info" || fail "dxclinfo does not print 'dxcl $version': $info"
grep -F "dxcl $version" <<<"$info" | head -n 1
grep -qiF "dxcl-$version\\x64\\OpenCL.dll" <<<"$info" || fail "dxclinfo did not load the archive's OpenCL.dll: $info"
demo=$(DXCL_FAULT=alloc:1,lock:1,staging:1 "$source/scripts/wine-run.sh" "$root/x64/demo.exe" "$work/out" 5 2>&1) || {
  echo "$demo"
  fail "the demo from the archive failed"
}
echo "$demo" | tail -n 3
grep -q '^demo: OK' <<<"$(tr -d '\r' <<<"$demo")" || fail "the demo did not report OK"
echo "dist: the demo runs from the unpacked archive (dxcl $version)"

if [ "$x32" = x32 ]; then
  for file in x32/OpenCL.dll x32/dxclinfo.exe x32/wine/i386-windows/dxclunix.dll \
    x32/wine/i386-unix/dxclunix.so; do
    [ -f "$root/$file" ] || fail "the archive has no dxcl-$version/$file"
  done
  [ ! -e "$root/x64/wine/i386-unix" ] || fail "x64/wine holds the 32-bit pair (it belongs in x32/wine)"
  grep -q 'file format pei-i386' <<<"$("$objdump" -f "$root/x32/wine/i386-windows/dxclunix.dll")" ||
    fail "x32/wine/i386-windows/dxclunix.dll is not an i386 DLL"
  od -An -tx1 -j 4 -N 1 "$root/x32/wine/i386-unix/dxclunix.so" | grep -qw 01 ||
    fail "x32/wine/i386-unix/dxclunix.so is not a 32-bit ELF library"

  grep -q 'file format pei-i386' <<<"$("$objdump" -f "$root/x32/OpenCL.dll")" ||
    fail "x32/OpenCL.dll is not an i386 DLL"
  exports=$("$objdump" -p "$root/x32/OpenCL.dll" | sed -n '/Ordinal\/Name Pointer/,/^$/p')
  grep -qw 'clGetPlatformIDs' <<<"$exports" || fail "x32/OpenCL.dll exports no clGetPlatformIDs"
  ! grep -q '@' <<<"$exports" || fail "x32/OpenCL.dll exports decorated names: $(grep '@' <<<"$exports" | head -n 3)"
  ! grep -q 'dxclFaultArm' <<<"$exports" || fail "x32/OpenCL.dll exports dxclFaultArm"
  info=$(DXCL_X32=1 DXCL_FAULT=alloc:1,lock:1,staging:1 "$source/scripts/wine-run.sh" \
    "$root/x32/dxclinfo.exe" --no-formats 2>&1) || fail "the 32-bit dxclinfo from the archive failed: $info"
  grep -qF "dxcl $version" <<<"$info" || fail "the 32-bit dxclinfo does not print 'dxcl $version': $info"
  grep -qiF "dxcl-$version\x32\OpenCL.dll" <<<"$info" ||
    fail "the 32-bit dxclinfo did not load the archive's x32/OpenCL.dll: $info"
  echo "dist: x32/ holds an i386 OpenCL.dll with undecorated exports, loaded by its 32-bit dxclinfo"
fi

# The archive's installer takes the archive's own x64/ parts: a Wine tree's opencl.dll becomes
# dxcl (marked as a builtin) and comes back, byte for byte.
tree=$work/wine-tree
mkdir -p "$tree/lib/wine/x86_64-windows" "$tree/lib/wine/x86_64-unix"
echo "Wine's opencl.dll" >"$tree/lib/wine/x86_64-windows/opencl.dll"
before=$(cd "$tree" && find . -printf '%y %m %p\n' | sort && find . -type f -exec sha256sum {} + | sort)
XDG_DATA_HOME=$work/data "$root/scripts/dxcl-wine.sh" install "$tree" >/dev/null ||
  fail "the archive's installer failed on a Wine tree"
cmp -s <(tail -c +100 "$root/x64/OpenCL.dll") <(tail -c +100 "$tree/lib/wine/x86_64-windows/opencl.dll") ||
  fail "the archive's installer did not install the archive's x64/OpenCL.dll"
cmp -s "$root/x64/wine/x86_64-unix/dxclunix.so" "$tree/lib/wine/x86_64-unix/dxclunix.so" ||
  fail "the archive's installer did not install the archive's Unix side"
XDG_DATA_HOME=$work/data "$root/scripts/dxcl-wine.sh" uninstall "$tree" >/dev/null ||
  fail "the archive's installer could not uninstall"
after=$(cd "$tree" && find . -printf '%y %m %p\n' | sort && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || fail "the Wine tree is not as it was after uninstall"
[ ! -e "$work/data" ] || fail "the layer's folders are left in XDG_DATA_HOME: $(find "$work/data")"
echo "dist: the archive's installer installs its x64/ parts into a Wine tree and takes them out"
