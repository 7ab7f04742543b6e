#!/usr/bin/env bash
# Runs a Windows program on the real stack: Wine's Direct3D (wined3d on Mesa) and the
# system OpenCL driver behind Wine's opencl.dll, with dxcl's OpenCL.dll beside the program.
#
#   wine-run.sh PROGRAM.exe [ARGS...]   run one program (starts and stops Xvfb if needed)
#   wine-run.sh --start                 prepare prefix and a shared Xvfb (CTest fixture)
#   wine-run.sh --stop                  stop the shared Xvfb and the wineserver
#
# Environment: DXCL_RIG_DIR (state: prefix, display; default build/rig next to this
# script's build tree), DXCL_WINEDEBUG (Wine's debug channels, default -all).
set -euo pipefail
# A step of the rig that fails says which, instead of ending the test with no output.
trap 'echo "wine-run: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

rig_dir=${DXCL_RIG_DIR:-$(pwd)/rig}
mkdir -p "$rig_dir"
rig_dir=$(cd "$rig_dir" && pwd)
export WINEPREFIX="$rig_dir/prefix"
export WINEDEBUG="${DXCL_WINEDEBUG:--all}"
export WINEARCH=win64
display_file="$rig_dir/display"

prefix_ready() { [ -f "$WINEPREFIX/system.reg" ] && [ -f "$rig_dir/prefix.ok" ]; }

make_prefix() {
  # One prefix per build tree, created once; flock keeps parallel tests from racing.
  exec 9>"$rig_dir/prefix.lock"
  flock 9
  if ! prefix_ready; then
    WINEDLLOVERRIDES="mscoree=;mshtml=" wineboot -i >/dev/null 2>&1
    wineserver -w
    touch "$rig_dir/prefix.ok"
  fi
  flock -u 9
}

display_alive() {
  [ -f "$display_file" ] || return 1
  local num pid
  read -r num pid <"$display_file"
  kill -0 "$pid" 2>/dev/null && [ -e "/tmp/.X11-unix/X${num#:}" ]
}

start_xvfb() {
  # Xvfb picks a free display itself and reports it on a pipe (-displayfd).
  local fifo="$rig_dir/displayfd" num
  rm -f "$fifo"; mkfifo "$fifo"
  Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>"$fifo" >/dev/null 2>&1 &
  local pid=$!
  read -r -t 20 num <"$fifo" || { echo "wine-run: Xvfb did not start" >&2; kill "$pid" 2>/dev/null; exit 1; }
  rm -f "$fifo"
  echo ":$num $pid" >"$display_file"
}

stop_xvfb() {
  if [ -f "$display_file" ]; then
    local num pid
    read -r num pid <"$display_file"
    kill "$pid" 2>/dev/null || true
    rm -f "$display_file"
  fi
}

shared_display() {
  exec 8>"$rig_dir/display.lock"
  flock 8
  display_alive || start_xvfb
  flock -u 8
  read -r num _ <"$display_file"
  export DISPLAY="$num"
}

case "${1:-}" in
  --start)
    make_prefix
    [ -n "${DISPLAY:-}" ] || shared_display
    exit 0 ;;
  --stop)
    wineserver -k 2>/dev/null || true
    stop_xvfb
    rm -f "$rig_dir"/out.* # left by programs stopped with SIGKILL (a CTest timeout)
    exit 0 ;;
  "" )
    echo "usage: wine-run.sh PROGRAM.exe [ARGS...] | --start | --stop" >&2; exit 2 ;;
esac

make_prefix
own_display=0
if [ -z "${DISPLAY:-}" ]; then
  if display_alive; then
    read -r num _ <"$display_file"; export DISPLAY="$num"
  else
    shared_display; own_display=1
  fi
fi
export WINEDLLOVERRIDES="opencl=n,b;mscoree=;mshtml=${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"

# The program writes to files, not to our output: Wine's wineserver and session processes
# (explorer, services), started by the first program of a run, would otherwise inherit the
# caller's output pipe and hold it open until the run ends, and CTest would count the whole
# run against that one test. The files are streamed to our stdout and stderr while the program
# runs (tail -f, which ends once the program has ended and the files are read out), so output
# is shown as it comes: CTest stops a test at its timeout with SIGKILL, which nothing can trap,
# and keeps what it has read by then, so a stopped test still shows how far it got. The
# program flushes what it prints (tests/common/testlib.h, test_progress).
out=$(mktemp "$rig_dir/out.XXXXXX")
: >"$out.stdout"
: >"$out.stderr"
program_name=$1
wine "$@" </dev/null >"$out.stdout" 2>"$out.stderr" &
program=$!
tail -s 0.1 -n +1 -f --pid="$program" "$out.stdout" &
tail_out=$!
tail -s 0.1 -n +1 -f --pid="$program" "$out.stderr" >&2 &
tail_err=$!

cleanup() {
  rm -f "$out" "$out.stdout" "$out.stderr"
  if [ "$own_display" = 1 ]; then
    wineserver -k 2>/dev/null || true
    stop_xvfb
  fi
}

# Stopped by a signal that can be caught (Ctrl-C, kill): stop the program, show the rest of
# its output, clean up.
stopped() {
  trap - INT TERM HUP
  kill "$program" 2>/dev/null || true
  sleep 0.5
  kill -KILL "$program" 2>/dev/null || true
  wait "$tail_out" "$tail_err" 2>/dev/null || true
  echo "wine-run: $1: stopped $(basename "${program_name:-program}")" >&2
  cleanup
  exit 143
}
trap 'stopped SIGINT' INT
trap 'stopped SIGTERM' TERM
trap 'stopped SIGHUP' HUP

status=0
wait "$program" || status=$?
wait "$tail_out" "$tail_err" || true
trap - INT TERM HUP
cleanup
exit "$status"
