#!/usr/bin/env bash
# dist.sh BUILD_DIR SOURCE_DIR: make dist's archive, BUILD_DIR/dist/dxcl-<version>.tar.gz, from
# what the build made (docs/deploy.md, "Releases"):
#   dxcl-<version>/OpenCL.dll              the shipped build (build/release: no test hooks)
#   dxcl-<version>/dxclinfo.exe, demo.exe  from build/bin
#   dxcl-<version>/scripts/dxcl-wine.sh    the prefix installer (it finds ../OpenCL.dll)
#   dxcl-<version>/README.md, LICENSE, CHANGELOG.md
#   dxcl-<version>/lib/wine/...            build/lib/wine, the Wine builtin pair, where the build
#                                          has one (whatever it holds)
#   dxcl-<version>/lib/vulkan/...          build/lib/vulkan, the host Vulkan layer, likewise
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
mkdir -p "$stage/scripts"
cp "$build/release/OpenCL.dll" "$build/bin/dxclinfo.exe" "$build/bin/demo.exe" "$stage/"
cp "$source/scripts/dxcl-wine.sh" "$stage/scripts/"
cp "$source/README.md" "$source/LICENSE" "$source/CHANGELOG.md" "$stage/"
for part in wine vulkan; do
  if [ -d "$build/lib/$part" ]; then
    mkdir -p "$stage/lib"
    cp -r "$build/lib/$part" "$stage/lib/"
  fi
done
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
rm -rf "$stage"
echo "dist: $(tar -tzf "$out/$name.tar.gz" | grep -vc '/$') files in" >&2
echo "$out/$name.tar.gz"
