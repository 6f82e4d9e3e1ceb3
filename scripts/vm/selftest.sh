# Proves the scripts/vm/run harness without touchd: runs inside the VM (busybox sh), needs the
# atmel capture included at /captures/atmel.events. scripts/vm/e2e runs it after a failed run
# (scripts/vm/e2e --selftest: always), to tell a broken harness (QEMU, the kernel's uinput,
# evemu, udevd) from a broken touchd:
#
#   scripts/vm/run --binary /bin/true --script scripts/vm/selftest.sh [--udev] \
#     --include Tests/Fixtures/captures/atmel-maxtouch_4-finger-drag-down.events:/captures/atmel.events
#
# Creates a virtual touchscreen through uinput with evemu-device, plays the recording into it
# with evemu-play while two readers (evemu-record and a raw `cat`) read the evdev node, and
# checks that the events arrive. With --udev (TOUCHD_VM_UDEV=1) it also checks that udevd
# tagged the node ID_INPUT_TOUCHSCREEN=1. Prints VMTEST ok / VMTEST FAIL lines; exits non-zero
# if anything failed.

# shellcheck shell=dash  # busybox sh (ash): dash's dialect is the nearest shellcheck knows
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac

rec=/captures/atmel.events
fails=0
ok()   { echo "VMTEST ok $*"; return 0; }
fail() { echo "VMTEST FAIL $*"; fails=$((fails + 1)); }
now()  { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" '{ printf "%.2f", $1 - a }' /proc/uptime; }

echo "--- /dev/input at start (TOUCHD_VM_UDEV=$TOUCHD_VM_UDEV)"
ls -l /dev/input
[ -c /dev/uinput ] && ok "/dev/uinput is there" || fail "no /dev/uinput (uinput module not loaded?)"
[ -f "$rec" ] || { fail "no $rec (forgot --include?)"; exit 1; }

# The --binary must at least start: 126/127 would mean a missing loader or library.
"$TOUCHD_VM_BINARY" </dev/null >/dev/null 2>&1
code=$?
[ $code -lt 126 ] && ok "--binary $TOUCHD_VM_BINARY runs (exit $code)" || fail "--binary $TOUCHD_VM_BINARY cannot run (exit $code)"

# 1. A virtual touchscreen. evemu-device stays running while the device lives and prints
#    "<device name>: /dev/input/eventN" once it exists.
t=$(now)
evemu-device "$rec" >/tmp/evemu-device.out 2>&1 &
devpid=$!
node=""
for _ in $(seq 100); do
  node=$(sed -n 's|.*: \(/dev/input/event[0-9]*\)$|\1|p' /tmp/evemu-device.out)
  [ -n "$node" ] && [ -c "$node" ] && break
  sleep 0.1
done
if [ -z "$node" ] || [ ! -c "$node" ]; then
  fail "evemu-device announced no node: $(cat /tmp/evemu-device.out)"
  exit 1
fi
ok "evemu-device created $node in $(since "$t")s: $(cat /tmp/evemu-device.out)"
grep -A8 "Touchscreen" /proc/bus/input/devices

# 2. With udev: the new device was processed by udevd's stock rules (input_id builtin).
if [ "$TOUCHD_VM_UDEV" = 1 ]; then
  t=$(now)
  udevadm settle --timeout=60 || fail "udevadm settle timed out"
  echo "--- udevadm info $node (settled in $(since "$t")s)"
  udevadm info "$node" | cat
  if udevadm info "$node" | grep -q "ID_INPUT_TOUCHSCREEN=1"; then
    ok "udev tagged $node ID_INPUT_TOUCHSCREEN=1"
  else
    fail "udev did not tag $node ID_INPUT_TOUCHSCREEN=1"
  fi
fi

# 3. Two readers on the node, then the recording played into it.
evemu-record "$node" >/tmp/record.out 2>&1 &
recpid=$!
cat "$node" >/tmp/raw.bin &
catpid=$!
for _ in $(seq 50); do grep -q '^N:' /tmp/record.out && break; sleep 0.1; done  # record has opened it
sleep 0.2
t=$(now)
evemu-play "$node" <"$rec" && ok "evemu-play finished in $(since "$t")s" || fail "evemu-play exited $?"
sleep 0.5
kill $recpid $catpid
wait $recpid $catpid 2>/dev/null

sent=$(grep -c '^E:' "$rec")
got=$(grep -c '^E:' /tmp/record.out)
bytes=$(wc -c </tmp/raw.bin)
echo "--- first events as evemu-record saw them"
grep '^E:' /tmp/record.out | head -8
# The kernel drops repeated values and empty frames, so fewer events may arrive than were sent.
[ "$got" -gt 0 ] && ok "evemu-record got $got events ($sent in the recording)" || fail "evemu-record got no events"
[ "$bytes" -gt 0 ] && [ $((bytes % 24)) -eq 0 ] &&
  ok "cat got $bytes bytes = $((bytes / 24)) input_events of 24 bytes" || fail "cat got $bytes bytes"
[ "$((bytes / 24))" -eq "$got" ] && ok "both readers saw the same $got events" ||
  fail "readers disagree: evemu-record $got, cat $((bytes / 24))"
grep -q '^E: .* 0001 014a 0001' /tmp/record.out && grep -q '^E: .* 0001 014a 0000' /tmp/record.out &&
  ok "BTN_TOUCH went down and up" || fail "no BTN_TOUCH 1 then 0 in the record"

# 4. Killing evemu-device closes the uinput fd, which destroys the device and its node.
kill $devpid
wait $devpid 2>/dev/null
for _ in $(seq 50); do [ -e "$node" ] || break; sleep 0.1; done
[ -e "$node" ] && fail "$node still exists after evemu-device exited" || ok "$node went away with evemu-device"

echo "--- /dev/input at end"
ls -l /dev/input
[ $fails -eq 0 ] || { echo "VMTEST selftest: $fails check(s) failed"; exit 1; }
echo "VMTEST selftest: all checks passed"
