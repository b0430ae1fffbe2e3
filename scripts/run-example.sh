#!/usr/bin/env bash
# Quick start: installs what is missing, builds, shows the verdicts over the bundled
# example brains (the incident included), then runs the exporter on them in the
# foreground until Ctrl-C. Set LISTEN to change the address (default :9864).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh build

exporter=build/bin/skeleton-coherence-exporter
echo
echo "== One scan of examples/ (--once); exit code 1 means a mismatch was found =="
status=0
"$exporter" --config.file=examples/config.yml --once || status=$?
echo "(exit code $status)"
echo
listen="${LISTEN:-:9864}"
echo "== Serving examples/ on ${listen}: try  curl -s localhost:${listen##*:}/metrics | grep '^skeleton_coherence{'  =="
exec "$exporter" --config.file=examples/config.yml --web.listen-address="$listen"
