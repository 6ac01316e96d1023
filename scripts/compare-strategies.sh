#!/usr/bin/env bash
# Runs every scenario in scenarios/ with each strategy on the simulated device and prints a Markdown table:
# presses reported (pressed / repeated / released), system HUD appearances, and the volume at the end.
# usage: [PROFILE=NAME|sample:K] scripts/compare-strategies.sh [STRATEGY…]
#        (default: baseline outputVolume systemNotification, on the default device behaviour)
set -euo pipefail
cd "$(dirname "$0")/.."
strategies=("$@")
[ ${#strategies[@]} -gt 0 ] || strategies=(baseline outputVolume systemNotification)
swift build --product volumekit >/dev/null 2>&1
bin=$(swift build --product volumekit --show-bin-path)/volumekit
printf "| scenario (expected presses) |"; for s in "${strategies[@]}"; do printf " %s |" "$s"; done; echo
printf "|---|"; for _ in "${strategies[@]}"; do printf -- "---|"; done; echo
for file in scenarios/*.txt; do
  expect=$(head -1 "$file" | sed -e 's/^# //')
  printf "| %s |" "$expect"
  for s in "${strategies[@]}"; do
    out=$("$bin" simulate --json --strategy "$s" --profile "${PROFILE:-default}" "$file")
    pressed=$(grep -c '"phase":"pressed"' <<<"$out" || true)
    repeated=$(grep -c '"phase":"repeated"' <<<"$out" || true)
    released=$(grep -c '"phase":"released"' <<<"$out" || true)
    hud=$(grep -c '"type":"systemHUD"' <<<"$out" || true)
    end=$(grep '"type":"end"' <<<"$out" | sed -E 's/.*"volume":([0-9.e-]+).*/\1/')
    printf " %s/%s/%s, HUD %s, end %s |" "$pressed" "$repeated" "$released" "$hud" "$end"
  done
  echo
done
