#!/usr/bin/env bash
# Regenerates the simulator-made trace fixtures after a deliberate change to what VolumeKit sets or records
# (ContributedTraceTests and the example app's FieldCheckTests fail and say so). Device traces are never
# regenerated: they cannot be re-recorded (docs/field-check.md).
#
# usage: scripts/regenerate-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
traces=Tests/VolumeKitTests/Fixtures/Traces
VOLUMEKIT_WRITE_TRACE_FIXTURES=1 swift test --filter ContributedTraceTests/standardSessionIsCurrent
swift run volumekit simulate --profile sample:9 --trace "$traces/field-check.sample-9.simulator.jsonl" \
  scenarios/field-check.txt >/dev/null
FIELD_CHECK_TRACE_OUT="$PWD/$traces/simulator-ios17.4-2026-12-01.jsonl" \
  swift test --package-path Examples/VolumeKitDemo --filter fixtureIsTheSimulatedCheck
git status --short -- "$traces"
