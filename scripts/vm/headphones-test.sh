#!/bin/sh
# Runs inside the QEMU VM (scripts/vm/run boots it; scripts/vm/e2e runs it without and with
# udevd): a headphone jack made with uinput by evemu-device from
# Tests/Fixtures/headphones/hda-intel-pch-headphone.events (EV_SW SW_HEADPHONE_INSERT, no
# position axes) is found by the real daemon — by its capabilities without udevd, through
# udev's ID_INPUT_SWITCH with it — never grabbed, and its plugs and pulls reach a subscriber as
# `headphones` messages; a snapshot taken while plugged lists the output; unplugging the device
# while plugged is a pull. Prints VMTEST ok|FAIL lines.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
SOCK=/run/touchd/touchd.sock
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for, plug
echo "VMTEST info udev=$TOUCHD_VM_UDEV kernel $(uname -r)"
mkdir -p /run/touchd /etc/touchd
printf '%s\n' '{"outputs": [{"id": "main", "width": 800, "height": 480}], "windows": []}' > /etc/touchd/touchd.json

$T run --config /etc/touchd/touchd.json --socket $SOCK --log-level debug 2> /tmp/daemon.log &
DAEMON=$!
wait_for 20 test -S $SOCK || bad "daemon did not listen: $(cat /tmp/daemon.log)"
$T subscribe --socket $SOCK --types headphones > /tmp/sub.ndjson 2>/tmp/sub.err &
SUB=$!
wait_for 10 grep -q snapshot /tmp/sub.ndjson || bad "subscriber got no snapshot"

plug /captures/jack.events /tmp/plug.log && {
    wait_for 20 grep -q "headphone jack (SW_HEADPHONE_INSERT)" /tmp/daemon.log \
        && ok "$NODE attached as a headphone jack" || bad "jack not attached: $(cat /tmp/daemon.log)"
    grep -q "$NODE: grabbed" /tmp/daemon.log && bad "the jack was grabbed" || ok "the jack is not grabbed"
    evemu-play "$NODE" < /captures/jack.events
    wait_for 10 grep -q '"plugged":true' /tmp/sub.ndjson && wait_for 10 grep -q '"plugged":false' /tmp/sub.ndjson \
        && ok "plugs and pulls reach the subscriber: $(grep -c '"type":"headphones"' /tmp/sub.ndjson) headphones messages" \
        || bad "no headphones messages: $(cat /tmp/sub.ndjson) $(cat /tmp/daemon.log)"
    [ "$(grep -c '"type":"headphones"' /tmp/sub.ndjson)" = 3 ] && ok "plugged, pulled, plugged: three messages" \
        || bad "expected 3 headphones messages: $(cat /tmp/sub.ndjson)"
    grep '"type":"headphones"' /tmp/sub.ndjson | head -1 | grep -q '"output":"main","plugged":true,"source":"event' \
        && ok "on output main, from the jack's node" || bad "message: $(grep headphones /tmp/sub.ndjson | head -1)"
    # Plugged now (the capture ends plugged): a late subscriber's snapshot says so.
    $T subscribe --socket $SOCK --types headphones > /tmp/late.ndjson 2>/dev/null &
    LATE=$!
    wait_for 10 grep -q snapshot /tmp/late.ndjson
    kill "$LATE" 2>/dev/null
    grep -q '"headphones":\[{"output":"main","plugged":true}\]' /tmp/late.ndjson \
        && ok "a snapshot lists output main with headphones in" || bad "snapshot: $(cat /tmp/late.ndjson)"
    kill "$PLUG_PID"                       # the jack's device goes while plugged: a pull
    # shellcheck disable=SC2016  # the inner sh expands it, each time wait_for tries
    wait_for 10 sh -c '[ "$(grep -c "\"type\":\"headphones\"" /tmp/sub.ndjson)" = 4 ]' \
        && tail -1 /tmp/sub.ndjson | grep -q '"plugged":false' && ok "the device going is a pull" \
        || bad "after unplugging the device: $(cat /tmp/sub.ndjson)"
}
kill "$SUB" "$DAEMON" 2>/dev/null
wait "$DAEMON" 2>/dev/null
echo "VMTEST done fails=$fails"
