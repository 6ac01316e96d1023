#!/usr/bin/env bash
# A real Snapcast server and two clients (Debian's snapserver + snapclient) for RemoteVolume's Snapcast
# integration tests and benchmark.
#
# Everything on loopback (127.0.0.1): snapserver's stream port, its JSON-RPC control port (TCP) and no HTTP;
# a pipe source nobody writes to (silence); two snapclients playing into the null file player, with fixed
# host ids so the tests know their client ids (vk-client-1, and vk-client-2#2: snapclient appends #N for
# instance N > 1). The tests put both in one group themselves (Group.SetClients) for the group suite.
#
# usage: scripts/snapcast-peer.sh up | down | kill-server | start-server | status
#   kill-server  SIGKILL the server (a crash / power cut) for the restart test; the clients reconnect by themselves
# needs: snapserver, snapclient (apt-get install snapserver snapclient)
set -euo pipefail
state=${VOLUMEKIT_SNAPCAST_STATE:-/tmp/volumekit-snapcast-peer}
stream_port=${VOLUMEKIT_SNAPCAST_STREAM_PORT:-17704}
control_port=${VOLUMEKIT_SNAPCAST_PORT:-17705}

alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [[ $st != Z* ]]; }

ready() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$control_port" 2>/dev/null; }

start_server() {
  command -v snapserver >/dev/null || { echo "snapcast-peer: snapserver is not installed (apt-get install snapserver)" >&2; exit 3; }
  mkdir -p "$state/data"
  if [ -f "$state/server.pid" ] && alive "$(cat "$state/server.pid")"; then return 0; fi
  # An empty config file: every setting is on the command line.
  : >"$state/snapserver.conf"
  setsid snapserver -c "$state/snapserver.conf" \
    --server.datadir="$state/data" \
    --http.enabled=false \
    --tcp.bind_to_address=127.0.0.1 --tcp.port="$control_port" \
    --stream.bind_to_address=127.0.0.1 --stream.port="$stream_port" \
    --stream.source="pipe://$state/snapfifo?name=default&mode=create" \
    --logging.sink=file:"$state/server.log" \
    >>"$state/server.out" 2>&1 </dev/null &
  echo $! >"$state/server.pid"
  for _ in $(seq 1 100); do ready && return 0; sleep 0.1; done
  echo "snapcast-peer: snapserver did not come up; log: $state/server.log" >&2
  tail -20 "$state/server.log" "$state/server.out" >&2 || true
  exit 1
}

start_client() {
  local n=$1
  command -v snapclient >/dev/null || { echo "snapcast-peer: snapclient is not installed (apt-get install snapclient)" >&2; exit 3; }
  if [ -f "$state/client$n.pid" ] && alive "$(cat "$state/client$n.pid")"; then return 0; fi
  setsid snapclient -h 127.0.0.1 -p "$stream_port" -i "$n" --hostID "vk-client-$n" \
    --player file:filename=null --logsink file:"$state/client$n.log" --logfilter "*:warning" \
    >>"$state/client$n.out" 2>&1 </dev/null &
  echo $! >"$state/client$n.pid"
}

stop() {
  local name=$1 signal=${2:-TERM}
  local pidfile=$state/$name.pid
  if [ -f "$pidfile" ]; then
    local pid; pid=$(cat "$pidfile")
    kill "-$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}

# Until both clients are connected (Server.GetStatus lists them connected), at most ~10 s.
wait_clients() {
  for _ in $(seq 1 100); do
    local reply
    reply=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$control_port; printf '%s\n' '{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"Server.GetStatus\"}' >&3; head -n 1 <&3" 2>/dev/null || true)
    if [ "$(grep -o '"connected":true' <<<"$reply" | wc -l)" -ge 2 ]; then return 0; fi
    sleep 0.1
  done
  echo "snapcast-peer: the snapclients did not connect; logs in $state" >&2
  exit 1
}

down() { stop client1; stop client2; stop server; }

case "${1:-}" in
  up)
    down
    rm -rf "$state"
    start_server
    start_client 1
    start_client 2
    wait_clients
    echo "VOLUMEKIT_SNAPCAST_URL=snapcast://127.0.0.1:$control_port"
    echo "# clients: vk-client-1 vk-client-2#2"
    ;;
  down) down ;;
  kill-server) stop server KILL ;;
  start-server) start_server ;;
  status)
    for name in server client1 client2; do
      if [ -f "$state/$name.pid" ] && alive "$(cat "$state/$name.pid")"; then echo "$name pid $(cat "$state/$name.pid")"; else echo "$name not running"; fi
    done
    ;;
  *) echo "usage: $0 up|down|kill-server|start-server|status" >&2; exit 2 ;;
esac
