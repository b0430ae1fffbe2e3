#!/usr/bin/env bash
# The systemd units as `cmake --install` installs them: `systemd-analyze verify` must
# print nothing for the service and its socket, `systemd-analyze security` must rate it at most MAX_EXPOSURE, and the
# settings a reviewer expects of a read-only watcher must be there.
# TasksMax and LimitNOFILE must leave room for the HTTP server's worker threads.
# Usage: systemd_unit_test.sh BUILD_DIR SOURCE_DIR. Exit 77 (skipped) without
# systemd-analyze, or 1 under CI=true (scripts/install-deps.sh --test installs it).
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
max_exposure=2.0

"$source_dir/tests/require_tools.sh" systemd_unit systemd-analyze || exit $?

work=$(mktemp -d "$build_dir/systemd-unit-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
unit="$work/prefix/lib/systemd/system/skeleton-coherence-exporter.service"

fail() { echo "FAIL: $*"; exit 1; }

grep -qxF "ExecStart=$work/prefix/bin/skeleton-coherence-exporter --storage.path=/var/lib/skeleton-coherence-exporter --discovery.view=\${SCX_DISCOVERY_VIEW} \$ARGS" \
    "$unit" ||
  fail "ExecStart does not name the installed binary"
grep -qx "EnvironmentFile=-$work/prefix/etc/default/skeleton-coherence-exporter" "$unit" ||
  fail "EnvironmentFile does not name the installed environment file"
for setting in \
    "User=skeleton-coherence-exporter" "NoNewPrivileges=yes" "ProtectSystem=strict" \
    "ProtectHome=read-only" "PrivateTmp=yes" "PrivateDevices=yes" \
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" "SystemCallFilter=@system-service" \
    "CapabilityBoundingSet=" "Environment=SCX_DISCOVERY_VIEW=host" "ExecReload=/bin/kill -HUP \$MAINPID" "Restart=on-failure"; do
  grep -qxF "$setting" "$unit" || fail "the unit lacks '$setting'"
done
grep -q "^MemoryMax=[0-9]" "$unit" || fail "the unit sets no MemoryMax"
workers=$(sed -n 's/.*kDefaultHttpThreads = \([0-9]*\);.*/\1/p' "$source_dir/exporter/http/http_server.h")
[ -n "$workers" ] || fail "kDefaultHttpThreads not found in exporter/http/http_server.h"
tasks=$(sed -n 's/^TasksMax=//p' "$unit")
files=$(sed -n 's/^LimitNOFILE=//p' "$unit")
[ "${tasks:-0}" -ge $((workers + 64)) ] || fail "TasksMax=$tasks leaves no room for $workers HTTP workers"
[ "${files:-0}" -ge $((workers + 128)) ] || fail "LimitNOFILE=$files leaves no room for $workers HTTP workers"

# verify exits 0 on many problems (an unparsable value is "ignored"): any output fails.
verify_output=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $verify_output"
[ -z "$verify_output" ] || fail "systemd-analyze verify printed: $verify_output"
echo "systemd-analyze verify: clean"

# The socket unit (socket activation): it listens where the exporter would by default,
# and verifies clean beside the service it starts.
socket_unit="${unit%.service}.socket"
[ -f "$socket_unit" ] || fail "no socket unit installed"
default_port=$(sed -n 's/.*kDefaultListenAddress\[\] = ":\([0-9]*\)";.*/\1/p' \
  "$source_dir/exporter/http/listen_address.h")
grep -qx "ListenStream=${default_port:-none}" "$socket_unit" ||
  fail "the socket unit does not listen on the default port ${default_port:-?}"
grep -qx "Documentation=file://$work/prefix/share/doc/skeleton-coherence-exporter/deploy.md" \
  "$socket_unit" || fail "the socket unit's Documentation does not follow the prefix"
verify_output=$(systemd-analyze verify "$socket_unit" 2>&1) || fail "systemd-analyze verify: $verify_output"
[ -z "$verify_output" ] || fail "systemd-analyze verify of the socket printed: $verify_output"
echo "systemd-analyze verify (socket): clean"

threshold=$(awk -v x="$max_exposure" 'BEGIN { printf "%d", x * 10 }')
if ! report=$(systemd-analyze security --offline=true --threshold="$threshold" "$unit" 2>&1); then
  echo "$report"
  fail "exposure above $max_exposure"
fi
echo "$report" | grep "Overall exposure level"
