#!/usr/bin/env bash
# Installs the Debian packages dxcl builds and tests with, only when one is missing.
# Idempotent and quiet: used by `make demo`, `make check` and .ci/run.
#
# 32-bit programs (docs/testing.md, "32-bit programs") need the i386 architecture: Wine's 32-bit
# half (wine32:i386, old WoW64 in Debian 12's Wine 8), i686 mingw-w64, and OpenCL and Mesa for
# i386. Debian 12 cannot install PoCL for both architectures (its libpocl2 needs clang-15 and
# libclang-cpp15, which are Multi-Arch: none), so the i386 PoCL is unpacked from its packages
# (apt-get download) into a folder of its own, $DXCL_POCL_I386 (default /opt/dxcl/pocl-i386),
# with an ICD file that names it; the 64-bit PoCL stays the system's.
set -euo pipefail

packages=(
  gcc gcc-mingw-w64-x86-64 cmake make clang-format # gcc: also dxcl's Unix side (dxclunix.so)
  wine wine64 xvfb xauth libgl1-mesa-dri
  pocl-opencl-icd ocl-icd-libopencl1 opencl-c-headers
  libvulkan1 mesa-vulkan-drivers # Vulkan (lavapipe) for DXVK: make check DXVK=DIR
  libvulkan-dev # the headers of dxcl's Vulkan layer (libdxcl_vk_layer.so)
  vulkan-validationlayers # the GPU path's tests run under the Khronos validation layer
  bubblewrap # the container.* tests: a container built as Steam's pressure-vessel builds one
)
# 32-bit programs: the i686 build, Wine's 32-bit half, the ICD loader (which dxcl's i386 Unix
# side opens), Mesa (wined3d on llvmpipe), what the i386 PoCL links to beyond the two packages
# unpacked below, and the C library and libgcc it links each kernel with, which the host's gcc
# -m32 also builds dxcl's i386 dxclunix.so with (src/unix/CMakeLists.txt: Debian's gcc has no
# multilib of its own).
packages_i386=(
  gcc-mingw-w64-i686 wine32:i386 ocl-icd-libopencl1:i386
  libgl1:i386 libglx-mesa0:i386 libgl1-mesa-dri:i386
  libllvm15:i386 libhwloc15:i386 libstdc++6:i386 libatomic1:i386 libgcc-s1:i386
  libc6-dev:i386 libgcc-12-dev:i386
)
pocl_i386=${DXCL_POCL_I386:-/opt/dxcl/pocl-i386}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

# missing_of PACKAGE...: those not installed ("NAME" is the native architecture's, or "all"),
# one dpkg-query for all: make demo runs this script first.
missing_of() {
  local native pkg status
  native=$(dpkg --print-architecture)
  declare -A ok=()
  while read -r pkg status; do
    [ "$status" != "install ok installed" ] || ok[$pkg]=1
  done < <(dpkg-query -W -f='${Package}:${Architecture} ${Status}\n' "${@%%:*}" 2>/dev/null || true)
  for pkg in "$@"; do
    if [[ $pkg == *:* ]]; then
      [ -n "${ok[$pkg]:-}" ] || echo "$pkg"
    else
      [ -n "${ok[$pkg:$native]:-}" ] || [ -n "${ok[$pkg:all]:-}" ] || echo "$pkg"
    fi
  done
}
version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

updated=0
apt_update() {
  [ "$updated" = 0 ] || return 0
  updated=1
  # A mirror that lacks one index (bookworm-security's i386 index, on some mirrors) must not
  # stop the rest: what is missing shows when the install fails.
  $sudo apt-get update -qq >/dev/null 2>&1 || echo "install-deps: apt-get update reported errors (continuing)" >&2
}

# apt_install [OPTION...] PACKAGE...: the packages and what they need. The i386 package of a
# Multi-Arch: same library must have the version of its amd64 package, and a mirror without
# bookworm-security's i386 index offers no i386 package of a security update already installed
# for amd64. Then the install is tried once more with the point release first for both
# architectures (a downgrade of such an amd64 package; `apt-get upgrade` brings both back once
# the mirror has the index).
apt_install() {
  $sudo apt-get install -y -qq "$@" >/dev/null 2>&1 && return 0
  echo "install-deps: retrying with the point release before bookworm-security (a mirror without its i386 index)" >&2
  local prefs status=0
  prefs=$(mktemp)
  printf '%s\n' 'Package: *' 'Pin: release l=Debian-Security' 'Pin-Priority: 100' '' \
    'Package: *' 'Pin: release l=Debian' 'Pin-Priority: 1001' >"$prefs"
  $sudo apt-get install -y -qq --allow-downgrades -o Dir::Etc::Preferences="$prefs" "$@" >/dev/null ||
    status=$?
  rm -f "$prefs"
  return "$status"
}

mapfile -t missing < <(missing_of "${packages[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  apt_update
  apt_install "${missing[@]}"
fi

[ "$(dpkg --print-architecture)" = amd64 ] || exit 0
mapfile -t missing < <(missing_of "${packages_i386[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  dpkg --print-foreign-architectures | grep -qx i386 || {
    echo "install-deps: adding the i386 architecture (32-bit programs)"
    $sudo dpkg --add-architecture i386
    updated=0
  }
  echo "install-deps: installing ${missing[*]}"
  apt_update
  # Without recommends: Wine's 32-bit half recommends media and sound libraries the tests
  # never load.
  apt_install --no-install-recommends "${missing[@]}"
fi

# The i386 PoCL: unpacked into $pocl_i386/root, its ICD file $pocl_i386/vendors/pocl.icd names
# the library by its full path (OCL_ICD_VENDORS, set by scripts/wine-run.sh for 32-bit runs).
stamp="$pocl_i386/.unpacked"
want=$(version_of libpocl2:amd64)
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && exit 0
echo "install-deps: unpacking the i386 PoCL ($want) into $pocl_i386"
apt_update
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sandbox=()
[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root) # root: _apt cannot write $work
# libpocl2 and libclang-cpp15 (Multi-Arch: none), at the versions of their amd64 packages.
(cd "$work" && apt-get download -qq "${sandbox[@]}" "libpocl2:i386=$want" \
  "libclang-cpp15:i386=$(version_of libclang-cpp15:amd64)")
$sudo rm -rf "$pocl_i386"
$sudo mkdir -p "$pocl_i386/root" "$pocl_i386/vendors"
for deb in "$work"/*.deb; do
  $sudo dpkg-deb -x "$deb" "$pocl_i386/root"
done
# PoCL finds its headers relative to itself (../../share/pocl): the system's, from libpocl2-common.
$sudo ln -s /usr/share/pocl/include "$pocl_i386/root/usr/share/pocl/include"
echo "$pocl_i386/root/usr/lib/i386-linux-gnu/libpocl.so.2" | $sudo tee "$pocl_i386/vendors/pocl.icd" >/dev/null
echo "$want" | $sudo tee "$stamp" >/dev/null
