#!/usr/bin/env bash
# x32-implib.sh DLLTOOL DEF DLL IMPLIB: the import library of an i686 DLL linked with --kill-at.
# ld's own (--out-implib) then names each function without its stdcall decoration, which no
# caller references: a caller of clFoo(cl_context, cl_mem_flags) wants _clFoo@12. DEF is ld's
# --output-def ("clFoo = clFoo@12 @1"); dlltool -k keeps the decorated symbols and imports
# each by its undecorated name, as the Khronos OpenCL.lib for x86 does.
set -euo pipefail
dlltool=$1 def=$2 dll=$3 implib=$4
decorated=$(mktemp)
trap 'rm -f "$decorated"' EXIT
sed -E 's/^[[:space:]]+[A-Za-z_0-9]+ = ([A-Za-z_0-9]+@[0-9]+).*/    \1/' "$def" >"$decorated"
grep -q '@[0-9]' "$decorated" || { echo "x32-implib: $def lists no stdcall export" >&2; exit 1; }
"$dlltool" -k -d "$decorated" -D "$dll" -l "$implib"
