#!/usr/bin/env bash
# Runs a Windows program under Wine (scripts/wine-run.sh) inside a container built the way
# Steam's pressure-vessel builds one for Proton (docs/testing.md, "Inside Steam's container"):
#   - the host's root at /run/host (read-only);
#   - a /usr of the "runtime" that lacks the host's OpenCL: the host's /usr, with
#     usr/lib/x86_64-linux-gnu replaced by a copy made of links that leaves out the ICD loader
#     (libOpenCL.so*), PoCL (libpocl.so*) and two libraries only PoCL needs here (libhwloc,
#     libclang-cpp), so that dxcl's Unix side must take them from /run/host;
#   - an /etc without OpenCL vendor files (/etc/OpenCL is an empty tmpfs);
#   - the Vulkan driver passed in as pressure-vessel passes it: its ICD manifest rewritten to
#     the host's library under /run/host, in /overrides/share/vulkan/icd.d, named by
#     VK_DRIVER_FILES and VK_ICD_FILENAMES;
#   - no explicit Vulkan layer (VK_LAYER_PATH and VK_INSTANCE_LAYERS unset); the host's
#     implicit layers imported as pressure-vessel imports them: dxcl's layer manifest
#     (DXCL_VK_LAYER_DIR/share/vulkan/implicit_layer.d, the file the installer puts in
#     ~/.local/share/vulkan/implicit_layer.d) rewritten to its library's path under /run/host, in
#     /overrides/share/vulkan/implicit_layer.d, with /overrides/share first in XDG_DATA_DIRS;
#   - its own pid namespace; /sys, /tmp, $HOME, the build and source trees shared.
# Wine's prefixes are the container's own (DXCL_RIG_DIR/container), made inside it as Proton
# makes a game's; the display is the rig's Xvfb.
#
#   container-run.sh PROGRAM.exe [ARGS...]
#
# Environment: what wine-run.sh reads (DXCL_RIG_DIR, DXCL_WINE_UNIX, DXCL_DXVK_DIR, DXCL_*
# settings) passes in; DXCL_VK_LAYER_DIR is imported as said above instead of as an explicit
# layer. DXCL_CONTAINER_PROBE=1 runs `bwrap` once and exits with its status (is bwrap usable?).
set -euo pipefail

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
wine_run=$source_dir/scripts/wine-run.sh
rig_dir=${DXCL_RIG_DIR:-$(pwd)/rig}
rig_dir=$(mkdir -p "$rig_dir" && cd "$rig_dir" && pwd)
state=$rig_dir/container
tuple=x86_64-linux-gnu
hidden='^lib(OpenCL|pocl|hwloc|clang-cpp)\.so'

die() { echo "container-run: $*" >&2; exit 1; }

command -v bwrap >/dev/null || die "no bwrap (apt-get install bubblewrap: scripts/install-deps.sh)"
# Namespaces: bwrap says why it cannot make them (kernel.unprivileged_userns_clone, AppArmor's
# restrict_unprivileged_userns, a container without CAP_SYS_ADMIN); that line is the failure.
if ! probe=$(bwrap --unshare-pid --die-with-parent --ro-bind / / true 2>&1); then
  die "bwrap cannot make a container here: $probe"
fi
[ "${DXCL_CONTAINER_PROBE:-0}" != 1 ] || exit 0
[ $# -ge 1 ] || die "usage: container-run.sh PROGRAM.exe [ARGS...]"

# The runtime's library folder: a link per host entry, the hidden ones left out. Made once per
# rig (flock: tests may start together), again when the host's folder changes.
make_runtime_libs() {
  local libs=$state/usr-lib-$tuple stamp
  stamp=$(stat -c %Y "/usr/lib/$tuple")
  exec 7>"$state/runtime.lock"
  flock 7
  if [ "$(cat "$libs.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$libs"
    mkdir -p "$libs"
    for entry in "/usr/lib/$tuple"/*; do
      name=${entry##*/}
      [[ $name =~ $hidden ]] || ln -s "/run/host/usr/lib/$tuple/$name" "$libs/$name"
    done
    echo "$stamp" >"$libs.stamp"
  fi
  flock -u 7
}

# pressure-vessel's rewrite of a manifest: its library_path, made absolute, under /run/host.
import_manifest() {
  local manifest=$1 to=$2 library dir
  dir=$(cd "$(dirname "$manifest")" && pwd)
  library=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$manifest")
  [ -n "$library" ] || die "no library_path in $manifest"
  case "$library" in
  /*) ;;
  */*) library=$(realpath -m "$dir/$library") ;;
  *) ;; # a bare name: the container's library path finds it
  esac
  [[ $library != /* ]] || library=/run/host$library
  sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"$library\"|" "$manifest" >"$to"
}

make_overrides() {
  local share=$state/overrides/share/vulkan
  rm -rf "$state/overrides"
  mkdir -p "$share/icd.d" "$share/implicit_layer.d"
  drivers=
  for icd in /usr/share/vulkan/icd.d/lvp_icd.*.json; do
    [ -f "$icd" ] || die "no lavapipe manifest in /usr/share/vulkan/icd.d (mesa-vulkan-drivers)"
    import_manifest "$icd" "$share/icd.d/${icd##*/}"
    drivers=${drivers:+$drivers:}/overrides/share/vulkan/icd.d/${icd##*/}
  done
  local layer=${DXCL_VK_LAYER_DIR:-}/share/vulkan/implicit_layer.d/VkLayer_dxcl_interop.json
  if [ -n "${DXCL_VK_LAYER_DIR:-}" ]; then
    [ -f "$layer" ] || die "DXCL_VK_LAYER_DIR=$DXCL_VK_LAYER_DIR has no $layer"
    import_manifest "$layer" "$share/implicit_layer.d/0-$tuple.json"
  fi
}

mkdir -p "$state"
make_runtime_libs
exec 6>"$state/run.lock" # one container at a time: they share its prefixes
flock 6
make_overrides

# The rig's display, when its Xvfb lives.
display=${DISPLAY:-}
if [ -f "$rig_dir/display" ] && read -r num pid <"$rig_dir/display" && kill -0 "$pid" 2>/dev/null; then
  display=$num
fi

# The source tree, and what lies outside it of the program's folder, DXVK's and the Unix side's,
# read-only; then the working folder and the rig writable (a later mount hides what an earlier
# one put beneath it, so the writable ones come last).
binds=(--ro-bind "$source_dir" "$source_dir")
for path in "$1" "${DXCL_DXVK_DIR:-}" "${DXCL_WINE_UNIX:-}"; do
  [ -n "$path" ] || continue
  dir=$(cd "$(dirname "$path")" && pwd)
  [[ $dir/ == "$source_dir"/* ]] || binds+=(--ro-bind "$dir" "$dir")
done
binds+=(--bind "$(pwd)" "$(pwd)" --bind "$rig_dir" "$rig_dir")
[ -z "${DXCL_OUT_DIR:-}" ] || binds+=(--bind "$DXCL_OUT_DIR" "$DXCL_OUT_DIR")

status=0
bwrap --unshare-pid --die-with-parent \
  --ro-bind / /run/host \
  --ro-bind /usr /usr \
  --ro-bind "$state/usr-lib-$tuple" "/usr/lib/$tuple" \
  --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --symlink usr/sbin /sbin \
  --ro-bind /etc /etc --tmpfs /etc/OpenCL \
  --ro-bind "$state/overrides" /overrides \
  --proc /proc --dev /dev --ro-bind /sys /sys --bind /tmp /tmp --bind "$HOME" "$HOME" \
  "${binds[@]}" \
  --chdir "$(pwd)" \
  --unsetenv VK_LAYER_PATH --unsetenv VK_INSTANCE_LAYERS --unsetenv DXCL_VK_LAYER_DIR \
  --unsetenv OCL_ICD_VENDORS --unsetenv OCL_ICD_FILENAMES --unsetenv LD_LIBRARY_PATH \
  --setenv VK_DRIVER_FILES "$drivers" --setenv VK_ICD_FILENAMES "$drivers" \
  --setenv XDG_DATA_DIRS "/overrides/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}" \
  --setenv DXCL_RIG_DIR "$state/rig" --setenv DISPLAY "$display" \
  --setenv PATH /usr/bin:/bin \
  bash -c '"$@"; status=$?
    prefix=$DXCL_RIG_DIR/prefix${DXCL_DXVK_DIR:+-dxvk}
    WINEPREFIX=$prefix wineserver -k 2>/dev/null # saves the registry before the namespace ends
    exit $status' container "$wine_run" "$@" || status=$?
exit "$status"
