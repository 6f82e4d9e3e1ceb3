#!/bin/sh
# Runs inside the QEMU VM (scripts/bench live boots it with scripts/vm/run --smp 2): touchd's
# latency from a real kernel device, beside a floor reading the same kind of device. A uinput
# panel (/bench/uinput-panel) moves 10 fingers at $HZ for $DURATION; first the C floor
# (/bench/live-floor: libevdev, one line to 16 sockets per SYN_REPORT) reads it, then, on a new
# panel, touchd (its own scheduling: SCHED_FIFO 10 by default). The same client
# (/bench/latency-client, 16 connections) measures both: arrival minus the frame's kernel
# timestamp at the 16th. The client and the floor run at SCHED_FIFO $PRIORITY (chrt), as in
# scripts/bench busy. Prints
#   VMBENCH floor|touchd <the client's line: N frames p50 A p99 B max C>
#   VMBENCH touchd-own <touchd doctor's daemon line: its stats, input latency p99>
#   VMBENCH cpus <N>
# and VMTEST ok/FAIL lines; the host (scripts/lib/bench_live.py) reads them.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
# shellcheck source=/dev/null  # written per run by scripts/lib/bench_live.py
. /bench/params.sh   # HZ DURATION PRIORITY (written by scripts/lib/bench_live.py)
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for (scripts/vm/lib.sh)
B=/bench
echo "VMBENCH cpus $(grep -c ^processor /proc/cpuinfo)"
echo "VMTEST info kernel $(uname -r), $HZ Hz for $DURATION s, client and floor at SCHED_FIFO $PRIORITY"

# panel LOG: a new panel, waiting for SIGUSR1; sets PANEL (its pid) and NODE.
panel() {
    $B/uinput-panel "$HZ" "$DURATION" > "$1" 2>&1 &
    PANEL=$!
    NODE=""
    wait_for 10 grep -q /dev/input/event "$1" && NODE=$(grep -o '/dev/input/event[0-9]*' "$1" | head -1)
    [ -n "$NODE" ] && wait_for 10 test -c "$NODE" || { bad "uinput-panel made no device: $(cat "$1")"; return 1; }
}

# 1. The floor.
if panel /tmp/panel1.log; then
    chrt -f "$PRIORITY" $B/live-floor "$NODE" /tmp/floor.sock 16 > /tmp/floor.out 2>&1 &
    FLOOR=$!
    wait_for 10 test -S /tmp/floor.sock
    chrt -f "$PRIORITY" $B/latency-client /tmp/floor.sock 16 > /tmp/client-floor.out 2>&1 &
    CLIENT=$!
    wait_for 20 grep -q ready /tmp/floor.out || bad "the floor never had its 16 clients: $(cat /tmp/floor.out)"
    kill -USR1 $PANEL
    wait $PANEL
    wait $FLOOR
    wait $CLIENT && ok "floor measured" || bad "floor's client: $(cat /tmp/client-floor.out)"
    echo "VMBENCH floor $(cat /tmp/client-floor.out)"
fi

# 2. touchd, on a new panel it finds by itself (the config's 1,000 views, no devices[] entry).
if panel /tmp/panel2.log; then
    $T run --config $B/bench.json --socket /tmp/touchd.sock --log-level info 2> /tmp/daemon.log &
    DAEMON=$!
    wait_for 20 test -S /tmp/touchd.sock || bad "touchd did not listen: $(cat /tmp/daemon.log)"
    wait_for 20 grep -q "$NODE" /tmp/daemon.log || bad "touchd did not attach $NODE: $(cat /tmp/daemon.log)"
    chrt -f "$PRIORITY" $B/latency-client /tmp/touchd.sock 16 > /tmp/client-touchd.out 2>&1 &
    CLIENT=$!
    wait_for 20 sh -c "$T doctor --socket /tmp/touchd.sock --no-grab-test 2>&1 | grep -qE 'running on /tmp/touchd.sock: (1[6-9]|[2-9][0-9]) client'" \
        || bad "touchd never had the 16 clients"
    kill -USR1 $PANEL
    wait $PANEL
    sleep 1
    $T doctor --socket /tmp/touchd.sock --no-grab-test > /tmp/doctor.out 2>&1
    echo "VMBENCH touchd-own $(grep 'running on /tmp/touchd.sock' /tmp/doctor.out)"
    echo "VMBENCH touchd-realtime $(grep -E "real-time priority|real-time throttling" /tmp/doctor.out | head -1)"
    kill -TERM $DAEMON
    wait $DAEMON
    wait $CLIENT && ok "touchd measured" || bad "touchd's client: $(cat /tmp/client-touchd.out); $(tail -5 /tmp/daemon.log)"
    echo "VMBENCH touchd $(cat /tmp/client-touchd.out)"
    grep -E "warning|error" /tmp/daemon.log | sed 's/^/VMTEST info daemon: /' | head -5
fi
exit "$fails"
