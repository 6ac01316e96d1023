#!/usr/bin/env bash
# A real Music Player Daemon (Debian's mpd) for RemoteVolume's MPD integration tests and benchmark.
#
# Listens on loopback only (127.0.0.1), with a null audio output and MPD's software mixer, so `setvol`,
# `getvol`, `status` and `idle mixer` work without a sound card. A password is configured and anonymous
# clients may only read: the tests must authenticate to change the volume (and check that without the
# password the refusal is a clear error).
#
# usage: scripts/mpd-peer.sh up | down | kill | start | status
#   up     writes the config, starts mpd and prints the env vars for the tests
#   kill   SIGKILL (a crash / power cut), for the restart test; start brings it back with the same state
# needs: mpd (apt-get install mpd)
set -euo pipefail
state=${VOLUMEKIT_MPD_STATE:-/tmp/volumekit-mpd-peer}
port=${VOLUMEKIT_MPD_PORT:-16600}
password=vk-secret
pidfile=$state/mpd.pid

write_config() {
  mkdir -p "$state/music" "$state/playlists"
  cat >"$state/mpd.conf" <<CONF
music_directory    "$state/music"
playlist_directory "$state/playlists"
db_file            "$state/database"
state_file         "$state/state"
log_file           "$state/mpd.log"
bind_to_address    "127.0.0.1"
port               "$port"
zeroconf_enabled   "no"
password           "$password@read,add,control,admin"
default_permissions "read"
audio_output {
  type        "null"
  name        "VolumeKitTest"
  mixer_type  "software"
}
CONF
}

alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [[ $st != Z* ]]; }

start() {
  command -v mpd >/dev/null || { echo "mpd-peer: mpd is not installed (apt-get install mpd)" >&2; exit 3; }
  [ -f "$state/mpd.conf" ] || write_config
  if [ -f "$pidfile" ] && alive "$(cat "$pidfile")"; then return 0; fi
  # --no-daemon in the background: the pid we record is mpd's own.
  setsid mpd --no-daemon "$state/mpd.conf" >>"$state/stdout.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  # Ready when it greets on the port (at most ~10 s).
  for _ in $(seq 1 100); do
    if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && head -c 6 <&3 | grep -q '^OK MPD'" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "mpd-peer: mpd did not come up; log: $state/mpd.log" >&2
  tail -20 "$state/mpd.log" "$state/stdout.log" >&2 || true
  exit 1
}

stop() {
  local signal=${1:-TERM}
  if [ -f "$pidfile" ]; then
    local pid; pid=$(cat "$pidfile")
    kill "-$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}

case "${1:-}" in
  up)
    stop
    rm -rf "$state"
    write_config
    start
    echo "VOLUMEKIT_MPD_URL=mpd://$password@127.0.0.1:$port"
    ;;
  down) stop ;;
  kill) stop KILL ;;
  start) start ;;
  status) [ -f "$pidfile" ] && alive "$(cat "$pidfile")" && echo "mpd pid $(cat "$pidfile") on 127.0.0.1:$port" || echo "mpd not running" ;;
  *) echo "usage: $0 up|down|kill|start|status" >&2; exit 2 ;;
esac
