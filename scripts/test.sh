#!/usr/bin/env bash
# Every test: installs what is missing, checks formatting, builds and runs the whole
# suite (unit, integration, promtool, end-to-end) and then the unit and integration
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

echo "== clang-format =="
mapfile -t sources < <(git ls-files '*.h' '*.cc' 2>/dev/null || find engine exporter tests bench -name '*.h' -o -name '*.cc')
clang-format --dry-run -Werror "${sources[@]}"

echo "== build (RelWithDebInfo) =="
./scripts/build.sh build -DSCX_WERROR=ON
echo "== build (ASan + UBSan) =="
./scripts/build.sh build-asan -DSCX_WERROR=ON -DSCX_SANITIZE=ON -DSCX_BUILD_BENCH=OFF

echo "== tests under ASan + UBSan (end-to-end runs once, below) =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2 --label-exclude e2e

echo "== all tests =="
ctest --test-dir build --output-on-failure -j2
