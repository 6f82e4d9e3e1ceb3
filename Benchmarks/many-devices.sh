#!/usr/bin/env bash
# Many devices in one capture: N copies of a one-finger drag (elan-cando, Tests/Fixtures) in one
# evemu file, every device holding a touch at once, replayed on the plain 800×480 scene. Prints
# the wall time and peak RSS per N: the engine's per-frame work should not grow with the number
# of devices (issue 21: 2,000 devices 5.4 s, 4,000 over 20 s).
#
#   Benchmarks/many-devices.sh BINARY [N]...      (default N: 100 200 400 800)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
binary=$1; shift
counts=("$@"); [ ${#counts[@]} -gt 0 ] || counts=(100 200 400 800)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
desc=Tests/Fixtures/captures/elan-cando_1-finger-drag.desc
events=Tests/Fixtures/captures/elan-cando_1-finger-drag.events
for n in "${counts[@]}"; do
  for _ in $(seq "$n"); do cat "$desc" "$events"; done > "$dir/m.evemu"
  /usr/bin/time -f "$n devices: %e s, peak RSS %M KiB" "$binary" replay --config Tests/Fixtures/facts-800x480.json "$dir/m.evemu" 2>&1 >/dev/null | tail -1
done
