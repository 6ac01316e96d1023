#!/usr/bin/env bash
# A real UPnP MediaRenderer (Debian's gmediarender) for RemoteVolume's integration tests and benchmark.
#
# Two "hosts" joined by a veth pair, each in its own network namespace (issue 8's facts: gmediarender refuses
# loopback, and with both veth ends in one namespace multicast replies never arrive):
#   vk-renderer  veth vk-ren  10.77.0.1/24   runs gmediarender
#   vk-client    veth vk-cli  10.77.0.2/24   runs the tests: ip netns exec vk-client env VOLUMEKIT_UPNP_PEER=1 swift test
# The /24 exists only inside these two namespaces and neither has any other link: nothing reaches any other network.
#
# usage: scripts/upnp-peer.sh up | down | restart-renderer (kill -9, start) | kill-renderer | stop-renderer | start-renderer | status
# needs: root, iproute2, gmediarender (apt-get install gmediarender)
set -euo pipefail
ren_ns=vk-renderer cli_ns=vk-client
ren_if=vk-ren cli_if=vk-cli
ren_ip=10.77.0.1 cli_ip=10.77.0.2
port=49494
state=${VOLUMEKIT_UPNP_STATE:-/tmp/volumekit-upnp-peer}
pidfile=$state/gmediarender.pid
logfile=$state/gmediarender.log

in_ren() { ip netns exec "$ren_ns" "$@"; }

start_renderer() {
  mkdir -p "$state"
  command -v gmediarender >/dev/null || { echo "upnp-peer: gmediarender is not installed (apt-get install gmediarender)" >&2; exit 3; }
  # The gst output needs no sound card to accept volume/mute; keep GStreamer quiet and local.
  in_ren env GST_REGISTRY="$state/gst-registry.bin" HOME="$state" \
    gmediarender -I "$ren_if" -p "$port" -f VolumeKitTest -u 5a1d0e7e-0000-4000-8000-766b74657374 \
    --logfile "$logfile" -P "$pidfile" -d >/dev/null 2>&1
  # Wait until it serves its description (at most ~10 s): its HTTP port opens before its services exist.
  for _ in $(seq 1 100); do
    if ip netns exec "$cli_ns" timeout 2 bash -c \
      "exec 3<>/dev/tcp/$ren_ip/$port && printf 'GET /description.xml HTTP/1.1\r\nHOST: $ren_ip:$port\r\nCONNECTION: close\r\n\r\n' >&3 && head -c 12 <&3 | grep -q ' 200'" \
      2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "upnp-peer: gmediarender did not come up; log: $logfile" >&2
  tail -20 "$logfile" >&2 || true
  exit 1
}

# Alive and not a zombie (the daemon is re-parented to an init that may never reap it).
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [[ $st != Z* ]]; }

stop_renderer() {
  local signal=${1:-TERM}
  if [ -f "$pidfile" ]; then
    kill "-$signal" "$(cat "$pidfile")" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$(cat "$pidfile")" || break; sleep 0.1; done
    alive "$(cat "$pidfile")" && kill -9 "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}

up() {
  down_quiet
  ip netns add "$ren_ns"
  ip netns add "$cli_ns"
  ip link add "$ren_if" type veth peer name "$cli_if"
  ip link set "$ren_if" netns "$ren_ns"
  ip link set "$cli_if" netns "$cli_ns"
  for side in "$ren_ns:$ren_if:$ren_ip" "$cli_ns:$cli_if:$cli_ip"; do
    IFS=: read -r ns ifname addr <<<"$side"
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$addr/24" dev "$ifname"
    ip -n "$ns" link set "$ifname" up multicast on
    ip -n "$ns" route add 239.0.0.0/8 dev "$ifname"
  done
  start_renderer
  echo "VOLUMEKIT_UPNP_PEER=1"
  echo "VOLUMEKIT_UPNP_LOCATION=http://$ren_ip:$port/description.xml"
  echo "# run tests with: ip netns exec $cli_ns env VOLUMEKIT_UPNP_PEER=1 swift test"
}

down_quiet() {
  stop_renderer
  ip netns del "$cli_ns" 2>/dev/null || true
  ip netns del "$ren_ns" 2>/dev/null || true
}

case "${1:-}" in
  up) up ;;
  down) down_quiet ;;
  restart-renderer) stop_renderer KILL; start_renderer ;;  # killed, as a crash or power cut would
  stop-renderer) stop_renderer ;;
  kill-renderer) stop_renderer KILL ;;
  start-renderer) start_renderer ;;
  status) ip netns list; [ -f "$pidfile" ] && echo "gmediarender pid $(cat "$pidfile")" || echo "gmediarender not running" ;;
  *) echo "usage: $0 up|down|restart-renderer|kill-renderer|stop-renderer|start-renderer|status" >&2; exit 2 ;;
esac
