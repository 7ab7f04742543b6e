#!/usr/bin/env bash
# dist.sh BUILD_DIR SOURCE_DIR: make dist's archive, BUILD_DIR/dist/dxcl-<version>.tar.gz, from
# what the build made (docs/deploy.md, "Releases"), one folder per architecture as DXVK-NVAPI's:
#   dxcl-<version>/x64/OpenCL.dll            the shipped build (build/release: no test hooks)
#   dxcl-<version>/x64/dxclinfo.exe, demo.exe  from build/bin
#   dxcl-<version>/x64/wine/...              build/lib/wine: the Unix side, a Wine DLL folder
#                                            (x86_64-windows/dxclunix.dll, x86_64-unix/dxclunix.so)
#   dxcl-<version>/x64/vulkan/...            build/lib/vulkan: the host Vulkan layer
#   dxcl-<version>/x32/OpenCL.dll, dxclinfo.exe  the 32-bit build: DXCL_DIST_X32 names its build
#                                            tree (build/x32: release/OpenCL.dll, bin/dxclinfo.exe)
#   dxcl-<version>/x32/wine/...              build/lib/wine's i386-windows and i386-unix: the
#                                            Unix side's 32-bit pair (old WoW64)
#   dxcl-<version>/scripts/dxcl-wine.sh      the installer (it finds ../x64 and ../x32)
#   dxcl-<version>/README.md, LICENSE, CHANGELOG.md
# The version is the build's (generated/version.txt, cmake/version.cmake). Older archives of
# other versions in BUILD_DIR/dist are removed. Prints the archive's path last.
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)

die() {
  echo "dist: $*" >&2
  exit 1
}

version=$(cat "$build/generated/version.txt" 2>/dev/null) || die "no $build/generated/version.txt (build first)"
[ -n "$version" ] || die "empty version in $build/generated/version.txt"
name=dxcl-$version
out=$build/dist
stage=$out/$name

for file in "$build/release/OpenCL.dll" "$build/bin/dxclinfo.exe" "$build/bin/demo.exe"; do
  [ -f "$file" ] || die "$file is missing (build first)"
done
rm -rf "$out"
mkdir -p "$stage/scripts" "$stage/x64"
cp "$build/release/OpenCL.dll" "$build/bin/dxclinfo.exe" "$build/bin/demo.exe" "$stage/x64/"
cp "$source/scripts/dxcl-wine.sh" "$stage/scripts/"
cp "$source/README.md" "$source/LICENSE" "$source/CHANGELOG.md" "$stage/"
for part in wine vulkan; do
  [ ! -d "$build/lib/$part" ] || cp -r "$build/lib/$part" "$stage/x64/"
done
if [ -n "${DXCL_DIST_X32:-}" ]; then
  [ -f "$DXCL_DIST_X32/release/OpenCL.dll" ] || die "DXCL_DIST_X32=$DXCL_DIST_X32 has no release/OpenCL.dll"
  [ -f "$DXCL_DIST_X32/bin/dxclinfo.exe" ] || die "DXCL_DIST_X32=$DXCL_DIST_X32 has no bin/dxclinfo.exe"
  mkdir -p "$stage/x32"
  cp "$DXCL_DIST_X32/release/OpenCL.dll" "$DXCL_DIST_X32/bin/dxclinfo.exe" "$stage/x32/"
fi
# The Unix side's 32-bit pair (build/lib/wine's i386-windows and i386-unix, from the x32 tree)
# goes to x32/wine, a Wine DLL folder of its own.
if [ -d "$stage/x64/wine/i386-windows" ]; then
  mkdir -p "$stage/x32/wine"
  mv "$stage/x64/wine/i386-windows" "$stage/x64/wine/i386-unix" "$stage/x32/wine/"
fi
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
rm -rf "$stage"
echo "dist: $(tar -tzf "$out/$name.tar.gz" | grep -vc '/$') files in" >&2
echo "$out/$name.tar.gz"
