#!/usr/bin/env bash
# Fuzzes VolumeKit's sound-file reader with libFuzzer.
#
# usage: scripts/fuzz-sounds.sh [RUNS]     (default 1000000 executions; 0 = until stopped)
# env:   FUZZ_DIR   work folder (default .build/fuzz-sounds): binary, corpus/, crash files
#        FUZZ_JOBS  extra libFuzzer flags
#
# Builds Fuzz/SoundReaderFuzz.swift together with the VolumeKitCore sources straight through swiftc
# (-sanitize=fuzzer,address), outside the package build, seeds the corpus with the committed fixtures and
# runs. Exit status is libFuzzer's: 0 when no crash, leak, timeout or sanitizer finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-1000000}
work=${FUZZ_DIR:-$root/.build/fuzz-sounds}
mkdir -p "$work/corpus" "$work/artifacts"

binary=$work/sound-reader-fuzz
sources=$(find "$root/Sources/VolumeKitCore" -name '*.swift' | sort)
if [ ! -x "$binary" ] || [ -n "$(find "$root/Sources/VolumeKitCore" "$root/Fuzz" -name '*.swift' -newer "$binary")" ]; then
  echo "fuzz-sounds: building $binary" >&2
  # shellcheck disable=SC2086
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name VolumeKitCore \
    $sources "$root/Fuzz/SoundReaderFuzz.swift" -o "$binary" 2>"$work/build.log" \
    || { cat "$work/build.log" >&2; exit 1; }
  # ld.gold lists every ASan helper it cannot export; show anything else.
  grep -v "Cannot export local symbol" "$work/build.log" >&2 || true
fi
cp -n "$root"/Tests/VolumeKitTests/Fixtures/* "$work/corpus/" 2>/dev/null || true

echo "fuzz-sounds: $runs runs" >&2
start=$(date +%s)
set +e
# shellcheck disable=SC2086
"$binary" "$work/corpus" -runs="$runs" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 ${FUZZ_JOBS:-} 2>"$work/last-run.log"
status=$?
set -e
elapsed=$(( $(date +%s) - start ))
grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|Done" "$work/last-run.log" >&2 || true
echo "fuzz-sounds: exit $status after ${elapsed}s (log: $work/last-run.log)" >&2
exit $status
