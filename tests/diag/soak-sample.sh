#!/usr/bin/env bash
# soak-sample.sh OUTDIR [SECONDS]: runs beside a soak (the GPU rig: docs/reliability.md, "Soak"),
# waits for the Wine process of test_soak.exe and copies its /proc smaps, status and fd count
# every SECONDS (default 5) until it exits, then packs them as OUTDIR/../soak-samples.tar.xz.
out=$1; every=${2:-5}; mkdir -p "$out"
find_pid() {
  for p in $(pgrep -f 'test_soak.exe'); do
    c=$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)
    case "$c" in timeout*|bash*|*xargs*|*env\ *) continue ;; esac
    echo "$(awk '/VmRSS/{print $2}' /proc/$p/status 2>/dev/null) $p $c"
  done | sort -rn | head -1
}
for i in $(seq 600); do l=$(find_pid); [ -n "$l" ] && break; sleep 1; done
pid=$(echo "$l" | awk '{print $2}'); echo "pid $pid: $l" >"$out/pid.txt"
n=0
while [ -d /proc/$pid ]; do
  t=$(date +%s)
  cp /proc/$pid/smaps "$out/smaps.$n" 2>/dev/null
  { echo "t $t"; cat /proc/$pid/status; echo "fds $(ls /proc/$pid/fd | wc -l)"; } >"$out/status.$n" 2>/dev/null
  n=$((n+1)); sleep "$every"
done
tar -C "$out" -cJf "$out/../soak-samples.tar.xz" . && rm -rf "$out"
