#!/bin/sh
# Runs inside the QEMU VM booted with systemd as PID 1 (scripts/vm/run --systemd), as the unit
# vmtest.service: touchd's Debian package (/debs/touchd.deb) installed, upgraded, removed and
# purged by the VM's dpkg and apt (scripts/deb-test puts them, perl-base, deb-systemd-helper and
# deb-systemd-invoke there, and a dpkg database holding the packages touchd depends on). Checks
# what debhelper's maintainer scripts do under a real systemd: installing enables and starts
# nothing (dh_installsystemd --no-enable --no-start); once enabled and started, an upgrade (the
# same package installed again) restarts the running touchd; `apt-get remove` stops the
# service and the socket (no touchd left running, the socket gone) and keeps the conffile;
# `apt-get purge` leaves nothing: no file or directory of the package, no conffile, no unit
# symlink, no state of deb-systemd-helper, no dpkg record.
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
set -u
# shellcheck source=scripts/vm/lib.sh
. /vm-lib.sh   # ok, bad, wait_for (scripts/vm/lib.sh)
DEB=/debs/touchd.deb
export DEBIAN_FRONTEND=noninteractive
prop() { systemctl show -P "$2" "$1"; }
# A step that hangs says what systemd was doing instead of running into the VM's timeout.
# shellcheck disable=SC2009   # busybox has no pgrep -a
stuck() { [ "$2" -ne 124 ] || echo "VMTEST info $1 did not finish in 120 s: jobs $(systemctl list-jobs --no-legend 2>&1 | tr '\n' ';') processes $(ps -o pid,args | grep -v '\[' | tr '\n' ';')"; }
running() { pidof touchd >/dev/null; }

if timeout 120 dpkg -i $DEB > /tmp/install.log 2>&1 || { stuck "dpkg -i" $?; false; }; then ok "dpkg -i touchd.deb (its Depends met by the VM's dpkg database)"
else bad "dpkg -i touchd.deb: $(cat /tmp/install.log)"; fi
[ "$(dpkg-query -W -f='${Status}' touchd 2>/dev/null)" = "install ok installed" ] && ok "dpkg: touchd is installed" \
    || bad "dpkg: touchd is $(dpkg-query -W -f='${Status}' touchd 2>&1)"
dpkg-query -L touchd > /tmp/touchd.files 2>&1
grep -x /usr/bin/touchd /tmp/touchd.files >/dev/null && ok "dpkg -L touchd lists /usr/bin/touchd ($(wc -l < /tmp/touchd.files) paths)" \
    || bad "dpkg -L touchd: $(cat /tmp/touchd.files)"
[ "$(prop touchd.service ActiveState)" = inactive ] && [ "$(prop touchd.socket ActiveState)" = inactive ] && ! running \
    && ok "installing started nothing (touchd.service and touchd.socket inactive)" \
    || bad "installing started something: service $(prop touchd.service ActiveState), socket $(prop touchd.socket ActiveState), pids $(pidof touchd)"
[ "$(prop touchd.service UnitFileState)" = disabled ] && ok "installing enabled nothing (touchd.service disabled)" \
    || bad "touchd.service is $(prop touchd.service UnitFileState) after installing"

systemctl enable --now touchd.socket touchd.service > /tmp/enable.log 2>&1 || bad "systemctl enable --now: $(cat /tmp/enable.log)"
# shellcheck disable=SC2016   # the inner sh expands it, at each try
wait_for 60 sh -c '[ "$(systemctl show -P ActiveState touchd.service)" = active ]'
pid1=$(prop touchd.service MainPID)
[ "$(prop touchd.service ActiveState)" = active ] && [ "$pid1" -gt 0 ] && [ -S /run/touchd/touchd.sock ] \
    && ok "systemctl enable --now touchd.socket touchd.service: running (pid $pid1), the socket there" \
    || bad "touchd did not start: $(prop touchd.service ActiveState) pid $pid1; $(journalctl -u touchd.service --no-pager | tail -5)"

# An upgrade: dpkg configures the package with the version it replaces ($2), and the postinst
# restarts the running service (try-restart).
timeout 120 dpkg -i $DEB > /tmp/upgrade.log 2>&1 || { stuck "dpkg -i (upgrade)" $?; bad "dpkg -i touchd.deb again: $(cat /tmp/upgrade.log)"; }
wait_for 60 sh -c "p=\$(systemctl show -P MainPID touchd.service); [ \"\$p\" -gt 0 ] && [ \"\$p\" != $pid1 ]"
pid2=$(prop touchd.service MainPID)
[ "$(prop touchd.service ActiveState)" = active ] && [ "$pid2" -gt 0 ] && [ "$pid2" != "$pid1" ] \
    && ok "an upgrade restarted the running touchd (pid $pid1, then $pid2)" \
    || bad "after an upgrade: $(prop touchd.service ActiveState), pid $pid1 then $pid2; dpkg said: $(cat /tmp/upgrade.log)"

if timeout 120 apt-get remove -y touchd > /tmp/remove.log 2>&1 || { stuck "apt-get remove" $?; false; }; then ok "apt-get remove touchd"; else bad "apt-get remove touchd: $(cat /tmp/remove.log)"; fi
wait_for 30 sh -c '! pidof touchd >/dev/null'
[ "$(prop touchd.service ActiveState)" != active ] && ! running \
    && ok "apt-get remove stopped the service (no touchd running)" \
    || bad "touchd still runs after apt-get remove: $(prop touchd.service ActiveState), pids $(pidof touchd)"
[ "$(prop touchd.socket ActiveState)" != active ] && [ ! -e /run/touchd/touchd.sock ] \
    && ok "apt-get remove stopped the socket (/run/touchd/touchd.sock gone)" \
    || bad "the socket after apt-get remove: $(prop touchd.socket ActiveState); $(ls -l /run/touchd 2>&1)"
[ ! -e /usr/bin/touchd ] && [ -f /etc/touchd/touchd.json ] \
    && ok "apt-get remove: /usr/bin/touchd gone, the conffile /etc/touchd/touchd.json kept" \
    || bad "apt-get remove: $(ls -l /usr/bin/touchd /etc/touchd 2>&1)"
[ "$(dpkg-query -W -f='${Status}' touchd 2>/dev/null)" = "deinstall ok config-files" ] && ok "dpkg: touchd's config-files remain" \
    || bad "dpkg after remove: $(dpkg-query -W -f='${Status}' touchd 2>&1)"

if timeout 120 apt-get purge -y touchd > /tmp/purge.log 2>&1 || { stuck "apt-get purge" $?; false; }; then ok "apt-get purge touchd"; else bad "apt-get purge touchd: $(cat /tmp/purge.log)"; fi
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
[ -z "$links" ] && ok "apt-get purge removed the units' symlinks under /etc/systemd/system" || bad "after purge: $links"
state=$(find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked -name '*touchd*' 2>/dev/null)
[ -z "$state" ] && ok "apt-get purge left no deb-systemd-helper state" || bad "deb-systemd-helper state after purge: $state"
info=$(ls /var/lib/dpkg/info/touchd.* 2>/dev/null)
[ -z "$info" ] && ! dpkg-query -W touchd >/dev/null 2>&1 && ok "dpkg no longer knows touchd (no /var/lib/dpkg/info/touchd.*)" \
    || bad "dpkg after purge: $(dpkg-query -W -f='${Status}' touchd 2>&1) $info"
[ "$(prop touchd.service LoadState)" = not-found ] && ok "systemd no longer has touchd.service" || bad "touchd.service after purge: $(prop touchd.service LoadState)"
[ "$fails" -eq 0 ]
