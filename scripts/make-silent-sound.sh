#!/usr/bin/env bash
# Rewrites Sources/VolumeKit/Resources/mute-probe.caf, the mute probe's silent sound, from SoundFileWriter
# (see MuteProbeSound), by running the test that otherwise checks the committed file equals the writer's output.
set -euo pipefail
cd "$(dirname "$0")/.."
VOLUMEKIT_WRITE_SILENT_SOUND=1 swift test --filter MuteProbeSoundTests "$@"
git status --short Sources/VolumeKit/Resources/mute-probe.caf
