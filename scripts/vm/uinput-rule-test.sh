#!/bin/sh
# Runs inside the QEMU VM with udevd (scripts/vm/run --udev), the package's udev rule installed
# as /etc/udev/rules.d/70-touchd.rules and its groups made (scripts/vm/run makes those of
# touchd.sysusers.conf): after udev's coldplug, /dev/uinput belongs to group touchd-uinput, mode
# 0660 (issue 32, item 4: the only rule offered gave it to input). scripts/vm/e2e runs it.
# Prints VMTEST ok / VMTEST FAIL lines; exits non-zero if anything failed.
case "${1:-}" in -h|--help) awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;; esac
fails=0
got=$(stat -c '%U:%G %a' /dev/uinput 2>&1)
if [ "$got" = "root:touchd-uinput 660" ]; then
    echo "VMTEST ok /dev/uinput is root:touchd-uinput 0660 under udevd with 70-touchd.rules"
else
    echo "VMTEST FAIL /dev/uinput is $got, not root:touchd-uinput 660"; fails=1
fi
grep -q '^touchd-uinput:' /etc/group || { echo "VMTEST FAIL no group touchd-uinput in the VM"; fails=1; }
exit $fails
