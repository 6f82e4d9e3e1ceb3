#!/bin/sh
# Runs inside the QEMU VM with udevd (scripts/vm/run --udev), the package's udev rule installed
# as /etc/udev/rules.d/70-touchd.rules and its groups made (scripts/vm/run makes those of
# touchd.sysusers.conf). scripts/vm/e2e runs it, with /captures/uinput-source.desc and
# /captures/uinput-touches.events (a panel and its touches: a drag that bounces, two fingers).
#   1. After udev's coldplug, /dev/uinput belongs to group touchd-uinput, mode 0660 (issue 32,
#      item 4: the only rule offered gave it to input).
#   2. `touchd run --replay` honours the replayed device's devices[].uinput (issue 47, item 7):
#      a virtual touchscreen "touchd replayed touchscreen" appears, held until a client speaks;
#      the rule links it as /dev/input/touchd-replayed-touchscreen (issue 47, item 3: a name
#      that does not change from boot to boot, unlike eventN); libinput debug-events, given the
#      link, adds it as a touch device, and once a subscriber releases the replay it reads the
#      replayed contacts: as many touch-downs as the subscriber's touches (the bounce is one),
#      at the points it was published (libinput's millimetres × the source's 8 units/mm).
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
T=${TOUCHD_VM_BINARY:-touchd}
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for, vnode (scripts/vm/lib.sh)

got=$(stat -c '%U:%G %a' /dev/uinput 2>&1)
if [ "$got" = "root:touchd-uinput 660" ]; then
    ok "/dev/uinput is root:touchd-uinput 0660 under udevd with 70-touchd.rules"
else
    bad "/dev/uinput is $got, not root:touchd-uinput 660"
fi
grep -q '^touchd-uinput:' /etc/group || bad "no group touchd-uinput in the VM"

# 2. A replay into a virtual touchscreen, read through its link.
NAME="touchd replayed touchscreen" LINK=/dev/input/touchd-replayed-touchscreen SOCK=/tmp/replay.sock
cat > /tmp/replay.json <<'EOF'
{"screen": {"width": 800, "height": 480},
 "devices": [{"match": {"name": "touchd uinput source"}, "filter": {"debounce": 0.2},
              "uinput": {"name": "touchd replayed touchscreen"}}],
 "windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "v", "frame": [0, 0, 800, 480]}}]}
EOF
$T run --config /tmp/replay.json --socket $SOCK --replay /captures/uinput-touches.events \
    --device-info /captures/uinput-source.desc --wait-clients 1 --exit-at-end 2> /tmp/replay.log &
DAEMON=$!
VNODE=""
wait_for 20 vnode "$NAME" && VNODE=$(vnode "$NAME")
[ -n "$VNODE" ] && ok "run --replay made the entry's virtual touchscreen \"$NAME\" ($VNODE) while the replay is held" ||
    bad "run --replay made no virtual touchscreen \"$NAME\": $(cat /tmp/replay.log)"
if [ -n "$VNODE" ] && wait_for 20 test -L $LINK; then
    [ "$(readlink -f $LINK)" = "$VNODE" ] && ok "70-touchd.rules links it: $LINK -> $(readlink $LINK)" ||
        bad "$LINK points to $(readlink -f $LINK), not $VNODE"
else
    bad "no $LINK for $VNODE: $(echo /dev/input/*); udev: $(udevadm info "$VNODE" 2>&1 | tr '\n' ' ')"
fi
LI=""
if [ -L $LINK ] && command -v libinput >/dev/null; then
    libinput debug-events --device $LINK > /tmp/libinput.txt 2>&1 &
    LI=$!
    wait_for 60 grep -q DEVICE_ADDED /tmp/libinput.txt || echo "VMTEST info libinput debug-events had not added $LINK after 60 s"
    added=$(grep DEVICE_ADDED /tmp/libinput.txt | head -1)
    case "$added" in *"$NAME"*cap:*t*) ok "libinput opens $LINK as a touch device: $(echo "$added" | tr -s ' ' | cut -c1-120)" ;;
                     *) bad "libinput's view of $LINK: '$added' $(head -5 /tmp/libinput.txt | tr '\n' ' ')" ;; esac
elif [ -L $LINK ]; then
    echo "VMTEST info libinput debug-events: not in this VM"
fi
# A client's request releases the replay; --exit-at-end ends the daemon (and the subscriber).
$T subscribe --socket $SOCK --types frame > /tmp/replay-sub.ndjson 2> /tmp/replay-sub.err &
SUB=$!
wait_for 30 sh -c "! kill -0 $DAEMON" || bad "the replaying daemon did not end: $(tail -5 /tmp/replay.log)"
wait $DAEMON; status=$?
[ $status -eq 0 ] && ok "the replay ended (exit 0); its virtual touchscreen went with it: $(grep -c 'virtual touchscreen .* removed' /tmp/replay.log) removed" ||
    bad "the replaying daemon exited $status: $(tail -5 /tmp/replay.log)"
wait $SUB 2>/dev/null
if [ -n "$VNODE" ]; then
    ! test -e "$VNODE" && ! test -e $LINK && ok "$VNODE is gone after the daemon stopped, and no $LINK is left" ||
        bad "$VNODE or $LINK is still there after the daemon stopped"
fi
if [ -n "$LI" ]; then
    sleep 0.3
    kill -INT $LI; wait $LI 2>/dev/null
    # The subscriber's touch-downs and libinput's, as rounded points, in order.
    grep -o '"phase":"began","window":"w","view":"v","location":\[[0-9.]*,[0-9.]*\]' /tmp/replay-sub.ndjson |
        sed 's/.*\[\([0-9.]*\),\([0-9.]*\)\]/\1 \2/' | awk '{ printf "%d,%d\n", $1 + 0.5, $2 + 0.5 }' | sort > /tmp/want.txt
    # libinput prints "TOUCH_DOWN +0.000s 0 (0) 25.00/31.25 ( 25.00/ 18.75mm)": percent, then mm.
    grep 'TOUCH_DOWN' /tmp/libinput.txt | sed -n 's/.*([ ]*\([0-9.]*\)\/[ ]*\([0-9.]*\)mm).*/\1 \2/p' |
        awk '{ printf "%d,%d\n", $1 * 8 + 0.5, $2 * 8 + 0.5 }' | sort > /tmp/got.txt
    want=$(tr '\n' ' ' < /tmp/want.txt) got=$(tr '\n' ' ' < /tmp/got.txt)
    [ "$(wc -l < /tmp/want.txt)" -eq 3 ] && [ "$want" = "$got" ] &&
        ok "libinput read the replayed contacts: touch-downs at $got(the subscriber's: the bounce is one touch)" ||
        bad "libinput's touch-downs '$got' are not the subscriber's '$want' (3 expected); libinput: $(grep TOUCH_ /tmp/libinput.txt | head -4 | tr '\n' ' ')"
fi
exit $fails
