# `touchd doctor` on a real kernel (issue 32, item 6); runs inside the VM (busybox sh), needs
# the atmel and edt captures at /captures/atmel.events and /captures/edt.events:
#
#   scripts/vm/run --binary .build/debug/touchd --script scripts/vm/doctor-test.sh [--udev] \
#     --include Tests/Fixtures/captures/atmel-maxtouch_4-finger-drag-down.events:/captures/atmel.events \
#     --include Tests/Fixtures/captures/edt-ft5x06-EP0430M09_2-finger-scroll-down.events:/captures/edt.events
#
# Two virtual touchscreens (evemu-device). Another program — a copy of touchd named "grabber",
# as a compositor would — grabs the Atmel one (EVIOCGRAB) and reads the EDT one without a grab.
# The doctor's config reads the Atmel one, ignores the EDT one and names a socket group that
# does not exist; no daemon listens on its socket. The doctor must find each of these, the
# grab by its EVIOCGRAB test (the grabber's pid named), exit 1, and leave the grabber's grab
# in place; then a bad config is one error per problem with its JSON path. scripts/vm/e2e runs
# it with udevd; without --udev the capabilities decide what is a touchscreen (it passes both
# ways). Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.

# shellcheck shell=dash  # busybox sh (ash): dash's dialect is the nearest shellcheck knows
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for, plug (scripts/vm/lib.sh)
has() { grep -q -F -- "$1" "$2"; }

echo "VMTEST info doctor test, udev=$TOUCHD_VM_UDEV kernel $(uname -r)"
mkdir -p /run/touchd
[ "$TOUCHD_VM_UDEV" = 1 ] && udevadm settle --timeout=60
plug /captures/atmel.events /tmp/plug-atmel.log || exit 1
ATMEL=$NODE ATMEL_PLUG=$PLUG_PID
plug /captures/edt.events /tmp/plug-edt.log || exit 1
EDT=$NODE
[ "$TOUCHD_VM_UDEV" = 1 ] && udevadm settle --timeout=60

# The other program: grabs the Atmel screen, reads the EDT one.
cp "$(command -v "$T")" /tmp/grabber
cat > /tmp/grabber.json <<EOF
{"devices": [{"match": {"name": "Atmel*"}, "grab": true}, {"match": {"name": "EP0430M09"}}], "windows": []}
EOF
/tmp/grabber run --config /tmp/grabber.json --socket /run/touchd/grabber.sock --log-level debug 2> /tmp/grabber.log &
GRABBER=$!
wait_for 20 grep -q "$ATMEL: grabbed exclusively" /tmp/grabber.log && ok "grabber (pid $GRABBER) grabbed $ATMEL" || bad "the grabber did not grab $ATMEL: $(cat /tmp/grabber.log)"
wait_for 20 grep -q "$EDT \"" /tmp/grabber.log || bad "the grabber did not open $EDT: $(cat /tmp/grabber.log)"

cat > /tmp/doctor.json <<EOF
{"socket": {"path": "/run/touchd/doctor.sock", "group": "nosuchgroup"},
 "devices": [{"match": {"name": "Atmel*"}}, {"match": {"name": "EP0430M09"}, "ignore": true}], "windows": []}
EOF
$T doctor --config /tmp/doctor.json > /tmp/doctor.txt 2> /tmp/doctor.err
code=$?
sed 's/^/VMTEST info doctor: /' /tmp/doctor.txt /tmp/doctor.err
[ $code -eq 1 ] && ok "touchd doctor exits 1 on a board with problems" || bad "touchd doctor exited $code"
# evemu-device, which made the device, has it open too: the grabber is one of the two named.
grep -F "error: $ATMEL \"Atmel maXTouch Touchscreen\" is grabbed (EVIOCGRAB) by one of: " /tmp/doctor.txt | grep -q -F "grabber (pid $GRABBER)" &&
    ok "a device grabbed by another process: found by the EVIOCGRAB test, the process named" || bad "the grab of $ATMEL not reported"
has "warning: $EDT \"EP0430M09\": ignored by devices[1] (\"ignore\": true): touchd does not read it — fix: remove \"ignore\" from devices[1]" /tmp/doctor.txt &&
    ok "an ignored device: a warning naming its entry" || bad "the ignored $EDT not reported"
grep -F "ok: $EDT \"EP0430M09\": open in " /tmp/doctor.txt | grep -F "grabber (pid $GRABBER)" | grep -q "; not grabbed$" &&
    ok "a device another process reads without a grab: its reader named, the grab test free" || bad "the holder of $EDT not reported"
has "error: group nosuchgroup (socket.group) does not exist" /tmp/doctor.txt && ok "a missing group: an error with its fix" || bad "the missing group not reported"
has "error: touchd is not running: no socket at /run/touchd/doctor.sock" /tmp/doctor.txt && ok "no daemon: an error with its fix" || bad "the missing daemon not reported"
# The doctor's test grabbed and released the EDT screen, and failed on the Atmel one: the
# grabber's own grab must still hold (a second grabber cannot take it).
cp /tmp/grabber /tmp/second
sed 's|grabber.sock|second.sock|' /tmp/grabber.json > /tmp/second.json
/tmp/second run --config /tmp/second.json --socket /run/touchd/second.sock --log-level debug 2> /tmp/second.log &
SECOND=$!
wait_for 20 grep -q "$ATMEL: cannot grab" /tmp/second.log && ok "after the doctor, the grabber still holds its grab of $ATMEL" || bad "the grab of $ATMEL after the doctor: $(grep "$ATMEL" /tmp/second.log)"
kill -TERM $SECOND; wait $SECOND

$T doctor --config /tmp/doctor.json --json > /tmp/doctor.json.out
head -c 13 /tmp/doctor.json.out | grep -q '^{"findings":\[' && [ "$(grep -o '"level":"error"' /tmp/doctor.json.out | wc -l)" -eq "$(grep -c '^error: ' /tmp/doctor.txt)" ] &&
    ok "--json: the same findings ($(grep -o '"level":"error"' /tmp/doctor.json.out | wc -l) errors)" || bad "--json: $(cat /tmp/doctor.json.out)"

# A bad config: one error per problem, with its JSON path and the check-config fix.
echo '{"devices": [{"match": {"name": "Atmel*"}, "rotation": 45}], "windows": []}' > /tmp/bad.json
$T doctor --config /tmp/bad.json --no-grab-test > /tmp/bad.txt
code=$?
has 'error: /tmp/bad.json: $.devices[0].rotation' /tmp/bad.txt && has "fix: edit /tmp/bad.json, then: touchd check-config /tmp/bad.json" /tmp/bad.txt && [ $code -eq 1 ] &&
    ok "a bad config: $(grep -F 'error: /tmp/bad.json' /tmp/bad.txt | head -1 | cut -c1-100)…" || bad "bad config (exit $code): $(cat /tmp/bad.txt)"

kill -TERM $GRABBER; wait $GRABBER
kill "$PLUG_PID" "$ATMEL_PLUG"
[ "$fails" -eq 0 ]
