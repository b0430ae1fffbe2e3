#!/usr/bin/env bash
# Configures and builds into a build folder: scripts/build.sh [BUILD_DIR [CMAKE_ARGS...]]
# cmake's configure output is shown only when configuring fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"
shift || true
mkdir -p "$build_dir"
configure_log="$build_dir/configure.log"
launcher=()  # ccache, where a developer has it: rebuilds after a checkout take seconds
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if ! cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" \
     >"$configure_log" 2>&1; then
  cat "$configure_log" >&2
  echo "build.sh: configuring $build_dir failed (log: $configure_log)" >&2
  exit 1
fi
cmake --build "$build_dir" -j2
