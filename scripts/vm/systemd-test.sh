#!/bin/sh
# Runs inside the QEMU VM booted with systemd as PID 1 (scripts/vm/run --systemd), as the unit
# vmtest.service: the shipped touchd.socket and touchd.service (installed in
# /etc/systemd/system, the config in /etc/touchd/touchd.json) under a real systemd. Checks that
# the socket unit accepts and activates the service, that the socket keeps the group its unit
# gives it, and that it still accepts after each of: a crash (SIGSEGV) and the automatic
# restart, a stop and a start of the service, a reload (systemctl reload: SIGHUP); that
# readiness, the status line and the watchdog pings reach systemd; that the daemon's lines reach
# the journal with their priorities; that the loop runs at SCHED_FIFO 10 under the unit's
# LimitRTPRIO=/LimitRTTIME=, runs on at normal priority where they refuse it (a drop-in with
# LimitRTPRIO=0) and drops to normal priority on the guard's SIGXCPU, doctor saying so each time;
# that the hardening score stays; that the sandbox lets the daemon write a session's backlight
# (a stand-in tree under /sys/devices); that stopping the
# socket unit removes the socket; and, when the package's modules-load.d/touchd.conf is
# included, that systemd-modules-load loaded uinput at boot (scripts/vm/run --systemd leaves it
# to it).
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
T=${TOUCHD_VM_BINARY:-touchd}
SOCK=/run/touchd/touchd.sock
n=0
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for (scripts/vm/lib.sh)
prop() { systemctl show -P "$2" "$1"; }
prop_is() { [ "$(prop "$1" "$2")" = "$3" ]; }        # for wait_for: read again at each try
prop_isnt() { [ "$(prop "$1" "$2")" != "$3" ]; }
# accepts WHAT [USER]: a subscriber connects (as USER, else root) and gets the daemon's hello.
accepts() {
    n=$((n + 1)); out=/tmp/sub.$n
    if [ -n "${2:-}" ]; then
        su -s /bin/sh "$2" -c "exec timeout 60 $T subscribe --socket $SOCK" > $out 2>&1 &
    else
        timeout 60 "$T" subscribe --socket $SOCK > $out 2>&1 &
    fi
    spid=$!
    # Until the hello, or the subscriber gave up (no socket, refused, closed), 60 s at most.
    wait_for 60 sh -c "grep -q '\"type\":\"hello\"' $out || ! kill -0 $spid"
    if grep -q '"type":"hello"' $out; then ok "the socket accepts $1"; else bad "no hello $1: $(cat $out)"; fi
    kill $spid 2>/dev/null; wait $spid 2>/dev/null
}
# uinput at boot (issue 32, item 4): the package's modules-load.d/touchd.conf, read by
# systemd-modules-load in sysinit.target; scripts/vm/run --systemd leaves uinput to it.
if [ -f /usr/lib/modules-load.d/touchd.conf ]; then
    [ "$(prop systemd-modules-load.service Result)" = success ] && [ -d /sys/module/uinput ] && [ -c /dev/uinput ] \
        && ok "uinput loaded at boot by systemd-modules-load from modules-load.d/touchd.conf (/dev/uinput is there)" \
        || bad "uinput not loaded at boot: systemd-modules-load $(prop systemd-modules-load.service ActiveState)/$(prop systemd-modules-load.service Result), /sys/module/uinput $([ -d /sys/module/uinput ] && echo present || echo missing); $(journalctl -b --no-pager -o cat -u systemd-modules-load 2>&1 | tail -3)"
fi
socket_file() { # socket_file WHEN: the socket file is there, root:touchd, 0660
    got=$(stat -c '%F %U:%G %a' $SOCK 2>&1)
    [ "$got" = "socket root:touchd 660" ] && ok "$SOCK is a socket, root:touchd 0660, $1" || bad "$SOCK $1: $got"
}
journal_tail() { # what systemd and the daemon said last, for a failure's reason
    journalctl -b --no-pager -o cat -n 12 _SYSTEMD_UNIT=touchd.service + UNIT=touchd.service + UNIT=touchd.socket 2>&1 | sed 's/^/VMTEST info journal: /'
}
# shellcheck disable=SC2317  # called through wait_for
main_pid_changed() { [ "$(prop touchd.service MainPID)" != "$1" ] && [ "$(prop touchd.service MainPID)" != 0 ]; }

systemctl start touchd.socket
[ "$(prop touchd.socket ActiveState)" = active ] && ok "touchd.socket is listening" || bad "touchd.socket: $(systemctl status touchd.socket 2>&1)"
[ "$(prop touchd.service ActiveState)" = inactive ] && ok "touchd.service waits for a connection" || bad "touchd.service $(prop touchd.service ActiveState) before any connection"
socket_file "from the socket unit"

# 1. A connection starts the service (Type=notify: active once READY=1 arrives).
accepts "and activates touchd.service"
if wait_for 30 prop_is touchd.service ActiveState active; then ok "touchd.service active after its READY=1"; else
    bad "touchd.service $(prop touchd.service ActiveState) ($(prop touchd.service Result), status $(prop touchd.service ExecMainStatus))"; journal_tail
fi
status=$(prop touchd.service StatusText)
case "$status" in "listening on $SOCK"*) ok "STATUS reached systemd: $status" ;; *) bad "StatusText: $status" ;; esac
[ "$(prop touchd.service WatchdogUSec)" = 10s ] && ok "the watchdog is armed (10 s)" || bad "WatchdogUSec $(prop touchd.service WatchdogUSec)"
socket_file "with the service running"
accepts "for a member of group touchd (user kiosk)" kiosk
pid=$(prop touchd.service MainPID)

# 1b. Real-time priority (issue 48): the daemon asks for SCHED_FIFO 10 itself; the unit allows it
# (LimitRTPRIO=20) and sets the guard (LimitRTTIME=200ms:1s). /proc/PID/stat's fields 40 and 41
# are the real-time priority and the policy (1: SCHED_FIFO, 0: SCHED_OTHER).
sched() { awk '{ print $41 " " $40 }' "/proc/$1/stat"; }
[ "$(sched "$pid")" = "1 10" ] && ok "the daemon's loop runs at SCHED_FIFO 10" || bad "policy and priority: $(sched "$pid"); $(journalctl -u touchd.service -o cat | grep -i real-time)"
limits=$(grep -E "Max realtime (priority|timeout)" "/proc/$pid/limits" | tr -s ' ')
case "$limits" in *"Max realtime priority 20 20"*"Max realtime timeout 200000 1000000 us"*) ok "its limits: $(echo "$limits" | tr '\n' ';')" ;;
    *) bad "real-time limits: $limits" ;; esac
"$T" doctor --socket $SOCK --no-grab-test > /tmp/doctor.rt 2>&1
grep -q "^ok: touchd's loop runs at real-time priority (fifo 10)" /tmp/doctor.rt && ok "doctor: the loop runs at real-time priority" || bad "doctor's realtime line: $(grep -i real /tmp/doctor.rt)"
# The guard's handler: SIGXCPU (what the kernel sends at LimitRTTIME's soft limit) puts the loop
# back to normal priority; the daemon goes on, says so in the journal and in stats.
kill -XCPU "$pid"
wait_for 10 sh -c "[ \"\$(awk '{ print \$41 }' /proc/$pid/stat)\" = 0 ]" && ok "SIGXCPU: the loop is back at SCHED_OTHER" || bad "after SIGXCPU: $(sched "$pid")"
wait_for 10 sh -c "journalctl -u touchd.service -o cat | grep -q 'without blocking at real-time priority'" && ok "the journal says the guard demoted it" || bad "no demotion line: $(journalctl -u touchd.service -o cat | tail -3)"
prop_is touchd.service MainPID "$pid" && ok "the same process runs on after SIGXCPU" || bad "MainPID $(prop touchd.service MainPID) after SIGXCPU (was $pid)"
"$T" doctor --socket $SOCK --no-grab-test > /tmp/doctor.rt 2>&1
grep -q "^warning: touchd's loop ran too long without blocking" /tmp/doctor.rt && ok "doctor: a warning for the demotion" || bad "doctor after SIGXCPU: $(grep -i real /tmp/doctor.rt)"
# Refused: a drop-in taking the unit's LimitRTPRIO= away. The service starts all the same, at
# normal priority, with a warning in the journal and in doctor.
mkdir -p /run/systemd/system/touchd.service.d
printf '[Service]\nLimitRTPRIO=0\n' > /run/systemd/system/touchd.service.d/norealtime.conf
systemctl daemon-reload
systemctl restart touchd.service
wait_for 30 prop_is touchd.service ActiveState active && ok "with LimitRTPRIO=0 the service starts all the same" || { bad "LimitRTPRIO=0: $(prop touchd.service ActiveState)"; journal_tail; }
rpid=$(prop touchd.service MainPID)
[ "$(sched "$rpid")" = "0 0" ] && ok "refused: the loop runs at SCHED_OTHER" || bad "refused: $(sched "$rpid")"
journalctl -u touchd.service -o cat | grep -q "warning: real-time priority refused (SCHED_FIFO 10): .*RLIMIT_RTPRIO is 0" && ok "the journal says why it was refused" || bad "no refusal line: $(journalctl -u touchd.service -o cat | grep -i real-time)"
accepts "with real-time refused"
"$T" doctor --socket $SOCK --no-grab-test > /tmp/doctor.rt 2>&1
grep -q "^warning: touchd was refused real-time priority" /tmp/doctor.rt && ok "doctor: a warning for the refusal" || bad "doctor when refused: $(grep -i real /tmp/doctor.rt)"
rm -r /run/systemd/system/touchd.service.d
systemctl daemon-reload
systemctl restart touchd.service
wait_for 30 prop_is touchd.service ActiveState active
pid=$(prop touchd.service MainPID)
[ "$(sched "$pid")" = "1 10" ] && ok "without the drop-in: SCHED_FIFO 10 again" || bad "after the drop-in went: $(sched "$pid")"

# 2. Watchdog pings (every 5 s) reach systemd: past WatchdogSec=10s the same process runs, not
# restarted, and systemd's watchdog timestamp has moved on (without the pings systemd kills it
# with SIGABRT at 10 s and restarts it: seen with UnsetEnvironment=WATCHDOG_USEC).
w0=$(prop touchd.service WatchdogTimestampMonotonic) r0=$(prop touchd.service NRestarts)
sleep 11
if prop_is touchd.service MainPID "$pid" && prop_is touchd.service NRestarts "$r0" && prop_isnt touchd.service WatchdogTimestampMonotonic "$w0"; then
    ok "WATCHDOG=1 pings reach systemd: the same process after 11 s, its watchdog timestamp renewed"
else
    bad "watchdog: MainPID $(prop touchd.service MainPID) (was $pid), NRestarts $(prop touchd.service NRestarts) (was $r0), timestamp $(prop touchd.service WatchdogTimestampMonotonic) (was $w0)"; journal_tail
fi

# 3. A crash: Restart=on-failure starts it again; the socket is still there and accepts.
pid=$(prop touchd.service MainPID)
[ "${pid:-0}" -gt 1 ] && kill -SEGV "$pid" || bad "no main process to crash (MainPID ${pid:-none})"
wait_for 30 main_pid_changed "$pid" && ok "touchd.service restarted after SIGSEGV (NRestarts=$(prop touchd.service NRestarts))" || { bad "no restart after SIGSEGV: $(prop touchd.service ActiveState)"; journal_tail; }
wait_for 30 prop_is touchd.service ActiveState active
socket_file "after the crash and restart"
accepts "after the crash and restart"

# 4. Stop and start the service (the socket unit stays).
systemctl stop touchd.service
[ "$(prop touchd.socket ActiveState)" = active ] && ok "touchd.socket still listening with the service stopped" || bad "touchd.socket $(prop touchd.socket ActiveState)"
socket_file "with the service stopped"
accepts "with the service stopped (activating it again)"
systemctl stop touchd.service
systemctl start touchd.service && ok "systemctl start touchd.service" || bad "systemctl start: $(systemctl status touchd.service 2>&1)"
socket_file "after a stop and a start"
accepts "after a stop and a start"

# 5. A reload: SIGHUP, RELOADING=1 … READY=1; same process, the socket accepts.
pid=$(prop touchd.service MainPID)
systemctl reload touchd.service && ok "systemctl reload touchd.service returned" || bad "systemctl reload: $(systemctl status touchd.service 2>&1)"
[ "$(prop touchd.service MainPID)" = "$pid" ] && [ "$(prop touchd.service ActiveState)" = active ] && ok "same process, active after the reload" || bad "after reload: pid $(prop touchd.service MainPID) (was $pid), $(prop touchd.service ActiveState)"
wait_for 10 sh -c "journalctl -u touchd.service -o cat | grep -q 'touchd: notice: reloaded:'" && ok "the journal has the reload" || bad "no reload line: $(journalctl -u touchd.service -o cat | tail -5)"
accepts "after a reload"

# 6. The journal: the daemon's lines with their syslog priorities (stderr is the journal's
# stream: JOURNAL_STREAM), the "<N>" prefix taken as the priority, not left in the text.
journalctl -u touchd.service -o export > /tmp/journal.export 2>&1
awk '/^PRIORITY=/ { p = substr($0, 10) } /^MESSAGE=touchd: notice: listening on / { print p; exit }' /tmp/journal.export > /tmp/prio
[ "$(cat /tmp/prio)" = 5 ] && ok "'listening on' is in the journal at priority 5 (notice)" || bad "priority of 'listening on': '$(cat /tmp/prio)'; $(grep -c MESSAGE= /tmp/journal.export) messages"
grep -q '^MESSAGE=<' /tmp/journal.export && bad "a message kept its <N> prefix: $(grep '^MESSAGE=<' /tmp/journal.export | head -1)" || ok "no message kept its <N> prefix"
grep -q "^MESSAGE=touchd: info: using the socket passed by systemd (fd 3)" /tmp/journal.export && ok "the daemon used the socket systemd passed (fd 3)" || bad "no 'using the socket passed by systemd' in the journal"

# 7. The hardening score of the loaded unit (systemd-analyze security; lower is better): 1.6 with
# systemd 252, the unit's before and after the dynamic user got a name and RuntimeDirectory= went
# (the host's offline analysis of the file, EndToEndTests.SystemdUnitTests, says 1.8); 1.7 (offline
# 1.9) since RestrictRealtime= went for the real-time priority (issue 48: docs/reliability.md, "The
# hardening score", says why the trade is worth it).
score=$(systemd-analyze security --no-pager touchd.service 2>&1 | sed -n 's/.*Overall exposure level for touchd.service: \([0-9.]*\).*/\1/p')
awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 1.7) }' && ok "systemd-analyze security touchd.service: exposure $score (at most 1.7)" || bad "systemd-analyze security touchd.service: exposure '$score', more than 1.7"

# 8. A session's backlight (issue 44): the unit lets the service write a backlight's bl_power
# and brightness — /sys is read-only for it (ProtectKernelTunables=yes) but /sys/devices, where
# backlights are, is not (ReadWritePaths=), and the attributes' group is the service's
# touchd-backlight. QEMU offers no backlight device, so a stand-in stands where one would: a
# tmpfs mounted over a directory of /sys/devices holding bl_power, brightness and max_brightness,
# given to touchd-backlight 0664 as 70-touchd.rules gives a real panel's (the rule itself needs a
# backlight uevent, which this VM cannot make). The daemon lights it at start, darkens it at
# idle (2 s without a touch: the VM has no touchscreen); without the unit's ReadWritePaths= it
# cannot, and says so.
bl=""
for d in /sys/devices/breakpoint /sys/devices/software /sys/devices/kprobe /sys/devices/tracepoint; do
    [ -d "$d" ] && { bl=$d; break; }
done
if [ -n "$bl" ] && mount -t tmpfs -o size=64k touchd-backlight "$bl"; then
    panel=$bl/touchd-panel
    mkdir "$panel" && printf '4\n' > "$panel/bl_power" && printf '0\n' > "$panel/brightness" && printf '255\n' > "$panel/max_brightness"
    chgrp touchd-backlight "$panel/bl_power" "$panel/brightness" && chmod 0664 "$panel/bl_power" "$panel/brightness"
    cp /etc/touchd/touchd.json /tmp/touchd.json.saved
    printf '{"session": {"idle": 2, "backlight": "%s"}, "windows": []}\n' "$panel" > /etc/touchd/touchd.json
    systemctl restart touchd.service
    wait_for 30 prop_is touchd.service ActiveState active || { bad "touchd.service did not start with a session: $(prop touchd.service ActiveState)"; journal_tail; }
    # shellcheck disable=SC2317  # called through wait_for
    panel_is() { [ "$(cat "$panel/bl_power")" = "$1" ] && [ "$(cat "$panel/brightness")" = "$2" ]; }
    wait_for 10 panel_is 0 255 && ok "the service lit the stand-in backlight at start (bl_power 0, brightness 255: the panel was left dark)" \
        || { bad "the stand-in backlight at start: bl_power $(cat "$panel/bl_power"), brightness $(cat "$panel/brightness")"; journal_tail; }
    wait_for 10 panel_is 4 0 && ok "the service darkened it at idle (bl_power 4, brightness 0) through the unit's sandbox" \
        || { bad "not darkened at idle: bl_power $(cat "$panel/bl_power"), brightness $(cat "$panel/brightness")"; journal_tail; }
    journalctl -u touchd.service -o cat | grep -q "touchd: info: output screen: idle" && ok "the journal has the idle" || bad "no idle in the journal"
    # Without the exception /sys/devices is read-only for the service: it says so at start.
    mkdir -p /run/systemd/system/touchd.service.d
    printf '[Service]\nReadWritePaths=\n' > /run/systemd/system/touchd.service.d/no-sys.conf
    # Stopped first: the daemon lights what it darkened when it stops (so a kiosk whose daemon
    # stopped does not stay dark), which must happen before the panel is set dark by hand.
    systemctl stop touchd.service
    panel_is 0 255 && ok "stopping the service lit the panel it had darkened" \
        || bad "stopping the service left the panel at bl_power $(cat "$panel/bl_power"), brightness $(cat "$panel/brightness")"
    printf '4\n' > "$panel/bl_power"
    systemctl daemon-reload
    systemctl start touchd.service
    wait_for 30 sh -c "journalctl -u touchd.service -o cat | grep -q 'session.backlight $panel: bl_power and brightness are not writable by this process'" \
        && ok "without ReadWritePaths=/sys/devices the service cannot write it, and its warning says so" \
        || { bad "no warning without ReadWritePaths="; journal_tail; }
    [ "$(cat "$panel/bl_power")" = 4 ] && ok "...and bl_power stayed as it was" || bad "bl_power written without the exception: $(cat "$panel/bl_power")"
    rm /run/systemd/system/touchd.service.d/no-sys.conf
    systemctl daemon-reload
    cp /tmp/touchd.json.saved /etc/touchd/touchd.json
    systemctl restart touchd.service
    umount "$bl"
else
    bad "no directory of /sys/devices to stand a backlight in (tried breakpoint, software, kprobe, tracepoint)"
fi

# 9. Stopping both units: RemoveOnStop=yes removes the socket file.
systemctl stop touchd.service touchd.socket
[ ! -e $SOCK ] && ok "stopping touchd.socket removed $SOCK" || bad "$SOCK left after stopping the units: $(ls -l $SOCK)"

echo "VMTEST info systemd run: $(journalctl -u touchd.service -o cat | grep -c 'notice: listening on') daemon start(s)"
exit "$fails"
