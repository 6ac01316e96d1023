#!/usr/bin/env bash
# volumekit-bench with the remote peers side by side, in one run (issue 23, item 4): brings up Debian's mpd
# and snapserver on loopback (scripts/mpd-peer.sh, scripts/snapcast-peer.sh), a Python venv with
# python-mpd2 for MPD's peer figure, builds everything in release (volumekit too: the whole-process rows
# spawn it next to mpc; and soxi for the sound files) and runs the bench with the peers' URLs. UPnP runs when VOLUMEKIT_UPNP_LOCATION is
# set (scripts/upnp-peer.sh needs a network namespace).
#
# usage: scripts/bench.sh [remote]   needs: mpd mpc snapserver snapclient sox libsox-fmt-all python3-venv
#   remote   only the remote rows (devices, peers, whole processes and what each sends on the wire)
# env: VOLUMEKIT_MPD_PORT, VOLUMEKIT_SNAPCAST_PORT, VOLUMEKIT_SNAPCAST_STREAM_PORT and the *_STATE folders of the
#      peer scripts, to run beside another copy on the same machine. The load average is printed with the
#      whole-process rows: on a shared machine those figures move with it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VOLUMEKIT_BENCH_VENV:-/tmp/volumekit-bench-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import mpd' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet python-mpd2
fi
trap 'scripts/mpd-peer.sh down || true; scripts/snapcast-peer.sh down || true' EXIT
scripts/mpd-peer.sh up >/dev/null
scripts/snapcast-peer.sh up >/dev/null
# The release build a shipped CLI would be (scripts/release-build.sh: Swift runtime and Foundation linked
# statically, lld with packed relative relocations, no exported symbols, libstdc++ inside, no $ORIGIN rpath;
# a dynamically linked Foundation "hello" starts in ~6 ms here, a static one in ~2 ms). Package.swift cannot
# ask for these without unsafeFlags, which would stop the package being used as a dependency.
scripts/release-build.sh >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
VOLUMEKIT_MPD_URL=mpd://vk-secret@127.0.0.1:${VOLUMEKIT_MPD_PORT:-16600} \
  VOLUMEKIT_SNAPCAST_URL=snapcast://127.0.0.1:${VOLUMEKIT_SNAPCAST_PORT:-17705}/vk-client-1 \
  VOLUMEKIT_BENCH_PYTHON="$venv/bin/python" \
  .build/release/volumekit-bench "$@"
