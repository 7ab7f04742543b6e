#!/usr/bin/env bash
# Runs a Windows program on the real stack: Wine's Direct3D (wined3d on Mesa) and the
# system OpenCL driver behind Wine's opencl.dll, with dxcl's OpenCL.dll beside the program.
#
#   wine-run.sh PROGRAM.exe [ARGS...]   run one program (starts and stops Xvfb if needed)
#   wine-run.sh --start                 prepare the prefixes and a shared Xvfb (CTest fixture)
#   wine-run.sh --stop                  stop the shared Xvfb and the wineservers
#
# Environment: DXCL_RIG_DIR (state: prefix, display; default build/rig next to this
# script's build tree), DXCL_WINEDEBUG (Wine's debug channels, default -all),
# DXCL_DXVK_DIR (a folder holding DXVK's d3d9, d3d10core, d3d11 and dxgi DLLs: Direct3D
# comes from DXVK on Vulkan instead of wined3d; see docs/testing.md, "Direct3D on DXVK"),
# DXCL_VK_LAYER_DIR (build/lib/vulkan: dxcl's host Vulkan layer, enabled for the program),
# DXCL_WINE_UNIX (a Wine DLL folder holding dxcl's Unix side, build/lib/wine: it goes on
# WINEDLLPATH, dxcl must take it (DXCL_UNIX=1) and Wine's own opencl.dll is disabled, as
# under Proton; docs/testing.md, "Through the Unix side"), DXCL_VK_VALIDATION=1 (the Khronos
# validation layer below dxcl's layer: a message of error severity fails the run; docs/testing.md,
# "The validation layer"), DXCL_EXPECT_SUMMARY=1 (a test program: a run that ends well without
# its summary line, "NAME: N passed, 0 failed", last on its output is a failure), DXCL_X32=1 (a
# 32-bit program: a 64-bit prefix of its own, prefix-x32, where it runs from syswow64 on Wine's
# 32-bit half, with Wine's builtin opencl.dll, or with DXCL_WINE_UNIX dxcl's i386 Unix side, in
# front of the i386 PoCL that scripts/install-deps.sh unpacked into DXCL_POCL_I386, default
# /opt/dxcl/pocl-i386; wined3d only; docs/testing.md, "32-bit programs").
set -euo pipefail
# A step of the rig that fails says which, instead of ending the test with no output.
trap 'echo "wine-run: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

rig_dir=${DXCL_RIG_DIR:-$(pwd)/rig}
mkdir -p "$rig_dir"
rig_dir=$(cd "$rig_dir" && pwd)
export WINEDEBUG="${DXCL_WINEDEBUG:--all}"
export WINEARCH=win64
display_file="$rig_dir/display"

# DXVK lives in a prefix of its own, in system32 as Proton installs it: Wine finds a system
# DLL there before any folder on WINEPATH, and the wined3d prefix must never see DXVK.
dxvk_dir=${DXCL_DXVK_DIR:-}
dxvk_dlls=(d3d9 d3d10core d3d11 dxgi)
x32=${DXCL_X32:-0}
if [ "$x32" = 1 ]; then
  # DXVK's x64 build and dxcl's Vulkan layer serve 64-bit programs only; dxcl's Unix side has an
  # i386 pair for them (DXCL_WINE_UNIX's i386-windows and i386-unix).
  for setting in DXCL_DXVK_DIR DXCL_VK_LAYER_DIR; do
    [ -z "${!setting:-}" ] || { echo "wine-run: DXCL_X32=1: $setting is x64 only" >&2; exit 2; }
  done
  pocl_i386=${DXCL_POCL_I386:-/opt/dxcl/pocl-i386}
  [ -f "$pocl_i386/vendors/pocl.icd" ] ||
    { echo "wine-run: DXCL_X32=1: no i386 PoCL in $pocl_i386 (scripts/install-deps.sh)" >&2; exit 2; }
  [ -x /usr/lib/wine/wine ] || { echo "wine-run: DXCL_X32=1: no 32-bit Wine (wine32:i386)" >&2; exit 2; }
  # Read by the i386 ICD loader of Wine's 32-bit opencl.so or of dxcl's i386 dxclunix.so; the
  # 64-bit processes skip the folder.
  export OCL_ICD_VENDORS="$pocl_i386/vendors"
  export LD_LIBRARY_PATH="$pocl_i386/root/usr/lib/i386-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export WINEPREFIX="$rig_dir/prefix-x32"
fi
if [ -n "$dxvk_dir" ]; then
  for dll in "${dxvk_dlls[@]}"; do
    [ -f "$dxvk_dir/$dll.dll" ] || { echo "wine-run: DXCL_DXVK_DIR=$dxvk_dir has no $dll.dll" >&2; exit 2; }
  done
  export WINEPREFIX="$rig_dir/prefix-dxvk"
elif [ "$x32" != 1 ]; then
  export WINEPREFIX="$rig_dir/prefix"
fi

prefix_ready() { [ -f "$1/system.reg" ] && [ -f "$1.ok" ]; }

# A prefix made before Wine's 32-bit half (wine32:i386, scripts/install-deps.sh) was installed
# has an empty syswow64: `wine`, then the 32-bit loader for every program, finds no kernel32.dll
# there and runs nothing ("could not load kernel32.dll"), and wineboot -u cannot fill it.
prefix_predates_wine32() {
  [ -x /usr/lib/wine/wine ] && [ -f "$1/system.reg" ] &&
    [ ! -f "$1/drive_c/windows/syswow64/kernel32.dll" ]
}

# make_prefix DIR [DXVK_DIR]: one prefix per build tree and kind, created once (flock keeps
# parallel tests from racing); with DXVK_DIR, its DLLs are put in system32 when they differ.
make_prefix() {
  local prefix=$1 dlls=${2:-}
  exec 9>"$prefix.lock"
  flock 9
  if prefix_predates_wine32 "$prefix"; then
    echo "wine-run: $prefix predates Wine's 32-bit half: making it again" >&2
    WINEPREFIX="$prefix" wineserver -k 2>/dev/null || true
    rm -rf "$prefix" "$prefix.ok"
  fi
  if ! prefix_ready "$prefix"; then
    WINEPREFIX="$prefix" WINEDLLOVERRIDES="mscoree=;mshtml=" wineboot -i >/dev/null 2>&1
    WINEPREFIX="$prefix" wineserver -w
    touch "$prefix.ok"
  fi
  if [ -n "$dlls" ]; then
    for dll in "${dxvk_dlls[@]}"; do
      cmp -s "$dlls/$dll.dll" "$prefix/drive_c/windows/system32/$dll.dll" ||
        cp "$dlls/$dll.dll" "$prefix/drive_c/windows/system32/$dll.dll"
    done
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
    if [ "$x32" = 1 ]; then
      make_prefix "$WINEPREFIX" # the display is the rig's (rig.start)
      exit 0
    fi
    make_prefix "$rig_dir/prefix"
    [ -z "$dxvk_dir" ] || make_prefix "$rig_dir/prefix-dxvk" "$dxvk_dir"
    [ -n "${DISPLAY:-}" ] || shared_display
    exit 0 ;;
  --stop)
    for prefix in "$rig_dir/prefix" "$rig_dir/prefix-dxvk" "$rig_dir/prefix-x32"; do
      [ ! -d "$prefix" ] || WINEPREFIX="$prefix" wineserver -k 2>/dev/null || true
    done
    stop_xvfb
    rm -f "$rig_dir"/out.* # left by programs stopped with SIGKILL (a CTest timeout)
    exit 0 ;;
  "" )
    echo "usage: wine-run.sh PROGRAM.exe [ARGS...] | --start | --stop" >&2; exit 2 ;;
esac

make_prefix "$WINEPREFIX" "$dxvk_dir"
own_display=0
if [ -z "${DISPLAY:-}" ]; then
  if display_alive; then
    read -r num _ <"$display_file"; export DISPLAY="$num"
  else
    shared_display; own_display=1
  fi
fi
dxvk_overrides=""
if [ -n "$dxvk_dir" ]; then
  dxvk_overrides=";d3d11,dxgi,d3d10core,d3d9=n"
  # Each run logs into a folder of its own, kept afterwards as rig/dxvk-log/PROGRAM; info
  # level, because the log's "Device :" line is what shows that DXVK made the device.
  dxvk_log=$(mktemp -d "$rig_dir/dxvk-log.XXXXXX")
  export DXVK_LOG_PATH="Z:$dxvk_log" DXVK_LOG_LEVEL="${DXVK_LOG_LEVEL:-info}"
fi
opencl_override="opencl=n,b"
if [ -n "${DXCL_WINE_UNIX:-}" ]; then
  wine_arch=x86_64
  [ "$x32" != 1 ] || wine_arch=i386
  [ -f "$DXCL_WINE_UNIX/$wine_arch-windows/dxclunix.dll" ] && [ -f "$DXCL_WINE_UNIX/$wine_arch-unix/dxclunix.so" ] ||
    { echo "wine-run: DXCL_WINE_UNIX=$DXCL_WINE_UNIX has no $wine_arch-windows/dxclunix.dll and $wine_arch-unix/dxclunix.so" >&2; exit 2; }
  export WINEDLLPATH="$DXCL_WINE_UNIX${WINEDLLPATH:+:$WINEDLLPATH}" DXCL_UNIX=1
  opencl_override="opencl=n"
fi
# DXCL_VK_LAYER_DIR (build/lib/vulkan): dxcl's host Vulkan layer below DXVK's devices
# (docs/proxy.md, "The Vulkan layer").
if [ -n "${DXCL_VK_LAYER_DIR:-}" ]; then
  [ -f "$DXCL_VK_LAYER_DIR/VkLayer_dxcl_interop.json" ] && [ -f "$DXCL_VK_LAYER_DIR/libdxcl_vk_layer.so" ] ||
    { echo "wine-run: DXCL_VK_LAYER_DIR=$DXCL_VK_LAYER_DIR has no VkLayer_dxcl_interop.json and libdxcl_vk_layer.so" >&2; exit 2; }
  export VK_LAYER_PATH="$DXCL_VK_LAYER_DIR${VK_LAYER_PATH:+:$VK_LAYER_PATH}"
  export VK_INSTANCE_LAYERS="VK_LAYER_DXCL_interop${VK_INSTANCE_LAYERS:+:$VK_INSTANCE_LAYERS}"
fi
# DXCL_VK_VALIDATION=1: the Khronos validation layer below dxcl's (scripts/vk-validation.sh).
validation=0
if [ "${DXCL_VK_VALIDATION:-0}" = 1 ]; then
  source "$(dirname "$0")/vk-validation.sh"
  vk_validation_start "$rig_dir" || exit 2
  validation=1
fi
export WINEDLLOVERRIDES="$opencl_override;mscoree=;mshtml=$dxvk_overrides${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"

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
# start_program ARGS...: wine runs the program in the background, its output streamed.
start_program() {
  wine "$@" </dev/null >"$out.stdout" 2>"$out.stderr" &
  program=$!
  tail -s 0.1 -n +1 -f --pid="$program" "$out.stdout" &
  tail_out=$!
  if [ -n "$dxvk_dir" ]; then
    # DXVK writes each log line to stderr too; its info lines stay in the log files only.
    tail -s 0.1 -n +1 -f --pid="$program" "$out.stderr" | { grep --line-buffered -v '^info:  ' || true; } >&2 &
  else
    tail -s 0.1 -n +1 -f --pid="$program" "$out.stderr" >&2 &
  fi
  tail_err=$!
}
started_at=$SECONDS
start_program "$@"

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
# Wine that ends within a second with a failure and not one byte of output from the program
# ran nothing of it: seen in CI on the loaded 2-core machine with no output from Wine either
# (twice), or only Wine's "ShellExecuteEx failed: Internal error." (once, 2026-11-29)
# (docs/testing.md, "A run with no output"), the cause not found. It is said, and started once
# more; a program that fails that way again fails.
if [ "$status" != 0 ] && [ $((SECONDS - started_at)) -le 1 ] && [ ! -s "$out.stdout" ] &&
  { [ ! -s "$out.stderr" ] || ! grep -qv '^ShellExecuteEx failed' "$out.stderr"; }; then
  echo "wine-run: wine ended with status $status after $((SECONDS - started_at)) s with no output: nothing of $(basename "$program_name") ran; starting it once more" >&2
  status=0
  start_program "$@"
  wait "$program" || status=$?
  wait "$tail_out" "$tail_err" || true
fi
trap - INT TERM HUP
# Killed by SIGQUIT (131) after the program printed its summary with no failure: Wine ends the
# other threads of an exiting process with SIGQUIT, and PoCL (building a kernel) has put LLVM's
# one-shot handler in place of Wine's, so a second SIGQUIT kills the process before its exit
# status is set. Nothing of the program runs at that point (docs/testing.md, "SIGQUIT at exit").
# SIGKILL (137) and SIGSEGV (139) at the same point are the same exit meeting a thread inside
# the host driver (dxcl's callback waiter polling PoCL, seen about once in 100 runs since issue
# 24's teardowns poll the driver): counted the same way, and said, so that it stays visible.
# The summary must show at least one passed check: "0 passed, 0 failed" proves nothing ran.
# Through dxcl's Unix side (DXCL_WINE_UNIX) a SIGQUIT death is a failure: the Unix half puts
# Wine's handlers back after LLVM took them (docs/proxy.md, "Signal handlers").
case "$status" in
131) exit_signal=SIGQUIT ;;&
131) if [ -n "${DXCL_WINE_UNIX:-}" ]; then
  exit_signal=
  echo "wine-run: killed by SIGQUIT through dxcl's Unix side, which puts Wine's signal handlers back (docs/proxy.md, \"Signal handlers\"): a failure" >&2
fi ;;
137) exit_signal=SIGKILL ;;
139) exit_signal=SIGSEGV ;;
*) exit_signal= ;;
esac
if [ -n "$exit_signal" ] && tail -n 1 "$out.stdout" | grep -Eq ': [1-9][0-9]* passed, 0 failed[[:space:]]*$'; then
  echo "wine-run: killed by $exit_signal while exiting, after its summary: Wine's thread ends met the host driver (docs/testing.md, \"SIGQUIT at exit\"); counted as its exit" >&2
  status=0
fi
if [ -n "$dxvk_dir" ]; then
  # A run on DXVK proves something only if DXVK made a device: its log names the Vulkan device.
  kept="$rig_dir/dxvk-log/$(basename "$1" .exe)"
  mkdir -p "$rig_dir/dxvk-log"
  rm -rf "$kept"
  mv -T "$dxvk_log" "$kept" 2>/dev/null || kept=$dxvk_log # another copy's logs took the name
  # No logs at all (the program died before DXVK started) is reported below, not by the ERR trap.
  vulkan_device=$(sed -n 's/^info: *Device : //p' "$kept"/*.log 2>/dev/null | head -n 1 || true)
  if [ -n "$vulkan_device" ]; then
    echo "wine-run: Direct3D from DXVK on $vulkan_device (logs: $kept)" >&2
  else
    echo "wine-run: DXVK made no Direct3D device (no \"Device :\" line at DXVK_LOG_LEVEL=info in $kept)" >&2
    [ "$status" != 0 ] || status=1
  fi
fi
# A test program that ended "well" without its summary died where Wine reports no failure: an
# abort() inside the host driver ends the process with status 0 under Wine.
if [ "${DXCL_EXPECT_SUMMARY:-0}" = 1 ] && [ "$status" = 0 ] &&
  ! tail -n 1 "$out.stdout" | grep -Eq ': [1-9][0-9]* passed, 0 failed[[:space:]]*$'; then
  echo "wine-run: $(basename "$program_name") ended without its summary line (an abort inside the driver ends a Wine process with status 0): a failure" >&2
  status=1
fi
# Under the validation layer, a message of error severity fails the run; the first are shown.
if [ "$validation" = 1 ] && ! vk_validation_report; then
  [ "$status" != 0 ] || status=1
fi
cleanup
exit "$status"
