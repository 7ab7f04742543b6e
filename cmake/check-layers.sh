#!/usr/bin/env bash
# check-layers.sh NM LAYERS_FILE: fails when a layer of src/ calls (or reads) a symbol that a
# layer it does not use defines (src/CMakeLists.txt names what each layer uses). LAYERS_FILE
# has one line per layer: "layer:used,layers:object,files".
# It fails closed: an nm that fails, or a layer whose objects define no symbol at all (an nm
# that printed nothing), fails the check instead of passing it unread.
set -euo pipefail
nm=$1
layers_file=$2

fail() {
  echo "check-layers: $*" >&2
  exit 1
}

# symbols WHAT NM-ARGS...: nm's output, or a failure that ends the script (set -e) where it is
# assigned; a pipe into `while` or grep would lose nm's status.
symbols() {
  local what=$1 out status=0
  shift
  out=$("$nm" "$@") || status=$?
  [ "$status" = 0 ] || fail "$nm failed (status $status) on $what"
  printf '%s\n' "$out"
}

declare -A owner uses
layers=0
while IFS=: read -r layer used objects; do
  [ -n "$layer" ] || continue
  [ -n "$objects" ] || fail "src/$layer has no objects in $layers_file"
  uses[$layer]=",$used,"
  defined=$(symbols "src/$layer's objects" -g --defined-only ${objects//,/ })
  defined=$(grep -E '^[0-9a-f]+ [A-Z] ' <<<"$defined" || true)
  [ -n "$defined" ] || fail "nm found no symbol defined by src/$layer: nothing to check"
  while read -r _ _ symbol; do
    owner[$symbol]=$layer
  done <<<"$defined"
  layers=$((layers + 1))
done <"$layers_file"
[ "$layers" -gt 0 ] || fail "$layers_file names no layer"

status=0
while IFS=: read -r layer used objects; do
  [ -n "$layer" ] || continue
  for object in ${objects//,/ }; do
    undefined=$(symbols "$object" -u "$object")
    undefined=$(grep -E '^ +U ' <<<"$undefined" || true)
    while read -r _ symbol; do
      [ -n "$symbol" ] || continue
      defined_by=${owner[$symbol]:-}
      if [ -n "$defined_by" ] && [ "$defined_by" != "$layer" ] &&
        [[ ${uses[$layer]} != *",$defined_by,"* ]]; then
        echo "check-layers: src/$layer ($(basename "$object" .obj)) uses $symbol of src/$defined_by," \
          "a layer it may not use (src/CMakeLists.txt)" >&2
        status=1
      fi
    done <<<"$undefined"
  done
done <"$layers_file"
exit $status
