#!/bin/sh
# Runs inside the QEMU VM with udevd and python3 (scripts/vm/run --udev --python): the
# re-export (devices[].uinput) under udevd. scripts/vm/e2e runs it.
#  1. The package's udev rule installed as /etc/udev/rules.d/70-touchd.rules and its groups
#     made (scripts/vm/run makes those of touchd.sysusers.conf): after udev's coldplug,
#     /dev/uinput belongs to group touchd-uinput, mode 0660 (issue 32, item 4: the only rule
#     offered gave it to input).
#  2. The split re-export (issue 42, item 3: `"split": true`): a panel re-exported with a
#     client (the Python client) owning a window; one finger goes down on a view of the
#     client's window, a second, while the first is down, outside every window. The virtual
#     touchscreen, read by evemu-record and by libinput debug-events as a compositor would,
#     gets the second alone (one tracking id, one TOUCH_DOWN, at the second finger's points,
#     BTN_TOUCH down and up once), while the client gets the first from touchd and a
#     subscriber sees both touches.
#  3. `touchd run --replay` honours the replayed device's devices[].uinput (issue 47, item 7):
#     a virtual touchscreen "touchd replayed touchscreen" appears, held until a client speaks;
#     the rule links it as /dev/input/touchd-replayed-touchscreen (issue 47, item 3: a name
#     that does not change from boot to boot, unlike eventN); libinput debug-events, given the
#     link, adds it as a touch device, and once a subscriber releases the replay it reads the
#     replayed contacts: as many touch-downs as the subscriber's touches (the bounce is one),
#     at the points it was published (libinput's millimetres × the source's 8 units/mm).
#     With /captures/uinput-source.desc and /captures/uinput-touches.events (a panel and its
#     touches: a drag that bounces, two fingers).
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
SOCK=/run/touchd/touchd.sock
export PYTHONPATH=/opt/touchd/python
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for, plug, vnode (scripts/vm/lib.sh)

# 1. /dev/uinput under the package's rule.
got=$(stat -c '%U:%G %a' /dev/uinput 2>&1)
[ "$got" = "root:touchd-uinput 660" ] && ok "/dev/uinput is root:touchd-uinput 0660 under udevd with 70-touchd.rules" \
    || bad "/dev/uinput is $got, not root:touchd-uinput 660"
grep -q '^touchd-uinput:' /etc/group || bad "no group touchd-uinput in the VM"

# 2. The split re-export. The panel: the 800x480 one, 8 units/mm (libinput wants a resolution).
[ "${TOUCHD_VM_UDEV:-0}" = 1 ] && command -v libinput >/dev/null || bad "uinput-test.sh needs udevd and libinput (scripts/vm/run --udev, libinput-tools on the host)"
python3 -c 'import touchd_client' 2>/tmp/py.err || bad "no Python client: $(cat /tmp/py.err)"
mkdir -p /run/touchd
cat > /tmp/split.json <<'EOF'
{"screen": {"width": 800, "height": 480},
 "windows": [],
 "devices": [{"match": {"name": "touchd split panel"}, "uinput": {"name": "touchd split re-export", "split": true}}]}
EOF
sed -e 's/^N: touchd virtual touchscreen/N: touchd split panel/' \
    -e 's/^A: \(00\|01\|35\|36\) \([0-9]* [0-9]* [0-9]* [0-9]*\) 0$/A: \1 \2 8/' /captures/panel-800x480.desc > /tmp/split-panel.desc
plug /tmp/split-panel.desc /tmp/plug.log || exit 1
PANEL=$NODE
$T run --config /tmp/split.json --socket $SOCK 2> /tmp/daemon.log &
DAEMON=$!
wait_for 20 test -S $SOCK || bad "the daemon did not listen: $(cat /tmp/daemon.log)"
VNODE=""
wait_for 20 vnode "touchd split re-export" && VNODE=$(vnode "touchd split re-export")
[ -n "$VNODE" ] && ok "the split re-export of $PANEL is $VNODE" || bad "no virtual touchscreen \"touchd split re-export\": $(cat /tmp/daemon.log)"
$T subscribe --socket $SOCK > /tmp/sub.ndjson 2>/tmp/sub.err &
SUB=$!
wait_for 10 grep -q snapshot /tmp/sub.ndjson || bad "the subscriber got no snapshot: $(cat /tmp/sub.err)"
# The client's window: the left half of the screen, a button on it at (50, 50, 200, 200).
python3 - > /tmp/client.out 2>&1 <<'EOF' &
from touchd_client import TouchdClient
c = TouchdClient("/run/touchd/touchd.sock", reconnect=False)
c.connect()
c.attach({"id": "page", "frame": [0, 0, 400, 480], "level": 0,
          "view": {"id": "page-root", "frame": [0, 0, 400, 480],
                   "subviews": [{"id": "button", "frame": [50, 50, 200, 200]}]}})
print("attached", flush=True)
c.on_touch(lambda t: print(t["phase"], t["window"], t["view"], flush=True))
c.run()
EOF
CLIENT=$!
wait_for 20 grep -q '^attached' /tmp/client.out && ok "the Python client attached its window \"page\" (0, 0, 400, 480)" \
    || bad "the client did not attach: $(cat /tmp/client.out)"
if [ -n "$VNODE" ]; then
    evemu-record "$VNODE" > /tmp/vrec.txt 2>&1 &
    VREC=$!
    libinput debug-events --device "$VNODE" > /tmp/libinput.txt 2>&1 &
    LI=$!
    wait_for 60 grep -q "^N:" /tmp/vrec.txt || echo "VMTEST info evemu-record had not described $VNODE after 60 s"
    wait_for 60 grep -q DEVICE_ADDED /tmp/libinput.txt || echo "VMTEST info libinput debug-events had not added $VNODE after 60 s"
    sleep 0.2
    # Finger 1 (slot 0) down at (100, 100), on the button; 50 ms later finger 2 (slot 1) at
    # (600, 240), outside every window; both move 5 points right in four steps and lift.
    {
        printf 'E: 0.000000 0003 002f 0\nE: 0.000000 0003 0039 21\nE: 0.000000 0003 0035 100\nE: 0.000000 0003 0036 100\nE: 0.000000 0001 014a 1\nE: 0.000000 0000 0000 0\n'
        printf 'E: 0.050000 0003 002f 1\nE: 0.050000 0003 0039 22\nE: 0.050000 0003 0035 600\nE: 0.050000 0003 0036 240\nE: 0.050000 0000 0000 0\n'
        for i in 1 2 3 4 5; do
            printf 'E: 0.%d00000 0003 002f 0\nE: 0.%d00000 0003 0035 %d\nE: 0.%d00000 0003 002f 1\nE: 0.%d00000 0003 0035 %d\nE: 0.%d00000 0000 0000 0\n' \
                "$i" "$i" $((100 + i)) "$i" "$i" $((600 + i)) "$i"
        done
        printf 'E: 0.700000 0003 002f 0\nE: 0.700000 0003 0039 -1\nE: 0.700000 0003 002f 1\nE: 0.700000 0003 0039 -1\nE: 0.700000 0001 014a 0\nE: 0.700000 0000 0000 0\n'
    } > /tmp/split.events
    evemu-play "$PANEL" < /tmp/split.events
    sleep 0.5
    kill $VREC; wait $VREC 2>/dev/null
    kill -INT $LI; wait $LI 2>/dev/null
    # What the virtual touchscreen carried: tracking ids begun, every position, BTN_TOUCH.
    ids=$(grep -c '^E: [0-9.]* 0003 0039 [0-9]' /tmp/vrec.txt)
    # (evemu writes values zero-padded, "0600", which busybox awk would read as octal.)
    xs=$(sed -n 's/^E: [0-9.]* 0003 0035 0*\([0-9][0-9]*\).*/\1/p' /tmp/vrec.txt | tr '\n' ' ')
    ys=$(sed -n 's/^E: [0-9.]* 0003 0036 0*\([0-9][0-9]*\).*/\1/p' /tmp/vrec.txt | tr '\n' ' ')
    btn=$(grep '^E: [0-9.]* 0001 014a' /tmp/vrec.txt | awk '{ printf "%d", $5 }')
    [ "$ids" = 1 ] && ok "evemu-record: one contact on the virtual touchscreen (of the panel's two)" || bad "evemu-record: $ids tracking ids on $VNODE, want 1: $(grep '^E:' /tmp/vrec.txt | head -20 | tr '\n' ';')"
    [ -n "$xs" ] && [ -z "$(echo "$xs" | tr ' ' '\n' | awk '$1 != "" && ($1 < 595 || $1 > 610)')" ] \
        && [ -n "$ys" ] && [ -z "$(echo "$ys" | tr ' ' '\n' | awk '$1 != "" && ($1 < 235 || $1 > 245)')" ] \
        && ok "it is finger 2's, outside every window: x $xs, y $ys" \
        || bad "positions on the virtual touchscreen: x $xs y $ys (finger 2's are x 600 to 605, y 240; finger 1, on the client's view, must be withheld)"
    [ "$btn" = 10 ] && ok "BTN_TOUCH went down and up once" || bad "BTN_TOUCH: $btn"
    downs=$(grep -c 'TOUCH_DOWN' /tmp/libinput.txt)
    # At (600, 240), 8 units/mm: (75.00/30.00mm) (libinput 1.22's "1 (0) 74.91/49.90 (75.00/30.00mm)").
    [ "$downs" = 1 ] && grep 'TOUCH_DOWN' /tmp/libinput.txt | grep -qE '\((74\.9|75\.[01])[0-9]*/ *(29\.9|30\.[01])[0-9]*mm\)' \
        && ok "libinput debug-events: one TOUCH_DOWN, at (600, 240): $(grep TOUCH_DOWN /tmp/libinput.txt | sed 's/[[:space:]][[:space:]]*/ /g')" \
        || bad "libinput debug-events: $downs TOUCH_DOWN: $(grep 'TOUCH_\|DEVICE_ADDED' /tmp/libinput.txt | head -8 | tr '\n' ';')"
    grep -q '^began page button$' /tmp/client.out && grep -q '^ended page button$' /tmp/client.out \
        && ok "the client got finger 1 from touchd: began and ended on its button" || bad "the client got: $(tr "\n" ";" < /tmp/client.out)"
    began=$(grep -o '"phase":"began"' /tmp/sub.ndjson | wc -l)
    [ "$began" -eq 2 ] && ok "the subscriber saw both touches begin" || bad "the subscriber saw $began touches begin: $(tail -3 /tmp/sub.ndjson)"
fi
kill $CLIENT 2>/dev/null; wait $CLIENT 2>/dev/null
kill -TERM $DAEMON
wait $DAEMON; code=$?
[ $code -eq 0 ] && ok "the daemon stopped cleanly" || bad "the daemon exited $code: $(tail -5 /tmp/daemon.log)"
wait $SUB
kill "$PLUG_PID" 2>/dev/null
# 3. A replay into a virtual touchscreen, read through its link.
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
[ "$fails" -eq 0 ]
