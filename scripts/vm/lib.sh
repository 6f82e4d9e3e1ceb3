# The VM scripts' shared helpers (busybox sh): scripts/vm/run puts this file at /vm-lib.sh and
# each test sources it (`. /vm-lib.sh`). Counts failures in $fails.
#   ok WHAT / bad WHAT      print `VMTEST ok WHAT` / `VMTEST FAIL WHAT` (bad counts a failure)
#   wait_for SECONDS CMD…   retries CMD every 0.1 s until it succeeds; fails after SECONDS
#   plug DESC LOG           starts evemu-device DESC in the background (LOG: its output); sets
#                           NODE (/dev/input/eventN, once it exists) and PLUG_PID (kill it to
#                           unplug the device)
#   vnode NAME              prints /dev/input/eventN of the input device called NAME

# shellcheck shell=dash  # busybox sh (ash): dash's dialect is the nearest shellcheck knows
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
fails=0
ok() { echo "VMTEST ok $*"; return 0; }   # always 0: `CHECK && ok … || bad …` is an if/else
bad() { echo "VMTEST FAIL $*"; fails=$((fails + 1)); }
wait_for() {
    local w=$(($1 * 10))
    shift
    while [ $w -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; w=$((w - 1)); done
    return 1
}
plug() {
    evemu-device "$1" > "$2" 2>&1 &
    # shellcheck disable=SC2034  # read by the tests that source this file
    PLUG_PID=$!
    NODE=""
    wait_for 10 grep -q /dev/input/event "$2" && NODE=$(grep -o '/dev/input/event[0-9]*' "$2" | head -1)
    [ -n "$NODE" ] || { bad "evemu-device $1 created no node: $(cat "$2")"; return 1; }
    wait_for 10 test -c "$NODE"
}
vnode() {
    for e in /sys/class/input/event*; do
        [ "$(cat "$e/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/${e##*/}"; return 0; }
    done
    return 1
}
