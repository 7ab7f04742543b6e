#!/usr/bin/env bash
# Fails when a C file of the project is not as clang-format (.clang-format) writes it; lists
# the files. `scripts/check-format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for file in "${files[@]}"; do
  clang-format --dry-run -Werror "$file" >/dev/null 2>&1 || bad+=("$file")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: not clang-formatted (scripts/check-format.sh --fix): ${bad[*]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files clang-formatted"
