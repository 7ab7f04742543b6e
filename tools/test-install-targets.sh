#!/usr/bin/env bash
# The one-step installer (scripts/dxcl-wine.sh install|uninstall TARGET) against each kind of
# target, checked with dxclinfo (docs/deploy.md, "Installing"):
#   - Proton-shaped trees, one of each layout (files/lib/wine, and files/lib64/wine of Protons
#     before 8), made from Debian's Wine: the real x86_64-unix (Wine finds its folders from
#     ntdll.so's real path), links for the x86_64-windows and i386-windows builtins, a copy of the
#     loader wine64 in files/bin, and three links that make Debian's Wine run from such a tree
#     (files/x86_64-linux-gnu, files/wine/wineserver, share/wine: where it looks for its
#     libraries, wineserver and data), which real Protons do not have.
#     Installed, the tree's Wine gives every program of a fresh prefix dxcl as the builtin
#     opencl.dll with no override, through the Unix side installed beside it; uninstalled, the
#     tree is as it was, byte for byte (every file, link and mode), and dxclinfo says the
#     opencl.dll is not dxcl.
#   - A Steam game's prefix, given as compatdata/<appid>: install then uninstall leave it byte
#     for byte as it was (with the x32 build, its syswow64/opencl.dll is dxcl's while installed,
#     and a tree's i386-windows/opencl.dll stays Wine's); installed, dxclinfo from a folder without OpenCL.dll gets dxcl from
#     system32 through Wine's opencl.dll, and through the Unix side with WINEDLLPATH=<pfx>/dxcl.
#   - user.reg without a DllOverrides key, and with an opencl override of its own: each back,
#     byte for byte.
#   - The Vulkan layer: registered as an implicit layer (off unless DXCL_LAYER=1) by the first
#     install, kept while a target still has dxcl, gone with the last (XDG_DATA_HOME empty again).
#
#   test-install-targets.sh DXCL-WINE.SH BUILD_DIR DXCLINFO.EXE
#
# Uses the rig's Xvfb display (DXCL_RIG_DIR/display) when it is alive, else starts its own.
set -euo pipefail

installer=$1 build=$2 dxclinfo=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/dxcl-targets-test.XXXXXX")
# winemenubuilder would write the prefix's menu entries into XDG_DATA_HOME.
export XDG_DATA_HOME=$work/data WINEARCH=win64 WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree=;mshtml=;winemenubuilder.exe=d"
unset WINELOADER WINESERVER WINEDLLPATH
wine_lib=/usr/lib/x86_64-linux-gnu/wine
. "$(dirname "${BASH_SOURCE[0]}")/test-display.sh"

cleanup() {
  for prefix in "$work"/steam/compatdata/*/pfx; do
    [ ! -d "$prefix" ] || WINEPREFIX=$prefix wineserver -k >/dev/null 2>&1 || true
  done
  [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

use_display "$work"

# Every file, link and folder under a tree, with its mode and contents (or link target).
snapshot() {
  (cd "$1" && find . -printf '%y %m %p -> %l\n' | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# A Proton-shaped tree from Debian's Wine, its Wine DLL folder at files/LIBDIR/wine.
make_proton() {
  local tree=$1 libdir=$2 dlls=$1/files/$2/wine
  mkdir -p "$dlls/x86_64-windows" "$dlls/x86_64-unix" "$tree/files/lib/wine/i386-windows" \
    "$tree/files/bin" "$tree/files/wine" "$tree/share"
  printf '#!/bin/sh\n# a stand-in for Proton'"'"'s launcher\n' >"$tree/proton"
  echo "1 dxcl-test" >"$tree/version"
  cp -a "$wine_lib/x86_64-unix/." "$dlls/x86_64-unix/"
  for file in "$wine_lib"/x86_64-windows/*; do ln -s "$file" "$dlls/x86_64-windows/"; done
  for file in "$wine_lib"/i386-windows/*; do ln -s "$file" "$tree/files/lib/wine/i386-windows/"; done
  cp /usr/lib/wine/wine64 "$tree/files/bin/wine64"
  ln -s "$libdir" "$tree/files/x86_64-linux-gnu"
  ln -s /usr/lib/wine/wineserver64 "$tree/files/wine/wineserver"
  ln -s /usr/share/wine "$tree/share/wine"
}

# dxclinfo alone in a folder: it finds OpenCL.dll only as a program of the prefix does.
mkdir "$work/app"
cp "$dxclinfo" "$work/app/dxclinfo.exe"
run_dxclinfo() { # PREFIX WINE [VAR=value...]
  local prefix=$1 wine=$2
  shift 2
  (cd "$work/app" && env WINEPREFIX="$prefix" WINELOADER="$wine" "$@" "$wine" dxclinfo.exe \
    --no-formats 2>&1)
}

expect_dxcl() { # OUTPUT ROUTE-PATTERN
  grep -q '^dxcl [0-9]' <<<"$1" || fail "dxclinfo does not report dxcl"
  grep -qi 'OpenCL.dll *C:\\windows\\system32\\OpenCL.dll' <<<"$1" || fail "dxcl was not loaded as the system's opencl.dll"
  grep -q "^  Route *$2" <<<"$1" || fail "the route is not '$2'"
  grep -q '^  Sharing .*cl_khr_d3d11_sharing' <<<"$1" || fail "no cl_khr_d3d11_sharing"
}

expect_not_dxcl() { # OUTPUT
  grep -q 'the loaded OpenCL.dll (.*) is not dxcl' <<<"$1" || fail "dxclinfo does not say the OpenCL.dll is not dxcl"
}

step "a Steam library: two Proton trees and a game's prefix"
mkdir -p "$work/steam/common" "$work/steam/compatdata/4242"
make_proton "$work/steam/common/Proton 9.0" lib
make_proton "$work/steam/common/Proton 7.0" lib64
pfx=$work/steam/compatdata/4242/pfx
WINEPREFIX=$pfx wineboot -i >/dev/null 2>&1 || fail "wineboot -i failed"
WINEPREFIX=$pfx wineserver -w
mkdir -p "$XDG_DATA_HOME"
snapshot "$XDG_DATA_HOME" >"$work/data-before.txt"
data_as_before() {
  snapshot "$XDG_DATA_HOME" >"$work/data-after.txt"
  diff "$work/data-before.txt" "$work/data-after.txt" || fail "the layer is left after the last uninstall"
}

for version in "Proton 9.0" "Proton 7.0"; do
  tree=$work/steam/common/$version
  step "$version: install"
  snapshot "$tree" >"$work/before.txt"
  "$installer" install "$tree" --from "$build" || fail "install into $version failed"
  "$installer" status "$tree" || fail "status says not installed in $version"
  layout=$([ "$version" = "Proton 9.0" ] && echo lib || echo lib64)
  cmp -s "$build/release/OpenCL.dll" "$tree/files/$layout/wine/x86_64-windows/opencl.dll" &&
    fail "the tree's opencl.dll is not marked as a Wine builtin"
  grep -qa 'dxclGetInfo' "$tree/files/$layout/wine/x86_64-windows/opencl.dll" ||
    fail "dxcl is not the tree's opencl.dll (files/$layout/wine)"
  # The 32-bit dxcl (build/x32) forwards to the tree's 32-bit opencl.dll: that one stays Wine's.
  ! grep -qa 'dxclGetInfo' "$tree/files/lib/wine/i386-windows/opencl.dll" ||
    fail "the tree's 32-bit opencl.dll was replaced by dxcl"
  grep -q '"DXCL_LAYER": "1"' "$XDG_DATA_HOME/vulkan/implicit_layer.d/VkLayer_dxcl_interop.json" ||
    fail "the Vulkan layer is not registered with its switch"
  grep -q "\"library_path\": \"$XDG_DATA_HOME/dxcl/vulkan/libdxcl_vk_layer.so\"" \
    "$XDG_DATA_HOME/vulkan/implicit_layer.d/VkLayer_dxcl_interop.json" || fail "the layer's library path"

  step "$version: a program of the game's prefix"
  status=0
  output=$(run_dxclinfo "$pfx" "$tree/files/bin/wine64") || status=$?
  echo "$output" | head -n 8
  [ "$status" = 0 ] || fail "dxclinfo exited with $status"
  expect_dxcl "$output" 'the Unix side'
  grep -qi "Driver *Z:.*\\\\Proton ${version#Proton }\\\\files\\\\.*x86_64-windows\\\\dxclunix.dll" <<<"$output" ||
    fail "dxcl does not use the tree's own Unix side"

  step "$version: uninstall"
  "$installer" uninstall "$tree" || fail "uninstall failed"
  snapshot "$tree" >"$work/after.txt"
  diff "$work/before.txt" "$work/after.txt" || fail "$version is not as it was"
  echo "$version is as it was: $(wc -l <"$work/after.txt") entries and contents alike"
  status=0
  output=$(run_dxclinfo "$pfx" "$tree/files/bin/wine64") || status=$?
  [ "$status" != 0 ] || fail "dxclinfo succeeded after uninstall"
  expect_not_dxcl "$output"
done
data_as_before

step "the game's prefix (compatdata/4242): install and uninstall, byte for byte"
target=$work/steam/compatdata/4242
snapshot "$pfx" >"$work/before.txt"
"$installer" install "$target" --from "$build" || fail "install into the prefix failed"
"$installer" status "$target" || fail "status says not installed in the prefix"
grep -qx '"opencl"="native,builtin"' "$pfx/user.reg" || fail "no override in user.reg"
if [ -f "$build/x32/release/OpenCL.dll" ]; then
  cmp -s "$build/x32/release/OpenCL.dll" "$pfx/drive_c/windows/syswow64/opencl.dll" ||
    fail "the 32-bit dxcl is not the prefix's syswow64/opencl.dll"
fi
"$installer" uninstall "$target" || fail "uninstall from the prefix failed"
snapshot "$pfx" >"$work/after.txt"
diff "$work/before.txt" "$work/after.txt" || fail "the prefix is not as it was"

step "the game's prefix: programs get dxcl"
"$installer" install "$target" --from "$build" >/dev/null || fail "install into the prefix failed"
"$installer" install "$work/steam/common/Proton 9.0" --from "$build" >/dev/null || fail "install into Proton 9.0 failed"
output=$(run_dxclinfo "$pfx" /usr/lib/wine/wine64 DXCL_UNIX=0) || fail "dxclinfo failed: $output"
expect_dxcl "$output" "Wine's opencl.dll"
output=$(run_dxclinfo "$pfx" /usr/lib/wine/wine64 WINEDLLPATH="$pfx/dxcl") || fail "dxclinfo failed: $output"
echo "$output" | head -n 5
expect_dxcl "$output" 'the Unix side'
grep -qi 'Driver *Z:.*\\pfx\\dxcl\\x86_64-windows\\dxclunix.dll' <<<"$output" || fail "not the prefix's Unix side"
"$installer" uninstall "$target" >/dev/null || fail "uninstall from the prefix failed"
[ -f "$XDG_DATA_HOME/vulkan/implicit_layer.d/VkLayer_dxcl_interop.json" ] ||
  fail "the layer went while Proton 9.0 still has dxcl"
"$installer" uninstall "$work/steam/common/Proton 9.0" >/dev/null || fail "uninstall from Proton 9.0 failed"
data_as_before
[ ! -e "$pfx/dxcl" ] && [ ! -e "$pfx/.dxcl-install" ] || fail "dxcl's folders are left in the prefix"
! grep -q '"opencl"=' "$pfx/user.reg" || fail "the override is left in user.reg"
output=$(run_dxclinfo "$pfx" /usr/lib/wine/wine64) && fail "dxclinfo succeeded after uninstall"
expect_not_dxcl "$output"

step "user.reg without the key, and with an override of its own"
fake=$work/fake-prefix
mkdir -p "$fake/drive_c/windows/system32"
cp "$pfx/system.reg" "$fake/"
echo "not a DLL" >"$fake/drive_c/windows/system32/opencl.dll"
printf 'WINE REGISTRY Version 2\n\n#arch=win64\n\n[Software\\\\Wine] 1\n"Version"="win10"\n' >"$fake/user.reg"
for form in no-key own-override; do
  if [ "$form" = own-override ]; then
    printf '\n[Software\\\\Wine\\\\DllOverrides] 2\n#time=1d\n"opencl"="builtin"\n"*d3d11"="native"\n' >>"$fake/user.reg"
  fi
  snapshot "$fake" >"$work/before.txt"
  "$installer" install "$fake" --from "$build" >/dev/null || fail "install ($form) failed"
  [ "$(grep -c '^"opencl"=' "$fake/user.reg")" = 1 ] && grep -qx '"opencl"="native,builtin"' "$fake/user.reg" ||
    fail "user.reg ($form) has not exactly one opencl override, dxcl's: $(cat "$fake/user.reg")"
  "$installer" uninstall "$fake" >/dev/null || fail "uninstall ($form) failed"
  snapshot "$fake" >"$work/after.txt"
  diff "$work/before.txt" "$work/after.txt" || fail "user.reg ($form) is not as it was"
done
echo "install targets test: OK"
