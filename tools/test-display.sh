# test-display.sh: sourced by the install tests (test-install.sh, test-install-targets.sh) for a
# display for Direct3D (wined3d): `use_display WORK` exports DISPLAY, the rig's Xvfb
# (DXCL_RIG_DIR/display) when it is alive, else the caller's DISPLAY, else an Xvfb of its own
# (its fifo in WORK; xvfb_pid is set for the caller's cleanup to kill). Needs the caller's fail.
xvfb_pid=

use_display() {
  local work=$1 display_file=${DXCL_RIG_DIR:-}/display num pid
  if [ -n "${DXCL_RIG_DIR:-}" ] && [ -f "$display_file" ] && read -r num pid <"$display_file" &&
    kill -0 "$pid" 2>/dev/null && [ -e "/tmp/.X11-unix/X${num#:}" ]; then
    export DISPLAY=$num
  elif [ -z "${DISPLAY:-}" ]; then
    mkfifo "$work/displayfd"
    Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>"$work/displayfd" >/dev/null 2>&1 &
    xvfb_pid=$!
    read -r -t 20 num <"$work/displayfd" || fail "Xvfb did not start"
    export DISPLAY=:$num
  fi
}
