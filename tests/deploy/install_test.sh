#!/usr/bin/env bash
# `cmake --install` into a fresh prefix puts every file where docs/deploy.md says.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
work=$(mktemp -d "$build_dir/install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null

status=0
for file in \
    bin/skeleton-coherence-exporter \
    etc/skeleton-coherence-exporter/config.yml \
    etc/default/skeleton-coherence-exporter \
    lib/systemd/system/skeleton-coherence-exporter.service \
    share/skeleton-coherence-exporter/alerts/skeleton-coherence.rules.yml \
    share/skeleton-coherence-exporter/alerts/alertmanager.yml \
    share/skeleton-coherence-exporter/dashboards/skeleton-coherence.json \
    share/skeleton-coherence-exporter/kubernetes/daemonset.yml \
    share/doc/skeleton-coherence-exporter/README.md \
    share/doc/skeleton-coherence-exporter/deploy.md \
    share/doc/skeleton-coherence-exporter/runbook.md \
    share/doc/skeleton-coherence-exporter/copyright \
    share/man/man1/skeleton-coherence-exporter.1.gz; do
  if [ ! -f "$prefix/$file" ]; then
    echo "FAIL: not installed: $file"
    status=1
  fi
done
if find "$prefix/share/skeleton-coherence-exporter" -path '*tests*' | grep -q .; then
  echo "FAIL: the promtool tests were installed"
  status=1
fi

# The installed binary runs, and the installed config is valid and watches nothing.
HOME="$work" "$prefix/bin/skeleton-coherence-exporter" \
  --config.file="$prefix/etc/skeleton-coherence-exporter/config.yml" --once >"$work/once.json"
grep -q '"brains": \[\]' "$work/once.json" || { echo "FAIL: the shipped config watches brains"; status=1; }
[ $status -eq 0 ] && echo "installed $(find "$prefix" -type f | wc -l) files under the prefix"
exit $status
