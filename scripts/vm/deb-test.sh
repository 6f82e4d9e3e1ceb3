#!/bin/sh
# Runs inside the QEMU VM booted with systemd as PID 1 (scripts/vm/run --systemd), as the unit
# vmtest.service: touchd's Debian package installed, upgraded, removed and purged by the VM's
# apt-get and dpkg as on a Debian system. scripts/deb-test puts there the package
# (/debs/touchd_VERSION_amd64.deb), a later version of it (/debs/touchd_VERSION+vmupgrade1_amd64.deb,
# the same files and maintainer scripts) and the tree of scripts/vm/dpkg-root.py: the host's
# dpkg, tar, apt, perl-base, init-system-helpers (deb-systemd-helper, deb-systemd-invoke),
# libc-bin, dash as /bin/sh (so `dpkg` is dpkg, not busybox's applet) and a dpkg database of the
# packages touchd depends on. Checks what debhelper's maintainer scripts do under a real
# systemd: `apt-get install ./touchd_….deb` (docs/install.md's way) enables and starts nothing
# (dh_installsystemd --no-enable) and records the units' symlinks for purge
# (deb-systemd-helper's state); once enabled and started, an upgrade restarts the running
# touchd; `apt-get remove` stops the service and the socket (no touchd left running, the
# socket gone) and keeps the conffile /etc/touchd/touchd.json; `apt-get purge` leaves nothing:
# no file or directory of the package, no conffile, no unit symlink, no state of
# deb-systemd-helper, no dpkg record.
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad (scripts/vm/lib.sh)
export DEBIAN_FRONTEND=noninteractive
prop() { systemctl show -P "$2" "$1"; }
# A step that hangs says what systemd was doing instead of running into the VM's timeout.
# shellcheck disable=SC2009   # busybox has no pgrep -a
stuck() { [ "$2" -ne 124 ] || echo "VMTEST info $1 did not finish in 300 s: jobs $(systemctl list-jobs --no-legend 2>&1 | tr '\n' ';') processes $(ps -o pid,args | grep -v '\[' | tr '\n' ';')"; }
running() { pidof touchd >/dev/null; }
status() { dpkg-query -W -f='${Status} ${Version}' touchd 2>&1; }
# within SECONDS CONDITION: waits until the shell condition holds, SECONDS of the clock at most
# (lib.sh's wait_for counts tries, each a few systemctl calls here, which a loaded host makes long).
within() { timeout "$1" sh -c "until $2; do sleep 0.2; done" >/dev/null 2>&1; }
STATE=/var/lib/systemd/deb-systemd-helper-enabled

# The shell is Debian's: dash as /bin/sh, whose `dpkg` is the one on PATH.
[ "$(readlink /proc/$$/exe)" = /usr/bin/sh ] && dpkg --version 2>/dev/null | grep -q "^Debian 'dpkg'" \
    && ok "this shell is dash and its dpkg is Debian's ($(dpkg --version | head -1 | sed 's/.*version //'))" \
    || bad "the shell's dpkg is not Debian's: $(dpkg --version 2>&1 | head -2)"
# apt's methods run as _apt: the user apt's postinst makes on a Debian system.
grep -q '^_apt:' /etc/passwd || echo '_apt:x:42:65534::/nonexistent:/usr/sbin/nologin' >> /etc/passwd
for deb in /debs/touchd_*_amd64.deb; do
    case "$deb" in *+vmupgrade1_*) NEW=$deb ;; *) OLD=$deb ;; esac
done
V1=$(dpkg-deb -f "$OLD" Version) V2=$(dpkg-deb -f "$NEW" Version)

if timeout 300 apt-get install -y "$OLD" > /tmp/install.log 2>&1 || { stuck "apt-get install" $?; false; }; then
    ok "apt-get install ./touchd_${V1}_amd64.deb (its Depends met by the VM's dpkg database)"
else
    bad "apt-get install: $(cat /tmp/install.log)"
fi
[ "$(status)" = "install ok installed $V1" ] && ok "dpkg: touchd $V1 is installed" || bad "dpkg: touchd is $(status)"
dpkg-query -L touchd > /tmp/touchd.files 2>&1
grep -x /usr/bin/touchd /tmp/touchd.files >/dev/null && ok "dpkg -L touchd lists /usr/bin/touchd ($(wc -l < /tmp/touchd.files) paths)" \
    || bad "dpkg -L touchd: $(cat /tmp/touchd.files)"
dpkg-query -W -f='${Conffiles}\n' touchd | grep -q '^ /etc/touchd/touchd.json [0-9a-f]\{32\}$' \
    && ok "dpkg records /etc/touchd/touchd.json as a conffile, with its md5sum" || bad "touchd's conffiles: $(dpkg-query -W -f='${Conffiles}' touchd 2>&1)"
[ "$(prop touchd.service ActiveState)" = inactive ] && [ "$(prop touchd.socket ActiveState)" = inactive ] && ! running \
    && ok "installing started nothing (touchd.service and touchd.socket inactive)" \
    || bad "installing started something: service $(prop touchd.service ActiveState), socket $(prop touchd.socket ActiveState), pids $(pidof touchd)"
[ "$(prop touchd.service UnitFileState)" = disabled ] && [ "$(prop touchd.socket UnitFileState)" = disabled ] \
    && ok "installing enabled nothing (touchd.service and touchd.socket disabled)" \
    || bad "after installing: touchd.service $(prop touchd.service UnitFileState), touchd.socket $(prop touchd.socket UnitFileState)"
# deb-systemd-helper update-state: the links an enable makes, recorded for purge to remove.
grep -qx /etc/systemd/system/multi-user.target.wants/touchd.service $STATE/touchd.service.dsh-also 2>/dev/null \
    && grep -qx /etc/systemd/system/sockets.target.wants/touchd.socket $STATE/touchd.socket.dsh-also 2>/dev/null \
    && ok "deb-systemd-helper recorded the units' links for purge: $(cat $STATE/touchd.service.dsh-also $STATE/touchd.socket.dsh-also | tr '\n' ' ')" \
    || bad "deb-systemd-helper's state: $(find $STATE 2>&1 | tr "\n" " ")"
[ -d /run/touchd ] && ok "/run/touchd made (systemd-tmpfiles --create touchd.conf)" || bad "no /run/touchd after installing"

systemctl enable --now touchd.socket touchd.service > /tmp/enable.log 2>&1 || bad "systemctl enable --now: $(cat /tmp/enable.log)"
# shellcheck disable=SC2016   # the inner sh expands it, at each try
within 60 '[ "$(systemctl show -P ActiveState touchd.service)" = active ]'
pid1=$(prop touchd.service MainPID)
[ "$(prop touchd.service ActiveState)" = active ] && [ "$pid1" -gt 0 ] && [ -S /run/touchd/touchd.sock ] \
    && ok "systemctl enable --now touchd.socket touchd.service: running (pid $pid1), the socket there" \
    || bad "touchd did not start: $(prop touchd.service ActiveState) pid $pid1; $(journalctl -u touchd.service --no-pager | tail -5)"

# An upgrade: dpkg runs the old prerm (upgrade), unpacks, and configures the new version with
# the one it replaces ($2 of the postinst), which restarts the running service.
if timeout 300 apt-get install -y "$NEW" > /tmp/upgrade.log 2>&1 || { stuck "apt-get install (upgrade)" $?; false; }; then
    ok "apt-get install ./touchd_${V2}_amd64.deb: an upgrade from $V1"
else
    bad "the upgrade: $(cat /tmp/upgrade.log)"
fi
[ "$(status)" = "install ok installed $V2" ] && ok "dpkg: touchd $V2 is installed" || bad "dpkg after the upgrade: $(status)"
within 60 "p=\$(systemctl show -P MainPID touchd.service); [ \"\$p\" -gt 0 ] && [ \"\$p\" != $pid1 ]"
pid2=$(prop touchd.service MainPID)
[ "$(prop touchd.service ActiveState)" = active ] && [ "$pid2" -gt 0 ] && [ "$pid2" != "$pid1" ] && ! kill -0 "$pid1" 2>/dev/null \
    && ok "the upgrade restarted the running touchd (pid $pid1, then $pid2)" \
    || bad "after the upgrade: $(prop touchd.service ActiveState), pid $pid1 then $pid2; apt-get said: $(cat /tmp/upgrade.log)"
[ "$(prop touchd.socket ActiveState)" = active ] && [ -S /run/touchd/touchd.sock ] && [ "$(prop touchd.service UnitFileState)" = enabled ] \
    && ok "after the upgrade the socket listens and the units are still enabled" \
    || bad "after the upgrade: socket $(prop touchd.socket ActiveState), service $(prop touchd.service UnitFileState); $(ls -l /run/touchd 2>&1)"

if timeout 300 apt-get remove -y touchd > /tmp/remove.log 2>&1 || { stuck "apt-get remove" $?; false; }; then ok "apt-get remove touchd"; else bad "apt-get remove touchd: $(cat /tmp/remove.log)"; fi
# Stopped by the prerm, before apt-get returns: inactive, not failed. (Left running, touchd
# would be killed some seconds later anyway: once its unit file is gone and systemd reloaded,
# its watchdog pings are refused, and it ends "failed" with result watchdog.)
[ "$(prop touchd.service ActiveState)" = inactive ] && ! running \
    && ok "apt-get remove stopped the service (inactive, no touchd running, as apt-get returned)" \
    || bad "after apt-get remove: touchd.service $(prop touchd.service ActiveState) ($(prop touchd.service Result)), pids $(pidof touchd)"
[ "$(prop touchd.socket ActiveState)" = inactive ] && [ ! -e /run/touchd/touchd.sock ] \
    && ok "apt-get remove stopped the socket (/run/touchd/touchd.sock gone)" \
    || bad "the socket after apt-get remove: $(prop touchd.socket ActiveState); $(ls -l /run/touchd 2>&1)"
[ ! -e /usr/bin/touchd ] && [ -f /etc/touchd/touchd.json ] \
    && ok "apt-get remove: /usr/bin/touchd gone, the conffile /etc/touchd/touchd.json kept" \
    || bad "apt-get remove: $(ls -l /usr/bin/touchd /etc/touchd 2>&1)"
[ "$(status)" = "deinstall ok config-files $V2" ] && ok "dpkg: touchd's config-files remain" || bad "dpkg after remove: $(status)"

if timeout 300 apt-get purge -y touchd > /tmp/purge.log 2>&1 || { stuck "apt-get purge" $?; false; }; then ok "apt-get purge touchd"; else bad "apt-get purge touchd: $(cat /tmp/purge.log)"; fi
left=""
while read -r f; do
    [ "$f" != "/." ] || continue
    if [ -L "$f" ] && [ -d "$f" ]; then continue; fi   # /lib: the merged /usr's symlink, not the package's
    if [ -d "$f" ] && [ ! -L "$f" ]; then
        [ -z "$(ls -A "$f")" ] && left="$left $f(empty directory)"
    elif [ -e "$f" ] || [ -L "$f" ]; then
        left="$left $f"
    fi
done < /tmp/touchd.files
[ -z "$left" ] && ok "apt-get purge left none of the $(wc -l < /tmp/touchd.files) paths of dpkg -L touchd" || bad "left after purge:$left"
[ ! -e /etc/touchd ] && ok "apt-get purge removed /etc/touchd" || bad "after purge: $(ls -la /etc/touchd 2>&1)"
links=$(find /etc/systemd/system -name 'touchd*' 2>/dev/null)
[ -z "$links" ] && ok "apt-get purge removed the units' symlinks that systemctl enable made under /etc/systemd/system" || bad "after purge: $links"
state=$(find $STATE /var/lib/systemd/deb-systemd-helper-masked -name '*touchd*' 2>/dev/null)
[ -z "$state" ] && ok "apt-get purge left no deb-systemd-helper state" || bad "deb-systemd-helper state after purge: $state"
info=$(ls /var/lib/dpkg/info/touchd.* 2>/dev/null)
[ -z "$info" ] && ! dpkg-query -W touchd >/dev/null 2>&1 && ok "dpkg no longer knows touchd (no /var/lib/dpkg/info/touchd.*)" \
    || bad "dpkg after purge: $(status) $info"
[ "$(prop touchd.service LoadState)" = not-found ] && [ "$(prop touchd.socket LoadState)" = not-found ] \
    && ok "systemd no longer has touchd.service or touchd.socket" \
    || bad "after purge: touchd.service $(prop touchd.service LoadState), touchd.socket $(prop touchd.socket LoadState)"
# What apt-get and dpkg warned of, if anything (a Debian system warns of nothing here).
grep -h '^W: \|^E: \|warning' /tmp/install.log /tmp/upgrade.log /tmp/remove.log /tmp/purge.log 2>/dev/null | sed 's/^/VMTEST info apt-get: /'
[ "$fails" -eq 0 ]
