#!/usr/bin/env bash
# check-layers.sh NM LAYERS_FILE: fails when a layer of src/ calls (or reads) a symbol that a
# layer it does not use defines (src/CMakeLists.txt names what each layer uses). LAYERS_FILE
# has one line per layer: "layer:used,layers:object,files".
set -euo pipefail
nm=$1
layers_file=$2

declare -A owner uses
while IFS=: read -r layer used objects; do
  [ -n "$layer" ] || continue
  uses[$layer]=",$used,"
  while read -r _ _ symbol; do
    owner[$symbol]=$layer
  done < <("$nm" -g --defined-only ${objects//,/ } 2>/dev/null | grep -E '^[0-9a-f]+ [A-Z] ')
done <"$layers_file"

status=0
while IFS=: read -r layer used objects; do
  [ -n "$layer" ] || continue
  for object in ${objects//,/ }; do
    while read -r _ symbol; do
      defined_by=${owner[$symbol]:-}
      if [ -n "$defined_by" ] && [ "$defined_by" != "$layer" ] &&
        [[ ${uses[$layer]} != *",$defined_by,"* ]]; then
        echo "check-layers: src/$layer ($(basename "$object" .obj)) uses $symbol of src/$defined_by," \
          "a layer it may not use (src/CMakeLists.txt)" >&2
        status=1
      fi
    done < <("$nm" -u "$object" | grep -E '^ +U ')
  done
done <"$layers_file"
exit $status
