#!/usr/bin/env bash
# Many devices in one capture: N copies of a one-finger drag (elan-cando, Tests/Fixtures: 322
# frames each) in one evemu file, every device holding a touch at once, replayed on the plain
# 800×480 scene. Prints, per N, the frames, the CPU time (user + system, so the machine's other
# load counts little), the CPU per 1,000 frames and its ratio to the smallest N's, and the peak
# RSS. The engine's per-frame work does not grow with the number of devices (issue 28, item 8:
# a frame visits the touches it changes, not every touch down); what still grows is the input
# itself (the whole file is parsed into memory, and frames that visit thousands of devices in
# turn miss the caches more).
#
#   Benchmarks/many-devices.sh BINARY [N]...      (default N: 250 500 1000 2000 4000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
binary=$1; shift
counts=("$@"); [ ${#counts[@]} -gt 0 ] || counts=(250 500 1000 2000 4000)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
desc=Tests/Fixtures/captures/elan-cando_1-finger-drag.desc
events=Tests/Fixtures/captures/elan-cando_1-finger-drag.events
per=$(grep -c " 0000 0000 0$" "$events")
base=""
for n in "${counts[@]}"; do
  for _ in $(seq "$n"); do cat "$desc" "$events"; done > "$dir/m.evemu"
  read -r cpu rss < <(/usr/bin/time -f "%U %S %M" "$binary" replay --config Tests/Fixtures/facts-800x480.json "$dir/m.evemu" 2>&1 >/dev/null \
                     | tail -1 | awk '{print $1 + $2, $3}')
  frames=$((n * per))
  per1000=$(awk -v c="$cpu" -v f="$frames" 'BEGIN { printf "%.4f", c * 1000 / f }')
  [ -n "$base" ] || base=$per1000
  ratio=$(awk -v p="$per1000" -v b="$base" 'BEGIN { printf "%.2f", p / b }')
  echo "$n devices: $frames frames, CPU $cpu s, $per1000 s per 1,000 frames (×$ratio of the first), peak RSS $rss KiB"
done
