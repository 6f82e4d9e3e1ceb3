#!/bin/sh
# Runs inside the QEMU VM with udevd and python3 (scripts/vm/run --udev --python): two displays
# on one board (issue 33). Two uinput touchscreens whose display a udev rule names (WL_OUTPUT,
# Tests/Fixtures/vm/wl-output.rules) are mapped to their outputs with no devices[].output; a
# tap on each lands only in its own output's window; the Python client turns one output while
# a finger is down on it (the finger ends cancelled, output-changed; the next one maps in the
# new orientation) and runs a calibration of a panel on the turned output; a re-exported
# device (devices[].uinput) on the other output gets the package's WL_OUTPUT tag (systemd/70-touchd.rules) and its axes turn with its output;
# `touchd outputs` names each device's output and, with a virtio GPU (--gpu), the connectors a
# real kernel's DRM driver makes. scripts/vm/e2e runs it.
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
SOCK=/run/touchd/touchd.sock
CFG=/etc/touchd/outputs.json
export PYTHONPATH=/opt/touchd/python
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for, plug, vnode (scripts/vm/lib.sh)
panel() { # panel NAME LOG: plugs an 800x480 panel called NAME; sets NODE and PLUG_PID
    sed "s/^N: touchd virtual touchscreen/N: $1/" /captures/panel-800x480.desc > "/tmp/$1.desc"
    plug "/tmp/$1.desc" "$2"
}
down() { # down NODE ID X Y: a finger down (slot 0) and left there
    printf 'E: 0.000001 0003 002f 0\nE: 0.000001 0003 0039 %s\nE: 0.000001 0003 0035 %s\nE: 0.000001 0003 0036 %s\nE: 0.000001 0001 014a 1\nE: 0.000001 0000 0000 0\n' "$2" "$3" "$4" > /tmp/down.events
    evemu-play "$1" < /tmp/down.events
}
up() { # up NODE: the finger in slot 0 lifts
    printf 'E: 0.000001 0003 002f 0\nE: 0.000001 0003 0039 -1\nE: 0.000001 0001 014a 0\nE: 0.000001 0000 0000 0\n' > /tmp/up.events
    evemu-play "$1" < /tmp/up.events
}
tap() { down "$1" "$2" "$3" "$4"; sleep 0.1; up "$1"; }
prop() { udevadm info --query=property --name="$1" 2>/dev/null | sed -n "s/^$2=//p"; }
# touches ID: the subscriber's touches of touch ID, one line each: phase window output x y reason
touches() {
    python3 - "$1" <<'EOF'
import json, sys
want = int(sys.argv[1])
for line in open("/tmp/sub.ndjson"):
    m = json.loads(line)
    if m.get("type") != "frame":
        continue
    for t in m.get("touches", []):
        if t.get("id") == want:
            x, y = t.get("location", [None, None])
            print(t.get("phase"), t.get("window"), t.get("output"), round(x), round(y), t.get("reason", "-"))
EOF
}
first_id() { # first_id WINDOW: the id of the newest touch that began in WINDOW
    python3 - "$1" <<'EOF'
import json, sys
found = None
for line in open("/tmp/sub.ndjson"):
    m = json.loads(line)
    for t in m.get("touches", []) if m.get("type") == "frame" else []:
        if t.get("phase") == "began" and t.get("window") == sys.argv[1]:
            found = t.get("id")
print(found if found is not None else "")
EOF
}

[ "${TOUCHD_VM_UDEV:-0}" = 1 ] || bad "outputs-test.sh needs udevd (scripts/vm/run --udev)"
python3 -c 'import touchd_client' 2>/tmp/py.err && ok "python3 and the Python client are in the VM" || bad "no Python client: $(cat /tmp/py.err)"
mkdir -p /run/touchd

# 1. Two panels whose displays the board's udev rule names.
panel "touchd left panel" /tmp/plug-left.log && LEFT=$NODE LEFT_PID=$PLUG_PID
panel "touchd right panel" /tmp/plug-right.log && RIGHT=$NODE RIGHT_PID=$PLUG_PID
udevadm settle -t 10
[ "$(prop "$LEFT" WL_OUTPUT)" = DSI-1 ] && [ "$(prop "$RIGHT" WL_OUTPUT)" = HDMI-A-1 ] &&
    ok "udev: $LEFT has WL_OUTPUT=DSI-1, $RIGHT WL_OUTPUT=HDMI-A-1" || bad "udev properties: left $(prop "$LEFT" WL_OUTPUT), right $(prop "$RIGHT" WL_OUTPUT)"

$T outputs --config $CFG > /tmp/outputs.txt 2>&1
grep "$LEFT" /tmp/outputs.txt | grep -q DSI-1 && grep "$RIGHT" /tmp/outputs.txt | grep -q HDMI-A-1 &&
    ok "touchd outputs: $LEFT → DSI-1, $RIGHT → HDMI-A-1 (WL_OUTPUT)" || bad "touchd outputs: $(cat /tmp/outputs.txt)"
sed 's/^/VMTEST info outputs: /' /tmp/outputs.txt

# With a virtio GPU (scripts/vm/run --gpu): its two connectors from a real kernel's sysfs.
if [ "${TOUCHD_VM_GPU:-0}" = 1 ]; then
    wait_for 10 sh -c "ls /sys/class/drm | grep -q Virtual-1"
    $T outputs --json > /tmp/outputs.json 2>&1
    grep -q '"name":"Virtual-1","status":"connected","connected":true,"mode":{"width":[0-9]' /tmp/outputs.json &&
        grep -q '"name":"Virtual-2","status":"disconnected","connected":false' /tmp/outputs.json &&
        ok "touchd outputs --json lists the virtio GPU's connectors: Virtual-1 connected with a mode, Virtual-2 not" || bad "touchd outputs --json with a GPU: $(cat /tmp/outputs.json); $(ls /sys/class/drm 2>&1)"
    grep -q "Virtual-1" /tmp/outputs.txt && ok "touchd outputs: $(grep 'Virtual-1' /tmp/outputs.txt | head -1 | sed 's/^ *//')" || bad "touchd outputs without Virtual-1: $(cat /tmp/outputs.txt)"
fi

$T run --config $CFG --socket $SOCK --log-level debug 2> /tmp/daemon.log &
DAEMON=$!
wait_for 20 test -S $SOCK || bad "daemon did not listen: $(cat /tmp/daemon.log)"
$T subscribe --socket $SOCK > /tmp/sub.ndjson 2>/tmp/sub.err &
SUB=$!
wait_for 10 grep -q snapshot /tmp/sub.ndjson || bad "subscriber got no snapshot"
grep -q "$LEFT: mapped to output DSI-1 (udev WL_OUTPUT)" /tmp/daemon.log && grep -q "$RIGHT: mapped to output HDMI-A-1 (udev WL_OUTPUT)" /tmp/daemon.log &&
    ok "the daemon mapped each panel by its WL_OUTPUT, no devices[].output" || bad "mapping: $(grep 'mapped to' /tmp/daemon.log)"

# 2. A tap on each at the same point: each only in its own output's window.
tap "$LEFT" 1 100 100
tap "$RIGHT" 2 100 100
sleep 0.5
L1=$(first_id left) R1=$(first_id right)
[ -n "$L1" ] && [ -n "$R1" ] && [ "$L1" != "$R1" ] && ok "a tap at (100, 100) on each panel began in its own window (touches $L1, $R1)" || bad "touches: $(grep -c frame /tmp/sub.ndjson) frames: $(tail -4 /tmp/sub.ndjson)"
[ -n "$L1" ] && touches "$L1" | grep -q "^began left DSI-1 100 100" && ok "left: began in window left on DSI-1 at (100, 100)" || bad "left tap: $(touches "${L1:-0}")"
[ -n "$R1" ] && touches "$R1" | grep -q "^began right HDMI-A-1 100 100" && ok "right: began in window right on HDMI-A-1 at (100, 100)" || bad "right tap: $(touches "${R1:-0}")"

# 3. The Python client turns DSI-1 while a finger is down on it, and one on HDMI-A-1.
down "$LEFT" 3 200 100
down "$RIGHT" 4 200 100
sleep 0.3
python3 - > /tmp/rotate.out 2>&1 <<'EOF'
from touchd_client import TouchdClient as Client
c = Client("/run/touchd/touchd.sock")
c.connect()
reply = c.rotate_output("DSI-1", 90)
print("reply", reply["type"], reply["output"]["id"], reply["output"]["rotation"])
try:
    c.rotate_output("DSI-1", 45)
except Exception as e:
    print("refused", e)
try:
    c.rotate_output("DP-9", 90)
except Exception as e:
    print("refused", e)
EOF
grep -q "^reply output DSI-1 90" /tmp/rotate.out && ok "python rotate_output(\"DSI-1\", 90): $(head -1 /tmp/rotate.out)" || bad "rotate_output: $(cat /tmp/rotate.out)"
[ "$(grep -c '^refused' /tmp/rotate.out)" = 2 ] && ok "45° and an unknown output are refused: $(grep '^refused' /tmp/rotate.out | tr '\n' ' ')" || bad "bad rotations: $(cat /tmp/rotate.out)"
sleep 0.3
up "$LEFT"
up "$RIGHT"
sleep 0.5
grep -q '"type":"output".*"DSI-1".*"rotation":90' /tmp/sub.ndjson && ok "the subscriber got the output message" || bad "no output message: $(grep output /tmp/sub.ndjson | tail -2)"
L2=$(first_id left) R2=$(first_id right)
touches "$L2" | grep -q "^cancelled left DSI-1 .* output-changed$" && ok "the finger down on DSI-1 ended cancelled (output-changed)" || bad "left finger: $(touches "$L2")"
touches "$R2" | grep -q "^ended right HDMI-A-1" && ! touches "$R2" | grep -q cancelled && ok "the finger on HDMI-A-1 went on and ended" || bad "right finger: $(touches "$R2")"

# 4. The next finger on DSI-1 maps in the new orientation: turned 90, (100, 100) of the panel's
#    800 × 480 is (379, 100) of the output's 480 × 800 points (x = 479 - y, y = x).
tap "$LEFT" 5 100 100
sleep 0.5
L3=$(first_id left)
touches "$L3" | grep -q "^began left DSI-1 379 100" && ok "after the turn (100, 100) on the left panel is (379, 100) of DSI-1" || bad "after the turn: $(touches "$L3")"

# 5. A calibration from the glass through the socket, by the Python client, of the left panel
#    on DSI-1 as turned (90): the five default targets of its 480 × 800 points, tapped where
#    an exact panel reports them (UI (x, y) is the panel's (y, 479 − x)), give the identity.
python3 - "${LEFT##*/}" > /tmp/calibrate.out 2>&1 <<'PY' &
import sys
from touchd_client import TouchdClient as Client
c = Client("/run/touchd/touchd.sock")
c.connect()
def draw(t):
    print("target", t["target"] + 1, *t["point"], flush=True)
r = c.run_calibration(sys.argv[1], draw, timeout=60)
print("result", r["type"], r.get("residual"), " ".join("%.3f" % v for v in r.get("matrix", [])), flush=True)
PY
CAL=$!
k=1
for raw in "80 431" "80 48" "719 48" "719 431" "400 240"; do
    wait_for 20 grep -q "^target $k " /tmp/calibrate.out || bad "no target $k asked: $(cat /tmp/calibrate.out)"
    # shellcheck disable=SC2086  # split on purpose: $raw is "X Y"
    set -- $raw
    tap "$LEFT" $((10 + k)) "$1" "$2"
    k=$((k + 1))
done
wait $CAL
grep -q "^target 1 47.9 79.9" /tmp/calibrate.out && grep -q "^target 5 239.5 399.5" /tmp/calibrate.out &&
    ok "calibrate: the targets are DSI-1's turned points ($(grep -c '^target' /tmp/calibrate.out) asked)" || bad "targets: $(cat /tmp/calibrate.out)"
grep -q "^result calibrated [0-9.]* 1.00[0-9] -*0.00[0-9] -*0.00[0-9] -*0.00[0-9] 1.00[0-9] -*0.00[0-9]$" /tmp/calibrate.out &&
    ok "python run_calibration: $(grep '^result' /tmp/calibrate.out)" || bad "calibration result: $(cat /tmp/calibrate.out)"

# 6. devices[].uinput on HDMI-A-1: the virtual touchscreen is tagged with its output, the
#    package's rule gives it WL_OUTPUT, and it turns with the output; one with
#    "orientation": "natural" (for a compositor that turns touches itself) stays as it is and
#    its contacts stay the panel's own points.
VNAME="touchd virtual on HDMI" NNAME="touchd natural on HDMI"
NNODE=""
panel "touchd natural panel" /tmp/plug-nat.log && {
    NAT=$NODE NAT_PID=$PLUG_PID
    wait_for 20 vnode "$NNAME" && NNODE=$(vnode "$NNAME")
    [ -n "$NNODE" ] && ok "the natural-orientation re-export of $NAT is $NNODE" || bad "no virtual touchscreen \"$NNAME\": $(grep -i 'natural\|uinput' /tmp/daemon.log)"
}
panel "touchd exported panel" /tmp/plug-exp.log && {
    EXP_PID=$PLUG_PID
    VNODE=""
    wait_for 20 vnode "$VNAME" && VNODE=$(vnode "$VNAME")
    if [ -n "$VNODE" ]; then
        udevadm settle -t 10
        SYS=/sys/class/input/${VNODE##*/}/device
        [ "$(cat "$SYS"/phys)" = touchd-uinput/HDMI-A-1 ] && ok "the virtual touchscreen's phys is touchd-uinput/HDMI-A-1" || bad "its phys is \"$(cat "$SYS"/phys)\""
        [ "$(prop "$VNODE" WL_OUTPUT)" = HDMI-A-1 ] && ok "70-touchd.rules gave $VNODE WL_OUTPUT=HDMI-A-1" || bad "its WL_OUTPUT is \"$(prop "$VNODE" WL_OUTPUT)\": $(udevadm info --query=property --name="$VNODE" | tr '\n' ' ')"
        python3 -c 'from touchd_client import TouchdClient as Client; c = Client("/run/touchd/touchd.sock"); c.connect(); print(c.rotate_output("HDMI-A-1", 270)["output"])' > /tmp/rotate2.out 2>&1
        TNODE=""
        wait_for 20 sh -c "v=\$(for e in /sys/class/input/event*; do [ \"\$(cat \$e/device/name)\" = '$VNAME' ] && echo \$e; done); [ -n \"\$v\" ] && [ \"/dev/input/\${v##*/}\" != '$VNODE' ]" &&
            TNODE=$(vnode "$VNAME")
        if [ -n "$TNODE" ]; then
            evemu-record "$TNODE" > /tmp/vdesc.txt 2>&1 &
            VR=$!
            wait_for 20 grep -q "^A: 36" /tmp/vdesc.txt
            kill $VR; wait $VR 2>/dev/null
            grep -q "^A: 35 0 480 " /tmp/vdesc.txt && grep -q "^A: 36 0 800 " /tmp/vdesc.txt &&
                ok "turning HDMI-A-1 to 270 remade it as $TNODE with 480 × 800 points" || bad "after the turn its axes: $(grep '^A: 3[56]' /tmp/vdesc.txt)"
        else
            bad "turning HDMI-A-1 did not remake the virtual touchscreen: $(cat /tmp/rotate2.out); $(grep -i 'virtual\|re-exported' /tmp/daemon.log | tail -3)"
        fi
    else
        bad "no virtual touchscreen \"$VNAME\": $(grep -i uinput /tmp/daemon.log)"
    fi
    kill "$EXP_PID"
}
if [ -n "$NNODE" ]; then
    # HDMI-A-1 is turned to 270 now: the natural one is the same device, 800 × 480, and a tap
    # at the panel's (100, 100) is (100, 100) on it.
    [ "$(vnode "$NNAME")" = "$NNODE" ] && ok "turning HDMI-A-1 left the natural one as it was ($NNODE)" || bad "the natural one was remade: $(vnode "$NNAME")"
    evemu-record "$NNODE" > /tmp/nrec.txt 2>&1 &
    NR=$!
    wait_for 20 grep -q "^A: 36" /tmp/nrec.txt
    sleep 0.2
    tap "$NAT" 31 100 100
    sleep 0.5
    kill $NR; wait $NR 2>/dev/null
    grep -q "^A: 35 0 800 " /tmp/nrec.txt && grep -q "^A: 36 0 480 " /tmp/nrec.txt &&
        ok "its axes are HDMI-A-1's natural 800 × 480" || bad "the natural one's axes: $(grep '^A: 3[56]' /tmp/nrec.txt)"
    grep -q "^E: [0-9.]* 0003 0035 0*100[^0-9]" /tmp/nrec.txt && grep -q "^E: [0-9.]* 0003 0036 0*100[^0-9]" /tmp/nrec.txt &&
        ok "with HDMI-A-1 at 270 the panel's (100, 100) is (100, 100) on it: the output's rotation left to the compositor" ||
        bad "the natural one's positions: $(grep '0003 003[56]' /tmp/nrec.txt | head -4 | tr '\n' ' ')"
    kill "$NAT_PID"
fi

kill -TERM $DAEMON
wait $DAEMON; code=$?
[ $code -eq 0 ] && ok "daemon stopped cleanly" || bad "daemon exit code $code"
wait $SUB
kill "$LEFT_PID" "$RIGHT_PID" 2>/dev/null
sed 's/^/VMLOG /' /tmp/daemon.log | grep -v ': debug: ' | tail -40
[ "$fails" -eq 0 ]
