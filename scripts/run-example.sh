#!/usr/bin/env bash
# Quick start: installs what building and running the exporter needs (no test tools,
# no service), builds the exporter and what its Debian package needs besides (the man
# page, the changelog) in build-example/ (no tests, no benchmarks; scripts/test.sh
# builds in build/), so that `cpack -G DEB` works there; shows the verdicts over the
# bundled example brains (the incident included) as the table a person reads, then
# runs the exporter on them in the foreground until Ctrl-C. Set LISTEN to change the
# address (default :9864). A second run installs and builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build-example

started=$SECONDS
./scripts/install-deps.sh
echo "== dependencies ready after $((SECONDS - started)) s =="

build_started=$SECONDS
mkdir -p "$build_dir"
# Optimized as in RelWithDebInfo, without the debug info, which is a quarter of the
# compile time (docs/building.md); scripts/build.sh keeps it for development.
if ! cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" \
     -DSCX_BUILD_TESTS=OFF -DSCX_BUILD_BENCH=OFF >"$build_dir/configure.log" 2>&1; then
  cat "$build_dir/configure.log" >&2
  echo "run-example: configuring $build_dir failed (log: $build_dir/configure.log)" >&2
  exit 1
fi
# All of it: the binary, and the man page and changelog that cpack packs with it.
cmake --build "$build_dir" -j2
echo "== exporter built in $((SECONDS - build_started)) s ($((SECONDS - started)) s in all) =="

exporter="$build_dir/bin/skeleton-coherence-exporter"
echo
echo "== One scan of examples/ (--once --output=table); exit code 1 means a mismatch was found =="
status=0
"$exporter" --config.file=examples/config.yml --once --output=table || status=$?
echo "(exit code $status)"
echo
listen="${LISTEN:-:9864}"
echo "== Serving examples/ on ${listen}: try  curl -s localhost:${listen##*:}/metrics | grep '^skeleton_coherence{'  =="
exec "$exporter" --config.file=examples/config.yml --web.listen-address="$listen"
