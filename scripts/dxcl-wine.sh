#!/usr/bin/env bash
# Installs dxcl where Wine, Proton, Lutris and Bottles look for it, takes it out again, or tells
# whether it is there: one command per target (docs/deploy.md).
#
#   dxcl-wine.sh install   TARGET [--from DIR]
#   dxcl-wine.sh uninstall TARGET
#   dxcl-wine.sh status    TARGET
#
# TARGET, told apart by what it holds:
#   a Proton tree  <steam library>/steamapps/common/Proton 9.0, or a compatibilitytools.d entry
#                  (GE-Proton): its Wine DLL folder is files/lib/wine (files/lib64/wine in
#                  older Protons)
#   a Wine tree    a Wine install (/opt/wine-staging, /usr for the distribution's Wine), a
#                  Lutris runner (~/.local/share/lutris/runners/wine/<name>), a Bottles runner
#                  (~/.local/share/bottles/runners/<name>): lib/wine, lib64/wine or
#                  lib/x86_64-linux-gnu/wine
#   a Wine prefix  ~/.wine, a Bottles bottle, a Steam game's compatdata/<appid> (or its pfx)
#
# What install does:
#   a tree    dxcl's OpenCL.dll, marked as a Wine builtin, takes the place of the tree's
#             x86_64-windows/opencl.dll: every program run with that Wine or Proton, in any
#             prefix, loads dxcl with no override; dxcl's Unix side (dxclunix.dll, dxclunix.so)
#             goes beside it, in x86_64-windows and x86_64-unix.
#   a prefix  dxcl's OpenCL.dll takes the place of drive_c/windows/system32/opencl.dll, and the
#             override "opencl"="native,builtin" goes into user.reg (edited as text: stop the
#             prefix's programs first). dxcl then reaches the host's OpenCL through Wine's
#             opencl.dll, or through its Unix side, which goes into <prefix>/dxcl (a Wine DLL
#             folder: Wine takes it only from WINEDLLPATH=<prefix>/dxcl; Proton 11 and later
#             pass a WINEDLLPATH given in the launch options on, older ones need the tree).
#   both      register dxcl's Vulkan layer as an implicit layer of this user: its library in
#             $XDG_DATA_HOME/dxcl/vulkan, its manifest in $XDG_DATA_HOME/vulkan/implicit_layer.d
#             (XDG_DATA_HOME defaults to ~/.local/share). It stays off unless DXCL_LAYER=1 is in
#             the environment; Steam's container imports it as it imports the Vulkan drivers.
# Whatever install replaces is kept in TARGET/.dxcl-install; uninstall puts it back and removes
# what install added, leaving TARGET as it was, byte for byte (a file someone replaced since,
# such as a Proton update's opencl.dll, is left as it is). The layer goes with the last target
# installed.
# 32-bit programs (x32/ of the release archive, build/x32 and lib/wine's i386 folders of a build
# tree): in a prefix, dxcl's 32-bit OpenCL.dll takes the place of
# drive_c/windows/syswow64/opencl.dll (the same override serves both), and the 32-bit pair of its
# Unix side (for Wine's old WoW64) goes into <prefix>/dxcl/i386-windows and i386-unix, beside the
# 64-bit one; the 32-bit dxcl takes it, else forwards to Wine's 32-bit builtin opencl.dll. A tree
# gets the 32-bit pair beside its own i386-windows and i386-unix DLLs, where it has those, but
# keeps its own 32-bit opencl.dll, which the 32-bit dxcl of a prefix falls back to
# (docs/deploy.md, "32-bit programs").
#
# --from DIR  where dxcl's files come from: an unpacked release archive (with x64/) or a build
#             tree (with release/OpenCL.dll, lib/wine, lib/vulkan). Default: the archive this
#             script came in, else build/ of its source tree.
#
# Older forms, still understood:
#   dxcl-wine.sh install|uninstall|status [--prefix DIR] [--dll PATH]     (a prefix)
#   dxcl-wine.sh unix install [--wine-dir DIR] [--lib DIR] [--layer-dir DIR]
#   dxcl-wine.sh unix uninstall --wine-dir DIR [--layer-dir DIR]
#   dxcl-wine.sh unix status [--wine-dir DIR]
#     The Unix side alone: copied into a Wine DLL folder (the one holding x86_64-windows/ and
#     x86_64-unix/), or, without --wine-dir, the WINEDLLPATH and Vulkan layer variables printed
#     for the copy this script came with; --layer-dir is where the layer is copied (default
#     ~/.local/share/dxcl/vulkan).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "dxcl-wine: $*" >&2; exit 2; }
say() { echo "dxcl-wine: $*"; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-2}"
}

# ---- dxcl's files: x64/ (and x32/) of a release archive, or a build tree ----

dll64='' pair64='' layer_from='' dll32='' pair32=''
find_parts() {
  local from=$1
  if [ -z "$from" ]; then
    from=$script_dir/..
    [ -d "$from/x64" ] || from=$script_dir/../build
  fi
  [ -d "$from" ] || die "no dxcl files at $from (give --from DIR)"
  from=$(cd "$from" && pwd)
  if [ -d "$from/x64" ]; then
    dll64=$from/x64/OpenCL.dll pair64=$from/x64/wine layer_from=$from/x64/vulkan
    # The 32-bit OpenCL.dll and its Unix side's pair (old WoW64: x32/wine).
    [ ! -f "$from/x32/OpenCL.dll" ] || dll32=$from/x32/OpenCL.dll pair32=$from/x32/wine
  else
    dll64=$from/release/OpenCL.dll pair64=$from/lib/wine layer_from=$from/lib/vulkan
    [ ! -f "$from/x32/release/OpenCL.dll" ] || dll32=$from/x32/release/OpenCL.dll pair32=$from/lib/wine
  fi
  [ -f "$pair32/i386-windows/dxclunix.dll" ] && [ -f "$pair32/i386-unix/dxclunix.so" ] || pair32=""
  [ -z "$dll32" ] || is_dxcl "$dll32" || die "$dll32 is not dxcl's OpenCL.dll"
  [ -f "$dll64" ] || die "no OpenCL.dll at $dll64 (build it with make, or give --from DIR)"
  is_dxcl "$dll64" || die "$dll64 is not dxcl's OpenCL.dll"
  for file in x86_64-windows/dxclunix.dll x86_64-unix/dxclunix.so; do
    [ -f "$pair64/$file" ] || die "no $file in $pair64: dxcl's Unix side is missing"
  done
}

is_dxcl() { [ -f "$1" ] && grep -qa dxclGetInfo "$1"; }

# Wine's builtin signature at offset 0x40, as cmake/mark-wine-builtin.sh writes it.
mark_builtin() {
  local pe_offset
  pe_offset=$(od -An -tu4 -j 60 -N 4 "$1" | tr -d ' ')
  [ "$pe_offset" -ge 81 ] || die "$1: its PE header leaves no room for Wine's builtin mark"
  printf 'Wine builtin DLL\0' | dd of="$1" bs=1 seek=64 conv=notrunc status=none
}

# ---- the target ----

kind='' root='' dlldir64=''
find_target() {
  local target=$1 dir
  [ -d "$target" ] || die "no folder $target"
  root=$(cd "$target" && pwd)
  if [ -f "$root/pfx/system.reg" ] && [ -d "$root/pfx/drive_c" ]; then
    root=$root/pfx # a Steam game's compatdata/<appid>
  fi
  if [ -f "$root/system.reg" ] && [ -d "$root/drive_c" ]; then
    kind=prefix
    return
  fi
  for dir in files/lib/wine files/lib64/wine lib/wine lib64/wine lib/x86_64-linux-gnu/wine \
    lib64/x86_64-linux-gnu/wine; do
    [ -d "$root/$dir/x86_64-windows" ] && [ -d "$root/$dir/x86_64-unix" ] || continue
    dlldir64=$dir
    break
  done
  [ -n "$dlldir64" ] || die "$root is neither a Wine prefix (system.reg, drive_c), nor a Proton \
or Wine tree (files/lib/wine, lib/wine, lib64/wine with x86_64-windows/ and x86_64-unix/)"
  kind=wine
  [ ! -d "$root/files" ] || kind=proton
}

# ---- what install changed: TARGET/.dxcl-install/manifest, one line per change ----
#   dir REL        a folder install made
#   placed REL     a file install added
#   replaced REL   a file install replaced; the original is backup/REL
#   reg WHAT       user.reg: added (the value line), section (the key and its line), or
#                  replaced:<the original value line>

state='' manifest=''
open_state() {
  state=$root/.dxcl-install
  manifest=$state/manifest
}

recorded() { [ -f "$manifest" ] && grep -qxF "$1" "$manifest"; }
record() {
  if [ ! -d "$state" ]; then
    mkdir "$state"
    : >"$manifest"
  fi
  recorded "$1" || echo "$1" >>"$manifest"
}

# The folders of REL (a folder) that do not exist yet, made and recorded.
make_dirs() {
  local rel=$1 part='' piece
  local IFS=/
  for piece in $rel; do
    part=${part:+$part/}$piece
    if [ ! -d "$root/$part" ]; then
      mkdir "$root/$part"
      record "dir $part"
    fi
  done
}

# place SRC REL [builtin]: SRC at TARGET/REL (marked as a Wine builtin with "builtin"), what was
# there kept first.
place() {
  local src=$1 rel=$2 dest=$root/$2 tmp
  make_dirs "$(dirname "$rel")"
  if ! recorded "placed $rel" && ! recorded "replaced $rel"; then
    if [ -e "$dest" ] || [ -L "$dest" ]; then
      mkdir -p "$state/backup/$(dirname "$rel")"
      mv "$dest" "$state/backup/$rel"
      record "replaced $rel"
    else
      record "placed $rel"
    fi
  fi
  tmp=$dest.dxcl-new
  cp "$src" "$tmp"
  chmod 644 "$tmp"
  [ "${3:-}" != builtin ] || mark_builtin "$tmp"
  mv -f "$tmp" "$dest"
}

# A file install replaced, back; unless it is not dxcl's any more (the tree was updated since).
put_back() {
  local rel=$1 dest=$root/$1
  case "$rel" in
  */opencl.dll | */dxclunix.dll | */dxclunix.so)
    if [ -e "$dest" ] && ! grep -qa 'dxclGetInfo\|dxclunixGetProcAddress\|dxcl_host_icds' "$dest"; then
      say "$rel is not dxcl's any more: left as it is"
      return
    fi ;;
  esac
  rm -f "$dest"
  mv "$state/backup/$rel" "$dest"
}

undo_changes() {
  local line
  [ -f "$manifest" ] || return 0
  while IFS= read -r line; do
    case "$line" in
    "placed "*) rm -f "$root/${line#placed }" ;;
    "replaced "*) put_back "${line#replaced }" ;;
    "dir "*) rmdir "$root/${line#dir }" 2>/dev/null || say "${line#dir } is not empty: left" ;;
    "reg "*) registry_undo "${line#reg }" ;;
    esac
  done < <(tac "$manifest")
  rm -rf "$state"
}

# ---- user.reg: the override "opencl"="native,builtin" in [Software\\Wine\\DllOverrides] ----

# The texts as user.reg has them, handed to awk through the environment (awk -v would read the
# backslashes as escapes).
export DXCL_REG_HEADER='[Software\\Wine\\DllOverrides]' DXCL_REG_VALUE='"opencl"="native,builtin"'
reg_awk_prelude='function is_header(l) { h = ENVIRON["DXCL_REG_HEADER"]; return l == h || index(l, h " ") == 1 }
function is_opencl(l) { return tolower(l) ~ /^"\*?opencl"=/ }
/^\[/ { in_section = is_header($0) }'

# A prefix is in use while a wineserver serves it: that server's folder is named after the
# prefix's device and inode, and is its working folder.
prefix_in_use() {
  local name link
  name=server-$(stat -c %D "$root")-$(printf %x "$(stat -c %i "$root")")
  for link in /proc/[0-9]*/cwd; do
    [ "$(readlink "$link" 2>/dev/null | sed 's|.*/||')" != "$name" ] || return 0
  done
  return 1
}

# user.reg rewritten by an awk program (the prelude's in_section is true in the key's lines).
reg_edit() {
  awk "$reg_awk_prelude"$'\n'"$1" "$root/user.reg" >"$root/user.reg.dxcl-new"
  mv -f "$root/user.reg.dxcl-new" "$root/user.reg"
}

# The prefix's opencl override line, or nothing.
override_now() {
  awk "$reg_awk_prelude"$'\n''in_section && is_opencl($0) { print; exit }' "$root/user.reg"
}

registry_install() {
  local current
  current=$(override_now)
  if [ "$current" = "$DXCL_REG_VALUE" ]; then
    return
  elif [ -n "$current" ]; then
    record "reg replaced:$current"
    reg_edit 'in_section && is_opencl($0) { print ENVIRON["DXCL_REG_VALUE"]; next } { print }'
  elif grep -qF "$DXCL_REG_HEADER" "$root/user.reg"; then
    record "reg added"
    # The value goes after the key's line and its #time line.
    reg_edit '{ print }
      is_header($0) && !done { done = 1
        if ((getline next_line) > 0) {
          if (next_line ~ /^#/) { print next_line; print ENVIRON["DXCL_REG_VALUE"] }
          else { print ENVIRON["DXCL_REG_VALUE"]; print next_line }
        } else print ENVIRON["DXCL_REG_VALUE"] }'
  else
    record "reg section"
    printf '\n%s 0\n%s\n' "$DXCL_REG_HEADER" "$DXCL_REG_VALUE" >>"$root/user.reg"
  fi
}

registry_undo() {
  local how=$1
  [ -f "$root/user.reg" ] || return 0
  case "$how" in
  replaced:*)
    export DXCL_REG_ORIGINAL=${how#replaced:}
    reg_edit '
      in_section && $0 == ENVIRON["DXCL_REG_VALUE"] { print ENVIRON["DXCL_REG_ORIGINAL"]; next }
      { print }' ;;
  added) reg_edit 'in_section && $0 == ENVIRON["DXCL_REG_VALUE"] { next } { print }' ;;
  section)
    # The key install appended, with the blank line before it, where it holds only the value
    # still; else the value alone.
    reg_edit '{ line[NR] = $0; section[NR] = in_section }
      END {
        for (i = 1; i <= NR; i++) {
          if (is_header(line[i]) && line[i + 1] == ENVIRON["DXCL_REG_VALUE"] && line[i - 1] == "" &&
              (i + 1 == NR || line[i + 2] == "" || line[i + 2] ~ /^\[/))
            skip[i - 1] = skip[i] = skip[i + 1] = 1
          else if (section[i] && line[i] == ENVIRON["DXCL_REG_VALUE"])
            skip[i] = 1
        }
        for (i = 1; i <= NR; i++) if (!skip[i]) print line[i]
      }' ;;
  esac
}

# ---- dxcl's Vulkan layer, one registration for this user's targets ----

data_home=${XDG_DATA_HOME:-$HOME/.local/share}
layer_home=$data_home/dxcl/vulkan
layer_manifest=$data_home/vulkan/implicit_layer.d/VkLayer_dxcl_interop.json
layer_users=$data_home/dxcl/installs
layer_files=(VkLayer_dxcl_interop.json libdxcl_vk_layer.so)

# Folders of PATH that do not exist, made, and listed for their removal with the layer.
make_layer_dirs() {
  local dir=$1 missing=()
  while [ ! -d "$dir" ]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
  for dir in "${missing[@]}"; do mkdir "$dir"; done
  for dir in "${missing[@]}"; do
    [ "$dir" = "$data_home/dxcl" ] || echo "$dir" >>"$data_home/dxcl/made-dirs"
  done
}

register_layer() {
  local file
  for file in "${layer_files[@]}"; do
    [ -f "$layer_from/$file" ] || { say "no Vulkan layer in $layer_from: the GPU path stays off"; return 0; }
  done
  make_layer_dirs "$data_home/dxcl"
  make_layer_dirs "$layer_home"
  make_layer_dirs "$(dirname "$layer_manifest")"
  install -m 644 "$layer_from/libdxcl_vk_layer.so" "$layer_home/libdxcl_vk_layer.so"
  sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"$layer_home/libdxcl_vk_layer.so\"|" \
    "$layer_from/VkLayer_dxcl_interop.json" >"$layer_manifest"
  grep -qxF "$root" "$layer_users" 2>/dev/null || echo "$root" >>"$layer_users"
}

unregister_layer() {
  [ -f "$layer_users" ] || return 0
  grep -vxF "$root" "$layer_users" >"$layer_users.new" || true
  mv -f "$layer_users.new" "$layer_users"
  [ ! -s "$layer_users" ] || return 0
  local made=()
  rm -f "$layer_manifest" "$layer_home/libdxcl_vk_layer.so" "$layer_users"
  [ ! -f "$data_home/dxcl/made-dirs" ] || mapfile -t made < <(tac "$data_home/dxcl/made-dirs")
  rm -f "$data_home/dxcl/made-dirs"
  rmdir "$layer_home" "$data_home/dxcl" 2>/dev/null || true
  for dir in "${made[@]}"; do rmdir "$dir" 2>/dev/null || true; done
}

layer_registered() { [ -f "$layer_manifest" ] && grep -qxF "$root" "$layer_users" 2>/dev/null; }

# ---- the commands ----

install_tree() {
  place "$dll64" "$dlldir64/x86_64-windows/opencl.dll" builtin
  place "$pair64/x86_64-windows/dxclunix.dll" "$dlldir64/x86_64-windows/dxclunix.dll"
  place "$pair64/x86_64-unix/dxclunix.so" "$dlldir64/x86_64-unix/dxclunix.so"
  say "dxcl installed in the $kind tree $root ($dlldir64: opencl.dll, dxclunix.dll, dxclunix.so)"
  [ -n "$dll32" ] || return 0
  if [ -n "$pair32" ] && [ -d "$root/$dlldir64/i386-windows" ] && [ -d "$root/$dlldir64/i386-unix" ]; then
    place "$pair32/i386-windows/dxclunix.dll" "$dlldir64/i386-windows/dxclunix.dll"
    place "$pair32/i386-unix/dxclunix.so" "$dlldir64/i386-unix/dxclunix.so"
    say "the 32-bit Unix side (old WoW64) is in $dlldir64/i386-windows and i386-unix"
  fi
  say "32-bit programs keep Wine's opencl.dll in a tree (dxcl's 32-bit one falls back to it): \
install dxcl into their prefix for them"
}

install_prefix() {
  prefix_in_use && die "a wineserver serves $root: stop its programs (the game) first"
  place "$dll64" drive_c/windows/system32/opencl.dll
  place "$pair64/x86_64-windows/dxclunix.dll" dxcl/x86_64-windows/dxclunix.dll
  place "$pair64/x86_64-unix/dxclunix.so" dxcl/x86_64-unix/dxclunix.so
  local placed32=''
  if [ -n "$dll32" ] && [ -d "$root/drive_c/windows/syswow64" ]; then
    place "$dll32" drive_c/windows/syswow64/opencl.dll
    placed32=', syswow64/opencl.dll (32-bit)'
    if [ -n "$pair32" ]; then
      place "$pair32/i386-windows/dxclunix.dll" dxcl/i386-windows/dxclunix.dll
      place "$pair32/i386-unix/dxclunix.so" dxcl/i386-unix/dxclunix.so
      placed32="$placed32 with its Unix side"
    fi
  fi
  registry_install
  say "dxcl installed in the prefix $root (system32/opencl.dll$placed32, user.reg: opencl=native,builtin)"
  say "its Unix side (OpenCL 3.0, the GPU path; what Proton needs) is in $root/dxcl: start"
  say "programs with WINEDLLPATH=$root/dxcl (Steam, Proton 11 and later: in the launch options)"
}

do_install() {
  open_state
  if [ "$kind" = prefix ]; then install_prefix; else install_tree; fi
  register_layer
  if layer_registered; then
    say "dxcl's Vulkan layer is registered ($layer_manifest): DXCL_LAYER=1 turns it on"
    say "Steam: set the game's launch options to  DXCL_LAYER=1 %command%"
  fi
  say "check with dxclinfo.exe run in a prefix of this target (its Route line)"
}

do_uninstall() {
  open_state
  [ "$kind" != prefix ] || ! prefix_in_use || die "a wineserver serves $root: stop its programs first"
  if [ ! -f "$manifest" ] && [ "$kind" = prefix ] &&
    is_dxcl "$root/drive_c/windows/system32/opencl.dll"; then
    # An install by this script before 0.3: system32/opencl.dll.dxcl-backup and the override.
    rm -f "$root/drive_c/windows/system32/opencl.dll"
    [ ! -f "$root/drive_c/windows/system32/opencl.dll.dxcl-backup" ] ||
      mv "$root/drive_c/windows/system32/opencl.dll.dxcl-backup" "$root/drive_c/windows/system32/opencl.dll"
    reg_edit 'in_section && $0 == ENVIRON["DXCL_REG_VALUE"] { next } { print }'
    say "dxcl (an older install) removed from $root"
  elif [ ! -f "$manifest" ]; then
    say "dxcl is not installed in $root (no .dxcl-install)"
  else
    undo_changes
    say "dxcl removed from $root"
  fi
  unregister_layer
}

do_status() {
  local rel incomplete=0
  open_state
  if [ ! -f "$manifest" ]; then
    say "dxcl is not installed in $root"
    return 1
  fi
  while IFS= read -r line; do
    case "$line" in
    "placed "* | "replaced "*)
      rel=${line#* }
      if [ -f "$root/$rel" ] && grep -qa 'dxclGetInfo\|dxclunixGetProcAddress\|dxcl_host_icds' "$root/$rel"; then
        echo "  $rel  dxcl"
      else
        echo "  $rel  not dxcl's (replaced since?)"; incomplete=1
      fi ;;
    "reg "*) echo "  user.reg  $(override_now)" ;;
    esac
  done <"$manifest"
  if layer_registered; then echo "  Vulkan layer  $layer_manifest"; else echo "  Vulkan layer  not registered"; fi
  if [ "$incomplete" = 0 ]; then say "dxcl is installed in $root"; return 0; fi
  say "dxcl is not (wholly) installed in $root"
  return 1
}

# ---- the older forms ----

legacy_prefix() {
  local cmd=$1 prefix=${WINEPREFIX:-$HOME/.wine} dll=
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --dll) [ $# -ge 2 ] || die "--dll needs a file"; dll=$2; shift 2 ;;
    --dll=*) dll=${1#--dll=}; shift ;;
    --from) [ $# -ge 2 ] || die "--from needs a folder"; from=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) die "unknown option $1 (see --help)" ;;
    esac
  done
  [ -d "$prefix" ] || die "no prefix at $prefix"
  find_target "$prefix"
  [ "$kind" = prefix ] || die "$prefix is not a Wine prefix (no system.reg or drive_c); create it \
first (wineboot -i, or run the game once under Proton)"
  [ "$cmd" = uninstall ] || [ "$cmd" = status ] || find_parts "$from"
  if [ -n "$dll" ]; then
    is_dxcl "$dll" || die "$dll is not dxcl's OpenCL.dll"
    dll64=$dll
  fi
  "do_$cmd"
}

command=${1:-}
[ -n "$command" ] || usage 2
shift
from=
case "$command" in
-h | --help | help) usage 0 ;;
unix) die "'unix $*' is now part of install: dxcl-wine.sh install <the Wine or Proton tree>" ;;
install | uninstall | status) ;;
*) die "unknown command '$command' (install, uninstall, status or unix)" ;;
esac
if [ $# -eq 0 ] || [ "${1#-}" != "$1" ]; then
  legacy_prefix "$command" "$@"
  exit $?
fi
target=$1
shift
while [ $# -gt 0 ]; do
  case "$1" in
  --from) [ $# -ge 2 ] || die "--from needs a folder"; from=$2; shift 2 ;;
  --from=*) from=${1#--from=}; shift ;;
  *) die "unknown option $1 (see --help)" ;;
  esac
done
find_target "$target"
[ "$command" != install ] || find_parts "$from"
"do_$command"
