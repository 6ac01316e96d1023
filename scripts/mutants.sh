#!/usr/bin/env bash
# Planted defects: proves the tests catch them. Builds VolumeKit once with -DVOLUMEKIT_MUTANTS (its own build
# folder, so the ordinary build is untouched; no other build contains the mutants, see
# Sources/VolumeKitCore/Mutants/Mutant.swift), then runs a fast filter of the suite against each mutant in turn,
# switched on by the environment variable VOLUMEKIT_MUTANT. Fails when the filter does not pass without a
# mutant, or when a mutant survives (the filter still passes with it on).
# usage: scripts/mutants.sh [MUTANT…]   (default: every mutant in Mutant.swift)
set -euo pipefail
cd "$(dirname "$0")/.."
build=.build/mutants
# The fast filter: the honest oracle over the scenario corpus and random sessions at 12 samples of the envelope,
# the detection machine's unit tests, the scenario and regression suites that pin the rules, and issue 22's
# alternating-taps reproducer under its slow-slider sample (the landing-order proof's own case: the sweep's 12
# samples do not all need that proof, since VolumeKit knows its own late landings), and the aimed down bursts at a
# rail (the sweep excuses a burst's lost presses as a proven limit).
# (The regression suites regrouped by behaviour, issue 24: every test the old InFlightSet-, CrashRecord- and
# RandomSessionRegressionTests held, by its new suite.)
filter='EnvelopeSweepTests|DetectionMachineTests|ScenarioTests|CaptureScenarioTests|RouteChangeInFlightTests|KnownRandomSessionTests|BackgroundTripTests/backgroundDuringHold|CallAndInterruptionTests/(dragNearWholeSteps|controlCenterDuringCall)|RecoveryAfterBurstTests/crashDuringRefusedBurst|LaunchRecoveryRaceTests/(pressBeforeRecoveryStarts|recoveryDuringCall)|ReadAfterPauseTests/pressDuringRestoreFromAnchor|UserVolumeRulesTests|alternatingTapsReproducer|BurstAimTests'
export VOLUMEKIT_SWEEP_SAMPLES=12 VOLUMEKIT_SWEEP_CORPUS_SAMPLES=12 VOLUMEKIT_SWEEP_SESSIONS=2
mutants=("$@")
if [ ${#mutants[@]} -eq 0 ]; then
  mapfile -t mutants < <(sed -n 's/^ *case \([A-Za-z0-9]*\)$/\1/p' Sources/VolumeKitCore/Mutants/Mutant.swift)
fi
start=$(date +%s)
echo "mutants: building once with -DVOLUMEKIT_MUTANTS (${build})"
swift build --build-tests --build-path "$build" -Xswiftc -DVOLUMEKIT_MUTANTS 2>&1 | grep -E "error|warning:" && exit 1
# Each run of the filter has a time limit: a planted defect may send the simulation into a storm of sets that never
# ends (echoLifetime20ms with the echo window on: every landing of VolumeKit's own sets read as a press, each press
# two more sets). A run that does not finish did not pass: the mutant is caught. The test process is killed with it.
limit=${MUTANT_TIME_LIMIT:-120}
run() {
  env "$@" timeout -s KILL "$limit" swift test --skip-build --build-path "$build" --filter "$filter" >/dev/null 2>&1
  local status=$?
  pkill -KILL -f "${build}/.*VolumeKitPackageTests.xctest" 2>/dev/null || true
  return $status
}
if ! run VOLUMEKIT_MUTANT=; then
  echo "mutants: the filter fails with no mutant on; fix the tests first" >&2
  exit 1
fi
survivors=()
for mutant in "${mutants[@]}"; do
  t0=$(date +%s)
  if run VOLUMEKIT_MUTANT="$mutant"; then
    survivors+=("$mutant")
    echo "mutant ${mutant}: SURVIVED ($(( $(date +%s) - t0 )) s)"
  elif [ $(( $(date +%s) - t0 )) -ge "$limit" ]; then
    echo "mutant ${mutant}: caught (the filter did not finish within ${limit} s)"
  else
    echo "mutant ${mutant}: caught ($(( $(date +%s) - t0 )) s)"
  fi
done
echo "mutants: ${#mutants[@]} planted, $(( ${#mutants[@]} - ${#survivors[@]} )) caught, ${#survivors[@]} survived; $(( $(date +%s) - start )) s"
[ ${#survivors[@]} -eq 0 ]
