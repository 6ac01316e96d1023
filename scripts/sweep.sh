#!/usr/bin/env bash
# The envelope sweep at README scale: VolumeKit's randomized user-volume sessions under many seeded samples of
# the plausible iOS envelope (DeviceBehaviour.sample(K), see 'volumekit profiles'), for every strategy, and the
# scenario corpus under a smaller number of samples. Prints the counts and the violations.
# usage: scripts/sweep.sh [SAMPLES] [SESSIONS_PER_SAMPLE] [CORPUS_SAMPLES]   (defaults 5000 2 500)
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-5000}
sessions=${2:-2}
corpus=${3:-500}
report=${VOLUMEKIT_SWEEP_REPORT:-/tmp/volumekit-sweep}
start=$(date +%s)
VOLUMEKIT_SWEEP_SAMPLES=$samples VOLUMEKIT_SWEEP_SESSIONS=$sessions VOLUMEKIT_SWEEP_CORPUS_SAMPLES=$corpus \
  VOLUMEKIT_SWEEP_REPORT=$report swift test --filter EnvelopeSweepTests 2>&1 | grep -E "envelope sweep|Test run" || true
echo "sweep: ${samples} samples x ${sessions} sessions x 3 strategies; corpus ${corpus} samples; $(( $(date +%s) - start )) s; failing runs listed in ${report}.*"
