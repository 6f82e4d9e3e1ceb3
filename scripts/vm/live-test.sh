#!/bin/sh
# Runs inside the QEMU VM (scripts/vm/run boots it): the real daemon against virtual
# touchscreens made with uinput by evemu-device, fed by evemu-play. Prints
#   VMTEST ok|FAIL <what>          for checks made here, and
#   VMDATA <name> <line>           for data the host compares with `touchd replay` (scripts/vm/check.py).
# TOUCHD_VM_UDEV=1 when udevd runs in the VM, 0 otherwise.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
SOCK=/run/touchd/touchd.sock
CFG=/etc/touchd/touchd.json
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for, plug, vnode (scripts/vm/lib.sh)
dump() { # dump NAME FILE
    while IFS= read -r line; do echo "VMDATA $1 $line"; done < "$2"
}
attached() { grep -q "$1 \"" /tmp/daemon.log && grep "$1 \"" /tmp/daemon.log | grep -q touchscreen; }

echo "VMTEST info udev=$TOUCHD_VM_UDEV kernel $(uname -r)"
mkdir -p /run/touchd
$T devices > /tmp/devices-before.txt 2>&1 || bad "touchd devices failed: $(cat /tmp/devices-before.txt)"

$T run --config $CFG --socket $SOCK --log-level debug 2> /tmp/daemon.log &
DAEMON=$!
wait_for 20 test -S $SOCK || { bad "daemon did not listen: $(cat /tmp/daemon.log)"; }
$T subscribe --socket $SOCK > /tmp/sub.ndjson 2>/tmp/sub.err &
SUB=$!
wait_for 10 grep -q snapshot /tmp/sub.ndjson || bad "subscriber got no snapshot"

# 1. A touchscreen plugged in while the daemon runs (hotplug), played, and recorded.
plug /captures/atmel.events /tmp/plug1.log && {
    NODE1=$NODE
    wait_for 20 attached "$NODE1" && ok "hotplug: $NODE1 attached as a touchscreen" || bad "$NODE1 not attached: $(cat /tmp/daemon.log)"
    if [ "$TOUCHD_VM_UDEV" = 1 ]; then
        grep -q "following input devices through udev events" /tmp/daemon.log && ok "with udevd: the daemon follows udev's events" || bad "udev monitor not used"
    else
        grep -q "following input devices through kernel events" /tmp/daemon.log && ok "without udevd: the daemon follows the kernel's uevents" || bad "kernel monitor not used"
    fi
    $T devices > /tmp/devices.txt 2>&1
    grep -q "touchscreen, protocol B, 10 slots" /tmp/devices.txt && ok "touchd devices lists $NODE1 as protocol B, 10 slots" || bad "touchd devices: $(cat /tmp/devices.txt)"
    if [ "$TOUCHD_VM_UDEV" = 1 ]; then
        grep -q "ID_INPUT_TOUCHSCREEN=1" /tmp/devices.txt && ok "touchd devices shows udev's ID_INPUT_TOUCHSCREEN=1" || bad "no udev properties in: $(cat /tmp/devices.txt)"
    fi
    sed 's/^/VMTEST info devices: /' /tmp/devices.txt
    $T devices --json > /tmp/devices.json 2>&1
    grep -q "\"node\":\"$NODE1\"" /tmp/devices.json && ok "touchd devices --json names $NODE1" || bad "devices --json: $(cat /tmp/devices.json)"
    $T record "$NODE1" -o /tmp/rec1.events 2>/tmp/rec1.log &
    REC=$!
    # Until it says it records (a fixed 0.5 s was too short on a loaded host under TCG: the
    # recording began mid-touch and replayed to nothing).
    wait_for 30 grep -q "touchd record: recording" /tmp/rec1.log || echo "VMTEST info touchd record had not started after 30 s"
    evemu-play "$NODE1" < /captures/atmel.events
    sleep 0.5
    kill -INT $REC; wait $REC
    grep -q "events recorded" /tmp/rec1.log && ok "touchd record wrote $(grep -c '^E:' /tmp/rec1.events) events" || bad "record: $(cat /tmp/rec1.log)"
    echo "VMDATA node1 $NODE1"
}

# 2. A second touchscreen at the same time (hotplug while running).
plug /captures/edt.events /tmp/plug2.log && {
    NODE2=$NODE
    wait_for 20 attached "$NODE2" && ok "second device $NODE2 attached" || bad "$NODE2 not attached"
    $T record "$NODE2" -o /tmp/rec2.yml --format libinput 2>/tmp/rec2.log &
    REC2=$!
    wait_for 30 grep -q "touchd record: recording" /tmp/rec2.log || echo "VMTEST info touchd record had not started after 30 s"
    evemu-play "$NODE2" < /captures/edt.events
    sleep 0.3
    kill -INT $REC2; wait $REC2
    grep -q "events recorded" /tmp/rec2.log && ok "touchd record --format libinput wrote $(grep -c '^    - \[' /tmp/rec2.yml) events" || bad "record libinput: $(cat /tmp/rec2.log)"
    echo "VMDATA node2 $NODE2"
}

# 3. SYN_DROPPED: the daemon is stopped while the kernel's buffer for it overflows, then
#    resumed: libevdev's resync must leave no touch stuck.
plug /captures/atmel.events /tmp/plugx.log && {
    NODEX=$NODE
    wait_for 20 attached "$NODEX" && ok "third device $NODEX attached" || bad "$NODEX not attached"
    # A finger goes down while the daemon reads (the header and first frame of the capture)…
    head -n 127 /captures/atmel.events > /tmp/first-frame.events
    evemu-play "$NODEX" < /tmp/first-frame.events
    sleep 0.5
    # …then, while it is stopped, the whole recording 4 times over: it lifts, others come and go.
    kill -STOP $DAEMON
    for _ in 1 2 3 4; do evemu-play "$NODEX" < /captures/atmel.events; done
    kill -CONT $DAEMON
    wait_for 10 grep -q "SYN_DROPPED" /tmp/daemon.log && ok "SYN_DROPPED seen after the daemon was stopped while $NODEX played 4 × 309 events" || bad "no SYN_DROPPED in the log"
    sleep 0.5
    echo "VMDATA node4 $NODEX"
}

# 4. Unplugged mid-touch: the two fingers of the long capture are down when evemu-device dies.
plug /captures/long.events /tmp/plug3.log && {
    NODE3=$NODE
    wait_for 20 attached "$NODE3" && ok "fourth device $NODE3 attached" || bad "$NODE3 not attached"
    grep -q "$NODE3: grabbed exclusively" /tmp/daemon.log && ok "the config's grab took $NODE3 exclusively (EVIOCGRAB)" || bad "no grab of $NODE3"
    # Grabbed: another reader (evemu-record) gets nothing while the daemon holds it.
    evemu-record "$NODE3" > /tmp/other-reader.txt 2>&1 &
    OTHER=$!
    sleep 0.3
    evemu-play "$NODE3" < /captures/long.events &
    PLAY=$!
    sleep 1.5
    kill "$PLUG_PID"
    wait $PLAY 2>/dev/null
    wait_for 10 grep -q "$NODE3 .*removed" /tmp/daemon.log && ok "unplugged $NODE3: the daemon noticed" || bad "removal of $NODE3 not seen: $(tail -5 /tmp/daemon.log)"
    kill $OTHER 2>/dev/null; wait $OTHER 2>/dev/null
    [ "$(grep -c '^E:' /tmp/other-reader.txt)" = 0 ] && ok "another reader of the grabbed device got no events" || bad "the grab let $(grep -c '^E:' /tmp/other-reader.txt) events through"
    echo "VMDATA node3 $NODE3"
}

# 5. devices[].uinput: a source panel whose entry re-exports its conditioned contacts as a
#    virtual touchscreen. It must exist with INPUT_PROP_DIRECT, the entry's name and touchd's
#    phys; a bounce on the source must be one touch on it; touchd must not attach it; a reload
#    that renames it replaces it; it goes when the source is unplugged. (Its positions are
#    compared with what the subscriber got on the host, scripts/vm/check.py.)
VNAME="touchd re-exported touchscreen"
$T check-config $CFG > /tmp/check-config.txt 2>&1
grep -q "uinput: devices\[2\] as \"$VNAME\"" /tmp/check-config.txt && ok "touchd check-config names the uinput entry" || bad "check-config: $(cat /tmp/check-config.txt)"
plug /captures/uinput-source.desc /tmp/plug6.log && {
    NODE6=$NODE
    wait_for 20 attached "$NODE6" && ok "uinput source $NODE6 attached" || bad "$NODE6 not attached"
    grep -q "$NODE6: grabbed exclusively" /tmp/daemon.log && ok "uinput implies grab: $NODE6 taken exclusively" || bad "no grab of the uinput source $NODE6"
    VNODE=""
    wait_for 20 vnode "$VNAME" && VNODE=$(vnode "$VNAME")
    if [ -n "$VNODE" ]; then
        ok "virtual touchscreen \"$VNAME\" is $VNODE"
        SYS=/sys/class/input/${VNODE##*/}/device
        # INPUT_PROP_DIRECT is bit 1 of the properties bitmap.
        [ "$(cat "$SYS"/properties)" = 2 ] && ok "it has INPUT_PROP_DIRECT (properties $(cat "$SYS"/properties))" || bad "its properties are $(cat "$SYS"/properties)"
        [ "$(cat "$SYS"/phys)" = touchd-uinput ] && ok "its phys is touchd-uinput" || bad "its phys is \"$(cat "$SYS"/phys)\""
        wait_for 10 grep -q "$VNODE .*touchd's own virtual touchscreen" /tmp/daemon.log &&
            ok "the daemon skipped its own $VNODE: $(grep "$VNODE .*touchd's own" /tmp/daemon.log | head -1 | sed 's/^touchd: [a-z]*: //')" ||
            bad "no sign the daemon skipped $VNODE: $(grep "$VNODE" /tmp/daemon.log)"
        grep "$VNODE \"" /tmp/daemon.log | grep -q touchscreen, && bad "the daemon attached its own $VNODE" || ok "the daemon did not attach its own $VNODE"
        # Startup enumeration skips it too, whatever the match rules: a second daemon (a config
        # whose one entry matches every device, another socket) started and stopped now.
        echo '{"devices": [{"match": {"name": "*"}}], "windows": [{"id": "w", "frame": [0, 0, 800, 480]}]}' > /tmp/probe.json
        $T run --config /tmp/probe.json --socket /run/touchd/probe.sock --log-level debug 2> /tmp/probe.log &
        PROBE=$!
        wait_for 20 test -S /run/touchd/probe.sock || bad "the second daemon did not listen: $(cat /tmp/probe.log)"
        kill -TERM $PROBE; wait $PROBE
        grep -q "$VNODE .*touchd's own virtual touchscreen" /tmp/probe.log && ! grep "$VNODE \"" /tmp/probe.log | grep -q touchscreen, &&
            ok "a daemon starting now skips $VNODE when it enumerates the devices" || bad "a daemon starting now: $(grep "$VNODE" /tmp/probe.log)"
        evemu-record "$VNODE" > /tmp/vrec.txt 2>&1 &
        VREC=$!
        LI=""
        if command -v libinput >/dev/null && [ "$TOUCHD_VM_UDEV" = 1 ]; then
            libinput debug-events --device "$VNODE" > /tmp/libinput.txt 2>&1 &
            LI=$!
        else
            echo "VMTEST info libinput debug-events: not run ($(command -v libinput >/dev/null && echo "libinput needs udevd's properties" || echo "not in this VM"))"
        fi
        # Both readers must have the device open before the first touch: libinput takes seconds
        # to start in an emulated arm64 VM, and opened mid-touch it reports that touch from
        # where it is then (a fixed second was not enough there).
        wait_for 60 grep -q "^N:" /tmp/vrec.txt || echo "VMTEST info evemu-record had not described $VNODE after 60 s"
        if [ -n "$LI" ]; then
            wait_for 60 grep -q DEVICE_ADDED /tmp/libinput.txt || echo "VMTEST info libinput debug-events had not added $VNODE after 60 s"
        fi
        sleep 0.2
        evemu-play "$NODE6" < /captures/uinput-touches.events
        sleep 0.5
        kill $VREC; wait $VREC 2>/dev/null
        [ -n "$LI" ] && { kill -INT $LI; wait $LI 2>/dev/null; }
        grep -q "^N: $VNAME" /tmp/vrec.txt && grep -q "^P: 02 00" /tmp/vrec.txt && ok "evemu-record: \"$VNAME\", INPUT_PROP_DIRECT" || bad "evemu-record's description: $(grep '^[NIP]:' /tmp/vrec.txt)"
        grep -q "^A: 35 0 800 0 0 8" /tmp/vrec.txt && grep -q "^A: 36 0 480 0 0 8" /tmp/vrec.txt &&
            ok "its axes are the screen's points (0…800, 0…480) at the source's 8 units/mm" || bad "its axes: $(grep '^A:' /tmp/vrec.txt)"
        ids=$(grep -c '^E: [0-9.]* 0003 0039 [0-9]' /tmp/vrec.txt)
        [ "$ids" = 3 ] && ok "the source's 4 tracking ids (one a 20 ms bounce) are 3 touches on the virtual touchscreen" || bad "$ids tracking ids on the virtual touchscreen (expected 3: the bounce is one touch)"
        [ "$(grep '^E: [0-9.]* 0001 014a' /tmp/vrec.txt | awk '{ printf "%d", $5 }')" = 1010 ] && ok "BTN_TOUCH went down and up twice" ||
            bad "BTN_TOUCH: $(grep '^E: [0-9.]* 0001 014a' /tmp/vrec.txt | awk '{ printf "%d ", $5 }')"
        dump vrec /tmp/vrec.txt
        [ -f /tmp/libinput.txt ] && dump libinput /tmp/libinput.txt
        echo "VMDATA node6 $NODE6"
        # A reload that renames the virtual touchscreen replaces it.
        sed -i "s/\"$VNAME\"/\"touchd renamed touchscreen\"/" $CFG
        kill -HUP $DAEMON
        RNODE=""
        wait_for 20 vnode "touchd renamed touchscreen" && ! vnode "$VNAME" >/dev/null && RNODE=$(vnode "touchd renamed touchscreen")
        [ -n "$RNODE" ] && ok "a reload that renamed it replaced it with $RNODE" || bad "after the reload: $(cat /sys/class/input/event*/device/name | tr '\n' ',')"
        kill "$PLUG_PID"
        [ -n "$RNODE" ] && wait_for 20 sh -c "! test -e $RNODE" && ok "unplugging the source removed its virtual touchscreen $RNODE" || bad "${RNODE:-the renamed virtual touchscreen} is still there after the unplugging"
        # Plugged in again: a new virtual touchscreen, which the shutdown must remove (step 6).
        plug /captures/uinput-source.desc /tmp/plug6b.log && {
            echo "VMDATA node6b $NODE"
            VNODE2=""
            wait_for 20 vnode "touchd renamed touchscreen" && VNODE2=$(vnode "touchd renamed touchscreen")
            [ -n "$VNODE2" ] && ok "plugged in again: virtual touchscreen $VNODE2" || bad "plugged in again: no virtual touchscreen"
        }
    else
        bad "no virtual touchscreen \"$VNAME\": $(grep -i uinput /tmp/daemon.log)"
        kill "$PLUG_PID"
    fi
}

# 6. Clean stop.
sleep 0.3
kill -TERM $DAEMON
wait $DAEMON; code=$?
[ $code -eq 0 ] && ok "daemon stopped cleanly on SIGTERM" || bad "daemon exit code $code"
if [ -n "${VNODE2:-}" ]; then
    wait_for 10 sh -c "! test -e $VNODE2" && ok "the shutdown removed the virtual touchscreen $VNODE2" || bad "$VNODE2 is still there after the shutdown"
    kill "$PLUG_PID"
fi
wait $SUB
[ -S $SOCK ] && bad "socket file left behind" || ok "socket file removed"
grep -q '"type":"bye"' /tmp/sub.ndjson && ok "subscriber told goodbye" || bad "no bye"

# 7. touchd calibrate on a live device (the daemon stopped): five taps at its targets.
plug /captures/panel.desc /tmp/plug5.log && {
    NODE5=$NODE
    $T calibrate --config $CFG "$NODE5" > /tmp/calibrate.out 2> /tmp/calibrate.err &
    CAL=$!
    # Taps played before calibrate has opened the device are lost (it would wait for ever): wait
    # until it asks for the first target (a fixed 0.5 s was too short for the arm64 VM with udevd).
    wait_for 30 grep -q "target 1 of" /tmp/calibrate.err || bad "calibrate never asked for a target: $(cat /tmp/calibrate.err)"
    evemu-play "$NODE5" < /captures/calibrate.events
    wait_for 10 sh -c "! kill -0 $CAL" || kill $CAL
    wait $CAL; code=$?
    [ $code -eq 0 ] && ok "touchd calibrate took five taps on a live device" || bad "touchd calibrate exited $code: $(cat /tmp/calibrate.err)"
    grep -q "target 5 of 5" /tmp/calibrate.err && ok "it asked for each target in turn" || bad "targets not shown: $(cat /tmp/calibrate.err)"
    echo "VMDATA calibrate $(head -1 /tmp/calibrate.out)"
    kill "$PLUG_PID"
}

# 8. No /dev/uinput: a daemon that cannot make the virtual touchscreen says so, naming the
#    entry, and still publishes the source's touches (the source is there when it starts:
#    startup enumeration).
plug /captures/uinput-source.desc /tmp/plug8.log && {
    NODE8=$NODE
    mv /dev/uinput /dev/uinput.hidden
    $T run --config $CFG --socket /run/touchd/t8.sock 2> /tmp/daemon8.log &
    D8=$!
    wait_for 20 test -S /run/touchd/t8.sock || bad "the daemon without /dev/uinput did not listen: $(cat /tmp/daemon8.log)"
    $T subscribe --socket /run/touchd/t8.sock > /tmp/sub8.ndjson 2>/tmp/sub8.err &
    S8=$!
    wait_for 10 grep -q snapshot /tmp/sub8.ndjson
    wait_for 10 grep -q "devices\[2\].uinput: no virtual touchscreen" /tmp/daemon8.log &&
        ok "without /dev/uinput: $(grep "devices\[2\].uinput: no virtual" /tmp/daemon8.log | sed 's/^touchd: //')" || bad "no error naming devices[2].uinput: $(cat /tmp/daemon8.log)"
    evemu-play "$NODE8" < /captures/uinput-touches.events
    sleep 0.5
    began=$(grep -o '"phase":"began"' /tmp/sub8.ndjson | wc -l)
    [ "$began" -eq 3 ] && ok "and it still published the source's 3 touches on its socket" || bad "without /dev/uinput the subscriber saw $began touches begin: $(tail -3 /tmp/sub8.ndjson)"
    kill -TERM $D8; wait $D8; code=$?
    [ $code -eq 0 ] && ok "and stopped cleanly" || bad "the daemon without /dev/uinput exited $code"
    wait $S8
    mv /dev/uinput.hidden /dev/uinput
    kill "$PLUG_PID"
}

dump sub /tmp/sub.ndjson
[ -f /tmp/rec1.events ] && dump rec1 /tmp/rec1.events
[ -f /tmp/rec2.yml ] && dump rec2 /tmp/rec2.yml
sed 's/^/VMLOG /' /tmp/daemon.log
[ "$fails" -eq 0 ]
