#!/usr/bin/env bash
# Installs dxcl's OpenCL.dll into a Wine (or Proton) prefix for every program in it, removes it,
# or tells whether it is there. See docs/deploy.md.
#
#   dxcl-wine.sh install   [--prefix DIR] [--dll PATH]
#   dxcl-wine.sh uninstall [--prefix DIR]
#   dxcl-wine.sh status    [--prefix DIR]
#   dxcl-wine.sh unix install   [--wine-dir DIR] [--lib DIR] [--layer-dir DIR]
#   dxcl-wine.sh unix uninstall --wine-dir DIR [--layer-dir DIR]
#   dxcl-wine.sh unix status    [--wine-dir DIR]
#
# --prefix  the Wine prefix (default: $WINEPREFIX, else ~/.wine). For Proton:
#           <steam library>/steamapps/compatdata/<appid>/pfx
# --dll     dxcl's OpenCL.dll (default: the release archive's OpenCL.dll, or the shipped build
#           build/release/OpenCL.dll of this source tree)
# --wine-dir  a Wine DLL folder, the one holding x86_64-windows/ and x86_64-unix/: Wine's own
#           (/usr/lib/x86_64-linux-gnu/wine on Debian) or a Proton's (<proton>/files/lib/wine,
#           or files/lib64/wine in Proton before 8.0). Without it, `unix install` tells how to
#           use the Unix side through WINEDLLPATH instead, copying nothing.
# --lib     the Unix side's Wine DLL folder (default: the release archive's lib/wine, or
#           build/lib/wine of this source tree)
# --layer-dir  where `unix install` puts the Vulkan layer (default ~/.local/share/dxcl/vulkan)
# Environment: WINE (default: wine) is the wine used for the registry edits; for a Proton
# prefix give Proton's own (<proton>/files/bin/wine), and run with the game stopped.
#
# How it works (64-bit programs; dxcl is a 64-bit DLL):
#   install    replaces the prefix's drive_c/windows/system32/opencl.dll (Wine's builtin, kept
#              as opencl.dll.dxcl-backup) with dxcl, and sets HKCU\Software\Wine\DllOverrides
#              "opencl"="native,builtin" so that Wine loads that native file rather than its
#              builtin. dxcl sees that the system OpenCL.dll is itself and forwards to Wine's
#              builtin opencl.dll in Wine's own folder (WINEDLLDIR0\x86_64-windows).
#   uninstall  puts the backup back (or lets wineboot -u restore Wine's file) and removes the
#              override.
#   status     exit 0 when dxcl is installed, 1 when not (or only partly).
#   unix       dxcl's Unix side, the builtin pair dxclunix.dll + dxclunix.so (docs/deploy.md,
#              "The Unix side"): install copies both into the Wine DLL folder (x86_64-windows,
#              x86_64-unix), uninstall removes them, status tells whether they are there.
#              dxcl takes the pair wherever Wine finds it (DXCL_UNIX=auto), so OpenCL then
#              reaches the host's libOpenCL.so.1 without Wine's opencl.dll.
#              dxcl's host Vulkan layer (the folder vulkan/ beside --lib's wine/) goes with
#              the pair: install with --wine-dir copies it into --layer-dir (default
#              ~/.local/share/dxcl/vulkan), and either way prints the two variables that
#              enable it (docs/deploy.md, "The Vulkan layer"); uninstall removes the copy.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WINE=${WINE:-wine}

die() { echo "dxcl-wine: $*" >&2; exit 2; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-2}"
}

command=${1:-}
[ -n "$command" ] || usage 2
shift
if [ "$command" = unix ]; then
  command=unix-${1:-}
  [ $# -eq 0 ] || shift
fi
prefix=${WINEPREFIX:-$HOME/.wine}
# The shipped OpenCL.dll: beside scripts/ in a release archive (make dist), else the build's.
dll=$script_dir/../OpenCL.dll
[ -f "$dll" ] || dll=$script_dir/../build/release/OpenCL.dll
wine_dir=
lib=$script_dir/../lib/wine
[ -d "$lib" ] || lib=$script_dir/../build/lib/wine
layer_dir=${XDG_DATA_HOME:-$HOME/.local/share}/dxcl/vulkan
while [ $# -gt 0 ]; do
  case "$1" in
    --wine-dir) [ $# -ge 2 ] || die "--wine-dir needs a folder"; wine_dir=$2; shift 2 ;;
    --wine-dir=*) wine_dir=${1#--wine-dir=}; shift ;;
    --lib) [ $# -ge 2 ] || die "--lib needs a folder"; lib=$2; shift 2 ;;
    --lib=*) lib=${1#--lib=}; shift ;;
    --layer-dir) [ $# -ge 2 ] || die "--layer-dir needs a folder"; layer_dir=$2; shift 2 ;;
    --layer-dir=*) layer_dir=${1#--layer-dir=}; shift ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --dll) [ $# -ge 2 ] || die "--dll needs a file"; dll=$2; shift 2 ;;
    --dll=*) dll=${1#--dll=}; shift ;;
    -h|--help) usage 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

# The Unix side: no prefix involved, only a Wine DLL folder.
pair=(x86_64-windows/dxclunix.dll x86_64-unix/dxclunix.so)
layer_files=(VkLayer_dxcl_interop.json libdxcl_vk_layer.so)

# The Vulkan layer beside the pair (lib/vulkan): with "copy", copied to $layer_dir first. Tells
# how to enable it.
install_layer() {
  local from=$lib/../vulkan
  for file in "${layer_files[@]}"; do
    [ -f "$from/$file" ] || { echo "(no Vulkan layer in $from: the GPU path stays off)"; return 0; }
  done
  from=$(cd "$from" && pwd)
  if [ "${1:-}" = copy ]; then
    mkdir -p "$layer_dir"
    for file in "${layer_files[@]}"; do install -m 644 "$from/$file" "$layer_dir/$file"; done
    from=$(cd "$layer_dir" && pwd)
    echo "dxcl's Vulkan layer installed in $from."
  fi
  echo "For DXVK's devices to get dxcl's Vulkan layer (the GPU path), start Wine with"
  echo "  VK_LAYER_PATH=$from VK_INSTANCE_LAYERS=VK_LAYER_DXCL_interop"
  echo "(each before an existing value, with a colon; Steam: in the game's launch options)"
}

case "$command" in
unix-install)
  for file in "${pair[@]}"; do
    [ -f "$lib/$file" ] || die "no $file in $lib (build it with make, or give --lib)"
  done
  lib=$(cd "$lib" && pwd)
  if [ -z "$wine_dir" ]; then
    echo "dxcl's Unix side is in $lib. To use it without copying it anywhere, start Wine with"
    echo "  WINEDLLPATH=$lib"
    echo "With dxcl's OpenCL.dll beside the program, WINEDLLOVERRIDES=\"opencl=n\" also keeps"
    echo "Wine's own opencl.dll out, as under Proton. Proton's launcher sets WINEDLLPATH itself;"
    echo "for Proton (or to make it permanent) copy the pair into the Wine or Proton tree:"
    echo "  $0 unix install --wine-dir <wine>/lib/wine"
    install_layer
    exit 0
  fi
  for dir in x86_64-windows x86_64-unix; do
    [ -d "$wine_dir/$dir" ] || die "$wine_dir has no $dir/: give the folder that holds \
x86_64-windows/ and x86_64-unix/ (Proton: <proton>/files/lib/wine)"
  done
  for file in "${pair[@]}"; do
    install -m 644 "$lib/$file" "$wine_dir/$file"
  done
  echo "dxcl's Unix side installed in $wine_dir (${pair[*]})"
  install_layer copy
  exit 0 ;;
unix-uninstall)
  [ -n "$wine_dir" ] || die "unix uninstall needs --wine-dir"
  for file in "${pair[@]}"; do rm -f "$wine_dir/$file"; done
  for file in "${layer_files[@]}"; do rm -f "$layer_dir/$file"; done
  rmdir "$layer_dir" 2>/dev/null || true
  echo "dxcl's Unix side removed from $wine_dir"
  exit 0 ;;
unix-status)
  [ -n "$wine_dir" ] || wine_dir=$lib
  found=0
  for file in "${pair[@]}"; do
    if [ -f "$wine_dir/$file" ]; then echo "$file  present"; found=$((found + 1)); else echo "$file  absent"; fi
  done
  if [ "$found" = 2 ]; then echo "dxcl's Unix side is in $wine_dir"; exit 0; fi
  echo "dxcl's Unix side is not (wholly) in $wine_dir"
  exit 1 ;;
unix-*) die "unknown command 'unix ${command#unix-}' (unix install, unix uninstall or unix status)" ;;
esac

case "$command" in
  install|uninstall|status) ;;
  -h|--help|help) usage 0 ;;
  *) die "unknown command '$command' (install, uninstall or status)" ;;
esac

[ -d "$prefix" ] || die "no prefix at $prefix"
prefix=$(cd "$prefix" && pwd)
system32=$prefix/drive_c/windows/system32
if [ ! -f "$prefix/system.reg" ] || [ ! -d "$system32" ]; then
  die "$prefix is not a Wine prefix (no system.reg or drive_c/windows/system32); create it \
first (wineboot -i, or run the game once under Proton)"
fi

is_dxcl() { [ -f "$1" ] && grep -qa dxclGetInfo "$1"; }

# A file of a folder, whatever the case of its name (Wine names it opencl.dll).
find_ci() {
  local found
  found=$(find "$1" -maxdepth 1 -iname "$2" -print -quit 2>/dev/null || true)
  echo "${found:-$1/$2}"
}

# The override as the registry file has it ("native,builtin"), or nothing.
override_value() {
  awk '/^\[/ { in_section = (tolower($0) ~ /^\[software\\\\wine\\\\dlloverrides\]/) ; next }
       in_section && tolower($0) ~ /^"\*?opencl"=/ { sub(/^[^=]*="/, ""); sub(/"$/, ""); print; exit }' \
    "$prefix/user.reg" 2>/dev/null || true
}

reg() {
  # The registry is edited through Wine (the prefix's wineserver owns user.reg while it runs).
  WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree=;mshtml=" "$WINE" reg "$@" \
    >/dev/null 2>&1
}

wait_server() {
  local server
  server=$(dirname "$(command -v "$WINE")")/wineserver
  [ -x "$server" ] || server=wineserver
  WINEPREFIX=$prefix "$server" -w 2>/dev/null || true
}

system_dll=$(find_ci "$system32" opencl.dll)
backup=$system32/opencl.dll.dxcl-backup

case "$command" in
install)
  [ -f "$dll" ] || die "no dxcl DLL at $dll (build it with make, or give --dll)"
  is_dxcl "$dll" || die "$dll is not dxcl's OpenCL.dll"
  if [ -f "$system_dll" ] && ! is_dxcl "$system_dll"; then
    mv -f "$system_dll" "$backup" # Wine's builtin (or whatever OpenCL.dll the prefix had)
  fi
  rm -f "$system_dll"
  install -m 644 "$dll" "$system32/opencl.dll"
  reg add 'HKCU\Software\Wine\DllOverrides' /v opencl /t REG_SZ /d native,builtin /f ||
    die "could not set the DLL override (is '$WINE' a working wine?)"
  wait_server
  echo "dxcl installed in $prefix"
  echo "  drive_c/windows/system32/opencl.dll  dxcl (it forwards to Wine's builtin opencl.dll)"
  echo "  HKCU\\Software\\Wine\\DllOverrides      opencl = native,builtin"
  ;;
uninstall)
  if is_dxcl "$system_dll"; then
    rm -f "$system_dll"
    [ ! -f "$backup" ] || mv -f "$backup" "$system32/opencl.dll"
  fi
  if [ ! -f "$(find_ci "$system32" opencl.dll)" ]; then
    # No backup: programs would find no OpenCL.dll at all. Wine's prefix update puts its own
    # files back.
    echo "dxcl-wine: no backup of the prefix's opencl.dll; restoring Wine's with wineboot -u"
    WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree=;mshtml=" "$WINE" wineboot -u \
      >/dev/null 2>&1 || die "wineboot -u failed"
    wait_server
  fi
  if [ -n "$(override_value)" ]; then
    reg delete 'HKCU\Software\Wine\DllOverrides' /v opencl /f ||
      die "could not remove the DLL override (is '$WINE' a working wine?)"
    wait_server
  fi
  echo "dxcl removed from $prefix"
  ;;
status)
  override=$(override_value)
  installed=1
  if is_dxcl "$system_dll"; then
    echo "system32/opencl.dll   dxcl"
  else
    echo "system32/opencl.dll   $( [ -f "$system_dll" ] && echo "not dxcl" || echo "absent")"
    installed=0
  fi
  echo "DllOverrides opencl   ${override:-not set}"
  case "$override" in n,*|native,*|n|native) ;; *) installed=0 ;; esac
  if [ "$installed" = 1 ]; then
    echo "dxcl is installed in $prefix"
    exit 0
  fi
  echo "dxcl is not installed in $prefix"
  exit 1
  ;;
esac
