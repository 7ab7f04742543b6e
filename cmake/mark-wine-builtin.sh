#!/bin/sh
# mark-wine-builtin.sh DLL: writes Wine's builtin signature ("Wine builtin DLL" and its NUL,
# 17 bytes: Wine compares the NUL too) at offset 0x40 of a PE file, in its DOS stub, as
# winebuild --builtin does. Wine loads the
# Unix half (x86_64-unix/NAME.so) of a DLL only when it carries the signature.
set -eu
dll=$1
[ "$(head -c 2 "$dll")" = MZ ] || { echo "mark-wine-builtin: $dll is not a PE file" >&2; exit 1; }
# e_lfanew (offset 0x3c): the PE header must start after the signature.
pe_offset=$(od -An -tu4 -j 60 -N 4 "$dll" | tr -d ' ')
[ "$pe_offset" -ge 81 ] || { echo "mark-wine-builtin: $dll: PE header at $pe_offset" >&2; exit 1; }
printf 'Wine builtin DLL\0' | dd of="$dll" bs=1 seek=64 conv=notrunc status=none
