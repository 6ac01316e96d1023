#!/usr/bin/env bash
# Behaviour kept while the buttons core is refactored (issue 24): compares, against what golden/ recorded,
#  1. every run of `volumekit simulate --json --profile sample:K --trace T SCRIPT` — every script in scenarios/
#     and scenarios/known/, the four VolumeKit strategies, samples 1–50: 9,200 runs, hashed per run
#     (golden/outputs.txt; Tests/VolumeKitTests/Golden/GoldenOutputTests.swift makes the same bytes the CLI
#     prints and writes, so a changed run can be read with the command the failure names);
#  2. the sweep's figures as `swift test` prints them (golden/sweep.txt): per strategy the corpus runs,
#     violations, known, excused and ambiguous-step runs and the failures by limit, and the random sessions'.
# `scripts/golden.sh --write` records both anew: a deliberate change of behaviour, in a commit of its own that
# says why. Exit status 1 when anything differs.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=check
[ "${1:-}" = "--write" ] && mode=write
swift build --build-tests >/dev/null
if [ "$mode" = write ]; then
  VOLUMEKIT_GOLDEN=write swift test --skip-build --filter GoldenOutputTests >/dev/null
  echo "golden: wrote golden/outputs.txt ($(wc -l <golden/outputs.txt) runs)"
else
  swift test --skip-build --filter GoldenOutputTests 2>&1 | grep -E "runs changed|swift run volumekit|the runs differ|Test run" || true
  swift test --skip-build --filter GoldenOutputTests >/dev/null 2>&1 || { echo "golden: the runs' outputs differ" >&2; exit 1; }
  echo "golden: every run's output and trace as recorded ($(wc -l <golden/outputs.txt) runs)"
fi
figures=$(mktemp)
swift test --skip-build --filter "EnvelopeSweepTests|RandomSessionsTests" 2>&1 \
  | grep -E "^(envelope sweep|random sessions)" | sort >"$figures" || true
if [ "$mode" = write ]; then
  cp "$figures" golden/sweep.txt
  echo "golden: wrote golden/sweep.txt"
elif ! diff -u golden/sweep.txt "$figures"; then
  echo "golden: the sweep's figures differ (above: - recorded, + now)" >&2
  exit 1
else
  echo "golden: the sweep's figures as recorded ($(wc -l <golden/sweep.txt) lines)"
fi
