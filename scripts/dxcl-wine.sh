#!/usr/bin/env bash
# Installs dxcl's OpenCL.dll into a Wine (or Proton) prefix for every program in it, removes it,
# or tells whether it is there. See docs/deploy.md.
#
#   dxcl-wine.sh install   [--prefix DIR] [--dll PATH]
#   dxcl-wine.sh uninstall [--prefix DIR]
#   dxcl-wine.sh status    [--prefix DIR]
#
# --prefix  the Wine prefix (default: $WINEPREFIX, else ~/.wine). For Proton:
#           <steam library>/steamapps/compatdata/<appid>/pfx
# --dll     dxcl's OpenCL.dll (default: the release archive's OpenCL.dll, or the shipped build
#           build/release/OpenCL.dll of this source tree)
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
prefix=${WINEPREFIX:-$HOME/.wine}
# The shipped OpenCL.dll: beside scripts/ in a release archive (make dist), else the build's.
dll=$script_dir/../OpenCL.dll
[ -f "$dll" ] || dll=$script_dir/../build/release/OpenCL.dll
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --dll) [ $# -ge 2 ] || die "--dll needs a file"; dll=$2; shift 2 ;;
    --dll=*) dll=${1#--dll=}; shift ;;
    -h|--help) usage 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

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
