#!/usr/bin/env bash
# The exit rules of scripts/wine-run.sh (docs/testing.md, "SIGQUIT at exit", "A run with no
# output"): a SIGQUIT death at exit counts as the program's exit only after a summary with at
# least one passed check and none failed, and never through dxcl's Unix side; Wine that ends at
# once with no output is started once more. wine-run.sh runs here against a stand-in `wine`
# that prints a summary line and then kills itself with SIGQUIT, as Wine's thread ends and
# LLVM's handler do to a real test, or ends at once silently; wineboot and wineserver are
# stand-ins too, so no prefix or display is made.
#
#   test-wine-run-sigquit.sh WINE-RUN.SH
set -euo pipefail

wine_run=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/dxcl-sigquit-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"

cat >"$work/bin/wine" <<'STUB'
#!/usr/bin/env bash
ulimit -c 0
# silent: fails at once with no output; silent-once: that the first time, then runs normally;
# shell-once: fails at once with only Wine's ShellExecuteEx line the first time; shell-error:
# that line and another of the program's on stderr.
[ "$FAKE_EXIT" != silent ] || exit 1
if [ "$FAKE_EXIT" = silent-once ]; then
  [ -f "$FAKE_STATE" ] || { touch "$FAKE_STATE"; exit 1; }
  FAKE_EXIT=0
fi
if [ "$FAKE_EXIT" = shell-once ]; then
  [ -f "$FAKE_STATE" ] || { touch "$FAKE_STATE"; echo "ShellExecuteEx failed: Internal error." >&2; exit 1; }
  FAKE_EXIT=0
fi
if [ "$FAKE_EXIT" = shell-error ]; then
  printf 'ShellExecuteEx failed: Internal error.\nsomething else\n' >&2
  exit 1
fi
printf '%s\n' "$FAKE_SUMMARY"
# wine-run.sh starts the program in the background, where a shell ignores SIGQUIT: perl puts
# the default action back (Wine's process has its own handlers) before the signal.
[ "$FAKE_EXIT" != quit ] || exec perl -e '$SIG{QUIT} = "DEFAULT"; kill "QUIT", $$; sleep 5'
[ "$FAKE_EXIT" != kill ] || exec perl -e 'kill "KILL", $$; sleep 5'
[ "$FAKE_EXIT" != segv ] || exec perl -e '$SIG{SEGV} = "DEFAULT"; kill "SEGV", $$; sleep 5'
exit "$FAKE_EXIT"
STUB
cat >"$work/bin/wineboot" <<'STUB'
#!/usr/bin/env bash
mkdir -p "$WINEPREFIX" && touch "$WINEPREFIX/system.reg"
STUB
printf '#!/bin/sh\nexit 0\n' >"$work/bin/wineserver"
chmod +x "$work/bin/"*

failures=0
# A stand-in for dxcl's Unix side, for DXCL_WINE_UNIX (wine-run.sh checks its two files).
mkdir -p "$work/unix/x86_64-windows" "$work/unix/x86_64-unix"
touch "$work/unix/x86_64-windows/dxclunix.dll" "$work/unix/x86_64-unix/dxclunix.so"

# expect STATUS SUMMARY EXIT [UNIX]: wine-run.sh's status for a program printing SUMMARY last and
# ending with EXIT (a status, or `quit` for SIGQUIT); UNIX=unix runs it through the Unix side.
expect() {
  local want=$1 summary=$2 how=$3 status=0 unix=
  [ "${4:-}" != unix ] || unix=$work/unix
  PATH="$work/bin:$PATH" DISPLAY=:stub DXCL_RIG_DIR="$work/rig" DXCL_DXVK_DIR= DXCL_WINE_UNIX=$unix FAKE_STATE="$work/state.$RANDOM" \
    FAKE_SUMMARY="$summary" FAKE_EXIT="$how" "$wine_run" stub.exe >"$work/out" 2>&1 || status=$?
  if [ "$status" = "$want" ]; then
    echo "ok: \"$summary\", then $how${4:+ ($4)}: wine-run.sh exits $status"
  else
    echo "FAIL: \"$summary\", then $how${4:+ ($4)}: wine-run.sh exits $status, want $want; its output:"
    sed 's/^/  /' "$work/out"
    failures=$((failures + 1))
  fi
}

expect 0 "stub: 12 passed, 0 failed" quit
expect 0 "stub: 1 passed, 0 failed" quit
expect 0 $'stub: 4 passed, 0 failed\r' quit # Wine's C runtime ends lines with CR LF
expect 131 "stub: 0 passed, 0 failed" quit
expect 131 "stub: 10 passed, 1 failed" quit
expect 131 "stub: 3 passed, 0 failed, then more output" quit
expect 131 "no summary" quit
expect 0 "stub: 7 passed, 0 failed" kill
expect 0 "stub: 7 passed, 0 failed" segv
expect 137 "stub: 7 passed, 1 failed" kill
expect 139 "stub: 0 passed, 0 failed" segv
expect 0 "stub: 5 passed, 0 failed" 0
expect 1 "stub: 5 passed, 1 failed" 1
# Through the Unix side, which puts Wine's handlers back, a SIGQUIT death fails; the others
# (a thread inside the host driver at exit) count as before.
expect 131 "stub: 12 passed, 0 failed" quit unix
expect 0 "stub: 7 passed, 0 failed" kill unix
expect 0 "stub: 5 passed, 0 failed" 0 unix
# Wine ending at once with no output ran nothing: started once more, and a second such end fails.
expect 0 "stub: 3 passed, 0 failed" silent-once
expect 1 "stub: 3 passed, 0 failed" silent
# Only Wine's "ShellExecuteEx failed" on stderr is the same; with anything else it is a failure.
expect 0 "stub: 3 passed, 0 failed" shell-once
expect 1 "stub: 3 passed, 0 failed" shell-error

[ "$failures" = 0 ] || { echo "$failures of the cases above failed"; exit 1; }
echo "exit rules: 20 cases passed"
